//! The census on disk: `census.tsv` for people and a compact binary descriptor
//! file (`.c3d`, layout in FORMAT.md, bytes in [`raw`]) that `get` and `analyze`
//! read. Uses `proof`, `facts`, `atomic_write` and `path_message`; reads and
//! writes these files, each written aside, synced and renamed into place.

pub mod raw;

use crate::base::bytes::narrow;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::base::atomic_write::FileSet;
use crate::base::input::{self, InputError};
use crate::base::path_message::NamesPath;
use crate::base::stop::Stop;
use crate::f::facts::ColumnFacts;
use crate::f::proof::{Fate, RowStatus};

/// What can go wrong with a descriptor file.
#[derive(Debug, thiserror::Error)]
pub enum DescriptorError {
    /// No file at the path.
    #[error("{0}: no such census file")]
    NotFound(PathBuf),
    /// Not a descriptor file.
    #[error(
        "not a chomp3 census descriptor file (no CHOMP3DS header); a census is read from its .c3d file"
    )]
    NotThisFile,
    /// Written by another format version.
    #[error(
        "census descriptor version {found}, this chomp3 reads {expected}; use a chomp3 that reads it"
    )]
    Version {
        /// The version this build reads.
        expected: u32,
        /// The version in the file.
        found: u32,
    },
    /// A length, checksum or record that is not the writer's.
    #[error(
        "damaged census descriptor file (its length, checksum or records); make the census again"
    )]
    Damaged,
    /// Nothing in the file.
    #[error("the file is empty, not a census descriptor file")]
    Empty,
    /// Another kind of file chomp3 writes.
    #[error("this file is {0}, not a census descriptor file; give the path of a .c3d file")]
    OtherFile(&'static str),
    /// A file compressed with xz whose name does not say so (only a name
    /// ending in `.xz` is read decompressed).
    #[error(
        "this file is compressed with xz, but its name does not end in .xz; name it so to have it read decompressed, or decompress it (xz -d)"
    )]
    CompressedUnnamed,
    /// Fewer bytes than its header asks for.
    #[error(
        "truncated census descriptor file: {found} bytes, where its header asks for at least {at_least} (it was cut off, or its header damaged); copy it again, or make the census again"
    )]
    Truncated {
        /// Bytes in the file.
        found: u64,
        /// Bytes its header asks for, at least.
        at_least: u64,
    },
    /// The read was stopped (Ctrl-C) before its end.
    #[error("interrupted before the census descriptor file was read")]
    Stopped,
    /// The file's length or time of change moved while it was read, and
    /// what was read did not hold together.
    #[error(
        "the census file changed while it was read (another program wrote to it); read it again once it is written"
    )]
    Changed,
    /// The path is no regular file, or a link to nothing (the message names it).
    #[error(transparent)]
    Input(InputError),
    /// An operating-system error.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        error: io::Error,
    },
}

impl NamesPath for DescriptorError {
    fn names_path(&self) -> bool {
        matches!(
            self,
            DescriptorError::NotFound(_) | DescriptorError::Io { .. } | DescriptorError::Input(_)
        )
    }
}

/// Why a census file may not be written.
#[derive(Debug, thiserror::Error)]
pub enum MayWriteError {
    /// Its directory is missing.
    #[error("directory {} does not exist; create it first", .0.display())]
    NoDirectory(PathBuf),
    /// It holds a census of more rows.
    #[error(
        "{} holds a census of rows 0..{}, more than the {} rows asked for; it is kept unless replacing it is asked for",
        .path.display(), .covered - 1, *.rows as u64 + 1
    )]
    Larger {
        /// The file.
        path: PathBuf,
        /// Rows it covers.
        covered: u32,
        /// The last row asked for.
        rows: u32,
    },
    /// It holds a census computed to more columns than this run may
    /// compute: a row it proves might be left open.
    #[error(
        "{} holds a census computed to {found} columns, more than the {most} this run may compute, so it may prove rows this run leaves open; it is kept unless replacing it is asked for",
        .path.display()
    )]
    MoreColumns {
        /// The file.
        path: PathBuf,
        /// Columns its census computed.
        found: u64,
        /// The most columns this run computes.
        most: u32,
    },
    /// It is something else.
    #[error(
        "{} exists and is not a census file this chomp3 reads ({error}); it is kept unless replacing it is asked for",
        .path.display()
    )]
    NotCensus {
        /// The file.
        path: PathBuf,
        /// Why it is not read.
        error: DescriptorError,
    },
}

