//! Creating a table file and appending columns to it so that the file is valid
//! after a crash at any moment.
//!
//! The order of writes is what makes it safe: a new file appears under its name
//! only once its header is complete (written aside, then linked into place);
//! appended data is synced before the commit record that covers it is written, and
//! commit records alternate between two checksummed slots, so a torn commit write
//! leaves the previous one in force. A reader therefore always sees whole columns.

use crate::base::bytes::narrow;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

pub(crate) use crate::base::atomic_write::parent_dir;

use super::TableError;
use super::raw::{BLOCK_BYTES, Commit, HEADER_LEN, Header, Packed, SLOT_LEN, SLOT_OFFSETS, Shape};
use crate::base::input::InputError;

/// A table file opened for appending columns; holds an exclusive lock on it.
pub(crate) struct TableWriter {
    file: File,
    path: PathBuf,
    header: Header,
    committed: Commit,
    /// Slot that holds `committed`.
    slot: usize,
    /// Columns written, committed or not.
    columns: u64,
    /// CRC-32 of the complete data bytes written.
    crc: crc32fast::Hasher,
    /// The last, partly filled data byte written (0 if none).
    tail: u8,
    /// CRC-32 of the complete bytes of the block not yet full.
    block_crc: crc32fast::Hasher,
    /// Complete data bytes written.
    complete: u64,
    /// `(block, CRC-32)` of the blocks filled since the last commit, in order.
    filled: Vec<(u64, u32)>,
}

/// The header of a new table of `shape` for `N` up to `capacity`.
fn empty_header(shape: Shape, capacity: u64) -> Header {
    Header {
        shape,
        bits: shape.bits_for_capacity(capacity),
        capacity,
    }
}

/// Writes the header of an empty table into `file`, just created, synced.
fn write_empty(file: &File, header: &Header) -> std::io::Result<()> {
    file.write_all_at(&header.encode(), 0)?;
    // The block checksums' region, empty (a hole) until data fills it.
    file.set_len(header.data_offset())?;
    file.sync_all()
}

impl TableWriter {
    /// Creates a new, empty table at `path` (which must not exist) for `N` up to
    /// `capacity`. The file appears under its name only once its header is written.
    pub fn create(path: &Path, capacity: u64) -> Result<TableWriter, TableError> {
        TableWriter::create_shape(path, Shape::Triangle, capacity)
    }

