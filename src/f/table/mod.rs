//! The table file: owns its format (see `FORMAT.md` and [`raw`]), reading through a
//! read-only memory map or positional reads ([`Table`]), crash-safe appending
//! (`TableWriter`), and the same table written again by rows ([`transpose`]).
//! It never computes values; uses the byte helpers of `bytes`, `atomic_write`'s
//! `parent_dir`, and `path_message` so its errors name the file once.
//!
//! # Memory use
//!
//! [`Table::open`] maps the file and reads only its header; values are paged in from
//! disk when first read, so a 11 GB table costs no memory until it is used, and the
//! pages it does use are cache that the kernel can drop at any time.

pub mod raw;
mod transpose;
mod upgrade;
mod writer;

use crate::base::bytes::{narrow, prefetch};
use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::base::input::{InputError, Kind};
use crate::base::path_message::NamesPath;

pub use raw::Shape;
use raw::{BLOCK_BYTES, Commit, HEADER_LEN, Header, SLOT_LEN, SLOT_OFFSETS};
pub use transpose::{TransposeError, Transposed, transpose, transpose_in_bands};
pub use upgrade::{UpgradeError, upgrade};
pub(crate) use writer::{TableWriter, parent_dir};

/// What can go wrong with a table file. Each message says what is wrong and what
/// to do; those that do not name the file are shown after its path.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// No file at the path, where a table of this shape was wanted.
    #[error(
        "{path}: no such {noun}",
        path = .0.display(), noun = .1.noun()
    )]
    NotFound(PathBuf, Shape),
    /// The path is a directory, where a table of this shape was wanted.
    #[error(
        "{} is a directory, not a {} file; give the path of a {} file",
        .0.display(), .1.noun(), .1.extension()
    )]
    IsDirectory(PathBuf, Shape),
    /// The file is empty: no header, no table.
    #[error(
        "the file is empty, not a chomp3 table (a table has its header from its first write); give the path of a .c3t (or, for Grundy values, .g3t) file"
    )]
    Empty,
    /// The file starts as a table does but is cut off inside its header.
    #[error(
        "truncated table: the file has {0} bytes, fewer than its {HEADER_LEN}-byte header; restore the file or compute it again"
    )]
    HeaderTruncated(u64),
    /// The path is no regular file, or a link to nothing (the message names it).
    #[error(transparent)]
    Input(InputError),
    /// The file is another kind of file chomp3 writes.
    #[error(
        "this file is {0}, not a chomp3 table; give the path of a .c3t (or, for Grundy values, .g3t) file"
    )]
    OtherFile(&'static str),
    /// The file does not start with the table magic: it is some other file.
    #[error(
        "not a chomp3 table (no CHOMP3TB, CHOMP3TR or CHOMP3GT header); give the path of a .c3t (or, for Grundy values, .g3t) file"
    )]
    NotThisFile,
    /// A table of the other kind (an `f` table where a Grundy table was wanted, or
    /// the reverse).
    #[error("this file is {}, not {}; give the path of the right file", .found.what(), .wanted.what())]
    OtherKind {
        /// The kind asked for.
        wanted: Shape,
        /// The kind the file is.
        found: Shape,
    },
    /// The file was written in another format version: an older one (whose
    /// data is not checked on read) or a newer one.
    #[error("{}", version_message(*.expected, *.found))]
    Version {
        /// The version this build reads.
        expected: u32,
        /// The version in the file.
        found: u32,
    },
    /// A table to upgrade that is not of version 1 (of the version this
    /// build reads, most often: nothing to do).
    #[error("{}", not_version_1(*.0))]
    NotVersion1(u32),
    /// The header fails its checksum or its fields disagree: the file is damaged.
    #[error("damaged table header ({0}); restore the file or compute it again")]
    CorruptHeader(&'static str),
    /// The file is shorter than its committed columns need (cut off by a copy or a
    /// full disk).
    #[error(
        "truncated table: {columns} columns need {expected} bytes, file has {found}; restore the file or compute it again"
    )]
    Truncated {
        /// Columns the header commits.
        columns: u64,
        /// Bytes those columns need.
        expected: u64,
        /// Bytes in the file.
        found: u64,
    },
    /// A table by rows whose rows are not all written (its `transpose` was
    /// killed), as its commit in force says.
    #[error(
        "a table by rows that is not finished (its chomp3 transpose was stopped{}); run that command again to finish it",
        if *.slot_failed { ", or a commit slot fails its checksum" } else { "" }
    )]
    Unfinished {
        /// Whether a commit slot failed its checksum, so that an older
        /// commit is in force ([`raw::unreadable_slot`]).
        slot_failed: bool,
    },
    /// A table by rows not finished yet, which another process (a
    /// `transpose` that runs) is writing.
    #[error(
        "a table by rows that another process is writing now (a chomp3 transpose that runs); wait for it to finish"
    )]
    BeingWritten,
    /// The data does not match the committed checksum (`info --verify`).
    #[error("table data fails its checksum ({0}); restore the file or compute it again")]
    ChecksumMismatch(String),
    /// A block of data read fails its checksum: the file was damaged.
    #[error(
        "damaged table: data bytes {from}..{to} fail their CRC-32 (block {block}); restore the file or compute it again"
    )]
    Damaged {
        /// The block.
        block: u64,
        /// Its first data byte.
        from: u64,
        /// One past its last.
        to: u64,
    },
    /// The file is no longer the table that was opened: another file was
    /// written over it in place, or a table made again at its path.
    #[error(
        "{}: the file changed while it was open (another table or other bytes written over it in place); open it again",
        .0.display()
    )]
    Replaced(PathBuf),
    /// Another program removed, replaced or wrote over the file a writer
    /// was writing: this run's table is not (or no longer whole) there.
    #[error("{}: {}", .path.display(), .how.said())]
    TakenWhileWritten {
        /// The table file.
        path: PathBuf,
        /// What became of it.
        how: Taken,
    },
    /// A question past the table as it was opened, which has grown since.
    #[error(
        "{}: the table grew while it was open (it holds N = {now} now, {} when opened); open it again to read past that",
        .path.display(), holds(*.opened)
    )]
    Grew {
        /// The file.
        path: PathBuf,
        /// Its `N` when opened.
        opened: Option<u64>,
        /// Its `N` now.
        now: u64,
    },
    /// A read came short: the file was cut while it was open.
    #[error(
        "{}: the file became shorter while it was open (another program cut or rewrote it in place); open it again",
        .0.display()
    )]
    Shrunk(PathBuf),
    /// A question about a cell the table does not hold yet.
    #[error(
        "{what} {value} is beyond the table, which holds {}; {}",
        holds(*n), extend_to(*value, *shape)
    )]
    OutOfRange {
        /// Which coordinate.
        what: &'static str,
        /// Its value.
        value: u64,
        /// The table's N (`None`: no column yet).
        n: Option<u64>,
        /// The table's shape (which command extends it).
        shape: Shape,
    },
    /// An `N` asked of a table whose value width cannot hold it.
    #[error(
        "N = {n} is beyond the table's capacity {capacity} ({bits} bits per value); only a table made with a larger capacity holds it"
    )]
    BeyondCapacity {
        /// Requested N.
        n: u64,
        /// The table's capacity.
        capacity: u64,
        /// Its bits per value.
        bits: u32,
    },
    /// An operating-system error on the file.
    #[error("{path}: {error}")]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
}