/// Refuses, before any work, to write `path` when its directory is missing, or
/// unless `replace` when it holds something that is not a census, or a census
/// this run (rows `0 ..= rows`, at most `max_columns` columns) might not
/// cover: one of more rows, or one computed to more columns (a row is proved
/// at a column from the rows below it only, so a run of at least the rows and
/// the columns proves every row the census there proves).
pub(crate) fn may_write(
    path: &Path,
    rows: u32,
    max_columns: u32,
    replace: bool,
) -> Result<(), MayWriteError> {
    let dir = crate::base::atomic_write::parent_dir(path);
    if !dir.is_dir() {
        return Err(MayWriteError::NoDirectory(dir));
    }
    if replace {
        return Ok(());
    }
    match census_in_file(path) {
        Ok(Some((covered, _))) if covered as u64 > rows as u64 + 1 => Err(MayWriteError::Larger {
            path: path.to_path_buf(),
            covered,
            rows,
        }),
        Ok(Some((_, found))) if found > max_columns as u64 => Err(MayWriteError::MoreColumns {
            path: path.to_path_buf(),
            found,
            most: max_columns,
        }),
        Ok(_) => Ok(()),
        Err(error) => Err(MayWriteError::NotCensus {
            path: path.to_path_buf(),
            error,
        }),
    }
}

/// First line of `census.tsv`, up to the last row.
const TSV_TITLE: &str = "# Certified census of three-rowed Chomp, rows 0..";

/// Writes `census.tsv` for `rows` (each row's proved fate, `None` if open; a start
/// in `start_bounds` is written `<=start`) after `columns` columns. `command` goes
/// into the header. Written aside into `set`.
pub fn write_tsv(
    set: &mut FileSet,
    rows: &[Option<RowStatus>],
    start_bounds: &[u32],
    columns: u32,
    command: &str,
    path: &Path,
) -> io::Result<()> {
    set.write(path, |w| {
        writeln!(w, "{TSV_TITLE}{}", rows.len() - 1)?;
        writeln!(
            w,
            "# from `{command}`; {columns} columns computed, no table stored"
        )?;
        for line in [
            "# class: constant (f(q,r) = start for all q >= start; the recurrence's rule), periodic",
            "#   (proved for all q by an equal row state a multiple of the period apart: doc/certificate.md),",
            "#   open (not proved within the columns computed)",
            "# start: constant: the q with f(q,r) = q; periodic: least q0 >= r from which f(q,r) - q repeats",
            "#   (<=q0: it repeats from q0, and its least start lies before the recorded columns)",
            "# pattern: f(q,r) - q for q = start .. start+period-1; closed_at: column qs+K of the certificate",
            "r\tclass\tstart\tperiod\tpattern\tclosed_at",
        ] {
            writeln!(w, "{line}")?;
        }
        for (r, status) in rows.iter().enumerate() {
            let Some(s) = status else {
                writeln!(w, "{r}\topen\t-\t-\t-\t-")?;
                continue;
            };
            match &s.fate {
                Fate::Constant { start } => writeln!(w, "{r}\tconstant\t{start}\t-\t-\t-")?,
                Fate::Periodic { start, pattern } => {
                    let pat: Vec<String> = pattern.iter().map(i32::to_string).collect();
                    let closed_at = s.known.closed_at().unwrap_or(0);
                    let bound = if start_bounds.contains(&narrow::<u32, _>(r)) {
                        "<="
                    } else {
                        ""
                    };
                    writeln!(
                        w,
                        "{r}\tperiodic\t{bound}{start}\t{}\t{}\t{closed_at}",
                        pattern.len(),
                        pat.join(",")
                    )?;
                }
            }
        }
        Ok(())
    })
}

