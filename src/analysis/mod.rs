//! Passes over a table file that turn it into results: the OEIS sequences of SPEC
//! section 3, the row census, growth statistics and the open questions of SPEC
//! section 4. Reads the table through its memory map (one column pass, one row
//! pass in bounded blocks); never writes the table. Uses `table`, `proof` and
//! `census_file` (for rows a census has proved and the table cannot).
//!
//! Everything reported carries its status: exact for the table's `N`, proved for
//! all `q` (constant rows, certified periodic rows), or evidence within the table.

pub mod checks;
pub mod columns;
pub mod counts;
pub mod crosscheck;
pub mod growth;
pub mod period;
pub mod report;
pub mod rows;
pub mod sequences;

use crate::census_file::Descriptors;
use crate::proof::{Known, RowStatus};
use crate::table::Table;
use checks::Checks;
use columns::ColumnFacts;
use growth::Growth;

/// The result of [`analyze`].
pub struct Analysis {
    /// What the column pass found.
    pub facts: ColumnFacts,
    /// Each row's status (`None`: open).
    pub rows: Vec<Option<RowStatus>>,
    /// Every row below this one is constant or proved periodic.
    pub resolved_below: u32,
    /// The checks of SPEC section 3 and 4.
    pub checks: Checks,
    /// Growth of `d_n`, `q_n`, `r_n`.
    pub growth: Growth,
}

/// Runs both passes over `t` and the checks; rows the table cannot settle take
/// their proved fate from `census` when it has one. `progress(stage, done, total)`.
pub fn analyze(
    t: &Table,
    census: Option<&Descriptors>,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Analysis {
    let n = t.n().max(0) as u32;
    progress("columns", 0, n as u64 + 1);
    let facts = columns::scan(t);
    progress("columns", n as u64 + 1, n as u64 + 1);
    let (mut rows, mut resolved_below) =
        rows::classify(t, &facts, |r| progress("rows", r as u64, n as u64 + 1));
    if let Some(d) = census {
        adopt_census(&mut rows, d);
        resolved_below = first_unproved(&rows);
    }
    let checks = checks::checks(&facts, &rows, resolved_below);
    let growth = Growth::of(&facts.diagonal, &facts.starts);
    Analysis {
        facts,
        rows,
        resolved_below,
        checks,
        growth,
    }
}

/// Rows without a proof take the census's proved fate, marked as from the census.
fn adopt_census(rows: &mut [Option<RowStatus>], d: &Descriptors) {
    for (r, row) in rows.iter_mut().enumerate() {
        if row.as_ref().is_some_and(RowStatus::is_proved) {
            continue;
        }
        if let Some(s) = d.status(r as u32) {
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
    rows.iter()
        .position(|s| !s.as_ref().is_some_and(RowStatus::is_proved))
        .unwrap_or(rows.len()) as u32
}
