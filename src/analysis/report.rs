//! Writing an [`Analysis`] out: OEIS b-files, `rows.tsv`, `values.tsv`,
//! `summary.json` and `report.md`. Every file says what table it came from, the
//! command, and how far each list is complete.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use serde::Serialize;

use super::growth::Deviation;
use super::rows::RowClass;
use super::{Analysis, Check, Checks};

/// A row that ends in one family `[k + p + q, k + q, r]` (period 1, proved).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Family {
    /// `p_n`: the offset `f(q,r) - q`.
    pub p: i64,
    /// `q_n`: the first column `q >= r` of the family.
    pub q: u32,
    /// `r_n`: the row.
    pub r: u32,
}

impl Analysis {
    /// `A029899(n)` for `n = 0 ..= N`.
    pub fn p_position_counts(&self) -> Vec<u64> {
        self.facts
            .p_count
            .iter()
            .scan(0, |sum, &c| {
                *sum += c;
                Some(*sum)
            })
            .collect()
    }

    /// Rows below [`Analysis::resolved_below`] that end in one family, in row order
    /// (complete there: every such row is constant or proved periodic).
    pub fn families(&self) -> Vec<Family> {
        self.rows[..self.resolved_below as usize]
            .iter()
            .enumerate()
            .filter_map(|(r, c)| match c {
                RowClass::Periodic {
                    start,
                    pattern,
                    proved_at: Some(_),
                    ..
                } if pattern.len() == 1 => Some(Family {
                    p: pattern[0],
                    q: *start,
                    r: r as u32,
                }),
                _ => None,
            })
            .collect()
    }

    /// Counts of rows: constant, periodic proved / evidence (by period), open.
    pub fn census(&self) -> Census {
        let mut c = Census::default();
        for (r, class) in self.rows.iter().enumerate() {
            match class {
                RowClass::Constant { .. } => c.constant += 1,
                RowClass::Open => c.open += 1,
                RowClass::Periodic {
                    start,
                    pattern,
                    proved_at,
                    ..
                } => {
                    let p = pattern.len() as u64;
                    let pre = (*start - r as u32) as u64;
                    let (by, extremes) = if proved_at.is_some() {
                        (&mut c.proved, &mut c.proved_extremes)
                    } else {
                        (&mut c.evidence, &mut c.evidence_extremes)
                    };
                    *by.entry(p).or_default() += 1;
                    if extremes.largest_period.is_none_or(|(lp, _)| p > lp) {
                        extremes.largest_period = Some((p, r as u32));
                    }
                    if extremes.longest_preperiod.is_none_or(|(lp, _)| pre > lp) {
                        extremes.longest_preperiod = Some((pre, r as u32));
                    }
                }
            }
        }
        c
    }
}

/// Row counts by class.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Census {
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

#[derive(Serialize)]
struct Summary<'a> {
    table: String,
    n: u32,
    command: &'a str,
    rows: &'a Census,
    resolved_below: u32,
    sequences: BTreeMap<&'static str, SequenceInfo>,
    growth: BTreeMap<&'static str, &'a Deviation>,
    checks: &'a Checks,
}

#[derive(Serialize)]
struct SequenceInfo {
    terms: usize,
    complete: String,
}

