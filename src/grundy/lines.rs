//! The census's sweep: every line `(q, r)`, `q <= Q`, swept in `p` by the rule
//! of the module [`super`], except that a line known to be periodic
//! ("retired") gives its value from its pattern, and the retired lines at the
//! front of each column, each row and the diagonal are summed into periodic
//! [`Table`]s, so that they cost nothing per step. Uses `used` and `frozen`.
//!
//! # Why the values are the sweep's
//!
//! A live line's value is the least value not in its used set and not taken
//! at this `p` by a line of its middle or top row moves (the module [`super`]):
//! the lines `(j, j)`, `j <= r` (or `j < q` when `r = q`), the lines `(j, r)`,
//! `r < j < q`, and the lines `(q, j)`, `j < r`. Each of these three groups is
//! split into a front and the rest:
//!
//! * column `r`: the lines `(j, r)` with `r < j < col_front[r]` are retired and
//!   in `col_table[r]`; a live line `(q, r)`, `r < q`, has `q >= col_front[r]`
//!   (the front holds retired lines only), and `col_inc[r]` holds at this `p`
//!   the lines `(j, r)` with `col_front[r] <= j < q` (filled as `q` rises);
//! * the diagonal: `diag_table[j]` holds the lines `(i, i)`, `i <= j`, for
//!   `j < diag_front`, all retired; `diag_inc` holds the lines `(j, j)` with
//!   `diag_front <= j`, up to the line's own bound;
//! * row `q`: the lines `(q, j)`, `j < row_front[q]`, are retired and in
//!   `row_table[q]`; a live `(q, r)` has `r >= row_front[q]`, and `row_inc`
//!   holds `(q, j)` with `row_front[q] <= j < r`.
//!
//! Table plus incremental set is therefore exactly the group. A retired
//! line's value is its pattern's, which is its value (that is what retiring
//! requires); a table is built only from lines periodic from before the `p`
//! it is first read at. A line is evaluated in a step when it is live or when
//! one of the incremental sets needs it; every other line is in every table
//! that reads it.

use crate::base::bytes::narrow;
use std::sync::Arc;

use super::frozen::{Layout, Table};
use super::index::Taken;
use super::line;
use super::pattern::Pattern;
use super::used::Used;

/// How a line gets its value.
#[derive(Clone)]
enum Mode {
    /// By the mex, from the values it has used.
    Live(Used),
    /// From its pattern (shared with the census that found it).
    Retired(Arc<Pattern>),
}

/// Every line `(q, r)`, `q <= Q`, swept in `p`; see the module's comment.
pub(super) struct Lines {
    q_max: u32,
    p: u32,
    layout: Layout,
    mode: Vec<Mode>,
    /// Each line's value at its first `p`.
    first: Vec<u32>,
    /// Each evaluated line's value at `p`.
    now: Vec<u32>,
    col_table: Vec<Table>,
    col_front: Vec<u32>,
    col_inc: Vec<Taken>,
    diag_table: Vec<Table>,
    diag_front: u32,
    diag_inc: Taken,
    row_table: Vec<Table>,
    row_front: Vec<u32>,
    row_inc: Taken,
    /// Per row, the `r` evaluated in a step (rebuilt after lines retire).
    eval: Vec<Vec<u32>>,
    /// Lines retired since the fronts were last moved.
    retired_since: bool,
    /// The number of live lines.
    live: usize,
    /// The least `x = G - p` met below the window, if any: the values of the
    /// step that met it are not to be trusted.
    below: Option<i32>,
}

