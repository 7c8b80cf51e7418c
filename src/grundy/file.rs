//! The Grundy census on disk (layouts in FORMAT.md), one line per line
//! `(q, r)` with its start and least period: `grundy-census.tsv` with each
//! line's pattern too ([`write`](fn@write), `chomp3 grundy-census`), or the
//! census of periods and starts without patterns ([`write_periods`],
//! `chomp3 grundy-periods --out`). One streaming parser takes either, read
//! three ways: every line with its pattern ([`read`], patterns only), every
//! line without ([`summaries`], for files of gigabytes), or one line
//! ([`find`], reading stops there). Uses the census's [`LineFate`] and
//! `base::lines`'s [`BadLine`].

use std::io::{self, BufRead, Read, Write};

use super::ProvedLine;
use super::census::{Census, LineFate};
use crate::base::lines::BadLine;
use crate::base::seal::{self, SealError, write_sealed};

/// The first line of the file, up to `Q`.
const TITLE: &str = "# Certified Grundy census of three-rowed Chomp: every line (q,r), r <= q <= ";
/// The column header.
const HEADER: &str = "q\tr\tstart\tperiod\tpattern";
/// The first line of a census of periods and starts, up to `Q`.
const PERIODS_TITLE: &str =
    "# Grundy census of three-rowed Chomp (periods and starts): every line (q,r), r <= q <= ";
/// Its column header.
const PERIODS_HEADER: &str = "q\tr\tstart\tperiod";

/// Writes `census` after comment lines that say what the columns mean and the
/// command that made it, sealed ([`crate::base::seal`]).
pub fn write(census: &Census, command: &str, out: &mut dyn Write) -> io::Result<()> {
    write_sealed(out, |out| write_body(census, command, out))
}

fn write_body(census: &Census, command: &str, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "{TITLE}{}", census.q_max)?;
    writeln!(
        out,
        "# G(p,q,r) - p repeats from p = start with the least period; pattern: G(p,q,r) - p"
    )?;
    writeln!(
        out,
        "# for p = start .. start + period - 1. Each line proved (doc/certificate.md, Grundy census)."
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

/// Writes a census of periods and starts of the lines `q <= q_max`: `lines`
/// (every line, in the sweep's order) after comment lines that say what the
/// columns mean and the command that made it, sealed ([`crate::base::seal`]).
pub fn write_periods(
    q_max: u32,
    lines: &[ProvedLine],
    command: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    write_sealed(out, |out| {
        writeln!(out, "{PERIODS_TITLE}{q_max}")?;
        writeln!(
            out,
            "# G(p,q,r) - p repeats from p = start with the least period (doc/certificate.md); {command}"
        )?;
        writeln!(out, "{PERIODS_HEADER}")?;
        for f in lines {
            writeln!(out, "{}\t{}\t{}\t{}", f.q, f.r, f.start, f.period)?;
        }
        Ok(())
    })
}

/// A Grundy census this run must not replace unasked.
#[derive(Debug, thiserror::Error)]
#[error(
    "{} holds a Grundy census of every line q <= {held}, more than this run's q <= {q}; it is kept",
    .path.display()
)]
pub struct Larger {
    /// The file.
    pub path: std::path::PathBuf,
    /// Its `Q`.
    pub held: u32,
    /// This run's `Q`.
    pub q: u32,
}

/// Refuses, before any work, to write a census of the lines `q <= q_max` at
/// `path` over a Grundy census of either kind with a larger `Q` there,
/// unless `replace` (a census of the same kind and `Q` is the same result
/// made again; other files are the output check's: `outputs`).
pub(crate) fn may_write(path: &std::path::Path, q_max: u32, replace: bool) -> Result<(), Larger> {
    // What is no regular file holds no census (the output check names it).
    let first = crate::base::input::open(path, EITHER).ok().and_then(|f| {
        let mut line = String::new();
        std::io::BufReader::new(f)
            .take(256)
            .read_line(&mut line)
            .ok()
            .map(|_| line)
    });
    let held = first.as_deref().and_then(|l| {
        let l = l.trim_end();
        [TITLE, PERIODS_TITLE]
            .iter()
            .find_map(|t| l.strip_prefix(t)?.parse::<u32>().ok())
    });
    match held {
        Some(held) if held > q_max && !replace => Err(Larger {
            path: path.to_path_buf(),
            held,
            q: q_max,
        }),
        _ => Ok(()),
    }
}

