//! The bytes of a census descriptor file (`.c3d`): header, one fixed record per
//! row, the pattern pool, the facts of columns `0 ..= N` (version 2), and the
//! closing checksum. Every offset here is listed in `FORMAT.md` (a test checks
//! them); nothing here opens files.

use super::DescriptorError;
use crate::base::bytes::narrow;
use crate::base::bytes::{i32_at, put, u32_at, u64_at};
use crate::f::facts::ColumnFacts;
use crate::f::proof::{Fate, Known, RowStatus};

/// First 8 bytes of every descriptor file.
pub(crate) const MAGIC: [u8; 8] = *b"CHOMP3DS";
/// The format version this build writes (it also reads version 1, which has no
/// facts section).
pub(crate) const VERSION: u32 = 2;
/// Size of the header; the records start here.
pub const HEADER: usize = 32;
/// Size of one row's record.
pub const RECORD: usize = 32;

/// Record class byte: open, constant, periodic.
const OPEN: u8 = 0;
const CONSTANT: u8 = 1;
const PERIODIC: u8 = 2;

/// "None" in the facts section's `u32` fields.
const NONE: u32 = u32::MAX;

/// The header fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version (1 or 2).
    pub version: u32,
    /// Rows described, `0 .. rows`.
    pub rows: u32,
    /// Columns the census computed.
    pub columns: u64,
    /// Entries in the pattern pool.
    pub pool: u64,
    /// Version 2: the facts cover columns `0 ..= facts_n`.
    pub facts_n: Option<u32>,
}

impl Header {
    /// Offset of the pattern pool.
    fn pool_offset(&self) -> usize {
        HEADER + RECORD * self.rows as usize
    }

    /// Offset of the facts section (version 2).
    fn facts_offset(&self) -> usize {
        self.pool_offset() + 4 * narrow::<usize, _>(self.pool)
    }

    /// The last column of the facts, if the census computed it: a census
    /// stopped before its first column wrote the facts of column 0 without
    /// having computed it, and those say nothing.
    pub(crate) fn facts_whole(&self) -> Option<u32> {
        self.facts_n.filter(|&n| u64::from(n) < self.columns)
    }

    /// The file's length.
    pub fn file_len(&self) -> usize {
        let at = facts_at(self.rows, self.pool).expect("a header's sections fit in memory");
        narrow::<usize, _>(length(at, self.facts_n).expect("as `facts_at`"))
    }
}

/// Offset of the facts section (version 1: of the checksum) for a header of
/// `rows` rows and a pool of `pool` entries; `None` past any length.
fn facts_at(rows: u32, pool: u64) -> Option<u64> {
    u64::from(rows)
        .checked_mul(RECORD as u64)?
        .checked_add(pool.checked_mul(4)?)?
        .checked_add(HEADER as u64)
}

/// The length of a file whose facts (or checksum) start at `facts_at`, the
/// facts covering columns `0 ..= n` (`None`: version 1, no facts).
fn length(facts_at: u64, n: Option<u32>) -> Option<u64> {
    let facts = n.map_or(0, |n| 8 + 12 * (u64::from(n) + 1));
    facts_at.checked_add(facts)?.checked_add(4)
}

/// The largest last column of the facts a census of `rows` rows after
/// `columns` columns writes: `N = min(rows - 1, columns - 1)` (FORMAT.md;
/// 0 where no column was computed). `None` for a census of no rows, which
/// no census is.
fn most_facts(rows: u32, columns: u64) -> Option<u32> {
    let last = u64::from(rows.checked_sub(1)?).min(columns.saturating_sub(1));
    Some(narrow::<u32, _>(last))
}

/// A periodic row's pattern (empty for other rows).
fn pattern(s: &Option<RowStatus>) -> &[i32] {
    match s.as_ref().map(|s| &s.fate) {
        Some(Fate::Periodic { pattern, .. }) => pattern,
        _ => &[],
    }
}