impl Lines {
    /// The lines `q <= q_max`, all live, before the first step, with room
    /// for `G - p >= -below` in the relative sets.
    pub(super) fn new(q_max: u32, below: u32) -> Lines {
        let layout = Layout::new(q_max, below);
        let n = line(q_max, q_max) + 1;
        let mut lines = Lines {
            q_max,
            p: 0,
            layout,
            mode: (0..n).map(|_| Mode::Live(Used::default())).collect(),
            first: vec![0; n],
            now: vec![0; n],
            col_table: (0..=q_max).map(|_| Table::empty()).collect(),
            col_front: (0..=q_max).map(|r| r + 1).collect(),
            col_inc: (0..=q_max).map(|_| Taken::default()).collect(),
            diag_table: Vec::new(),
            diag_front: 0,
            diag_inc: Taken::default(),
            row_table: (0..=q_max).map(|_| Table::empty()).collect(),
            row_front: vec![0; q_max as usize + 1],
            row_inc: Taken::default(),
            eval: Vec::new(),
            retired_since: false,
            live: n,
            below: None,
        };
        lines.build_eval();
        lines
    }

    /// The last `p` computed (0 before the first step).
    pub(super) fn p(&self) -> u32 {
        self.p
    }

    /// The least `G - p` met below the window, if any: the last step's values
    /// may then be wrong, and the sweep must start again with a wider window.
    pub(super) fn below_window(&self) -> Option<i32> {
        self.below
    }

    /// The lines live now.
    pub(super) fn live(&self) -> usize {
        self.live
    }

    /// Computes every started line at the next `p`; `seen(line, x, used)` is
    /// called for each live line with `x = G - p` and its used set after
    /// the step.
    pub(super) fn step(&mut self, mut seen: impl FnMut(usize, i32, &Used)) {
        if std::mem::take(&mut self.retired_since) {
            self.move_fronts();
        }
        self.p = self.p.checked_add(1).expect("p beyond u32");
        let p = self.p;
        for t in self
            .col_table
            .iter_mut()
            .chain(&mut self.diag_table)
            .chain(&mut self.row_table)
        {
            t.advance();
        }
        for c in &mut self.col_inc {
            c.clear();
        }
        let eval = std::mem::take(&mut self.eval);
        for q in 0..=self.q_max.min(p) {
            self.row_inc.clear();
            self.diag_inc.clear();
            let mut next_diag = self.diag_front;
            for &r in &eval[q as usize] {
                let own = if r < q { r } else { q.saturating_sub(1) };
                while q > 0 && next_diag <= own {
                    let x = self.now[line(next_diag, next_diag)] as i64 - p as i64;
                    let b = self.bit_of(narrow::<i32, _>(x));
                    self.diag_inc.insert(b);
                    next_diag += 1;
                }
                let g = self.value(q, r, &mut seen);
                let b = self.bit_of(narrow::<i32, _>(g as i64 - p as i64));
                if r < q && q >= self.col_front[r as usize] {
                    self.col_inc[r as usize].insert(b);
                }
                if r < q && r >= self.row_front[q as usize] {
                    self.row_inc.insert(b);
                }
            }
        }
        self.eval = eval;
    }

    /// Retires line `at`: from the next step on its value is `pattern`'s,
    /// which must hold from `pattern.from <= p + 1` on.
    pub(super) fn retire(&mut self, at: usize, pattern: Arc<Pattern>) {
        assert!(
            pattern.from <= self.p + 1,
            "a pattern retired before it holds"
        );
        if let Mode::Live(_) = std::mem::replace(&mut self.mode[at], Mode::Retired(pattern)) {
            self.live -= 1;
        }
        self.retired_since = true;
    }

    /// The bit of `x` in the relative sets; a value below the window is noted
    /// (see [`Lines::below_window`]) and given bit 0.
    #[inline]
    fn bit_of(&mut self, x: i32) -> u32 {
        if self.layout.fits(x) {
            // Above, `x <= 2Q - 1` (Layout::new) keeps it in the window; the
            // sets it goes into grow if ever it were not.
            (x + self.layout.bias()).cast_unsigned()
        } else {
            self.below = Some(self.below.map_or(x, |l| l.min(x)));
            0
        }
    }