/// Writes the binary descriptor file for `rows` (and which of them have only a
/// bound for their start) and the `facts`, after `columns` columns. Written
/// aside into `set`.
pub fn write_descriptors(
    set: &mut FileSet,
    rows: &[Option<RowStatus>],
    start_bounds: &[u32],
    facts: &ColumnFacts,
    columns: u32,
    path: &Path,
) -> io::Result<()> {
    let bytes = raw::encode(rows, start_bounds, facts, columns as u64);
    set.write(path, |w| w.write_all(&bytes))
}

/// How many rows an existing census file covers and how many columns its
/// census computed, `tsv` or `c3d` by its content: `Ok(None)` when there is
/// no file, an error when it is not a census file.
pub(crate) fn census_in_file(path: &Path) -> Result<Option<(u32, u64)>, DescriptorError> {
    if !path.exists() {
        return Ok(None);
    }
    let io = |error| DescriptorError::Io {
        path: path.to_path_buf(),
        error,
    };
    // The first lines as bytes: a descriptor file is binary, not text.
    let mut read = BufReader::new(input::open(path, DESCRIPTORS).map_err(DescriptorError::Input)?);
    let mut first = Vec::new();
    (&mut read)
        .take(256)
        .read_until(b'\n', &mut first)
        .map_err(io)?;
    if let Some(last) = first.strip_prefix(TSV_TITLE.as_bytes()) {
        // The second line: "# from `COMMAND`; C columns computed, ...", the
        // command quoted on one line.
        let mut second = Vec::new();
        read.take(1 << 16)
            .read_until(b'\n', &mut second)
            .map_err(io)?;
        let columns = std::str::from_utf8(&second)
            .ok()
            .and_then(|line| line.rsplit_once("; "))
            .and_then(|(_, tail)| tail.strip_suffix(" columns computed, no table stored\n"))
            .and_then(|c| c.parse::<u64>().ok());
        return std::str::from_utf8(last)
            .ok()
            .and_then(|last| last.trim_end().parse::<u32>().ok())
            .and_then(|last| last.checked_add(1))
            .zip(columns)
            .map(Some)
            .ok_or(DescriptorError::Damaged);
    }
    Descriptors::open(path).map(|d| Some((d.rows(), d.columns())))
}

const DESCRIPTORS: &str = "a census descriptor file (.c3d)";

/// Bytes read at a time, between two looks at the stop token.
const PIECE: u64 = 1 << 20;