/// A census holding a line that a run which did not prove every line
/// lacks.
#[derive(Debug, thiserror::Error)]
#[error(
    "{} holds a Grundy census of {held} lines, among them ({q},{r}), which this run of {lines} lines did not prove; it is kept",
    .path.display()
)]
pub struct MoreLines {
    /// The file.
    pub path: std::path::PathBuf,
    /// The lines it holds.
    pub held: usize,
    /// The first line it holds that this run lacks.
    pub q: u32,
    /// Its `r`.
    pub r: u32,
    /// The lines this run proved.
    pub lines: usize,
}

/// Refuses to write a census of the lines `lines` (`(q, r)`; a run that
/// did not prove every line) over a Grundy census of either kind at `path`
/// that holds a line not among them, unless `replace`: which lines, not how
/// many (a run of more lines that stopped early may lack some of a smaller
/// census). A file that does not read as a census is the output check's.
pub(crate) fn may_write_lines(
    path: &std::path::Path,
    lines: &[(u32, u32)],
    replace: bool,
) -> Result<(), MoreLines> {
    if replace || !crate::base::input::is_there(path) {
        return Ok(());
    }
    let Some(held) = crate::base::text::open(path, EITHER)
        .ok()
        .and_then(|text| summaries(text).ok())
        .map(|(_, held)| held)
    else {
        return Ok(());
    };
    let ours: std::collections::HashSet<(u32, u32)> = lines.iter().copied().collect();
    match held.iter().find(|l| !ours.contains(&(l.q, l.r))) {
        Some(l) => Err(MoreLines {
            path: path.to_path_buf(),
            held: held.len(),
            q: l.q,
            r: l.r,
            lines: lines.len(),
        }),
        None => Ok(()),
    }
}

/// Reads a file written by [`write`](fn@write): its `Q` and its lines, with
/// their patterns (a census of periods and starts is refused: it has none).
pub fn read(reader: impl BufRead) -> Result<(u32, Vec<LineFate>), ReadError> {
    let (mut lines, mut bare) = (Vec::new(), false);
    let q_max = stream(reader, |line, text, at| {
        let Some(text) = text else {
            bare = true;
            return Ok(false);
        };
        lines.push(with_pattern(line, text, at)?);
        Ok(true)
    })?;
    match bare {
        true => Err(ReadError::NoPatterns),
        false => Ok((q_max, lines)),
    }
}

/// A line of a census file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// From a census with patterns: its value at every `p` from the start.
    Pattern(LineFate),
    /// From a census of periods and starts: the start and least period only.
    Period(ProvedLine),
}

impl Found {
    /// The proved line, without its pattern.
    pub fn proved(&self) -> ProvedLine {
        match self {
            Found::Pattern(f) => ProvedLine::from(f),
            Found::Period(l) => *l,
        }
    }
}

/// Why a census file could not be read as one.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be read.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// It is not a Grundy census, or is damaged.
    #[error("{0}")]
    Bad(#[from] BadLine),
    /// It is cut off or changed since it was written.
    #[error("{0}")]
    Unsealed(#[from] SealError),
    /// A census of periods and starts where patterns were wanted.
    #[error(
        "a census of periods and starts has no patterns; this needs a Grundy census with patterns (grundy-census.tsv)"
    )]
    NoPatterns,
    /// A line `(q, r)` at or before the one above it: a census lists each
    /// line once, by `q` then `r`.
    #[error(
        "line {line}: the line ({q},{r}) after ({},{}); a Grundy census lists each line once, in order of q then r",
        .after.0, .after.1
    )]
    OutOfOrder {
        /// The file's line, from 1.
        line: usize,
        /// Its `q`.
        q: u32,
        /// Its `r`.
        r: u32,
        /// The `(q, r)` of the data line before it.
        after: (u32, u32),
    },
}

/// What a file that is no census is said not to be.
const EITHER: &str = "a Grundy census (grundy-census.tsv, or a census of periods and starts)";