    /// `G(p, q, r)` at the step being made, for an evaluated line.
    #[inline]
    fn value(&mut self, q: u32, r: u32, seen: &mut impl FnMut(usize, i32, &Used)) -> u32 {
        let p = self.p;
        let at = line(q, r);
        let starts = p == q.max(1);
        let g = match &self.mode[at] {
            Mode::Retired(pattern) => narrow::<u32, _>(p as i64 + pattern.at(p) as i64),
            Mode::Live(_) => {
                if starts {
                    for j in 1..q {
                        let v = self.first[line(j, r.min(j))];
                        self.used_mut(at).insert(v);
                    }
                }
                let g = self.least_free(q, r);
                let used = self.used_mut(at);
                used.insert(g);
                seen(at, narrow::<i32, _>(g as i64 - p as i64), used);
                g
            }
        };
        if starts {
            self.first[at] = g;
        }
        self.now[at] = g;
        g
    }

    fn used_mut(&mut self, at: usize) -> &mut Used {
        match &mut self.mode[at] {
            Mode::Live(u) => u,
            Mode::Retired(_) => unreachable!("a retired line has no used set"),
        }
    }

    /// The least value not used by the live line `(q, r)` and not taken at
    /// this `p` by its middle and top row moves: tables, incremental sets and
    /// the used set or-ed a word at a time.
    #[inline(always)]
    fn least_free(&self, q: u32, r: u32) -> u32 {
        let Mode::Live(used) = &self.mode[line(q, r)] else {
            unreachable!()
        };
        let free = used.first_free() as i64;
        let low = self.p as i64 - self.layout.bias() as i64;
        // Nothing is taken below `low` (Layout::bit), so a free value there wins.
        if free < low {
            return narrow::<u32, _>(free);
        }
        let s = narrow::<usize, _>(free - low);
        let mut k = s / 64;
        let mut below = (1u64 << (s % 64)) - 1;
        let (ri, qi) = (r as usize, q as usize);
        let own = if r < q { r } else { q.saturating_sub(1) };
        // With every line live the tables are empty: leave them out.
        let tables = self.live < self.mode.len();
        loop {
            let mut w = used.bits_from(low + 64 * narrow::<i64, _>(k)) | below;
            if q > 0 {
                w |= self.diag_inc.word(k) | self.row_inc.word(k);
                if r < q {
                    w |= self.col_inc[ri].word(k);
                }
                if tables {
                    w |= self.row_table[qi].word(k);
                    if self.diag_front > 0 {
                        let d = own.min(self.diag_front - 1);
                        w |= self.diag_table[d as usize].word(k);
                    }
                    if r < q {
                        w |= self.col_table[ri].word(k);
                    }
                }
            }
            if w != u64::MAX {
                return narrow::<u32, _>(low + 64 * narrow::<i64, _>(k) + w.trailing_ones() as i64);
            }
            k += 1;
            below = 0;
        }
    }

    fn retired(&self, q: u32, r: u32) -> Option<&Arc<Pattern>> {
        match &self.mode[line(q, r)] {
            Mode::Retired(p) => Some(p),
            Mode::Live(_) => None,
        }
    }

    /// Moves each front past the retired lines after it (adding them to the
    /// tables) and rebuilds the lists of evaluated lines.
    fn move_fronts(&mut self) {
        let (p, layout) = (self.p, self.layout);
        for r in 0..=self.q_max {
            let ri = r as usize;
            while self.col_front[ri] <= self.q_max {
                let Some(pat) = self.retired(self.col_front[ri], r).cloned() else {
                    break;
                };
                if !self.col_table[ri].add(&pat, &layout, p) {
                    break;
                }
                self.col_front[ri] += 1;
            }
        }
        while self.diag_front <= self.q_max {
            let d = self.diag_front;
            let Some(pat) = self.retired(d, d).cloned() else {
                break;
            };
            let mut t = self.diag_table.last().cloned().unwrap_or_else(Table::empty);
            if !t.add(&pat, &layout, p) {
                break;
            }
            self.diag_table.push(t);
            self.diag_front += 1;
        }
        for q in 0..=self.q_max {
            let qi = q as usize;
            while self.row_front[qi] < q {
                let Some(pat) = self.retired(q, self.row_front[qi]).cloned() else {
                    break;
                };
                if !self.row_table[qi].add(&pat, &layout, p) {
                    break;
                }
                self.row_front[qi] += 1;
            }
        }
        self.build_eval();
    }

