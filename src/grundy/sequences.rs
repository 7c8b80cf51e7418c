//! The Grundy sequences as OEIS b-files (`n a(n)` per line after `#` lines):
//! the 3 x n rectangle's value `G(n,n,n)`, and each line's period and start in
//! the sweep's order, written and read back. Uses the sweep of this module
//! and `file`'s line summaries.

use std::io::{self, BufRead, Write};

use super::ProvedLine;
use super::Sweep;
use crate::base::seal::write_sealed;
use crate::base::stop::Stop;

/// The b-file of each line's least period ([`write_lines`]).
pub(crate) const PERIODS: &str = "grundy-periods.txt";
/// The b-file of each line's start ([`write_lines`]).
pub(crate) const STARTS: &str = "grundy-starts.txt";

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

/// The b-file of `G(n,n,n)`, `n = 1 ..`, from [`rectangles`], sealed
/// ([`crate::base::seal`]).
pub fn write_rectangles(values: &[u32], command: &str, out: &mut dyn Write) -> io::Result<()> {
    write_sealed(out, |out| rectangles_body(values, command, out))
}

fn rectangles_body(values: &[u32], command: &str, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "# Sprague-Grundy value of the 3 x n rectangle [n,n,n] in Chomp, n >= 1"
    )?;
    writeln!(
        out,
        "# OEIS A069001 (Sprague-Grundy value of the 3 x n rectangle); its b-file holds 2,522 terms"
    )?;
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

/// Per slab `p` of a Grundy table (from [`super::table::slab_counts`]): the
/// positions and how many have `G = 0, 1, 2, 3`, as a sealed TSV.
pub fn write_slab_counts(
    counts: &[[u64; 5]],
    command: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    write_sealed(out, |out| {
        writeln!(
            out,
            "# Grundy table of three-rowed Chomp: per slab p, the positions [p,q,r] (r <= q <= p)"
        )?;
        writeln!(
            out,
            "# and how many have G = 0 (the P-positions), 1, 2, 3; exact, read from the table; {command}"
        )?;
        writeln!(out, "p\tpositions\tG=0\tG=1\tG=2\tG=3")?;
        for (i, c) in counts.iter().enumerate() {
            writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}",
                i + 1,
                c[0],
                c[1],
                c[2],
                c[3],
                c[4]
            )?;
        }
        Ok(())
    })
}

/// The b-files of each line's period ([`PERIODS`]) and start ([`STARTS`])
/// in `dir`, replaced as a pair: a failure (a full disk) leaves the old
/// pair. The error names its file or the directory.
pub(crate) fn write_line_pair(
    dir: &std::path::Path,
    lines: &[ProvedLine],
    command: &str,
) -> std::io::Result<()> {
    let mut set = crate::base::atomic_write::FileSet::new();
    for (name, period) in [(PERIODS, true), (STARTS, false)] {
        set.write(&dir.join(name), |w| write_lines(lines, period, command, w))?;
    }
    set.commit()
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", dir.display())))
}

/// The terms of the lines' b-files of `lines`: the complete prefix, in the
/// sweep's order, of the lines proved.
pub(crate) fn prefix_terms(lines: &[ProvedLine]) -> u64 {
    lines
        .iter()
        .enumerate()
        .take_while(|(i, f)| super::line(f.q, f.r) == *i)
        .count() as u64
}

/// The b-file of each line's least period (`period`) or start (else), lines
/// numbered from 0 in the sweep's order (`(0,0), (1,0), (1,1), (2,0), ..`);
/// only the complete prefix of proved lines is written. Each line is
/// `(q, r, start, period)`. Sealed ([`crate::base::seal`]).
pub fn write_lines(
    lines: &[ProvedLine],
    period: bool,
    command: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    write_sealed(out, |out| lines_body(lines, period, command, out))
}

fn lines_body(
    lines: &[ProvedLine],
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
    let terms = crate::base::bytes::narrow::<usize, _>(prefix_terms(lines));
    writeln!(
        out,
        "# proved: every term by the Grundy census (doc/certificate.md); {terms} terms, offset 0; {command}"
    )?;
    for (i, f) in lines.iter().take(terms).enumerate() {
        let v = if period { f.period } else { f.start };
        writeln!(out, "{i} {v}")?;
    }
    Ok(())
}

