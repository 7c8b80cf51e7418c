//! Per-row bookkeeping of the census: the row's death, its offsets since it began
//! settling, Brent's cycle search on its states, and, once a repetition of states
//! is proved, the least period and exact start read off the offsets (no cap on
//! either).

use super::offsets::Offsets;
use super::snapshot::{LastBase, Snapshot, StateAt};
use crate::base::bytes::narrow;
use crate::base::numeric::{divisors, lcm};
use crate::f::proof::{Below, Fate, Known, RowStatus};

/// A row is "settling" from column `SETTLE_NUM / SETTLE_DEN * r` on: its cycle
/// search starts there (this fixes which columns are compared, hence every
/// certificate's column in the census file).
const SETTLE_NUM: u64 = 13;
const SETTLE_DEN: u64 = 10;

/// Rows up to this record their offsets from birth (their preperiod can start
/// right at column `r`; recording them costs nothing).
const RECORD_FROM_BIRTH: u32 = 100;

/// Whether row `r` is old enough at column `q` to search for a cycle.
pub(super) fn settling(r: u32, q: u32) -> bool {
    q as u64 * SETTLE_DEN >= r as u64 * SETTLE_NUM
}

/// The first column at which row `r` records its offset `f(q,r) - q`: from
/// birth up to [`RECORD_FROM_BIRTH`], then `⌊1.41 r⌋ - 64`. Every periodic row
/// `1000 < r <= 10^6` starts at `sqrt(2) r - 3.3` or later (data/census-1000000/),
/// so this leaves `0.004 r + 60` columns to spare. A row whose start lay before
/// its first recorded column would still be proved, its start given as an
/// upper bound (`<=` in the census file), never as exact; recording from `1.3 r`
/// as before cost 4 bytes a column for `0.11 r` more columns a row.
pub(super) fn record_from(r: u32) -> u32 {
    if r <= RECORD_FROM_BIRTH {
        r
    } else {
        narrow::<u32, _>(r as u64 * 141 / 100 - 64)
    }
}

/// What one block of columns says of a row, gathered on the worker that
/// computed the block: the least value past the row's diagonal, its death, and
/// its offsets at recorded columns (consecutive, from `first`), which lie in
/// its block's buffer of offsets from `at`.
#[derive(Debug)]
pub(super) struct Seen {
    min: u32,
    died: Option<u32>,
    first: u32,
    at: usize,
    len: usize,
}

/// What one block says of each of its rows, their offsets side by side in one
/// buffer: one allocation a block rather than one a row and block (these and
/// their frees on the calling thread were a few percent of a census's time).
#[derive(Debug, Default)]
pub(super) struct BlockSeen {
    rows: Vec<(u32, Seen)>,
    offsets: Vec<i32>,
}

impl BlockSeen {
    /// What a block of `cols` columns from `q_first` says of `rows`
    /// (ascending), `value(q, r)` being `f(q,r)`; a row's columns start at its
    /// birth. Row by row: a row's 64 values lie in 64 cache lines that the
    /// next rows read too, and a row that died is left at once (a dead row's
    /// later values equal its death value, so they would change nothing).
    pub(super) fn gather(
        rows: &[u32],
        q_first: u32,
        cols: u32,
        value: impl Fn(u32, u32) -> u32,
    ) -> BlockSeen {
        let end = q_first + cols;
        let first = |r: u32| q_first.max(r).max(record_from(r));
        let room: usize = rows
            .iter()
            .map(|&r| end.saturating_sub(first(r)) as usize)
            .sum();
        let mut offsets = Vec::with_capacity(room);
        let rows = rows
            .iter()
            .map(|&r| {
                let mut s = Seen {
                    min: u32::MAX,
                    died: None,
                    first: first(r),
                    at: offsets.len(),
                    len: 0,
                };
                for q in q_first.max(r)..end {
                    let v = value(q, r);
                    if q > r {
                        s.min = s.min.min(v);
                    }
                    if v == q {
                        s.died = Some(q);
                        offsets.truncate(s.at);
                        break;
                    }
                    if q >= s.first {
                        offsets.push(narrow::<i32, _>(v as i64 - q as i64));
                    }
                }
                s.len = offsets.len() - s.at;
                (r, s)
            })
            .collect();
        BlockSeen { rows, offsets }
    }

