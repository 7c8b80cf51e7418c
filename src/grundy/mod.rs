//! Sprague-Grundy values `G(p,q,r)` of three-rowed Chomp (doc/grundy.md): an
//! exact sweep in `p` over every line `(q,r)` with `q <= Q`, the certified
//! census of the lines' periods ([`census`]; [`lag`] without patterns), its
//! file ([`file`](mod@file)) and the b-files read off them ([`sequences`]),
//! the stored table of every position up to a size ([`table`]), one value
//! with its source ([`nim`]), and the jobs every front end runs: the table's
//! ([`job`]), the census's ([`census_job`]) and that of periods and starts
//! ([`periods_job`]). Uses
//! `stop`, `table` (the file format), `proof` (least common multiples,
//! divisors), `graph::summary`'s line errors, `bytes` and `atomic_write`
//! for the checkpoint of [`lag`], `path_message` for [`nim`]'s errors, and
//! `outputs`, `lock` and `memory` for the jobs' checks.
//!
//! # The rule, and why it is the definition
//!
//! `G(p,q,r)` is the least value that no move from `[p,q,r]` reaches
//! (`p >= q >= r >= 0`, `p >= 1`). The moves (doc/chomp.md section 1, columns
//! counted from 0 here: taking column `j` of a row) lead to
//!
//! 1. `[j, min(q,j), min(r,j)]`, `1 <= j < p` (bottom row). For `j >= q` this
//!    is `[j, q, r]`: the same line at an earlier `p`. For `1 <= j < q` it is
//!    `[j, j, min(r,j)]`: the *first* value of the line `(j, min(r,j))`, whose
//!    first `p` is `j`. These do not depend on `p`.
//! 2. `[p, j, min(r,j)]`, `0 <= j < q` (middle row): the line `(j, j)` for
//!    `j <= r`, the line `(j, r)` for `r < j < q`, at the same `p`.
//! 3. `[p, q, j]`, `0 <= j < r` (top row): the line `(q, j)` at the same `p`.
//!
//! So each line keeps the set `Used` of the values of (1): it starts as the
//! first values of the lines `(j, min(r,j))`, `1 <= j < q`, and takes in the
//! line's own value at every `p`. At each `p` the lines are visited with `q`
//! ascending and `r` ascending within it, so every line of (2) and (3) has its
//! value at this `p` already; the value is the least one not in the line's set
//! and not taken at this `p` by a line of (2) or (3). That is the mex of all
//! the options' values: the definition.
//!
//! Three bitsets hold, at the current `p`, exactly the values of (2) and (3)
//! for the line being computed: the diagonal lines `(j,j)`, `j <= r` (filled
//! as `r` rises, emptied at each `q`), the lines `(j,r)`, `r < j < q` (one set
//! per `r`, filled as `q` rises, emptied at each `p`), and the lines `(q,j)`,
//! `j < r` (filled as `r` rises, emptied at each `q`). The value is the first
//! zero of the or of these and the line's own set.
//!
//! Values along a line are distinct too (an earlier `p` is an option), so a
//! line's set gains one value per step and its first free value rises with `p`.

pub mod census;
pub mod census_job;
pub(crate) mod checkpoint;
pub mod file;
mod frozen;
mod index;
pub mod job;
pub mod lag;
mod lines;
mod live;
pub mod nim;
mod pattern;
pub mod periods_job;
pub mod sequences;
pub mod table;
mod used;

/// A line `(q, r)` proved periodic: `G(p,q,r) - p` repeats from `start` on
/// with least period `period`. The one form every Grundy census, file and
/// figure uses (a census with patterns adds the pattern: `LineFate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProvedLine {
    /// `q` of the line.
    pub q: u32,
    /// `r` of the line.
    pub r: u32,
    /// The least `p` from which `G(p,q,r) - p` repeats.
    pub start: u32,
    /// Its least period.
    pub period: u32,
}

use crate::base::bytes::narrow;
use std::io::{self, Read, Write};

use crate::base::bytes::stream::{get32, put32};
use crate::base::stop::Stop;
use index::Taken;
use used::Used;

