//! The certified Grundy census: for every line `(q, r)`, `q <= Q`, the exact
//! start and least period from which `G(p,q,r) - p` repeats, each proved by the
//! rule below (doc/grundy.md section 3). Uses the sweep of this module.
//!
//! # The rule
//!
//! Write `x(p) = G(p,q,r) - p` and `S(p)` for the line's set of used values
//! after step `p`, seen from `p` (`Used::seen_from`). Step `p + 1` computes
//! the line's value from `S(p)` and the values its middle and top row moves
//! reach at `p + 1`, all seen from `p + 1`; so `S(p + 1)` and `x(p + 1)` are a
//! function of `S(p)` and those values. The lines those moves reach (its
//! *dependencies*) come earlier in the sweep's order. Suppose each dependency
//! `d` is proved to repeat from `a_d` with period `K_d`; let `P` be the least
//! common multiple of the `K_d`. If for some `p1 >= max a_d` and `k >= 1`
//! `S(p1) = S(p1 + kP)`, then by induction on `j` the inputs of step
//! `p1 + j + 1` and of step `p1 + kP + j + 1` are equal, so
//! `S(p1 + j) = S(p1 + kP + j)` and `x(p1 + j) = x(p1 + kP + j)` for every
//! `j >= 1`: the line repeats from `p1 + 1` with period `kP`. Lines without
//! dependencies (`(0,0)`, whose value is `p - 1`) have `P = 1`.
//!
//! The first pass finds such `p1` and `k` with Brent's method: a snapshot of
//! `S` is compared at every multiple of `P` after it and retaken at powers of
//! two, so it lands past the line's preperiod and then meets itself.
//!
//! The second pass sweeps again, keeping each line's last `K = kP` values of
//! `x`. The exact start is one past the last `p` with `x(p) != x(p + K)` (none:
//! the line's first `p`); the least period is the least divisor `d` of `K` that
//! the last `K` values repeat with, and the start for `d` is the same (for an
//! eventually periodic sequence both starts are where it stops differing from
//! itself shifted by a multiple of `d`).

use super::used::Seen;
use super::{Sweep, line};
use crate::stop::Stop;

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
    /// `G(p,q,r) - p` for `p = start .. start + period`.
    pub pattern: Vec<i32>,
}

