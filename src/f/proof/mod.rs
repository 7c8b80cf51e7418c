//! What a row of `f(q,r)` does for all `q`, how that is known, and the proof that
//! turns finite data into "for all `q`" (doc/certificate.md). The base that both the
//! census and the analysis build on; uses only `bytes` (checked narrowing).
//!
//! # The argument
//!
//! By the rule in `engine/mod.rs`, while row `r` is live its next value depends on
//! two things only: its *state* `W(q) = { f(a,r) - q : a < q, f(a,r) >= q }` (the
//! values it has used at or above `q`, relative to `q`) and the column's *input*
//! `U(q) = { f(q,b) - q : b < r, f(q,b) >= q }`. Then `v = f(q,r) - q` is the least
//! `v >= 0` outside `W(q) ∪ U(q)` (`v = 0` is the row's death) and
//! `W(q+1) = { x - 1 : x ∈ W(q) ∪ {v}, x >= 1 }`: a deterministic step.
//!
//! Suppose every row `b < r` either died at a column `s_b < q1` (it then feeds
//! nothing `>= q` for `q > s_b`) or is *proved* periodic: `f(q,b) - q` has period
//! `p_b` for `q >= q0_b`, with `q0_b <= q1`. Then `U(q + L) = U(q)` for `q >= q1`,
//! with `L = lcm(p_b)`. If moreover `W(qc) = W(qc + K)` for some `qc >= q1` and a
//! multiple `K` of `L`, the step above gives `W(q) = W(q + K)` and
//! `f(q,r) - q = f(q+K,r) - (q+K)` for every `q >= qc`, by induction: row `r` is
//! periodic forever (and, being live through one whole period, never dies).
//!
//! (The step holds for `q >= 1`; at `q = 0` the least value is 1, not 0, so
//! `qc >= 1`.) [`Below`] keeps `q1` and `L` as rows are settled in increasing
//! order, and [`Below::admits`] checks the hypotheses on `qc` and `K`; the state
//! comparison itself is made on exact data by the caller ([`certify`] for a
//! table, the census for its engine's windows).

mod certify;

use crate::base::numeric::lcm;

pub use certify::{Certificate, certify};

/// What a row does from its start on, for every `q`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    /// `f(q,r) = start` for every `q >= start` (the row died there: `f(start,r) = start`).
    Constant {
        /// The column `q` with `f(q,r) = q`.
        start: u32,
    },
    /// `f(q,r) - q` repeats `pattern` from column `start` on.
    Periodic {
        /// The least column from which it repeats (`>= r`).
        start: u32,
        /// `f(q,r) - q` for `q = start .. start + period` (one least period).
        pattern: Vec<i32>,
    },
}

impl Fate {
    /// The column from which the fate holds.
    pub fn start(&self) -> u32 {
        match self {
            Fate::Constant { start } | Fate::Periodic { start, .. } => *start,
        }
    }

    /// `f(q, r)` from the fate, when it determines it (`q >= start`). The
    /// value is `u128`: `q + f(q,r) - q` passes `2^64` for `q` near it, and is
    /// given exactly (a start `>= r >= 0` and `f(q,r) > q` in a live row keep
    /// it non-negative).
    pub fn value(&self, q: u64) -> Option<u128> {
        match self {
            Fate::Constant { start } if q >= u64::from(*start) => Some(u128::from(*start)),
            Fate::Periodic { start, pattern } if q >= u64::from(*start) => {
                let period = u64::try_from(pattern.len()).expect("a period fits u64");
                let i = usize::try_from((q - u64::from(*start)) % period)
                    .expect("an index below the period");
                u128::from(q).checked_add_signed(i128::from(pattern[i]))
            }
            _ => None,
        }
    }
}

/// How a row's fate is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Known {
    /// The row died: constant for ever by the recurrence's rule.
    Rule,
    /// Proved periodic by equal states (doc/certificate.md); the comparison closed at
    /// column `closed_at`.
    Certificate {
        /// The column `qc + K` whose state equalled that at `qc`.
        closed_at: u64,
    },
    /// Proved (by the rule or a certificate) in a census descriptor file rather
    /// than from the data at hand.
    Census {
        /// Where the census's certificate closed (`None` for a row that died).
        closed_at: Option<u64>,
    },
    /// Seen repeating inside a finite table only: **not** a proof.
    Evidence,
}