/// What another program did to a table file while a writer wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    /// Removed or moved: nothing is at the path.
    Removed,
    /// Another file was put at the path: it is kept.
    Replaced,
    /// Bytes of the file were written over in place (its header, its
    /// commit or its length are not this run's).
    WrittenOver,
    /// Header, commit and length are this run's, but data bytes it wrote
    /// no longer pass their checks (the file's first failing block): bytes
    /// written over in place, or the file cut and grown again, by another
    /// program, or the storage failed.
    Changed {
        /// The first block that fails its check (none: every block passes,
        /// the whole data's check does not).
        block: Option<u64>,
    },
}

impl Taken {
    fn said(self) -> String {
        let kept = "check it, then run again";
        match self {
            Taken::Removed => "this file is no longer there: another program removed or moved it (or its directory) while this run wrote it; run again, or look for it where it was moved".to_string(),
            Taken::Replaced => format!("another program put another file here while this run wrote it; it is kept, and this run's table is not there: {kept}"),
            Taken::WrittenOver => format!("another program wrote over this file in place while this run wrote it; it is kept as it is, but is not this run's table: {kept}"),
            Taken::Changed { block } => {
                let failed = match block {
                    Some(b) => format!("block {b} fails its CRC-32"),
                    None => "the data's CRC-32 is not the one committed".to_string(),
                };
                format!("data of this table changed while this run wrote it ({failed}): another program wrote over this file in place, or the storage failed; it is kept as it is, but is not this run's table: {kept}")
            }
        }
    }
}

impl TableError {
    pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
        move |error| TableError::Io {
            path: path.to_path_buf(),
            error,
        }
    }
}

impl NamesPath for TableError {
    fn names_path(&self) -> bool {
        matches!(
            self,
            TableError::NotFound(..)
                | TableError::IsDirectory(..)
                | TableError::Input(..)
                | TableError::Io { .. }
                | TableError::Shrunk(..)
                | TableError::Replaced(..)
                | TableError::TakenWhileWritten { .. }
                | TableError::Grew { .. }
        )
    }
}

impl TableError {
    /// The error for a table of `shape` at a path that is no regular file:
    /// nothing there and a directory in the words of a table, the rest as
    /// `base::input` says them.
    pub(crate) fn input(shape: Shape, e: InputError) -> TableError {
        match e {
            InputError::Missing { path } => TableError::NotFound(path, shape),
            InputError::NotAFile {
                path,
                kind: Kind::Directory,
                ..
            } => TableError::IsDirectory(path, shape),
            e => TableError::Input(e),
        }
    }

    /// The error for a file of `len` bytes, shorter than a table's header,
    /// whose first bytes are `head`: empty, cut off in a table's header, or
    /// no table.
    pub(crate) fn short(len: u64, head: &[u8]) -> TableError {
        let table = [raw::MAGIC, raw::MAGIC_GRUNDY, raw::MAGIC_ROWS]
            .iter()
            .any(|m| head.starts_with(m) || (!head.is_empty() && m.starts_with(head)));
        match (len, table) {
            (0, _) => TableError::Empty,
            (_, true) => TableError::HeaderTruncated(len),
            _ => TableError::not_table(head),
        }
    }

    /// The error for a file that starts with `head`, no table's magic: what
    /// it is, if it is another file chomp3 writes.
    pub(crate) fn not_table(head: &[u8]) -> TableError {
        match crate::outputs::kind_of(head) {
            Some(kind) => TableError::OtherFile(kind.what()),
            // A table is read mapped, never decompressed.
            None if head.starts_with(crate::outputs::XZ_MAGIC) => {
                TableError::OtherFile("compressed with xz (decompress it first)")
            }
            None => TableError::NotThisFile,
        }
    }
}

/// The first bytes of `file` (at most a table's header), to say what a
/// file too short for a table is.
pub(crate) fn first_bytes(file: &File) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::new();
    file.take(HEADER_LEN).read_to_end(&mut head)?;
    Ok(head)
}

/// What a table of largest column `n` holds, for messages: `N = n`, or no
/// column yet.
pub fn holds(n: Option<u64>) -> String {
    match n {
        Some(n) => format!("N = {n}"),
        None => "no column yet".to_string(),
    }
}

fn version_message(expected: u32, found: u32) -> String {
    if found < expected {
        format!(
            "table format version {found}, from before tables carried a checksum per block; this chomp3 reads version {expected}: make a version {expected} file of it with `chomp3 upgrade OLD NEW` (it checks the old file whole first), or make the table again"
        )
    } else {
        format!(
            "table format version {found}, this chomp3 reads version {expected}; use a chomp3 that reads it"
        )
    }
}

fn not_version_1(found: u32) -> String {
    match found == raw::VERSION {
        true => format!(
            "already a table of format version {found}, the version this chomp3 reads: there is nothing to upgrade"
        ),
        false => {
            format!("table format version {found}: only a table of version 1 is upgraded")
        }
    }
}

/// How to reach `value`: the command that extends a table to it, or, past
/// the largest table of this shape, that none can.
fn extend_to(value: u64, shape: Shape) -> String {
    let max = shape.max_capacity();
    if value > max {
        format!("no table goes beyond N = {max}")
    } else if shape == Shape::Rows {
        // Written once by a transpose, never extended itself.
        format!(
            "a table by rows is not extended: extend the table it was made from to N = {value}, then transpose that again to a new file"
        )
    } else {
        format!("extend it to N = {value}")
    }
}

/// How [`Table::options`] opens a table.
#[derive(Clone, Copy, Debug)]
pub struct OpenOptions {
    /// The shape wanted; `None`: an `f` table stored either way.
    shape: Option<Shape>,
    /// A memory map (else positional reads).
    map: bool,
}

impl OpenOptions {
    /// A table of this shape (a Grundy table is [`Shape::Tetrahedron`]).
    pub fn shape(self, shape: Shape) -> OpenOptions {
        OpenOptions {
            shape: Some(shape),
            ..self
        }
    }

    /// An `f` table stored either way: by columns or by rows ([`Shape::Rows`],
    /// from [`transpose`]), for the readers that take either (a cell, a row,
    /// a position).
    pub fn either_f(self) -> OpenOptions {
        OpenOptions {
            shape: None,
            ..self
        }
    }

