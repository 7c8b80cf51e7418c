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
        None,
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
/// rayon shares them between the cores. The trailing sweep copies the lines
/// of its `copies` (`copies.rs`) alike.
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
    let mut t = trail.x.room(rounds);
    let mut l = lead.x.room(rounds);
    // The copied lines' values given to the trailing sweep's halves.
    let (mut t_given_lo, mut t_given_hi) = (Vec::new(), Vec::new());
    {
        let (t_lines, l_lines) = (&mut trail.lines, &mut lead.lines);
        let (t_lo, t_hi) = trail.probes.split_at_mut(nlow);
        let copies = &trail.copies;
        let (mut l_lo, mut l_hi) = lead.lags.split(nlow);
        for j in 0..rounds + 2 {
            // The room each task fills, taken out here and put back below.
            let tl_room = (j < rounds).then(|| {
                (
                    take(&mut t.up, j),
                    take(&mut t.low, j),
                    std::mem::take(&mut t_given_lo),
                )
            });
            let th_room = (1..=rounds)
                .contains(&j)
                .then(|| (take(&mut t.high, j - 1), std::mem::take(&mut t_given_hi)));
            let ll_room = (1..=rounds)
                .contains(&j)
                .then(|| (take(&mut l.up, j - 1), take(&mut l.low, j - 1)));
            let lh_room = (2..=rounds + 1)
                .contains(&j)
                .then(|| take(&mut l.high, j - 2));
            let (t_up, t_low, t_high, l_up) = (&t.up, &t.low, &t.high, &l.up);
            // Paired so that each core starts on a half of the trailing
            // sweep, and a core that is done takes the other's second task.
            let tl = || {
                tl_room.map(|(up, x, given)| {
                    let rows = copies.rows(given, t_part.p() + 1, sub, 0, nlow);
                    let (up, x) = low_steps(
                        &mut t_part,
                        sub,
                        (up, Some(x)),
                        |i| rows.given(i),
                        |at, p, x, used| show(&mut t_lo[at], divs, p, x, used),
                    );
                    (up, x, rows.into_room())
                })
            };
            let th = || {
                th_room.map(|(x, given)| {
                    let up = &t_up[j - 1];
                    let rows = copies.rows(given, t_lines.p() + 1, sub, nlow, n);
                    let x = high_steps(
                        t_lines,
                        q1,
                        up,
                        Some(x),
                        |i| rows.given(i),
                        |at, p, x, used| show(&mut t_hi[at - nlow], divs, p, x, used),
                    );
                    (x, rows.into_room())
                })
            };
            let ll = || {
                ll_room.map(|(up, x)| {
                    let from: &[i16] = &t_low[j - 1];
                    let given = |i: usize| {
                        Some(Given {
                            copy,
                            x: &from[i * nlow..(i + 1) * nlow],
                            from: 0,
                        })
                    };
                    low_steps(&mut l_part, sub, (up, Some(x)), given, |at, p, x, _| {
                        l_lo.observe(at, p, narrow::<i16, _>(x))
                    })
                })
            };
            let lh = || {
                lh_room.map(|x| {
                    let from: &[i16] = &t_high[j - 2];
                    let given = |i: usize| {
                        Some(Given {
                            copy,
                            x: &from[i * nhigh..(i + 1) * nhigh],
                            from: nlow,
                        })
                    };
                    let up = &l_up[j - 2];
                    high_steps(l_lines, q1, up, Some(x), given, |at, p, x, _| {
                        l_hi.observe(at, p, narrow::<i16, _>(x))
                    })
                })
            };
            let ((tl, ll), (th, lh)) = rayon::join(|| rayon::join(tl, ll), || rayon::join(th, lh));
            if let Some((up, x, given)) = tl {
                (t.up[j], t.low[j], t_given_lo) = (up, x.unwrap_or_default(), given);
            }
            if let Some((x, given)) = th {
                (t.high[j - 1], t_given_hi) = (x.unwrap_or_default(), given);
            }
            if let Some((up, x)) = ll {
                (l.up[j - 1], l.low[j - 1]) = (up, x.unwrap_or_default());
            }
            if let Some(x) = lh {
                l.high[j - 2] = x.unwrap_or_default();
            }
        }
    }
    trail.lines.absorb(&t_part);
    lead.lines.absorb(&l_part);
    let values = |room: Room| Values {
        n,
        nlow,
        sub,
        low: room.low,
        high: room.high,
        up: room.up,
    };
    trail.x = values(t);
    lead.x = values(l);
}

/// `sub` steps of a split sweep's lower rows (`part`, [`Live::low_part`]),
/// `given(i)` at the `i`-th, each line shown with `seen(line, p, x, used)`:
/// their values to pass up, and (if given room for them) their `x`, per
/// step, in the room `(up, x)`.
pub(super) fn low_steps<'a>(
    part: &mut Live,
    sub: usize,
    (up, x): (Vec<u32>, Option<Vec<i16>>),
    given: impl Fn(usize) -> Option<Given<'a>>,
    mut seen: impl FnMut(usize, u32, i32, View),
) -> (Vec<u32>, Option<Vec<i16>>) {
    let nlow = part.now().len();
    let mut up = refill(up, 0, 0);
    up.reserve(sub * nlow);
    let mut x = x.map(|x| refill(x, sub * nlow, ABSENT));
    for i in 0..sub {
        let p = part.p() + 1;
        let row = x.as_mut().map(|x| &mut x[i * nlow..(i + 1) * nlow]);
        let given = given(i);
        match row {
            Some(row) => {
                prefill(row, given);
                part.step_given(given, |at, v, used| {
                    row[at] = narrow::<i16, _>(v);
                    seen(at, p, v, used)
                })
            }
            None => part.step_given(given, |at, v, used| seen(at, p, v, used)),
        }
        up.extend_from_slice(part.now());
    }
    (up, x)
}

