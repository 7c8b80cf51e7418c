//! The row pass: classifies every row as constant (proved by the recurrence's own
//! rule), periodic (proved by a certificate, or only seen repeating), or open.
//! Rows are read in blocks, a bounded number of values in memory at a time.

use rayon::prelude::*;

use super::certify::{Below, certify};
use super::columns::ColumnFacts;
use super::period::periodic_tail;
use crate::engine::ColumnSource;
use crate::table::Table;

/// Memory for one block of rows' values (bytes).
const BLOCK_BYTES: usize = 512 << 20;

/// What a row does, as far as the table shows or proves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowClass {
    /// `f(q,r) = start` for all `q >= start` (proved: the row died at `start`).
    Constant {
        /// The column `q` with `f(q,r) = q`.
        start: u32,
    },
    /// `f(q,r) - q` repeats `pattern` from column `start` on.
    Periodic {
        /// Preperiod start.
        start: u32,
        /// `f(q,r) - q` for `q = start .. start + period`.
        pattern: Vec<i64>,
        /// Columns `q` in `start + period ..= N`, each equal to the value a period
        /// earlier.
        confirmed: u32,
        /// The column where the certificate closed, when it is proved; `None` when
        /// the repetition is only seen in the table.
        proved_at: Option<u32>,
    },
    /// No period repeats three times inside the table.
    Open,
}

/// Classifies rows `0 ..= N`. Returns the classes and the first row that is not
/// resolved (neither constant nor proved periodic): every row below it is settled.
pub fn classify(
    t: &Table,
    facts: &ColumnFacts,
    mut progress: impl FnMut(u32),
) -> (Vec<RowClass>, u32) {
    let n = facts.n;
    let mut class = vec![RowClass::Open; n as usize + 1];
    let mut live = vec![true; n as usize + 1];
    for &(q, r) in &facts.starts {
        class[r as usize] = RowClass::Constant { start: q };
        live[r as usize] = false;
    }
    let mut below = Below::none();
    let mut resolved_below: Option<u32> = None;
    let mut r0 = 0u32;
    while r0 <= n {
        // Live rows r0 .. r1 hold at most BLOCK_BYTES of values.
        let per_row = 4 * (n - r0 + 1) as usize;
        let mut r1 = r0;
        let mut live_rows = 0;
        while r1 <= n && (live_rows + 1) * per_row <= BLOCK_BYTES.max(per_row) {
            live_rows += live[r1 as usize] as usize;
            r1 += 1;
        }
        let block: Vec<u32> = (r0..r1).filter(|&r| live[r as usize]).collect();
        let values = read_rows(t, r0, r1, &block, n);
        let tails: Vec<_> = values
            .par_iter()
            .zip(&block)
            .map(|(row, &r)| {
                let offsets: Vec<i64> = (r..).zip(row).map(|(q, &v)| v as i64 - q as i64).collect();
                periodic_tail(&offsets)
            })
            .collect();
        let mut next_live = block.iter().zip(values.iter().zip(&tails)).peekable();
        for r in r0..r1 {
            if let RowClass::Constant { start } = class[r as usize] {
                below.add_dead(start as u64);
                continue;
            }
            let (_, (row, tail)) = next_live.next().expect("one entry per live row");
            let Some(tail) = tail else {
                resolved_below.get_or_insert(r);
                continue;
            };
            let proof = if resolved_below.is_none() {
                certify(r as u64, row, &facts.diagonal, below, tail)
            } else {
                None
            };
            let offset = |q: u32| row[(q - r) as usize] as i64 - q as i64;
            let (start, period) = match proof {
                Some(c) => {
                    below.add_periodic(c.start, c.period);
                    (c.start as u32, c.period as u32)
                }
                None => {
                    resolved_below.get_or_insert(r);
                    (r + tail.start as u32, tail.period as u32)
                }
            };
            class[r as usize] = RowClass::Periodic {
                start,
                pattern: (start..start + period).map(offset).collect(),
                confirmed: n + 1 - start - period,
                proved_at: proof.map(|c| c.closed_at as u32),
            };
        }
        progress(r1);
        r0 = r1;
    }
    (class, resolved_below.unwrap_or(n + 1))
}

/// `f(q,r)` for `q = r ..= n`, for each row of `rows` (all in `r0 .. r1`).
fn read_rows(t: &Table, r0: u32, r1: u32, rows: &[u32], n: u32) -> Vec<Vec<u32>> {
    let mut values: Vec<Vec<u32>> = rows
        .iter()
        .map(|&r| Vec::with_capacity((n - r + 1) as usize))
        .collect();
    let mut col = Vec::new();
    for q in r0..=n {
        let hi = r1.min(q + 1);
        col.clear();
        t.read_column(q, r0..hi, &mut col);
        for (i, &r) in rows.iter().enumerate() {
            if r >= hi {
                break;
            }
            values[i].push(col[(r - r0) as usize]);
        }
    }
    values
}