/// Streams a census file of either kind: its `Q`, then each line's summary
/// with its pattern text (`None` in a census of periods and starts), handed
/// to `each` (which asks for no more lines by returning false). The file is
/// read and checked to its end line all the same (each line in order, the
/// end line's count and CRC): nothing read is returned unless the whole file
/// is as it was written.
fn stream(
    reader: impl BufRead,
    mut each: impl FnMut(ProvedLine, Option<&str>, usize) -> Result<bool, BadLine>,
) -> Result<u32, ReadError> {
    let what = EITHER;
    // `Q`, and whether the lines have patterns.
    let mut kind = None;
    let lines = seal::lines(reader);
    // A file of another kind has no title, and is named as such rather than
    // as an unsealed census (an empty one as empty, a line without end as
    // too long).
    let not_census = BadLine { line: 1, what };
    // The `(q, r)` of the last data line: each must come after it.
    let mut last = None;
    // Whether `each` wants more lines (the rest are checked all the same).
    let mut wanted = true;
    // A data line that cannot be read: the lines after it are still read,
    // so that a file changed or damaged since it was written (its end line's
    // count and checksum) is said to be so, not named by the line.
    let mut failed: Option<ReadError> = None;
    let mut step = |l: &str, at: usize, q_max: u32, patterns: bool| -> Result<(), ReadError> {
        let header = if patterns { HEADER } else { PERIODS_HEADER };
        if l.starts_with('#') || l == header || l.is_empty() {
            return Ok(());
        }
        let bad = || BadLine { line: at, what };
        let mut cols = l.splitn(5, '\t');
        let mut num = || {
            cols.next()
                .and_then(|c| c.parse::<u32>().ok())
                .ok_or_else(bad)
        };
        let (q, r, start, period) = (num()?, num()?, num()?, num()?);
        let pattern = match patterns {
            true => Some(cols.next().ok_or_else(bad)?),
            false if cols.next().is_some() => return Err(bad().into()),
            false => None,
        };
        let fits = r <= q && q <= q_max && start >= q.max(1) && period >= 1;
        if !fits || pattern.is_some_and(|text| !pattern_fits(q, r, start, period, text)) {
            return Err(bad().into());
        }
        if let Some(after) = last.filter(|&after| (q, r) <= after) {
            return Err(ReadError::OutOfOrder {
                line: at,
                q,
                r,
                after,
            });
        }
        last = Some((q, r));
        let line = ProvedLine {
            q,
            r,
            start,
            period,
        };
        if wanted && !each(line, pattern, at)? {
            wanted = false;
        }
        Ok(())
    };
    for (i, l) in lines.enumerate() {
        let l = match l {
            Ok(l) => l,
            // Reading failed (memory for the decoder, a cut `.xz`): said as
            // such, whatever line it was.
            Err(e @ (SealError::Empty | SealError::TooLong(_) | SealError::Io(_))) => {
                return Err(e.into());
            }
            Err(_) if kind.is_none() => return Err(not_census.into()),
            Err(e) => return Err(e.into()),
        };
        if i == 0 {
            let title = |t: &str| l.strip_prefix(t).and_then(|q| q.parse::<u32>().ok());
            kind = title(TITLE)
                .map(|q| (q, true))
                .or_else(|| title(PERIODS_TITLE).map(|q| (q, false)));
        }
        let Some((q_max, patterns)) = kind else {
            return Err(BadLine { line: 1, what }.into());
        };
        if failed.is_none() {
            failed = step(&l, i + 1, q_max, patterns).err();
        }
    }
    if let Some(e) = failed {
        return Err(e);
    }
    kind.map(|(q, _)| q).ok_or_else(|| not_census.into())
}

/// Every line's summary, without parsing the patterns.
pub fn summaries(reader: impl BufRead) -> Result<(u32, Vec<ProvedLine>), ReadError> {
    let mut lines = Vec::new();
    let q_max = stream(reader, |line, _, _| {
        lines.push(line);
        Ok(true)
    })?;
    Ok((q_max, lines))
}

/// Every line of a census of either kind, with its pattern where the file
/// has patterns.
pub fn read_lines(reader: impl BufRead) -> Result<(u32, Vec<Found>), ReadError> {
    let mut lines = Vec::new();
    let q_max = stream(reader, |line, text, at| {
        lines.push(match text {
            Some(text) => Found::Pattern(with_pattern(line, text, at)?),
            None => Found::Period(line),
        });
        Ok(true)
    })?;
    Ok((q_max, lines))
}

/// The line `(q, r)`, if the census holds it; reading stops there.
pub fn find(reader: impl BufRead, q: u32, r: u32) -> Result<(u32, Option<Found>), ReadError> {
    let mut found = None;
    let q_max = stream(reader, |line, text, at| {
        if (line.q, line.r) != (q, r) {
            return Ok(true);
        }
        found = Some(match text {
            Some(text) => Found::Pattern(with_pattern(line, text, at)?),
            None => Found::Period(line),
        });
        Ok(false)
    })?;
    Ok((q_max, found))
}