/// Writes every output file into `dir`. `table` and `command` go into headers.
pub fn write_all(a: &Analysis, table: &Path, command: &str, dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let n = a.facts.n;
    let from = format!(
        "# from chomp3 on {} (N = {n}); command: {command}",
        table.display()
    );
    let starts_note =
        format!("complete: every constant row with start q <= {n} (later starts are > {n})");
    let families = a.families();
    let family_note = format!(
        "complete for rows r < {}: each is constant or proved periodic (see rows.tsv)",
        a.resolved_below
    );
    let counts = a.p_position_counts();
    type Terms = Vec<(usize, String)>;
    let seqs: [(&str, &str, &str, Terms); 7] = [
        (
            "A029899",
            "number of P-positions [p,q,r] with p <= n",
            "complete: every term n <= N is exact",
            counts.iter().map(|c| c.to_string()).enumerate().collect(),
        ),
        (
            "A029900",
            "the diagonal d_n = f(n,n)",
            "complete: every term n <= N is exact",
            a.facts
                .diagonal
                .iter()
                .map(|d| d.to_string())
                .enumerate()
                .collect(),
        ),
        (
            "A029901",
            "values q of constant rows (f(q,r) = q), increasing",
            &starts_note,
            a.facts
                .starts
                .iter()
                .map(|s| s.0.to_string())
                .enumerate()
                .collect(),
        ),
        (
            "A029902",
            "rows r of constant rows, in the order of A029901",
            &starts_note,
            a.facts
                .starts
                .iter()
                .map(|s| s.1.to_string())
                .enumerate()
                .collect(),
        ),
        (
            "A029903",
            "p_n of rows ending in one family [k+p_n+q_n, k+q_n, r_n], k >= 0 (offset f(q,r) - q)",
            &family_note,
            families
                .iter()
                .map(|f| f.p.to_string())
                .enumerate()
                .collect(),
        ),
        (
            "A029904",
            "q_n of rows ending in one family (its first column q >= r_n)",
            &family_note,
            families
                .iter()
                .map(|f| f.q.to_string())
                .enumerate()
                .collect(),
        ),
        (
            "A029905",
            "r_n, the rows ending in one family, in row order",
            &family_note,
            families
                .iter()
                .map(|f| f.r.to_string())
                .enumerate()
                .collect(),
        ),
    ];
    let mut sequences = BTreeMap::new();
    for (id, what, complete, terms) in &seqs {
        let path = dir.join(format!("b{}.txt", &id[1..]));
        let mut w = BufWriter::new(std::fs::File::create(path)?);
        writeln!(w, "# {id}: {what}, three-rowed Chomp")?;
        writeln!(w, "{from}")?;
        writeln!(w, "# {complete}; {} terms, offset 0", terms.len())?;
        for (i, t) in terms {
            writeln!(w, "{i} {t}")?;
        }
        w.flush()?;
        sequences.insert(
            *id,
            SequenceInfo {
                terms: terms.len(),
                complete: complete.to_string(),
            },
        );
    }
    write_rows(a, &from, &dir.join("rows.tsv"))?;
    write_values(a, &from, &dir.join("values.tsv"))?;

    let census = a.census();
    let growth = BTreeMap::from([
        ("d_n", &a.growth[0]),
        ("q_n", &a.growth[1]),
        ("r_n", &a.growth[2]),
    ]);
    let summary = Summary {
        table: table.display().to_string(),
        n,
        command,
        rows: &census,
        resolved_below: a.resolved_below,
        sequences,
        growth,
        checks: &a.checks,
    };
    let json = serde_json::to_string_pretty(&summary).map_err(io::Error::other)?;
    std::fs::write(dir.join("summary.json"), json + "\n")?;
    std::fs::write(dir.join("report.md"), report_md(a, &census, table, command))
}