    /// Mapped (the default), or read with positional reads: for a process
    /// that must live on whatever other programs do to the file. Either way
    /// every read copies the whole blocks its values lie in, checks the
    /// copy against its CRC-32 and decodes the copy, so a value served is
    /// one of checked bytes, whatever writes the file meanwhile. A file cut
    /// under a map kills the process with SIGBUS (a positional read says
    /// so in an error).
    pub fn mapped(self, map: bool) -> OpenOptions {
        OpenOptions { map, ..self }
    }

    /// Opens and checks the table at `path`, as [`Table::open`] does.
    pub fn open(self, path: impl AsRef<Path>) -> Result<Table, TableError> {
        let path = path.as_ref();
        match self.shape {
            Some(shape) => Table::open_with(path, shape, self.map),
            None => match Table::open_with(path, Shape::Triangle, self.map) {
                Err(TableError::OtherKind {
                    found: Shape::Rows, ..
                }) => Table::open_with(path, Shape::Rows, self.map),
                other => other,
            },
        }
    }
}

/// A table file opened for reading. Every read copies the blocks of data it
/// touches and checks the copy's CRC-32 before it decodes a value of it, so a
/// damaged file gives an error, never a value, even when it is damaged while
/// open (a block checked once and trusted after could have changed since;
/// checking costs about 0.3 microseconds a block).
pub struct Table {
    /// The path it was opened by.
    path: PathBuf,
    bytes: Bytes,
    /// Size of the file when it was opened.
    len: u64,
    header: Header,
    commit: Commit,
    /// The header's fixed fields as opened (magic to header checksum),
    /// which every read compares with the file's.
    fixed: [u8; FIXED],
    /// A commit slot that failed its checksum when opened
    /// ([`raw::unreadable_slot`]).
    unreadable_slot: Option<usize>,
}

/// Bytes of the header's fixed fields: magic, version, width, capacity,
/// data offset and their checksum.
const FIXED: usize = 36;

/// Where a table's bytes come from.
enum Bytes {
    /// A read-only memory map: the fastest, for a command that reads and
    /// exits; with the open file, to tell a file cut short in place.
    Map { map: Mmap, file: File },
    /// Positional reads of the open file: every read takes whole blocks and
    /// checks them as read, after checking that the file is still the table
    /// opened (a process that keeps a table open for long must not answer
    /// from bytes written over since).
    Read { file: File, path: PathBuf },
}

impl Bytes {
    /// The open file.
    fn file(&self) -> &File {
        match self {
            Bytes::Map { file, .. } | Bytes::Read { file, .. } => file,
        }
    }
}

impl Table {
    /// Opens and checks an `f` table stored by columns, memory-mapped:
    /// magic, version, header checksum, commit record and file length. The
    /// data itself is checked as it is read, or whole by [`Table::verify`].
    /// [`Table::options`] opens the other kinds, or without a map.
    pub fn open(path: impl AsRef<Path>) -> Result<Table, TableError> {
        Table::options().open(path)
    }

    /// How to open a table: its shape and whether it is mapped.
    pub fn options() -> OpenOptions {
        OpenOptions {
            shape: Some(Shape::Triangle),
            map: true,
        }
    }

    fn open_with(path: &Path, shape: Shape, map: bool) -> Result<Table, TableError> {
        let file = crate::base::input::open(path, shape.what())
            .map_err(|e| TableError::input(shape, e))?;
        let len = file.metadata().map_err(TableError::io(path))?.len();
        if len < HEADER_LEN {
            return Err(TableError::short(
                len,
                &first_bytes(&file).map_err(TableError::io(path))?,
            ));
        }
        let bytes = if map {
            // SAFETY: the map is read-only and chomp3 never shrinks a table below
            // its committed data, which is all this reader touches. If another
            // program truncates the file while it is mapped, reading the lost
            // pages raises SIGBUS and the process dies; no wrong value can be
            // returned (`OpenOptions::mapped(false)` is for processes that must live on).
            let map = unsafe { Mmap::map(&file) }.map_err(|e| {
                TableError::io(path)(match e.raw_os_error() == Some(libc::ENOMEM) {
                    // A want of address space, not a fault of the file.
                    true => std::io::Error::new(
                        std::io::ErrorKind::OutOfMemory,
                        format!(
                            "its {len} bytes could not be mapped into memory{}; run it again with more room",
                            crate::base::memory::process_limit().map_or(String::new(), |l| format!(
                                " (this process may map {} MiB: ulimit -v; it had {} MiB mapped already)",
                                l >> 20,
                                crate::base::memory::mapped().unwrap_or(0) >> 20
                            ))
                        ),
                    ),
                    false => e,
                })
            })?;
            Bytes::Map { map, file }
        } else {
            Bytes::Read {
                file,
                path: path.to_path_buf(),
            }
        };
        let mut head = vec![0u8; narrow::<usize, _>(HEADER_LEN)];
        bytes.read_at(0, &mut head)?;
        let (header, commit) = Header::decode(&head).map_err(|e| match e {
            TableError::NotThisFile => TableError::not_table(&head),
            e => e,
        })?;
        if header.shape != shape {
            return Err(TableError::OtherKind {
                wanted: shape,
                found: header.shape,
            });
        }
        if header.shape == Shape::Rows && commit.columns != raw::rows_units(header.capacity) {
            // Its writer holds the kernel's lock on the file itself (a
            // `TableWriter`), whatever name this one reaches it by, a hard
            // link included; and, from before it opens the file, the lock
            // beside the name it was given, which this one may name through
            // a symbolic link.
            let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
            let mut held = [path, real.as_path()]
                .map(crate::base::lock::held_elsewhere)
                .to_vec();
            held.push(crate::base::lock::locked_elsewhere(bytes.file()));
            return Err(match held.contains(&true) {
                true => TableError::BeingWritten,
                false => TableError::Unfinished {
                    slot_failed: raw::unreadable_slot(&head).is_some(),
                },
            });
        }
        let expected = header.file_len(commit.columns);
        if len < expected {
            return Err(TableError::Truncated {
                columns: commit.columns,
                expected,
                found: len,
            });
        }
        let mut fixed = [0u8; FIXED];
        fixed.copy_from_slice(&header.encode()[..FIXED]);
        Ok(Table {
            path: path.to_path_buf(),
            bytes,
            len,
            header,
            commit,
            fixed,
            unreadable_slot: raw::unreadable_slot(&head),
        })
    }

    /// The commit slot (0 or 1) that failed its checksum when the table was
    /// opened, if any: a commit cut short by a crash (the next commit
    /// writes the slot again) or damage, which no reader can tell apart.
    /// The table is read at the other slot's commit.
    pub fn unreadable_slot(&self) -> Option<usize> {
        self.unreadable_slot
    }

    /// The path the table was opened by.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Value number `cell` in the file's order (for a Grundy table, see
    /// `grundy::table`), its block checked; panics past the committed cells.
    pub fn cell(&self, cell: u64) -> Result<u32, TableError> {
        assert!(
            cell < self.header.cells(self.commit.columns),
            "cell {cell} outside the table"
        );
        let (bits, bit) = (self.header.bits, cell * u64::from(self.header.bits));
        self.with_data(bit / 8, (bit + u64::from(bits)).div_ceil(8), |d, at| {
            raw::unpack_bit(d, bit - 8 * at, bits)
        })
    }

