//! The table file: owns its format (see `FORMAT.md` and [`raw`]), reading through a
//! read-only memory map ([`Table`]) and crash-safe appending ([`TableWriter`]).
//! It never computes values; uses the byte helpers of `bytes`, `atomic_write`'s
//! `parent_dir`, and `path_message` so its errors name the file once.
//!
//! # Memory use
//!
//! [`Table::open`] maps the file and reads only its header; values are paged in from
//! disk when first read, so a 11 GB table costs no memory until it is used, and the
//! pages it does use are cache that the kernel can drop at any time.

pub mod raw;
mod upgrade;
mod writer;

use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::path_message::NamesPath;

pub use raw::Shape;
use raw::{BLOCK_BYTES, Commit, HEADER_LEN, Header};
use std::sync::atomic::{AtomicU64, Ordering};
pub use upgrade::upgrade;
pub use writer::{TableWriter, parent_dir};

/// What can go wrong with a table file. Each message says what is wrong and what
/// to do; those that do not name the file are shown after its path.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// No file at the path, where a table of this shape was wanted.
    #[error(
        "{path}: no such {noun}; create it with `{command} --n N --table {path}`",
        path = .0.display(), noun = .1.noun(), command = .1.command()
    )]
    NotFound(PathBuf, Shape),
    /// The path is a directory, where a table of this shape was wanted.
    #[error(
        "{} is a directory, not a {} file; give the path of a {} file",
        .0.display(), .1.noun(), .1.extension()
    )]
    IsDirectory(PathBuf, Shape),
    /// The file does not start with the table magic: it is some other file.
    #[error(
        "not a chomp3 table (no CHOMP3TB or CHOMP3GT header); give the path of a .c3t (or, for Grundy values, .g3t) file"
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
        "--n {n} is beyond the table's capacity {capacity} ({bits} bits per value); recreate it with a larger --capacity"
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
            TableError::NotFound(..) | TableError::IsDirectory(..) | TableError::Io { .. }
        )
    }
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

/// How to reach `value`: the command that extends a table to it, or, past
/// the largest table of this shape, that none can.
fn extend_to(value: u64, shape: Shape) -> String {
    let max = shape.max_capacity();
    if value <= max {
        format!("extend it with `{} --n {value}`", shape.command())
    } else {
        format!("no table goes beyond N = {max}")
    }
}

/// A table file opened for reading through a memory map. Every read checks
/// the CRC-32 of the blocks of data it touches (once each: a block that
/// passed is remembered), so a damaged file gives an error, never a value.
pub struct Table {
    map: Mmap,
    header: Header,
    commit: Commit,
    /// One bit per block of data: set once the block has passed its check.
    checked: Box<[AtomicU64]>,
}

impl Table {
    /// Opens and checks a table: magic, version, header checksum, commit record and
    /// file length. The data itself is checked by [`Table::verify`].
    pub fn open(path: &Path) -> Result<Table, TableError> {
        Table::open_shape(path, Shape::Triangle)
    }