/// The number of the line `(q, r)`, `r <= q`, in the order the sweep visits.
pub fn line(q: u32, r: u32) -> usize {
    debug_assert!(r <= q);
    q as usize * (q as usize + 1) / 2 + r as usize
}

/// `G(p,q,r)`, `p >= q >= r`, `p >= 1`, by sweeping every line of `q' <= q`
/// up to `p` (about `q^2 p / 2` line steps); `None` if `stop` was requested
/// first. `progress` hears the `p` reached every 4,096 steps.
pub fn value(p: u32, q: u32, r: u32, stop: &Stop, progress: &mut dyn FnMut(u32)) -> Option<u32> {
    assert!(p >= q && q >= r && p >= 1, "not a position");
    let mut sweep = Sweep::new(q);
    while sweep.p() < p {
        if stop.requested() {
            return None;
        }
        sweep.step();
        if sweep.p().is_multiple_of(4096) {
            progress(sweep.p());
        }
    }
    sweep.value(q, r)
}

/// `G(p,q,r)` for `p = max(q,1) .. end` (none if `end <= max(q,1)`), by one
/// sweep of the lines `q' <= q`; `None` if `stop` was requested first.
/// `progress` hears the `p` reached every 4,096 steps.
pub fn line_values(
    q: u32,
    r: u32,
    end: u32,
    stop: &Stop,
    progress: &mut dyn FnMut(u32),
) -> Option<Vec<u32>> {
    assert!(r <= q, "not a line");
    let first = q.max(1);
    let mut out = Vec::with_capacity(end.saturating_sub(first) as usize);
    let mut sweep = Sweep::new(q);
    while sweep.p() + 1 < end {
        if stop.requested() {
            return None;
        }
        sweep.step();
        if sweep.p().is_multiple_of(4096) {
            progress(sweep.p());
        }
        if sweep.p() >= first {
            out.push(sweep.value(q, r).expect("the line has started"));
        }
    }
    Some(out)
}

/// A position one move away and its value.
pub type Reached = ([u32; 3], u32);

/// A position's value and every move from it with the value it leaves
/// ([`options`]).
pub type Options = (u32, Vec<Reached>);

/// `G(p,q,r)` and the value of every position one move away, by one sweep
/// of the lines `q' <= q` up to `p`: the results of the bottom row (columns
/// `2 ..= p`, the position `[j, min(q,j), min(r,j)]` left by column `j + 1`),
/// then the middle row (`[p, j, min(r,j)]`, `j < q`), then the top row
/// (`[p, q, j]`, `j < r`), each with its value. `None` if stopped.
pub fn options(p: u32, q: u32, r: u32, stop: &Stop) -> Option<(u32, Vec<Reached>)> {
    assert!(p >= q && q >= r && p >= 1, "not a position");
    let mut sweep = Sweep::new(q);
    let mut out = Vec::new();
    while sweep.p() < p {
        if stop.requested() {
            return None;
        }
        sweep.step();
        let j = sweep.p();
        if j < p {
            let (b, c) = (q.min(j), r.min(j));
            out.push(([j, b, c], sweep.value(b, c)?));
        }
    }
    for j in 0..q {
        out.push(([p, j, r.min(j)], sweep.value(j, r.min(j))?));
    }
    for j in 0..r {
        out.push(([p, q, j], sweep.value(q, j)?));
    }
    Some((sweep.value(q, r)?, out))
}

/// Every line `(q, r)`, `r <= q <= Q`, swept together in `p`.
pub struct Sweep {
    q_max: u32,
    /// The last `p` computed; 0 before the first step.
    p: u32,
    used: Vec<Used>,
    /// Each line's value at its first `p` (`max(q, 1)`).
    first: Vec<u32>,
    /// Each line's value at `p`.
    now: Vec<u32>,
    /// Values taken at `p` by the diagonal lines `(j, j)`, `j <= r`, for the
    /// line `(q, r)` being computed (refilled for each `q`).
    diagonal: Taken,
    /// Per `r`: values taken at `p` by the lines `(j, r)`, `r < j < q`.
    columns: Vec<Taken>,
    /// Values taken at `p` by the lines `(q, j)`, `j < r`.
    row: Taken,
}

