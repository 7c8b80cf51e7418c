//! The bytes of a table file: header layout, commit slots, cell addressing and bit
//! packing. Every offset here is listed in `FORMAT.md`; nothing here opens files.

use crate::base::bytes::narrow;
use crate::base::bytes::{put, u32_at, u64_at};
use crate::f::table::TableError;

/// First 8 bytes of an `f` table file ([`Shape::Triangle`]).
pub(crate) const MAGIC: [u8; 8] = *b"CHOMP3TB";
/// First 8 bytes of a Grundy table file ([`Shape::Tetrahedron`]).
pub(crate) const MAGIC_GRUNDY: [u8; 8] = *b"CHOMP3GT";
/// First 8 bytes of an `f` table stored by rows ([`Shape::Rows`]).
pub(crate) const MAGIC_ROWS: [u8; 8] = *b"CHOMP3TR";

/// How a file's cells are laid out; its magic says which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `f(q,r)`, `r <= q`: column `q` holds `q + 1` cells (`.c3t`).
    Triangle,
    /// `G(p,q,r)`, `r <= q <= p`: slab `p` holds `(p+1)(p+2)/2` cells, in the
    /// order of `grundy::line(q, r)` (`.g3t`).
    Tetrahedron,
    /// `f(q,r)`, `r <= q <= N`, row after row: row `r` holds the `N - r + 1`
    /// cells `f(r..=N, r)`, so a row is one run of bytes; after the rows, the
    /// diagonal `f(0..=N, 0..=N)` once more as one run (a row's cells `q < r`
    /// are `f(q, q)`). Made whole from a table by `chomp3 transpose` (its
    /// capacity is its `N`; the unit of a commit is a row, then the
    /// diagonal); never extended.
    Rows,
}

impl Shape {
    /// The file's first 8 bytes.
    pub fn magic(self) -> [u8; 8] {
        match self {
            Shape::Triangle => MAGIC,
            Shape::Tetrahedron => MAGIC_GRUNDY,
            Shape::Rows => MAGIC_ROWS,
        }
    }

    /// Number of cells in columns (or slabs) `0 .. columns`. Panics for
    /// [`Shape::Rows`], whose rows' lengths depend on `N`: ask the
    /// [`Header`].
    pub fn cells(self, columns: u64) -> u64 {
        match self {
            Shape::Triangle => columns * (columns + 1) / 2,
            Shape::Tetrahedron => columns * (columns + 1) * (columns + 2) / 6,
            Shape::Rows => panic!("the cells of a table by rows depend on its N"),
        }
    }

    /// Bits needed per value up to `capacity`: `f(q,r) <= 2N + 1`, and
    /// `G(p,q,r) <= 3N` (a position has fewer than `p + q + r` options).
    pub(crate) fn bits_for_capacity(self, capacity: u64) -> u32 {
        match self {
            Shape::Triangle | Shape::Rows => bits_for_capacity(capacity),
            Shape::Tetrahedron => 64 - (3 * capacity).max(1).leading_zeros(),
        }
    }

    /// The largest capacity the format supports (values in 32 bits, bit
    /// offsets in 64).
    pub(crate) fn max_capacity(self) -> u64 {
        match self {
            Shape::Triangle | Shape::Rows => MAX_CAPACITY,
            Shape::Tetrahedron => 30_000,
        }
    }