/// A descriptor file's bytes: the header's lengths checked against each other
/// and against what the file holds before any room is taken for them (a
/// file of another kind is refused from its first bytes, a damaged header
/// costs no memory), then the file read in one buffer of its length, room
/// for it taken at once (a buffer moved to grow holds two copies for a
/// moment). A census that leaves most rows open compresses by thousands, so
/// the length of a `.xz` file comes from its index where the header allows
/// it, else from decompressing it twice (counted and dropped, then read).
/// Stops, with [`DescriptorError::Stopped`], soon after `stop` is requested.
fn read_file(path: &Path, file: &File, xz: bool, stop: &Stop) -> Result<Vec<u8>, DescriptorError> {
    let io = |error: io::Error| DescriptorError::Io {
        path: path.to_path_buf(),
        error,
    };
    if xz && file.metadata().map_err(io)?.len() == 0 {
        return Err(DescriptorError::Empty);
    }
    let indexed = match xz {
        true => crate::base::xz_len::decompressed_len(file),
        false => None,
    };
    // The decoder reads no further than the last stream: the padding after
    // it, which a sparse file may hold gigabytes of, is nulls and nothing
    // more (`xz_len`).
    let streams_end = indexed.map(|l| l.streams_end);
    let mut content = Content::of(file, xz, streams_end).map_err(io)?;
    let mut bytes = Vec::new();
    let mut by_index = false;
    let len = match indexed.map(|l| l.content) {
        Some(len) if header_allows(&mut content, &mut bytes, len).map_err(io)? => {
            machine_holds(len)?;
            by_index = true;
            len
        }
        _ => {
            let len = measure(&mut Content::of(file, xz, None).map_err(io)?, stop)?;
            (content, bytes) = (Content::of(file, xz, None).map_err(io)?, Vec::new());
            len
        }
    };
    usize::try_from(len)
        .ok()
        .and_then(|len| bytes.try_reserve_exact(len - bytes.len()).ok())
        .ok_or_else(|| {
            io(match xz {
                true => crate::base::text::xz_memory_error(),
                false => io::Error::new(
                    io::ErrorKind::OutOfMemory,
                    format!(
                        "not enough memory to read it ({len} bytes); run it again with more memory"
                    ),
                ),
            })
        })?;
    while (bytes.len() as u64) < len {
        if stop.requested() {
            return Err(DescriptorError::Stopped);
        }
        let piece = PIECE.min(len - bytes.len() as u64);
        if content.read(piece, &mut bytes).map_err(io)? == 0 {
            // The file changed since it was measured: its check says so.
            return Ok(bytes);
        }
    }
    // A byte past the length the file was found to have: its index gave
    // less than its content holds (a damaged `.xz` file, which the decoder
    // would find at the index), or it changed since it was measured.
    match content.read(1, &mut Vec::new()).map_err(io)? {
        0 => Ok(bytes),
        _ if by_index => Err(io(io::Error::other(
            "not a whole .xz file (its index gives a shorter length than its content)",
        ))),
        _ => Err(DescriptorError::Damaged),
    }
}

/// Reads the header of `content` into `head` and says whether it allows the
/// file `len` bytes: the length itself (version 1), or one of those the
/// facts' last column may give (version 2).
fn header_allows(content: &mut Content, head: &mut Vec<u8>, len: u64) -> io::Result<bool> {
    content.read(raw::HEADER as u64 + 4, head)?;
    Ok(match raw::claimed_len(head) {
        raw::Claim::Len(claimed) => len == claimed,
        raw::Claim::Facts { facts_at, most } => {
            let (least, longest) = (
                raw::facts_claim(facts_at, most, 0),
                raw::facts_claim(facts_at, most, most),
            );
            least
                .zip(longest)
                .is_some_and(|(a, b)| (a..=b).contains(&len))
        }
        raw::Claim::Unknown => false,
    })
}

