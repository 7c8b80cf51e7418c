//! The frame both Grundy checkpoints share (the periods census's, `lag.rs`,
//! and the stored table's sweep, `.g3s`, `table.rs`): an 8-byte magic, six
//! letters naming the format and two digits of its version, then the body,
//! then the CRC-32 of the body. Written whole beside the file and renamed into
//! place; read with every failure a typed [`CheckpointError`]. Uses
//! `base::atomic_write` and `base::bytes`.

use std::io::{self, Read, Write};
use std::path::Path;

use crate::base::bytes::stream::{CrcReader, CrcWriter};
use crate::base::input::InputError;
use crate::base::path_message::NamesPath;

/// Why a Grundy checkpoint could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// No file at the path.
    #[error("no such file")]
    NotFound,
    /// The magic is not this format's: some other file.
    #[error("not a {0} checkpoint; give a file that command wrote, or a new path")]
    NotThisFile(&'static str),
    /// A version this build does not read.
    #[error(
        "{what} checkpoint version {found}, this chomp3 reads {expected}; finish it with the chomp3 that wrote it, or delete it to start over"
    )]
    Version {
        /// The command whose checkpoint it is.
        what: &'static str,
        /// The version this build writes.
        expected: u32,
        /// The version in the file.
        found: u32,
    },
    /// Cut off, a checksum that fails, a count or tag that cannot be right.
    #[error("damaged {what} checkpoint ({why}); delete it to start over")]
    Damaged {
        /// The command whose checkpoint it is.
        what: &'static str,
        /// What is wrong.
        why: String,
    },
    /// A whole checkpoint, of another run (its checksum holds).
    #[error("{0}: another run's checkpoint, kept; give another checkpoint path")]
    OtherRun(String),
    /// The operating system failed.
    #[error("{0}")]
    Io(io::Error),
    /// Nothing in the file (a checkpoint is written whole, never empty).
    #[error("the file is empty, not a {0} checkpoint; delete it to start over")]
    Empty(&'static str),
    /// The path is no regular file, or a link to nothing (the message names it).
    #[error(transparent)]
    Input(InputError),
}

impl NamesPath for CheckpointError {
    fn names_path(&self) -> bool {
        matches!(self, CheckpointError::Input(_))
    }
}

/// A checkpoint format: its magic's six letters, the version written and the
/// oldest read, and the command that writes it (for messages).
pub(crate) struct Format {
    pub(crate) letters: &'static [u8; 6],
    pub(crate) version: u32,
    pub(crate) oldest: u32,
    pub(crate) what: &'static str,
}

impl Format {
    /// The magic of version `v`.
    fn magic(&self, v: u32) -> [u8; 8] {
        let mut m = [0; 8];
        m[..6].copy_from_slice(self.letters);
        m[6] = b'0' + (v / 10 % 10) as u8;
        m[7] = b'0' + (v % 10) as u8;
        m
    }

    /// Writes a checkpoint whose body `body` writes, whole or not at all.
    pub(crate) fn save(
        &self,
        path: &Path,
        body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        crate::base::atomic_write::write_atomically(path, |w| {
            w.write_all(&self.magic(self.version))?;
            let mut crc = CrcWriter::new(w);
            body(&mut crc)?;
            let sum = crc.crc.finalize();
            w.write_all(&sum.to_le_bytes())
        })
    }

    /// Reads a checkpoint: `body` gets the reader, the file's length in bytes
    /// and its version, and reads exactly the body.
    pub(crate) fn load<T>(
        &self,
        path: &Path,
        body: impl FnOnce(&mut dyn Read, u64, u32) -> io::Result<T>,
    ) -> Result<T, CheckpointError> {
        let damaged = |why: &str| CheckpointError::Damaged {
            what: self.what,
            why: why.to_string(),
        };
        let file = crate::base::input::open(path, "a checkpoint").map_err(|e| match e {
            InputError::Missing { .. } => CheckpointError::NotFound,
            e => CheckpointError::Input(e),
        })?;
        let bytes = file.metadata().map_err(CheckpointError::Io)?.len();
        let mut r = io::BufReader::new(file);
        let mut magic = Vec::with_capacity(8);
        (&mut r)
            .take(8)
            .read_to_end(&mut magic)
            .map_err(CheckpointError::Io)?;
        let letters = &magic[..magic.len().min(6)];
        match magic.len() {
            0 => return Err(CheckpointError::Empty(self.what)),
            _ if !self.letters.starts_with(letters) => {
                return Err(CheckpointError::NotThisFile(self.what));
            }
            1..8 => return Err(damaged("cut off in its first 8 bytes")),
            _ => {}
        }
        let digits = &magic[6..];
        if !digits.iter().all(u8::is_ascii_digit) {
            return Err(CheckpointError::NotThisFile(self.what));
        }
        let found = u32::from(digits[0] - b'0') * 10 + u32::from(digits[1] - b'0');
        if !(self.oldest..=self.version).contains(&found) {
            return Err(CheckpointError::Version {
                what: self.what,
                expected: self.version,
                found,
            });
        }
        let mut crc = CrcReader::new(&mut r);
        let value = match body(&mut crc, bytes, found) {
            Ok(value) => value,
            Err(e) => {
                return Err(match e.kind() {
                    io::ErrorKind::UnexpectedEof => damaged("cut short"),
                    io::ErrorKind::InvalidData => damaged(&e.to_string()),
                    // Another run's (see `OTHER_RUN`): so only if whole.
                    OTHER_RUN => {
                        let hasher = crc.crc;
                        match whole(hasher, &mut r) {
                            Ok(true) => CheckpointError::OtherRun(e.to_string()),
                            Ok(false) => damaged("its checksum does not match"),
                            Err(e) => CheckpointError::Io(e),
                        }
                    }
                    _ => CheckpointError::Io(e),
                });
            }
        };
        let sum = crc.crc.finalize();
        let mut stored = [0; 4];
        r.read_exact(&mut stored)
            .map_err(|_| damaged("cut short"))?;
        if u32::from_le_bytes(stored) != sum {
            return Err(damaged("its checksum does not match"));
        }
        if r.read(&mut [0]).map_err(CheckpointError::Io)? != 0 {
            return Err(damaged("bytes after its end"));
        }
        Ok(value)
    }
}