    /// Hands each row's part to its tracker (`trackers` indexed by row).
    pub(super) fn hand_to(&self, trackers: &mut [Tracker]) {
        for (r, s) in &self.rows {
            trackers[*r as usize].take(s, &self.offsets[s.at..s.at + s.len]);
        }
    }

    /// Row `r`'s values `f(q,r) = v` for consecutive columns `q` from `q_first`.
    #[cfg(test)]
    pub(super) fn of(r: u32, q_first: u32, values: &[u32]) -> BlockSeen {
        let value = |q: u32, _| values[(q - q_first) as usize];
        BlockSeen::gather(&[r], q_first, narrow(values.len()), value)
    }

    /// Hands the one row's part to `t`.
    #[cfg(test)]
    pub(super) fn hand_to_one(&self, t: &mut Tracker) {
        let (_, s) = &self.rows[0];
        t.take(s, &self.offsets[s.at..s.at + s.len]);
    }
}

/// A row's proved fate, and whether its start is exact (the least column from
/// which the fate holds) or only an upper bound (the periodic part began before
/// the row's offsets were recorded; its values from there on are still exact).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Settled {
    /// The fate and how it is known.
    pub status: RowStatus,
    /// `false` when `start` is only an upper bound for the least start.
    pub exact_start: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tracker {
    pub(super) dead: Option<u32>,
    /// Column of `history[0]`.
    pub(super) recorded_from: u32,
    /// Offsets `f(q,r) - q` for consecutive columns from `recorded_from`.
    pub(super) history: Offsets,
    /// Least `f(q,r)` over `q > r` seen so far (`u32::MAX`: none yet).
    pub(super) min_value: u32,
    /// Snapshot column and state; comparisons since; comparisons before renewal.
    pub(super) snapshot: Option<(u32, Snapshot)>,
    pub(super) steps: u32,
    pub(super) limit: u32,
    /// `(qs, K)`: the state at `qs + K` equals the state at `qs`.
    pub(super) cycle: Option<(u32, u32)>,
    /// The largest `M` (a multiple of `K`) for which the state at `qs + M` was
    /// found equal to the snapshot at `qs` (`K` itself to begin with).
    pub(super) confirmed: u32,
    /// A comparison due at this column (`qs` plus a multiple of `lcm(K, L)`, `L`
    /// the period of the rows below as far as it is known).
    pub(super) verify_at: Option<u32>,
}

impl Tracker {
    /// A row just born.
    pub(super) fn new() -> Tracker {
        Tracker {
            min_value: u32::MAX,
            ..Tracker::default()
        }
    }

    /// Takes in what a block of columns said of the row (blocks in order).
    pub(super) fn take(&mut self, seen: &Seen, offsets: &[i32]) {
        if self.dead.is_some() {
            return;
        }
        self.min_value = self.min_value.min(seen.min);
        if let Some(q) = seen.died {
            self.dead = Some(q);
            self.history = Offsets::default();
            return;
        }
        if offsets.is_empty() {
            return;
        }
        if self.history.is_empty() {
            self.recorded_from = seen.first;
        }
        self.history.extend(offsets);
    }

    /// Whether the row is live and still looking for a cycle.
    pub(super) fn searching(&self) -> bool {
        self.dead.is_none() && self.cycle.is_none()
    }

