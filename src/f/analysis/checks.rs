//! The checks of doc/chomp.md sections 3 and 4 over a table's passes: complementarity of
//! `d` and `q_n`, the unique winning move from `[n,n,n]`, monotone starts, the
//! diagonal as column maximum, and non-decreasing row minima.

use crate::base::bytes::narrow;
use serde::Serialize;

use crate::f::facts::ColumnFacts;
use crate::f::proof::{Fate, RowStatus};

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

/// The checks of doc/chomp.md sections 3 and 4.
#[derive(Clone, Debug, Serialize)]
pub struct Checks {
    /// Every `v` in `1 ..= N` is a diagonal value or a constant-row value, not both.
    pub complementary: Check,
    /// `[n,n,n]` has exactly one winning move, `1 <= n <= N`.
    pub unique_winning_move: Check,
    /// Starts of constant rows increase with the row, over rows below `settled_below`.
    pub starts_monotone: Check,
    /// `f(q,q)` is the largest value of column `q`, `q <= N`.
    pub diagonal_is_column_max: Check,
    /// `m_r = min { f(q,r) : q > r }` is non-decreasing, over the rows where it is exact.
    pub row_minima_nondecreasing: Check,
}

/// Runs every check on the passes' results.
pub fn checks(facts: &ColumnFacts, rows: &[Option<RowStatus>], settled_below: u32) -> Checks {
    let (complementary, unique_winning_move) = value_checks(facts);
    let n = facts.n as u64;
    Checks {
        complementary,
        unique_winning_move,
        starts_monotone: starts_monotone(rows, settled_below),
        diagonal_is_column_max: match facts.diagonal_not_max {
            None => Check::Holds { upto: n },
            Some(q) => Check::Fails {
                at: q as u64,
                detail: format!("column {q} has a value above f({q},{q})"),
            },
        },
        row_minima_nondecreasing: row_minima(facts, rows),
    }
}

/// Complementarity of `d` and `q_n`, and the unique winning move from `[n,n,n]`,
/// for every value `1 ..= N`.
fn value_checks(facts: &ColumnFacts) -> (Check, Check) {
    let n = facts.n as u64;
    // How often each value is a diagonal value / a start value (both exact up to N:
    // d_m > m and starts have value = column).
    let mut on_diagonal = vec![0u32; narrow::<usize, _>(n) + 2];
    for &d in &facts.diagonal {
        if (d as u64) <= n {
            on_diagonal[d as usize] += 1;
        }
    }
    let mut as_start = vec![0u32; narrow::<usize, _>(n) + 2];
    for &(q, _) in &facts.starts {
        as_start[q as usize] += 1;
    }
    let first_bad = |bad: &dyn Fn(usize) -> Option<String>| -> Check {
        (1..=narrow::<usize, _>(n))
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
    (complementary, unique_winning_move)
}

/// Rows in increasing order must have increasing starts; decided for rows below
/// `settled_below`, each of which has died or is proved never to die.
fn starts_monotone(rows: &[Option<RowStatus>], settled_below: u32) -> Check {
    let mut last: Option<(u32, u32)> = None;
    for (r, row) in rows.iter().enumerate().take(settled_below as usize) {
        if let Some(RowStatus {
            fate: Fate::Constant { start },
            ..
        }) = *row
        {
            if let Some((lr, lq)) = last
                && start < lq
            {
                return Check::Fails {
                    at: r as u64,
                    detail: format!("row {r} starts at {start}, before row {lr} (start {lq})"),
                };
            }
            last = Some((narrow::<u32, _>(r), start));
        }
    }
    Check::Holds {
        upto: (settled_below as u64).saturating_sub(1),
    }
}

/// `m_r = min { f(q,r) : q > r }` non-decreasing, as far as `m_r` is exact: the
/// row died inside the table or its minimum so far is `<= N + 1` (later values of
/// a live row are `>= q > N`), or the minimum is a census's true one.
fn row_minima(facts: &ColumnFacts, rows: &[Option<RowStatus>]) -> Check {
    let n = facts.n as u64;
    let exact = |r: usize| {
        matches!(rows[r], Some(RowStatus { fate: Fate::Constant { start }, .. }) if u64::from(start) <= n)
            || (facts.row_min[r] as u64) <= n + 1
            || (facts.row_min_complete && facts.row_min[r] != u32::MAX)
    };
    let mut holds = Check::Holds { upto: 0 };
    for r in 1..=narrow::<usize, _>(n) {
        if !exact(r) {
            break;
        }
        if facts.row_min[r] < facts.row_min[r - 1] {
            return Check::Fails {
                at: r as u64,
                detail: format!(
                    "m_{r} = {} < m_{} = {}",
                    facts.row_min[r],
                    r - 1,
                    facts.row_min[r - 1]
                ),
            };
        }
        holds = Check::Holds { upto: r as u64 };
    }
    holds
}
