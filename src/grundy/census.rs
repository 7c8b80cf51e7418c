//! The certified Grundy census: for every line `(q, r)`, `q <= Q`, the exact
//! start and least period from which `G(p,q,r) - p` repeats, each proved by the
//! rule below (doc/grundy.md section 3). Uses the census's sweep
//! (`grundy::lines`).
//!
//! # The rule
//!
//! Write `x(p) = G(p,q,r) - p` and `S(p)` for the line's set of used values
//! after step `p`, seen from `p` (`Used::seen_from`). Step `p + 1` computes
//! the line's value from `S(p)` and the values its middle and top row moves
//! reach at `p + 1`, all seen from `p + 1`; so `S(p + 1)` and `x(p + 1)` are a
//! function of `S(p)` and those values. The lines those moves reach (its
//! *dependencies*) come earlier in the sweep's order. Suppose each dependency
//! `d` is proved to repeat from `b_d` with period `K_d`; let `P` be the least
//! common multiple of the `K_d`. If for some `c >= b_d - 1` for every `d` (so
//! that every dependency repeats from step `c + 1` on) and some `k >= 1`
//! `S(c) = S(c + kP)`, then by induction on `j` the inputs of step
//! `c + j + 1` and of step `c + kP + j + 1` are equal, so
//! `S(c + j) = S(c + kP + j)` and `x(c + j) = x(c + kP + j)` for every
//! `j >= 1`: the line repeats from `b = c + 1` with period `kP`. Lines
//! without dependencies (`(0,0)`, whose value is `p - 1`) have `P = 1`.
//!
//! # The two passes
//!
//! The first pass keeps each line's states at the last multiples of a common
//! grid `g` (64 at first, then the least common multiple of the periods
//! found, while below 2^22). Once every dependency of a line is *detected*
//! (has a bound `b_d` and a period `K_d` from the rule) and `P` divides `g`,
//! the line compares its states at grid points `c >= max b_d - 1`, kept in a
//! hash map and compared in full; when `P` does not divide `g` it uses a
//! grid of its own (a multiple of `P`, at least 64) from the current `p`.
//! The first state met again is at the first grid point `c` in the cycle of
//! the line's states: the line is detected with bound `c + 1` and period
//! `kg`, and its dependents may go on at once. It then records its next `kg`
//! values (one period), takes their least period (the least divisor of `kg`
//! they repeat with: the values from the bound on are purely periodic, so
//! this is the line's least period) and is retired: from then on its values
//! come from the recording. As each bound is at most one grid step past the
//! first `p` from which the line's states repeat, the bounds do not pile up
//! along chains of dependencies.
//!
//! The second pass sweeps again, each line live up to `b - 1` and then
//! retired with its pattern `y` (least period `d`, continued backwards:
//! `y(p) = y(p + d)`). The exact start `s` is one past the last `p < b` with
//! `x(p) != y(p)` (none: the line's first `p`). For `p >= s`, `x(p) = y(p)`
//! (both repeat with `d` from `s` and agree from `b`); and if `s` is past the
//! line's first `p`, `x(s - 1) != x(s - 1 + d) = y(s - 1)`.

use crate::base::bytes::narrow;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use super::frozen::Layout;
use super::line;
use super::lines::Lines;
use super::pattern::Pattern;
use super::used::Seen;
use crate::base::numeric::{divisors, lcm};
use crate::base::stop::Stop;

/// What the census proved of one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineFate {
    /// `q` of the line.
    pub q: u32,
    /// `r` of the line.
    pub r: u32,
    /// The least `p` from which `G(p,q,r) - p` repeats.
    pub start: u32,
    /// Its least period.
    pub period: u32,
    /// `G(p,q,r) - p` for `p = start .. start + period` (`|G - p| < 2Q`).
    pub pattern: Vec<i16>,
}

impl From<&LineFate> for super::ProvedLine {
    fn from(f: &LineFate) -> super::ProvedLine {
        super::ProvedLine {
            q: f.q,
            r: f.r,
            start: f.start,
            period: f.period,
        }
    }
}

impl LineFate {
    /// `G(p,q,r)` for `p >= start`, exactly: `p + (G - p)` passes `2^64` for
    /// `p` near it, so the value is a `u128` (never negative: `G >= 0`).
    pub fn value(&self, p: u64) -> Option<u128> {
        let i: usize = (p.checked_sub(u64::from(self.start))? % u64::from(self.period))
            .try_into()
            .expect("an index below the period");
        u128::from(p).checked_add_signed(i128::from(self.pattern[i]))
    }
}

