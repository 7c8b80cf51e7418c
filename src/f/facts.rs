//! What the columns `0 ..= N` of `f` say, collected column by column: the
//! diagonal, constant-row starts, P-position counts, value counts, row minima and
//! the largest value of each column. Filled by the table's column pass
//! (`analysis::columns`) or by the census; uses only `bytes` (checked narrowing).

use crate::base::bytes::narrow;

/// What columns `0 ..= N` say, exactly: from a table's column pass or a census's
/// scan of its first `N + 1` columns.
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
    /// `value_count[v]`: cells `r <= q <= N` with `f(q,r) = v` (empty when the
    /// source does not count them: a census).
    pub value_count: Vec<u64>,
    /// `row_min[r]`: least `f(q,r)` over `r < q <= N` (`u32::MAX` for row N), or
    /// over every `q > r` when `row_min_complete`.
    pub row_min: Vec<u32>,
    /// `row_min` is the true minimum of every row (a census sees each row until
    /// its fate is proved, and after that its values only grow or repeat).
    pub row_min_complete: bool,
    /// First column whose largest value is not `f(q,q)`, if any.
    pub diagonal_not_max: Option<u32>,
}

impl ColumnFacts {
    /// Nothing counted yet, for columns `0 ..= n`.
    pub fn empty(n: u32) -> ColumnFacts {
        ColumnFacts {
            n,
            diagonal: vec![0; n as usize + 1],
            starts: Vec::new(),
            p_count: vec![0; n as usize + 1],
            value_count: vec![0; 2 * n as usize + 2],
            row_min: vec![u32::MAX; n as usize + 1],
            row_min_complete: false,
            diagonal_not_max: None,
        }
    }

    /// Both parts' counts (of disjoint sets of columns).
    pub(crate) fn merge(mut self, other: ColumnFacts) -> ColumnFacts {
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

    /// Adds column `q`: `col[r] = f(q, r)` for `r = 0 ..= q`.
    pub(crate) fn add_column(&mut self, q: u32, col: &[u32]) {
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
                self.starts.push((q, narrow::<u32, _>(r)));
            }
            if narrow::<u32, _>(r) < q {
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
