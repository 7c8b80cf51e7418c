//! The census of periods and starts without patterns (doc/grundy.md section
//! 4a): two sweeps of every line `q <= Q`, one `L` steps ahead of the other.
//! Nothing of a line's values is kept beyond a few states, so its memory does
//! not grow with the periods, as the census of [`super::census`] (which keeps
//! every proved line's pattern) does. Uses the sweep of `grundy::live`
//! (every line live), the census's dependency order, and `bytes` for
//! checkpoints.
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
//! Nothing is taken as proved that these steps do not show: a line whose
//! period does not divide `L` is never proved, and the census says so.

use crate::base::bytes::narrow;
use std::io::{self, Read, Write};

use super::census::dependency;
use super::checkpoint::{CheckpointError, Format};
use super::frozen::Layout;
use super::line;
use super::live::{Given, Live, View};
use super::used::Seen;
use crate::base::bytes::damaged;
use crate::base::bytes::stream::{get32, get64, put32, put32s, put64};
use crate::base::numeric::{divisors, lcm};
use crate::base::stop::Stop;

/// Steps the two sweeps take between looks at the proofs (and checkpoints).
pub const CHUNK: u32 = 256;
/// Values kept after a line's proof to refute periods quickly.
const WINDOW: usize = 1024;
/// "None" in the per-line tables.
const NONE: u32 = u32::MAX;
/// `x` of a line not started at a `p`.
const ABSENT: i16 = i16::MIN;

/// What the census proved of one line: its exact start and least period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fate {
    /// `q` of the line.
    pub q: u32,
    /// `r` of the line.
    pub r: u32,
    /// The least `p` from which `G(p,q,r) - p` repeats.
    pub start: u32,
    /// Its least period.
    pub period: u32,
}

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
    pub lines: Vec<Option<Fate>>,
    /// The last `p` of the trailing sweep.
    pub swept: u32,
}

/// The least-period work on one line, done on the trailing sweep's thread.
#[derive(Clone, Debug, Default)]
enum Probe {
    /// Not proved yet, or done.
    #[default]
    Idle,
    /// Proved at `c`: its states and first values are being looked at.
    Look(Box<Look>),
}

/// See the module's comment ("Least period").
#[derive(Clone, Debug)]
struct Look {
    /// The `p` of the proof.
    c: u32,
    /// `a`: the state compared with later ones.
    snap_at: u32,
    snap: Option<Seen>,
    /// `x(c + 1 ..= c + WINDOW)`.
    win: Vec<i16>,
    /// First divisor whose window may still be compared.
    wlo: usize,
    /// Divisors (by index) with `x(p) != x(p + d)` seen in the window.
    refuted: u128,
    /// Divisors compared by state so far (`S(a + d)` met), in order.
    checked: usize,
    /// Among them, those with `S(a) = S(a + d)`.
    equal: u128,
    /// A full test of a period `e` under way.
    ring: Option<Ring>,
}

/// The full test of `x(p) = x(p + e)` for `span - e` consecutive `p > from`
/// (`from > c`), `span` a multiple of `e` that is a period of the line from
/// `c + 1` on (`L`, or `P_M` once known): then `e` is one too.
#[derive(Clone, Debug)]
struct Ring {
    from: u32,
    e: u32,
    span: u32,
    x: Vec<i16>,
    /// `Some(true)`: confirmed; `Some(false)`: refuted.
    verdict: Option<bool>,
}

/// The trailing sweep and what runs beside it.
struct Trail {
    lines: Live,
    probes: Vec<Probe>,
    x: Values,
}

/// The leading sweep.
struct Lead {
    lines: Live,
    x: Values,
    lags: Lags,
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
}

/// Lags up to which the leading sweep keeps each line's last difference.
const SMALL: usize = 8;

/// For every line and every lag `e <= SMALL`, the last `p` of the leading
/// sweep with `x(p) != x(p - e)` (or a `p < first + e`, before there were
/// two values): when a line is proved at `c`, the leading sweep has passed
/// `c + L`, so a divisor `e` of `L` is a period of the line iff this is at
/// most `c + e` (no difference among `L - e` consecutive values after `c`,
/// which with period `L` is every `p > c`; a later difference refutes).
///
/// Each line's last values are a shift register (`hist[i]` is `x(p - i)`
/// after step `p`, [`ABSENT`] before its first `p`), so that a step compares
/// and updates all lags at once, in a few vector instructions: this runs
/// once per line and step, and a loop over the lags cost a fifth of the
/// sweep.
struct Lags {
    lags: Vec<u32>,
    hist: Vec<[i16; SMALL]>,
    last: Vec<[u32; SMALL]>,
}