    /// `f(q, r)` of each `(q, r)` of `at` (`r <= q < columns()`), in that
    /// order, whatever the file's layout (by columns or by rows), their
    /// blocks checked (each block once a call).
    pub fn values_at(&self, at: &[(u32, u32)]) -> Result<Vec<u32>, TableError> {
        let cells: Vec<u64> = at
            .iter()
            .map(|&(q, r)| {
                assert!(
                    r <= q && u64::from(q) < self.columns(),
                    "cell ({q},{r}) outside the table"
                );
                self.index(q, r)
            })
            .collect();
        self.cells(&cells)
    }

    /// The values of `cells` (numbers in the file's order, as [`Table::cell`]
    /// takes them), in that order, their blocks checked (each block once a
    /// call). Panics past the committed cells.
    pub fn cells(&self, cells: &[u64]) -> Result<Vec<u32>, TableError> {
        let total = self.header.cells(self.commit.columns);
        let bits = u64::from(self.header.bits);
        let mut order: Vec<usize> = (0..cells.len()).collect();
        order.sort_unstable_by_key(|&i| cells[i]);
        let at: Vec<u64> = order
            .iter()
            .map(|&i| {
                assert!(cells[i] < total, "cell {} outside the table", cells[i]);
                cells[i] * bits
            })
            .collect();
        let mut sorted = Vec::with_capacity(cells.len());
        self.gather(&at, &mut sorted)?;
        let mut out = vec![0u32; cells.len()];
        for (&i, v) in order.iter().zip(sorted) {
            out[i] = v;
        }
        Ok(out)
    }

    /// Appends to `out` the values that start at the data bits `at` (in
    /// increasing order), each decoded from a checked copy of the blocks it
    /// lies in; values in the same blocks share one copy.
    ///
    /// A row of a table by columns has one cell per column, each in its own
    /// page past the first few thousand columns, so on a map it is bound by
    /// the memory's latency: the loop asks for the value `AHEAD` places on
    /// before it copies this one, so that those page walks and cache misses
    /// overlap (a row of the `10^5` table, warm: 13 ms a cell at a time, 5 ms
    /// with the hints, before the copies).
    fn gather(&self, at: &[u64], out: &mut Vec<u32>) -> Result<(), TableError> {
        if at.is_empty() {
            return Ok(());
        }
        self.still_the_table()?;
        let bits = self.header.bits;
        let (mut buf, mut held) = (Vec::new(), 0..0);
        out.reserve(at.len());
        for (i, &bit) in at.iter().enumerate() {
            if let (Bytes::Map { .. }, Some(&ahead)) = (&self.bytes, at.get(i + AHEAD)) {
                prefetch(self.mapped_data(), narrow::<usize, _>(ahead / 8));
            }
            let (from, to) = (bit / 8, (bit + u64::from(bits)).div_ceil(8));
            if from < held.start || to > held.end {
                held = self.copy_checked(from, to, &mut buf)?;
            }
            out.push(raw::unpack_bit(&buf, bit - 8 * held.start, bits));
        }
        Ok(())
    }

    /// Runs `f` on a checked copy of the whole blocks that hold data bytes
    /// `from .. to` (`to > from`): `f` gets the copy and the data offset of
    /// its first byte.
    fn with_data<T>(
        &self,
        from: u64,
        to: u64,
        f: impl FnOnce(&[u8], u64) -> T,
    ) -> Result<T, TableError> {
        self.still_the_table()?;
        let mut buf = Vec::new();
        let held = self.copy_checked(from, to, &mut buf)?;
        Ok(f(&buf, held.start))
    }

    /// Copies into `buf` the whole blocks that hold data bytes `from .. to`
    /// (`to > from`), each checked as copied, and gives the data bytes the
    /// copy holds. Exact whatever changes the file meanwhile: the bytes
    /// decoded are the bytes checked. (A reader that lives on, the viewer or
    /// a notebook, answers only from bytes checked as they are read now: a
    /// block checked before may have been written over in place since.)
    fn copy_checked(
        &self,
        from: u64,
        to: u64,
        buf: &mut Vec<u8>,
    ) -> Result<Range<u64>, TableError> {
        let (first, last) = (from / BLOCK_BYTES, (to - 1) / BLOCK_BYTES);
        let start = first * BLOCK_BYTES;
        let end = self.block_span(last).end;
        buf.resize(narrow::<usize, _>(end - start), 0);
        self.bytes.read_at(self.header.data_offset() + start, buf)?;
        for block in first..=last {
            let span = self.block_span(block);
            let bytes =
                &buf[narrow::<usize, _>(span.start - start)..narrow::<usize, _>(span.end - start)];
            if !self.block_matches(block, bytes)? {
                return Err(self.damaged(block));
            }
        }
        Ok(start..end)
    }

    /// Whether the file is still the table this one opened, read again: the
    /// same header (shape, width, capacity) and a commit of at least the
    /// columns it opened with (a table only grows). Another file copied
    /// over it in place, or a table made again there, is refused: its bytes
    /// would be read with this one's layout.
    ///
    /// A file cut short in place since is refused too, every read of it (a
    /// reader answers from no file that is not whole, not only where its
    /// reads reach past the cut).
    fn still_the_table(&self) -> Result<(), TableError> {
        // The file's newest commit, which a writer makes only once the data
        // it commits is in the file: the file holds at least that much, or
        // it was cut since (after it grew, perhaps, past this handle's own
        // length).
        let newest = match self.commit_now()? {
            Some(c) if c.columns >= self.commit.columns => c,
            _ => return Err(TableError::Replaced(self.path.clone())),
        };
        match self.bytes.file().metadata() {
            Ok(m) if m.len() < self.header.file_len(newest.columns) => {
                Err(TableError::Shrunk(self.path.clone()))
            }
            _ => Ok(()),
        }
    }

    /// The newest commit the file holds now, if its fixed header is still
    /// the one read at open (`None`: another file, or no commit).
    fn commit_now(&self) -> Result<Option<Commit>, TableError> {
        let mut head = [0u8; SLOT_OFFSETS[1] + SLOT_LEN];
        self.bytes.read_at(0, &mut head)?;
        let newest = SLOT_OFFSETS
            .iter()
            .filter_map(|&o| Commit::decode(&head[o..o + SLOT_LEN]))
            .max_by_key(|c| c.sequence);
        Ok(newest.filter(|_| head[..FIXED] == self.fixed))
    }

    /// The error for a question past the table as opened: [`TableError::Grew`]
    /// if the file has committed more columns since (the same table: its
    /// fixed header as it was), else `beyond`.
    pub(crate) fn past_the_end(&self, beyond: TableError) -> TableError {
        if let Err(e) = self.still_the_table() {
            return e;
        }
        match self.commit_now() {
            Ok(Some(c)) if c.columns > self.commit.columns => TableError::Grew {
                path: self.path.clone(),
                opened: self.n(),
                now: c.columns - 1,
            },
            _ => beyond,
        }
    }