/// How far a census got.
#[derive(Debug)]
pub struct Census {
    /// The lines proved, in the sweep's order: complete when every line of
    /// `q <= Q` was proved before `max_p`.
    pub lines: Vec<LineFate>,
    /// The `Q` asked for.
    pub q_max: u32,
    /// The last `p` of the first pass.
    pub swept: u32,
}

/// `(q, r)` of every line, in the sweep's order.
fn order(q_max: u32) -> Vec<(u32, u32)> {
    (0..=q_max)
        .flat_map(|q| (0..=q).map(move |r| (q, r)))
        .collect()
}

/// Where a census is, for its progress: the pass (1 or 2), `p`, and the
/// lines proved (first pass) or given their exact start (second).
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// 1 or 2.
    pub pass: u32,
    /// The last `p` swept.
    pub p: u32,
    /// Lines done in this pass.
    pub done: usize,
    /// Lines still computed by the mex.
    pub live: usize,
}

/// The first grid of the first pass (see the module's comment).
const MIN_GRID: u64 = 64;
/// The largest the common grid grows to.
const MAX_GRID: u64 = 1 << 22;
/// States a waiting line keeps, at the last grid points.
const EARLY: usize = 64;
/// States a watching line keeps before it starts afresh from its current `p`
/// with twice as many allowed (bounds the memory of a line with a long tail).
const FIRST_CAP: usize = 1 << 12;

/// A line in the first pass.
enum Watch {
    /// Dependency `next` (in the order of [`dependency`]) is not detected
    /// yet; `unit` is the least common multiple of the periods of those before
    /// it, `from` the latest of their bounds; `early` the line's states at the
    /// last grid points (multiples of the common grid).
    Waiting {
        next: u32,
        unit: u64,
        from: u32,
        early: VecDeque<(u32, Seen)>,
    },
    /// Its states at `at + i * grid`, `i` the map's value, `at` past every
    /// dependency's bound and `grid` a multiple of their periods.
    Watching {
        grid: u64,
        at: u32,
        states: HashMap<Seen, u32>,
        cap: usize,
    },
    /// Detected: `S(bound - 1) = S(bound - 1 + period)`; the values from
    /// `from` on are being recorded. Its dependents may use it already.
    Recording {
        bound: u32,
        period: u64,
        from: u32,
        x: Vec<i16>,
    },
    /// Repeats from `bound` with its least period `period`, and is retired.
    Proved { bound: u32, period: u32 },
}

impl Watch {
    /// The bound and a period, once detected.
    fn detected(&self) -> Option<(u32, u64)> {
        match *self {
            Watch::Recording { bound, period, .. } => Some((bound, period)),
            Watch::Proved { bound, period } => Some((bound, period as u64)),
            _ => None,
        }
    }
}

/// Dependency `i < q + r` of line `(q, r)`: the lines its middle row moves
/// reach, then those its top row moves reach (see the sweep's rule).
pub(super) fn dependency(q: u32, r: u32, i: u32) -> (u32, u32) {
    if i < q { (i, r.min(i)) } else { (q, i - q) }
}

/// Proves the fate of every line with `q <= q_max`, sweeping `p` up to
/// `max_p` at most in the first pass. `progress` is called after every step
/// of either pass. Stops early (returning no line) when `stop` is set.
pub fn census(q_max: u32, max_p: u32, stop: &Stop, progress: &mut dyn FnMut(Progress)) -> Census {
    let mut below = Layout::first_guess(q_max);
    loop {
        let passes = first_pass(q_max, max_p, below, stop, progress).and_then(|(found, swept)| {
            let lines = if stop.requested() {
                Vec::new()
            } else {
                second_pass(q_max, found, below, stop, progress)?
            };
            Ok(Census {
                lines,
                q_max,
                swept,
            })
        });
        match passes {
            Ok(census) => return census,
            // A value below the sweep's window: again, with room for it.
            Err(x) => below = x.unsigned_abs() + 64,
        }
    }
}

/// Each line's pattern from its bound (least period); `None` for a line not
/// proved.
type Found = Vec<Option<Arc<Pattern>>>;