impl LineFate {
    /// `G(p,q,r)` for `p >= start`.
    pub fn value(&self, p: u64) -> Option<u64> {
        let start = self.start as u64;
        let i = (p.checked_sub(start)? % self.period as u64) as usize;
        Some((p as i64 + self.pattern[i] as i64) as u64)
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

/// A line in the first pass.
#[derive(Clone)]
enum Watch {
    /// Dependency `next` (in the order of [`dependency`]) is not proved
    /// yet; `unit` is the least common multiple of the periods of those before
    /// it, `from` the latest of their bounds.
    Waiting { next: u32, unit: u64, from: u32 },
    /// Comparing its state with `snap`, taken at `at`, every `unit` steps;
    /// `power`: steps before the snapshot is retaken.
    Watching {
        unit: u64,
        at: u32,
        snap: Seen,
        power: u64,
    },
    /// Repeats from `from` with period `period` (a multiple of the least).
    Proved { from: u32, period: u64 },
}

/// Dependency `i < q + r` of line `(q, r)`: the lines its middle row moves
/// reach, then those its top row moves reach (see the sweep's rule).
fn dependency(q: u32, r: u32, i: u32) -> (u32, u32) {
    if i < q { (i, r.min(i)) } else { (q, i - q) }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Proves the fate of every line with `q <= q_max`, sweeping `p` up to
/// `max_p` at most, in rounds: each round is a first and a second pass, and
/// starts from the exact fates of the rounds before it (a line's bound from
/// Brent's method can be well past its start, and its dependents would
/// inherit the gap). Rounds go on while one proves a new line and some line
/// is left. `progress` is called with the round, each `p` of its first pass
/// and the lines proved. Stops early (returning what was proved in full) when
/// `stop` is set.
pub fn census(
    q_max: u32,
    max_p: u32,
    stop: &Stop,
    progress: &mut dyn FnMut(u32, u32, usize),
) -> Census {
    let all = line(q_max, q_max) + 1;
    let mut known: Vec<LineFate> = Vec::new();
    let mut swept = 0;
    for round in 1.. {
        let before = known.len();
        let (found, p) = first_pass(q_max, max_p, &known, stop, &mut |p, n| {
            progress(round, p, n)
        });
        swept = swept.max(p);
        known.extend(exact(q_max, &found));
        known.sort_by_key(|f| line(f.q, f.r));
        if known.len() == all || known.len() == before || stop.requested() {
            break;
        }
    }
    Census {
        lines: known,
        q_max,
        swept,
    }
}

/// One first pass from the lines `known` already; returns the lines it
/// proved, each as `(q, r, from, K)`, and the last `p` it swept.
fn first_pass(
    q_max: u32,
    max_p: u32,
    known: &[LineFate],
    stop: &Stop,
    progress: &mut dyn FnMut(u32, usize),
) -> (Vec<(u32, u32, u32, u64)>, u32) {
    let lines = line(q_max, q_max) + 1;
    let waiting = Watch::Waiting {
        next: 0,
        unit: 1,
        from: 1,
    };
    let mut watch = vec![waiting; lines];
    for f in known {
        watch[line(f.q, f.r)] = Watch::Proved {
            from: f.start,
            period: f.period as u64,
        };
    }
    let mut sweep = Sweep::new(q_max);
    let mut proved = known.len();
    while proved < lines && sweep.p() < max_p && !stop.requested() {
        sweep.step();
        let p = sweep.p();
        for q in 0..=q_max.min(p) {
            for r in 0..=q {
                let at = line(q, r);
                if let Watch::Waiting { next, unit, from } = watch[at] {
                    let (next, unit, from) = advance(&watch, q, r, next, unit, from);
                    watch[at] = if next == q + r && p >= from.max(q.max(1)) {
                        Watch::Watching {
                            unit,
                            at: p,
                            snap: sweep.used[at].seen_from(p),
                            power: unit,
                        }
                    } else {
                        Watch::Waiting { next, unit, from }
                    };
                    continue;
                }
                if let Watch::Watching {
                    unit,
                    at: snap_at,
                    snap,
                    power,
                } = &mut watch[at]
                {
                    let since = (p - *snap_at) as u64;
                    if !since.is_multiple_of(*unit) {
                        continue;
                    }
                    let now = sweep.used[at].seen_from(p);
                    if now == *snap {
                        watch[at] = Watch::Proved {
                            from: *snap_at + 1,
                            period: since,
                        };
                        proved += 1;
                    } else if since == *power {
                        *snap = now;
                        *snap_at = p;
                        *power *= 2;
                    }
                }
            }
        }
        progress(p, proved);
    }
    let new = (0..=q_max)
        .flat_map(|q| (0..=q).map(move |r| (q, r)))
        .filter(|&(q, r)| !known.iter().any(|f| (f.q, f.r) == (q, r)))
        .filter_map(|(q, r)| match watch[line(q, r)] {
            Watch::Proved { from, period } => Some((q, r, from, period)),
            _ => None,
        })
        .collect();
    (new, sweep.p())
}

/// Moves a waiting line's cursor past its proved dependencies, taking in
/// their periods and bounds. A period unit beyond `u64` stops the cursor: the
/// line then waits for ever and is reported as not proved.
fn advance(watch: &[Watch], q: u32, r: u32, next: u32, unit: u64, from: u32) -> (u32, u64, u32) {
    let (mut next, mut unit, mut from) = (next, unit, from);
    while next < q + r {
        let (a, b) = dependency(q, r, next);
        let Watch::Proved { from: f, period } = watch[line(a, b)] else {
            break;
        };
        let Some(lcm) = (unit / gcd(unit, period)).checked_mul(period) else {
            break;
        };
        unit = lcm;
        from = from.max(f);
        next += 1;
    }
    (next, unit, from)
}

/// The second pass: exact starts and least periods of the lines proved, each
/// `(q, r, from, K)`: repeating from `from` with period `K`.
fn exact(q_max: u32, found: &[(u32, u32, u32, u64)]) -> Vec<LineFate> {
    let end = found
        .iter()
        .map(|&(_, _, from, k)| from as u64 + k)
        .max()
        .unwrap_or(0) as u32;
    // The last K values of x for each line, and the last p with x(p) != x(p+K).
    let mut rings: Vec<Vec<i32>> = found.iter().map(|f| vec![0; f.3 as usize]).collect();
    let mut last_differs: Vec<Option<u32>> = vec![None; found.len()];
    let mut sweep = Sweep::new(q_max);
    while sweep.p() < end {
        sweep.step();
        let p = sweep.p();
        for (i, &(q, r, _, k)) in found.iter().enumerate() {
            let Some(g) = sweep.value(q, r) else { continue };
            let x = g as i64 - p as i64;
            let x = i32::try_from(x).expect("G - p fits in 32 bits");
            let first = q.max(1);
            let slot = ((p - first) as u64 % k) as usize;
            if (p - first) as u64 >= k && rings[i][slot] != x {
                last_differs[i] = Some(p - k as u32);
            }
            rings[i][slot] = x;
        }
    }
    found
        .iter()
        .zip(rings)
        .zip(last_differs)
        .map(|((&(q, r, from, k), ring), differs)| {
            let first = q.max(1);
            let start = differs.map_or(first, |p| p + 1);
            assert!(start <= from, "line ({q},{r}) differs after its proof");
            let k = k as usize;
            let period = (1..=k)
                .filter(|d| k.is_multiple_of(*d))
                .find(|&d| (0..k).all(|i| ring[i] == ring[(i + d) % k]))
                .unwrap();
            let pattern = (0..period)
                .map(|i| ring[((start - first) as usize + i) % k])
                .collect();
            LineFate {
                q,
                r,
                start,
                period: period as u32,
                pattern,
            }
        })
        .collect()
}