/// The length the header of `content` gives its file, once `content` is
/// found to hold exactly that many bytes: counted no further than that and
/// one byte more (a file on disk skipped by seeking, a `.xz` stream read
/// and dropped). Refused before any counting where the header's lengths
/// contradict each other or pass the machine's memory.
fn measure(content: &mut Content, stop: &Stop) -> Result<u64, DescriptorError> {
    let io = |error| DescriptorError::Io {
        path: PathBuf::new(),
        error,
    };
    let mut head = Vec::with_capacity(raw::HEADER + 4);
    content
        .read(raw::HEADER as u64 + 4, &mut head)
        .map_err(io)?;
    let mut seen = head.len() as u64;
    // Goes on to `to` bytes in all, fewer where the content ends.
    let skip_to = |content: &mut Content, seen: &mut u64, to: u64| {
        while *seen < to {
            if stop.requested() {
                return Err(DescriptorError::Stopped);
            }
            let got = content.skip(PIECE.min(to - *seen)).map_err(io)?;
            if got == 0 {
                break;
            }
            *seen += got;
        }
        Ok(())
    };
    let len = match raw::claimed_len(&head) {
        // Bytes that are no descriptor file's start, or a header past any
        // length: the header's own check says which.
        raw::Claim::Unknown => {
            return Err(match raw::decode_header(&head) {
                Err(DescriptorError::NotThisFile) => match kind_of(content, &mut head) {
                    Some(kind) => DescriptorError::OtherFile(kind.what()),
                    None if head.starts_with(crate::outputs::XZ_MAGIC) => {
                        DescriptorError::CompressedUnnamed
                    }
                    None => DescriptorError::NotThisFile,
                },
                Err(e) => e,
                Ok(_) => DescriptorError::Damaged,
            });
        }
        raw::Claim::Len(len) => len,
        raw::Claim::Facts { facts_at, most } => {
            machine_holds(facts_at)?;
            skip_to(content, &mut seen, facts_at)?;
            let mut n = Vec::with_capacity(4);
            if seen == facts_at {
                content.read(4, &mut n).map_err(io)?;
            }
            seen += n.len() as u64;
            let n = <[u8; 4]>::try_from(n.as_slice()).map_err(|_| DescriptorError::Truncated {
                found: seen,
                at_least: facts_at + 12,
            })?;
            raw::facts_claim(facts_at, most, u32::from_le_bytes(n))
                .ok_or(DescriptorError::Damaged)?
        }
    };
    machine_holds(len)?;
    skip_to(content, &mut seen, len.saturating_add(1))?;
    match seen.cmp(&len) {
        std::cmp::Ordering::Less => Err(DescriptorError::Truncated {
            found: seen,
            at_least: len,
        }),
        std::cmp::Ordering::Greater => Err(DescriptorError::Damaged),
        std::cmp::Ordering::Equal => Ok(len),
    }
}

/// The kind of file chomp3 writes that `content` holds, from its first
/// bytes (`head` and enough more for the longest signature).
fn kind_of(content: &mut Content, head: &mut Vec<u8>) -> Option<crate::outputs::Kind> {
    let _ = content.read(256, head);
    crate::outputs::kind_of(head)
}

/// Refuses a length the header gives past the machine's memory: a damaged
/// header, or a census too large to read here (a process limit is met as
/// the room is taken).
fn machine_holds(len: u64) -> Result<(), DescriptorError> {
    match crate::base::memory::physical() {
        Some(has) if len > has => Err(DescriptorError::Io {
            path: PathBuf::new(),
            error: io::Error::other(format!(
                "its header gives it {len} bytes, more than this machine's memory ({} MiB): the header is damaged, or the census is too large to read here",
                has >> 20
            )),
        }),
        _ => Ok(()),
    }
}