    /// Bytes of packed data, with the partly filled last byte.
    fn data_len(&self) -> u64 {
        self.header.data_bits(self.commit.columns).div_ceil(8)
    }

    /// The data bytes of block `block`: `BLOCK_BYTES` of them, fewer in the last.
    fn block_span(&self, block: u64) -> Range<u64> {
        let from = block * BLOCK_BYTES;
        from..(from + BLOCK_BYTES).min(self.data_len())
    }

    /// Whether `bytes`, the data of block `block` ([`Table::block_span`]),
    /// match their CRC-32: a full block's in the region after the header; the
    /// last one's, with its partly filled byte, in the commit record.
    fn block_matches(&self, block: u64, bytes: &[u8]) -> Result<bool, TableError> {
        let complete = self.header.data_bits(self.commit.columns) / 8;
        let from = block * BLOCK_BYTES;
        if from + BLOCK_BYTES <= complete {
            let mut crc = [0u8; 4];
            self.bytes.read_at(HEADER_LEN + 4 * block, &mut crc)?;
            return Ok(crc32fast::hash(bytes) == u32::from_le_bytes(crc));
        }
        let n = narrow::<usize, _>(complete - from);
        let tail = bytes.get(n).copied().unwrap_or(0) & self.header.tail_mask(self.commit.columns);
        Ok(crc32fast::hash(&bytes[..n]) == self.commit.block_crc && tail == self.commit.tail)
    }

    /// The error for a block that fails its check: the file cut short in
    /// place under a map (the rest of its last page reads as zeros), or
    /// damage.
    fn damaged(&self, block: u64) -> TableError {
        // Another file written over this one in place is not damage.
        if let Err(e) = self.still_the_table() {
            return e;
        }
        if let Bytes::Map { file, .. } = &self.bytes
            && file.metadata().is_ok_and(|m| m.len() < self.used_len())
        {
            return TableError::Shrunk(self.path.clone());
        }
        let span = self.block_span(block);
        TableError::Damaged {
            block,
            from: span.start,
            to: span.end,
        }
    }

    /// Checks data block `block` of the mapped `data` in place (for
    /// [`Table::verify`], which decodes nothing).
    fn check_block(&self, data: &[u8], block: u64) -> Result<(), TableError> {
        let span = self.block_span(block);
        let bytes = &data[narrow::<usize, _>(span.start)..narrow::<usize, _>(span.end)];
        match self.block_matches(block, bytes)? {
            true => Ok(()),
            false => Err(self.damaged(block)),
        }
    }

    /// Number of complete columns (`N + 1`; 0 for a table with nothing computed).
    pub fn columns(&self) -> u64 {
        match self.header.shape {
            // Complete (checked on open): every row and the diagonal's run.
            Shape::Rows => self.header.capacity + 1,
            _ => self.commit.columns,
        }
    }

    /// The table's `N` (largest column), or `None` while it holds no column.
    pub fn n(&self) -> Option<u64> {
        self.columns().checked_sub(1)
    }

    /// How the cells are laid out (an `f` table by columns or by rows, or a
    /// Grundy table).
    pub fn shape(&self) -> Shape {
        self.header.shape
    }

    /// Number of cells stored.
    pub fn cell_count(&self) -> u64 {
        self.header.cells(self.commit.columns)
    }

    /// The number of cell `(q, r)`, `r <= q <= N`, in the file's order.
    fn index(&self, q: u32, r: u32) -> u64 {
        let (q, r) = (u64::from(q), u64::from(r));
        match self.header.shape {
            Shape::Rows => raw::rows_cells(self.header.capacity, r) + (q - r),
            _ => raw::cells(q) + r,
        }
    }

    /// Bits per stored value.
    pub fn bits(&self) -> u32 {
        self.header.bits
    }

    /// Largest `N` this file may be extended to.
    pub fn capacity(&self) -> u64 {
        self.header.capacity
    }

    /// Size of the file in bytes when it was opened.
    pub fn file_len(&self) -> u64 {
        self.len
    }

    /// Bytes the committed columns occupy (header included).
    pub fn used_len(&self) -> u64 {
        self.header.file_len(self.commit.columns)
    }