/// The steps of a split sweep's rows from `q1` on that follow its lower
/// rows' values `up` (from [`low_steps`]), as there: (if given room for
/// them) their `x`, per step.
pub(super) fn high_steps<'a>(
    lines: &mut Live,
    q1: u32,
    up: &[u32],
    x: Option<Vec<i16>>,
    given: impl Fn(usize) -> Option<Given<'a>>,
    mut seen: impl FnMut(usize, u32, i32, View),
) -> Option<Vec<i16>> {
    let nlow = line(q1, 0);
    let nhigh = lines.now().len() - nlow;
    let steps = up.len() / nlow;
    let mut x = x.map(|x| refill(x, steps * nhigh, ABSENT));
    for (i, low) in up.chunks_exact(nlow).enumerate() {
        let p = lines.p() + 1;
        let given = given(i);
        match x.as_mut().map(|x| &mut x[i * nhigh..(i + 1) * nhigh]) {
            Some(row) => {
                prefill(row, given);
                lines.step_above(q1, low, given, |at, v, used| {
                    row[at - nlow] = narrow::<i16, _>(v);
                    seen(at, p, v, used)
                })
            }
            None => lines.step_above(q1, low, given, |at, v, used| seen(at, p, v, used)),
        }
    }
    x
}

/// A step's row of `x` before the step computes its lines: the values
/// `given` gives (those of the lines it copies, which the step does not
/// show; the others are then overwritten).
fn prefill(row: &mut [i16], given: Option<Given>) {
    if let Some(g) = given {
        row.copy_from_slice(&g.x[..row.len()]);
    }
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
        Some(&trail.copies),
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
/// `high` are shown each line of their part as `(line, p, x, used set)`;
/// the lines of `copies`, if any, are copied (and not shown).
pub(super) fn split_steps<L, H>(
    lines: &mut Live,
    q1: u32,
    rounds: u32,
    copies: Option<&Copies>,
    mut low: L,
    mut high: H,
) where
    L: FnMut(usize, u32, i32, View) + Send,
    H: FnMut(usize, u32, i32, View) + Send,
{
    let mut part = lines.low_part(q1);
    let sub = SUB as usize;
    let (nlow, n) = (line(q1, 0), lines.now().len());
    let none = Copies::new(0);
    let copies = copies.unwrap_or(&none);
    // Each half's room (the values passed up, the copied lines' values),
    // used again stretch after stretch.
    let mut low_stretch = |part: &mut Live, (up, given): (Vec<u32>, Vec<i16>)| {
        let rows = copies.rows(given, part.p() + 1, sub, 0, nlow);
        let (up, _) = low_steps(part, sub, (up, None), |i| rows.given(i), &mut low);
        (up, rows.into_room())
    };
    let mut high_stretch = |lines: &mut Live, up: &[u32], given: Vec<i16>| {
        let rows = copies.rows(given, lines.p() + 1, sub, nlow, n);
        high_steps(lines, q1, up, None, |i| rows.given(i), &mut high);
        rows.into_room()
    };
    let (mut cur, mut low_given) = low_stretch(&mut part, Default::default());
    let (mut spare, mut high_given) = (Vec::new(), Vec::new());
    for _ in 1..rounds {
        let ((next, g), h) = rayon::join(
            || low_stretch(&mut part, (spare, low_given)),
            || high_stretch(lines, &cur, high_given),
        );
        (spare, cur, low_given, high_given) = (cur, next, g, h);
    }
    high_stretch(lines, &cur, high_given);
    lines.absorb(&part);
}

/// `k` steps of the leading sweep, its values kept per step.
pub(super) fn lead_steps(lead: &mut Lead, n: usize, k: usize) {
    let mut room = lead.x.room(1);
    let mut x = refill(std::mem::take(&mut room.high[0]), n * k, ABSENT);
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
    let mut room = trail.x.room(1);
    let mut x = refill(std::mem::take(&mut room.high[0]), n * k, ABSENT);
    let probes = &mut trail.probes;
    let rows = trail.copies.rows(Vec::new(), trail.lines.p() + 1, k, 0, n);
    for (i, row) in x.chunks_exact_mut(n).enumerate() {
        let p = trail.lines.p() + 1;
        let given = rows.given(i);
        // (A line not started yet is given nothing: it is not copied.)
        prefill(row, given);
        trail.lines.step_given(given, |at, x, used| {
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
        up: Vec::new(),
    }
}

/// The room at `v[i]`, taken out (empty if there is none).
fn take<T: Default>(v: &mut [T], i: usize) -> T {
    v.get_mut(i).map(std::mem::take).unwrap_or_default()
}
