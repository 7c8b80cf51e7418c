//! The census of periods and starts without patterns (doc/grundy.md section
//! 4a): two sweeps of every line `q <= Q`, one `L` steps ahead of the other.
//! Nothing of a line's values is kept beyond a few states, so its memory does
//! not grow with the periods, as the census of [`super::census`] (which keeps
//! every proved line's pattern) does. Uses the sweep of `grundy::live`
//! (every line live), the census's dependency order, and `bytes` for
//! checkpoints. This file holds the rule (below) and the census's steps
//! (`Run`); beside it, the small-lag record with its SSE step (`lags.rs`), the
//! least-period search on a proved line (`look.rs`), how the two sweeps share
//! two cores (`schedule.rs`) and the checkpoint (`checkpoint.rs`).
//!
//! # The rule
//!
//! Write `x(p) = G(p,q,r) - p`, `S(p)` for the line's used set after step `p`
//! seen from `p`, as in [`super::census`]. The trailing sweep `A` is at `p`
//! when the leading sweep `B` is at `p + L`.
//!
//! * **Start.** For each line the last `p` with `x(p) != x(p + L)` is kept
//!   (both values are at hand at every step). Once the line is proved to
//!   repeat with period `L` from some `b` on, no later `p` differs, so the
//!   least `s` with `x(p) = x(p + L)` for all `p >= s` is one past the last
//!   difference. If the least period `P` divides `L`, this `s` is the start
//!   for `P` as well: `x(p) = x(p + L)` for `p >= s` gives, for `p` in
//!   `[s, b)`, `x(p) = x(p + nL) = x(p + nL + P) = x(p + P)` with `n` large.
//! * **Proof.** At a multiple `c` of the chunk, a line all of whose
//!   dependencies are proved (so they repeat with periods dividing `L` from
//!   `c + 1` on) and with `S_A(c) = S_B(c + L)` repeats with period `L` from
//!   `c + 1` on: the rule of [`super::census`] with `k P = L`.
//! * **Least period.** `P` divides `L`. Let `M` be the least common multiple
//!   of the dependencies' least periods (1 if none), and `a = c + 1 + D` with
//!   `D = bias + 2Q` (and `a > 3Q + bias`). For a divisor `d` of `L` with
//!   `M | d`: `d` is a period iff `S(a) = S(a + d)`. If: the inputs repeat
//!   with `d` from `a + 1` on, so the rule applies. Only if: every value below
//!   `p + 1 - bias` is in `S(p)` (else step `p + 1` would take it, below the
//!   window, which the sweep refuses), and a value `j + x(j) >= p + 1 - bias`
//!   has `j >= p - bias - 2Q + 2` (as `x <= 2Q - 1`), so `S(p)` is a function
//!   of `x` on `[p - D, p]` once the first values of the lower lines (below
//!   `3Q`) are below the window; and `a - D > c >= s - 1`. So the least such
//!   `d` with `S(a) = S(a + d)`, met in ascending order, is `P_M`, the least
//!   period that `M` divides (`L` is one). `P` divides `P_M`, and if smaller
//!   it is not a multiple of `M`. A divisor `e` of `P_M` is refuted by one
//!   `p > c` with `x(p) != x(p + e)`, looked for in the first `WINDOW`
//!   values after `c`; a divisor of a refuted one is refuted with it. The
//!   least divisor left, if any, is then the least period if it is a period
//!   at all (every period divides `P_M`, and a period is never refuted);
//!   it is tested in full: `x(p) = x(p + e)` for `P_M - e` consecutive
//!   `p > c`, which with period `P_M` (a period from `c + 1` on: for
//!   `c < p <= a`, `x(p) = x(p + nL) = x(p + nL + P_M) = x(p + P_M)`) gives
//!   every `p > c`. For `e <= SMALL`
//!   the leading sweep, past `c + L` and keeping each line's last difference
//!   at each such lag (`Lags`), has that answer at once; larger ones are
//!   tested on the trailing sweep, and a refuted one is filed and the next
//!   least tried. For `M` a dependency whose least period is not known yet
//!   gives its `P_M`, a period all the same, so no line waits for a test.
//!
//! * **Kept lines** (`rings.rs`). The trailing sweep takes a kept line's
//!   `x(p)` as the leading sweep computed it `L` steps before, so keeps no
//!   used set of it to compare. Such a line is proved at a multiple `c` of
//!   the chunk if its dependencies are proved, `c >= 3Q + bias`, and
//!   `x(p) = x(p + L)` for every `p` in `[c - D + 1, c]`, `D = bias + 2Q`
//!   (no difference kept past `c - D`). Write `U(p)` for the used set after
//!   `p` in absolute values. The leading sweep computed steps `c + 1` and
//!   `c + L` of the line without a value below the window, and the other
//!   lines' values are never below it, so `U(c)` holds every value below
//!   `c + 1 - bias` and `U(c + L - 1)` every value below `c + L - bias`. A
//!   value `v >= c - bias` is in `U(c)` iff `v = j + x(j)` with `j <= c`
//!   (the first values of the lower lines are below `3Q <= c - bias`), and
//!   then `j >= v - 2Q + 1 > c - D` as `x <= 2Q - 1`; so `v` is in `U(c)`
//!   iff `v + L` is in `U(c + L)`. Hence `U(c + L)` holds every value below
//!   `c + L + 1 - bias` too, and the values not in `U(c)`, seen from `c`,
//!   are those not in `U(c + L)`, seen from `c + L`: the states agree
//!   whole, and the rule above applies. Its ring then holds `x(c + 1 ..=
//!   c + L)`, one period `L`, and its least period is the least divisor of
//!   `L` by which the ring turned is the same (`Rings::least_period`).
//!
//! Nothing is taken as proved that these steps do not show: a line whose
//! period does not divide `L` is never proved, and the census says so.

