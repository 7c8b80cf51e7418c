//! `rows.tsv` (one line per row: class, how it is known, start, pattern) and
//! `values.tsv` (how often each value occurs).

use std::io::{self, Write};
use std::path::Path;

use crate::base::atomic_write::FileSet;

use crate::f::analysis::Analysis;
use crate::f::proof::{Fate, Known};

/// The header of `rows.tsv` after its first two lines.
const ROWS_HEADER: &[&str] = &[
    "# class: constant | periodic | open (no period repeats 3 times inside the table)",
    "# proof: rule = the row died (f(q,r) = q), constant for ever by the recurrence;",
    "#   certificate = proved periodic for all q (equal row states a multiple of the",
    "#   period apart with every lower row settled; see doc/certificate.md);",
    "#   evidence = repeats at least 3 times inside the table only: NOT a proof",
    "#   census = proved, for all q, by the census descriptors (chomp3 census; doc/certificate.md)",
    "# start: constant: the q with f(q,r) = q; periodic: least q0 >= r from which f(q,r) - q repeats",
    "# pattern: f(q,r) - q for q = start .. start+period-1; confirmed: columns start+period..N that",
    "#   equal the value a period earlier; proved_at: column where the certificate closed",
    "r\tclass\tproof\tstart\tperiod\tpattern\tconfirmed\tproved_at",
];

/// The word for how a row is known.
fn proof_word(known: &Known) -> &'static str {
    match known {
        Known::Rule => "rule",
        Known::Certificate { .. } => "certificate",
        Known::Census { .. } => "census",
        Known::Evidence => "evidence",
    }
}

/// Rows above which `rows.tsv` is written compressed, as `rows.tsv.xz` (at
/// about 46 bytes a row, 300,001 rows are 14 MB of text: the largest file
/// kept plain in the repository).
pub(crate) const PLAIN_ROWS: usize = 300_001;

/// The name `rows.tsv` is written under for an analysis of `rows` rows.
pub(crate) fn rows_file_name(rows: usize) -> &'static str {
    if rows > PLAIN_ROWS {
        "rows.tsv.xz"
    } else {
        "rows.tsv"
    }
}

/// Writes `rows.tsv` into `dir`, compressed with xz (preset 6, one thread:
/// the same bytes every time) when there are more than [`PLAIN_ROWS`] rows;
/// returns the name written.
pub(super) fn write_rows(
    set: &mut FileSet,
    a: &Analysis,
    from: &str,
    dir: &Path,
) -> io::Result<&'static str> {
    let name = rows_file_name(a.rows.len());
    set.write(&dir.join(name), |w| {
        if name.ends_with(".xz") {
            let mut xz = xz2::write::XzEncoder::new(w, 6);
            rows_text(&mut xz, a, from)?;
            xz.finish().map(|_| ())
        } else {
            rows_text(w, a, from)
        }
    })?;
    Ok(name)
}

/// The text of `rows.tsv`.
fn rows_text(w: &mut impl Write, a: &Analysis, from: &str) -> io::Result<()> {
    let n = a.facts.n as u64;
    {
        writeln!(
            w,
            "# Row census of three-rowed Chomp: one line per row r = 0..{}",
            a.rows.len() - 1
        )?;
        writeln!(w, "{from}")?;
        for line in ROWS_HEADER {
            writeln!(w, "{line}")?;
        }
        for (r, row) in a.rows.iter().enumerate() {
            let Some(s) = row else {
                writeln!(w, "{r}\topen\t-\t-\t-\t-\t-\t-")?;
                continue;
            };
            let proof = proof_word(&s.known);
            match &s.fate {
                // Columns start+1 ..= N repeat the constant (none for a start past N).
                Fate::Constant { start } => {
                    let confirmed = n.saturating_sub(u64::from(*start));
                    writeln!(w, "{r}\tconstant\t{proof}\t{start}\t-\t-\t{confirmed}\t-")?
                }
                Fate::Periodic { start, pattern } => {
                    let p = pattern.len() as u64;
                    let confirmed = (n + 1).saturating_sub(u64::from(*start) + p);
                    let pat: Vec<String> = pattern.iter().map(|x| x.to_string()).collect();
                    let at = s
                        .known
                        .closed_at()
                        .map_or("-".to_string(), |q| q.to_string());
                    writeln!(
                        w,
                        "{r}\tperiodic\t{proof}\t{start}\t{p}\t{}\t{confirmed}\t{at}",
                        pat.join(",")
                    )?;
                }
            }
        }
        Ok(())
    }
}

/// Writes `values.tsv`.
pub(super) fn write_values(
    set: &mut FileSet,
    a: &Analysis,
    from: &str,
    path: &Path,
) -> io::Result<()> {
    set.write(path, |w| {
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
        Ok(())
    })
}
