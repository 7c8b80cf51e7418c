//! A census checked against a dense table it never read: every value its proved
//! fates give for `q <= N`, and that every start is the least one.

use crate::base::bytes::narrow;
use crate::f::proof::{Fate, RowStatus};
use crate::f::table::{Table, TableError};

/// Outcome of [`check_against`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Values compared.
    pub values: u64,
    /// The first `(q, r)` where the census and the table disagree (a value, or a
    /// start that is not the least one).
    pub first_mismatch: Option<(u64, u64)>,
}

/// Compares every value the proved fates in `rows` give for `q <= N` with the
/// table, streaming it column by column, and checks that each start is the least
/// one: the column just before a start must break the fate.
/// A table that holds no column yet gives nothing to compare.
pub fn check_against(rows: &[Option<RowStatus>], t: &Table) -> Result<CheckReport, TableError> {
    let mut report = CheckReport {
        values: 0,
        first_mismatch: None,
    };
    let Some(n) = t.n() else {
        return Ok(report);
    };
    let top_row = (rows.len() as u64).min(n + 1);
    let mut col = Vec::new();
    for q in 0..=n {
        col.clear();
        t.read_column(
            narrow::<u32, _>(q),
            0..narrow::<u32, _>(top_row.min(q + 1)),
            &mut col,
        )?;
        for (r, &v) in col.iter().enumerate() {
            let Some(s) = rows[r].as_ref().filter(|s| s.is_proved()) else {
                continue;
            };
            let wrong = match s.fate.value(q) {
                Some(expect) => {
                    report.values += 1;
                    expect != u128::from(v)
                }
                None => false,
            };
            let start = u64::from(s.fate.start());
            let not_least = start > r as u64
                && q + 1 == start
                && match &s.fate {
                    Fate::Constant { .. } => v as u64 == q,
                    Fate::Periodic { pattern, .. } => {
                        v as i64 - q.cast_signed() == i64::from(pattern[pattern.len() - 1])
                    }
                };
            if (wrong || not_least) && report.first_mismatch.is_none() {
                report.first_mismatch = Some((q, r as u64));
            }
        }
    }
    Ok(report)
}