    /// What the file holds, for messages.
    pub fn what(self) -> &'static str {
        match self {
            Shape::Triangle => "an f(q,r) table (.c3t)",
            Shape::Tetrahedron => "a Grundy table G(p,q,r) (.g3t)",
            Shape::Rows => {
                "an f(q,r) table stored by rows (made by chomp3 transpose; get, row, info, position and Python read it)"
            }
        }
    }

    /// The file's usual extension, for messages.
    pub fn extension(self) -> &'static str {
        match self {
            Shape::Triangle | Shape::Rows => ".c3t",
            Shape::Tetrahedron => ".g3t",
        }
    }

    /// What such a file is called, for messages.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Shape::Triangle => "table",
            Shape::Tetrahedron => "Grundy table",
            Shape::Rows => "table by rows",
        }
    }

    /// The command that creates and extends such a file, for messages.
    pub fn command(self) -> &'static str {
        match self {
            Shape::Triangle => "chomp3 compute",
            Shape::Tetrahedron => "chomp3 grundy-table",
            Shape::Rows => "chomp3 transpose",
        }
    }
}
/// The format version this build writes and reads (2: the block checksums).
pub(crate) const VERSION: u32 = 2;
/// Size of the header; the block checksums start here.
pub const HEADER_LEN: u64 = 4096;
/// Bytes of packed data per checked block: each full block has its CRC-32 in
/// the region after the header, so a read checks only the blocks it touches.
/// Small enough that a cell costs little to check (a row of `10^5` cells
/// checks `10^5` blocks, 400 MB), large enough that the region is 1/1024 of
/// the data.
pub const BLOCK_BYTES: u64 = 4096;
/// Byte offsets of the two commit slots inside the header.
pub(crate) const SLOT_OFFSETS: [usize; 2] = [64, 128];
/// Size of one commit slot.
pub(crate) const SLOT_LEN: usize = 64;

/// The fixed part of the header, written once when the file is created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The cells' layout (from the magic).
    pub shape: Shape,
    /// Bits per stored value.
    pub bits: u32,
    /// Largest `N` the file may be extended to.
    pub capacity: u64,
}

/// One commit record: how many columns are safely on disk, with their checksum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Commit {
    /// Increases by one with every commit; the valid slot with the larger one wins.
    pub sequence: u64,
    /// Complete columns `0 .. columns` (the table covers `N = columns - 1`).
    pub columns: u64,
    /// CRC-32 of the data bytes that are complete, `[0, data_bits / 8)`.
    pub crc: u32,
    /// The last, partly filled data byte (0 when `data_bits` is a multiple of 8).
    pub tail: u8,
    /// CRC-32 of the complete data bytes of the last block that is not full,
    /// `[BLOCK_BYTES * floor(complete / BLOCK_BYTES), complete)`.
    pub block_crc: u32,
}

/// Bits needed per value for tables up to `capacity` (values are at most `2N + 1`).
pub(crate) fn bits_for_capacity(capacity: u64) -> u32 {
    64 - (2 * capacity + 1).leading_zeros()
}

/// Largest capacity of an `f` table: its packed data (and so the block
/// checksums sized for it) must stay within 2^44 bytes, the largest file of
/// ext4 (`3*10^6` columns: 4.5*10^12 cells of 23 bits, 1.3*10^13 bytes).
pub(crate) const MAX_CAPACITY: u64 = 3_000_000;

/// Number of cells in columns `0 .. columns` of an `f` table (the triangle `r <= q`).
pub fn cells(columns: u64) -> u64 {
    Shape::Triangle.cells(columns)
}

/// File size of an `f` table of this capacity with `columns` complete columns.
pub fn file_len(columns: u64, capacity: u64) -> u64 {
    Header {
        shape: Shape::Triangle,
        bits: bits_for_capacity(capacity),
        capacity,
    }
    .file_len(columns)
}

/// Number of cells in rows `0 .. rows` of a table by rows of largest column
/// `n`: row `s` holds `n - s + 1` cells, so `rows (n + 1) - rows (rows - 1) / 2`.
pub(crate) fn rows_cells(n: u64, rows: u64) -> u64 {
    debug_assert!(rows <= n + 1);
    rows * (n + 1) - rows * rows.saturating_sub(1) / 2
}

/// The units of a complete table by rows of largest column `n`: its `n + 1`
/// rows and the diagonal's run.
pub(crate) fn rows_units(n: u64) -> u64 {
    n + 2
}

impl Header {
    /// Number of cells in units (columns, slabs, or for [`Shape::Rows`]
    /// rows) `0 .. units`.
    pub fn cells(&self, units: u64) -> u64 {
        match self.shape {
            Shape::Rows => {
                let rows = units.min(self.capacity + 1);
                let diagonal = if units > rows { self.capacity + 1 } else { 0 };
                rows_cells(self.capacity, rows) + diagonal
            }
            shape => shape.cells(units),
        }
    }