/// Each line's start and least period read back from the b-files that
/// [`write_lines`] wrote (`periods`, `starts`): both must number the same
/// lines `0, 1, 2, ..` in order. An error names the file's line at fault.
pub fn read_lines(periods: impl BufRead, starts: impl BufRead) -> Result<Vec<ProvedLine>, String> {
    let periods = read_terms(periods, "grundy-periods.txt", 0, LINES_TITLE)?;
    let starts = read_terms(starts, "grundy-starts.txt", 0, LINES_TITLE)?;
    if periods.len() != starts.len() {
        return Err(format!(
            "grundy-periods.txt has {} terms and grundy-starts.txt {}",
            periods.len(),
            starts.len()
        ));
    }
    let mut out = Vec::with_capacity(periods.len());
    let (mut q, mut r) = (0, 0);
    for (&period, &start) in periods.iter().zip(&starts) {
        out.push(ProvedLine {
            q,
            r,
            start,
            period,
        });
        (q, r) = if r == q { (q + 1, 0) } else { (q, r + 1) };
    }
    Ok(out)
}

/// The first words of the line b-files' titles.
const LINES_TITLE: &str = "# Three-rowed Chomp: least p";
/// The first words of the rectangles' b-file title.
const RECTANGLES_TITLE: &str = "# Sprague-Grundy value of the 3 x n rectangle";

/// `G(n,n,n)` for `n = 1 ..= N` (index `n - 1`), read back from the b-file
/// that [`write_rectangles`] wrote (`name` for messages): its title, every
/// term in order from 1, and its seal checked.
pub(crate) fn read_rectangles(reader: impl BufRead, name: &str) -> Result<Vec<u32>, String> {
    read_terms(reader, name, 1, RECTANGLES_TITLE)
}

/// The terms `a(offset), a(offset + 1), ..` of a sealed b-file whose first
/// line begins with `title`, in order: an `n` repeated or out of order, or
/// one missing, is refused with its line.
fn read_terms(
    reader: impl BufRead,
    name: &str,
    offset: usize,
    title: &str,
) -> Result<Vec<u32>, String> {
    let mut terms = Vec::new();
    for (i, text) in crate::base::seal::lines(reader).enumerate() {
        let text = text.map_err(|e| format!("{name}: {e}"))?;
        if i == 0 && !text.starts_with(title) {
            return Err(format!(
                "{name}: not the b-file wanted (its first line is not `{title} ...`)"
            ));
        }
        let text = text.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let bad = || {
            format!(
                "{name} line {}: not `n a(n)` with n = {}",
                i + 1,
                terms.len() + offset
            )
        };
        let mut words = text.split_whitespace();
        let n: usize = words.next().and_then(|w| w.parse().ok()).ok_or_else(bad)?;
        let v: u32 = words.next().and_then(|w| w.parse().ok()).ok_or_else(bad)?;
        let want = terms.len() + offset;
        if n < want {
            return Err(format!(
                "{name} line {}: n = {n} after n = {}; a b-file lists each n once, in order",
                i + 1,
                want - 1
            ));
        }
        if n != want || words.next().is_some() {
            return Err(bad());
        }
        terms.push(v);
    }
    if terms.is_empty() {
        return Err(format!("{name}: no terms"));
    }
    Ok(terms)
}

/// A b-file this run must not replace unasked.
#[derive(Debug, thiserror::Error)]
pub enum LargerBFile {
    /// It holds more terms than this run writes.
    #[error(
        "{} holds {held} terms, more than the {terms} this run writes; it is kept",
        .path.display()
    )]
    More {
        /// The file.
        path: std::path::PathBuf,
        /// Its terms.
        held: u64,
        /// This run's.
        terms: u64,
    },
    /// Its header does not say how many terms it holds.
    #[error("{} does not say how many terms it holds; it is kept", .path.display())]
    Unknown {
        /// The file.
        path: std::path::PathBuf,
    },
}

/// Refuses, before any work, to write a b-file of `terms` terms at `path`
/// over one of more (or one whose header does not say how many it holds),
/// unless `replace`. Reads only the header: the `N terms` of its provenance
/// line, as [`write_lines`] and [`write_rectangles`] write it.
pub(crate) fn may_write_bfile(
    path: &std::path::Path,
    terms: u64,
    replace: bool,
) -> Result<(), LargerBFile> {
    if replace || !crate::base::input::is_there(path) {
        return Ok(());
    }
    let held = crate::base::text::open(path, "a b-file")
        .ok()
        .and_then(|mut text| {
            let mut line = String::new();
            for _ in 0..8 {
                line.clear();
                if text.read_line(&mut line).ok()? == 0 || !line.starts_with('#') {
                    return None;
                }
                // The provenance line: `# exact: ...; N terms, offset k;
                // command` (`# proved:` for the lines' b-files).
                if !(line.starts_with("# exact:") || line.starts_with("# proved:")) {
                    continue;
                }
                let words: Vec<&str> = line.split_whitespace().collect();
                let i = words
                    .iter()
                    .position(|w| w.trim_end_matches(',') == "terms")?;
                return words.get(i.checked_sub(1)?)?.parse::<u64>().ok();
            }
            None
        });
    match held {
        Some(held) if held <= terms => Ok(()),
        Some(held) => Err(LargerBFile::More {
            path: path.to_path_buf(),
            held,
            terms,
        }),
        None => Err(LargerBFile::Unknown {
            path: path.to_path_buf(),
        }),
    }
}