/// Whether `text` is a pattern line `(q, r)` may have, from `start` with
/// `period`: `period` terms `x(p) = G(p,q,r) - p` for `p = start ..`, each
/// within the game's bounds, `0 <= G <= p + q + r - 1` (a position has
/// `p + q + r - 1` options, so its value is at most that). Every line of a
/// census is held to it, asked for or not.
fn pattern_fits(q: u32, r: u32, start: u32, period: u32, text: &str) -> bool {
    let top = i64::from(q) + i64::from(r) - 1;
    let mut terms = 0i64;
    for term in text.split(',') {
        let Ok(x) = term.parse::<i16>() else {
            return false;
        };
        let p = i64::from(start) + terms;
        if i64::from(x) > top || p + i64::from(x) < 0 {
            return false;
        }
        terms += 1;
    }
    terms == i64::from(period)
}

/// The line `line` with its pattern parsed from `text` (line `at` of the file).
fn with_pattern(line: ProvedLine, text: &str, at: usize) -> Result<LineFate, BadLine> {
    let bad = || BadLine {
        line: at,
        what: "a Grundy census (grundy-census.tsv)",
    };
    let pattern = text
        .split(',')
        .map(|x| x.parse::<i16>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| bad())?;
    if pattern.len() != line.period as usize {
        return Err(bad());
    }
    Ok(LineFate {
        q: line.q,
        r: line.r,
        start: line.start,
        period: line.period,
        pattern,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::stop::Stop;
    use crate::grundy::census::census;

    /// The text `t` sealed again (its end line made anew).
    fn resealed(t: &str) -> Vec<u8> {
        let mut out = Vec::new();
        write_sealed(&mut out, |w| {
            t.lines()
                .filter(|l| !l.starts_with("# end"))
                .try_for_each(|l| writeln!(w, "{l}"))
        })
        .unwrap();
        out
    }

    #[test]
    fn the_streaming_readers_agree_with_the_whole_reader() {
        let c = census(9, 100_000, &Stop::new(), &mut |_| {});
        let mut text = Vec::new();
        write(&c, "test", &mut text).unwrap();
        let (q_max, whole) = read(&text[..]).unwrap();
        let (q2, sums) = summaries(&text[..]).unwrap();
        assert_eq!((q2, q_max), (9, 9));
        assert_eq!(sums, whole.iter().map(ProvedLine::from).collect::<Vec<_>>());
        for f in &whole {
            let found = find(&text[..], f.q, f.r).unwrap().1;
            assert_eq!(found, Some(Found::Pattern(f.clone())));
        }
        assert_eq!(find(&text[..], 10, 0).unwrap().1, None);
        // A data line changed after the file was written is damage, said
        // by the end line's check, by every reader (not a line of another
        // kind of file); sealed again, the same line is named.
        let text = String::from_utf8(text).unwrap();
        let damaged = text.replacen("\t2\t", "\tx\t", 1);
        assert_ne!(damaged, text);
        // A pattern of a data line made unreadable.
        let line = (text.lines())
            .find(|l| l.starts_with(|c: char| c.is_ascii_digit()) && l.contains(','))
            .unwrap();
        let pattern = text.replacen(line, &line.replacen(',', ",x", 1), 1);
        assert_ne!(pattern, text);
        for changed in [&damaged, &pattern] {
            for got in [
                summaries(changed.as_bytes()).err(),
                read(changed.as_bytes()).err(),
                read_lines(changed.as_bytes()).err(),
                find(changed.as_bytes(), 9, 9).err(),
            ] {
                assert!(
                    matches!(got, Some(ReadError::Unsealed(SealError::Mismatch { .. }))),
                    "{got:?}"
                );
            }
        }
        assert!(matches!(
            summaries(&resealed(&damaged)[..]),
            Err(ReadError::Bad(_))
        ));
        assert!(matches!(
            read_lines(&resealed(&pattern)[..]),
            Err(ReadError::Bad(_))
        ));
        assert!(matches!(
            summaries(&b"# not a census\n"[..]),
            Err(ReadError::Bad(_))
        ));
    }

    /// A census sealed again after a change is still held to the game: a
    /// pattern term past `G <= p + q + r - 1` or below `G >= 0`, or one that
    /// is no number, is refused by every reader, whichever line is asked for.
    #[test]
    fn a_resealed_pattern_past_the_game_is_refused_by_every_reader() {
        let c = census(9, 100_000, &Stop::new(), &mut |_| {});
        let mut text = Vec::new();
        write(&c, "test", &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(summaries(&resealed(&text)[..]).is_ok());
        let line = (text.lines())
            .find(|l| l.starts_with("2\t2\t"))
            .unwrap()
            .to_string();
        let (head, pattern) = line.rsplit_once('\t').unwrap();
        let first = pattern.split(',').next().unwrap();
        let rest = &pattern[first.len()..];
        // (2,2): G <= p + 3, so x <= 3; p >= 2, so x >= -2 holds at p = 2.
        let start: i64 = head.split('\t').nth(2).unwrap().parse().unwrap();
        for term in ["4".to_string(), format!("{}", -start - 1), "x".to_string()] {
            let forged = text.replacen(&line, &format!("{head}\t{term}{rest}"), 1);
            assert_ne!(forged, text);
            let forged = resealed(&forged);
            assert!(
                matches!(summaries(&forged[..]), Err(ReadError::Bad(_))),
                "{term}"
            );
            assert!(
                matches!(read(&forged[..]), Err(ReadError::Bad(_))),
                "{term}"
            );
            assert!(
                matches!(find(&forged[..], 9, 5), Err(ReadError::Bad(_))),
                "{term}"
            );
        }
        // Its own term, 3 at most, passes.
        let kept = resealed(&text.replacen(&line, &format!("{head}\t3{rest}"), 1));
        assert!(find(&kept[..], 9, 5).is_ok());
    }

    #[test]
    fn a_census_of_periods_and_starts_reads_back_without_patterns() {
        let c = census(9, 100_000, &Stop::new(), &mut |_| {});
        let sums: Vec<ProvedLine> = c.lines.iter().map(ProvedLine::from).collect();
        let mut text = Vec::new();
        write_periods(9, &sums, "test", &mut text).unwrap();
        assert_eq!(summaries(&text[..]).unwrap(), (9, sums.clone()));
        for s in &sums {
            assert_eq!(
                find(&text[..], s.q, s.r).unwrap().1,
                Some(Found::Period(*s))
            );
        }
        assert!(matches!(read(&text[..]), Err(ReadError::NoPatterns)));
        // A pattern column is not part of this kind; a line past Q is refused.
        let text = String::from_utf8(text).unwrap();
        let patterned = text.replace("\n2\t1\t10\t4\n", "\n2\t1\t10\t4\t2,0,-2,-4\n");
        assert_ne!(patterned, text);
        assert!(matches!(
            summaries(patterned.as_bytes()),
            Err(ReadError::Unsealed(SealError::Mismatch { .. }))
        ));
        assert!(matches!(
            summaries(&resealed(&patterned)[..]),
            Err(ReadError::Bad(_))
        ));
        assert!(matches!(
            summaries((text + "10\t0\t10\t2\n").as_bytes()),
            Err(ReadError::Unsealed(_))
        ));
    }

    /// A line repeated or out of order is refused with its line, in a file
    /// sealed after it was changed; `find` checks the lines after its own.
    #[test]
    fn a_line_repeated_or_out_of_order_is_refused_with_its_line() {
        let c = census(9, 100_000, &Stop::new(), &mut |_| {});
        let sums: Vec<ProvedLine> = c.lines.iter().map(ProvedLine::from).collect();
        let mut text = Vec::new();
        write_periods(9, &sums, "test", &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        // Title, comment, header, then (0,0) at line 4, (1,0), (1,1), ..
        let body: Vec<&str> = text.lines().filter(|l| !l.starts_with("# end")).collect();
        assert!(body[4].starts_with("1\t0\t") && body[5].starts_with("1\t1\t"));
        let sealed = |lines: &[&str]| {
            let mut out = Vec::new();
            write_sealed(&mut out, |w| {
                lines.iter().try_for_each(|l| writeln!(w, "{l}"))
            })
            .unwrap();
            out
        };
        assert_eq!(summaries(&sealed(&body)[..]).unwrap().1, sums);
        let mut repeated = body.clone();
        repeated.insert(5, body[4]);
        let mut swapped = body.clone();
        swapped.swap(4, 5);
        for (lines, says) in [
            (&repeated, "line 6: the line (1,0) after (1,0)"),
            (&swapped, "line 6: the line (1,0) after (1,1)"),
        ] {
            let file = sealed(lines);
            let err = summaries(&file[..]).unwrap_err();
            assert!(matches!(err, ReadError::OutOfOrder { .. }), "{err}");
            assert!(err.to_string().starts_with(says), "{err}");
            let err = find(&file[..], 0, 0).unwrap_err();
            assert!(err.to_string().starts_with(says), "{err}");
        }
        // An empty file is called empty.
        assert!(matches!(
            summaries(&b""[..]),
            Err(ReadError::Unsealed(SealError::Empty))
        ));
    }
}
