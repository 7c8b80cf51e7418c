//! The OEIS sequences of doc/chomp.md section 3 read off an [`Analysis`], each declared
//! once: its id, definition, how far it is complete, and its terms.

use crate::base::bytes::narrow;
use serde::Serialize;

use super::Analysis;
use crate::f::proof::Fate;

/// A row that ends in one family `[k + p + q, k + q, r]` (period 1, proved).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Family {
    /// `p_n`: the offset `f(q,r) - q`.
    pub p: i32,
    /// `q_n`: the first column `q >= r` of the family.
    pub q: u32,
    /// `r_n`: the row.
    pub r: u32,
}

/// One output sequence.
#[derive(Clone, Debug)]
pub struct Sequence {
    /// OEIS id, `A0...`.
    pub id: &'static str,
    /// What a term is.
    pub definition: &'static str,
    /// How far the terms are complete (the b-file's header).
    pub complete: String,
    /// The same in a few words (the report's table).
    pub range: String,
    /// Terms, offset 0.
    pub terms: Vec<i64>,
}

impl Sequence {
    /// The b-file's name, `bNNNNNN.txt`.
    pub fn file_name(&self) -> String {
        format!("b{}.txt", &self.id[1..])
    }
}

impl Analysis {
    /// `A029899(n)` for `n = 0 ..= N`.
    pub(crate) fn p_position_counts(&self) -> Vec<u64> {
        self.facts
            .p_count
            .iter()
            .scan(0, |sum, &c| {
                *sum += c;
                Some(*sum)
            })
            .collect()
    }

    /// Rows below [`Analysis::settled_below`] that end in one family, in row order
    /// (complete there: every such row is constant or proved periodic).
    pub fn families(&self) -> Vec<Family> {
        self.rows[..self.settled_below as usize]
            .iter()
            .enumerate()
            .filter_map(|(r, row)| match row.as_ref()? {
                s if !s.is_proved() => None,
                s => match &s.fate {
                    Fate::Periodic { start, pattern } if pattern.len() == 1 => Some(Family {
                        p: pattern[0],
                        q: *start,
                        r: narrow::<u32, _>(r),
                    }),
                    _ => None,
                },
            })
            .collect()
    }

    /// Rows below [`Analysis::settled_below`] proved periodic with least period
    /// above 1 (they neither die nor end in one family): OEIS A147983.
    pub(crate) fn patterned_rows(&self) -> Vec<u64> {
        self.rows[..self.settled_below as usize]
            .iter()
            .enumerate()
            .filter(|(_, row)| {
                row.as_ref().is_some_and(|s| {
                    s.is_proved()
                        && matches!(&s.fate, Fate::Periodic { pattern, .. } if pattern.len() > 1)
                })
            })
            .map(|(r, _)| r as u64)
            .collect()
    }

    /// The sequences A029899 .. A029905 and A147983.
    pub fn sequences(&self) -> Vec<Sequence> {
        let n = self.facts.n;
        let all_n = || "complete: every term n <= N is exact".to_string();
        let starts =
            || format!("complete: every constant row with start q <= {n} (later starts are > {n})");
        let families = self.families();
        let below = self.settled_below;
        let family = || {
            format!(
                "complete for rows r < {below}: each is constant or proved periodic (see rows.tsv)"
            )
        };
        let seq = |id, definition, complete: String, range: String, terms: Vec<i64>| Sequence {
            id,
            definition,
            complete,
            range,
            terms,
        };
        let starts_q = self.facts.starts.iter().map(|s| s.0 as i64).collect();
        let starts_r = self.facts.starts.iter().map(|s| s.1 as i64).collect();
        vec![
            seq(
                "A029899",
                "number of P-positions [p,q,r] with p <= n",
                all_n(),
                format!("n <= {n}"),
                self.p_position_counts()
                    .iter()
                    .map(|&c| c.cast_signed())
                    .collect(),
            ),
            seq(
                "A029900",
                "the diagonal d_n = f(n,n)",
                all_n(),
                format!("n <= {n}"),
                self.facts.diagonal.iter().map(|&d| d as i64).collect(),
            ),
            seq(
                "A029901",
                "values q of constant rows (f(q,r) = q), increasing",
                starts(),
                format!("all starts q <= {n}"),
                starts_q,
            ),
            seq(
                "A029902",
                "rows r of constant rows, in the order of A029901",
                starts(),
                format!("all starts q <= {n}"),
                starts_r,
            ),
            seq(
                "A029903",
                "p_n of rows ending in one family [k+p_n+q_n, k+q_n, r_n], k >= 0 (offset f(q,r) - q)",
                family(),
                format!("rows r < {below}"),
                families.iter().map(|f| i64::from(f.p)).collect(),
            ),
            seq(
                "A029904",
                "q_n of rows ending in one family (its first column q >= r_n)",
                family(),
                format!("rows r < {below}"),
                families.iter().map(|f| i64::from(f.q)).collect(),
            ),
            seq(
                "A029905",
                "r_n, the rows ending in one family, in row order",
                family(),
                format!("rows r < {below}"),
                families.iter().map(|f| i64::from(f.r)).collect(),
            ),
            seq(
                "A147983",
                "rows r proved periodic with least period > 1 (neither constant nor one family), increasing",
                family(),
                format!("rows r < {below}"),
                self.patterned_rows()
                    .iter()
                    .map(|&r| r.cast_signed())
                    .collect(),
            ),
        ]
    }
}
