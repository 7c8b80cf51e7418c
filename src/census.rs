//! The certified row census: runs the engine on rows `0 ..= R` only, each until
//! its fate is proved (CERTIFICATE.md), without storing the square table. A row
//! proved periodic leaves the engine's work and feeds the rows above it from its
//! pattern in O(1). Never touches files (see `census_file` for the output).
//!
//! Proof, row by row in increasing order: a row that reaches `f(q,r) = q` is
//! constant (the recurrence's rule). A live row is proved periodic when every row
//! below it is constant or proved periodic (combined period `L`, all settled from
//! column `q1`), and its state (the engine's window: the values it has used at or
//! above `q`) is equal at two columns `qs >= max(q1, 1)` and `qs + K`, `K` a
//! multiple of `L`. The states are compared at batch boundaries: every live row
//! keeps a snapshot that is renewed at doubling distances (Brent's method), so a
//! cycle is found whatever its length.

use crate::analysis::certify::Below;
use crate::engine::{Block, Engine};

/// Default columns between state comparisons: a multiple of every period 1..=10,
/// so that `K` is a multiple of `L` whenever the periods below are that small.
pub const BATCH_COLS: u32 = 2520;

/// Largest period a census row can be proved with: for each `p` up to this the
/// tracker remembers the last column where `f(q,r) - q` differed from its value `p`
/// columns earlier (rows with a longer period stay open; every period seen in
/// rows up to 10^5 is at most 9).
pub const MAX_PERIOD: usize = 16;

/// The proved fate of a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    /// `f(q,r) = start` for every `q >= start` (the row died there).
    Constant {
        /// The column with `f(q,r) = q`.
        start: u64,
    },
    /// `f(q,r) - q` repeats `pattern` from `start` on, for ever.
    Periodic {
        /// Exact preperiod start (least, `>= r`).
        start: u64,
        /// One least period of `f(q,r) - q` from `start`.
        pattern: Vec<i64>,
        /// Column `qs + K` whose state equalled that at `qs`.
        closed_at: u64,
    },
    /// Not proved within the columns computed.
    Open,
}

impl Fate {
    /// `f(q, r)` from the fate, when it determines it (`q >= start`).
    pub fn value(&self, q: u64) -> Option<u64> {
        match self {
            Fate::Constant { start } if q >= *start => Some(*start),
            Fate::Periodic { start, pattern, .. } if q >= *start => {
                let p = pattern.len() as u64;
                q.checked_add_signed(pattern[((q - start) % p) as usize])
            }
            _ => None,
        }
    }
}

/// Test hook: a deliberately wrong state comparison, to show the tests can fail.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Weaken {
    /// Compare empty states (drops every value from the state).
    pub ignore_state: bool,
}