fn write_rows(a: &Analysis, from: &str, path: &Path) -> io::Result<()> {
    let mut w = BufWriter::new(std::fs::File::create(path)?);
    writeln!(
        w,
        "# Row census of three-rowed Chomp: one line per row r = 0..{}",
        a.facts.n
    )?;
    writeln!(w, "{from}")?;
    writeln!(
        w,
        "# class: constant | periodic | open (no period repeats 3 times inside the table)"
    )?;
    writeln!(
        w,
        "# proof: rule = the row died (f(q,r) = q), constant for ever by the recurrence;"
    )?;
    writeln!(
        w,
        "#   certificate = proved periodic for all q (equal row states a multiple of the"
    )?;
    writeln!(
        w,
        "#   period apart with every lower row settled; see CERTIFICATE.md);"
    )?;
    writeln!(
        w,
        "#   evidence = repeats at least 3 times inside the table only: NOT a proof"
    )?;
    writeln!(
        w,
        "#   census = proved, for all q, by the census descriptors (chomp3 census; CERTIFICATE.md)"
    )?;
    writeln!(
        w,
        "# start: constant: the q with f(q,r) = q; periodic: least q0 >= r from which f(q,r) - q repeats"
    )?;
    writeln!(
        w,
        "# pattern: f(q,r) - q for q = start .. start+period-1; confirmed: columns start+period..N that"
    )?;
    writeln!(
        w,
        "#   equal the value a period earlier; proved_at: column where the certificate closed"
    )?;
    writeln!(
        w,
        "r\tclass\tproof\tstart\tperiod\tpattern\tconfirmed\tproved_at"
    )?;
    for (r, class) in a.rows.iter().enumerate() {
        match class {
            RowClass::Constant { start } if a.by_census[r] => {
                writeln!(w, "{r}\tconstant\tcensus\t{start}\t-\t-\t0\t-")?
            }
            RowClass::Constant { start } => writeln!(
                w,
                "{r}\tconstant\trule\t{start}\t-\t-\t{}\t-",
                a.facts.n - start
            )?,
            RowClass::Open => writeln!(w, "{r}\topen\t-\t-\t-\t-\t-\t-")?,
            RowClass::Periodic {
                start,
                pattern,
                confirmed,
                proved_at,
            } => {
                let proof = if a.by_census[r] {
                    "census"
                } else if proved_at.is_some() {
                    "certificate"
                } else {
                    "evidence"
                };
                let pat: Vec<String> = pattern.iter().map(|x| x.to_string()).collect();
                let at = proved_at.map_or("-".to_string(), |q| q.to_string());
                let p = pattern.len();
                writeln!(
                    w,
                    "{r}\tperiodic\t{proof}\t{start}\t{p}\t{}\t{confirmed}\t{at}",
                    pat.join(",")
                )?;
            }
        }
    }
    w.flush()
}

fn write_values(a: &Analysis, from: &str, path: &Path) -> io::Result<()> {
    let mut w = BufWriter::new(std::fs::File::create(path)?);
    writeln!(
        w,
        "# How often each value occurs among f(q,r), 0 <= r <= q <= {}",
        a.facts.n
    )?;
    writeln!(w, "{from}")?;
    writeln!(w, "value\tcount")?;
    for (v, &c) in a
        .facts
        .value_count
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
    {
        writeln!(w, "{v}\t{c}")?;
    }
    w.flush()
}

fn check_text(c: &Check, what: &str) -> String {
    match c {
        Check::Holds { upto } => format!("holds for all {what} <= {upto}"),
        Check::Fails { at, detail } => format!("**fails** first at {at}: {detail}"),
    }
}