/// Each line's bound and pattern (from the bound on, least period), `None`
/// for lines not proved by `max_p`; and the last `p` swept. `Err(x)`: a value
/// `G - p = x` fell below the window for `G - p >= -below`.
fn first_pass(
    q_max: u32,
    max_p: u32,
    below: u32,
    stop: &Stop,
    progress: &mut dyn FnMut(Progress),
) -> Result<(Found, u32), i32> {
    let n = line(q_max, q_max) + 1;
    let mut watch: Vec<Watch> = (0..n)
        .map(|_| Watch::Waiting {
            next: 0,
            unit: 1,
            from: 1,
            early: VecDeque::new(),
        })
        .collect();
    let mut found: Found = vec![None; n];
    let mut lines = Lines::new(q_max, below);
    let order = order(q_max);
    let mut grid = MIN_GRID;
    let mut proved = 0;
    while proved < n && lines.p() < max_p && !stop.requested() {
        let p = lines.p() + 1;
        let mut done = Vec::new();
        let mut periods = Vec::new();
        lines.step(|at, x, used| {
            let (q, r) = order[at];
            let (before, rest) = watch.split_at_mut(at);
            let w = &mut rest[0];
            let was = w.detected().is_some();
            let line = Step { q, r, p, x, grid };
            let pattern = observe(w, before, line, || used.seen_from(p));
            if let (false, Some((_, k))) = (was, w.detected()) {
                periods.push(k);
            }
            if let Some(pattern) = pattern {
                done.push((at, pattern));
            }
        });
        if let Some(x) = lines.below_window() {
            return Err(x);
        }
        for (at, pattern) in done {
            proved += 1;
            let pattern = Arc::new(pattern);
            found[at] = Some(pattern.clone());
            lines.retire(at, pattern);
        }
        for k in periods {
            let wider = lcm(grid, k);
            if wider != grid && wider <= MAX_GRID {
                grid = wider;
                for w in &mut watch {
                    if let Watch::Waiting { early, .. } = w {
                        early.retain(|(at, _)| (*at as u64).is_multiple_of(grid));
                    }
                }
            }
        }
        progress(Progress {
            pass: 1,
            p,
            done: proved,
            live: lines.live(),
        });
    }
    Ok((found, lines.p()))
}

/// A live line at a step of the first pass: its value was `p + x`, and the
/// common grid is `grid`.
struct Step {
    q: u32,
    r: u32,
    p: u32,
    x: i32,
    grid: u64,
}

/// One step of a live line in the first pass: updates its watch `w` after
/// step `p`, its state being `state()`, from the watches `before` it (its
/// dependencies are among them); returns the line's pattern (from its bound,
/// least period) when its recording ends at this step.
fn observe(w: &mut Watch, before: &[Watch], at: Step, state: impl Fn() -> Seen) -> Option<Pattern> {
    let Step { q, r, p, x, grid } = at;
    match w {
        Watch::Waiting {
            next,
            unit,
            from,
            early,
        } => {
            if (p as u64).is_multiple_of(grid) {
                early.push_back((p, state()));
                if early.len() > EARLY {
                    early.pop_front();
                }
            }
            (*next, *unit, *from) = advance(before, q, r, *next, *unit, *from);
            if *next < q + r || p < *from {
                return None;
            }
            if grid.is_multiple_of(*unit) {
                let from = *from;
                let kept: Vec<(u32, Seen)> = early.drain(..).filter(|e| e.0 >= from).collect();
                if !kept.is_empty() {
                    *w = watch_from(kept, grid, p);
                }
            } else {
                // The common grid does not suit: a grid of its own, from here.
                *w = Watch::Watching {
                    grid: *unit * MIN_GRID.div_ceil(*unit),
                    at: p,
                    states: HashMap::from([(state(), 0)]),
                    cap: FIRST_CAP,
                };
            }
            None
        }
        Watch::Watching { .. } => {
            if let Some(found) = compare(w, p, state) {
                *w = found;
            }
            None
        }
        Watch::Recording {
            bound,
            period,
            from,
            x: seen,
        } => {
            debug_assert!(p >= *from);
            seen.push(i16::try_from(x).expect("G - p fits in 16 bits"));
            if (seen.len() as u64) < *period {
                return None;
            }
            let recorded = Pattern {
                from: *from,
                x: std::mem::take(seen),
            };
            let pattern = least(&recorded, *bound);
            *w = Watch::Proved {
                bound: *bound,
                period: pattern.period(),
            };
            Some(pattern)
        }
        Watch::Proved { .. } => unreachable!("a proved line is retired"),
    }
}