/// Census of rows `0 ..= rows`, computing at most `max_columns` columns and
/// comparing states every `batch` columns (at most [`BATCH_COLS`]).
/// `progress(column, rows settled)` after each batch. Returns each row's fate and
/// the number of columns computed.
pub fn census(
    rows: u32,
    max_columns: u32,
    batch: u32,
    pool: &rayon::ThreadPool,
    weaken: Weaken,
    progress: &mut dyn FnMut(u32, u32),
) -> (Vec<Fate>, u32) {
    let mut engine = Engine::with_row_limit(rows);
    let mut trackers: Vec<Tracker> = (0..=rows).map(|_| Tracker::default()).collect();
    let mut fates = vec![Fate::Open; rows as usize + 1];
    let mut below = Below::none();
    assert!(
        (1..=BATCH_COLS).contains(&batch),
        "batch of 1 ..= {BATCH_COLS} columns"
    );
    let mut head = 0u32; // rows below are settled
    while head <= rows && engine.columns() < max_columns {
        let cols = batch.min(max_columns - engine.columns());
        // Rows below the head are settled: only rows from the head on are passed on.
        let from = head as usize;
        engine.advance(
            cols,
            pool,
            |b: &Block| {
                (0..b.cols)
                    .map(|j| (b.first + j, b.column(j).get(from..).unwrap_or(&[]).to_vec()))
                    .collect::<Vec<_>>()
            },
            |block| {
                for (q, col) in block {
                    for (r, &v) in (from..).zip(&col) {
                        trackers[r].record(r as u32, q, v);
                    }
                }
            },
        );
        let q = engine.columns();
        // Speculative cycle search on every live row old enough to have settled.
        for r in head..=rows.min(q - 1) {
            let t = &mut trackers[r as usize];
            let old_enough = q as u64 * 10 >= r as u64 * 13;
            if t.dead.is_none()
                && t.cycle.is_none()
                && old_enough
                && let Some(mut state) = engine.row_state(r)
            {
                if weaken.ignore_state {
                    state.clear();
                }
                t.step(q, state);
            }
        }
        // The chain: settle rows in order while the hypotheses hold.
        while head <= rows {
            let t = &mut trackers[head as usize];
            if let Some(start) = t.dead {
                below.add_dead(start);
                fates[head as usize] = Fate::Constant { start };
                head += 1;
                continue;
            }
            let Some((qs, k)) = t.cycle else { break };
            // The repetition counts only from where every lower row has settled and
            // where this row's offsets are recorded (the period check needs them).
            if (qs as u64) < below.settled_from.max(1)
                || qs < t.recorded_from
                || !(k as u64).is_multiple_of(below.period)
            {
                // Found too early: search again from here.
                t.cycle = None;
                t.snapshot = None;
                break;
            }
            let Some((start, pattern)) = t.periodic_part(head, q, qs, k) else {
                break;
            };
            let p = pattern.len() as u64;
            engine.set_periodic(
                head,
                start as u32,
                pattern.iter().map(|&x| x as i32).collect(),
            );
            below.add_periodic(start, p);
            fates[head as usize] = Fate::Periodic {
                start,
                pattern,
                closed_at: (qs + k) as u64,
            };
            *t = Tracker::default();
            head += 1;
        }
        progress(q, head);
    }
    (fates, engine.columns())
}

/// Per-row bookkeeping: death, where each short period last failed, and Brent's
/// cycle search on states.
#[derive(Default)]
struct Tracker {
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
    fn record(&mut self, r: u32, q: u32, v: u32) {
        if self.dead.is_some() {
            return;
        }
        if v == q {
            self.dead = Some(q as u64);
            return;
        }
        // Young rows (q < 1.3 r) are far from settling: nothing to track yet.
        if q as u64 * 10 < r as u64 * 13 && r > 100 {
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

    /// One comparison at column `q` (a batch boundary).
    fn step(&mut self, q: u32, state: Vec<u64>) {
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

/// Outcome of [`check_against`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Values compared.
    pub values: u64,
    /// The first `(q, r)` where the census and the table disagree (a value, or a
    /// start that is not the least one).
    pub first_mismatch: Option<(u64, u64)>,
}

/// Compares every value the proved fates give for `q <= N` with a dense table
/// (which the census never reads), streaming it column by column, and checks that
/// each start is the least one.
pub fn check_against(fates: &[Fate], t: &crate::table::Table) -> CheckReport {
    use crate::engine::ColumnSource;
    let n = t.n().max(0) as u64;
    let mut report = CheckReport {
        values: 0,
        first_mismatch: None,
    };
    let rows = (fates.len() as u64).min(n + 1);
    let mut col = Vec::new();
    for q in 0..=n {
        col.clear();
        let top = rows.min(q + 1);
        t.read_column(q as u32, 0..top as u32, &mut col);
        for (r, &v) in col.iter().enumerate() {
            let fate = &fates[r];
            let wrong = match fate.value(q) {
                Some(expect) => {
                    report.values += 1;
                    expect != v as u64
                }
                None => false,
            };
            // The column just before the start must break the pattern.
            let start = match fate {
                Fate::Constant { start } | Fate::Periodic { start, .. } => Some(*start),
                Fate::Open => None,
            };
            let not_least = start.is_some_and(|s| {
                s > r as u64 && q + 1 == s && {
                    match fate {
                        Fate::Constant { .. } => v as u64 == q,
                        Fate::Periodic { pattern, .. } => {
                            let p = pattern.len() as u64;
                            v as i64 - q as i64 == pattern[(p - 1) as usize]
                        }
                        Fate::Open => false,
                    }
                }
            });
            if (wrong || not_least) && report.first_mismatch.is_none() {
                report.first_mismatch = Some((q, r as u64));
            }
        }
    }
    report
}
