//! Proving that a row is periodic from finite data (a certificate), when every row
//! below it has already died or been proved periodic.
//!
//! # The argument
//!
//! By the rule in `engine/mod.rs`, while row `r` is live its next value depends on
//! two things only: its *state* `W(q) = { f(a,r) - q : a < q, f(a,r) >= q }` (the
//! values it has used at or above `q`, relative to `q`) and the column's *input*
//! `U(q) = { f(q,b) - q : b < r, f(q,b) >= q }`. Then `v = f(q,r) - q` is the least
//! `v >= 0` outside `W(q) ∪ U(q)` (`v = 0` is the row's death) and
//! `W(q+1) = { x - 1 : x ∈ W(q) ∪ {v}, x >= 1 }`: a deterministic step.
//!
//! Suppose every row `b < r` either died at a column `s_b < q1` (it then feeds
//! nothing `>= q` for `q > s_b`) or is *proved* periodic: `f(q,b) - q` has period
//! `p_b` for `q >= q0_b`, with `q0_b <= q1`. Then `U(q + L) = U(q)` for `q >= q1`,
//! with `L = lcm(p_b)`. If moreover `W(qc) = W(qc + K)` for some `qc >= q1` and a
//! multiple `K` of `L`, the step above gives `W(q) = W(q + K)` and
//! `f(q,r) - q = f(q+K,r) - (q+K)` for every `q >= qc`, by induction: row `r` is
//! periodic forever (and, being live through one whole period, never dies).
//!
//! (The step holds for `q >= 1`; at `q = 0` the least value is 1, not 0, so
//! `qc >= 1`.) Every quantity in that check is read from the exact table. If any hypothesis
//! fails (a row below is not settled, `L` or the data needed exceed the table),
//! no certificate is issued and the row stays "evidence" or "open".

use super::period::Tail;

/// What the rows below `r` are known to do.
#[derive(Clone, Copy, Debug)]
pub struct Below {
    /// From this column on, no row below dies and every live one is periodic.
    pub settled_from: u64,
    /// Least common multiple of the live rows' periods (1 if none).
    pub period: u64,
}

impl Below {
    /// Nothing below (row 0).
    pub fn none() -> Below {
        Below {
            settled_from: 0,
            period: 1,
        }
    }

    /// Adds a row that died at column `start`.
    pub fn add_dead(&mut self, start: u64) {
        self.settled_from = self.settled_from.max(start + 1);
    }

    /// Adds a row proved periodic with `period` from column `start`.
    pub fn add_periodic(&mut self, start: u64, period: u64) {
        self.settled_from = self.settled_from.max(start);
        self.period = lcm(self.period, period);
    }
}

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
/// column; `diagonal[a] = f(a,a)`; `tail` is the evidence found in the row's offsets.
pub fn certify(
    r: u64,
    row: &[u32],
    diagonal: &[u32],
    below: Below,
    tail: &Tail,
) -> Option<Certificate> {
    let n = r + row.len() as u64 - 1; // last column
    let f = |a: u64| -> u64 {
        if a < r {
            diagonal[a as usize] as u64
        } else {
            row[(a - r) as usize] as u64
        }
    };
    let offset = |q: u64| f(q) as i64 - q as i64;
    let q0e = r + tail.start as u64;
    let k = lcm(below.period, tail.period as u64);
    // Any qc at or after the column where the rows below are settled will do. Try
    // the earliest, where the row is already in its periodic part; failing that,
    // the first column whose window holds only values from the periodic part.
    // (At q = 0 the step differs, f >= 1, so q >= 1.)
    let earliest = r.max(below.settled_from).max(q0e).max(1);
    let mut safe = earliest;
    for a in q0e.saturating_sub(r + 1)..q0e {
        safe = safe.max(f(a) + 1);
    }
    if k > n {
        return None;
    }
    let closes = |qc: u64| qc + k <= n + 1 && state(r, qc, f) == state(r, qc + k, f);
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
    let mut bits = vec![0u64; (r as usize + 2) / 64 + 1];
    for a in q.saturating_sub(r + 1)..q {
        let v = f(a);
        if v >= q {
            let x = (v - q) as usize;
            bits[x / 64] |= 1 << (x % 64);
        }
    }
    bits
}

/// The divisors of `k`, increasing.
fn divisors(k: u64) -> Vec<u64> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1;
    while d * d <= k {
        if k.is_multiple_of(d) {
            small.push(d);
            if d * d != k {
                large.push(k / d);
            }
        }
        d += 1;
    }
    small.extend(large.into_iter().rev());
    small
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Least common multiple, saturating at `u64::MAX`.
pub fn lcm(a: u64, b: u64) -> u64 {
    (a / gcd(a, b)).saturating_mul(b)
}