use crate::base::bytes::narrow;
use std::io::{self, Read, Write};

use super::census::dependency;
use super::checkpoint::CheckpointError;
use super::frozen::Layout;
use super::live::{Given, Live, Plan, View};
use super::used::Seen;
use super::{ProvedLine, line};
use crate::base::bytes::damaged;
use crate::base::bytes::stream::{get32, get64, put32, put32s, put64};
use crate::base::numeric::{divisors, lcm};
use crate::base::stop::Stop;

mod checkpoint;
mod copies;
mod lags;
mod look;
mod rings;
mod schedule;

use checkpoint::get16;
pub use checkpoint::{load, save};
use copies::*;
use lags::*;
use look::*;
use rings::*;
use schedule::*;

/// Steps the two sweeps take between looks at the proofs (and checkpoints).
pub(crate) const CHUNK: u32 = 256;
/// Values kept after a line's proof to refute periods quickly.
const WINDOW: usize = 1024;
/// "None" in the per-line tables.
const NONE: u32 = u32::MAX;
/// `x` of a line not started at a `p`.
const ABSENT: i16 = i16::MIN;

/// Where the census is, for its progress line.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// The trailing sweep's `p` (0 while the leading one gets ahead).
    pub p: u32,
    /// The leading sweep's `p`.
    pub lead: u32,
    /// Lines proved periodic with period `L`.
    pub proved: usize,
    /// Lines whose least period is known.
    pub done: usize,
}

/// The outcome: every line's fate (`None`: not done by `max_p`), and how
/// far the trailing sweep went.
#[derive(Debug)]
pub struct Outcome {
    /// In the sweep's order.
    pub lines: Vec<Option<ProvedLine>>,
    /// The last `p` of the trailing sweep.
    pub swept: u32,
}

/// The trailing sweep and what runs beside it.
struct Trail {
    lines: Live,
    probes: Vec<Probe>,
    /// The lines it copies rather than computes.
    copies: Copies,
    /// Room for the copied lines' values of each half of a split sweep.
    feed: [Vec<i16>; 2],
    x: Values,
}

/// The leading sweep.
struct Lead {
    lines: Live,
    x: Values,
    lags: Lags,
    /// The kept lines' values of its last stretch (`rings.rs`).
    fresh: Fresh,
}

/// A sweep's `x` over the steps of a chunk, in stretches of `sub` steps,
/// the lines below `nlow` and from `nlow` on apart (the two halves of a
/// split sweep make them at the same time, see [`both_split`]).
#[derive(Default)]
struct Values {
    n: usize,
    nlow: usize,
    sub: usize,
    /// Per stretch, per step, the lines below `nlow`.
    low: Vec<Vec<i16>>,
    /// Per stretch, per step, the lines from `nlow` on.
    high: Vec<Vec<i16>>,
    /// Room for the lower rows' sets passed up, two (kept only to be used
    /// again).
    up: Vec<Vec<u64>>,
}

impl Values {
    /// The `i`-th step of the chunk: the values of the lines below `nlow`
    /// and of those from `nlow` on.
    fn row(&self, i: usize) -> (&[i16], &[i16]) {
        let (s, j) = (i / self.sub, i % self.sub);
        let nhigh = self.n - self.nlow;
        let low = self.low[s].get(j * self.nlow..(j + 1) * self.nlow);
        (
            low.unwrap_or_default(),
            &self.high[s][j * nhigh..(j + 1) * nhigh],
        )
    }

    /// The steps of the chunk.
    fn steps(&self) -> usize {
        self.high.len() * self.sub
    }

    /// The values' room, to be filled again by the next chunk (compared
    /// now), `k` stretches of `x` of each kind and two of sets passed up.
    /// Made once and used again rather
    /// than let go: a chunk's values are megabytes, which the allocator
    /// would hand back to the system and take again, a page fault at a
    /// time, every chunk.
    fn room(&mut self, k: usize) -> Room {
        let take = |v: &mut Vec<Vec<i16>>| {
            let mut v = std::mem::take(v);
            v.resize_with(k, Vec::new);
            v
        };
        let (low, high) = (take(&mut self.low), take(&mut self.high));
        let mut up = std::mem::take(&mut self.up);
        up.resize_with(2, Vec::new);
        Room { low, high, up }
    }
}

/// Room for a chunk's values (see [`Values::room`]).
struct Room {
    low: Vec<Vec<i16>>,
    high: Vec<Vec<i16>>,
    up: Vec<Vec<u64>>,
}

/// `v` emptied and made `len` long, every entry `fill`.
fn refill<T: Copy>(mut v: Vec<T>, len: usize, fill: T) -> Vec<T> {
    v.clear();
    v.resize(len, fill);
    v
}

