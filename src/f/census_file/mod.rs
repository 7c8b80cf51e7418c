//! The census on disk: `census.tsv` for people and a compact binary descriptor
//! file (`.c3d`, layout in FORMAT.md, bytes in [`raw`]) that `get` and `analyze`
//! read. Uses `proof`, `facts`, `atomic_write` and `path_message`; reads and
//! writes these files, each written aside, synced and renamed into place.

pub mod raw;

use crate::base::bytes::narrow;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use crate::base::atomic_write::FileSet;
use crate::base::input::{self, InputError};
use crate::base::path_message::NamesPath;
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
    /// Wrong length or checksum.
    #[error("damaged census descriptor file (length or checksum); make the census again")]
    Damaged,
    /// Nothing in the file.
    #[error("the file is empty, not a census descriptor file")]
    Empty,
    /// Another kind of file chomp3 writes.
    #[error("this file is {0}, not a census descriptor file; give the path of a .c3d file")]
    OtherFile(&'static str),
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

/// The decompressed bytes of the `.xz` file `file`: no more than its header
/// says the file holds (and one byte more, which the header's check then
/// calls damage), room for that reserved at once (so memory is that length,
/// not the double a growing buffer may take), and refused where the machine
/// has not that much memory. A census that leaves most rows open compresses
/// by thousands, so the length comes from the header, not from a ratio.
fn read_xz(file: File) -> io::Result<Vec<u8>> {
    if file.metadata()?.len() == 0 {
        return Ok(Vec::new());
    }
    let mut xz = xz2::read::XzDecoder::new_multi_decoder(BufReader::new(file));
    let mut bytes = Vec::new();
    // Reads on to `len` bytes in all, fewer where the content ends.
    let mut read_to = |bytes: &mut Vec<u8>, len: u64| -> io::Result<()> {
        let more = len.saturating_sub(bytes.len() as u64);
        usize::try_from(more)
            .ok()
            .and_then(|more| bytes.try_reserve_exact(more).ok())
            .ok_or_else(|| crate::base::text::xz_error(io::ErrorKind::OutOfMemory.into()))?;
        (&mut xz)
            .take(more)
            .read_to_end(bytes)
            .map_err(crate::base::text::xz_error)
            .map(drop)
    };
    read_to(&mut bytes, raw::HEADER as u64 + 4)?;
    if let raw::Claim::Needs { prefix, most } = raw::claimed_len(&bytes) {
        machine_holds(prefix)?;
        // Room for the whole file as a census writes it, taken once: a
        // buffer moved to grow holds both copies for a moment.
        if most >= prefix && machine_holds(most).is_ok() {
            let _ = usize::try_from(most + 1).map(|m| bytes.try_reserve_exact(m - bytes.len()));
        }
        read_to(&mut bytes, prefix)?;
    }
    // Content that ends before the header's length is read whole (the
    // header's check then says it is cut short).
    if let raw::Claim::Len(len) = raw::claimed_len(&bytes) {
        machine_holds(len)?;
        read_to(&mut bytes, len.saturating_add(1))?;
    }
    Ok(bytes)
}

/// Refuses a length the header gives past the machine's memory: a damaged
/// header, or a census too large to read here (a process limit is met as
/// the room is reserved).
fn machine_holds(len: u64) -> io::Result<()> {
    match crate::base::memory::physical() {
        Some(has) if len > has => Err(io::Error::other(format!(
            "its header gives it {len} bytes, more than this machine's memory ({} MiB): the header is damaged, or the census is too large to read here",
            has >> 20
        ))),
        _ => Ok(()),
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
        let io = |error: io::Error| DescriptorError::Io {
            path: path.to_path_buf(),
            error,
        };
        let mut file = input::open(path, DESCRIPTORS).map_err(|e| match e {
            InputError::Missing { path } => DescriptorError::NotFound(path),
            e => DescriptorError::Input(e),
        })?;
        let bytes = if path.extension().is_some_and(|e| e == "xz") {
            read_xz(file).map_err(io)?
        } else {
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes).map_err(io)?;
            bytes
        };
        let header =
            raw::decode_header(&bytes).map_err(|e| match (e, crate::outputs::kind_of(&bytes)) {
                (DescriptorError::NotThisFile, Some(kind)) => {
                    DescriptorError::OtherFile(kind.what())
                }
                (e, _) => e,
            })?;
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