/// A lower bound on the memory of a sweep of the lines `q <= q_max`: each of
/// its `(Q+1)(Q+2)/2` lines holds a used set and two values from the start
/// (more as the sets grow: 3.7 GiB at `Q = 5000`, against 1.1 GiB here).
pub(crate) fn sweep_memory(q_max: u32) -> u64 {
    let per_line = (std::mem::size_of::<Used>() + 8) as u64;
    line_count(q_max).saturating_mul(per_line)
}

/// What a free-disk check before a run counts for a sweep's state as
/// [`Sweep::save`] writes it after step `p = q_max`: `Q` and `p`,
/// then per line its used set's base and word count, its words and its two
/// values. A line `(q, r)` at `p` has taken values below `p + q + r` only
/// (a mex of the `p + q + r` options' values), and its window starts near
/// `p`: it is counted as `(q + r) / 64 + 1` words. Its first free value
/// lags behind `p` (by how much no rule bounds), and the file written was
/// 1.08 to 1.15 times that count at `Q` = 20 to 600, so a quarter more is
/// given: an estimate from above, not a bound (a test holds it between 1
/// and 1.5 times the size written).
pub(crate) fn sweep_saved_len(q_max: u32) -> u64 {
    // The sum over `m <= top` of `m / 64`.
    let below = |top: u128| {
        let k = top / 64;
        64 * k * k.saturating_sub(1) / 2 + k * (top + 1 - 64 * k)
    };
    let words: u128 = (0..=u128::from(q_max))
        .map(|q| below(2 * q) - q.checked_sub(1).map_or(0, below) + q + 1)
        .sum();
    let bytes = 8 + 16 * u128::from(line_count(q_max)) + 8 * words;
    u64::try_from(bytes + bytes / 4).unwrap_or(u64::MAX)
}

/// The number of lines `(q, r)`, `r <= q <= q_max`, for memory estimates
/// (in 128 bits: `(Q+1)(Q+2)` passes 2^64 at `Q = 2^32 - 1`; saturated).
pub(crate) fn line_count(q_max: u32) -> u64 {
    let q = u128::from(q_max);
    u64::try_from((q + 1) * (q + 2) / 2).unwrap_or(u64::MAX)
}

/// Refuses [`options`] for `[p,q,r]` where this machine cannot hold its
/// sweep and its list of moves (16 bytes a move, twice that while the list
/// grows), with `kept` bytes a move that the caller keeps of its own.
pub fn check_options_memory(
    p: u32,
    q: u32,
    r: u32,
    kept: u64,
) -> Result<(), crate::base::memory::TooMuch> {
    let moves = u64::from(p) + u64::from(q) + u64::from(r);
    crate::base::memory::check(
        format!("the value of every move from [{p},{q},{r}] ({moves} moves)"),
        sweep_memory(q).saturating_add(moves.saturating_mul(32 + kept)),
    )
}

/// Refuses the values of the line `(q, r)` for `p < stop` ([`line_values`])
/// that this machine cannot hold: the sweep, and the values it returns.
pub fn check_line_memory(q: u32, stop: u32) -> Result<(), crate::base::memory::TooMuch> {
    let values = u64::from(stop.saturating_sub(q.max(1)));
    crate::base::memory::check(
        format!(
            "the values of a line for p < {stop} ({values} values) by the Grundy sweep of every line q <= {q}"
        ),
        sweep_memory(q).saturating_add(4 * values),
    )
}

/// Refuses a sweep of the lines `q <= q_max` that this machine cannot hold.
pub fn check_memory(q_max: u32) -> Result<(), crate::base::memory::TooMuch> {
    crate::base::memory::check(
        format!("the Grundy sweep of every line q <= {q_max}"),
        sweep_memory(q_max),
    )
}