/// The census's state between chunks (what a checkpoint holds).
pub struct Run {
    q_max: u32,
    lag: u32,
    divs: Vec<u32>,
    order: Vec<(u32, u32)>,
    trail: Trail,
    lead: Lead,
    /// Per line: the last `p` with `x(p) != x(p + L)` (or its first `p` - 1).
    last_diff: Vec<u32>,
    /// Per line: the `p` of its proof.
    proved: Vec<u32>,
    /// Per line: its least period, once known.
    period: Vec<u32>,
    /// Per line: the first dependency not yet proved.
    next_dep: Vec<u32>,
    /// Per line: the full tests done, `(e, whether e is a period)`.
    full: Vec<Vec<(u32, bool)>>,
    /// Per line: `P_M` once found, a period if not the least (not kept in a
    /// checkpoint: found again from the states compared).
    pm: Vec<u32>,
    /// The lines proved from which the leading sweep copies them: a
    /// [`COPY_FROM`]-th of the lines (other counts in tests).
    copy_from: usize,
    /// The value `G - p` that fell below the window of the run this one
    /// started again from, if it did (not kept in a checkpoint).
    restarted: Option<i32>,
}

/// Whether a census of the lines `q <= q_max` may have the lag `lag`: at
/// least one line past (0,0), a lag of at least `2Q + 2`, and at most 128
/// divisors of it.
pub fn check_shape(q_max: u32, lag: u32) -> Result<(), LagError> {
    if q_max == 0 {
        return Err(LagError::NoLines);
    }
    let least = 2 * u64::from(q_max) + 2;
    if u64::from(lag) < least {
        return Err(LagError::TooShort { lag, least });
    }
    if divisors(u64::from(lag)).len() > 128 {
        return Err(LagError::TooManyDivisors { lag });
    }
    Ok(())
}

/// An estimate of the most memory a census of the lines `q <= q_max` with
/// lag `lag` holds
/// (saturated at `u64::MAX`), for the refusal before it starts: its two
/// sweeps ([`Live`], rings at the least room); per line what the chunks
/// keep of both sweeps, a `LONG` chunk's values `x` (2 bytes a line and
/// step), its record of lags (48 bytes) and state (40 bytes); the lower
/// rows' sets passed up, two rooms a sweep of at least `SUB_CHUNK` steps
/// ([`Live::export`]); the periods the trailing sweep copies from
/// ([`copies::budget`]); the kept lines' rings and a chunk of their values
/// (`rings.rs`). Lines under a look for their
/// least period hold more (a window and a copy of their state, from 2 KiB),
/// so this is a lower bound.
pub(crate) fn memory(q_max: u32, lag: u32) -> u64 {
    let lines = super::line_count(q_max);
    let per_line = 2 * 2 * u64::from(LONG) + 48 + 40;
    let room = Live::room(q_max, 0);
    let passed_up = Live::export_bytes(q_max, room, split_row(q_max));
    Live::memory(q_max, room)
        .saturating_mul(2)
        .saturating_add(lines.saturating_mul(per_line))
        .saturating_add(passed_up.saturating_mul(4 * SUB_CHUNK as u64))
        .saturating_add(copies::budget(lines))
        .saturating_add(rings_memory(q_max, lag))
}

impl Run {
    /// A census of the lines `q <= q_max` with lag `lag`, before its first
    /// step, with room for `G - p >= -below` (or more: `Live::room`).
    pub fn new(q_max: u32, lag: u32, below: u32) -> Result<Run, LagError> {
        check_shape(q_max, lag)?;
        let below = Live::room(q_max, below);
        let divs: Vec<u32> = divisors(lag as u64)
            .iter()
            .map(|&d| narrow::<u32, _>(d))
            .collect();
        let n = line(q_max, q_max) + 1;
        let order: Vec<(u32, u32)> = (0..=q_max)
            .flat_map(|q| (0..=q).map(move |r| (q, r)))
            .collect();
        let last_diff = order.iter().map(|&(q, _)| q.max(1) - 1).collect();
        let lags = Lags::new(&divs, n);
        Ok(Run {
            q_max,
            lag,
            divs,
            order,
            trail: Trail {
                lines: Live::new(q_max, below),
                probes: vec![Probe::Idle; n],
                copies: Copies::new(n)
                    .with_rings(rings(q_max, lag))
                    .expect("no line copied yet"),
                feed: Default::default(),
                x: Values::default(),
            },
            lead: Lead {
                lines: Live::new(q_max, below),
                x: Values::default(),
                lags,
                fresh: Fresh::default(),
            },
            last_diff,
            proved: vec![NONE; n],
            period: vec![NONE; n],
            next_dep: vec![0; n],
            full: vec![Vec::new(); n],
            pm: vec![NONE; n],
            copy_from: n.div_ceil(COPY_FROM),
            restarted: None,
        })
    }

    /// Where it is.
    pub fn progress(&self) -> Progress {
        Progress {
            p: self.trail.lines.p(),
            lead: self.lead.lines.p(),
            proved: self.proved.iter().filter(|&&c| c != NONE).count(),
            done: self.period.iter().filter(|&&k| k != NONE).count(),
        }
    }

    /// Whether every line's least period is known.
    pub fn finished(&self) -> bool {
        self.period.iter().all(|&k| k != NONE)
    }

    /// The fates found so far.
    pub fn outcome(&self) -> Outcome {
        let lines = (0..self.order.len())
            .map(|at| {
                let (q, r) = self.order[at];
                (self.period[at] != NONE).then(|| ProvedLine {
                    q,
                    r,
                    start: self.last_diff[at] + 1,
                    period: self.period[at],
                })
            })
            .collect();
        Outcome {
            lines,
            swept: self.trail.lines.p(),
        }
    }

