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
/// The kept lines' values go to `lead.fresh` (started for these steps).
pub(super) fn head_start(lead: &mut Lead, q_max: u32, rounds: u32) {
    let q1 = split_row(q_max);
    let (mut lo, mut hi) = lead.lags.split(line(q1, 0));
    let (mut f_lo, mut f_hi) = lead.fresh.split(line(q1, 0));
    split_steps(
        &mut lead.lines,
        q1,
        rounds,
        None,
        |at, p, x, _| {
            lo.observe(at, p, narrow::<i16, _>(x));
            f_lo.put(at, p, x);
        },
        |at, p, x, _| {
            hi.observe(at, p, narrow::<i16, _>(x));
            f_hi.put(at, p, x);
        },
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
/// of its `copies` (`copies.rs`) alike. The leading sweep keeps each
/// computed line's last difference from the trailing sweep in `last_diff`
/// as it goes (lag `lag`); its values are not kept, but for those of the
/// kept lines, which go to `lead.fresh` (started for this chunk).
pub(super) fn both_split(
    trail: &mut Trail,
    lead: &mut Lead,
    divs: &[u32],
    (q_max, lag): (u32, u32),
    copy: &[bool],
    last_diff: &mut [u32],
) {
    let q1 = split_row(q_max);
    let (n, nlow) = (copy.len(), line(q1, 0));
    // Stretches of some 2^18 line steps a half (a millisecond or so), so
    // that passing them between the cores costs little beside them.
    let sub = ((1 << 18) / n)
        .clamp(SUB_CHUNK, LONG as usize / 8)
        .next_power_of_two();
    let rounds = LONG as usize / sub;
    let mut t_part = trail.lines.low_part(q1);
    let mut l_part = lead.lines.low_part(q1);
    // Per stretch, each half's `x`; the lower rows' sets passed up, in two
    // rooms a sweep (one filled while the other is read).
    let mut t = trail.x.room(rounds);
    let mut l = lead.x.room(rounds);
    let lead_plan = Plan::new(q_max, |at| copy[at]);
    let trail_plan = trail.copies.plan(q_max);
    // The room of the copied lines' values of each half of the trailing
    // sweep ([`Take::periods`]).
    let [mut feed_lo, mut feed_hi] = std::mem::take(&mut trail.feed);
    {
        let (t_lines, l_lines) = (&mut trail.lines, &mut lead.lines);
        let (t_lo, t_hi) = trail.probes.split_at_mut(nlow);
        let copies = &trail.copies;
        let (mut l_lo, mut l_hi) = lead.lags.split(nlow);
        let (mut f_lo, mut f_hi) = lead.fresh.split(nlow);
        let (diff_lo, diff_hi) = last_diff.split_at_mut(nlow);
        for j in 0..rounds + 2 {
            // The room each task fills, taken out here and put back below.
            let tl_room = (j < rounds).then(|| {
                (
                    take(&mut t.up, j % 2),
                    take(&mut t.low, j),
                    std::mem::take(&mut feed_lo),
                )
            });
            let th_room = (1..=rounds)
                .contains(&j)
                .then(|| (take(&mut t.high, j - 1), std::mem::take(&mut feed_hi)));
            let ll_room = (1..=rounds)
                .contains(&j)
                .then(|| take(&mut l.up, (j - 1) % 2));
            let lh_room = (2..=rounds + 1).contains(&j).then_some(());
            let (t_up, t_low, t_high, l_up) = (&t.up, &t.low, &t.high, &l.up);
            let trail_plan = trail_plan.as_ref();
            let lead_plan = &lead_plan;
            // Paired so that each core starts on a half of the trailing
            // sweep, and a core that is done takes the other's second task.
            let tl = || {
                tl_room.map(|(up, x, room)| {
                    let steps = (t_part.p() + 1, sub);
                    let take = Take::periods(trail_plan, copies, room, steps, 0, nlow);
                    let (up, x) =
                        low_steps(&mut t_part, sub, (up, Some(x)), &take, |at, p, x, used| {
                            show(&mut t_lo[at], divs, p, x, used)
                        });
                    (up, x, take.into_room())
                })
            };
            let th = || {
                th_room.map(|(x, room)| {
                    let up = &t_up[(j - 1) % 2];
                    let steps = (t_lines.p() + 1, sub);
                    let take = Take::periods(trail_plan, copies, room, steps, nlow, n);
                    let x = high_steps(t_lines, q1, up, Some(x), &take, |at, p, x, used| {
                        show(&mut t_hi[at - nlow], divs, p, x, used)
                    });
                    (x, take.into_room())
                })
            };
            // The leading sweep computes the lines not proved before the
            // chunk, and compares each value with the trailing sweep's `L`
            // steps back as it goes (its steps are in order, each line in
            // one half): one past the last difference is the line's start
            // once it is proved (the module's comment, "Start").
            let ll = || {
                ll_room.map(|up| {
                    let from: &[i16] = &t_low[j - 1];
                    let take = Take::Rows {
                        plan: lead_plan,
                        x: from,
                        w: nlow,
                    };
                    let p0 = l_part.p() + 1;
                    low_steps(&mut l_part, sub, (up, None), &take, |at, p, x, _| {
                        let x = narrow::<i16, _>(x);
                        l_lo.observe(at, p, x);
                        f_lo.put(at, p, i32::from(x));
                        let a = from[(p - p0) as usize * nlow + at];
                        if a != x && a != ABSENT {
                            diff_lo[at] = p - lag;
                        }
                    })
                    .0
                })
            };
            let lh = || {
                lh_room.map(|()| {
                    let from: &[i16] = &t_high[j - 2];
                    let nhigh = n - nlow;
                    let take = Take::Rows {
                        plan: lead_plan,
                        x: from,
                        w: nhigh,
                    };
                    let up = &l_up[(j - 2) % 2];
                    let p0 = l_lines.p() + 1;
                    high_steps(l_lines, q1, up, None, &take, |at, p, x, _| {
                        let x = narrow::<i16, _>(x);
                        l_hi.observe(at, p, x);
                        f_hi.put(at, p, i32::from(x));
                        let a = from[(p - p0) as usize * nhigh + at - nlow];
                        if a != x && a != ABSENT {
                            diff_hi[at - nlow] = p - lag;
                        }
                    });
                })
            };
            let ((tl, ll), (th, lh)) = rayon::join(|| rayon::join(tl, ll), || rayon::join(th, lh));
            if let Some((up, x, room)) = tl {
                (t.up[j % 2], t.low[j], feed_lo) = (up, x.unwrap_or_default(), room);
            }
            if let Some((x, room)) = th {
                (t.high[j - 1], feed_hi) = (x.unwrap_or_default(), room);
            }
            if let Some(up) = ll {
                l.up[(j - 1) % 2] = up;
            }
            let () = lh.unwrap_or_default();
        }
    }
    trail.feed = [feed_lo, feed_hi];
    trail.lines.absorb(&t_part);
    lead.lines.absorb(&l_part);
    trail.x = Values {
        n,
        nlow,
        sub,
        low: t.low,
        high: t.high,
        up: t.up,
    };
    lead.x = Values {
        up: l.up,
        ..Values::default()
    };
}

/// Where a stretch of steps takes the values of the lines it copies.
pub(super) enum Take<'a> {
    /// It copies none.
    Nothing,
    /// From another sweep's values: at its `i`-th step, `x[i * w ..]` (the
    /// stretch's lines, `w` of them, from its first).
    Rows {
        plan: &'a Plan,
        x: &'a [i16],
        w: usize,
    },
    /// From the periods the trailing sweep keeps, laid out by
    /// [`Copies::stretch`]: line by line, `steps` values each.
    Periods {
        plan: &'a Plan,
        x: Vec<i16>,
        steps: usize,
    },
}

impl<'a> Take<'a> {
    /// The copies of the lines `from .. to` (`plan`, if any, from `copies`)
    /// at `steps` steps from `p1` on, made in the room `x` (see
    /// [`Take::into_room`]): nothing if none of them is copied.
    pub(super) fn periods(
        plan: Option<&'a Plan>,
        copies: &Copies,
        x: Vec<i16>,
        (p1, steps): (u32, usize),
        from: usize,
        to: usize,
    ) -> Take<'a> {
        match plan {
            Some(plan) if copies.any(from, to) => Take::Periods {
                plan,
                x: copies.stretch(x, p1, steps, from, to),
                steps,
            },
            _ => Take::Nothing,
        }
    }

    /// What the `i`-th step of the stretch is given.
    fn given(&self, i: usize) -> Option<Given<'_>> {
        match self {
            Take::Nothing => None,
            Take::Rows { plan, x, w } => Some(Given {
                plan,
                x: &x[i * w..(i + 1) * w],
                stride: 1,
            }),
            Take::Periods { plan, x, steps } => Some(Given {
                plan,
                x: &x[i..],
                stride: *steps,
            }),
        }
    }

    /// The room of [`Take::periods`], to be used again.
    pub(super) fn into_room(self) -> Vec<i16> {
        match self {
            Take::Periods { x, .. } => x,
            _ => Vec::new(),
        }
    }
}