    /// Bits of packed data for `columns` complete columns (or slabs, or rows).
    pub(crate) fn data_bits(&self, columns: u64) -> u64 {
        self.cells(columns) * self.bits as u64
    }

    /// Units (columns, slabs, or rows and the diagonal) of a full table.
    pub(crate) fn full_units(&self) -> u64 {
        match self.shape {
            Shape::Rows => rows_units(self.capacity),
            _ => self.capacity + 1,
        }
    }

    /// Blocks of [`BLOCK_BYTES`] that the data of a full table spans.
    pub fn blocks(&self) -> u64 {
        self.data_bits(self.full_units())
            .div_ceil(8)
            .div_ceil(BLOCK_BYTES)
    }

    /// Where the packed data starts: after the header and one CRC-32 per
    /// block of a full table, rounded up to a page.
    pub(crate) fn data_offset(&self) -> u64 {
        HEADER_LEN + (4 * self.blocks()).next_multiple_of(4096)
    }

    /// File size for `columns` complete columns (or slabs).
    pub fn file_len(&self, columns: u64) -> u64 {
        self.data_offset() + self.data_bits(columns).div_ceil(8)
    }

    /// The most bytes a file of `units` complete units takes on disk: the
    /// header, the pages of the block checksums its data has written (the
    /// rest of that region, sized for a full table, is a hole: the file is
    /// made with `set_len`), and its data, each in whole pages. What a new
    /// table, or a table extended, needs of the disk.
    pub(crate) fn disk_len(&self, units: u64) -> u64 {
        let data = self.data_bits(units).div_ceil(8);
        let checksums = 4 * data.div_ceil(BLOCK_BYTES);
        HEADER_LEN + checksums.next_multiple_of(4096) + data.next_multiple_of(4096)
    }

    /// The bits of the partly filled last data byte that `columns` complete
    /// columns own (its low `data_bits % 8` bits). The rest of that byte
    /// belongs to the next column: an append not yet committed (of a writer
    /// still running, or killed) sets them, so a reader compares the byte
    /// with the commit's tail through this mask, never whole.
    pub(crate) fn tail_mask(&self, columns: u64) -> u8 {
        let used = self.data_bits(columns) % 8;
        // `used < 8`, so the mask fits a byte.
        #[allow(clippy::cast_possible_truncation)]
        let mask = ((1u16 << used) - 1) as u8;
        mask
    }
}

impl Header {
    /// The header bytes of a new file (both commit slots empty but for slot 0,
    /// which records zero columns).
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut h = vec![0u8; narrow::<usize, _>(HEADER_LEN)];
        put(&mut h, 0, &self.shape.magic());
        put(&mut h, 8, &VERSION.to_le_bytes());
        put(&mut h, 12, &self.bits.to_le_bytes());
        put(&mut h, 16, &self.capacity.to_le_bytes());
        put(&mut h, 24, &self.data_offset().to_le_bytes());
        let crc = crc32fast::hash(&h[0..32]);
        put(&mut h, 32, &crc.to_le_bytes());
        let first = Commit {
            sequence: 1,
            ..Commit::default()
        };
        put(&mut h, SLOT_OFFSETS[0], &first.encode());
        h
    }

    /// Reads and checks the header; returns it with the newest valid commit.
    pub fn decode(h: &[u8]) -> Result<(Header, Commit), TableError> {
        let shape = match h.get(0..8) {
            _ if h.len() < narrow::<usize, _>(HEADER_LEN) => return Err(TableError::NotThisFile),
            Some(m) if m == MAGIC => Shape::Triangle,
            Some(m) if m == MAGIC_GRUNDY => Shape::Tetrahedron,
            Some(m) if m == MAGIC_ROWS => Shape::Rows,
            _ => return Err(TableError::NotThisFile),
        };
        let version = u32_at(h, 8);
        if version != VERSION {
            return Err(TableError::Version {
                expected: VERSION,
                found: version,
            });
        }
        if crc32fast::hash(&h[0..32]) != u32_at(h, 32) {
            return Err(TableError::CorruptHeader("header checksum does not match"));
        }
        let header = Header {
            shape,
            bits: u32_at(h, 12),
            capacity: u64_at(h, 16),
        };
        if header.capacity > shape.max_capacity()
            || header.bits != shape.bits_for_capacity(header.capacity)
            || u64_at(h, 24) != header.data_offset()
        {
            return Err(TableError::CorruptHeader("inconsistent header fields"));
        }
        let commit = SLOT_OFFSETS
            .iter()
            .filter_map(|&o| Commit::decode(&h[o..o + SLOT_LEN]))
            .max_by_key(|c| c.sequence)
            .ok_or(TableError::CorruptHeader("no valid commit record"))?;
        if commit.columns > header.full_units() {
            return Err(TableError::CorruptHeader("more columns than the capacity"));
        }
        Ok((header, commit))
    }
}

