//! `report.md`: the readable summary (rows, sequences, growth, checks).

use std::fmt::Write as _;

use super::Provenance;
use crate::f::analysis::Analysis;
use crate::f::analysis::checks::Check;
use crate::f::analysis::counts::RowCounts;
use crate::f::analysis::sequences::Sequence;
use crate::f::proof::Known;

/// The whole report.
pub(super) fn report(
    a: &Analysis,
    counts: &RowCounts,
    (sequences, split): (&[Sequence], &[bool]),
    provenance: &Provenance,
    rows_name: &str,
) -> String {
    let mut s = String::new();
    let n = a.facts.n;
    if a.census_only {
        let _ = writeln!(
            s,
            "# Three-rowed Chomp: analysis of the census of rows 0..={} (N = {n})\n",
            a.rows.len() - 1
        );
        let _ = writeln!(
            s,
            "Produced by `{}` from `{}`, with no table. Every number below is exact for",
            provenance.command,
            crate::base::shell::quote(provenance.table.as_os_str())
        );
        let _ = writeln!(
            s,
            "columns `q <= N`; \"proved\" means for all `q`, not just `q <= N`.\n"
        );
    } else {
        let _ = writeln!(s, "# Three-rowed Chomp: analysis of the table to N = {n}\n");
        let _ = writeln!(
            s,
            "Produced by `{}` from `{}`. Every number below is exact for the",
            provenance.command,
            crate::base::shell::quote(provenance.table.as_os_str())
        );
        let _ = writeln!(
            s,
            "table unless marked *evidence*; \"proved\" means for all `q`, not just `q <= N`.\n"
        );
    }
    rows(&mut s, a, counts, rows_name);
    sequence_table(&mut s, sequences, split);
    growth(&mut s, a);
    checks(&mut s, a);
    s
}

fn rows(s: &mut String, a: &Analysis, counts: &RowCounts, rows_name: &str) {
    let _ = writeln!(s, "## Rows\n");
    let _ = writeln!(s, "| class | rows |\n|---|---:|");
    let _ = writeln!(s, "| constant (proved) | {} |", counts.constant);
    for (p, c) in &counts.proved {
        let _ = writeln!(s, "| periodic, period {p} (proved) | {c} |");
    }
    for (p, c) in &counts.evidence {
        let _ = writeln!(s, "| periodic, period {p} (*evidence*) | {c} |");
    }
    let _ = writeln!(s, "| open | {} |", counts.open);
    let _ = writeln!(s, "| **all** | {} |\n", a.rows.len());
    let _ = writeln!(
        s,
        "Every row `r < {}` is settled: constant or proved periodic ({} proved",
        a.settled_below,
        counts.proved_periodic()
    );
    let _ = writeln!(
        s,
        "periodic in all). Above that, {} rows repeat inside the {} without a proof.",
        counts.evidence_periodic(),
        if a.census_only { "census" } else { "table" }
    );
    for (what, e) in [
        ("proved", &counts.proved_extremes),
        ("*evidence*", &counts.evidence_extremes),
    ] {
        if let (Some((p, pr)), Some((l, lr))) = (e.largest_period, e.longest_preperiod) {
            let _ = writeln!(
                s,
                "Among {what} periodic rows: largest period {p} (first in row {pr}),"
            );
            let _ = writeln!(s, "longest preperiod `start - r` = {l} (row {lr}).");
        }
    }
    let from_census = a
        .rows
        .iter()
        .flatten()
        .filter(|s| matches!(s.known, Known::Census { .. }))
        .count();
    if from_census > 0 {
        let _ = writeln!(
            s,
            "{from_census} of these rows were settled by the census descriptors (`chomp3 census`),\nnot by the table alone (rows.tsv marks them `census`)."
        );
    }
    let _ = writeln!(s, "Per-row details: [{rows_name}]({rows_name}).\n");
}

fn sequence_table(s: &mut String, sequences: &[Sequence], split: &[bool]) {
    let _ = writeln!(s, "## Sequences (OEIS b-files)\n");
    let _ = writeln!(
        s,
        "| sequence | file | terms | complete |\n|---|---|---:|---|"
    );
    for (q, &split) in sequences.iter().zip(split) {
        let file = q.file_name();
        let link = match split {
            false => format!("[{file}]({file})"),
            true => format!(
                "[{file}.xz]({file}.xz); its first {} terms plain: [{file}]({file})",
                super::bfiles::PLAIN_TERMS
            ),
        };
        let _ = writeln!(s, "| {} | {link} | {} | {} |", q.id, q.terms.len(), q.range);
    }
}

fn growth(s: &mut String, a: &Analysis) {
    let _ = writeln!(s, "\n## Growth\n");
    let _ = writeln!(
        s,
        "With `a = 1 + 1/sqrt 2` and `b = 1 + sqrt 2`; least-squares line of the deviation.\n"
    );
    let _ = writeln!(
        s,
        "| deviation | n | slope | intercept | min (at n) | max (at n) |\n|---|---|---:|---:|---:|---:|"
    );
    for (x, c, g) in a.growth.named() {
        let _ = writeln!(
            s,
            "| {x} - {c} n | {}..{} | {:.3e} | {:.4} | {:.4} ({}) | {:.4} ({}) |",
            g.first_n, g.last_n, g.slope, g.intercept, g.min, g.min_at, g.max, g.max_at
        );
    }
    let _ = writeln!(s, "\nSuccessive differences (difference: count):\n");
    for (x, _, g) in a.growth.named() {
        let diffs: Vec<String> = g
            .differences
            .iter()
            .map(|(d, c)| format!("{d}: {c}"))
            .collect();
        let _ = writeln!(s, "* {x}: {}", diffs.join(", "));
    }
}

fn check_text(c: &Check, what: &str) -> String {
    match c {
        Check::Holds { upto } => format!("holds for all {what} <= {upto}"),
        Check::Fails { at, detail } => format!("**fails** first at {at}: {detail}"),
    }
}

fn checks(s: &mut String, a: &Analysis) {
    let c = &a.checks;
    let minima_note = if a.facts.row_min_complete {
        " (`m_r` is each row's true minimum:\n  the census sees every value of a row until its fate is proved)"
    } else {
        " (`m_r` is exact\n  once the row has died or its minimum so far is at most N + 1)"
    };
    let _ = writeln!(s, "\n## Checks\n");
    for (what, check, unit, note) in [
        (
            "`d` and `q_n` complementary",
            &c.complementary,
            "values",
            "",
        ),
        (
            "unique winning move from `[n,n,n]`",
            &c.unique_winning_move,
            "n",
            "",
        ),
        (
            "starts of constant rows increase with the row",
            &c.starts_monotone,
            "rows r",
            " (decided only where every\n  lower row has died or is proved never to die)",
        ),
        (
            "`f(q,q)` is the largest value of column `q`",
            &c.diagonal_is_column_max,
            "q",
            "",
        ),
        (
            "row minima `m_r = min f(q,r), q > r` non-decreasing",
            &c.row_minima_nondecreasing,
            "r",
            minima_note,
        ),
    ] {
        let _ = writeln!(s, "* {what}: {}{note}", check_text(check, unit));
    }
    if a.facts.value_count.is_empty() {
        let _ = writeln!(s, "\nValue frequencies: only a dense table counts them.");
    } else {
        let _ = writeln!(
            s,
            "\nValue frequencies over the table: [values.tsv](values.tsv)."
        );
    }
}