/// `sub` steps of a split sweep's lower rows (`part`, [`Live::low_part`]),
/// copying the lines that `take` gives, each line computed shown with
/// `seen(line, p, x, used)`: their sets to pass up ([`Live::export`]) and
/// (if given room for them) their `x`, per step, in the room `(up, x)`.
pub(super) fn low_steps(
    part: &mut Live,
    sub: usize,
    (up, x): (Vec<u64>, Option<Vec<i16>>),
    take: &Take,
    mut seen: impl FnMut(usize, u32, i32, View),
) -> (Vec<u64>, Option<Vec<i16>>) {
    let nlow = part.now().len();
    let mut up = refill(up, 0, 0);
    let mut x = x.map(|x| refill(x, sub * nlow, ABSENT));
    for i in 0..sub {
        let p = part.p() + 1;
        let row = x.as_mut().map(|x| &mut x[i * nlow..(i + 1) * nlow]);
        part.step_given(take.given(i), row, |at, v, used| seen(at, p, v, used));
        part.export(&mut up);
    }
    (up, x)
}

/// The steps of a split sweep's rows from `q1` on that follow its lower
/// rows' sets `up` (from [`low_steps`]), as there: (if given room for
/// them) their `x`, per step.
pub(super) fn high_steps(
    lines: &mut Live,
    q1: u32,
    up: &[u64],
    x: Option<Vec<i16>>,
    take: &Take,
    mut seen: impl FnMut(usize, u32, i32, View),
) -> Option<Vec<i16>> {
    let nlow = line(q1, 0);
    let nhigh = lines.now().len() - nlow;
    let w = lines.export_len(q1);
    let steps = up.len() / w;
    let mut x = x.map(|x| refill(x, steps * nhigh, ABSENT));
    for (i, low) in up.chunks_exact(w).enumerate() {
        let p = lines.p() + 1;
        let row = x.as_mut().map(|x| &mut x[i * nhigh..(i + 1) * nhigh]);
        lines.step_above(q1, low, take.given(i), row, |at, v, used| {
            seen(at, p, v, used)
        });
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
    let plan = copies.plan(lines.q_max());
    let plan = plan.as_ref();
    // Each half's room (the sets passed up, the copied lines' values),
    // used again stretch after stretch.
    let mut low_stretch = |part: &mut Live, (up, room): (Vec<u64>, Vec<i16>)| {
        let take = Take::periods(plan, copies, room, (part.p() + 1, sub), 0, nlow);
        let (up, _) = low_steps(part, sub, (up, None), &take, &mut low);
        (up, take.into_room())
    };
    let mut high_stretch = |lines: &mut Live, up: &[u64], room: Vec<i16>| {
        let take = Take::periods(plan, copies, room, (lines.p() + 1, sub), nlow, n);
        high_steps(lines, q1, up, None, &take, &mut high);
        take.into_room()
    };
    let (mut cur, mut low_room) = low_stretch(&mut part, Default::default());
    let (mut spare, mut high_room) = (Vec::new(), Vec::new());
    for _ in 1..rounds {
        let ((next, room), h) = rayon::join(
            || low_stretch(&mut part, (spare, low_room)),
            || high_stretch(lines, &cur, high_room),
        );
        (spare, cur, low_room, high_room) = (cur, next, room, h);
    }
    high_stretch(lines, &cur, high_room);
    lines.absorb(&part);
}

/// `k` steps of the leading sweep, its values kept per step.
pub(super) fn lead_steps(lead: &mut Lead, n: usize, k: usize) {
    let mut room = lead.x.room(1);
    let mut x = refill(std::mem::take(&mut room.high[0]), n * k, ABSENT);
    for row in x.chunks_exact_mut(n) {
        let p = lead.lines.p() + 1;
        let mut lags = lead.lags.whole();
        lead.lines.step_given(None, Some(row), |at, x, _| {
            lags.observe(at, p, narrow::<i16, _>(x));
        });
    }
    lead.x = whole(n, k, x);
}

/// `k` steps of the trailing sweep, its values kept per step and shown to
/// the lines being looked at.
pub(super) fn trail_steps(trail: &mut Trail, divs: &[u32], q_max: u32, k: usize) {
    let n = trail.probes.len();
    let mut room = trail.x.room(1);
    let mut x = refill(std::mem::take(&mut room.high[0]), n * k, ABSENT);
    let probes = &mut trail.probes;
    let plan = trail.copies.plan(q_max);
    let steps = (trail.lines.p() + 1, k);
    let take = Take::periods(plan.as_ref(), &trail.copies, Vec::new(), steps, 0, n);
    for (i, row) in x.chunks_exact_mut(n).enumerate() {
        let p = trail.lines.p() + 1;
        trail
            .lines
            .step_given(take.given(i), Some(row), |at, x, used| {
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