/// The commit slot (0 or 1) of the header `h` that was written (not all
/// zero) and does not pass its checksum, if any: a commit cut short by a
/// crash, until the next commit writes that slot again, or damage. Readers
/// take the other slot's commit (FORMAT.md); this lets them say so.
pub fn unreadable_slot(h: &[u8]) -> Option<usize> {
    SLOT_OFFSETS.iter().position(|&o| {
        let slot = &h[o..o + SLOT_LEN];
        slot.iter().any(|&b| b != 0) && Commit::decode(slot).is_none()
    })
}

impl Commit {
    /// The 64 bytes of a commit slot.
    pub(crate) fn encode(&self) -> [u8; SLOT_LEN] {
        let mut s = [0u8; SLOT_LEN];
        put(&mut s, 0, &self.sequence.to_le_bytes());
        put(&mut s, 8, &self.columns.to_le_bytes());
        put(&mut s, 16, &self.crc.to_le_bytes());
        s[20] = self.tail;
        put(&mut s, 21, &self.block_crc.to_le_bytes());
        let crc = crc32fast::hash(&s[0..60]);
        put(&mut s, 60, &crc.to_le_bytes());
        s
    }

    /// A slot's commit, or `None` if it was never written or is torn.
    pub fn decode(s: &[u8]) -> Option<Commit> {
        let c = Commit {
            sequence: u64_at(s, 0),
            columns: u64_at(s, 8),
            crc: u32_at(s, 16),
            tail: s[20],
            block_crc: u32_at(s, 21),
        };
        (c.sequence != 0 && crc32fast::hash(&s[0..60]) == u32_at(s, 60)).then_some(c)
    }
}

/// Values packed `bits` wide into a little-endian bit stream, as a run of bytes
/// that starts at data byte `start_byte`. The first byte's low bits that belong to
/// earlier values are zero; the last byte may be partly filled.
#[derive(Debug)]
pub(crate) struct Packed {
    /// Data byte offset of `bytes[0]`.
    pub start_byte: u64,
    /// Bit offset, inside `bytes[0]`, of the first value.
    pub start_bit: u32,
    /// Bit offset just past the last value, from the start of the data.
    pub end_bit: u64,
    /// The packed bytes.
    pub bytes: Vec<u8>,
}

/// Packs `values`, the cells from index `first_cell` on, `bits` wide.
pub(crate) fn pack<'a>(
    bits: u32,
    first_cell: u64,
    values: impl IntoIterator<Item = &'a [u32]>,
) -> Packed {
    let first_bit = first_cell * bits as u64;
    let mut bytes = Vec::new();
    let mut acc: u64 = 0;
    let mut filled = (first_bit % 8) as u32;
    let mut count = 0u64;
    for run in values {
        count += run.len() as u64;
        for &v in run {
            debug_assert!(
                bits == 32 || v >> bits == 0,
                "value {v} wider than {bits} bits"
            );
            acc |= (v as u64) << filled;
            filled += bits;
            if filled >= 32 {
                // The low 32 bits of the accumulator, by design.
                bytes.extend_from_slice(&acc.to_le_bytes()[..4]);
                acc >>= 32;
                filled -= 32;
            }
        }
    }
    bytes.extend_from_slice(&acc.to_le_bytes()[..filled.div_ceil(8) as usize]);
    Packed {
        start_byte: first_bit / 8,
        start_bit: (first_bit % 8) as u32,
        end_bit: first_bit + count * bits as u64,
        bytes,
    }
}