/// Refuses, before any work, to write slab counts of `slabs` slabs at
/// `path` over a file of more, unless `replace`. Counts the data lines (one
/// a slab, after the column names).
pub(crate) fn may_write_slab_counts(
    path: &std::path::Path,
    slabs: u64,
    replace: bool,
) -> Result<(), LargerBFile> {
    if replace || !crate::base::input::is_there(path) {
        return Ok(());
    }
    let held = crate::base::text::open(path, "a table of slab counts")
        .ok()
        .map(|text| {
            text.lines()
                .map_while(Result::ok)
                .filter(|l| !l.starts_with('#') && !l.starts_with("p\t") && !l.trim().is_empty())
                .count() as u64
        });
    match held {
        Some(held) if held > slabs => Err(LargerBFile::More {
            path: path.to_path_buf(),
            held,
            terms: slabs,
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_b_file_of_more_terms_is_kept_unless_replacing_is_asked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("grundy-rectangles.txt");
        assert!(may_write_bfile(&path, 1, false).is_ok(), "nothing there");
        let values = rectangles(40, &Stop::new()).unwrap();
        let mut file = Vec::new();
        write_rectangles(&values, "test", &mut file).unwrap();
        std::fs::write(&path, &file).unwrap();
        let held = values.len() as u64;
        for terms in [held, held + 1] {
            assert!(may_write_bfile(&path, terms, false).is_ok(), "{terms}");
        }
        let err = may_write_bfile(&path, held - 1, false).unwrap_err();
        assert!(
            matches!(err, LargerBFile::More { held: h, .. } if h == held),
            "{err}"
        );
        assert!(may_write_bfile(&path, 1, true).is_ok());
        std::fs::write(&path, "# a b-file of unknown length\n1 1\n").unwrap();
        let err = may_write_bfile(&path, 100, false).unwrap_err();
        assert!(matches!(err, LargerBFile::Unknown { .. }), "{err}");
    }

    /// What `write_rectangles` writes from the sweep, `read_rectangles`
    /// reads back; a changed term breaks the seal, another b-file is refused.
    #[test]
    fn the_rectangles_b_file_reads_back() {
        let values = rectangles(40, &Stop::new()).unwrap();
        let mut file = Vec::new();
        write_rectangles(&values, "test", &mut file).unwrap();
        assert_eq!(read_rectangles(&file[..], "r").unwrap(), values);
        let text = String::from_utf8(file).unwrap();
        let changed = text.replace("\n7 ", "\n7 1");
        assert_ne!(changed, text);
        assert!(read_rectangles(changed.as_bytes(), "r").is_err());
        let line = ProvedLine {
            q: 0,
            r: 0,
            start: 1,
            period: 1,
        };
        let mut other = Vec::new();
        write_lines(&[line], true, "test", &mut other).unwrap();
        let err = read_rectangles(&other[..], "r").unwrap_err();
        assert!(err.contains("not the b-file wanted"), "{err}");
        // A term repeated or out of order, or one missing, is refused with
        // its line, however well sealed.
        for (terms, says) in [
            (
                "1 1\n2 2\n2 2\n",
                "r line 4: n = 2 after n = 2; a b-file lists each n once, in order",
            ),
            ("1 1\n3 2\n2 2\n", "r line 3: not `n a(n)` with n = 2"),
            ("2 2\n1 1\n", "r line 2: not `n a(n)` with n = 1"),
        ] {
            let mut file = Vec::new();
            write_sealed(&mut file, |w| {
                w.write_all(format!("{RECTANGLES_TITLE} [n,n,n]\n{terms}").as_bytes())
            })
            .unwrap();
            assert_eq!(read_rectangles(&file[..], "r").unwrap_err(), says);
        }
    }

    /// What `write_lines` writes, `read_lines` reads back; a gap is refused.
    #[test]
    fn the_line_b_files_read_back() {
        let lines: Vec<ProvedLine> = (0..6u32)
            .flat_map(|q| {
                (0..=q).map(move |r| ProvedLine {
                    q,
                    r,
                    start: 7 * q + r + 1,
                    period: 2 + q * r,
                })
            })
            .collect();
        let mut files = [Vec::new(), Vec::new()];
        for (i, f) in files.iter_mut().enumerate() {
            write_lines(&lines, i == 0, "test", f).unwrap();
        }
        let back = read_lines(&files[0][..], &files[1][..]).unwrap();
        assert_eq!(back, lines);
        let text = String::from_utf8(files[1].clone())
            .unwrap()
            .replace("\n3 ", "\n4 ");
        let err = read_lines(&files[0][..], text.as_bytes()).unwrap_err();
        assert!(err.contains("grundy-starts.txt line"), "{err}");
    }
}