    /// The packed data of a mapped table (empty for one that is read).
    fn mapped_data(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Map { map, .. } => {
                &map[narrow::<usize, _>(self.header.data_offset())
                    ..narrow::<usize, _>(self.used_len())]
            }
            Bytes::Read { .. } => &[],
        }
    }

    /// `f(q, r)` for `q <= N` and any `r` (above the diagonal, `r > q`, that is
    /// `f(q,q)`), or an error naming the `q` beyond the table.
    pub fn get(&self, q: u64, r: u64) -> Result<u32, TableError> {
        // `f(q, r) = f(q, q)` for `r > q`: only `q` must be in the table.
        if q >= self.columns() {
            return Err(self.past_the_end(TableError::OutOfRange {
                what: "q",
                value: q,
                n: self.n(),
                shape: self.header.shape,
            }));
        }
        let q = u32::try_from(q).expect("a column of the table fits u32");
        let r = u32::try_from(r.min(u64::from(q))).expect("r <= q");
        self.value(q, r)
    }

    /// `f(q, r)` for `r <= q < columns()`, its block checked; panics outside
    /// the table.
    pub fn value(&self, q: u32, r: u32) -> Result<u32, TableError> {
        assert!(
            r <= q && u64::from(q) < self.columns(),
            "cell ({q},{r}) outside the table"
        );
        self.cell(self.index(q, r))
    }

    /// Checks every block of data (in parallel on a map), then the checksum
    /// of the whole against the commit record, then that the file is still
    /// the table opened (its fixed header read again). It decodes nothing,
    /// so a map is checked in place; reads after it check their blocks again.
    pub fn verify(&self) -> Result<(), TableError> {
        use rayon::prelude::*;
        let full = self.header.data_bits(self.commit.columns) / 8;
        let last = full / BLOCK_BYTES;
        let (crc, tail) = match &self.bytes {
            Bytes::Map { .. } => {
                let data = self.mapped_data();
                // Where no worker thread can be started (a small `ulimit
                // -v`), the same blocks are checked on this thread: the
                // same checks and the same answer, later.
                match crate::base::threads::global() {
                    Ok(()) => (0..=last)
                        .into_par_iter()
                        .try_for_each(|block| self.check_block(data, block))?,
                    Err(_) => (0..=last).try_for_each(|block| self.check_block(data, block))?,
                }
                let tail = data.get(full as usize).copied().unwrap_or(0);
                (crc32fast::hash(&data[..full as usize]), tail)
            }
            Bytes::Read { .. } => {
                let (mut hasher, mut tail, mut b) = (crc32fast::Hasher::new(), 0, Vec::new());
                for block in 0..=last {
                    let span = self.block_span(block);
                    self.copy_checked(span.start, span.end.max(span.start + 1), &mut b)?;
                    let n = b.len().min(narrow::<usize, _>(full - block * BLOCK_BYTES));
                    hasher.update(&b[..n]);
                    tail = b.get(n).copied().unwrap_or(0);
                }
                (hasher.finalize(), tail)
            }
        };
        if crc != self.commit.crc {
            self.still_the_table()?;
            return Err(TableError::ChecksumMismatch(format!(
                "CRC-32 {crc:08x}, header records {:08x}",
                self.commit.crc
            )));
        }
        let tail = tail & self.header.tail_mask(self.commit.columns);
        if tail != self.commit.tail {
            self.still_the_table()?;
            return Err(TableError::ChecksumMismatch(format!(
                "last byte {tail:02x}, header records {:02x}",
                self.commit.tail
            )));
        }
        // The header is not among the blocks: another program's bytes
        // there are seen here, as by a fresh open.
        self.still_the_table()
    }

    /// Appends `f(q, r)` for `q` in `qs` (`qs.end <= columns()`; above the
    /// diagonal, `r > q`, that is `f(q, q)`) to `out`, each decoded from a
    /// checked copy of its block (a cell a block past the first few thousand
    /// columns). A table by rows holds the cells `q >= r` of a row as one run
    /// of bytes, read at once.
    pub fn read_row(&self, r: u32, qs: Range<u32>, out: &mut Vec<u32>) -> Result<(), TableError> {
        assert!(
            u64::from(qs.end) <= self.columns(),
            "column {} outside the table",
            qs.end
        );
        if self.header.shape == Shape::Rows {
            return self.read_row_run(r, qs, out);
        }
        let bits = u64::from(self.header.bits);
        let at: Vec<u64> = qs
            .map(|q| (raw::cells(u64::from(q)) + u64::from(r.min(q))) * bits)
            .collect();
        self.gather(&at, out)
    }

    /// [`Table::read_row`] of a table by rows: the cells `f(q, q)` of the
    /// columns `q < r` from the diagonal's run, then the run of row `r`.
    fn read_row_run(&self, r: u32, qs: Range<u32>, out: &mut Vec<u32>) -> Result<(), TableError> {
        let split = qs.end.min(r).max(qs.start);
        let diagonal = raw::rows_cells(self.header.capacity, self.columns());
        self.read_run(diagonal + u64::from(qs.start), split - qs.start, out)?;
        if split < qs.end {
            self.read_run(self.index(split, r), qs.end - split, out)?;
        }
        Ok(())
    }

    /// Appends the values of the cells numbered `cells` (in the file's
    /// order, as [`Table::cell`] takes them) to `out`, each block copied and
    /// checked once. Panics past the committed cells.
    pub fn read_cells(&self, cells: Range<u64>, out: &mut Vec<u32>) -> Result<(), TableError> {
        assert!(
            cells.end <= self.header.cells(self.commit.columns),
            "cell {} outside the table",
            cells.end
        );
        let mut first = cells.start;
        while first < cells.end {
            let count = (cells.end - first).min(1 << 24);
            self.read_run(first, narrow::<u32, _>(count), out)?;
            first += count;
        }
        Ok(())
    }

    /// Appends the `count` cells from number `first` on, their blocks checked.
    fn read_run(&self, first: u64, count: u32, out: &mut Vec<u32>) -> Result<(), TableError> {
        if count == 0 {
            return Ok(());
        }
        let bits = self.header.bits;
        let first = first * u64::from(bits);
        let end = first + u64::from(count) * u64::from(bits);
        let run = self.with_data(first / 8, end.div_ceil(8), |d, at| {
            let first = first - 8 * at;
            (0..u64::from(count))
                .map(|i| raw::unpack_bit(d, first + i * u64::from(bits), bits))
                .collect::<Vec<u32>>()
        })?;
        out.extend(run);
        Ok(())
    }

    /// Appends `f(q, r)` for `r` in `rows` (all `<= q`, `q < columns()`) to
    /// `out`, their blocks checked.
    pub fn read_column(
        &self,
        q: u32,
        rows: Range<u32>,
        out: &mut Vec<u32>,
    ) -> Result<(), TableError> {
        assert!(rows.end <= q + 1 && u64::from(q) < self.columns());
        if rows.is_empty() {
            return Ok(());
        }
        if self.header.shape == Shape::Rows {
            let cells: Vec<u64> = rows.map(|r| self.index(q, r)).collect();
            out.extend(self.cells(&cells)?);
            return Ok(());
        }
        let bits = self.header.bits;
        let first = raw::cells(u64::from(q)) * u64::from(bits);
        let (from, to) = (
            first + u64::from(rows.start) * u64::from(bits),
            first + u64::from(rows.end) * u64::from(bits),
        );
        let column = self.with_data(from / 8, to.div_ceil(8), |d, at| {
            rows.clone()
                .map(|r| raw::unpack_bit(d, first + u64::from(r) * u64::from(bits) - 8 * at, bits))
                .collect::<Vec<u32>>()
        })?;
        out.extend(column);
        Ok(())
    }
}

/// Values ahead whose bytes [`Table::gather`] asks for (a row of the `10^5`
/// table, in a bare loop: 8 gave 3.4 ms a row, 32 gave 3.1, 64 gave 2.8).
const AHEAD: usize = 64;