    /// Per row, the lines a step evaluates: the live ones and the retired ones
    /// an incremental set needs (see the module's comment).
    fn build_eval(&mut self) {
        self.eval = (0..=self.q_max)
            .map(|q| {
                (0..=q)
                    .filter(|&r| {
                        let live = self.retired(q, r).is_none();
                        let col = r < q && q >= self.col_front[r as usize];
                        let row = r < q && r >= self.row_front[q as usize];
                        let diag = r == q && q >= self.diag_front;
                        live || col || row || diag
                    })
                    .collect()
            })
            .collect();
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
    use super::super::Sweep;
    use super::*;

    /// Retiring lines with their true patterns (read off a plain sweep) leaves
    /// every value of every live line as the plain sweep has it.
    #[test]
    fn retiring_lines_changes_no_value() {
        let q_max = 9;
        let far = 3600;
        // Every line's values from a plain sweep.
        let mut plain = Sweep::new(q_max);
        let mut hist: Vec<Vec<i32>> = vec![Vec::new(); line(q_max, q_max) + 1];
        while plain.p() < far {
            plain.step();
            let p = plain.p();
            for (i, &g) in plain.slab().iter().enumerate() {
                hist[i].push(g as i32 - p as i32);
            }
        }
        // A pattern of each line from p = 2000, period 1152 (a multiple of
        // every period of q <= 9 after their starts, all below 600).
        let (from, k) = (2000u32, 1152u32);
        let pattern = |at: usize| {
            let first = hist[0].len() - hist[at].len();
            let x = (from..from + k)
                .map(|p| hist[at][p as usize - 1 - first] as i16)
                .collect();
            Pattern { from, x }
        };
        let mut lines = Lines::new(q_max, Layout::first_guess(q_max));
        // Every third line from the end (gaps in every front), then the
        // rest but the last five (full fronts, lines live after them).
        let mut order: Vec<usize> = (0..hist.len()).rev().step_by(3).collect();
        let rest: Vec<usize> = (0..hist.len() - 5)
            .filter(|at| !order.contains(at))
            .collect();
        order.extend(rest);
        let mut retired = std::collections::HashSet::new();
        while lines.p() < far - 1 {
            let p = lines.p();
            // Retire a line every 10 steps after `from`.
            let due = p + 1 >= from && (p + 1 - from).is_multiple_of(10);
            if let Some(&at) = order.get(((p + 1).saturating_sub(from) / 10) as usize)
                && due
            {
                lines.retire(at, Arc::new(pattern(at)));
                retired.insert(at);
            }
            lines.step(|at, x, _| {
                let first = hist[0].len() - hist[at].len();
                assert_eq!(
                    x,
                    hist[at][p as usize - first],
                    "line {at} at p = {}",
                    p + 1
                );
            });
            let p = lines.p();
            for (at, h) in hist.iter().enumerate() {
                let first = hist[0].len() - h.len();
                if retired.contains(&at) || p as usize <= first {
                    continue;
                }
                assert_eq!(
                    lines.now[at] as i32 - p as i32,
                    h[p as usize - 1 - first],
                    "line {at} at p = {p}"
                );
            }
        }
        assert_eq!(lines.live(), hist.len() - order.len());
        assert!(lines.col_front.iter().any(|&f| f > 5) && lines.diag_front > 5);
    }
}
