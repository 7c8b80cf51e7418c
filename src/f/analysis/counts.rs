//! Rows counted by class and period, with the largest period and the longest
//! preperiod, for proved rows and for rows seen repeating only.

use crate::base::bytes::narrow;
use std::collections::BTreeMap;

use serde::Serialize;

use crate::f::proof::{Fate, RowStatus};

/// Row counts by class.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RowCounts {
    /// Rows that died (proved by the rule).
    pub constant: u64,
    /// Rows proved periodic, by period.
    pub proved: BTreeMap<u64, u64>,
    /// Rows seen repeating only, by period.
    pub evidence: BTreeMap<u64, u64>,
    /// Rows with no period inside the table.
    pub open: u64,
    /// Largest period and longest preperiod among proved rows.
    pub proved_extremes: Extremes,
    /// The same among rows seen repeating only.
    pub evidence_extremes: Extremes,
}

/// The largest period and longest preperiod in a set of periodic rows.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Extremes {
    /// Largest period, and the first row with it.
    pub largest_period: Option<(u64, u32)>,
    /// Longest preperiod (`start - r`), and the first row with it.
    pub longest_preperiod: Option<(u64, u32)>,
}

impl RowCounts {
    /// Counts `rows` (`None`: open).
    pub fn of(rows: &[Option<RowStatus>]) -> RowCounts {
        let mut c = RowCounts::default();
        for (r, row) in rows.iter().enumerate() {
            let Some(s) = row else {
                c.open += 1;
                continue;
            };
            let Fate::Periodic { start, pattern } = &s.fate else {
                c.constant += 1;
                continue;
            };
            let p = pattern.len() as u64;
            let pre = u64::from(*start) - r as u64;
            let (by, extremes) = if s.is_proved() {
                (&mut c.proved, &mut c.proved_extremes)
            } else {
                (&mut c.evidence, &mut c.evidence_extremes)
            };
            *by.entry(p).or_default() += 1;
            if extremes.largest_period.is_none_or(|(lp, _)| p > lp) {
                extremes.largest_period = Some((p, narrow::<u32, _>(r)));
            }
            if extremes.longest_preperiod.is_none_or(|(lp, _)| pre > lp) {
                extremes.longest_preperiod = Some((pre, narrow::<u32, _>(r)));
            }
        }
        c
    }

    /// Rows proved periodic, all periods.
    pub fn proved_periodic(&self) -> u64 {
        self.proved.values().sum()
    }

    /// Rows seen repeating only, all periods.
    pub fn evidence_periodic(&self) -> u64 {
        self.evidence.values().sum()
    }
}
