//! Passes over a table file that turn it into results: the OEIS sequences of SPEC
//! section 3, the row census, growth statistics and the open questions of SPEC
//! section 4. Reads the table through its memory map (one column pass, one row
//! pass in bounded blocks); never writes the table.
//!
//! Everything reported carries its status: exact for the table's `N`, proved for
//! all `q` (constant rows, certified periodic rows), or evidence within the table.

pub mod certify;
pub mod columns;
pub mod growth;
pub mod period;
pub mod report;
pub mod rows;

use serde::Serialize;

use crate::census::Fate;
use crate::census_file::Descriptors;
use crate::table::Table;
use columns::ColumnFacts;
use growth::Deviation;
use rows::RowClass;

/// The result of [`analyze`].
pub struct Analysis {
    /// What the column pass found.
    pub facts: ColumnFacts,
    /// Each row's class.
    pub rows: Vec<RowClass>,
    /// Every row below this one is constant or proved periodic.
    pub resolved_below: u32,
    /// `by_census[r]`: row `r` was settled by a census descriptor file, not by
    /// this table alone.
    pub by_census: Vec<bool>,
    /// The checks of SPEC section 3 and 4.
    pub checks: Checks,
    /// Growth of `d_n`, `q_n`, `r_n`.
    pub growth: [Deviation; 3],
}

/// Outcome of a check over a range.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// Holds for every index up to `upto` (inclusive).
    Holds {
        /// Last index checked.
        upto: u64,
    },
    /// Fails first at `at`.
    Fails {
        /// The first counterexample.
        at: u64,
        /// What goes wrong there.
        detail: String,
    },
}

/// The checks of SPEC sections 3 and 4.
#[derive(Clone, Debug, Serialize)]
pub struct Checks {
    /// Every `v` in `1 ..= N` is a diagonal value or a constant-row value, not both.
    pub complementary: Check,
    /// `[n,n,n]` has exactly one winning move, `1 <= n <= N`.
    pub unique_winning_move: Check,
    /// Starts of constant rows increase with the row, over rows below `resolved_below`.
    pub starts_monotone: Check,
    /// `f(q,q)` is the largest value of column `q`, `q <= N`.
    pub diagonal_is_column_max: Check,
    /// `m_r = min { f(q,r) : q > r }` is non-decreasing, over the rows where it is exact.
    pub row_minima_nondecreasing: Check,
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
    let settled = |c: &RowClass| {
        matches!(
            c,
            RowClass::Constant { .. }
                | RowClass::Periodic {
                    proved_at: Some(_),
                    ..
                }
        )
    };
    let mut by_census = vec![false; rows.len()];
    if let Some(d) = census {
        for (r, class) in rows.iter_mut().enumerate() {
            if settled(class) {
                continue;
            }
            match d.fate(r as u32) {
                Some(Fate::Constant { start }) => {
                    *class = RowClass::Constant {
                        start: start as u32,
                    }
                }
                Some(Fate::Periodic {
                    start,
                    pattern,
                    closed_at,
                }) => {
                    let p = pattern.len() as u32;
                    *class = RowClass::Periodic {
                        start: start as u32,
                        confirmed: (n + 1).saturating_sub(start as u32 + p),
                        pattern,
                        proved_at: Some(closed_at as u32),
                    }
                }
                _ => continue,
            }
            by_census[r] = true;
        }
        resolved_below = rows.iter().position(|c| !settled(c)).unwrap_or(rows.len()) as u32;
    }
    let checks = checks(&facts, &rows, resolved_below);
    let q: Vec<u64> = facts.starts.iter().map(|&(q, _)| q as u64).collect();
    let r: Vec<u64> = facts.starts.iter().map(|&(_, r)| r as u64).collect();
    let d: Vec<u64> = facts.diagonal.iter().map(|&v| v as u64).collect();
    let growth = [
        growth::deviation(&d, 0, growth::A),
        growth::deviation(&q, 1, growth::B),
        growth::deviation(&r, 1, growth::A),
    ];
    Analysis {
        facts,
        rows,
        resolved_below,
        by_census,
        checks,
        growth,
    }
}