/// The kind of error a body's reader returns for a checkpoint of another
/// run: [`Format::load`] then reads the rest, and says so only if the file is
/// whole (its checksum holds), damage otherwise.
pub(crate) const OTHER_RUN: io::ErrorKind = io::ErrorKind::InvalidInput;

/// Whether the rest of the body read from `r`, then the checksum at the end,
/// match `hasher`, which holds the body read so far.
fn whole(mut hasher: crc32fast::Hasher, r: &mut dyn Read) -> io::Result<bool> {
    let mut buf = vec![0u8; 1 << 16];
    // The last four bytes seen, held back from the sum: the checksum.
    let mut tail: Vec<u8> = Vec::with_capacity(4);
    loop {
        let n = r.read(&mut buf)?;
        if n == 0 {
            break;
        }
        tail.extend_from_slice(&buf[..n]);
        let body = tail.len().saturating_sub(4);
        hasher.update(&tail[..body]);
        tail.drain(..body);
    }
    Ok(tail.len() == 4 && *tail == hasher.finalize().to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEST: Format = Format {
        letters: b"C3GTST",
        version: 3,
        oldest: 2,
        what: "test",
    };

    fn body(r: &mut dyn Read, _: u64, v: u32) -> io::Result<(Vec<u8>, u32)> {
        let mut b = vec![0; 5];
        r.read_exact(&mut b)?;
        Ok((b, v))
    }

    #[test]
    fn every_failure_has_its_case() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.ck");
        assert!(matches!(
            TEST.load(&path, body),
            Err(CheckpointError::NotFound)
        ));
        TEST.save(&path, |w| w.write_all(b"hello")).unwrap();
        let good = std::fs::read(&path).unwrap();
        assert_eq!(&good[..8], b"C3GTST03");
        assert_eq!(TEST.load(&path, body).unwrap(), (b"hello".to_vec(), 3));
        let with = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            TEST.load(&path, body)
        };
        // The oldest version read is read; others are named.
        let mut old = good.clone();
        old[7] = b'2';
        assert_eq!(with(&old).unwrap().1, 2);
        for v in [b"01", b"04", b"99"] {
            let mut other = good.clone();
            other[6..8].copy_from_slice(v);
            let found = u32::from(v[0] - b'0') * 10 + u32::from(v[1] - b'0');
            assert!(
                matches!(with(&other), Err(CheckpointError::Version { expected: 3, found: f, .. }) if f == found)
            );
        }
        let mut foreign = good.clone();
        foreign[..6].copy_from_slice(b"CHOMP3");
        assert!(matches!(
            with(&foreign),
            Err(CheckpointError::NotThisFile(_))
        ));
        let mut letters = good.clone();
        letters[6] = b'x';
        assert!(matches!(
            with(&letters),
            Err(CheckpointError::NotThisFile(_))
        ));
        assert!(matches!(with(b""), Err(CheckpointError::Empty("test"))));
        for cut in [3, 7, 8, 10, good.len() - 1] {
            let e = with(&good[..cut]).unwrap_err();
            assert!(
                matches!(e, CheckpointError::Damaged { .. }),
                "cut at {cut}: {e}"
            );
        }
        let mut flipped = good.clone();
        flipped[9] ^= 1;
        let e = with(&flipped).unwrap_err();
        assert!(e.to_string().contains("checksum"), "{e}");
        let mut longer = good.clone();
        longer.push(0);
        let e = with(&longer).unwrap_err();
        assert!(e.to_string().contains("after its end"), "{e}");
    }
}
