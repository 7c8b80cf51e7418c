//! The column pass: one stream over every cell, in column order, collecting what
//! is complete column by column (diagonal, constant-row starts, P-position counts,
//! value counts, row minima, the largest value of each column).

use rayon::prelude::*;

use crate::table::Table;

/// Columns per unit of parallel work.
const CHUNK_COLS: u32 = 256;

/// Everything the column pass finds. All of it is exact for the table's `N`.
#[derive(Clone, Debug, Default)]
pub struct ColumnFacts {
    /// The table's N.
    pub n: u32,
    /// `f(q,q)` for `q = 0 ..= N`.
    pub diagonal: Vec<u32>,
    /// `(q, r)` with `f(q,r) = q` (a row's start), ordered by `q`.
    pub starts: Vec<(u32, u32)>,
    /// `p_count[p]`: P-positions `[p, q, r]` with this `p` (cells with `q <= f <= N`).
    pub p_count: Vec<u64>,
    /// `value_count[v]`: cells `r <= q <= N` with `f(q,r) = v`.
    pub value_count: Vec<u64>,
    /// `row_min[r]`: least `f(q,r)` over `r < q <= N` (`u32::MAX` for row N).
    pub row_min: Vec<u32>,
    /// First column whose largest value is not `f(q,q)`, if any.
    pub diagonal_not_max: Option<u32>,
}

impl ColumnFacts {
    fn empty(n: u32) -> ColumnFacts {
        ColumnFacts {
            n,
            diagonal: vec![0; n as usize + 1],
            starts: Vec::new(),
            p_count: vec![0; n as usize + 1],
            value_count: vec![0; 2 * n as usize + 2],
            row_min: vec![u32::MAX; n as usize + 1],
            diagonal_not_max: None,
        }
    }

    fn merge(mut self, other: ColumnFacts) -> ColumnFacts {
        for (a, b) in self.diagonal.iter_mut().zip(&other.diagonal) {
            *a = (*a).max(*b);
        }
        self.starts.extend(other.starts);
        for (a, b) in self.p_count.iter_mut().zip(&other.p_count) {
            *a += b;
        }
        for (a, b) in self.value_count.iter_mut().zip(&other.value_count) {
            *a += b;
        }
        for (a, b) in self.row_min.iter_mut().zip(&other.row_min) {
            *a = (*a).min(*b);
        }
        self.diagonal_not_max = match (self.diagonal_not_max, other.diagonal_not_max) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self
    }

    fn add_column(&mut self, q: u32, col: &[u32]) {
        let n = self.n;
        let d = col[q as usize];
        self.diagonal[q as usize] = d;
        let mut largest_below = 0;
        for (r, &v) in col.iter().enumerate() {
            self.value_count[v as usize] += 1;
            if v >= q && v <= n {
                self.p_count[v as usize] += 1;
            }
            if v == q {
                self.starts.push((q, r as u32));
            }
            if (r as u32) < q {
                let m = &mut self.row_min[r];
                *m = (*m).min(v);
                largest_below = largest_below.max(v);
            }
        }
        if largest_below > d && self.diagonal_not_max.is_none_or(|x| q < x) {
            self.diagonal_not_max = Some(q);
        }
    }
}

/// Streams all columns of `t` (N >= 0) on the current rayon pool.
pub fn scan(t: &Table) -> ColumnFacts {
    let n = t.n() as u32;
    let chunks = (n + 1).div_ceil(CHUNK_COLS);
    let mut facts = (0..chunks)
        .into_par_iter()
        .fold(
            || ColumnFacts::empty(n),
            |mut acc, c| {
                let mut col = Vec::new();
                for q in c * CHUNK_COLS..((c + 1) * CHUNK_COLS).min(n + 1) {
                    col.clear();
                    t.read_column(q, 0..q + 1, &mut col);
                    acc.add_column(q, &col);
                }
                acc
            },
        )
        .reduce(|| ColumnFacts::empty(n), ColumnFacts::merge);
    facts.starts.sort_unstable();
    facts
}