    /// One comparison at column `q` (a batch boundary) by Brent's method; a
    /// renewed snapshot shares `last`'s base when near it.
    pub(super) fn step(&mut self, q: u32, state: &dyn StateAt, last: &mut LastBase) {
        match &self.snapshot {
            Some((qs, s0)) if s0.matches(state) => {
                self.cycle = Some((*qs, q - qs));
                self.confirmed = q - qs;
            }
            Some(_) if self.steps + 1 < self.limit => self.steps += 1,
            _ => {
                self.limit = if self.snapshot.is_some() {
                    self.limit * 2
                } else {
                    1
                };
                self.snapshot = Some((q, Snapshot::take(state.copy(), q, last)));
                self.steps = 0;
            }
        }
    }

    /// Plans a comparison, when the repetition found is not yet confirmed at a
    /// multiple of `period` (the period of the rows below, as far as known): at
    /// the first column `qs + m lcm(K, period)` at or after the batch boundary
    /// `q`. A comparison planned for a column already passed is planned again.
    pub(super) fn schedule(&mut self, q: u32, period: u64) {
        let Some((qs, k)) = self.cycle else { return };
        if (self.confirmed as u64).is_multiple_of(period) {
            self.verify_at = None;
            return;
        }
        if self.verify_at.is_some_and(|t| t >= q) {
            return;
        }
        let step = lcm(k as u64, period);
        let m = ((q - qs) as u64).div_ceil(step).max(1);
        match u32::try_from(qs as u64 + m * step) {
            Ok(target) => self.verify_at = Some(target),
            Err(_) => self.restart(),
        }
    }

    /// The comparison due at column `q`, if any: `state` must equal the
    /// snapshot's; if it does not, the search starts again.
    pub(super) fn verify(&mut self, q: u32, state: Option<&dyn StateAt>) {
        let (Some(target), Some((qs, s0))) = (self.verify_at, &self.snapshot) else {
            return;
        };
        if q < target {
            return;
        }
        let qs = *qs;
        self.verify_at = None;
        if q == target && state.is_some_and(|s| s0.matches(s)) {
            self.confirmed = q - qs;
        } else {
            self.restart();
        }
    }

    fn restart(&mut self) {
        self.cycle = None;
        self.snapshot = None;
        self.confirmed = 0;
        self.verify_at = None;
    }

    /// Row `r`'s proved fate at column `q`, given the rows below it, if the data
    /// settles it. A repetition found before the hypotheses hold is dropped and
    /// searched for again; one not yet confirmed at a multiple of the period below
    /// waits for its comparison at the least common multiple.
    pub(super) fn settle(&mut self, r: u32, q: u32, below: &Below) -> Option<Settled> {
        if let Some(start) = self.dead {
            return Some(Settled {
                status: RowStatus::died(start),
                exact_start: true,
            });
        }
        let (qs, _) = self.cycle?;
        // The offsets from `qs` on must be recorded: a repetition found before
        // the recording began is searched for again.
        let unrecorded = self.history.is_empty() || qs < self.recorded_from;
        if (qs as u64) < below.settled_from.max(1) || unrecorded {
            self.restart();
            return None;
        }
        let k = self.confirmed;
        if !(k as u64).is_multiple_of(below.period) {
            self.schedule(q, below.period);
            return None;
        }
        debug_assert!(below.admits(qs as u64, k as u64) && q >= qs + k);
        let (start, pattern, exact_start) = self.periodic_part(r, qs, k);
        Some(Settled {
            status: RowStatus {
                fate: Fate::Periodic { start, pattern },
                known: Known::Certificate {
                    closed_at: (qs + k) as u64,
                },
            },
            exact_start,
        })
    }

