//! How the two sweeps share the machine's two cores: the leading sweep's
//! head start, the sweeps side by side, each split in two at a row with the
//! proved lines copied (`both_split`), and the trailing sweep alone at the
//! end. Every schedule gives the values of plain steps; only the order of
//! work changes. Part of the census of periods (`super`).

use super::*;

/// Steps of the leading sweep in a call while it gets `L` ahead alone.
pub(super) const HEAD: u32 = 8192;
/// Steps the two halves of a sweep split in two pass on at a time.
pub(super) const SUB: u32 = 64;
/// Steps of a chunk of [`both_split`], a multiple of [`CHUNK`] (so that
/// proofs stay at multiples of it) long enough that its pipeline's first
/// and last rounds, with fewer stretches than cores can take, are few.
pub(super) const LONG: u32 = 1024;
/// The least stretch of a chunk of [`both_split`] (a power of two).
pub(super) const SUB_CHUNK: usize = 16;
/// Once at least `1 / COPY_FROM` of the lines are proved, a chunk is one of
/// [`both_split`] (the leading sweep copying the proved lines, each sweep
/// split in two, the four parts shared between the cores); before, the two
/// sweeps run side by side, one core each, every line computed in both.
pub(super) const COPY_FROM: usize = 4;

/// Steps of the trailing sweep in a call once every line is proved.
pub(super) const ALONE: u32 = 2048;

/// `rounds * SUB` steps of the leading sweep alone, on both cores
/// ([`split_steps`]), each half keeping its lines' small-lag differences.
pub(super) fn head_start(lead: &mut Lead, q_max: u32, rounds: u32) {
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
pub(super) fn both_split(
    trail: &mut Trail,
    lead: &mut Lead,
    divs: &[u32],
    q_max: u32,
    copy: &[bool],
) {
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
pub(super) fn low_steps<'a>(
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
pub(super) fn high_steps<'a>(
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
pub(super) fn trail_alone(trail: &mut Trail, divs: &[u32], q_max: u32, rounds: u32) {
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

/// The row from which [`split_steps`] splits a sweep of the rows `q <= q_max`:
/// the lower rows take a little more than half of the lines, as the upper
/// ones also enter the lower rows' values into their column sets.
pub(super) fn split_row(q_max: u32) -> u32 {
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
pub(super) fn split_steps<L, H>(lines: &mut Live, q1: u32, rounds: u32, mut low: L, mut high: H)
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
pub(super) fn lead_steps(lead: &mut Lead, n: usize, k: usize) {
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
pub(super) fn trail_steps(trail: &mut Trail, divs: &[u32], n: usize, k: usize) {
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
pub(super) fn whole(n: usize, k: usize, x: Vec<i16>) -> Values {
    Values {
        n,
        nlow: 0,
        sub: k,
        low: vec![Vec::new()],
        high: vec![x],
    }
}
