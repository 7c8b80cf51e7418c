//! The column pass: one stream over every cell, in column order, collecting what
//! is complete column by column (diagonal, constant-row starts, P-position counts,
//! value counts, row minima, the largest value of each column).

use crate::base::bytes::narrow;
use rayon::prelude::*;

use crate::f::facts::ColumnFacts;
use crate::f::table::{Table, TableError};

/// Columns per unit of parallel work.
const CHUNK_COLS: u32 = 256;

/// Streams all columns of `t` (N >= 0) on the current rayon pool; the first
/// read that fails is the error (a file changed in place since it was
/// verified).
pub(crate) fn scan(t: &Table) -> Result<ColumnFacts, TableError> {
    let n = narrow::<u32, _>(t.n().unwrap_or(0));
    let chunks = (n + 1).div_ceil(CHUNK_COLS);
    let mut facts = (0..chunks)
        .into_par_iter()
        .try_fold(
            || ColumnFacts::empty(n),
            |mut acc, c| {
                let mut col = Vec::new();
                for q in c * CHUNK_COLS..((c + 1) * CHUNK_COLS).min(n + 1) {
                    col.clear();
                    t.read_column(q, 0..q + 1, &mut col)?;
                    acc.add_column(q, &col);
                }
                Ok(acc)
            },
        )
        .try_reduce(
            || ColumnFacts::empty(n),
            |a, b| Ok(ColumnFacts::merge(a, b)),
        )?;
    facts.starts.sort_unstable();
    Ok(facts)
}
