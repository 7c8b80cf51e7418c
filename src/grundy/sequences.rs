//! The Grundy sequences as OEIS b-files (`n a(n)` per line after `#` lines):
//! the 3 x n rectangle's value `G(n,n,n)`, and each line's period and start in
//! the sweep's order. Uses the sweep and the census of this module.

use std::io::{self, Write};

use super::Sweep;
use crate::stop::Stop;

/// A note for every header: where the sequence was looked for.
const OEIS: &str = "# OEIS: no sequence with these first terms was found in the material searched \
(offline); not checked against oeis.org.";

/// `G(n,n,n)` for `n = 1 ..= n_max`, computed by one sweep of the lines
/// `q <= n_max` (the line `(n,n)` starts at `p = n`); `None` if stopped.
pub fn rectangles(n_max: u32, stop: &Stop) -> Option<Vec<u32>> {
    let mut sweep = Sweep::new(n_max);
    let mut out = Vec::with_capacity(n_max as usize);
    while sweep.p() < n_max {
        if stop.requested() {
            return None;
        }
        sweep.step();
        let n = sweep.p();
        out.push(sweep.value(n, n).expect("line (n,n) starts at p = n"));
    }
    Some(out)
}

/// The b-file of `G(n,n,n)`, `n = 1 ..`, from [`rectangles`].
pub fn write_rectangles(values: &[u32], command: &str, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "# Sprague-Grundy value of the 3 x n rectangle [n,n,n] in Chomp, n >= 1"
    )?;
    writeln!(out, "{OEIS}")?;
    writeln!(
        out,
        "# exact: every term by the sweep of doc/grundy.md; {} terms, offset 1; {command}",
        values.len()
    )?;
    for (i, v) in values.iter().enumerate() {
        writeln!(out, "{} {v}", i + 1)?;
    }
    Ok(())
}

/// The b-file of each line's least period (`period`) or start (else), lines
/// numbered from 0 in the sweep's order (`(0,0), (1,0), (1,1), (2,0), ..`);
/// only the complete prefix of proved lines is written. Each line is
/// `(q, r, start, period)`.
pub fn write_lines(
    lines: &[(u32, u32, u32, u32)],
    period: bool,
    command: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    let what = if period {
        "least period of G(p,q,r) - p in p"
    } else {
        "least p from which G(p,q,r) - p is periodic"
    };
    writeln!(
        out,
        "# Three-rowed Chomp: {what}, for the line (q,r) numbered n = q(q+1)/2 + r, r <= q"
    )?;
    writeln!(out, "{OEIS}")?;
    let terms = lines
        .iter()
        .enumerate()
        .take_while(|(i, f)| super::line(f.0, f.1) == *i)
        .count();
    writeln!(
        out,
        "# proved: every term by the Grundy census (CERTIFICATE.md); {terms} terms, offset 0; {command}"
    )?;
    for (i, f) in lines.iter().take(terms).enumerate() {
        let v = if period { f.3 } else { f.2 };
        writeln!(out, "{i} {v}")?;
    }
    Ok(())
}