/// A watching line at step `p`: its state, at a grid point, is compared with
/// those kept; the line's new watch if one of them is met again.
fn compare(w: &mut Watch, p: u32, state: impl Fn() -> Seen) -> Option<Watch> {
    let Watch::Watching {
        grid,
        at,
        states,
        cap,
    } = w
    else {
        unreachable!("only a watching line compares its states")
    };
    let since = (p - *at) as u64;
    if !since.is_multiple_of(*grid) {
        return None;
    }
    let s = state();
    let j = since / *grid;
    if let Some(&i) = states.get(&s) {
        return Some(detected(
            *at as u64 + i as u64 * *grid,
            (j - i as u64) * *grid,
            p,
        ));
    }
    if states.len() >= *cap {
        // Start afresh from here (still past every dependency's bound) with
        // room for twice as many states.
        states.clear();
        *at = p;
        *cap *= 2;
        states.insert(s, 0);
    } else {
        states.insert(s, narrow::<u32, _>(j));
    }
    None
}

/// The watch of a line whose states at the consecutive grid points of
/// `kept` (all past its dependencies' bounds) are known, at step `p`:
/// detected if two of them are equal (the first state met again), else
/// watching from the first.
fn watch_from(kept: Vec<(u32, Seen)>, grid: u64, p: u32) -> Watch {
    let at = kept[0].0;
    let mut states = HashMap::new();
    for (j, (_, s)) in kept.into_iter().enumerate() {
        if let Some(&i) = states.get(&s) {
            return detected(at as u64 + i as u64 * grid, (j as u64 - i as u64) * grid, p);
        }
        states.insert(s, narrow::<u32, _>(j));
    }
    let cap = FIRST_CAP.max(2 * states.len());
    Watch::Watching {
        grid,
        at,
        states,
        cap,
    }
}

/// A line detected at step `p`: `S(c) = S(c + period)`.
fn detected(c: u64, period: u64, p: u32) -> Watch {
    assert!(period < 1 << 31, "a period beyond 2^31");
    Watch::Recording {
        bound: narrow::<u32, _>(c) + 1,
        period,
        from: p + 1,
        x: Vec::with_capacity(narrow::<usize, _>(period)),
    }
}

/// The pattern `recorded` (one period of a purely periodic run) cut to its
/// least period and started at `bound <= recorded.from`.
fn least(recorded: &Pattern, bound: u32) -> Pattern {
    let k = recorded.x.len();
    let x = &recorded.x;
    let d = divisors(k as u64)
        .into_iter()
        .map(|d| narrow::<usize, _>(d))
        .find(|&d| (0..k).all(|i| x[i] == x[(i + d) % k]))
        .expect("k itself is a period");
    let shift =
        narrow::<usize, _>((bound as i64 - recorded.from as i64).rem_euclid(narrow::<i64, _>(k)));
    Pattern {
        from: bound,
        x: (0..d).map(|t| x[(shift + t) % k]).collect(),
    }
}

/// Moves a waiting line's cursor past its proved dependencies, taking in
/// their periods and bounds. A period unit of `2^31` or more stops the cursor:
/// the line then waits for ever and is reported as not proved.
fn advance(watch: &[Watch], q: u32, r: u32, next: u32, unit: u64, from: u32) -> (u32, u64, u32) {
    let (mut next, mut unit, mut from) = (next, unit, from);
    while next < q + r {
        let (a, b) = dependency(q, r, next);
        let Some((bound, period)) = watch[line(a, b)].detected() else {
            break;
        };
        let wider = lcm(unit, period);
        if wider >= 1 << 31 {
            break;
        }
        unit = wider;
        // The dependency repeats from `bound`, so from step `bound` on its
        // inputs repeat when the line's state at `bound - 1` does.
        from = from.max(bound - 1);
        next += 1;
    }
    (next, unit, from)
}