/// What a descriptor file holds, read from its start: the file itself, or
/// its `.xz` stream decompressed.
enum Content<'a> {
    /// The file, and how many of its bytes are left.
    Plain(BufReader<&'a File>, u64),
    Xz(Box<xz2::read::XzDecoder<BufReader<io::Take<&'a File>>>>),
}

impl<'a> Content<'a> {
    /// `file` from its start; `xz`: decompressed (every stream of a
    /// multi-stream file, as `xz` reads them), its bytes read no further
    /// than `streams_end` where that is given.
    fn of(file: &'a File, xz: bool, streams_end: Option<u64>) -> io::Result<Content<'a>> {
        let mut f = file;
        f.seek(SeekFrom::Start(0))?;
        Ok(match xz {
            false => Content::Plain(BufReader::new(f), file.metadata()?.len()),
            true => {
                let bytes = BufReader::new(f.take(streams_end.unwrap_or(u64::MAX)));
                Content::Xz(Box::new(crate::base::text::xz_decoder(bytes)))
            }
        })
    }

    /// Appends up to `n` more bytes to `to`, fewer where the content ends;
    /// returns how many.
    fn read(&mut self, n: u64, to: &mut Vec<u8>) -> io::Result<usize> {
        let before = to.len();
        match self {
            Content::Plain(r, left) => {
                r.take(n).read_to_end(to)?;
                *left = left.saturating_sub((to.len() - before) as u64);
            }
            Content::Xz(r) => {
                r.take(n)
                    .read_to_end(to)
                    .map_err(crate::base::text::xz_error)?;
            }
        }
        Ok(to.len() - before)
    }

    /// Goes `n` bytes on, fewer where the content ends; returns how many.
    fn skip(&mut self, n: u64) -> io::Result<u64> {
        match self {
            Content::Plain(r, left) => {
                let k = n.min(*left);
                r.seek_relative(i64::try_from(k).map_err(io::Error::other)?)?;
                *left -= k;
                Ok(k)
            }
            Content::Xz(r) => {
                io::copy(&mut r.take(n), &mut io::sink()).map_err(crate::base::text::xz_error)
            }
        }
    }
}

/// A descriptor file read into memory (a few MB for 10^5 rows).
pub struct Descriptors {
    bytes: Vec<u8>,
    header: raw::Header,
}

impl Descriptors {
    /// Reads and checks a descriptor file (magic, version, length, CRC-32);
    /// a path ending in `.xz` is decompressed as it is read (the committed
    /// censuses are kept so).
    pub fn open(path: &Path) -> Result<Descriptors, DescriptorError> {
        Descriptors::open_until(path, &Stop::new())
    }

    /// [`Descriptors::open`], stopping soon after `stop` is requested (a
    /// large compressed file takes seconds).
    pub fn open_until(path: &Path, stop: &Stop) -> Result<Descriptors, DescriptorError> {
        let io = |error: io::Error| DescriptorError::Io {
            path: path.to_path_buf(),
            error,
        };
        let file = input::open(path, DESCRIPTORS).map_err(|e| match e {
            InputError::Missing { path } => DescriptorError::NotFound(path),
            e => DescriptorError::Input(e),
        })?;
        let xz = path.extension().is_some_and(|e| e == "xz");
        // What another program's writing changes: a file that fails to hold
        // together and has changed since it was opened was read while it
        // was written, which is not damage.
        let stamp = |f: &File| f.metadata().ok().map(|m| (m.len(), m.modified().ok()));
        let opened = stamp(&file);
        let changed = |e: DescriptorError| match e {
            DescriptorError::Stopped => e,
            _ if stamp(&file) != opened => DescriptorError::Changed,
            e => e,
        };
        let bytes = read_file(path, &file, xz, stop).map_err(|e| match changed(e) {
            // `measure` knows no path.
            DescriptorError::Io { error, .. } => io(error),
            e => e,
        })?;
        let header = raw::decode_header(&bytes).map_err(changed)?;
        Ok(Descriptors { bytes, header })
    }

    /// Number of rows described (`0 .. rows`).
    pub fn rows(&self) -> u32 {
        self.header.rows
    }

    /// Columns the census computed.
    pub fn columns(&self) -> u64 {
        self.header.columns
    }

    /// The facts of columns `0 ..= N` the census computed (version 2 files).
    pub fn facts(&self) -> Option<ColumnFacts> {
        raw::decode_facts(&self.bytes, &self.header)
    }

    /// `f(q,q)` from the facts, if the census computed column `q` (version
    /// 2 files; every `q <= N`).
    pub fn diagonal(&self, q: u64) -> Option<u32> {
        raw::diagonal(&self.bytes, &self.header, q)
    }

    /// The last column of the facts (`N`), if the file has them.
    pub(crate) fn facts_n(&self) -> Option<u32> {
        self.header.facts_whole()
    }

    /// Whether row `r`'s start is only an upper bound for its least start.
    pub fn start_is_bound(&self, r: u32) -> bool {
        r < self.header.rows && raw::start_is_bound(&self.bytes, r)
    }

    /// Row `r`'s proved fate; `None` if the row is open or not described.
    pub fn status(&self, r: u32) -> Option<RowStatus> {
        (r < self.header.rows)
            .then(|| raw::decode_row(&self.bytes, &self.header, r))
            .flatten()
    }
}