impl Sweep {
    /// A sweep of the lines with `q <= q_max`, before its first step.
    pub fn new(q_max: u32) -> Sweep {
        let lines = line(q_max, q_max) + 1;
        Sweep {
            q_max,
            p: 0,
            used: vec![Used::default(); lines],
            first: vec![0; lines],
            now: vec![0; lines],
            diagonal: Taken::default(),
            columns: (0..=q_max).map(|_| Taken::default()).collect(),
            row: Taken::default(),
        }
    }

    /// The largest `q` of the sweep.
    pub fn q_max(&self) -> u32 {
        self.q_max
    }

    /// The last `p` computed (0 before the first step).
    pub fn p(&self) -> u32 {
        self.p
    }

    /// `G(p, q, r)` at the last `p` computed, if the line has started
    /// (`q <= p`, `r <= q <= Q`).
    pub fn value(&self, q: u32, r: u32) -> Option<u32> {
        (r <= q && q <= self.q_max && q <= self.p && self.p >= 1).then(|| self.now[line(q, r)])
    }

    /// The values at the last `p` of every started line (`q <= min(p, Q)`),
    /// in [`line()`] order.
    pub fn slab(&self) -> &[u32] {
        let q = self.q_max.min(self.p);
        &self.now[..line(q, q) + 1]
    }

    /// Writes the state after the last step: `Q`, `p`, then per line its used
    /// set and its first and present values (the step's scratch sets are
    /// empty between steps).
    pub(crate) fn save(&self, w: &mut dyn Write) -> io::Result<()> {
        put32(w, self.q_max)?;
        put32(w, self.p)?;
        for ((used, &first), &now) in self.used.iter().zip(&self.first).zip(&self.now) {
            used.save(w)?;
            put32(w, first)?;
            put32(w, now)?;
        }
        Ok(())
    }

    /// Reads a state written by [`Sweep::save`], for the lines `q <= q_max`:
    /// a sweep of fewer lines is widened, and one of more lines narrowed, as
    /// long as no line gained or dropped has started (`p <=` the smaller
    /// `Q`), since a line is untouched before its first `p` (a run stopped
    /// early and followed by a run of a smaller `N`). A sweep past its own
    /// lines (`p > Q`) is damaged.
    pub(crate) fn load(r: &mut dyn Read, q_max: u32) -> io::Result<Sweep> {
        let (saved_q, p) = (get32(r)?, get32(r)?);
        if p > saved_q {
            return Err(crate::base::bytes::damaged("a sweep past its own lines"));
        }
        if p > q_max {
            return Err(io::Error::new(
                checkpoint::OTHER_RUN,
                format!("the sweep is at p = {p}, past this table's lines q <= {q_max}"),
            ));
        }
        let mut sweep = Sweep::new(q_max);
        sweep.p = p;
        let kept = line(q_max, q_max);
        for at in 0..=line(saved_q, saved_q) {
            let (used, first, now) = (Used::load(r)?, get32(r)?, get32(r)?);
            if at <= kept {
                sweep.used[at] = used;
                sweep.first[at] = first;
                sweep.now[at] = now;
            }
        }
        Ok(sweep)
    }

    /// Computes every started line at the next `p`.
    pub fn step(&mut self) {
        self.p = self.p.checked_add(1).expect("p beyond u32");
        let p = self.p;
        for c in &mut self.columns {
            c.clear();
        }
        for q in 0..=self.q_max.min(p) {
            self.row.clear();
            self.diagonal.clear();
            for r in 0..=q {
                let at = line(q, r);
                if r < q {
                    // The diagonal line (r, r) came earlier at this p.
                    self.diagonal.insert(self.now[line(r, r)]);
                }
                let starts = q == p || (q == 0 && p == 1);
                if starts {
                    for j in 1..q {
                        let v = self.first[line(j, r.min(j))];
                        self.used[at].insert(v);
                    }
                }
                let g = self.least_free(q, r);
                self.used[at].insert(g);
                self.now[at] = g;
                if starts {
                    self.first[at] = g;
                }
                if q != r {
                    self.columns[r as usize].insert(g);
                }
                self.row.insert(g);
            }
        }
    }

