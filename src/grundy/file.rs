//! The Grundy census on disk: `grundy-census.tsv` (layout in FORMAT.md), one
//! line per line `(q, r)` with its start, least period and pattern. One writer
//! and one reader. Uses the census's [`LineFate`] and `graph::summary`'s
//! [`BadLine`].

use std::io::{self, Write};

use super::census::{Census, LineFate};
use crate::graph::summary::BadLine;

/// The first line of the file, up to `Q`.
const TITLE: &str = "# Certified Grundy census of three-rowed Chomp: every line (q,r), r <= q <= ";
/// The column header.
const HEADER: &str = "q\tr\tstart\tperiod\tpattern";

/// Writes `census` after comment lines that say what the columns mean and the
/// command that made it.
pub fn write(census: &Census, command: &str, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{TITLE}{}", census.q_max)?;
    writeln!(
        out,
        "# G(p,q,r) - p repeats from p = start with the least period; pattern: G(p,q,r) - p"
    )?;
    writeln!(
        out,
        "# for p = start .. start + period - 1. Each line proved (CERTIFICATE.md, Grundy census)."
    )?;
    writeln!(
        out,
        "# {} of {} lines proved; first pass swept p to {}.",
        census.lines.len(),
        super::line(census.q_max, census.q_max) + 1,
        census.swept
    )?;
    writeln!(out, "# {command}")?;
    writeln!(out, "{HEADER}")?;
    for f in &census.lines {
        let pattern: Vec<String> = f.pattern.iter().map(|x| x.to_string()).collect();
        writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}",
            f.q,
            f.r,
            f.start,
            f.period,
            pattern.join(",")
        )?;
    }
    Ok(())
}

/// Reads a file written by [`write`](fn@write): its `Q` and its lines.
pub fn read(text: &str) -> Result<(u32, Vec<LineFate>), BadLine> {
    let what = "a Grundy census (grundy-census.tsv)";
    let q_max = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix(TITLE))
        .and_then(|q| q.parse().ok())
        .ok_or(BadLine { line: 1, what })?;
    let mut lines = Vec::new();
    for (i, l) in text.lines().enumerate() {
        if l.starts_with('#') || l == HEADER || l.is_empty() {
            continue;
        }
        let bad = || BadLine { line: i + 1, what };
        let cols: Vec<&str> = l.split('\t').collect();
        let [q, r, start, period, pattern] = cols[..] else {
            return Err(bad());
        };
        let num = |s: &str| s.parse::<u32>().map_err(|_| bad());
        let pattern = pattern
            .split(',')
            .map(|x| x.parse::<i16>().map_err(|_| bad()))
            .collect::<Result<Vec<_>, _>>()?;
        let f = LineFate {
            q: num(q)?,
            r: num(r)?,
            start: num(start)?,
            period: num(period)?,
            pattern,
        };
        let fits = f.r <= f.q
            && f.q <= q_max
            && f.start >= f.q.max(1)
            && f.period as usize == f.pattern.len();
        if !fits {
            return Err(bad());
        }
        lines.push(f);
    }
    Ok((q_max, lines))
}