/// Reads value number `cell` from packed `data` (`bits` wide).
#[inline]
pub(crate) fn unpack(data: &[u8], bits: u32, cell: u64) -> u32 {
    unpack_bit(data, cell * u64::from(bits), bits)
}

/// The `bits`-bit value that starts at bit `bit` of `data`.
pub(crate) fn unpack_bit(data: &[u8], bit: u64, bits: u32) -> u32 {
    let byte = (bit / 8) as usize;
    let word = match data.get(byte..byte + 8) {
        Some(b) => u64::from_le_bytes(b.try_into().unwrap()),
        None => {
            let mut b = [0u8; 8];
            let avail = &data[byte..data.len().min(byte + 8)];
            b[..avail.len()].copy_from_slice(avail);
            u64::from_le_bytes(b)
        }
    };
    // Masked to `bits <= 32` bits (unchecked: every value read goes here).
    #[allow(clippy::cast_possible_truncation)]
    let value = ((word >> (bit % 8)) & ((1u64 << bits) - 1)) as u32;
    value
}

#[cfg(test)]
// Test data: small numbers made by the tests themselves.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]
mod tests {
    use super::*;

    #[test]
    fn pack_then_unpack_round_trips_at_any_offset() {
        for bits in [1u32, 7, 13, 18, 31, 32] {
            let mask = if bits == 32 {
                u32::MAX
            } else {
                (1 << bits) - 1
            };
            let values: Vec<u32> = (0..200u32)
                .map(|i| i.wrapping_mul(2654435761) & mask)
                .collect();
            for first in [0u64, 1, 3, 8, 77] {
                let p = pack(bits, first, [&values[..50], &values[50..]]);
                let mut data = vec![0u8; p.start_byte as usize];
                data.extend_from_slice(&p.bytes);
                for (i, &v) in values.iter().enumerate() {
                    assert_eq!(
                        unpack(&data, bits, first + i as u64),
                        v,
                        "bits {bits} first {first} i {i}"
                    );
                }
                assert_eq!(p.end_bit, (first + 200) * bits as u64);
                assert_eq!(data.len() as u64, p.end_bit.div_ceil(8));
            }
        }
    }

    #[test]
    fn header_round_trips_and_rejects_damage() {
        let header = Header {
            shape: Shape::Triangle,
            bits: 18,
            capacity: 100_000,
        };
        let mut h = header.encode();
        let (got, commit) = Header::decode(&h).unwrap();
        assert_eq!(got, header);
        assert_eq!(commit.columns, 0);
        h[13] ^= 1;
        assert!(matches!(
            Header::decode(&h),
            Err(TableError::CorruptHeader(_))
        ));
        h[0] = b'X';
        assert!(matches!(Header::decode(&h), Err(TableError::NotThisFile)));
    }

    #[test]
    fn rows_hold_the_triangle_row_after_row() {
        for n in [0u64, 1, 2, 7, 100] {
            let mut total = 0;
            for rows in 0..=n + 1 {
                assert_eq!(rows_cells(n, rows), total, "n = {n}, rows = {rows}");
                total += n + 1 - rows.min(n);
            }
            assert_eq!(rows_cells(n, n + 1), Shape::Triangle.cells(n + 1));
        }
    }

    #[test]
    fn bits_cover_the_largest_value() {
        assert_eq!(bits_for_capacity(100_000), 18);
        assert_eq!(bits_for_capacity(131_071), 18);
        assert_eq!(bits_for_capacity(131_072), 19);
        assert_eq!(bits_for_capacity(0), 1);
    }
}
