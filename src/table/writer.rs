//! Creating a table file and appending columns to it so that the file is valid
//! after a crash at any moment.
//!
//! The order of writes is what makes it safe: a new file appears under its name
//! only once its header is complete (written aside, then linked into place);
//! appended data is synced before the commit record that covers it is written, and
//! commit records alternate between two checksummed slots, so a torn commit write
//! leaves the previous one in force. A reader therefore always sees whole columns.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

pub use crate::atomic_write::parent_dir;

use super::TableError;
use super::raw::{Commit, DATA_OFFSET, Header, Packed, SLOT_LEN, SLOT_OFFSETS, Shape};

/// A table file opened for appending columns; holds an exclusive lock on it.
pub struct TableWriter {
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
}

impl TableWriter {
    /// Creates a new, empty table at `path` (which must not exist) for `N` up to
    /// `capacity`. The file appears under its name only once its header is written.
    pub fn create(path: &Path, capacity: u64) -> Result<TableWriter, TableError> {
        TableWriter::create_shape(path, Shape::Triangle, capacity)
    }

    /// [`TableWriter::create`] for a table of the given shape.
    pub fn create_shape(
        path: &Path,
        shape: Shape,
        capacity: u64,
    ) -> Result<TableWriter, TableError> {
        let header = Header {
            shape,
            bits: shape.bits_for_capacity(capacity),
            capacity,
        };
        let dir = parent_dir(path);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let aside = dir.join(format!(".{name}.new-{}", std::process::id()));
        let write_aside = || -> std::io::Result<()> {
            let file = File::create(&aside)?;
            file.write_all_at(&header.encode(), 0)?;
            file.sync_all()
        };
        let placed = write_aside()
            .and_then(|()| std::fs::hard_link(&aside, path))
            .map_err(TableError::io(path));
        let _ = std::fs::remove_file(&aside);
        placed?;
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        TableWriter::open_shape(path, shape)
    }

    /// Opens an existing table for appending. Fails if another process has it open
    /// for writing.
    pub fn open(path: &Path) -> Result<TableWriter, TableError> {
        TableWriter::open_shape(path, Shape::Triangle)
    }

    /// [`TableWriter::open`] for a table of the given shape.
    pub fn open_shape(path: &Path, shape: Shape) -> Result<TableWriter, TableError> {
        if path.is_dir() {
            return Err(TableError::IsDirectory(path.to_path_buf(), shape));
        }
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
        let len = file.metadata().map_err(TableError::io(path))?.len();
        if len < DATA_OFFSET {
            return Err(TableError::NotThisFile);
        }
        let mut head = vec![0u8; DATA_OFFSET as usize];
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
        Ok(TableWriter {
            file,
            path: path.to_path_buf(),
            header,
            committed,
            slot,
            columns: committed.columns,
            crc: crc32fast::Hasher::new_with_initial(committed.crc),
            tail: committed.tail,
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
    pub fn committed_columns(&self) -> u64 {
        self.committed.columns
    }

    /// Appends `count` packed columns, which must follow the columns written so far.
    /// They are not part of the table until [`TableWriter::commit`].
    pub fn append(&mut self, count: u64, mut packed: Packed) -> Result<(), TableError> {
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
            .write_all_at(&packed.bytes, DATA_OFFSET + packed.start_byte)
            .map_err(TableError::io(&self.path))?;
        let complete = (end_bit / 8 - packed.start_byte) as usize;
        self.crc.update(&packed.bytes[..complete]);
        self.tail = packed.bytes.get(complete).copied().unwrap_or(0);
        self.columns += count;
        Ok(())
    }

    /// Makes the columns appended so far part of the table: syncs them to disk,
    /// then writes and syncs a new commit record in the other slot.
    pub fn commit(&mut self) -> Result<(), TableError> {
        if self.columns == self.committed.columns {
            return Ok(());
        }
        let io = TableError::io(&self.path);
        self.file.sync_data().map_err(io)?;
        let commit = Commit {
            sequence: self.committed.sequence + 1,
            columns: self.columns,
            crc: self.crc.clone().finalize(),
            tail: self.tail,
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

    /// Cuts off anything past the committed columns (left by an interrupted run).
    pub fn trim(&mut self) -> Result<(), TableError> {
        let len = self.header.file_len(self.committed.columns);
        self.file.set_len(len).map_err(TableError::io(&self.path))
    }
}