fn checks(facts: &ColumnFacts, rows: &[RowClass], resolved_below: u32) -> Checks {
    let n = facts.n as u64;
    // How often each value is a diagonal value / a start value (both exact up to N:
    // d_m > m and starts have value = column).
    let mut on_diagonal = vec![0u32; n as usize + 2];
    for &d in &facts.diagonal {
        if (d as u64) <= n {
            on_diagonal[d as usize] += 1;
        }
    }
    let mut as_start = vec![0u32; n as usize + 2];
    for &(q, _) in &facts.starts {
        as_start[q as usize] += 1;
    }
    let first_bad = |bad: &dyn Fn(usize) -> Option<String>| -> Check {
        (1..=n as usize)
            .find_map(|v| {
                bad(v).map(|detail| Check::Fails {
                    at: v as u64,
                    detail,
                })
            })
            .unwrap_or(Check::Holds { upto: n })
    };
    let complementary = first_bad(&|v| match (on_diagonal[v], as_start[v]) {
        (0, 0) => Some(format!(
            "{v} is neither a diagonal value nor a constant-row value"
        )),
        (a, b) if a > 0 && b > 0 => Some(format!(
            "{v} is both a diagonal value and a constant-row value"
        )),
        _ => None,
    });
    // Winning moves from [n,n,n]: to [n, m, m] with f(m,m) = n, or to [n, n, r]
    // with f(n,r) = n (a bottom-row move gives a square, never a P-position).
    let unique_winning_move = first_bad(&|v| {
        let moves = on_diagonal[v] + as_start[v];
        (moves != 1).then(|| format!("[{v},{v},{v}] has {moves} winning moves"))
    });

    // Rows in increasing order must have increasing starts; decided for rows below
    // `resolved_below`, each of which has died or is proved never to die.
    let mut starts_monotone = Check::Holds {
        upto: (resolved_below as u64).saturating_sub(1),
    };
    let mut last: Option<(u32, u32)> = None;
    for (r, class) in rows.iter().enumerate().take(resolved_below as usize) {
        if let RowClass::Constant { start } = *class {
            if let Some((lr, lq)) = last
                && start < lq
            {
                starts_monotone = Check::Fails {
                    at: r as u64,
                    detail: format!("row {r} starts at {start}, before row {lr} (start {lq})"),
                };
                break;
            }
            last = Some((r as u32, start));
        }
    }

    let diagonal_is_column_max = match facts.diagonal_not_max {
        None => Check::Holds { upto: n },
        Some(q) => Check::Fails {
            at: q as u64,
            detail: format!("column {q} has a value above f({q},{q})"),
        },
    };

    // m_r is exact when the row died inside the table or its minimum so far is
    // <= N + 1 (later values of a live row are >= q > N).
    let exact = |r: usize| {
        matches!(rows[r], RowClass::Constant { start } if (start as u64) <= n)
            || (facts.row_min[r] as u64) <= n + 1
    };
    let mut row_minima_nondecreasing = Check::Holds { upto: 0 };
    for r in 1..=n as usize {
        if !exact(r) {
            break;
        }
        if facts.row_min[r] < facts.row_min[r - 1] {
            row_minima_nondecreasing = Check::Fails {
                at: r as u64,
                detail: format!(
                    "m_{r} = {} < m_{} = {}",
                    facts.row_min[r],
                    r - 1,
                    facts.row_min[r - 1]
                ),
            };
            break;
        }
        row_minima_nondecreasing = Check::Holds { upto: r as u64 };
    }

    Checks {
        complementary,
        unique_winning_move,
        starts_monotone,
        diagonal_is_column_max,
        row_minima_nondecreasing,
    }
}
