//! Per-row bookkeeping of the census: the row's death, where each short period
//! last failed, and Brent's cycle search on the row's states.

use crate::proof::{Below, Fate, Known, RowStatus};

/// Largest period a census row can be proved with: for each `p` up to this the
/// tracker remembers the last column where `f(q,r) - q` differed from its value `p`
/// columns earlier (rows with a longer period stay open; every period seen in
/// rows up to 10^5 is at most 9).
pub const MAX_PERIOD: usize = 16;

/// A row is "settling" from column `SETTLE_NUM / SETTLE_DEN * r` on: rows settle
/// near `sqrt(2) r`, so before `1.3 r` neither recording its offsets nor
/// searching for a cycle can succeed.
const SETTLE_NUM: u64 = 13;
const SETTLE_DEN: u64 = 10;

/// Rows up to this record their offsets from birth (their preperiod can start
/// right at column `r`; recording them costs nothing).
const RECORD_FROM_BIRTH: u32 = 100;

/// Whether row `r` is old enough at column `q` to search for a cycle.
pub(super) fn settling(r: u32, q: u32) -> bool {
    q as u64 * SETTLE_DEN >= r as u64 * SETTLE_NUM
}

#[derive(Default)]
pub(super) struct Tracker {
    dead: Option<u64>,
    /// Offsets recorded from this column on (the row's birth, or `1.3 r`).
    recorded_from: u32,
    /// Number of offsets recorded.
    count: u32,
    /// The last [`MAX_PERIOD`] offsets, by `count % MAX_PERIOD`.
    recent: [i32; MAX_PERIOD],
    /// `mismatch[p]`: last column `m` with `f(m,r) - m != f(m-p,r) - (m-p)` (0: none).
    mismatch: [u32; MAX_PERIOD + 1],
    /// Snapshot column and state; comparisons since; comparisons before renewal.
    snapshot: Option<(u32, Vec<u64>)>,
    steps: u32,
    limit: u32,
    /// `(qs, K)`: the state at `qs + K` equals the state at `qs`.
    cycle: Option<(u32, u32)>,
}

impl Tracker {
    /// Records `f(q,r) = v`.
    pub(super) fn record(&mut self, r: u32, q: u32, v: u32) {
        if self.dead.is_some() {
            return;
        }
        if v == q {
            self.dead = Some(q as u64);
            return;
        }
        if !settling(r, q) && r > RECORD_FROM_BIRTH {
            return;
        }
        if self.count == 0 {
            self.recorded_from = q;
        }
        let off = (v as i64 - q as i64) as i32;
        for p in 1..=MAX_PERIOD.min(self.count as usize) {
            if self.recent[(self.count as usize - p) % MAX_PERIOD] != off {
                self.mismatch[p] = q;
            }
        }
        self.recent[self.count as usize % MAX_PERIOD] = off;
        self.count += 1;
    }

    /// Whether the row is live and still looking for a cycle.
    pub(super) fn searching(&self) -> bool {
        self.dead.is_none() && self.cycle.is_none()
    }

    /// One comparison at column `q` (a batch boundary).
    pub(super) fn step(&mut self, q: u32, state: Vec<u64>) {
        match &self.snapshot {
            Some((qs, s0)) if *s0 == state => self.cycle = Some((*qs, q - qs)),
            Some(_) if self.steps + 1 < self.limit => self.steps += 1,
            _ => {
                self.limit = if self.snapshot.is_some() {
                    self.limit * 2
                } else {
                    1
                };
                self.snapshot = Some((q, state));
                self.steps = 0;
            }
        }
    }

    /// Row `r`'s proved fate at column `q`, given the rows below it, if the data
    /// settles it. A cycle found before the hypotheses hold is dropped and searched
    /// for again.
    pub(super) fn settle(&mut self, r: u32, q: u32, below: &Below) -> Option<RowStatus> {
        if let Some(start) = self.dead {
            return Some(RowStatus::died(start));
        }
        let (qs, k) = self.cycle?;
        // The repetition counts only from where every lower row has settled and
        // where this row's offsets are recorded (the period check needs them).
        if !below.admits(qs as u64, k as u64) || qs < self.recorded_from {
            self.cycle = None;
            self.snapshot = None;
            return None;
        }
        let (start, pattern) = self.periodic_part(r, q, qs, k)?;
        Some(RowStatus {
            fate: Fate::Periodic { start, pattern },
            known: Known::Certificate {
                closed_at: (qs + k) as u64,
            },
        })
    }

    /// The least period and exact preperiod start of offsets proved `k`-periodic
    /// from column `qs`, now at column `q`; `None` until the data settles it (or if
    /// the period exceeds [`MAX_PERIOD`] or the start precedes the recording).
    fn periodic_part(&self, r: u32, q: u32, qs: u32, k: u32) -> Option<(u64, Vec<i64>)> {
        // The least period divides k; p is it iff s(c) = s(c + p) for c in
        // [qs, qs + k), i.e. no mismatch for p at columns >= qs + p (seen once
        // q >= qs + k + p; then k-periodicity carries it on for ever).
        let p = (1..=MAX_PERIOD.min(k as usize))
            .filter(|p| (k as usize).is_multiple_of(*p))
            .find(|&p| self.mismatch[p] < qs + p as u32)?;
        if (q as usize) < (qs + k) as usize + p {
            return None;
        }
        // Periodic from the column after the last mismatch's partner.
        let start = match self.mismatch[p] {
            0 if self.recorded_from > r => return None, // began before the recording
            0 => r,
            m => (m - p as u32 + 1).max(r),
        };
        // One period from `start`, read from the last MAX_PERIOD offsets.
        let at = |col: u32| -> i64 {
            let back = (q - col) as usize; // 1 ..= p
            self.recent[(self.count as usize - back) % MAX_PERIOD] as i64
        };
        // Column start + i has the offset of the column x in [q - p, q) with the
        // same residue mod p (periodic from start, and q - p >= start).
        let base = (q - p as u32) as i64;
        let pattern = (0..p as i64)
            .map(|i| at((base + (start as i64 + i - base).rem_euclid(p as i64)) as u32))
            .collect();
        Some((start as u64, pattern))
    }
}
