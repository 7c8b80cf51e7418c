//! A version 1 table (no block checksums) made into a version 2 file beside
//! it, exactly: the old file's data is checked whole against its commit
//! record's CRC-32 first, then every value is read and appended to a new file
//! through the writer (which makes the block checksums), and the new file is
//! read back and compared value by value. The old file is never changed.
//! The new file's path is checked as every output's is (`outputs`), locked,
//! and written aside (`.NAME.new-PID`, the one name a killed upgrade can
//! leave, removed by the next upgrade to that path).

use crate::base::bytes::narrow;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::raw::{self, Shape};
use super::{Table, TableError, TableWriter};
use crate::base::bytes::{u32_at, u64_at};
use crate::base::lock::LockError;
use crate::base::path_message::NamesPath;
use crate::base::stop::Stop;
use crate::outputs::{Kind, Output, OutputError};

/// Why an upgrade did not write its new table (nothing is left at its path).
#[derive(Debug, thiserror::Error)]
pub enum UpgradeError {
    /// The old file is not a whole version 1 table.
    #[error(transparent)]
    Old(TableError),
    /// The new table's path is refused before any work (a directory or a
    /// file of another kind there, a directory that cannot be written).
    #[error(transparent)]
    Output(#[from] OutputError),
    /// Another process writes the new table, or its lock cannot be made
    /// (a name too long for the files chomp3 keeps beside it).
    #[error(transparent)]
    Locked(#[from] LockError),
    /// A file is at the new table's path already.
    #[error("{}: exists; name a new file for the upgraded table", .0.display())]
    Exists(PathBuf),
    /// Writing the new table, or reading it back, failed or was stopped.
    #[error("{}", new_error(.path, .error))]
    New {
        /// The new table's path.
        path: PathBuf,
        /// What happened.
        error: TableError,
    },
}

/// An error of the new table, its path named once.
fn new_error(path: &Path, error: &TableError) -> String {
    format!(
        "{}; nothing was written",
        error.with_path(path).trim_end_matches('.')
    )
}

impl NamesPath for UpgradeError {
    fn names_path(&self) -> bool {
        match self {
            UpgradeError::Old(e) => e.names_path(),
            _ => true,
        }
    }
}

/// Columns (slabs) appended between commits.
const COLUMNS_PER_COMMIT: u64 = 64;

/// Bytes of a version 1 header (data starts there).
const HEADER: usize = 4096;

/// Makes the version 1 table `old` into a version 2 table `new` (which must
/// not exist); returns its columns. `progress(done, all)` after each column.
/// `option` names `new` in a refusal of its path (`NEW`).
pub fn upgrade(
    old: &Path,
    new: &Path,
    option: &'static str,
    stop: &Stop,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<u64, UpgradeError> {
    let file = crate::base::input::open(old, "a version 1 table")
        .map_err(|e| UpgradeError::Old(TableError::Input(e)))?;
    let len = file
        .metadata()
        .map_err(|e| UpgradeError::Old(TableError::io(old)(e)))?
        .len();
    if len < HEADER as u64 {
        let head =
            super::first_bytes(&file).map_err(|e| UpgradeError::Old(TableError::io(old)(e)))?;
        return Err(UpgradeError::Old(TableError::short(len, &head)));
    }
    // SAFETY: read-only; a file cut while mapped raises SIGBUS (see `Table`).
    let map = unsafe { Mmap::map(&file) }.map_err(|e| UpgradeError::Old(TableError::io(old)(e)))?;
    let v1 = V1::read(&map).map_err(UpgradeError::Old)?;
    let kind = match v1.shape {
        Shape::Tetrahedron => Kind::GrundyTable,
        _ => Kind::Table,
    };
    crate::outputs::check(&[Output::new(new, kind, option)])?;
    let _held = crate::base::lock::lock(new)?;
    // What a killed upgrade to this path left: its table written aside (or
    // a second name of the table it had placed), and the first file of an
    // earlier chomp3, which wrote that aside too.
    crate::base::atomic_write::remove_left_aside(new);
    remove_left_aside_twice(new);
    if std::fs::symlink_metadata(new).is_ok() {
        return Err(UpgradeError::Exists(new.to_path_buf()));
    }
    // Written aside (`.NAME.new-PID`) and linked to `new` only once read
    // back whole: a kill leaves no table at `new`.
    let aside = crate::base::atomic_write::aside_path(new);
    let placed = write_aside(&v1, &aside, stop, progress).and_then(|()| {
        std::fs::hard_link(&aside, new).map_err(TableError::io(new))?;
        if let Ok(d) = std::fs::File::open(crate::base::atomic_write::parent_dir(new)) {
            let _ = d.sync_all();
        }
        Ok(())
    });
    let _ = std::fs::remove_file(&aside);
    placed
        .map(|()| v1.columns)
        .map_err(|error| UpgradeError::New {
            path: new.to_path_buf(),
            // The file aside is this run's own and gone: the error is the new table's.
            error: match error {
                TableError::Io { path, error } if path == aside => TableError::Io {
                    path: new.to_path_buf(),
                    error,
                },
                e => e,
            },
        })
}

/// Removes `..NAME.new-PID.new-PID` of dead processes beside `new`: the
/// header an earlier chomp3 wrote aside of its own file aside.
fn remove_left_aside_twice(new: &Path) {
    let Some(name) = new.file_name() else {
        return;
    };
    let prefix = format!("..{}.new-", name.to_string_lossy());
    crate::base::atomic_write::remove_left_by_the_dead(
        &crate::base::atomic_write::parent_dir(new),
        |file| {
            let (a, b) = file.strip_prefix(&prefix)?.split_once(".new-")?;
            let pid: u32 = a.parse().ok()?;
            (b.parse() == Ok(pid)).then_some(pid)
        },
    );
}

/// Writes the table of `v1` at `aside` and reads it back, value by value.
fn write_aside(
    v1: &V1,
    aside: &Path,
    stop: &Stop,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(), TableError> {
    // Made at its own name: it is a file aside already.
    let mut w = TableWriter::create_private(aside, v1.shape, v1.capacity)?;
    let mut values = Vec::new();
    for c in 0..v1.columns {
        if stop.requested() {
            return Err(TableError::io(aside)(std::io::Error::other(
                "interrupted; the partial upgrade was removed",
            )));
        }
        let first = v1.shape.cells(c);
        values.clear();
        values.extend((first..v1.shape.cells(c + 1)).map(|i| raw::unpack(v1.data, v1.bits, i)));
        w.append(1, raw::pack(v1.bits, first, [&values[..]]))?;
        if (c + 1) % COLUMNS_PER_COMMIT == 0 {
            w.commit()?;
        }
        progress(c + 1, v1.columns);
    }
    w.commit()?;
    drop(w);
    // Read back: every block checked, every value equal.
    let t = Table::options().shape(v1.shape).open(aside)?;
    t.verify()?;
    // A million values at a time: each block copied and checked once.
    let (total, mut run) = (v1.shape.cells(v1.columns), Vec::new());
    for first in (0..total).step_by(1 << 20) {
        let count = (total - first).min(1 << 20);
        run.clear();
        t.read_run(first, narrow::<u32, _>(count), &mut run)?;
        for (i, &v) in (first..).zip(&run) {
            if v != raw::unpack(v1.data, v1.bits, i) {
                return Err(TableError::ChecksumMismatch(format!(
                    "value {i} of the upgraded table differs from the old one"
                )));
            }
        }
    }
    Ok(())
}

/// What a version 1 file holds (FORMAT.md of version 1: the header of
/// version 2 without the block checksums' region, data at 4096, the commit
/// slots without the block CRC).
struct V1<'a> {
    shape: Shape,
    bits: u32,
    capacity: u64,
    columns: u64,
    data: &'a [u8],
}

impl<'a> V1<'a> {
    fn read(map: &'a [u8]) -> Result<V1<'a>, TableError> {
        if map.len() < HEADER {
            return Err(TableError::short(map.len() as u64, map));
        }
        let version = u32_at(map, 8);
        let shape = match map.get(0..8) {
            // Tables by rows came with version 2.
            Some(m) if m == raw::MAGIC_ROWS => return Err(TableError::NotVersion1(version)),
            Some(m) if m == raw::MAGIC => Shape::Triangle,
            Some(m) if m == raw::MAGIC_GRUNDY => Shape::Tetrahedron,
            _ => return Err(TableError::not_table(map)),
        };
        if version != 1 {
            return Err(TableError::NotVersion1(version));
        }
        if crc32fast::hash(&map[0..32]) != u32_at(map, 32) || u64_at(map, 24) != HEADER as u64 {
            return Err(TableError::CorruptHeader("header checksum does not match"));
        }
        let (bits, capacity) = (u32_at(map, 12), u64_at(map, 16));
        if capacity > shape.max_capacity() || bits != shape.bits_for_capacity(capacity) {
            return Err(TableError::CorruptHeader(
                "inconsistent header fields (or a capacity beyond what version 2 holds)",
            ));
        }
        // The valid slot with the larger sequence number: sequence, columns,
        // CRC-32 of the complete data bytes, tail byte, slot CRC at 60.
        let slot = [64usize, 128]
            .into_iter()
            .map(|o| &map[o..o + 64])
            .filter(|s| u64_at(s, 0) != 0 && crc32fast::hash(&s[0..60]) == u32_at(s, 60))
            .max_by_key(|s| u64_at(s, 0))
            .ok_or(TableError::CorruptHeader("no valid commit record"))?;
        let columns = u64_at(slot, 8);
        if columns > capacity + 1 {
            return Err(TableError::CorruptHeader("more columns than the capacity"));
        }
        let data_bits = shape.cells(columns) * u64::from(bits);
        let end = HEADER as u64 + data_bits.div_ceil(8);
        if (map.len() as u64) < end {
            return Err(TableError::Truncated {
                columns,
                expected: end,
                found: map.len() as u64,
            });
        }
        let data = &map[HEADER..narrow::<usize, _>(end)];
        let complete = (data_bits / 8) as usize;
        let crc = crc32fast::hash(&data[..complete]);
        let tail = data.get(complete).copied().unwrap_or(0);
        if crc != u32_at(slot, 16) || tail != slot[20] {
            return Err(TableError::ChecksumMismatch(format!(
                "CRC-32 {crc:08x}, header records {:08x}",
                u32_at(slot, 16)
            )));
        }
        Ok(V1 {
            shape,
            bits,
            capacity,
            columns,
            data,
        })
    }
}