    /// The least value not used by line `(q, r)` and not taken at this `p` by
    /// a line its middle or top row moves to (see the module's comment): the
    /// first zero of the or of four bitsets, a word at a time.
    fn least_free(&self, q: u32, r: u32) -> u32 {
        let used = &self.used[line(q, r)];
        let column = &self.columns[r as usize];
        let from = used.first_free();
        let mut k = (from / 64) as usize;
        // Values below the first free one are used.
        let mut below = (1u64 << (from % 64)) - 1;
        loop {
            let w =
                used.word(k) | self.diagonal.word(k) | column.word(k) | self.row.word(k) | below;
            if w != u64::MAX {
                return 64 * narrow::<u32, _>(k) + w.trailing_ones();
            }
            k += 1;
            below = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// The estimate of a checkpoint's size before a run is above the bytes
    /// the sweep's save writes at its end, and near them.
    #[test]
    fn the_saved_sweep_estimate_is_near_what_a_sweep_writes() {
        for q_max in [20, 64, 150] {
            let mut sweep = Sweep::new(q_max);
            while sweep.p() < q_max {
                sweep.step();
            }
            let mut written = Vec::new();
            sweep.save(&mut written).unwrap();
            let (est, real) = (sweep_saved_len(q_max), written.len() as u64);
            assert!(
                est >= real && 2 * est <= 3 * real,
                "Q = {q_max}: {est} against {real}"
            );
        }
        // Counted by hand at Q = 1: three lines of one word, and a quarter.
        assert_eq!(sweep_saved_len(1), (8 + 3 * 24) * 5 / 4);
    }

    #[test]
    fn the_memory_estimate_grows_with_q_to_the_largest() {
        let per_line = (std::mem::size_of::<Used>() + 8) as u64;
        // (Q+1)(Q+2)/2 lines, counted by hand at Q = 2 (6 lines).
        assert_eq!(sweep_memory(2), 6 * per_line);
        let mut last = 0;
        for q in [
            1u32,
            1000,
            100_000,
            10_000_000,
            1 << 31,
            u32::MAX - 1,
            u32::MAX,
        ] {
            let bytes = sweep_memory(q);
            assert!(bytes >= last, "Q = {q}: {bytes} < {last}");
            last = bytes;
        }
        assert_eq!(sweep_memory(u32::MAX), u64::MAX);
    }

    /// `G(p,q,r)` from the move rule alone: the mex of the values of every
    /// position one bite away.
    fn by_moves(p: u32, q: u32, r: u32, memo: &mut HashMap<[u32; 3], u32>) -> u32 {
        if let Some(&g) = memo.get(&[p, q, r]) {
            return g;
        }
        let mut seen = Vec::new();
        for c in 2..=p {
            seen.push(by_moves(c - 1, q.min(c - 1), r.min(c - 1), memo));
        }
        for c in 1..=q {
            seen.push(by_moves(p, c - 1, r.min(c - 1), memo));
        }
        for c in 1..=r {
            seen.push(by_moves(p, q, c - 1, memo));
        }
        let g = (0..).find(|v| !seen.contains(v)).expect("a free value");
        memo.insert([p, q, r], g);
        g
    }

    #[test]
    fn a_line_from_one_sweep_is_the_move_rule() {
        let mut memo = HashMap::new();
        let stop = Stop::new();
        for (q, r) in [(0, 0), (3, 1), (6, 6), (7, 2)] {
            let got = line_values(q, r, 40, &stop, &mut |_| {}).unwrap();
            let want: Vec<u32> = (q.max(1)..40)
                .map(|p| by_moves(p, q, r, &mut memo))
                .collect();
            assert_eq!(got, want, "line ({q},{r})");
        }
        assert!(line_values(9, 4, 9, &stop, &mut |_| {}).unwrap().is_empty());
        stop.request();
        assert_eq!(line_values(2, 1, 50, &stop, &mut |_| {}), None);
    }

    #[test]
    fn a_single_row_is_nim() {
        // [p, 0, 0] is a heap of p - 1 squares besides the poison.
        let mut s = Sweep::new(0);
        for p in 1..100 {
            s.step();
            assert_eq!(s.value(0, 0), Some(p - 1));
        }
    }
}