    /// One chunk: the leading sweep alone until it is `L` ahead, then both
    /// (in parallel; `LONG` steps once `both_split` runs them), the
    /// comparison of their values and the proofs and least periods that the
    /// chunk's end allows. Once every line is
    /// proved, the trailing sweep goes on alone in stretches of up to
    /// `ALONE` steps, cut at `max_p` (rounded up to a multiple of `SUB`).
    /// `Err(x)`: a value `G - p = x` fell below the window.
    pub fn chunk(&mut self, max_p: u32) -> Result<(), i32> {
        let n = self.order.len();
        let ahead = self.lead.lines.p() < self.lag;
        let all_proved = self.proved.iter().all(|&c| c != NONE);
        let mut copied = false;
        let p1 = self.lead.lines.p() + 1;
        if ahead {
            let left = self.lag - self.lead.lines.p();
            if self.lead.lines.p() > self.q_max && left >= 2 * SUB {
                // (With kept lines, as many steps as their room holds.)
                let most = match self.trail.copies.rings().any() {
                    true => LONGEST,
                    false => HEAD,
                };
                let rounds = most.min(left) / SUB;
                let rings = self.trail.copies.rings();
                self.lead.fresh.start(rings, p1, (rounds * SUB) as usize);
                head_start(&mut self.lead, self.q_max, rounds);
                let rings = self.trail.copies.rings_mut();
                rings.take_in(&self.lead.fresh, |_| true);
            } else {
                lead_steps(&mut self.lead, n, CHUNK.min(left) as usize);
                let rings = self.trail.copies.rings_mut();
                rings.take_steps(&self.lead.x.high[0], n, p1);
            }
        } else if all_proved {
            // Every row has started: the line (Q, Q) is proved at a `p >= Q`.
            // Stretches longer than a chunk keep both cores busy (the
            // least periods are then found up to `ALONE` steps later).
            let steps = ALONE.min(max_p.saturating_sub(self.trail.lines.p()));
            trail_alone(
                &mut self.trail,
                &self.divs,
                self.q_max,
                steps.div_ceil(SUB).max(1),
            );
        } else {
            let copy: Vec<bool> = self.proved.iter().map(|&c| c != NONE).collect();
            let proved = copy.iter().filter(|&&c| c).count();
            copied = self.trail.lines.p() >= self.q_max && proved >= self.copy_from;
            if copied {
                let rings = self.trail.copies.rings();
                self.lead.fresh.start(rings, p1, LONG as usize);
                both_split(
                    &mut self.trail,
                    &mut self.lead,
                    &self.divs,
                    (self.q_max, self.lag),
                    &copy,
                    &mut self.last_diff,
                );
                let rings = self.trail.copies.rings_mut();
                rings.take_in(&self.lead.fresh, |at| !copy[at]);
            } else {
                let (trail, lead, divs) = (&mut self.trail, &mut self.lead, &self.divs);
                rayon::join(
                    || trail_steps(trail, divs, self.q_max, CHUNK as usize),
                    || lead_steps(lead, n, CHUNK as usize),
                );
                let rings = self.trail.copies.rings_mut();
                rings.take_steps(&self.lead.x.high[0], n, p1);
            }
        }
        for l in [&self.trail.lines, &self.lead.lines] {
            if let Some(x) = l.below_window() {
                return Err(x);
            }
        }
        if !ahead {
            let p = self.trail.lines.p();
            for probe in &mut self.trail.probes {
                if let Probe::Look(look) = probe {
                    look.catch_up(&self.divs, p);
                }
            }
            if !all_proved {
                // (A chunk of `both_split` compared as it went.)
                if !copied {
                    self.compare();
                }
                self.prove();
            }
            self.decide();
        }
        Ok(())
    }

    /// Keeps each line's last difference between the two sweeps (a chunk
    /// in which neither copies: `both_split` compares as it goes).
    ///
    /// Hand-made: it looks at every line at every step of the chunk, so the
    /// equal values (nearly all) are passed over 32 lines at a time by a
    /// branch-free test the compiler makes into vector code, and only a
    /// block with a difference is looked at line by line.
    fn compare(&mut self) {
        let (a, b) = (&self.trail.x, &self.lead.x);
        let k = a.steps();
        assert_eq!(k, b.steps());
        let p0 = self.trail.lines.p() - narrow::<u32, _>(k);
        const BLOCK: usize = 32;
        for i in 0..k {
            let ((la, ha), (lb, hb)) = (a.row(i), b.row(i));
            let p = p0 + narrow::<u32, _>(i) + 1;
            for (from, xa, xb) in [(0, la, lb), (la.len(), ha, hb)] {
                assert!(xb.len() >= xa.len());
                let blocks = xa.chunks(BLOCK).zip(xb.chunks(BLOCK));
                for (j, (ca, cb)) in blocks.enumerate() {
                    let differs = |(&x, &y): (&i16, &i16)| (x != ABSENT) & (x != y);
                    let any = ca.iter().zip(cb).fold(false, |acc, t| acc | differs(t));
                    if !any {
                        continue;
                    }
                    for (o, t) in ca.iter().zip(cb).enumerate() {
                        if differs(t) {
                            let at = from + j * BLOCK + o;
                            assert!(
                                self.proved[at] == NONE,
                                "line {:?} was proved, yet differs at p = {p}",
                                self.order[at],
                            );
                            self.last_diff[at] = p;
                        }
                    }
                }
            }
        }
    }

