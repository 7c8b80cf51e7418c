//! Questions about single positions `[p,q,r]`: won or lost, and every winning
//! move, answered from a table or, by `lookup`'s source rule, from a table and
//! a census ([`Values`]). Uses `table` and `lookup`: reads them, never writes.
//!
//! `[p,q,r]` (`p >= q >= r >= 0`, `p >= 1`) is a P-position exactly when
//! `f(q,r) = p`: `f(q,r)` is the one `p` for which `[p, min(p,q), min(p,q,r)]` is P
//! (doc/chomp.md section 2), and for `p >= q` that position is `[p,q,r]` itself. So any `p`
//! can be asked about once `q <= N`.

use std::fmt;

use crate::base::stop::Stop;
use crate::f::lookup::{LookupError, Sources};
use crate::f::table::{Table, TableError};

/// Where the questions take `f(q, r)` from.
pub trait Values {
    /// `f(q, r)` (for `r > q`, `f(q, q)`), or why it is not known here; in
    /// 128 bits, as `f(q, r)` reaches `2^64` for `q` near it (`f(q, 0) = q +
    /// 1`), where a row of `p = 2^64 - 1` squares does not.
    fn f(&self, q: u64, r: u64) -> Result<u128, PositionError>;
}

impl Values for Table {
    fn f(&self, q: u64, r: u64) -> Result<u128, PositionError> {
        Ok(u128::from(self.get(q, r)?))
    }
}

impl Values for Sources {
    fn f(&self, q: u64, r: u64) -> Result<u128, PositionError> {
        Ok(self.answer(q, r).map_err(PositionError::Lookup)?.value)
    }
}

/// Which row a move takes from (doc/chomp.md section 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    /// Row 1, the longest.
    Bottom,
    /// Row 2.
    Middle,
    /// Row 3.
    Top,
}

/// A move: the square taken (row, 1-based column) and the position it leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    /// Row of the square taken.
    pub row: Row,
    /// Its column, from 1.
    pub column: u64,
    /// The position after the move.
    pub to: [u64; 3],
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let row = match self.row {
            Row::Bottom => "row 1 (bottom)",
            Row::Middle => "row 2 (middle)",
            Row::Top => "row 3 (top)",
        };
        let [p, q, r] = self.to;
        write!(f, "take {row}, column {} -> [{p},{q},{r}]", self.column)
    }
}

/// Why a position cannot be answered.
#[derive(Debug, thiserror::Error)]
pub enum PositionError {
    /// Not `p >= q >= r >= 0` with `p >= 1`.
    #[error("[{0},{1},{2}] is not a position: rows must satisfy P >= Q >= R >= 0 and P >= 1")]
    Invalid(u64, u64, u64),
    /// `q` beyond the table.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A value neither the table nor the census gives.
    #[error(transparent)]
    Lookup(LookupError),
    /// Listing the moves would read more values than [`MAX_MIDDLE`] rows.
    #[error(
        "[{0},{1},{2}]: listing its moves reads f for every middle row below Q; Q <= {MAX_MIDDLE} only"
    )]
    TooLong(u64, u64, u64),
    /// Stopped on request while the moves were listed.
    #[error("interrupted; no moves listed")]
    Stopped,
}

/// The largest middle row whose moves are listed (each move reads one value).
pub const MAX_MIDDLE: u64 = 10_000_000;

/// How many values [`winning_moves`] reads between looks at its stop token
/// (some milliseconds of reading).
pub const STOP_EVERY: u64 = 4096;

/// Whether `[p,q,r]` is a P-position (the player to move loses).
pub fn is_p(t: &impl Values, p: u64, q: u64, r: u64) -> Result<bool, PositionError> {
    check(p, q, r)?;
    Ok(t.f(q, r)? == u128::from(p))
}

/// Every move from `[p,q,r]` to a P-position, bottom row first, by column;
/// `stop` is heard every [`STOP_EVERY`] values read.
pub fn winning_moves(
    t: &impl Values,
    p: u64,
    q: u64,
    r: u64,
    stop: &Stop,
) -> Result<Vec<Move>, PositionError> {
    check(p, q, r)?;
    if q > MAX_MIDDLE {
        return Err(PositionError::TooLong(p, q, r));
    }
    let read = std::cell::Cell::new(0u64);
    let f = |a: u64, b: u64| {
        read.set(read.get() + 1);
        if read.get().is_multiple_of(STOP_EVERY) && stop.requested() {
            return Err(PositionError::Stopped);
        }
        t.f(a, b)
    };
    let mut moves = Vec::new();
    // Bottom row, column c: [x, min(q,x), min(r,x)] with x = c - 1 >= 1. For x < q
    // that is [x, x, min(r,x)], P iff f(x, min(r,x)) = x; for x >= q it is
    // [x, q, r], P iff x = f(q,r).
    for x in 1..q.min(p) {
        if f(x, r.min(x))? == u128::from(x) {
            moves.push(Move {
                row: Row::Bottom,
                column: x + 1,
                to: [x, x, r.min(x)],
            });
        }
    }
    let x = f(q, r)?;
    if x >= u128::from(q.max(1)) && x < u128::from(p) {
        let x = u64::try_from(x).expect("below p, a u64");
        moves.push(Move {
            row: Row::Bottom,
            column: x + 1,
            to: [x, q, r],
        });
    }
    // Middle row, column c: [p, c-1, min(r, c-1)], P iff f(c-1, min(r,c-1)) = p.
    for y in 0..q {
        if f(y, r.min(y))? == u128::from(p) {
            moves.push(Move {
                row: Row::Middle,
                column: y + 1,
                to: [p, y, r.min(y)],
            });
        }
    }
    // Top row, column c: [p, q, c-1], P iff f(q, c-1) = p.
    for z in 0..r {
        if f(q, z)? == u128::from(p) {
            moves.push(Move {
                row: Row::Top,
                column: z + 1,
                to: [p, q, z],
            });
        }
    }
    Ok(moves)
}

fn check(p: u64, q: u64, r: u64) -> Result<(), PositionError> {
    if p >= q && q >= r && p >= 1 {
        Ok(())
    } else {
        Err(PositionError::Invalid(p, q, r))
    }
}