impl Known {
    /// Whether the fate is proved for every `q` (everything but evidence).
    pub(crate) fn is_proof(&self) -> bool {
        !matches!(self, Known::Evidence)
    }

    /// The column where a certificate closed, if there is one.
    pub fn closed_at(&self) -> Option<u64> {
        match *self {
            Known::Certificate { closed_at } => Some(closed_at),
            Known::Census { closed_at } => closed_at,
            Known::Rule | Known::Evidence => None,
        }
    }
}

/// A row whose fate was found, and how. A row with none is *open*
/// (`Option<RowStatus>` is `None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowStatus {
    /// What the row does.
    pub fate: Fate,
    /// How that is known.
    pub known: Known,
}

impl RowStatus {
    /// A row that died at `start`.
    pub fn died(start: u32) -> RowStatus {
        RowStatus {
            fate: Fate::Constant { start },
            known: Known::Rule,
        }
    }

    /// Whether the fate is proved for every `q`.
    pub(crate) fn is_proved(&self) -> bool {
        self.known.is_proof()
    }

    /// `f(q, r)` when the fate is *proved* and determines it.
    pub(crate) fn proved_value(&self, q: u64) -> Option<u128> {
        self.fate.value(q).filter(|_| self.is_proved())
    }
}

/// Rows by what they are: died, proved periodic, and the rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Rows that died.
    pub constant: u64,
    /// Rows proved periodic.
    pub periodic: u64,
    /// Rows with no proved fate.
    pub open: u64,
}

impl Counts {
    /// Counts `rows` (only proofs count as settled).
    pub fn of(rows: &[Option<RowStatus>]) -> Counts {
        let mut c = Counts::default();
        for row in rows {
            match row {
                Some(s) if s.is_proved() => match s.fate {
                    Fate::Constant { .. } => c.constant += 1,
                    Fate::Periodic { .. } => c.periodic += 1,
                },
                _ => c.open += 1,
            }
        }
        c
    }
}

/// What the rows below `r` are known to do, as the rows are settled in order.
#[derive(Clone, Copy, Debug)]
pub struct Below {
    /// From this column on, no row below dies and every live one is periodic.
    pub settled_from: u64,
    /// Least common multiple of the live rows' periods (1 if none).
    pub period: u64,
}

impl Below {
    /// Nothing below (row 0).
    pub fn none() -> Below {
        Below {
            settled_from: 0,
            period: 1,
        }
    }

    /// Adds a row that died at column `start`.
    pub fn add_dead(&mut self, start: u64) {
        self.settled_from = self.settled_from.max(start + 1);
    }

    /// Adds a row proved periodic with `period` from column `start`.
    pub fn add_periodic(&mut self, start: u64, period: u64) {
        self.settled_from = self.settled_from.max(start);
        self.period = lcm(self.period, period);
    }

    /// Adds a proved fate.
    pub fn add(&mut self, fate: &Fate) {
        match fate {
            Fate::Constant { start } => self.add_dead(u64::from(*start)),
            Fate::Periodic { start, pattern } => {
                self.add_periodic(u64::from(*start), pattern.len() as u64)
            }
        }
    }

    /// Whether equal states at columns `qc` and `qc + k` prove the next row
    /// periodic: `qc` at or after the column where the rows below are settled (and
    /// `>= 1`), and `k` a multiple of their combined period.
    pub fn admits(&self, qc: u64, k: u64) -> bool {
        qc >= self.settled_from.max(1) && k.is_multiple_of(self.period)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_admits_only_what_the_proof_allows() {
        let mut b = Below::none();
        assert!(!b.admits(0, 5), "q = 0 is not a valid comparison column");
        assert!(b.admits(1, 5));
        b.add_dead(10);
        b.add_periodic(20, 4);
        b.add_periodic(15, 6);
        assert_eq!((b.settled_from, b.period), (20, 12));
        assert!(!b.admits(19, 12));
        assert!(!b.admits(20, 18));
        assert!(b.admits(20, 24));
    }
}