    /// Offsets proved `k`-periodic from column `qs` (all of `qs .. qs + k` are
    /// recorded): the least period `p` (a divisor of `k`), the least start from
    /// which they are `p`-periodic, one period from there, and whether that start
    /// is exact.
    fn periodic_part(&self, r: u32, qs: u32, k: u32) -> (u32, Vec<i32>, bool) {
        let history = self.history.to_vec();
        let s = |c: u32| history[(c - self.recorded_from) as usize];
        // Offsets at any recorded column, and past `qs + k` by k-periodicity.
        let at = |c: u64| match c.checked_sub(qs as u64) {
            Some(d) if d >= k as u64 => s(qs + narrow::<u32, _>(d % k as u64)),
            _ => s(narrow::<u32, _>(c)),
        };
        // `p` is a period from qs iff it is one cyclically on one k-block.
        let p = divisors(u64::from(k))
            .into_iter()
            .find(|&p| (qs as u64..(qs + k) as u64).all(|c| at(c) == at(c + p)))
            .expect("k is a period");
        // A divisor of `k`, a u32.
        let p = narrow::<u32, _>(p);
        // Walk back while the column before still agrees with one period later.
        let mut start = qs;
        while start > r && start > self.recorded_from && s(start - 1) == at((start - 1 + p) as u64)
        {
            start -= 1;
        }
        let exact = start == r || start > self.recorded_from;
        let pattern = (0..p).map(|i| at((start + i) as u64)).collect();
        (start, pattern, exact)
    }
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
    use crate::f::engine::State;

    /// A state for a synthetic row with offsets `s` (from column `r`) at column
    /// `q`: its last `r + 1` offsets. Like a real row's state, it determines the
    /// row's future (a synthetic row is periodic once such a window repeats).
    fn state(r: u32, s: &[i64], q: u32) -> State {
        let end = (q - r) as usize;
        let bits = s[end.saturating_sub(r as usize + 1)..end]
            .iter()
            .map(|&x| x as u64)
            .collect();
        State { lead: 0, bits }
    }

    /// An arbitrary state, for comparisons that only need one.
    fn some_state(x: u64) -> State {
        State {
            lead: 0,
            bits: vec![x],
        }
    }

    /// Runs a tracker over a synthetic row `r` (offsets: `pre`, then `pattern`
    /// repeated) with comparisons every `batch` columns and nothing below it.
    fn settle_synthetic(r: u32, pre: &[i64], pattern: &[i64], batch: u32) -> Settled {
        // Brent's search needs about two cycles of states at batch boundaries.
        let cycle = lcm(batch as u64, pattern.len() as u64) as usize;
        let len = pre.len() + 2 * r as usize + 4 * cycle + 2 * batch as usize;
        let s: Vec<i64> = pre
            .iter()
            .copied()
            .chain(pattern.iter().copied().cycle())
            .take(len)
            .collect();
        let mut t = Tracker::new();
        let below = Below::none();
        for (i, &off) in s.iter().enumerate() {
            let q = r + i as u32;
            BlockSeen::of(r, q, &[(q as i64 + off) as u32]).hand_to_one(&mut t);
            let q = q + 1;
            if q.is_multiple_of(batch) {
                if t.searching() && settling(r, q) {
                    t.step(q, &state(r, &s, q), &mut None);
                }
                t.schedule(q, below.period);
                t.verify(q, Some(&state(r, &s, q)));
                if let Some(settled) = t.settle(r, q, &below) {
                    return settled;
                }
            }
        }
        panic!("row not settled within {len} columns");
    }

    /// A pattern of length `p` whose least period is `p`, with offsets that fit a
    /// row of width `r` (offsets in `1 ..= r + 1`, distinct inside each window of
    /// `r + 1` columns, so that the synthetic row is a possible one).
    fn pattern(p: usize) -> Vec<i64> {
        (0..p as i64).map(|i| 1 + (i * 7919) % (p as i64)).collect()
    }