/// The second pass: the exact start of every line of `found` (see the
/// module's comment), in the sweep's order.
fn second_pass(
    q_max: u32,
    found: Found,
    below: u32,
    stop: &Stop,
    progress: &mut dyn FnMut(Progress),
) -> Result<Vec<LineFate>, i32> {
    let order = order(q_max);
    let first = |at: usize| order[at].0.max(1);
    // A line is live up to this p, then retired.
    let last = |at: usize, f: &Pattern| (f.from - 1).max(first(at));
    let end = (0..found.len())
        .filter_map(|at| Some(last(at, found[at].as_ref()?)))
        .max()
        .unwrap_or(0);
    // Per line: the last p at which x(p) differs from its pattern continued
    // backwards, and its values since the last comparison. Comparing a batch
    // at a time reads each pattern once per batch: read at every step, the
    // patterns (one page or more per line) missed the TLB at every step.
    let mut checks: Vec<Check> = (0..found.len()).map(|_| Check::default()).collect();
    let mut starts: Vec<Option<u32>> = vec![None; found.len()];
    let mut lines = Lines::new(q_max, below);
    let mut done = 0;
    while lines.p() < end && !stop.requested() {
        let p = lines.p() + 1;
        let mut retire = Vec::new();
        lines.step(|at, x, _| {
            let Some(f) = &found[at] else { return };
            let c = &mut checks[at];
            c.x[c.len] = narrow::<i16, _>(x);
            c.len += 1;
            let last = last(at, f);
            if c.len == BATCH || p == last {
                c.compare(f, p);
                if let Some(d) = c.differs {
                    assert!(
                        d < f.from,
                        "line {:?} differs from its proved pattern",
                        order[at]
                    );
                }
            }
            if p == last {
                starts[at] = Some(c.differs.map_or(first(at), |s| s + 1));
                retire.push(at);
            }
        });
        if let Some(x) = lines.below_window() {
            return Err(x);
        }
        for at in retire {
            done += 1;
            lines.retire(at, found[at].clone().expect("a line with a pattern"));
        }
        progress(Progress {
            pass: 2,
            p,
            done,
            live: lines.live(),
        });
    }
    drop(lines);
    // Each pattern is now held once, by `found`: turned in place, not copied.
    let fates = found
        .into_iter()
        .zip(starts)
        .enumerate()
        .filter_map(|(at, (f, start))| {
            let (q, r) = order[at];
            Some(fate(q, r, start?, f?))
        })
        .collect();
    Ok(fates)
}

/// Values compared with a pattern a batch at a time.
const BATCH: usize = 64;

/// A line's values in the second pass since they were last compared with its
/// pattern, and the last `p` at which they differed.
struct Check {
    x: [i16; BATCH],
    len: usize,
    differs: Option<u32>,
}

impl Default for Check {
    fn default() -> Check {
        Check {
            x: [0; BATCH],
            len: 0,
            differs: None,
        }
    }
}

impl Check {
    /// Compares the values held, those of `p + 1 - len ..= p`, with `f`
    /// continued backwards, and empties the batch.
    fn compare(&mut self, f: &Pattern, p: u32) {
        let first = p + 1 - narrow::<u32, _>(self.len);
        let d = f.period() as i64;
        let mut i = narrow::<usize, _>((first as i64 - f.from as i64).rem_euclid(d));
        for (k, &x) in self.x[..self.len].iter().enumerate() {
            if x != f.x[i] {
                self.differs = Some(first + narrow::<u32, _>(k));
            }
            i = if i + 1 == f.x.len() { 0 } else { i + 1 };
        }
        self.len = 0;
    }
}

/// The fate of line `(q, r)` repeating from `start` with `pattern` (from its
/// bound), the pattern turned in place to begin at `start`.
fn fate(q: u32, r: u32, start: u32, pattern: Arc<Pattern>) -> LineFate {
    let Pattern { from, mut x } = Arc::try_unwrap(pattern).unwrap_or_else(|p| (*p).clone());
    let d = narrow::<u32, _>(x.len());
    // x(start + t) = x(start + t + m d) for every m; take one past `from`.
    let lift = (from - start).div_ceil(d) * d;
    x.rotate_left(((start + lift - from) % d) as usize);
    LineFate {
        q,
        r,
        start,
        period: d,
        pattern: x,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window too narrow for the values met is reported, not used: the
    /// census then starts again with room for them.
    #[test]
    fn a_value_below_the_window_is_reported() {
        let stop = Stop::new();
        let Err(x) = first_pass(12, 100_000, 0, &stop, &mut |_| {}) else {
            panic!("every value fitted a window for G - p >= 0");
        };
        assert!(x < 0);
        let (found, _) = first_pass(12, 100_000, x.unsigned_abs() + 64, &stop, &mut |_| {})
            .expect("room for the values met");
        assert!(found.iter().all(Option::is_some));
    }
}