/// Some lines of a [`Lags`], from line `from` on.
struct LagsPart<'a> {
    hist: &'a mut [[i16; SMALL]],
    last: &'a mut [[u32; SMALL]],
    from: usize,
}

impl LagsPart<'_> {
    /// Takes in `x(p)` of line `at` (counted from line 0).
    #[inline]
    fn observe(&mut self, at: usize, p: u32, x: i16) {
        let i = at - self.from;
        shift_in(&mut self.hist[i], &mut self.last[i], p, x);
    }
}

/// One step of a line's record: `last[e] = p` where `x != h[e]` (the value
/// `e + 1` steps back), then `x` shifted in. By hand in SSE4.1 where the
/// build has it (every build of `.cargo/config.toml`): the compiler makes
/// a branch per lag of the plain loop, and this runs once per line and step
/// of the leading sweep.
#[inline(always)]
fn shift_in(h: &mut [i16; SMALL], last: &mut [u32; SMALL], p: u32, x: i16) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
    {
        use std::arch::x86_64::*;
        const _: () = assert!(SMALL == 8);
        // SAFETY: SSE4.1 is enabled at compile time; the loads and stores
        // are unaligned ones within `h` (16 bytes) and `last` (32 bytes).
        unsafe {
            let hv = _mm_loadu_si128(h.as_ptr() as *const __m128i);
            let same = _mm_cmpeq_epi16(hv, _mm_set1_epi16(x));
            let (lo, hi) = (
                last.as_mut_ptr() as *mut __m128i,
                last.as_mut_ptr().add(4) as *mut __m128i,
            );
            let pv = _mm_set1_epi32(p.cast_signed());
            let keep_lo = _mm_cvtepi16_epi32(same);
            let keep_hi = _mm_cvtepi16_epi32(_mm_srli_si128::<8>(same));
            _mm_storeu_si128(lo, _mm_blendv_epi8(pv, _mm_loadu_si128(lo), keep_lo));
            _mm_storeu_si128(hi, _mm_blendv_epi8(pv, _mm_loadu_si128(hi), keep_hi));
            let shifted = _mm_insert_epi16::<0>(_mm_slli_si128::<2>(hv), x as i32);
            _mm_storeu_si128(h.as_mut_ptr() as *mut __m128i, shifted);
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse4.1")))]
    shift_in_plain(h, last, p, x);
}

/// [`shift_in`] as a plain loop.
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "sse4.1"),
    allow(dead_code)
)]
fn shift_in_plain(h: &mut [i16; SMALL], last: &mut [u32; SMALL], p: u32, x: i16) {
    for e in 0..SMALL {
        if h[e] != x {
            last[e] = p;
        }
    }
    h.copy_within(0..SMALL - 1, 1);
    h[0] = x;
}

impl Lags {
    fn new(divs: &[u32], n: usize) -> Lags {
        Lags {
            lags: divs
                .iter()
                .copied()
                .filter(|&d| d as usize <= SMALL)
                .collect(),
            hist: vec![[ABSENT; SMALL]; n],
            last: vec![[0; SMALL]; n],
        }
    }

    /// Every line, to be fed.
    fn whole(&mut self) -> LagsPart<'_> {
        self.split(0).1
    }

    /// The lines below `at` and those from `at` on, to be fed apart.
    fn split(&mut self, at: usize) -> (LagsPart<'_>, LagsPart<'_>) {
        let (h0, h1) = self.hist.split_at_mut(at);
        let (l0, l1) = self.last.split_at_mut(at);
        (
            LagsPart {
                hist: h0,
                last: l0,
                from: 0,
            },
            LagsPart {
                hist: h1,
                last: l1,
                from: at,
            },
        )
    }

    /// Whether `e` (one of the lags) is a period of the line `at` proved at
    /// `c` (the leading sweep being past `c + L`).
    fn period(&self, at: usize, e: u32, c: u32) -> Option<bool> {
        self.lags
            .contains(&e)
            .then(|| self.last[at][e as usize - 1] <= c + e)
    }

    /// Writes the record after step `p` (format 2: each line's last values
    /// at `p % SMALL`, then its last differences at the divisors of `L` up
    /// to `SMALL`; a value before the line's first `p` as 0).
    fn save(&self, w: &mut dyn Write, p: u32) -> io::Result<()> {
        for h in &self.hist {
            let mut ring = [0i16; SMALL];
            for (i, &x) in h.iter().enumerate() {
                if x != ABSENT {
                    ring[(p as usize + SMALL - i) % SMALL] = x;
                }
            }
            put32s(w, ring.iter().map(|&x| x.cast_unsigned() as u32))?;
        }
        for last in &self.last {
            put32s(w, self.lags.iter().map(|&e| last[e as usize - 1]))?;
        }
        Ok(())
    }

    /// Reads a record written by [`Lags::save`] after step `p`, the lines'
    /// first `p` being `first`.
    fn load(&mut self, r: &mut dyn Read, p: u32, first: &[u32]) -> io::Result<()> {
        for (h, &f) in self.hist.iter_mut().zip(first) {
            let mut ring = [0i16; SMALL];
            for x in ring.iter_mut() {
                *x = get16(r)?;
            }
            for (i, x) in h.iter_mut().enumerate() {
                let at = p as i64 - narrow::<i64, _>(i);
                *x = match at >= f as i64 {
                    true => ring[narrow::<usize, _>(at) % SMALL],
                    false => ABSENT,
                };
            }
        }
        for last in &mut self.last {
            // Lags not kept: as if every step differed (never asked for).
            *last = [p; SMALL];
            for &e in &self.lags {
                last[e as usize - 1] = get32(r)?;
            }
        }
        Ok(())
    }
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

