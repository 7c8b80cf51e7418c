//! The certificate for a row read from an exact table: the state comparison of
//! the argument in `proof/mod.rs`, made on the row's stored values.

use super::Below;
use crate::base::bytes::narrow;
use crate::base::numeric::{divisors, lcm};

/// A proved eventual period of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Certificate {
    /// The least column from which `f(q,r) - q` is periodic (the preperiod start).
    pub start: u64,
    /// The least period.
    pub period: u64,
    /// The column `qc + K` whose state was found equal to that of column `qc`.
    pub closed_at: u64,
}

/// Tries to prove row `r` periodic. `row[i] = f(r + i, r)` up to the table's last
/// column; `diagonal[a] = f(a,a)`; the row is seen (not yet proved) to repeat with
/// period `period` from column `start`.
pub fn certify(
    r: u64,
    row: &[u32],
    diagonal: &[u32],
    below: Below,
    start: u64,
    period: u64,
) -> Option<Certificate> {
    let n = r + row.len() as u64 - 1; // last column
    let f = |a: u64| -> u64 {
        if a < r {
            diagonal[narrow::<usize, _>(a)] as u64
        } else {
            row[narrow::<usize, _>(a - r)] as u64
        }
    };
    let offset = |q: u64| f(q).cast_signed() - q.cast_signed();
    let k = lcm(below.period, period);
    // Any qc at or after the column where the rows below are settled will do. Try
    // the earliest, where the row is already in its periodic part; failing that,
    // the first column whose window holds only values from the periodic part.
    let earliest = r.max(below.settled_from).max(start).max(1);
    let mut safe = earliest;
    for a in start.saturating_sub(r + 1)..start {
        safe = safe.max(f(a) + 1);
    }
    if k > n {
        return None;
    }
    let closes =
        |qc: u64| below.admits(qc, k) && qc + k <= n + 1 && state(r, qc, f) == state(r, qc + k, f);
    let qc = [earliest, safe].into_iter().find(|&qc| closes(qc))?;
    // Proved: offsets are k-periodic from qc. Values past the table repeat.
    let s = |q: u64| if q > n { offset(q - k) } else { offset(q) };
    let period = divisors(k)
        .into_iter()
        .find(|&p| (qc..qc + k).all(|q| s(q) == s(q + p)))
        .expect("k itself is a period");
    let mut start = qc;
    while start > r && s(start - 1) == s(start - 1 + period) {
        start -= 1;
    }
    Some(Certificate {
        start,
        period,
        closed_at: qc + k,
    })
}

/// The row's state at column `q`: which offsets `x >= 0` have `f(a,r) = q + x` for
/// some `a < q`, as a bitset (only `a >= q - r - 1` can reach `q`).
fn state(r: u64, q: u64, f: impl Fn(u64) -> u64) -> Vec<u64> {
    let mut bits = vec![0u64; (narrow::<usize, _>(r) + 2) / 64 + 1];
    for a in q.saturating_sub(r + 1)..q {
        let v = f(a);
        if v >= q {
            let x = narrow::<usize, _>(v - q);
            bits[x / 64] |= 1 << (x % 64);
        }
    }
    bits
}
