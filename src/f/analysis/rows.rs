//! The row pass: classifies every row as constant (proved by the recurrence's own
//! rule), periodic (proved by a certificate, or only seen repeating), or open.
//! Rows are read in blocks, a bounded number of values in memory at a time.

use crate::base::bytes::narrow;
use rayon::prelude::*;

use super::period::periodic_tail;
use crate::f::facts::ColumnFacts;
use crate::f::proof::{Below, Fate, Known, RowStatus, certify};
use crate::f::table::{Table, TableError};

/// Memory for one block of rows' values (bytes).
const BLOCK_BYTES: usize = 512 << 20;

/// Classifies rows `0 ..= N`: each row's status (`None`: no period repeats three
/// times inside the table). Returns them and the first row that is not resolved
/// (neither constant nor proved periodic): every row below it is settled.
pub(crate) fn classify(
    t: &Table,
    facts: &ColumnFacts,
    mut progress: impl FnMut(u32),
) -> Result<(Vec<Option<RowStatus>>, u32), TableError> {
    let n = facts.n;
    let mut rows = vec![None; n as usize + 1];
    for &(q, r) in &facts.starts {
        rows[r as usize] = Some(RowStatus::died(q));
    }
    let mut below = Below::none();
    let mut settled_below: Option<u32> = None;
    let mut r0 = 0u32;
    while r0 <= n {
        let r1 = block_end(&rows, r0, n);
        let block: Vec<u32> = (r0..r1).filter(|&r| rows[r as usize].is_none()).collect();
        let values = read_rows(t, r0, r1, &block, n)?;
        let tails: Vec<_> = values
            .par_iter()
            .zip(&block)
            .map(|(row, &r)| {
                let offsets: Vec<i64> = (r..).zip(row).map(|(q, &v)| v as i64 - q as i64).collect();
                periodic_tail(&offsets)
            })
            .collect();
        let mut next_live = values.iter().zip(&tails);
        for r in r0..r1 {
            if let Some(s) = &rows[r as usize] {
                below.add(&s.fate);
                continue;
            }
            let (row, tail) = next_live.next().expect("one entry per live row");
            let Some(tail) = tail else {
                settled_below.get_or_insert(r);
                continue;
            };
            let seen_start = (r + narrow::<u32, _>(tail.start)) as u64;
            let proof = if settled_below.is_none() {
                certify(
                    r as u64,
                    row,
                    &facts.diagonal,
                    below,
                    seen_start,
                    tail.period as u64,
                )
            } else {
                None
            };
            let offset = |q: u64| row[narrow::<usize, _>(q - r as u64)] as i64 - q.cast_signed();
            let (start, period, known) = match proof {
                Some(c) => (
                    c.start,
                    c.period,
                    Known::Certificate {
                        closed_at: c.closed_at,
                    },
                ),
                None => {
                    settled_below.get_or_insert(r);
                    (seen_start, tail.period as u64, Known::Evidence)
                }
            };
            // Columns and offsets of a table fit the engine's 32 bits.
            let fate = Fate::Periodic {
                start: narrow::<u32, _>(start),
                pattern: (start..start + period)
                    .map(|q| narrow::<i32, _>(offset(q)))
                    .collect(),
            };
            if known.is_proof() {
                below.add(&fate);
            }
            rows[r as usize] = Some(RowStatus { fate, known });
        }
        progress(r1);
        r0 = r1;
    }
    Ok((rows, settled_below.unwrap_or(n + 1)))
}

/// The end `r1` of the block of rows from `r0`: the rows not yet classified in
/// `r0 .. r1` hold at most [`BLOCK_BYTES`] of values (at least one row).
fn block_end(rows: &[Option<RowStatus>], r0: u32, n: u32) -> u32 {
    let per_row = 4 * (n - r0 + 1) as usize;
    let mut r1 = r0;
    let mut live_rows = 0;
    while r1 <= n && (live_rows + 1) * per_row <= BLOCK_BYTES.max(per_row) {
        live_rows += rows[r1 as usize].is_none() as usize;
        r1 += 1;
    }
    r1
}

/// `f(q,r)` for `q = r ..= n`, for each row of `rows` (all in `r0 .. r1`).
fn read_rows(
    t: &Table,
    r0: u32,
    r1: u32,
    rows: &[u32],
    n: u32,
) -> Result<Vec<Vec<u32>>, TableError> {
    let mut values: Vec<Vec<u32>> = rows
        .iter()
        .map(|&r| Vec::with_capacity((n - r + 1) as usize))
        .collect();
    let mut col = Vec::new();
    for q in r0..=n {
        let hi = r1.min(q + 1);
        col.clear();
        t.read_column(q, r0..hi, &mut col)?;
        for (i, &r) in rows.iter().enumerate() {
            if r >= hi {
                break;
            }
            values[i].push(col[(r - r0) as usize]);
        }
    }
    Ok(values)
}