    /// Opens and checks a table of the given shape (a Grundy table is
    /// [`Shape::Tetrahedron`]), as [`Table::open`] does.
    pub fn open_shape(path: &Path, shape: Shape) -> Result<Table, TableError> {
        if path.is_dir() {
            return Err(TableError::IsDirectory(path.to_path_buf(), shape));
        }
        let file = File::open(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => TableError::NotFound(path.to_path_buf(), shape),
            _ => TableError::io(path)(e),
        })?;
        let len = file.metadata().map_err(TableError::io(path))?.len();
        if len < HEADER_LEN {
            return Err(TableError::NotThisFile);
        }
        // SAFETY: the map is read-only and chomp3 never shrinks a table below its
        // committed data, which is all this reader touches. If another program
        // truncates the file while it is mapped, reading the lost pages raises
        // SIGBUS and the process dies; no wrong value can be returned.
        let map = unsafe { Mmap::map(&file) }.map_err(TableError::io(path))?;
        let (header, commit) = Header::decode(&map[..HEADER_LEN as usize])?;
        if header.shape != shape {
            return Err(TableError::OtherKind {
                wanted: shape,
                found: header.shape,
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
        // Blocks up to and with the one holding the last, partly filled byte.
        let blocks = header.data_bits(commit.columns) / 8 / BLOCK_BYTES + 1;
        let checked = (0..blocks.div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        Ok(Table {
            map,
            header,
            commit,
            checked,
        })
    }

    /// Value number `cell` in the file's order (for a Grundy table, see
    /// `grundy::table`), its block checked; panics past the committed cells.
    pub fn cell(&self, cell: u64) -> Result<u32, TableError> {
        assert!(
            cell < self.header.shape.cells(self.columns()),
            "cell {cell} outside the table"
        );
        self.check_cells(cell, cell + 1)?;
        Ok(raw::unpack(self.data(), self.header.bits, cell))
    }

    /// Checks the blocks that hold cells `first .. end`.
    fn check_cells(&self, first: u64, end: u64) -> Result<(), TableError> {
        let bits = u64::from(self.header.bits);
        self.check_bytes(first * bits / 8, (end * bits).div_ceil(8))
    }

    /// Checks the blocks that hold data bytes `from .. to` (`to > from`).
    fn check_bytes(&self, from: u64, to: u64) -> Result<(), TableError> {
        for block in from / BLOCK_BYTES..=(to - 1) / BLOCK_BYTES {
            self.check_block(block)?;
        }
        Ok(())
    }

    /// Checks data block `block` against its CRC-32 (a full block against
    /// the region after the header; the last, against the commit record,
    /// with the partly filled byte), unless it has passed before.
    fn check_block(&self, block: u64) -> Result<(), TableError> {
        let (word, bit) = ((block / 64) as usize, block % 64);
        if self.checked[word].load(Ordering::Relaxed) & (1 << bit) != 0 {
            return Ok(());
        }
        let data = self.data();
        let complete = self.header.data_bits(self.columns()) / 8;
        let from = block * BLOCK_BYTES;
        let to = (from + BLOCK_BYTES).min(complete);
        let crc = crc32fast::hash(&data[from as usize..to as usize]);
        let good = if from + BLOCK_BYTES <= complete {
            let at = (HEADER_LEN + 4 * block) as usize;
            crc == u32::from_le_bytes(self.map[at..at + 4].try_into().expect("4 bytes"))
        } else {
            let tail = data.get(complete as usize).copied().unwrap_or(0);
            crc == self.commit.block_crc && tail == self.commit.tail
        };
        if !good {
            return Err(TableError::Damaged {
                block,
                from,
                to: (from + BLOCK_BYTES).min(data.len() as u64),
            });
        }
        self.checked[word].fetch_or(1 << bit, Ordering::Relaxed);
        Ok(())
    }

    /// Number of complete columns (`N + 1`; 0 for a table with nothing computed).
    pub fn columns(&self) -> u64 {
        self.commit.columns
    }

    /// The table's `N` (largest column), or `None` while it holds no column.
    pub fn n(&self) -> Option<u64> {
        self.commit.columns.checked_sub(1)
    }

    /// How the cells are laid out (an `f` table or a Grundy table).
    pub fn shape(&self) -> Shape {
        self.header.shape
    }

    /// Bits per stored value.
    pub fn bits(&self) -> u32 {
        self.header.bits
    }

    /// Largest `N` this file may be extended to.
    pub fn capacity(&self) -> u64 {
        self.header.capacity
    }

    /// Size of the file in bytes.
    pub fn file_len(&self) -> u64 {
        self.map.len() as u64
    }

    /// Bytes the committed columns occupy (header included).
    pub fn used_len(&self) -> u64 {
        self.header.file_len(self.commit.columns)
    }

    fn data(&self) -> &[u8] {
        &self.map[self.header.data_offset() as usize..self.used_len() as usize]
    }

    /// `f(q, r)` for `q <= N` and any `r` (above the diagonal, `r > q`, that is
    /// `f(q,q)`), or an error naming the `q` beyond the table.
    pub fn get(&self, q: u64, r: u64) -> Result<u32, TableError> {
        // `f(q, r) = f(q, q)` for `r > q`: only `q` must be in the table.
        if q >= self.columns() {
            return Err(TableError::OutOfRange {
                what: "q",
                value: q,
                n: self.n(),
                shape: self.header.shape,
            });
        }
        let q = u32::try_from(q).expect("a column of the table fits u32");
        let r = u32::try_from(r.min(u64::from(q))).expect("r <= q");
        self.value(q, r)
    }

    /// `f(q, r)` for `r <= q < columns()`, its block checked; panics outside
    /// the table.
    pub fn value(&self, q: u32, r: u32) -> Result<u32, TableError> {
        assert!(
            r <= q && (q as u64) < self.columns(),
            "cell ({q},{r}) outside the table"
        );
        let cell = raw::cells(q as u64) + r as u64;
        self.check_cells(cell, cell + 1)?;
        Ok(raw::unpack(self.data(), self.header.bits, cell))
    }

    /// Checks every block of data (in parallel), then the checksum of the
    /// whole against the commit record. Reads after it check nothing again.
    pub fn verify(&self) -> Result<(), TableError> {
        use rayon::prelude::*;
        let blocks = self.checked.len() as u64 * 64;
        let last = (self.header.data_bits(self.columns()) / 8 / BLOCK_BYTES).min(blocks - 1);
        (0..=last)
            .into_par_iter()
            .try_for_each(|block| self.check_block(block))?;
        let data = self.data();
        let full = (self.header.data_bits(self.columns()) / 8) as usize;
        let crc = crc32fast::hash(&data[..full]);
        if crc != self.commit.crc {
            return Err(TableError::ChecksumMismatch(format!(
                "CRC-32 {crc:08x}, header records {:08x}",
                self.commit.crc
            )));
        }
        let tail = data.get(full).copied().unwrap_or(0);
        if tail != self.commit.tail {
            return Err(TableError::ChecksumMismatch(format!(
                "last byte {tail:02x}, header records {:02x}",
                self.commit.tail
            )));
        }
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
        assert!(rows.end <= q + 1 && (q as u64) < self.commit.columns);
        let first = raw::cells(q as u64);
        if rows.is_empty() {
            return Ok(());
        }
        self.check_cells(first + u64::from(rows.start), first + u64::from(rows.end))?;
        let data = self.data();
        out.extend(rows.map(|r| raw::unpack(data, self.header.bits, first + r as u64)));
        Ok(())
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
}