    /// [`TableWriter::create`] for a table of the given shape.
    pub(crate) fn create_shape(
        path: &Path,
        shape: Shape,
        capacity: u64,
    ) -> Result<TableWriter, TableError> {
        let header = empty_header(shape, capacity);
        // A link to nothing: the table would be made where it points, or
        // be taken for one another process is making.
        if let Some(target) = crate::base::input::dangling_link(path) {
            return Err(TableError::Input(InputError::DanglingLink {
                path: path.to_path_buf(),
                target,
            }));
        }
        let dir = parent_dir(path);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let aside = dir.join(format!(".{name}.new-{}", std::process::id()));
        let write_aside = || write_empty(&File::create(&aside)?, &header);
        // The link fails if the name exists: another run created the same new
        // table between this one's look and now (it holds it, writing).
        let placed = write_aside()
            .and_then(|()| std::fs::hard_link(&aside, path))
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::AlreadyExists => TableError::Io {
                    path: path.to_path_buf(),
                    error: std::io::Error::other(
                        "another process created this table just now and is writing it; \
                         run the command again when it is done",
                    ),
                },
                _ => TableError::io(path)(e),
            });
        let _ = std::fs::remove_file(&aside);
        placed?;
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        TableWriter::open_shape(path, shape)
    }

    /// A new, empty table of `shape` made at `path` itself (which must not
    /// exist): for a file that is written aside already, under a name no
    /// other process uses, and placed by its maker.
    pub(crate) fn create_private(
        path: &Path,
        shape: Shape,
        capacity: u64,
    ) -> Result<TableWriter, TableError> {
        let header = empty_header(shape, capacity);
        let file = OpenOptions::new().write(true).create_new(true).open(path);
        file.and_then(|file| write_empty(&file, &header))
            .map_err(TableError::io(path))?;
        TableWriter::open_shape(path, shape)
    }

    /// Opens an existing table for appending. Fails if another process has it open
    /// for writing.
    pub fn open(path: &Path) -> Result<TableWriter, TableError> {
        TableWriter::open_shape(path, Shape::Triangle)
    }

    /// [`TableWriter::open`] for a table of the given shape.
    pub(crate) fn open_shape(path: &Path, shape: Shape) -> Result<TableWriter, TableError> {
        // Only a regular file is opened (a FIFO would be opened to read and write).
        crate::base::input::check(path, shape.what()).map_err(|e| TableError::input(shape, e))?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => TableError::NotFound(path.to_path_buf(), shape),
                _ => TableError::io(path)(e),
            })?;
        file.try_lock().map_err(|_| TableError::Io {
            path: path.to_path_buf(),
            error: std::io::Error::other("the table is being written by another process"),
        })?;
        // A creator killed between writing its new file aside and removing
        // it after the link left `.NAME.new-PID`; the lock holder clears it.
        crate::base::atomic_write::remove_left_aside(path);
        let len = file.metadata().map_err(TableError::io(path))?.len();
        if len < HEADER_LEN {
            return Err(TableError::short(
                len,
                &super::first_bytes(&file).map_err(TableError::io(path))?,
            ));
        }
        let mut head = vec![0u8; narrow::<usize, _>(HEADER_LEN)];
        file.read_exact_at(&mut head, 0)
            .map_err(TableError::io(path))?;
        let (header, committed) = Header::decode(&head)?;
        if header.shape != shape {
            return Err(TableError::OtherKind {
                wanted: shape,
                found: header.shape,
            });
        }
        let expected = header.file_len(committed.columns);
        if len < expected {
            return Err(TableError::Truncated {
                columns: committed.columns,
                expected,
                found: len,
            });
        }
        let slot = SLOT_OFFSETS
            .iter()
            .position(|&o| Commit::decode(&head[o..o + SLOT_LEN]) == Some(committed))
            .expect("decode picked one of the slots");
        let complete = header.data_bits(committed.columns) / 8;
        let block_start = complete / BLOCK_BYTES * BLOCK_BYTES;
        let mut partial = vec![0u8; narrow::<usize, _>(complete - block_start)];
        file.read_exact_at(&mut partial, header.data_offset() + block_start)
            .map_err(TableError::io(path))?;
        let mut block_crc = crc32fast::Hasher::new();
        block_crc.update(&partial);
        // The block that grows must be whole before more is added to it (the
        // rest of the base is the caller's to check: `compute` verifies it,
        // `grundy-table` sweeps it again).
        if block_crc.clone().finalize() != committed.block_crc {
            return Err(TableError::Damaged {
                block: block_start / BLOCK_BYTES,
                from: block_start,
                to: complete,
            });
        }
        Ok(TableWriter {
            file,
            path: path.to_path_buf(),
            header,
            committed,
            slot,
            columns: committed.columns,
            crc: crc32fast::Hasher::new_with_initial(committed.crc),
            tail: committed.tail,
            block_crc,
            complete,
            filled: Vec::new(),
        })
    }

    /// The largest `N` (or `p`) the file may grow to.
    pub fn capacity(&self) -> u64 {
        self.header.capacity
    }

    /// Bits per value.
    pub fn bits(&self) -> u32 {
        self.header.bits
    }

    /// Columns written so far (committed or not).
    pub fn columns(&self) -> u64 {
        self.columns
    }

    /// Columns the file's header currently commits.
    pub(crate) fn committed_columns(&self) -> u64 {
        self.committed.columns
    }

    /// Appends `count` packed columns, which must follow the columns written so far.
    /// They are not part of the table until [`TableWriter::commit`].
    pub(crate) fn append(&mut self, count: u64, mut packed: Packed) -> Result<(), TableError> {
        let end_bit = self.header.data_bits(self.columns + count);
        assert_eq!(
            packed.start_byte * 8 + packed.start_bit as u64,
            self.header.data_bits(self.columns),
            "columns appended out of order"
        );
        assert_eq!(
            packed.end_bit, end_bit,
            "packed data does not match the column count"
        );
        if packed.start_bit != 0 {
            packed.bytes[0] |= self.tail;
        }
        self.file
            .write_all_at(&packed.bytes, self.header.data_offset() + packed.start_byte)
            .map_err(TableError::io(&self.path))?;
        let complete = narrow::<usize, _>(end_bit / 8 - packed.start_byte);
        self.crc.update(&packed.bytes[..complete]);
        self.add_to_blocks(&packed.bytes[..complete]);
        self.tail = packed.bytes.get(complete).copied().unwrap_or(0);
        self.columns += count;
        Ok(())
    }

    /// Adds newly complete data bytes to the block checksums.
    fn add_to_blocks(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let room = narrow::<usize, _>(BLOCK_BYTES - self.complete % BLOCK_BYTES);
            let (now, rest) = bytes.split_at(room.min(bytes.len()));
            self.block_crc.update(now);
            self.complete += now.len() as u64;
            if self.complete.is_multiple_of(BLOCK_BYTES) {
                let done = std::mem::take(&mut self.block_crc).finalize();
                self.filled.push((self.complete / BLOCK_BYTES - 1, done));
            }
            bytes = rest;
        }
    }

    /// Makes the columns appended so far part of the table: syncs them to disk,
    /// then writes and syncs a new commit record in the other slot.
    pub fn commit(&mut self) -> Result<(), TableError> {
        if self.columns == self.committed.columns {
            return Ok(());
        }
        let io = TableError::io(&self.path);
        // The checksums of the blocks filled go in with their data, in one
        // write (the blocks filled since the last commit are consecutive).
        if let Some(&(first, _)) = self.filled.first() {
            let bytes: Vec<u8> = self
                .filled
                .iter()
                .flat_map(|(_, c)| c.to_le_bytes())
                .collect();
            self.file
                .write_all_at(&bytes, HEADER_LEN + 4 * first)
                .map_err(TableError::io(&self.path))?;
            self.filled.clear();
        }
        self.file.sync_data().map_err(io)?;
        let commit = Commit {
            sequence: self.committed.sequence + 1,
            columns: self.columns,
            crc: self.crc.clone().finalize(),
            tail: self.tail,
            block_crc: self.block_crc.clone().finalize(),
        };
        let slot = 1 - self.slot;
        self.file
            .write_all_at(&commit.encode(), SLOT_OFFSETS[slot] as u64)
            .and_then(|()| self.file.sync_data())
            .map_err(TableError::io(&self.path))?;
        self.committed = commit;
        self.slot = slot;
        Ok(())
    }

    /// Whether the file at this writer's path is still the file it writes,
    /// as it wrote it: the same file (device and inode), its header and
    /// newest commit this writer's, and long enough for the commit. Called
    /// at the end of a run, so that a file another program removed, put in
    /// its place or wrote over meanwhile is said, not taken for the result.
    pub fn check_still_here(&self) -> Result<(), TableError> {
        use super::Taken;
        use std::os::unix::fs::MetadataExt;
        let taken = |how| TableError::TakenWhileWritten {
            path: self.path.clone(),
            how,
        };
        let mine = self.file.metadata().map_err(TableError::io(&self.path))?;
        // Through a link, as the writer opened it.
        let there = match std::fs::metadata(&self.path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(taken(Taken::Removed));
            }
            Err(e) => return Err(TableError::io(&self.path)(e)),
        };
        if (there.dev(), there.ino()) != (mine.dev(), mine.ino()) {
            return Err(taken(Taken::Replaced));
        }
        let fixed = &self.header.encode()[..super::FIXED];
        let mut head = vec![0u8; SLOT_OFFSETS[1] + SLOT_LEN];
        let read = self.file.read_exact_at(&mut head, 0);
        let newest = SLOT_OFFSETS
            .iter()
            .filter_map(|&o| Commit::decode(&head[o..o + SLOT_LEN]))
            .max_by_key(|c| c.sequence);
        let whole = read.is_ok()
            && head[..fixed.len()] == *fixed
            && newest == Some(self.committed)
            && mine.len() >= self.header.file_len(self.committed.columns);
        match whole {
            true => Ok(()),
            false => Err(taken(Taken::WrittenOver)),
        }
    }

    /// [`TableWriter::check_still_here`], then every block of the file read
    /// again and checked, as a fresh reader checks it: another program's
    /// bytes written in place that keep the header (another table of the same
    /// capacity copied over it) fail here, so a run never reports as its
    /// result a table that does not pass its checks. For writers of tables
    /// by columns and of Grundy tables (a reader of an unfinished table by
    /// rows would see this writer's own lock).
    pub fn check_written(&self) -> Result<(), TableError> {
        self.check_still_here()?;
        // The header and newest commit are this run's (checked just now), so
        // a block that fails its check holds bytes this run did not write.
        let changed = |e| match e {
            TableError::Damaged { block, .. } => TableError::TakenWhileWritten {
                path: self.path.clone(),
                how: super::Taken::Changed { block: Some(block) },
            },
            TableError::ChecksumMismatch(_) => TableError::TakenWhileWritten {
                path: self.path.clone(),
                how: super::Taken::Changed { block: None },
            },
            e => e,
        };
        super::Table::options()
            .shape(self.header.shape)
            .mapped(false)
            .open(&self.path)
            .and_then(|t| t.verify())
            .map_err(changed)
    }

    /// Cuts off anything past the committed columns (left by an interrupted
    /// run): the bytes after them, and the bits of their partly filled last
    /// byte that an append not committed set (the byte is written back as
    /// the commit records it), so the file is byte for byte what a run that
    /// was never interrupted leaves at this commit.
    /// Called before any append of this writer.
    pub fn trim(&mut self) -> Result<(), TableError> {
        assert_eq!(
            self.columns, self.committed.columns,
            "trim after an append would cut columns this writer still holds"
        );
        let len = self.header.file_len(self.committed.columns);
        self.file.set_len(len).map_err(TableError::io(&self.path))?;
        if self.header.tail_mask(self.committed.columns) != 0 {
            let at = self.header.data_offset() + self.header.data_bits(self.committed.columns) / 8;
            self.file
                .write_all_at(&[self.committed.tail], at)
                .map_err(TableError::io(&self.path))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::Taken;
    use super::*;

    /// A writer of 20 committed columns at `path`.
    fn written(path: &Path) -> TableWriter {
        let mut w = TableWriter::create(path, 100).unwrap();
        for q in 0..20u32 {
            let first = Shape::Triangle.cells(u64::from(q));
            let values: Vec<u32> = (0..=q).map(|r| q + r).collect();
            w.append(1, super::super::raw::pack(w.bits(), first, [&values[..]]))
                .unwrap();
        }
        w.commit().unwrap();
        w
    }

    fn taken(w: &TableWriter) -> Option<Taken> {
        match w.check_still_here() {
            Ok(()) => None,
            Err(TableError::TakenWhileWritten { how, .. }) => Some(how),
            Err(e) => panic!("{e}"),
        }
    }

    /// The file a writer writes, removed, replaced, written over in place
    /// or cut by another program, is told apart from the writer's own;
    /// a link or a change of mode is no change.
    #[test]
    fn a_writer_tells_whether_its_file_is_still_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.c3t");
        let other = dir.path().join("other");
        let w = written(&path);
        assert_eq!(taken(&w), None);
        std::fs::hard_link(&path, dir.path().join("link")).unwrap();
        let mode = std::os::unix::fs::PermissionsExt::from_mode(0o600);
        std::fs::set_permissions(&path, mode).unwrap();
        assert_eq!(taken(&w), None);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(taken(&w), Some(Taken::Removed));
        let w = written(&path);
        std::fs::copy(&path, &other).unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert_eq!(taken(&w), Some(Taken::Replaced));
        std::fs::remove_file(&path).unwrap();
        let w = written(&path);
        let file = OpenOptions::new().write(true).open(&path).unwrap();
        file.write_all_at(b"my notes", 0).unwrap();
        assert_eq!(taken(&w), Some(Taken::WrittenOver));
        std::fs::remove_file(&path).unwrap();
        let w = written(&path);
        let file = OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(HEADER_LEN + 8).unwrap();
        assert_eq!(taken(&w), Some(Taken::WrittenOver));
    }

    /// A table extended through a symbolic link is the file the link
    /// names: no alarm.
    #[test]
    fn a_table_written_through_a_link_is_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.c3t");
        drop(written(&path));
        let link = dir.path().join("l.c3t");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        let w = TableWriter::open(&link).unwrap();
        assert_eq!(taken(&w), None);
        w.check_written().unwrap();
    }

    /// Another table of the same header copied over the file in place keeps
    /// the header and, once the writer commits again, its newest commit:
    /// the writer's check of every block sees it.
    #[test]
    fn a_table_copied_over_in_place_fails_the_writers_last_check() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.c3t");
        let mut w = written(&path);
        w.check_written().unwrap();
        let other = dir.path().join("o.c3t");
        let mut o = TableWriter::create(&other, 100).unwrap();
        for q in 0..30u32 {
            let first = Shape::Triangle.cells(u64::from(q));
            let values: Vec<u32> = (0..=q).map(|r| 3 * q + r).collect();
            o.append(1, super::super::raw::pack(o.bits(), first, [&values[..]]))
                .unwrap();
        }
        o.commit().unwrap();
        std::fs::write(&path, std::fs::read(&other).unwrap()).unwrap();
        for q in 20..25u32 {
            let first = Shape::Triangle.cells(u64::from(q));
            let values: Vec<u32> = (0..=q).map(|r| q + r).collect();
            w.append(1, super::super::raw::pack(w.bits(), first, [&values[..]]))
                .unwrap();
        }
        w.commit().unwrap();
        w.check_still_here().unwrap();
        let e = w.check_written().unwrap_err();
        assert!(
            matches!(
                e,
                TableError::TakenWhileWritten {
                    how: Taken::Changed { .. },
                    ..
                }
            ),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("another program wrote over this file in place")
        );
    }
}