    /// Proves the lines whose dependencies are proved and whose states in the
    /// two sweeps agree (see the module's comment).
    fn prove(&mut self) {
        let c = self.trail.lines.p();
        let (bias, q_max) = (self.trail.lines.bias(), self.q_max);
        assert_eq!(self.lead.lines.p(), c + self.lag);
        for at in 0..self.order.len() {
            let q = self.order[at].0;
            if self.proved[at] != NONE || c < q.max(1) || !self.deps_proved(at) {
                continue;
            }
            let rings = self.trail.copies.rings();
            if rings.kept(at) {
                // The module's comment, "Kept lines": no difference from
                // `c - D + 1` on, and `c >= 3Q + bias`.
                let reach = u64::from(bias) + 2 * u64::from(q_max);
                if u64::from(c) >= u64::from(3 * q_max + bias)
                    && u64::from(self.last_diff[at]) + reach <= u64::from(c)
                {
                    self.proved[at] = c;
                    self.period[at] = rings.least_period(at, &self.divs);
                }
                continue;
            }
            let (a, b) = (self.trail.lines.view(at), self.lead.lines.view(at));
            if a.seen_from(c) != b.seen_from(c + self.lag) {
                continue;
            }
            self.proved[at] = c;
            let snap_at = (c + 1 + bias + 2 * q_max).max(3 * q_max + bias + 1);
            self.trail.probes[at] = Probe::Look(Box::new(Look {
                c,
                snap_at,
                snap: None,
                win: Vec::with_capacity(WINDOW),
                wlo: 0,
                refuted: 0,
                checked: 0,
                equal: 0,
                ring: None,
                next: 0,
            }));
        }
    }

    /// Whether every dependency of line `at` is proved (moving its pointer).
    fn deps_proved(&mut self, at: usize) -> bool {
        let (q, r) = self.order[at];
        while self.next_dep[at] < q + r {
            let (dq, dr) = dependency(q, r, self.next_dep[at]);
            if self.proved[line(dq, dr)] == NONE {
                return false;
            }
            self.next_dep[at] += 1;
        }
        true
    }

    /// Takes each looked-at line as far towards its least period as the
    /// trailing sweep's `p` allows.
    fn decide(&mut self) {
        let p = self.trail.lines.p();
        'lines: for at in 0..self.order.len() {
            if self.period[at] != NONE || self.proved[at] == NONE {
                continue;
            }
            self.settle_ring(at);
            let (q, r) = self.order[at];
            // M from a period of each dependency: its least, or its P_M
            // while that is being looked for (any period of the inputs will
            // do for the rule), so that no line waits for a full test below.
            let mut m = 1u64;
            for i in 0..q + r {
                let (dq, dr) = dependency(q, r, i);
                let d = line(dq, dr);
                match (self.period[d], self.pm[d]) {
                    (NONE, NONE) => continue 'lines,
                    (NONE, k) | (k, _) => m = lcm(m, k as u64),
                }
            }
            if let Some(k) = self.least_period(at, m, p) {
                self.period[at] = k;
                self.trail.probes[at] = Probe::Idle;
            }
        }
        self.copy_periodic();
    }

    /// Starts taking in a period of each line whose least period is known
    /// (as far as the room for periods allows), and copies, from the next
    /// chunk on, each line whose period is in (`copies.rs`).
    fn copy_periodic(&mut self) {
        let Trail { probes, copies, .. } = &mut self.trail;
        for (at, probe) in probes.iter_mut().enumerate() {
            match probe {
                Probe::Idle
                    if self.period[at] != NONE
                        && !copies.copied(at)
                        && copies.reserve(self.period[at]) =>
                {
                    *probe = Probe::Fill(Box::new(Period::new(self.period[at])));
                }
                Probe::Fill(period) if period.full() => {
                    let Probe::Fill(period) = std::mem::take(probe) else {
                        unreachable!()
                    };
                    copies.insert(at, *period);
                }
                _ => {}
            }
        }
    }

    /// Files a full test's verdict.
    fn settle_ring(&mut self, at: usize) {
        let Probe::Look(look) = &mut self.trail.probes[at] else {
            return;
        };
        if let Some(Ring {
            e,
            verdict: Some(v),
            ..
        }) = look.ring
        {
            self.full[at].push((e, v));
            look.ring = None;
        }
    }

    /// The least period of the proved line `at` whose dependencies' least
    /// periods have the least common multiple `m`, if the trailing sweep's
    /// `p` is far enough (else `None`, perhaps after starting a full test).
    fn least_period(&mut self, at: usize, m: u64, p: u32) -> Option<u32> {
        let name = self.order[at];
        let divs = &self.divs;
        let Probe::Look(look) = &mut self.trail.probes[at] else {
            unreachable!("a proved line is looked at until its period is known")
        };
        // P_M: the least divisor that m divides with equal states.
        let mut pm = None;
        for (i, &d) in divs.iter().enumerate() {
            if !(d as u64).is_multiple_of(m) {
                continue;
            }
            if i >= look.checked {
                return None;
            }
            if look.equal >> i & 1 == 1 {
                pm = Some(d);
                break;
            }
        }
        let Some(pm) = pm else {
            panic!("line {name:?}: no state repeats with a divisor of L that {m} divides");
        };
        self.pm[at] = pm;
        if (p as u64) < look.c as u64 + pm as u64 + WINDOW as u64 {
            return None;
        }
        // The proper divisors of P_M, and those known not to be periods: the
        // multiples of m (P_M is the least), those refuted in the window or
        // in full. A divisor of a non-period is none either.
        let full = &self.full[at];
        let smaller: Vec<(usize, u32)> = divs
            .iter()
            .copied()
            .enumerate()
            .filter(|&(_, d)| d < pm && pm.is_multiple_of(d))
            .collect();
        let not: Vec<u32> = smaller
            .iter()
            .filter(|&&(i, d)| {
                (d as u64).is_multiple_of(m)
                    || look.refuted >> i & 1 == 1
                    || full.contains(&(d, false))
            })
            .map(|&(_, d)| d)
            .collect();
        // The least candidate left is the least period if it is one at all.
        let Some((_, e)) = smaller
            .into_iter()
            .find(|&(_, d)| !not.iter().any(|&n| n.is_multiple_of(d)))
        else {
            return Some(pm);
        };
        if full.contains(&(e, true)) {
            return Some(e);
        }
        // A small lag: the leading sweep has the answer already.
        match self.lead.lags.period(at, e, look.c) {
            Some(true) => return Some(e),
            Some(false) => {
                self.full[at].push((e, false));
                return None;
            }
            None => {}
        }
        match &mut look.ring {
            None => look.ring = Some(Ring::new(p, e, pm)),
            Some(ring) => ring.narrow(pm, p),
        }
        // The test takes in every step from the next on.
        look.next = 0;
        None
    }
}