    #[test]
    fn any_period_and_the_exact_start_are_found() {
        let cases = [
            (1, 0, 50),
            (2, 3, 50),
            (25, 17, 72),
            (720, 5, 2520),
            (2521, 40, 2520),
        ];
        for (p, pre_len, batch) in cases {
            let r = p as u32 + 2;
            let pat = pattern(p);
            // Rows above 100 record from 1.41 r - 64: the preperiod reaches past that.
            let pre_len = pre_len
                + if r > RECORD_FROM_BIRTH {
                    r as usize * 2 / 5
                } else {
                    0
                };
            // The preperiod ends with a value that breaks the period.
            let mut pre: Vec<i64> = (0..pre_len as i64).map(|i| 1 + i % 3).collect();
            if let Some(last) = pre.last_mut() {
                *last = pat[p - 1] + 1;
            }
            let got = settle_synthetic(r, &pre, &pat, batch);
            let Fate::Periodic {
                start,
                pattern: found,
            } = &got.status.fate
            else {
                panic!("period {p}: {got:?}");
            };
            assert_eq!(found.len(), p, "least period {p}");
            assert_eq!(*start as usize, r as usize + pre_len, "period {p}: start");
            let found: Vec<i64> = found.iter().map(|&x| i64::from(x)).collect();
            assert_eq!(found, pat, "period {p}: one period from the start");
            assert!(got.exact_start);
        }
    }

    #[test]
    fn a_start_before_the_recording_settles_the_row_with_a_bound() {
        let (r, pat) = (1000, pattern(4));
        let got = settle_synthetic(r, &[], &pat, 72);
        assert!(!got.exact_start);
        assert_eq!(
            got.status.fate.start(),
            record_from(r),
            "the first recorded column"
        );
        assert_eq!(
            got.status.fate.value(5000),
            Some(5000 + pat[(5000 - r as usize) % 4] as u128)
        );
    }

    #[test]
    fn a_repetition_not_a_multiple_of_the_period_below_is_checked_again() {
        let (r, pat) = (10, pattern(3));
        let s: Vec<i64> = pat.iter().copied().cycle().take(5000).collect();
        let mut t = Tracker::new();
        for (i, &off) in s.iter().enumerate() {
            let q = r + i as u32;
            BlockSeen::of(r, q, &[(q as i64 + off) as u32]).hand_to_one(&mut t);
        }
        // States repeat 60 columns apart; the rows below repeat every 7.
        t.snapshot = Some((120, Snapshot::alone(state(r, &s, 120))));
        t.cycle = Some((120, 60));
        t.confirmed = 60;
        let mut below = Below::none();
        below.add_periodic(20, 7);
        assert_eq!(t.settle(r, 180, &below), None);
        assert_eq!(t.verify_at, Some(120 + 420));
        t.verify(540, Some(&state(r, &s, 540)));
        let got = t.settle(r, 540, &below).expect("proved at lcm(60, 7)");
        assert_eq!(got.status.known, Known::Certificate { closed_at: 540 });
        assert_eq!(
            got.status.fate,
            Fate::Periodic {
                start: r,
                pattern: pat.iter().map(|&x| x as i32).collect()
            }
        );
        // Planned late, the comparison goes to the next multiple still ahead.
        let mut t3 = Tracker::new();
        t3.snapshot = Some((120, Snapshot::alone(some_state(1))));
        t3.cycle = Some((120, 60));
        t3.confirmed = 60;
        t3.schedule(1000, 7);
        assert_eq!(t3.verify_at, Some(120 + 3 * 420));
        // A target already passed (planned after the column's comparisons) is
        // planned again at the next multiple, not lost.
        let mut t4 = Tracker::new();
        t4.snapshot = Some((120, Snapshot::alone(some_state(1))));
        t4.cycle = Some((120, 60));
        t4.confirmed = 60;
        t4.schedule(540, 7);
        assert_eq!(t4.verify_at, Some(540));
        t4.schedule(600, 7);
        assert_eq!(t4.verify_at, Some(960));
        // A state that differs at the later column sends the search back.
        let mut t2 = Tracker::new();
        t2.snapshot = Some((120, Snapshot::alone(some_state(1))));
        t2.cycle = Some((120, 60));
        t2.verify_at = Some(540);
        t2.verify(540, Some(&some_state(2)));
        assert_eq!((t2.cycle, t2.snapshot, t2.confirmed), (None, None, 0));
    }
}