impl Run {
    /// A census of the lines `q <= q_max` with lag `lag`, before its first
    /// step, with room for `G - p >= -below` (or more: `Live::room`).
    pub fn new(q_max: u32, lag: u32, below: u32) -> Result<Run, LagError> {
        let below = Live::room(q_max, below);
        if lag < 2 * q_max + 2 {
            return Err(LagError::TooShort {
                lag,
                least: 2 * q_max + 2,
            });
        }
        let divs: Vec<u32> = divisors(lag as u64)
            .iter()
            .map(|&d| narrow::<u32, _>(d))
            .collect();
        if divs.len() > 128 {
            return Err(LagError::TooManyDivisors { lag });
        }
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
                x: Values::default(),
            },
            lead: Lead {
                lines: Live::new(q_max, below),
                x: Values::default(),
                lags,
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
                (self.period[at] != NONE).then(|| Fate {
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
        if ahead {
            let left = self.lag - self.lead.lines.p();
            if self.lead.lines.p() > self.q_max && left >= 2 * SUB {
                head_start(&mut self.lead, self.q_max, HEAD.min(left) / SUB);
            } else {
                lead_steps(&mut self.lead, n, CHUNK.min(left) as usize);
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
                both_split(
                    &mut self.trail,
                    &mut self.lead,
                    &self.divs,
                    self.q_max,
                    &copy,
                );
            } else {
                let (trail, lead, divs) = (&mut self.trail, &mut self.lead, &self.divs);
                rayon::join(
                    || trail_steps(trail, divs, n, CHUNK as usize),
                    || lead_steps(lead, n, CHUNK as usize),
                );
            }
        }
        for l in [&self.trail.lines, &self.lead.lines] {
            if let Some(x) = l.below_window() {
                return Err(x);
            }
        }
        if !ahead {
            if !all_proved {
                self.compare(copied);
                self.prove();
            }
            self.decide();
        }
        Ok(())
    }

    /// Keeps each line's last difference between the two sweeps; `copied`:
    /// the leading sweep copied the lines proved before the chunk.
    fn compare(&mut self, copied: bool) {
        // A line proved before the chunk repeats with `L`; the leading sweep
        // copied it from the trailing one (and did not show it).
        let lines: Vec<usize> = (0..self.order.len())
            .filter(|&at| !copied || self.proved[at] == NONE)
            .collect();
        let (a, b) = (&self.trail.x, &self.lead.x);
        let k = a.steps();
        assert_eq!(k, b.steps());
        let p0 = self.trail.lines.p() - narrow::<u32, _>(k);
        let pick = |(low, high): (&[i16], &[i16]), at: usize| match at.checked_sub(low.len()) {
            None => low[at],
            Some(i) => high[i],
        };
        for i in 0..k {
            let (ra, rb) = (a.row(i), b.row(i));
            for &at in &lines {
                let x = pick(ra, at);
                if x != ABSENT && x != pick(rb, at) {
                    assert!(
                        self.proved[at] == NONE,
                        "line {:?} was proved, yet differs at p = {}",
                        self.order[at],
                        p0 + narrow::<u32, _>(i) + 1
                    );
                    self.last_diff[at] = p0 + narrow::<u32, _>(i) + 1;
                }
            }
        }
    }

    /// Proves the lines whose dependencies are proved and whose states in the
    /// two sweeps agree (see the module's comment).
    fn prove(&mut self) {
        let c = self.trail.lines.p();
        let (bias, q_max) = (self.trail.lines.bias(), self.q_max);
        for at in 0..self.order.len() {
            let q = self.order[at].0;
            if self.proved[at] != NONE || c < q.max(1) || !self.deps_proved(at) {
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
        None
    }

    /// Writes the census's state (between chunks).
    pub fn save(&self, w: &mut dyn Write) -> io::Result<()> {
        put32(w, self.q_max)?;
        put32(w, self.lag)?;
        self.trail.lines.save(w)?;
        self.lead.lines.save(w)?;
        self.lead.lags.save(w, self.lead.lines.p())?;
        put32s(w, self.last_diff.iter().copied())?;
        put32s(w, self.proved.iter().copied())?;
        put32s(w, self.period.iter().copied())?;
        put32s(w, self.next_dep.iter().copied())?;
        for (probe, full) in self.trail.probes.iter().zip(&self.full) {
            put32(w, crate::base::bytes::len32(full.len())?)?;
            put32s(w, full.iter().map(|&(e, ok)| e << 1 | ok as u32))?;
            match probe {
                Probe::Idle => put32(w, 0)?,
                Probe::Look(look) => {
                    put32(w, 1)?;
                    look.save(w)?;
                }
            }
        }
        Ok(())
    }

    /// Reads a census written by [`Run::save`] from a file of `bytes`
    /// bytes: its sweeps hold at least 16 bytes a line, so a count of lines
    /// the file cannot hold is refused before anything is allocated for them.
    pub fn load(r: &mut dyn Read, bytes: u64) -> io::Result<Run> {
        let q_max = get32(r)?;
        let lag = get32(r)?;
        if q_max > 1000 {
            return Err(damaged("more than 1000 rows"));
        }
        if 16 * super::line(q_max, q_max) as u64 > bytes {
            return Err(damaged("more lines than the file can hold"));
        }
        let trail = Live::load(r, q_max)?;
        let lead = Live::load(r, q_max)?;
        let mut run = Run::new(q_max, lag, trail.bias()).map_err(|e| damaged(&e.to_string()))?;
        let first: Vec<u32> = run.order.iter().map(|&(q, _)| q.max(1)).collect();
        run.lead.lags.load(r, lead.p(), &first)?;
        let n = run.order.len();
        let table = |r: &mut dyn Read| (0..n).map(|_| get32(r)).collect::<io::Result<Vec<_>>>();
        run.last_diff = table(r)?;
        run.proved = table(r)?;
        run.period = table(r)?;
        run.next_dep = table(r)?;
        for at in 0..n {
            let k = get32(r)? as usize;
            if k > 64 {
                return Err(damaged("more than 64 full tests"));
            }
            run.full[at] = (0..k)
                .map(|_| get32(r).map(|v| (v >> 1, v & 1 == 1)))
                .collect::<io::Result<_>>()?;
            run.trail.probes[at] = match get32(r)? {
                0 => Probe::Idle,
                1 => Probe::Look(Box::new(Look::load(r, lag)?)),
                _ => return Err(damaged("an unknown probe")),
            };
        }
        run.trail.lines = trail;
        run.lead.lines = lead;
        Ok(run)
    }
}

/// Steps of the leading sweep in a call while it gets `L` ahead alone.
const HEAD: u32 = 8192;
/// Steps the two halves of a sweep split in two pass on at a time.
const SUB: u32 = 64;
/// Steps of a chunk of [`both_split`], a multiple of [`CHUNK`] (so that
/// proofs stay at multiples of it) long enough that its pipeline's first
/// and last rounds, with fewer stretches than cores can take, are few.
const LONG: u32 = 1024;
/// The least stretch of a chunk of [`both_split`] (a power of two).
const SUB_CHUNK: usize = 16;
/// Once at least `1 / COPY_FROM` of the lines are proved, a chunk is one of
/// [`both_split`] (the leading sweep copying the proved lines, each sweep
/// split in two, the four parts shared between the cores); before, the two
/// sweeps run side by side, one core each, every line computed in both.
const COPY_FROM: usize = 4;

/// Steps of the trailing sweep in a call once every line is proved.
const ALONE: u32 = 2048;

/// `rounds * SUB` steps of the leading sweep alone, on both cores
/// ([`split_steps`]), each half keeping its lines' small-lag differences.
fn head_start(lead: &mut Lead, q_max: u32, rounds: u32) {
    let q1 = split_row(q_max);
    let (mut lo, mut hi) = lead.lags.split(line(q1, 0));
    split_steps(
        &mut lead.lines,
        q1,
        rounds,
        |at, p, x, _| lo.observe(at, p, narrow::<i16, _>(x)),
        |at, p, x, _| hi.observe(at, p, narrow::<i16, _>(x)),
    );
}

/// A chunk of both sweeps on both cores, once enough lines are proved: each
/// split in two at the same row ([`split_row`]), its lower rows a stretch
/// of steps ahead of its upper ones (as [`split_steps`]), and
/// the leading sweep a stretch behind the trailing one, from which it
/// copies the lines of `copy` (proved at or before the trailing sweep's `p`
/// before this chunk, `c`) instead of taking the mex. Those are the values
/// the mex would give: a line proved at `c` has `x(p + L) = x(p)` for every
/// `p > c` (the module's comment, "Proof"). Nothing reads what a copy skips:
/// the line's used set (not asked for once proved), its small-lag record
/// (settled by `c + L`, which the leading sweep had passed at the proof) and
/// its value here (not compared: it cannot differ). Round `j` runs four
/// stretches at once: the trailing sweep's lower rows at stretch `j`, its
/// upper rows at `j - 1`, the leading sweep's lower rows at `j - 1` and its
/// upper rows at `j - 2`; each has what it needs from the rounds before, and
/// rayon shares them between the cores.
fn both_split(trail: &mut Trail, lead: &mut Lead, divs: &[u32], q_max: u32, copy: &[bool]) {
    let q1 = split_row(q_max);
    let (n, nlow) = (copy.len(), line(q1, 0));
    // Stretches of some 2^18 line steps a half (a millisecond or so), so
    // that passing them between the cores costs little beside them.
    let sub = ((1 << 18) / n)
        .clamp(SUB_CHUNK, LONG as usize / 8)
        .next_power_of_two();
    let (nhigh, rounds) = (n - nlow, LONG as usize / sub);
    let mut t_part = trail.lines.low_part(q1);
    let mut l_part = lead.lines.low_part(q1);
    // Per stretch: the lower rows' values passed up, and each half's `x`.
    let (mut t_up, mut l_up) = (vec![Vec::new(); rounds], vec![Vec::new(); rounds]);
    let (mut t_low, mut t_high) = (vec![Vec::new(); rounds], vec![Vec::new(); rounds]);
    let (mut l_low, mut l_high) = (vec![Vec::new(); rounds], vec![Vec::new(); rounds]);
    {
        let (t_lines, l_lines) = (&mut trail.lines, &mut lead.lines);
        let (t_lo, t_hi) = trail.probes.split_at_mut(nlow);
        let (mut l_lo, mut l_hi) = lead.lags.split(nlow);
        for j in 0..rounds + 2 {
            // Paired so that each core starts on a half of the trailing
            // sweep, and a core that is done takes the other's second task.
            let tl = || {
                (j < rounds).then(|| {
                    low_steps(
                        &mut t_part,
                        sub,
                        true,
                        |_| None,
                        |at, p, x, used| show(&mut t_lo[at], divs, p, x, used),
                    )
                })
            };
            let th = || {
                (1..=rounds).contains(&j).then(|| {
                    let up = &t_up[j - 1];
                    high_steps(
                        t_lines,
                        q1,
                        up,
                        true,
                        |_| None,
                        |at, p, x, used| show(&mut t_hi[at - nlow], divs, p, x, used),
                    )
                })
            };
            let ll = || {
                (1..=rounds).contains(&j).then(|| {
                    let from: &[i16] = &t_low[j - 1];
                    let given = |i: usize| {
                        Some(Given {
                            copy,
                            x: &from[i * nlow..(i + 1) * nlow],
                            from: 0,
                        })
                    };
                    low_steps(&mut l_part, sub, true, given, |at, p, x, _| {
                        l_lo.observe(at, p, narrow::<i16, _>(x))
                    })
                })
            };
            let lh = || {
                (2..=rounds + 1).contains(&j).then(|| {
                    let from: &[i16] = &t_high[j - 2];
                    let given = |i: usize| {
                        Some(Given {
                            copy,
                            x: &from[i * nhigh..(i + 1) * nhigh],
                            from: nlow,
                        })
                    };
                    let up = &l_up[j - 2];
                    high_steps(l_lines, q1, up, true, given, |at, p, x, _| {
                        l_hi.observe(at, p, narrow::<i16, _>(x))
                    })
                })
            };
            let ((tl, ll), (th, lh)) = rayon::join(|| rayon::join(tl, ll), || rayon::join(th, lh));
            if let Some((up, x)) = tl {
                (t_up[j], t_low[j]) = (up, x);
            }
            if let Some(x) = th {
                t_high[j - 1] = x;
            }
            if let Some((up, x)) = ll {
                (l_up[j - 1], l_low[j - 1]) = (up, x);
            }
            if let Some(x) = lh {
                l_high[j - 2] = x;
            }
        }
    }
    trail.lines.absorb(&t_part);
    lead.lines.absorb(&l_part);
    let values = |low, high| Values {
        n,
        nlow,
        sub,
        low,
        high,
    };
    trail.x = values(t_low, t_high);
    lead.x = values(l_low, l_high);
}

/// `sub` steps of a split sweep's lower rows (`part`, [`Live::low_part`]),
/// `given(i)` at the `i`-th, each line shown with `seen(line, p, x, used)`:
/// their values to pass up, and (if `keep`) their `x`, per step.
fn low_steps<'a>(
    part: &mut Live,
    sub: usize,
    keep: bool,
    given: impl Fn(usize) -> Option<Given<'a>>,
    mut seen: impl FnMut(usize, u32, i32, View),
) -> (Vec<u32>, Vec<i16>) {
    let nlow = part.now().len();
    let mut up = Vec::with_capacity(sub * nlow);
    let mut x = vec![ABSENT; if keep { sub * nlow } else { 0 }];
    for i in 0..sub {
        let p = part.p() + 1;
        let row = x.get_mut(i * nlow..(i + 1) * nlow);
        match row {
            Some(row) => part.step_given(given(i), |at, v, used| {
                row[at] = narrow::<i16, _>(v);
                seen(at, p, v, used)
            }),
            None => part.step_given(given(i), |at, v, used| seen(at, p, v, used)),
        }
        up.extend_from_slice(part.now());
    }
    (up, x)
}

/// The steps of a split sweep's rows from `q1` on that follow its lower
/// rows' values `up` (from [`low_steps`]), as there: (if `keep`) their `x`,
/// per step.
fn high_steps<'a>(
    lines: &mut Live,
    q1: u32,
    up: &[u32],
    keep: bool,
    given: impl Fn(usize) -> Option<Given<'a>>,
    mut seen: impl FnMut(usize, u32, i32, View),
) -> Vec<i16> {
    let nlow = line(q1, 0);
    let nhigh = lines.now().len() - nlow;
    let steps = up.len() / nlow;
    let mut x = vec![ABSENT; if keep { steps * nhigh } else { 0 }];
    for (i, low) in up.chunks_exact(nlow).enumerate() {
        let p = lines.p() + 1;
        match x.get_mut(i * nhigh..(i + 1) * nhigh) {
            Some(row) => lines.step_above(q1, low, given(i), |at, v, used| {
                row[at - nlow] = narrow::<i16, _>(v);
                seen(at, p, v, used)
            }),
            None => lines.step_above(q1, low, given(i), |at, v, used| seen(at, p, v, used)),
        }
    }
    x
}

/// `rounds * SUB` steps of the trailing sweep alone once every line is
/// proved (only least periods are still looked for), on both cores
/// ([`split_steps`]); its values are not kept (nothing compares them now).
fn trail_alone(trail: &mut Trail, divs: &[u32], q_max: u32, rounds: u32) {
    let q1 = split_row(q_max);
    let nlow = line(q1, 0);
    let (lo, hi) = trail.probes.split_at_mut(nlow);
    split_steps(
        &mut trail.lines,
        q1,
        rounds,
        |at, p, x, used| show(&mut lo[at], divs, p, x, used),
        |at, p, x, used| show(&mut hi[at - nlow], divs, p, x, used),
    );
}

/// Shows a line's `x(p)` and `S(p)` to its probe, if it is looking (inline:
/// it runs once per line and step of the trailing sweep, and most probes
/// are idle).
#[inline(always)]
fn show(probe: &mut Probe, divs: &[u32], p: u32, x: i32, used: View) {
    if let Probe::Look(look) = probe {
        look.observe(divs, p, narrow::<i16, _>(x), used);
    }
}

/// The row from which [`split_steps`] splits a sweep of the rows `q <= q_max`:
/// the lower rows take a little more than half of the lines, as the upper
/// ones also enter the lower rows' values into their column sets.
fn split_row(q_max: u32) -> u32 {
    let all = line(q_max, q_max) + 1;
    (1..=q_max)
        .find(|&q| line(q, 0) * 15 >= all * 8)
        .unwrap_or(q_max)
}

/// `rounds * SUB` steps of a sweep (all of whose rows have started) on
/// both cores: the rows below `q1` as a sweep of their own one stretch of
/// [`SUB`] steps ahead, their values passed on to the rows above
/// ([`Live::step_above`]), which then takes them back. The values are those
/// of plain steps (the lower rows depend on nothing above them). `low` and
/// `high` are shown each line of their part as `(line, p, x, used set)`.
fn split_steps<L, H>(lines: &mut Live, q1: u32, rounds: u32, mut low: L, mut high: H)
where
    L: FnMut(usize, u32, i32, View) + Send,
    H: FnMut(usize, u32, i32, View) + Send,
{
    let mut part = lines.low_part(q1);
    let sub = SUB as usize;
    let (mut cur, _) = low_steps(&mut part, sub, false, |_| None, &mut low);
    for _ in 1..rounds {
        let ((next, _), _) = rayon::join(
            || low_steps(&mut part, sub, false, |_| None, &mut low),
            || high_steps(lines, q1, &cur, false, |_| None, &mut high),
        );
        cur = next;
    }
    high_steps(lines, q1, &cur, false, |_| None, &mut high);
    lines.absorb(&part);
}

/// `k` steps of the leading sweep, its values kept per step.
fn lead_steps(lead: &mut Lead, n: usize, k: usize) {
    let mut x = vec![ABSENT; n * k];
    for row in x.chunks_exact_mut(n) {
        let p = lead.lines.p() + 1;
        let mut lags = lead.lags.whole();
        lead.lines.step(|at, x, _| {
            row[at] = narrow::<i16, _>(x);
            lags.observe(at, p, narrow::<i16, _>(x));
        });
    }
    lead.x = whole(n, k, x);
}

/// `k` steps of the trailing sweep, its values kept per step and shown to
/// the lines being looked at.
fn trail_steps(trail: &mut Trail, divs: &[u32], n: usize, k: usize) {
    let mut x = vec![ABSENT; n * k];
    let probes = &mut trail.probes;
    for row in x.chunks_exact_mut(n) {
        let p = trail.lines.p() + 1;
        trail.lines.step(|at, x, used| {
            row[at] = narrow::<i16, _>(x);
            show(&mut probes[at], divs, p, x, used);
        });
    }
    trail.x = whole(n, k, x);
}

/// `k` steps' values `x` of `n` lines as [`Values`] of one stretch.
fn whole(n: usize, k: usize, x: Vec<i16>) -> Values {
    Values {
        n,
        nlow: 0,
        sub: k,
        low: vec![Vec::new()],
        high: vec![x],
    }
}

impl Look {
    /// Takes in `x(p)` and `S(p)`.
    fn observe(&mut self, divs: &[u32], p: u32, x: i16, used: View) {
        let t = (p - self.c) as usize;
        if t <= WINDOW {
            self.win.push(x);
        }
        // Windows: x(c + i) against x(c + i + d), i in 1..=WINDOW.
        while self.wlo < divs.len() && (divs[self.wlo] as usize) + WINDOW < t {
            self.wlo += 1;
        }
        let mut i = self.wlo;
        while i < divs.len() && (divs[i] as usize) < t {
            if self.win[t - divs[i] as usize - 1] != x {
                self.refuted |= 1 << i;
            }
            i += 1;
        }
        if p == self.snap_at {
            self.snap = Some(used.seen_from(p));
        } else if p > self.snap_at
            && self.checked < divs.len()
            && p == self.snap_at + divs[self.checked]
        {
            if Some(used.seen_from(p)) == self.snap {
                self.equal |= 1 << self.checked;
            }
            self.checked += 1;
        }
        if let Some(ring) = &mut self.ring {
            ring.observe(p, x);
        }
    }

    fn save(&self, w: &mut dyn Write) -> io::Result<()> {
        put32s(
            w,
            [
                self.c,
                self.snap_at,
                narrow::<u32, _>(self.wlo),
                narrow::<u32, _>(self.checked),
            ],
        )?;
        put64(w, narrow::<u64, _>(self.refuted))?;
        put64(w, (self.refuted >> 64) as u64)?;
        put64(w, narrow::<u64, _>(self.equal))?;
        put64(w, (self.equal >> 64) as u64)?;
        match &self.snap {
            None => put32(w, 0)?,
            Some(s) => {
                put32(w, 1)?;
                s.save(w)?;
            }
        }
        put32(w, crate::base::bytes::len32(self.win.len())?)?;
        put32s(w, self.win.iter().map(|&x| x.cast_unsigned() as u32))?;
        match &self.ring {
            None => put32(w, 0),
            Some(ring) => {
                put32(w, 1)?;
                let verdict = match ring.verdict {
                    None => 0,
                    Some(false) => 1,
                    Some(true) => 2,
                };
                put32s(w, [ring.from, ring.e, verdict])?;
                put32s(w, ring.x.iter().map(|&x| x.cast_unsigned() as u32))
            }
        }
    }

    /// Reads a probe of a census with lag `lag`.
    fn load(r: &mut dyn Read, lag: u32) -> io::Result<Look> {
        let (c, snap_at, wlo, checked) = (get32(r)?, get32(r)?, get32(r)?, get32(r)?);
        let wide = |r: &mut dyn Read| -> io::Result<u128> {
            let lo = get64(r)? as u128;
            Ok(lo | (get64(r)? as u128) << 64)
        };
        let refuted = wide(r)?;
        let equal = wide(r)?;
        let snap = match get32(r)? {
            0 => None,
            _ => Some(Seen::load(r)?),
        };
        let values = |r: &mut dyn Read, k: usize| -> io::Result<Vec<i16>> {
            (0..k).map(|_| get16(r)).collect()
        };
        let k = get32(r)? as usize;
        if k > WINDOW || wlo > 128 || checked > 128 {
            return Err(damaged("a probe out of range"));
        }
        let win = values(r, k)?;
        let ring = match get32(r)? {
            0 => None,
            _ => {
                let (from, e, v) = (get32(r)?, get32(r)?, get32(r)?);
                if e > 1 << 28 {
                    return Err(damaged("a test period out of range"));
                }
                // The span is not kept: `L` until the next look narrows it.
                Some(Ring {
                    from,
                    e,
                    span: lag,
                    x: values(r, e as usize)?,
                    verdict: [None, Some(false), Some(true)][v.min(2) as usize],
                })
            }
        };
        Ok(Look {
            c,
            snap_at,
            snap,
            win,
            wlo: wlo as usize,
            refuted,
            checked: checked as usize,
            equal,
            ring,
        })
    }
}

impl Ring {
    /// The test of `e` on the values after `from` within the period `span`.
    fn new(from: u32, e: u32, span: u32) -> Ring {
        Ring {
            from,
            e,
            span,
            x: vec![0; e as usize],
            verdict: None,
        }
    }

    /// The test within `span` (a period from `c + 1` on that `e` divides),
    /// if shorter, the values up to `p` having been taken in: `span - e`
    /// equal pairs may already be there.
    fn narrow(&mut self, span: u32, p: u32) {
        if span < self.span {
            self.span = span;
            if self.verdict.is_none() && p >= self.from + span {
                self.verdict = Some(true);
            }
        }
    }

    /// Takes in `x(p)`.
    fn observe(&mut self, p: u32, x: i16) {
        if self.verdict.is_some() || p <= self.from {
            return;
        }
        let t = p - self.from;
        let slot = ((t - 1) % self.e) as usize;
        if t > self.e && self.x[slot] != x {
            self.verdict = Some(false);
            return;
        }
        self.x[slot] = x;
        if t >= self.span {
            self.verdict = Some(true);
        }
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
    /// Shorter than the census's rule needs (`2Q + 2`).
    #[error("the lag {lag} is below 2Q + 2 = {least}")]
    TooShort {
        /// The lag given.
        lag: u32,
        /// The least lag for these lines.
        least: u32,
    },
    /// More divisors than the census tracks.
    #[error("the lag {lag} has more than 128 divisors")]
    TooManyDivisors {
        /// The lag given.
        lag: u32,
    },
}

/// The checkpoint's format (`C3GLAG` and two digits). Version 3 is version 2
/// but for the leading sweep's used sets of proved lines, stale since that
/// sweep copies their values ([`lead_copying`]): a build that computed them
/// must not continue it, while this one reads either.
pub const VERSION: u32 = 3;

const FORMAT: Format = Format {
    letters: b"C3GLAG",
    version: VERSION,
    oldest: 2,
    what: "grundy-periods",
};

/// Writes `run` to `path` whole (beside it, then renamed), with a CRC.
pub fn save(run: &Run, path: &std::path::Path) -> io::Result<()> {
    FORMAT.save(path, |w| run.save(w))
}

/// Reads a checkpoint written by [`save`] (or by a build of version 2).
pub fn load(path: &std::path::Path) -> Result<Run, CheckpointError> {
    FORMAT.load(path, |r, bytes, _| Run::load(r, bytes))
}

impl Run {
    /// If this run started again from `p = 1` because a value fell below
    /// the window: that value `G - p`, and how far down the new window goes.
    pub fn restarted(&self) -> Option<(i32, u32)> {
        self.restarted.map(|x| (x, self.trail.lines.bias()))
    }

    /// `Q` and `L` of the census.
    pub fn shape(&self) -> (u32, u32) {
        (self.q_max, self.lag)
    }
}

/// A 16-bit signed value stored in 32 bits; a stored value past 16 bits
/// means a damaged file.
fn get16(r: &mut dyn Read) -> io::Result<i16> {
    u16::try_from(get32(r)?)
        .map(u16::cast_signed)
        .map_err(|_| crate::base::bytes::damaged("a 16-bit value past 16 bits"))
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
        let want: Vec<(u32, u32, u32, u32)> =
            super::super::census::census(q_max, 1 << 20, &stop, &mut |_| {})
                .lines
                .iter()
                .map(|f| (f.q, f.r, f.start, f.period))
                .collect();
        assert_eq!(want.len(), 231);
        for copy_from in [Some(1), None, Some(usize::MAX)] {
            let mut run = Run::new(q_max, lag, Layout::first_guess(q_max)).unwrap();
            run.copy_from = copy_from.unwrap_or(run.copy_from);
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
            let got: Vec<_> = run
                .outcome()
                .lines
                .iter()
                .map(|f| f.map(|f| (f.q, f.r, f.start, f.period)).unwrap())
                .collect();
            assert_eq!(got, want, "copying from {copy_from:?} lines proved");
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
}
