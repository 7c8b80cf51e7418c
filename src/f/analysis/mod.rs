//! Passes over a table file that turn it into results: the OEIS sequences of doc/chomp.md
//! section 3, the row census, growth statistics and the open questions of doc/chomp.md
//! section 4. Reads the table through its memory map (one column pass, one row
//! pass in bounded blocks); never writes the table. Uses `table`, `proof`,
//! `census_file` (for rows a census has proved and the table cannot), `facts`,
//! `atomic_write` and `bytes`.
//!
//! Everything reported carries its status: exact for the table's `N`, proved for
//! all `q` (constant rows, certified periodic rows), or evidence within the table.

pub(crate) mod checks;
pub(crate) mod columns;
pub mod counts;
pub mod crosscheck;
pub(crate) mod growth;
pub mod period;
pub mod report;
pub(crate) mod rows;
pub mod sequences;

use crate::base::bytes::narrow;
use crate::f::census_file::Descriptors;
use crate::f::facts::ColumnFacts;
use crate::f::proof::{Known, RowStatus};
use crate::f::table::{Table, TableError};
use checks::Checks;
use growth::Growth;

/// The result of [`analyze`] or [`from_census`].
pub struct Analysis {
    /// Made from a census alone (no table): `N` is the census's last row.
    pub census_only: bool,
    /// What the column pass found.
    pub facts: ColumnFacts,
    /// Each row's status (`None`: open).
    pub rows: Vec<Option<RowStatus>>,
    /// Every row below this one is constant or proved periodic.
    pub settled_below: u32,
    /// The checks of doc/chomp.md section 3 and 4.
    pub checks: Checks,
    /// Growth of `d_n`, `q_n`, `r_n`.
    pub growth: Growth,
}

/// Runs both passes over `t` and the checks; rows the table cannot settle take
/// their proved fate from `census` when it has one. `progress(stage, done, total)`.
/// The table is verified whole first (every block), and the passes check
/// every block they read again; a damaged table is the error, found first
/// or, if the file is changed in place meanwhile, where it is read.
pub fn analyze(
    t: &Table,
    census: Option<&Descriptors>,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<Analysis, TableError> {
    progress("verify", 0, 1);
    t.verify()?;
    let n = narrow::<u32, _>(t.n().unwrap_or(0));
    progress("columns", 0, n as u64 + 1);
    let facts = columns::scan(t)?;
    progress("columns", n as u64 + 1, n as u64 + 1);
    let (mut rows, mut settled_below) =
        rows::classify(t, &facts, |r| progress("rows", r as u64, n as u64 + 1))?;
    if let Some(d) = census {
        adopt_census(&mut rows, d);
        settled_below = first_unproved(&rows);
    }
    Ok(Analysis::new(facts, rows, settled_below, false))
}

/// The analysis of a census alone, for `N = R` (its last row; less if it stopped
/// before column `R`): the facts it collected of columns `0 ..= N`, and every
/// row's proved fate. `None` for a version-1 file, which has no facts.
///
/// Each result covers what rows `0 ..= R` determine. `f(n,n)` (A029900) and the
/// P-position counts with `p <= n` (A029899) need only columns `q <= n <= R` of
/// rows `r <= q`, all computed. A constant row `r > R` has its start `q > r > R`
/// (`f(r,r) > r`), so every start `q <= R` (A029901/2) is a row the census has.
/// The families (A029903..5) and A147983 are read off rows `0 ..= R`, complete below
/// the first row without an exact proved fate. Row minima are each row's true
/// minimum: the census sees every value of a row until its fate is proved, and
/// after that a constant row repeats its start and a periodic row's values
/// `q + pattern` only grow.
pub fn from_census(d: &Descriptors) -> Option<Analysis> {
    let facts = d.facts()?;
    let rows: Vec<Option<RowStatus>> = (0..d.rows()).map(|r| d.status(r)).collect();
    let bound = (0..d.rows()).find(|&r| d.start_is_bound(r));
    let settled_below = first_unproved(&rows).min(bound.unwrap_or(u32::MAX));
    Some(Analysis::new(facts, rows, settled_below, true))
}

impl Analysis {
    /// Rows whose fate is proved: constant, or periodic by a proof.
    pub fn settled_rows(&self) -> u64 {
        self.rows.iter().flatten().filter(|s| s.is_proved()).count() as u64
    }

    fn new(
        facts: ColumnFacts,
        rows: Vec<Option<RowStatus>>,
        settled_below: u32,
        census_only: bool,
    ) -> Analysis {
        let checks = checks::checks(&facts, &rows, settled_below);
        let growth = Growth::of(&facts.diagonal, &facts.starts);
        Analysis {
            census_only,
            facts,
            rows,
            settled_below,
            checks,
            growth,
        }
    }
}

/// Rows without a proof take the census's proved fate, marked as from the census.
fn adopt_census(rows: &mut [Option<RowStatus>], d: &Descriptors) {
    for (r, row) in rows.iter_mut().enumerate() {
        if row.as_ref().is_some_and(RowStatus::is_proved) {
            continue;
        }
        if let Some(s) = d.status(narrow::<u32, _>(r)) {
            *row = Some(RowStatus {
                known: Known::Census {
                    closed_at: s.known.closed_at(),
                },
                fate: s.fate,
            });
        }
    }
}

/// The first row without a proved fate (`rows.len()` if none).
fn first_unproved(rows: &[Option<RowStatus>]) -> u32 {
    narrow(
        rows.iter()
            .position(|s| !s.as_ref().is_some_and(RowStatus::is_proved))
            .unwrap_or(rows.len()),
    )
}