fn report_md(a: &Analysis, census: &Census, table: &Path, command: &str) -> String {
    let n = a.facts.n;
    let mut s = String::new();
    let _ = writeln!(s, "# Three-rowed Chomp: analysis of the table to N = {n}\n");
    let _ = writeln!(
        s,
        "Produced by `{command}` from `{}`. Every number below is exact for the",
        table.display()
    );
    let _ = writeln!(
        s,
        "table unless marked *evidence*; \"proved\" means for all `q`, not just `q <= N`.\n"
    );

    let _ = writeln!(s, "## Rows\n");
    let proved: u64 = census.proved.values().sum();
    let evidence: u64 = census.evidence.values().sum();
    let _ = writeln!(s, "| class | rows |\n|---|---:|");
    let _ = writeln!(s, "| constant (proved) | {} |", census.constant);
    for (p, c) in &census.proved {
        let _ = writeln!(s, "| periodic, period {p} (proved) | {c} |");
    }
    for (p, c) in &census.evidence {
        let _ = writeln!(s, "| periodic, period {p} (*evidence*) | {c} |");
    }
    let _ = writeln!(s, "| open | {} |", census.open);
    let _ = writeln!(s, "| **all** | {} |\n", n as u64 + 1);
    let _ = writeln!(
        s,
        "Every row `r < {}` is settled: constant or proved periodic ({} proved",
        a.resolved_below, proved
    );
    let _ = writeln!(
        s,
        "periodic in all). Above that, {evidence} rows repeat inside the table without a proof."
    );
    for (what, e) in [
        ("proved", &census.proved_extremes),
        ("*evidence*", &census.evidence_extremes),
    ] {
        if let (Some((p, pr)), Some((l, lr))) = (e.largest_period, e.longest_preperiod) {
            let _ = writeln!(
                s,
                "Among {what} periodic rows: largest period {p} (first in row {pr}),"
            );
            let _ = writeln!(s, "longest preperiod `start - r` = {l} (row {lr}).");
        }
    }
    let from_census = a.by_census.iter().filter(|&&b| b).count();
    if from_census > 0 {
        let _ = writeln!(
            s,
            "{from_census} of these rows were settled by the census descriptors (`chomp3 census`),\nnot by the table alone (rows.tsv marks them `census`)."
        );
    }
    let _ = writeln!(s, "Per-row details: [rows.tsv](rows.tsv).\n");

    let _ = writeln!(s, "## Sequences (OEIS b-files)\n");
    let _ = writeln!(
        s,
        "| sequence | file | terms | complete |\n|---|---|---:|---|"
    );
    let fam = a.families().len();
    let starts = a.facts.starts.len();
    for (id, terms, note) in [
        ("A029899", n as usize + 1, format!("n <= {n}")),
        ("A029900", n as usize + 1, format!("n <= {n}")),
        ("A029901", starts, format!("all starts q <= {n}")),
        ("A029902", starts, format!("all starts q <= {n}")),
        ("A029903", fam, format!("rows r < {}", a.resolved_below)),
        ("A029904", fam, format!("rows r < {}", a.resolved_below)),
        ("A029905", fam, format!("rows r < {}", a.resolved_below)),
    ] {
        let _ = writeln!(
            s,
            "| {id} | [b{}.txt](b{}.txt) | {terms} | {note} |",
            &id[1..],
            &id[1..]
        );
    }

    let _ = writeln!(s, "\n## Growth\n");
    let _ = writeln!(
        s,
        "With `a = 1 + 1/sqrt 2` and `b = 1 + sqrt 2`; least-squares line of the deviation.\n"
    );
    let _ = writeln!(
        s,
        "| deviation | n | slope | intercept | min (at n) | max (at n) |\n|---|---|---:|---:|---:|---:|"
    );
    for (name, g) in [
        ("d_n - a n", &a.growth[0]),
        ("q_n - b n", &a.growth[1]),
        ("r_n - a n", &a.growth[2]),
    ] {
        let _ = writeln!(
            s,
            "| {name} | {}..{} | {:.3e} | {:.4} | {:.4} ({}) | {:.4} ({}) |",
            g.first_n, g.last_n, g.slope, g.intercept, g.min, g.min_at, g.max, g.max_at
        );
    }
    let _ = writeln!(s, "\nSuccessive differences (difference: count):\n");
    for (name, g) in [
        ("d_n", &a.growth[0]),
        ("q_n", &a.growth[1]),
        ("r_n", &a.growth[2]),
    ] {
        let diffs: Vec<String> = g
            .differences
            .iter()
            .map(|(d, c)| format!("{d}: {c}"))
            .collect();
        let _ = writeln!(s, "* {name}: {}", diffs.join(", "));
    }

    let c = &a.checks;
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
            " (`m_r` is exact\n  once the row has died or its minimum so far is at most N + 1)",
        ),
    ] {
        let _ = writeln!(s, "* {what}: {}{note}", check_text(check, unit));
    }
    let _ = writeln!(
        s,
        "\nValue frequencies over the table: [values.tsv](values.tsv)."
    );
    s
}