impl Bytes {
    /// Fills `buf` from the file's byte `at` on.
    fn read_at(&self, at: u64, buf: &mut [u8]) -> Result<(), TableError> {
        match self {
            Bytes::Map { map, .. } => {
                let at = narrow::<usize, _>(at);
                let bytes = map
                    .get(at..at + buf.len())
                    .ok_or(TableError::CorruptHeader("the file ends inside it"))?;
                buf.copy_from_slice(bytes);
                Ok(())
            }
            Bytes::Read { file, path } => file.read_exact_at(buf, at).map_err(|e| match e.kind() {
                std::io::ErrorKind::UnexpectedEof => TableError::Shrunk(path.clone()),
                _ => TableError::io(path)(e),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages are whole: no error chains a cause it already prints (a chain
    /// would make `{e:#}` say it twice).
    #[test]
    fn errors_carry_no_second_copy_of_their_cause() {
        use std::error::Error;
        let io = TableError::io(Path::new("t.c3t"))(std::io::Error::other("disk on fire"));
        assert_eq!(io.to_string(), "t.c3t: disk on fire");
        assert!(io.source().is_none());
    }

    /// A file as a run killed between an append and its commit leaves it
    /// (the uncommitted column's bits in the committed last byte, its bytes
    /// after it), and as a reader sees it while a writer appends: every
    /// reader serves the committed columns and `verify` passes; the next
    /// writer's `trim` makes the file byte for byte the committed one.
    #[test]
    fn bits_appended_but_not_committed_are_no_damage() {
        let dir = tempfile::tempdir().unwrap();
        // 11 bits a value: most column counts end inside a byte.
        let values = |q: u32| -> Vec<u32> { (0..=q).map(|r| (q * 7 + r * 3) % 263).collect() };
        let mut partial_tails = 0;
        for columns in 1..40u32 {
            let path = dir.path().join(format!("t{columns}.c3t"));
            let mut w = TableWriter::create(&path, 1000).unwrap();
            for q in 0..columns {
                let first = Shape::Triangle.cells(u64::from(q));
                w.append(1, raw::pack(w.bits(), first, [&values(q)[..]]))
                    .unwrap();
                w.commit().unwrap();
            }
            let committed = std::fs::read(&path).unwrap();
            let first = Shape::Triangle.cells(u64::from(columns));
            let next = vec![262u32; columns as usize + 1];
            w.append(1, raw::pack(w.bits(), first, [&next[..]]))
                .unwrap();
            drop(w);
            let head = &committed[..narrow::<usize, _>(HEADER_LEN)];
            let (header, commit) = Header::decode(head).unwrap();
            if header.tail_mask(commit.columns) != 0 {
                partial_tails += 1;
            }
            for open in [
                |p: &Path| Table::open(p),
                |p: &Path| Table::options().mapped(false).open(p),
            ] {
                let t = open(&path).unwrap();
                assert_eq!(t.columns(), u64::from(columns));
                t.verify().unwrap();
                for q in 0..columns {
                    for (r, &v) in values(q).iter().enumerate() {
                        assert_eq!(t.value(q, narrow(r)).unwrap(), v, "({q},{r})");
                    }
                }
            }
            let mut w = TableWriter::open(&path).unwrap();
            w.trim().unwrap();
            drop(w);
            assert!(std::fs::read(&path).unwrap() == committed, "{columns}");
        }
        assert!(partial_tails > 10, "{partial_tails}");
    }

    /// A reader opened before the table grew says so of a question past the
    /// columns it opened, mapped or not; a question past the file's own end
    /// is beyond the table as ever.
    #[test]
    fn a_question_past_a_table_that_grew_since_it_was_opened_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.c3t");
        let mut w = TableWriter::create(&path, 1000).unwrap();
        let column = |w: &mut TableWriter, q: u32| {
            let first = Shape::Triangle.cells(u64::from(q));
            let values: Vec<u32> = (0..=q).map(|r| q + r).collect();
            w.append(1, raw::pack(w.bits(), first, [&values[..]]))
                .unwrap();
            w.commit().unwrap();
        };
        for q in 0..5 {
            column(&mut w, q);
        }
        let readers = [
            Table::open(&path).unwrap(),
            Table::options().mapped(false).open(&path).unwrap(),
        ];
        for q in 5..9 {
            column(&mut w, q);
        }
        for t in &readers {
            assert_eq!(t.get(4, 2).unwrap(), 6);
            match t.get(6, 1) {
                Err(TableError::Grew { opened, now, .. }) => {
                    assert_eq!((opened, now), (Some(4), 8));
                }
                other => panic!("{other:?}"),
            }
            assert!(matches!(t.get(9, 1), Err(TableError::Grew { .. })));
        }
        let fresh = Table::open(&path).unwrap();
        assert_eq!(fresh.get(6, 1).unwrap(), 7);
        assert!(matches!(
            fresh.get(9, 1),
            Err(TableError::OutOfRange { .. })
        ));
    }

    /// Another table (of another capacity, so another layout) written over
    /// a table in place, never shorter on the way: every reader opened
    /// before, mapped or not, says the file changed while it was open, for
    /// cells it had read and checked, cells past its end and a whole check
    /// alike; never a value read with the old layout, nor "damaged".
    #[test]
    fn a_table_written_over_in_place_by_another_is_refused_by_every_reader() {
        let dir = tempfile::tempdir().unwrap();
        let make = |name: &str, capacity: u64, columns: u32| {
            let path = dir.path().join(name);
            let mut w = TableWriter::create(&path, capacity).unwrap();
            for q in 0..columns {
                let first = Shape::Triangle.cells(u64::from(q));
                let values: Vec<u32> = (0..=q).map(|r| q + r).collect();
                w.append(1, raw::pack(w.bits(), first, [&values[..]]))
                    .unwrap();
                w.commit().unwrap();
            }
            path
        };
        let (path, other) = (make("t.c3t", 200, 150), make("o.c3t", 70_000, 300));
        let readers = [
            Table::open(&path).unwrap(),
            Table::options().mapped(false).open(&path).unwrap(),
        ];
        for t in &readers {
            assert_eq!(t.get(100, 7).unwrap(), 107);
        }
        {
            use std::io::Write;
            let bytes = std::fs::read(&other).unwrap();
            let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            f.write_all(&bytes).unwrap();
        }
        for t in &readers {
            for answer in [t.get(100, 7), t.get(149, 0), t.get(200, 1)] {
                assert!(matches!(answer, Err(TableError::Replaced(_))), "{answer:?}");
            }
            assert!(matches!(t.verify(), Err(TableError::Replaced(_))));
        }
        assert_eq!(Table::open(&path).unwrap().get(100, 7).unwrap(), 107);
    }

    /// Bytes another program changes in place, through `write`, in a block
    /// a mapped table checked before: every way of reading them calls the
    /// block damaged rather than serving the new bits; put back, they are
    /// served again.
    #[test]
    fn a_mapped_table_checks_again_the_blocks_of_a_file_written_since() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.c3t");
        let value = |q: u32, r: u32| (q * 7 + r * 3) % 263;
        let mut w = TableWriter::create(&path, 1000).unwrap();
        for q in 0..600u32 {
            let first = Shape::Triangle.cells(u64::from(q));
            let values: Vec<u32> = (0..=q).map(|r| value(q, r)).collect();
            w.append(1, raw::pack(w.bits(), first, [&values[..]]))
                .unwrap();
        }
        w.commit().unwrap();
        drop(w);
        let t = Table::open(&path).unwrap();
        assert!(matches!(t.bytes, Bytes::Map { .. }));
        // The first column whose cell (q, 0) starts in block 3.
        let bits = u64::from(t.header.bits);
        let q = (0..600u32)
            .find(|&q| Shape::Triangle.cells(u64::from(q)) * bits / 8 >= 3 * BLOCK_BYTES)
            .unwrap();
        let row = |t: &Table| {
            let mut out = Vec::new();
            t.read_row(0, 0..600, &mut out).map(|()| out)
        };
        let expected: Vec<u32> = (0..600).map(|q| value(q, 0)).collect();
        assert_eq!(t.value(q, 0).unwrap(), value(q, 0));
        assert_eq!(row(&t).unwrap(), expected);
        t.verify().unwrap();
        // The cell's first byte, changed as another program would.
        let at = t.header.data_offset() + Shape::Triangle.cells(u64::from(q)) * bits / 8;
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        let mut byte = [0u8];
        t.bytes.read_at(at, &mut byte).unwrap();
        file.write_all_at(&[byte[0] ^ 0x01], at).unwrap();
        let damaged =
            |r: Result<u32, TableError>| matches!(r, Err(TableError::Damaged { block: 3, .. }));
        assert!(damaged(t.value(q, 0)), "{:?}", t.value(q, 0));
        assert!(damaged(
            t.cells(&[0, Shape::Triangle.cells(u64::from(q))])
                .map(|v| v[1])
        ));
        assert!(damaged(row(&t).map(|v| v[q as usize])));
        assert!(t.verify().is_err());
        // Put back, the same bytes as checked: served again.
        file.write_all_at(&byte, at).unwrap();
        assert_eq!(t.value(q, 0).unwrap(), value(q, 0));
        assert_eq!(row(&t).unwrap(), expected);
        t.verify().unwrap();
    }

    /// A byte of the header changed by another program after the table was
    /// opened is seen by `verify` (the header is not among the blocks), as
    /// a fresh open sees it; put back, the table verifies again.
    #[test]
    fn verify_reads_the_header_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.c3t");
        let mut w = TableWriter::create(&path, 100).unwrap();
        for q in 0..50u32 {
            let first = Shape::Triangle.cells(u64::from(q));
            let values: Vec<u32> = (0..=q).map(|r| q + r).collect();
            w.append(1, raw::pack(w.bits(), first, [&values[..]]))
                .unwrap();
        }
        w.commit().unwrap();
        drop(w);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        for mapped in [false, true] {
            let t = Table::options().mapped(mapped).open(&path).unwrap();
            t.verify().unwrap();
            for at in [0u64, 9, (FIXED - 1) as u64] {
                let mut byte = [0u8];
                file.read_exact_at(&mut byte, at).unwrap();
                file.write_all_at(&[byte[0] ^ 0x04], at).unwrap();
                assert!(
                    matches!(t.verify(), Err(TableError::Replaced(_))),
                    "byte {at}, mapped {mapped}: {:?}",
                    t.verify()
                );
                assert!(Table::open(&path).is_err());
                file.write_all_at(&byte, at).unwrap();
                t.verify().unwrap();
            }
        }
    }

    /// A handle opened before the file grew, whose file was then cut past
    /// the handle's own length but short of what the newest commit holds,
    /// reads nothing from it and does not verify it (mapped or not), as a
    /// fresh open calls it truncated.
    #[test]
    fn a_table_cut_after_it_grew_past_an_open_handle_is_refused_by_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.c3t");
        let mut w = TableWriter::create(&path, 3000).unwrap();
        let column = |q: u32| -> Vec<u32> { (0..=q).map(|r| (q * 7 + r * 3) % 263).collect() };
        let append = |w: &mut TableWriter, qs: std::ops::Range<u32>| {
            for q in qs {
                let first = Shape::Triangle.cells(u64::from(q));
                w.append(1, raw::pack(w.bits(), first, [&column(q)[..]]))
                    .unwrap();
            }
            w.commit().unwrap();
        };
        append(&mut w, 0..300);
        let mapped = Table::open(&path).unwrap();
        let read = Table::options().mapped(false).open(&path).unwrap();
        let opened = mapped.used_len();
        append(&mut w, 300..2000);
        drop(w);
        let grown = std::fs::metadata(&path).unwrap().len();
        let cut = (opened + grown) / 2;
        assert!(opened < cut && cut < grown);
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(cut)
            .unwrap();
        for t in [&mapped, &read] {
            assert!(matches!(t.value(299, 5), Err(TableError::Shrunk(_))));
            assert!(matches!(t.verify(), Err(TableError::Shrunk(_))));
        }
        assert!(matches!(
            Table::open(&path),
            Err(TableError::Truncated { .. })
        ));
    }

    /// A mapped table cut short in place by another program (the rest of
    /// its last page then reads as zeros) is said to have become shorter
    /// while open, not to be damaged; a block flipped in place is damage.
    #[test]
    fn a_mapped_table_cut_in_place_is_called_shorter_not_damaged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.c3t");
        let mut w = TableWriter::create(&path, 1000).unwrap();
        for q in 0..600u32 {
            let first = Shape::Triangle.cells(u64::from(q));
            let values: Vec<u32> = (0..=q).map(|r| (q * 7 + r * 3) % 263).collect();
            w.append(1, raw::pack(w.bits(), first, [&values[..]]))
                .unwrap();
        }
        w.commit().unwrap();
        drop(w);
        let whole = std::fs::read(&path).unwrap();
        let t = Table::open(&path).unwrap();
        assert!(matches!(t.bytes, Bytes::Map { .. }));
        // Cut inside the page of a block past the first (blocks are pages,
        // from a page-aligned start), 100 bytes into it.
        let block = 3;
        let at = t.header.data_offset() + block * BLOCK_BYTES + 100;
        assert!(
            at + BLOCK_BYTES < t.used_len(),
            "the table has blocks past the cut"
        );
        // A column whose cell lies in that block, before the cut.
        let q = (0..600u32)
            .find(|&q| {
                let bit = Shape::Triangle.cells(u64::from(q)) * u64::from(t.header.bits);
                t.header.data_offset() + bit / 8 >= at - 100
            })
            .unwrap();
        let u = Table::options().mapped(false).open(&path).unwrap();
        assert_eq!(u.value(1, 0).unwrap(), t.value(1, 0).unwrap());
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(at)
            .unwrap();
        assert!(matches!(t.value(q, 0), Err(TableError::Shrunk(_))));
        // And every read of the file so cut, those of blocks before the cut
        // too, mapped or not.
        assert!(matches!(t.value(1, 0), Err(TableError::Shrunk(_))));
        assert!(matches!(u.value(1, 0), Err(TableError::Shrunk(_))));
        // The same block with a byte flipped in a whole file is damage.
        let flipped = dir.path().join("f.c3t");
        let mut bytes = whole.clone();
        bytes[narrow::<usize, _>(at)] ^= 0x10;
        std::fs::write(&flipped, &bytes).unwrap();
        let f = Table::open(&flipped).unwrap();
        assert!(matches!(
            f.value(q, 0),
            Err(TableError::Damaged { block: 3, .. })
        ));
    }

    /// What a creator killed between its file aside and the link left is
    /// cleared by the next writer, not what a live process is writing.
    #[test]
    fn a_writer_clears_what_killed_creators_left_aside() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.c3t");
        drop(TableWriter::create(&path, 100).unwrap());
        // A process that has ended (a child waited for).
        let mut child = std::process::Command::new("true").spawn().unwrap();
        child.wait().unwrap();
        let dead = dir.path().join(format!(".t.c3t.new-{}", child.id()));
        let live = dir
            .path()
            .join(format!(".t.c3t.new-{}", std::process::id()));
        std::fs::write(&dead, b"partial").unwrap();
        std::fs::write(&live, b"being written").unwrap();
        drop(TableWriter::open(&path).unwrap());
        assert!(!dead.exists() && live.exists());
    }
}