/// The whole file for `rows` (each row's status, `None` if open), the rows whose
/// start is only an upper bound, the facts, and the columns the census computed.
pub(crate) fn encode(
    rows: &[Option<RowStatus>],
    start_bounds: &[u32],
    facts: &ColumnFacts,
    columns: u64,
) -> Vec<u8> {
    let header = Header {
        version: VERSION,
        rows: narrow::<u32, _>(rows.len()),
        columns,
        pool: rows.iter().map(|s| pattern(s).len() as u64).sum(),
        facts_n: Some(facts.n),
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
                Fate::Constant { start } => (CONSTANT, u64::from(start), 0),
                Fate::Periodic { start, .. } => {
                    (PERIODIC, u64::from(start), s.known.closed_at().unwrap_or(0))
                }
            },
        };
        let pat = pattern(status);
        b[at] = class;
        put(&mut b, at + 4, &narrow::<u32, _>(pat.len()).to_le_bytes());
        put(&mut b, at + 8, &start.to_le_bytes());
        put(&mut b, at + 16, &index.to_le_bytes());
        put(&mut b, at + 24, &closed_at.to_le_bytes());
        for (i, &x) in pat.iter().enumerate() {
            let p = header.pool_offset() + 4 * (narrow::<usize, _>(index) + i);
            put(&mut b, p, &x.to_le_bytes());
        }
        index += pat.len() as u64;
    }
    for &r in start_bounds {
        b[HEADER + RECORD * r as usize + 1] = 1;
    }
    encode_facts(&mut b[header.facts_offset()..], facts);
    let body = b.len() - 4;
    let crc = crc32fast::hash(&b[..body]);
    put(&mut b, body, &crc.to_le_bytes());
    b
}

/// Writes the facts section: `N`, the first column whose maximum is not on the
/// diagonal, then `N + 1` each of `f(n,n)`, P-position counts and row minima.
fn encode_facts(b: &mut [u8], facts: &ColumnFacts) {
    let n = facts.n as usize;
    put(b, 0, &facts.n.to_le_bytes());
    put(b, 4, &facts.diagonal_not_max.unwrap_or(NONE).to_le_bytes());
    for i in 0..=n {
        let p = u32::try_from(facts.p_count[i]).expect("p_count[v] <= v + 1");
        put(b, 8 + 4 * i, &facts.diagonal[i].to_le_bytes());
        put(b, 8 + 4 * (n + 1 + i), &p.to_le_bytes());
        put(b, 8 + 4 * (2 * n + 2 + i), &facts.row_min[i].to_le_bytes());
    }
}

/// The facts of a checked version-2 file; the starts come from the rows.
pub(crate) fn decode_facts(b: &[u8], header: &Header) -> Option<ColumnFacts> {
    let n = header.facts_whole()? as usize;
    let at = header.facts_offset();
    let field = |k: usize, i: usize| u32_at(b, at + 8 + 4 * (k * (n + 1) + i));
    let mut starts: Vec<(u32, u32)> = (0..header.rows)
        .filter_map(|r| match decode_row(b, header, r)?.fate {
            Fate::Constant { start } if start <= narrow::<u32, _>(n) => Some((start, r)),
            _ => None,
        })
        .collect();
    starts.sort_unstable();
    Some(ColumnFacts {
        n: narrow::<u32, _>(n),
        diagonal: (0..=n).map(|i| field(0, i)).collect(),
        starts,
        p_count: (0..=n).map(|i| field(1, i) as u64).collect(),
        value_count: Vec::new(),
        row_min: (0..=n).map(|i| field(2, i)).collect(),
        row_min_complete: true,
        diagonal_not_max: Some(u32_at(b, at + 4)).filter(|&q| q != NONE),
    })
}

/// `f(q,q)` from the facts of a checked version-2 file, if `q <= N` there.
pub fn diagonal(b: &[u8], header: &Header, q: u64) -> Option<u32> {
    let n = u64::from(header.facts_whole()?);
    (q <= n).then(|| u32_at(b, header.facts_offset() + 8 + 4 * narrow::<usize, _>(q)))
}

/// Whether row `r`'s start is only an upper bound (record byte 1).
pub fn start_is_bound(b: &[u8], r: u32) -> bool {
    b[HEADER + RECORD * r as usize + 1] == 1
}

/// How long a descriptor file says it is, from its first [`HEADER`] + 4
/// bytes.
pub(crate) enum Claim {
    /// The whole file's length (version 1).
    Len(u64),
    /// Version 2: the length the facts' last column gives, the u32 at
    /// `facts_at`, which may be no more than `most` (the header's rows and
    /// columns bound it: [`facts_claim`]).
    Facts {
        /// Where the facts section starts.
        facts_at: u64,
        /// The largest last column of facts this header allows.
        most: u32,
    },
    /// These bytes are no descriptor file's start, or claim a length past
    /// any number ([`decode_header`] says which).
    Unknown,
}