/// Runs a census to its end, or until the trailing sweep passes `max_p` or
/// `stop` is set; `progress` after every chunk; `checkpoint(run)` when it
/// returns true is offered the state to save. Starts again with a wider
/// window when a value falls below it.
pub fn run(
    q_max: u32,
    lag: u32,
    max_p: u32,
    resume: Option<Run>,
    stop: &Stop,
    progress: &mut dyn FnMut(&Run),
) -> Result<Run, LagError> {
    let mut run = match resume {
        Some(r) => r,
        None => Run::new(q_max, lag, Layout::first_guess(q_max))?,
    };
    while !run.finished() && run.trail.lines.p() < max_p && !stop.requested() {
        if let Err(x) = run.chunk(max_p) {
            run = Run::new(q_max, lag, x.unsigned_abs() + 64)?;
            run.restarted = Some(x);
            continue;
        }
        progress(&run);
    }
    Ok(run)
}

/// A lag the census cannot use.
#[derive(Debug, thiserror::Error)]
pub enum LagError {
    /// No line but (0,0), which the census with patterns proves.
    #[error(
        "the census of two sweeps needs Q >= 1 (the census with patterns proves the one line (0,0))"
    )]
    NoLines,
    /// Shorter than the census's rule needs (`2Q + 2`).
    #[error("the lag {lag} is below 2Q + 2 = {least}")]
    TooShort {
        /// The lag given.
        lag: u32,
        /// The least lag for these lines.
        least: u64,
    },
    /// More divisors than the census tracks.
    #[error("the lag {lag} has more than 128 divisors")]
    TooManyDivisors {
        /// The lag given.
        lag: u32,
    },
}

impl Run {
    /// If this run started again from `p = 1` because a value fell below
    /// the window: that value `G - p`, and how far down the new window goes.
    pub(crate) fn restarted(&self) -> Option<(i32, u32)> {
        self.restarted.map(|x| (x, self.trail.lines.bias()))
    }

