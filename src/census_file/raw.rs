//! The bytes of a census descriptor file (`.c3d`): header, one fixed record per
//! row, the pattern pool, and the closing checksum. Every offset here is listed in
//! `FORMAT.md` (a test checks them); nothing here opens files.

use super::DescriptorError;
use crate::bytes::{i32_at, put, u32_at, u64_at};
use crate::proof::{Fate, Known, RowStatus};

/// First 8 bytes of every descriptor file.
pub const MAGIC: [u8; 8] = *b"CHOMP3DS";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// Size of the header; the records start here.
pub const HEADER: usize = 32;
/// Size of one row's record.
pub const RECORD: usize = 32;

/// Record class byte: open, constant, periodic.
const OPEN: u8 = 0;
const CONSTANT: u8 = 1;
const PERIODIC: u8 = 2;

/// The header fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Rows described, `0 .. rows`.
    pub rows: u32,
    /// Columns the census computed.
    pub columns: u64,
    /// Entries in the pattern pool.
    pub pool: u64,
}

impl Header {
    /// Offset of the pattern pool.
    fn pool_offset(&self) -> usize {
        HEADER + RECORD * self.rows as usize
    }

    /// The file's length.
    pub fn file_len(&self) -> usize {
        self.pool_offset() + 4 * self.pool as usize + 4
    }
}

/// A periodic row's pattern (empty for other rows).
fn pattern(s: &Option<RowStatus>) -> &[i64] {
    match s.as_ref().map(|s| &s.fate) {
        Some(Fate::Periodic { pattern, .. }) => pattern,
        _ => &[],
    }
}

/// The whole file for `rows` (each row's status, `None` if open) and the columns
/// the census computed.
pub fn encode(rows: &[Option<RowStatus>], columns: u64) -> Vec<u8> {
    let header = Header {
        rows: rows.len() as u32,
        columns,
        pool: rows.iter().map(|s| pattern(s).len() as u64).sum(),
    };
    let mut b = vec![0u8; header.file_len()];
    put(&mut b, 0, &MAGIC);
    put(&mut b, 8, &VERSION.to_le_bytes());
    put(&mut b, 12, &header.rows.to_le_bytes());
    put(&mut b, 16, &header.columns.to_le_bytes());
    put(&mut b, 24, &header.pool.to_le_bytes());
    let mut index = 0u64;
    for (r, status) in rows.iter().enumerate() {
        let at = HEADER + RECORD * r;
        let (class, start, closed_at) = match status {
            None => (OPEN, 0, 0),
            Some(s) => match s.fate {
                Fate::Constant { start } => (CONSTANT, start, 0),
                Fate::Periodic { start, .. } => (PERIODIC, start, s.known.closed_at().unwrap_or(0)),
            },
        };
        let pat = pattern(status);
        b[at] = class;
        put(&mut b, at + 4, &(pat.len() as u32).to_le_bytes());
        put(&mut b, at + 8, &start.to_le_bytes());
        put(&mut b, at + 16, &index.to_le_bytes());
        put(&mut b, at + 24, &closed_at.to_le_bytes());
        for (i, &x) in pat.iter().enumerate() {
            let p = header.pool_offset() + 4 * (index as usize + i);
            put(&mut b, p, &(x as i32).to_le_bytes());
        }
        index += pat.len() as u64;
    }
    let body = b.len() - 4;
    let crc = crc32fast::hash(&b[..body]);
    put(&mut b, body, &crc.to_le_bytes());
    b
}

/// Checks magic, version, length and checksum; returns the header.
pub fn decode_header(b: &[u8]) -> Result<Header, DescriptorError> {
    if b.len() < HEADER + 4 || b[..8] != MAGIC {
        return Err(DescriptorError::NotDescriptors);
    }
    let version = u32_at(b, 8);
    if version != VERSION {
        return Err(DescriptorError::VersionMismatch {
            expected: VERSION,
            found: version,
        });
    }
    let header = Header {
        rows: u32_at(b, 12),
        columns: u64_at(b, 16),
        pool: u64_at(b, 24),
    };
    let body = b.len() - 4;
    let length_ok = (header.pool as usize)
        .checked_mul(4)
        .and_then(|p| p.checked_add(HEADER + RECORD * header.rows as usize + 4))
        == Some(b.len());
    if !length_ok || crc32fast::hash(&b[..body]) != u32_at(b, body) {
        return Err(DescriptorError::Damaged);
    }
    Ok(header)
}

/// Row `r`'s status from a checked file (`r < header.rows`).
pub fn decode_row(b: &[u8], header: &Header, r: u32) -> Option<RowStatus> {
    let at = HEADER + RECORD * r as usize;
    let period = u32_at(b, at + 4) as usize;
    let start = u64_at(b, at + 8);
    let index = u64_at(b, at + 16) as usize;
    let closed_at = u64_at(b, at + 24);
    match b[at] {
        CONSTANT => Some(RowStatus::died(start)),
        PERIODIC => {
            let pool = header.pool_offset() + 4 * index;
            let pattern = (0..period)
                .map(|i| i32_at(b, pool + 4 * i) as i64)
                .collect();
            Some(RowStatus {
                fate: Fate::Periodic { start, pattern },
                known: Known::Certificate { closed_at },
            })
        }
        _ => None,
    }
}