/// The length the header at the start of `b` gives the file (that of
/// [`Header::file_len`]), so that a reader takes no more than that, and
/// takes no room before it knows the file holds that much.
pub(crate) fn claimed_len(b: &[u8]) -> Claim {
    if b.len() < HEADER + 4 || !b.starts_with(&MAGIC) {
        return Claim::Unknown;
    }
    let (version, rows, columns) = (u32_at(b, 8), u32_at(b, 12), u64_at(b, 16));
    let Some(at) = facts_at(rows, u64_at(b, 24)) else {
        return Claim::Unknown;
    };
    match (version, most_facts(rows, columns)) {
        (1, _) => length(at, None).map_or(Claim::Unknown, Claim::Len),
        (VERSION, Some(most)) if length(at, Some(most)).is_some() => {
            Claim::Facts { facts_at: at, most }
        }
        _ => Claim::Unknown,
    }
}

/// A version 2 file's length from its facts' last column `n`, read at
/// `facts_at` ([`Claim::Facts`]); `None` where `n` passes what the header
/// allows (the file is damaged).
pub(crate) fn facts_claim(facts_at: u64, most: u32, n: u32) -> Option<u64> {
    (n <= most).then(|| length(facts_at, Some(n))).flatten()
}

/// Checks magic, version, length and checksum; returns the header.
pub(crate) fn decode_header(b: &[u8]) -> Result<Header, DescriptorError> {
    // Fewer bytes than the header asks for, from `at_least`.
    let cut = |at_least: usize| DescriptorError::Truncated {
        found: b.len() as u64,
        at_least: at_least as u64,
    };
    if b.is_empty() {
        return Err(DescriptorError::Empty);
    }
    if !(b.starts_with(&MAGIC) || MAGIC.starts_with(b)) {
        return Err(DescriptorError::NotThisFile);
    }
    if b.len() < HEADER + 4 {
        return Err(cut(HEADER + 4));
    }
    let version = u32_at(b, 8);
    if version != 1 && version != VERSION {
        return Err(DescriptorError::Version {
            expected: VERSION,
            found: version,
        });
    }
    // Every census has a row (rows `0 ..= R`): a header of none is damage,
    // however long the file.
    if version == VERSION && u32_at(b, 12) == 0 {
        return Err(DescriptorError::Damaged);
    }
    let mut header = Header {
        version,
        rows: u32_at(b, 12),
        columns: u64_at(b, 16),
        pool: u64_at(b, 24),
        facts_n: None,
    };
    let body = b.len() - 4;
    let damaged = || DescriptorError::Damaged;
    let facts_at = facts_at(header.rows, header.pool)
        .and_then(|at| usize::try_from(at).ok())
        .ok_or_else(damaged)?;
    if facts_at > body {
        return Err(cut(facts_at + 4));
    }
    if version == 2 {
        if facts_at + 8 > body {
            return Err(cut(facts_at + 12));
        }
        let n = u32_at(b, facts_at);
        // Facts of columns the header's rows and columns do not allow.
        if most_facts(header.rows, header.columns).is_none_or(|most| n > most) {
            return Err(DescriptorError::Damaged);
        }
        header.facts_n = Some(n);
    }
    if header.file_len() > b.len() {
        return Err(cut(header.file_len()));
    }
    if header.file_len() != b.len() || crc32fast::hash(&b[..body]) != u32_at(b, body) {
        return Err(DescriptorError::Damaged);
    }
    check_records(b, &header)?;
    Ok(header)
}