    /// `Q` and `L` of the census.
    pub fn shape(&self) -> (u32, u32) {
        (self.q_max, self.lag)
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

    /// A window too shallow (none at all below `p`) is met by a value
    /// below it; the run says so, starts again wider, and ends with the
    /// fates of a run that was wide enough from the start.
    #[test]
    fn a_value_below_the_window_starts_the_run_again() {
        let (q_max, lag) = (12, 576);
        let fates = |run: &Run| run.outcome().lines;
        let wide = super::run(q_max, lag, u32::MAX, None, &Stop::new(), &mut |_| {}).unwrap();
        assert_eq!(wide.restarted(), None);
        let shallow = Run::new(q_max, lag, 0).unwrap();
        assert_eq!(shallow.trail.lines.bias(), 0);
        let mut said = None;
        let run = super::run(
            q_max,
            lag,
            u32::MAX,
            Some(shallow),
            &Stop::new(),
            &mut |r| said = said.or(r.restarted()),
        )
        .unwrap();
        let (x, room) = said.expect("the restart is reported");
        assert!(x < 0 && room as i32 >= -x, "{x} {room}");
        assert_eq!(fates(&run), fates(&wide));
        assert!(run.finished());
    }

    /// `max_p = 0` sweeps nothing, even in the head start (the trailing
    /// sweep is at 0 then): what `--max-p 0 --partial` relies on.
    #[test]
    fn max_p_zero_sweeps_nothing() {
        let mut run = Run::new(12, 576, Layout::first_guess(12)).unwrap();
        run.chunk(u32::MAX).unwrap();
        let at = run.progress();
        assert!(at.lead > 0 && at.p == 0);
        let run = super::run(12, 576, 0, Some(run), &Stop::new(), &mut |_| {}).unwrap();
        assert_eq!((run.progress().lead, run.progress().p), (at.lead, 0));
    }

    /// The same fates as the census that keeps patterns (its own code),
    /// whether the leading sweep copies the proved lines as soon as one is
    /// proved, from a quarter on (as in a run) or never.
    #[test]
    fn copying_the_proved_lines_changes_no_fate() {
        let (q_max, lag) = (20, 2304);
        let stop = Stop::new();
        let want: Vec<ProvedLine> =
            super::super::census::census(q_max, 1 << 20, &stop, &mut |_| {})
                .lines
                .iter()
                .map(ProvedLine::from)
                .collect();
        assert_eq!(want.len(), 231);
        // (How many of the last lines are kept `L` values deep.)
        for (copy_from, trail_copies, kept) in [
            (Some(1), true, 0),
            (None, true, 0),
            (None, false, 0),
            (Some(usize::MAX), true, 0),
            (None, true, 100),
            (None, false, 100),
            (Some(1), true, 231),
            (Some(usize::MAX), true, 231),
        ] {
            let mut run = Run::kept(q_max, lag, kept);
            run.copy_from = copy_from.unwrap_or(run.copy_from);
            if !trail_copies {
                let rings = std::mem::take(run.trail.copies.rings_mut());
                run.trail.copies = Copies::without_room(run.order.len())
                    .with_rings(rings)
                    .unwrap();
            }
            let (mut copies, mut chunks) = (0, 0);
            // (A wrong copy would leave lines unproved for ever.)
            while !run.finished() && run.trail.lines.p() < 1 << 17 {
                let proved = run.proved.iter().filter(|&&c| c != NONE).count();
                let lead = run.lead.lines.p();
                run.chunk(u32::MAX).unwrap();
                if lead >= lag && proved < run.order.len() {
                    chunks += 1;
                    copies += (proved >= run.copy_from) as u32;
                }
            }
            let got: Vec<_> = run.outcome().lines.iter().map(|f| f.unwrap()).collect();
            assert_eq!(
                got, want,
                "copying from {copy_from:?} lines proved, {kept} kept"
            );
            // The trailing sweep copied lines whose least period it knew,
            // all but the kept ones.
            let (count, others) = (run.trail.copies.count(), 231 - kept);
            assert!(count <= others);
            assert_eq!(count > others / 2, trail_copies && others > 0, "{count}");
            assert_eq!(run.trail.copies.rings().first(), 231 - kept);
            match copy_from {
                Some(usize::MAX) => assert_eq!(copies, 0),
                _ => assert!(copies > chunks / 2, "{copies} of {chunks} chunks copied"),
            }
        }
    }

    /// The vector record steps as the plain loop, on values that repeat
    /// with several periods, differ and are absent.
    #[test]
    fn the_record_steps_as_the_plain_loop() {
        let (mut h1, mut l1) = ([ABSENT; SMALL], [0u32; SMALL]);
        let (mut h2, mut l2) = (h1, l1);
        for p in 1..2000u32 {
            let x = match p % 7 {
                0 => -300 + (p % 5) as i16,
                k => (p % (k + 1)) as i16 - 3,
            };
            shift_in(&mut h1, &mut l1, p, x);
            shift_in_plain(&mut h2, &mut l2, p, x);
            assert_eq!((h1, l1), (h2, l2), "p = {p}");
        }
    }

    impl Run {
        /// [`Run::new`] with the last `kept` lines kept `L` values deep.
        fn kept(q_max: u32, lag: u32, kept: usize) -> Run {
            let mut run = Run::new(q_max, lag, Layout::first_guess(q_max)).unwrap();
            let n = run.order.len();
            let rings = Rings::new(q_max, lag, n, kept);
            run.trail.copies = Copies::new(n).with_rings(rings).unwrap();
            run
        }
    }

    /// A census saved while the trailing sweep copies some lines and fills
    /// the periods of others, and read back, goes on to the fates of one
    /// that was never saved (none of its lines kept: format 5).
    #[test]
    fn a_census_saved_while_it_copies_resumes_to_the_same_fates() {
        let (q_max, lag) = (20, 2304);
        let mut whole = Run::kept(q_max, lag, 0);
        whole = super::run(q_max, lag, u32::MAX, Some(whole), &Stop::new(), &mut |_| {}).unwrap();
        let mut run = Run::kept(q_max, lag, 0);
        let filling = |run: &Run| {
            run.trail
                .probes
                .iter()
                .filter(|p| matches!(p, Probe::Fill(_)))
                .count()
        };
        while run.trail.copies.count() == 0 || filling(&run) == 0 {
            run.chunk(u32::MAX).unwrap();
            assert!(!run.finished());
        }
        let mut bytes = Vec::new();
        run.save(&mut bytes).unwrap();
        // Format 5 read as format 3 (which has no periods after the
        // probes): bytes are left over, so the file is not taken.
        let mut as_three = bytes.as_slice();
        let _ = Run::load(&mut as_three, bytes.len() as u64, 3);
        assert!(
            !as_three.is_empty(),
            "a format 5 body read as format 3 to its end"
        );
        assert_eq!(run.format(), 5);
        let back = Run::load(&mut bytes.as_slice(), bytes.len() as u64, 5).unwrap();
        assert!(!back.trail.copies.rings().any());
        assert_eq!(back.trail.copies.count(), run.trail.copies.count());
        assert_eq!(filling(&back), filling(&run));
        let mut again = Vec::new();
        back.save(&mut again).unwrap();
        assert_eq!(again, bytes, "read back and written again");
        let done = super::run(q_max, lag, u32::MAX, Some(back), &Stop::new(), &mut |_| {}).unwrap();
        assert_eq!(done.outcome().lines, whole.outcome().lines);
        assert_eq!(done.outcome().swept, whole.outcome().swept);
    }

    /// A census that keeps some lines `L` values deep, saved while it
    /// copies others from their periods and fills more, is written in
    /// format 6, read back to the same bytes and goes on to the fates of
    /// one never saved, which are those of a census keeping no line; the
    /// same body read as format 5 leaves the rings over, and a ring with a
    /// byte changed is read back to other values.
    #[test]
    fn a_census_that_keeps_lines_saved_and_read_back_resumes_to_the_same_fates() {
        let (q_max, lag) = (20, 2304);
        let go = |run| super::run(q_max, lag, u32::MAX, Some(run), &Stop::new(), &mut |_| {});
        let plain = go(Run::kept(q_max, lag, 0)).unwrap();
        let whole = go(Run::kept(q_max, lag, 100)).unwrap();
        assert_eq!(whole.outcome().lines, plain.outcome().lines);
        let mut run = Run::kept(q_max, lag, 100);
        let proved = |run: &Run, kept: bool| {
            (0..run.order.len())
                .filter(|&at| run.proved[at] != NONE && run.trail.copies.rings().kept(at) == kept)
                .count()
        };
        let filling = |run: &Run| run.trail.probes.iter().any(|p| matches!(p, Probe::Fill(_)));
        while run.trail.copies.count() == 0 || !filling(&run) || proved(&run, true) == 0 {
            run.chunk(u32::MAX).unwrap();
            assert!(!run.finished());
        }
        // Some kept lines are proved, some not yet.
        assert!(proved(&run, true) < 100, "{}", proved(&run, true));
        assert_eq!(run.format(), checkpoint::VERSION);
        let mut bytes = Vec::new();
        run.save(&mut bytes).unwrap();
        let mut as_five = bytes.as_slice();
        let _ = Run::load(&mut as_five, bytes.len() as u64, 5);
        assert!(as_five.len() >= 100 * lag as usize, "{}", as_five.len());
        let back = Run::load(&mut bytes.as_slice(), bytes.len() as u64, 6).unwrap();
        assert_eq!(back.trail.copies.rings().first(), 131);
        let mut again = Vec::new();
        back.save(&mut again).unwrap();
        assert_eq!(again, bytes, "read back and written again");
        let done = go(back).unwrap();
        assert_eq!(done.outcome().lines, whole.outcome().lines);
        assert_eq!(done.outcome().swept, whole.outcome().swept);
        // The rings are the last bytes but the count of values aside.
        let mut bent = bytes.clone();
        let i = bent.len() - 4 - 5;
        bent[i] = bent[i].wrapping_add(1).max(1);
        let back = Run::load(&mut bent.as_slice(), bent.len() as u64, 6).unwrap();
        let (mut a, mut b) = (vec![0; lag as usize], vec![0; lag as usize]);
        run.trail.copies.rings().read(230, 0, &mut a);
        back.trail.copies.rings().read(230, 0, &mut b);
        assert_ne!(a, b);
    }

    /// A checkpoint whose leading sweep is not `L` ahead of the trailing
    /// one (as no run leaves it while lines are unproved) is refused as
    /// damaged, not taken on to a proof that assumes it.
    #[test]
    fn a_census_whose_sweeps_are_not_l_apart_is_refused() {
        let (q_max, lag) = (20, 2304);
        let mut run = Run::kept(q_max, lag, 100);
        while run.trail.lines.p() < 2 * CHUNK {
            run.chunk(u32::MAX).unwrap();
        }
        assert!(!run.finished());
        let save = |run: &Run| {
            let mut bytes = Vec::new();
            run.save(&mut bytes).unwrap();
            bytes
        };
        let mut bytes = save(&run);
        assert!(Run::load(&mut bytes.as_slice(), bytes.len() as u64, 6).is_ok());
        // The leading sweep's `p`: after `Q`, `L`, the trailing sweep and
        // the leading sweep's `Q`.
        let mut trail = Vec::new();
        run.trail.lines.save(&mut trail).unwrap();
        let at = 8 + trail.len() + 4;
        let lead = run.lead.lines.p();
        assert_eq!(bytes[at..at + 4], lead.to_le_bytes());
        bytes[at..at + 4].copy_from_slice(&(lead + 1).to_le_bytes());
        let err = Run::load(&mut bytes.as_slice(), bytes.len() as u64, 6).err();
        assert_eq!(
            err.map(|e| e.to_string()),
            Some("the two sweeps not L apart".into())
        );
    }

    /// A census saved before the trailing sweep copies or fills anything
    /// is saved in format 3 and read as one, to the same census; one of
    /// more lines than the copies' budget holds copies nothing, and so stays
    /// in format 3 to its end (what the committed `Q = 300` run is checked
    /// with).
    #[test]
    fn a_census_that_copies_nothing_is_of_format_three() {
        let mut run = Run::new(12, 576, Layout::first_guess(12)).unwrap();
        while run.lead.lines.p() < 576 {
            run.chunk(u32::MAX).unwrap();
        }
        run.chunk(u32::MAX).unwrap();
        assert!(run.trail.lines.p() > 0 && run.trail.copies.count() == 0);
        assert_eq!(run.format(), 3);
        let mut bytes = Vec::new();
        run.save(&mut bytes).unwrap();
        let back = Run::load(&mut bytes.as_slice(), bytes.len() as u64, 3).unwrap();
        let mut again = Vec::new();
        back.save(&mut again).unwrap();
        assert_eq!(again, bytes);
        // 45,451 lines at Q = 300: no room for any period; 5,151 at 100.
        assert!(!Copies::new(super::super::line_count(300) as usize).has_room());
        assert!(Copies::new(super::super::line_count(100) as usize).has_room());
    }
}