/// Checks every record against the layout the writer gives them (FORMAT.md):
/// a class of the three, zero padding, a start that fits a `u32`; a periodic
/// row's period at least 1, a flag of 0 or 1 (only a periodic row's start
/// can be a bound), and its patterns laid end to end in the pool from index
/// 0, filling it; the other rows' fields zero but the running index.
///
/// And against the census's own header: a constant row died at a column the
/// census computed (`start < columns`); a periodic row's certificate closed
/// at a column it computed, at least a period past the start
/// (`start + period <= closed_at <= columns`: the census proves a row
/// `k`-periodic from a column `qs` on comparing its states at `qs` and
/// `qs + k`, and closes the certificate at `qs + k`; the least period
/// divides `k` and the start is at most `qs`, `census::tracker`). A checksum that holds says the bytes are as written, not
/// that a program wrote them so: a file made or mended by other means is
/// refused here, where otherwise a period of 0 or a pattern past the pool
/// would be read from it.
///
/// The values are held to the game's bounds too (doc/chomp.md section 2,
/// the rule of `f::engine`): a row `r` dies at a column `s > r` (never at its
/// birth), so a constant row's start is past `r`; a periodic row is live, so
/// `q < f(q,r) <= q + r + 1` and each value of its pattern lies in
/// `1 ..= r + 1`, from a start `>= r`; the facts' diagonal has
/// `i < f(i,i) <= 2 i + 1`, at most `i + 1` P-positions of first row `i`, and
/// a row's least value at least 1. A value outside them cannot be the
/// census's, and is not answered from.
fn check_records(b: &[u8], header: &Header) -> Result<(), DescriptorError> {
    let mut index = 0u64;
    for r in 0..header.rows as usize {
        let at = HEADER + RECORD * r;
        let (class, flag) = (b[at], b[at + 1]);
        let period = u64::from(u32_at(b, at + 4));
        let (start, closed_at) = (u64_at(b, at + 8), u64_at(b, at + 24));
        let r64 = r as u64;
        let columns = header.columns;
        let laid = b[at + 2] == 0
            && b[at + 3] == 0
            && start <= u64::from(u32::MAX)
            && u64_at(b, at + 16) == index
            && match class {
                OPEN => flag == 0 && period == 0 && start == 0 && closed_at == 0,
                CONSTANT => {
                    flag == 0 && period == 0 && closed_at == 0 && r64 < start && start < columns
                }
                PERIODIC => {
                    flag <= 1
                        && period >= 1
                        && start >= r64
                        && start + period <= closed_at
                        && closed_at <= columns
                }
                _ => false,
            };
        if !laid {
            return Err(DescriptorError::Damaged);
        }
        if class == PERIODIC {
            // Inside the pool: the running index and the sum checked below.
            let pool = header.pool_offset() + 4 * narrow::<usize, _>(index);
            let end = pool + 4 * narrow::<usize, _>(period);
            if end > header.facts_offset() {
                return Err(DescriptorError::Damaged);
            }
            let most = i64::try_from(r64 + 1).unwrap_or(i64::MAX);
            let within = (pool..end)
                .step_by(4)
                .all(|p| (1..=most).contains(&i64::from(i32_at(b, p))));
            if !within {
                return Err(DescriptorError::Damaged);
            }
        }
        index += period;
    }
    if index != header.pool {
        return Err(DescriptorError::Damaged);
    }
    // Facts of no computed column (a census stopped before its first) say
    // nothing, and are not read.
    if let Some(n) = header.facts_whole() {
        let at = header.facts_offset();
        let field =
            |k: usize, i: usize| u64::from(u32_at(b, at + 8 + 4 * (k * (n as usize + 1) + i)));
        let within = (0..=n as usize).all(|i| {
            let q = i as u64;
            let (diagonal, p_count, row_min) = (field(0, i), field(1, i), field(2, i));
            (q + 1..=2 * q + 1).contains(&diagonal) && p_count <= q + 1 && row_min >= 1
        });
        let not_max = u32_at(b, at + 4);
        if !within || (not_max != NONE && not_max > n) {
            return Err(DescriptorError::Damaged);
        }
    }
    Ok(())
}

/// Row `r`'s status from a checked file (`r < header.rows`).
pub(crate) fn decode_row(b: &[u8], header: &Header, r: u32) -> Option<RowStatus> {
    let at = HEADER + RECORD * r as usize;
    let period = u32_at(b, at + 4) as usize;
    // Checked when the file was opened (`check_records`): a start that fits
    // a `u32`, a pattern inside the pool.
    let start = u32::try_from(u64_at(b, at + 8)).ok()?;
    let index = narrow::<usize, _>(u64_at(b, at + 16));
    let closed_at = u64_at(b, at + 24);
    match b[at] {
        CONSTANT => Some(RowStatus::died(start)),
        PERIODIC => {
            let pool = header.pool_offset() + 4 * index;
            let pattern = (0..period).map(|i| i32_at(b, pool + 4 * i)).collect();
            Some(RowStatus {
                fate: Fate::Periodic { start, pattern },
                known: Known::Certificate { closed_at },
            })
        }
        _ => None,
    }
}
