//! Where the graphs of a run come from, and reading them one after another:
//! edge lists, then each source in order (standard input, a file of graph6 or
//! sparse6 lines, every graph on `n` vertices from nauty's `nauty-geng`,
//! run as a child process, or a named family). Owns what a source's name
//! means and the messages of a source that cannot be read; uses `format`,
//! `family` and `base::input`, `base::text`.

use std::fmt;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};

use super::family::{self, FamilyError};
use super::format::{FormatError, parse_edge_list, parse_line};
use super::{Graph, Multigraph};
use crate::base::input::{self, InputError};
use crate::base::text::{LineError, Lines, TextError};

/// nauty's graph generator as Debian installs it.
pub(crate) const GENG: &str = "nauty-geng";

/// The most vertices nauty's generator lists graphs on.
pub(crate) const GENG_MAX: usize = 32;

/// What a file of graphs is, for the message when its path is no file.
const GRAPH_LINES: &str = "a file of graphs (graph6 or sparse6 lines)";

/// One source of graphs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// graph6/sparse6 lines on standard input (`-`).
    Stdin,
    /// A file of graph6/sparse6 lines.
    File(PathBuf),
    /// Every graph on `from ..= to` vertices, from `nauty-geng`, `n` ascending.
    Geng {
        /// The fewest vertices.
        from: usize,
        /// The most.
        to: usize,
    },
    /// A named family, such as `wheel:9` or `wheel:3..16` (see `family`).
    Family(String),
}

/// Why a source names no graph, or its graphs cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// Neither on disk nor a family's or the generator's name.
    #[error("{0:?} is neither a file nor a family such as wheel:9 or geng:8")]
    Unknown(String),
    /// `geng:` followed by no number or range of them.
    #[error("{0:?}: give geng:N or geng:A..B with whole numbers")]
    GengNumbers(String),
    /// A range the generator does not list.
    #[error("{0:?}: nauty's geng lists graphs on 1 to 32 vertices (a nonempty range)")]
    GengRange(String),
    /// `nauty-geng` is not installed.
    #[error("geng:{0}: {GENG} not found; install Debian's nauty package (apt-get install nauty)")]
    GengMissing(usize),
    /// `nauty-geng` could not be started.
    #[error("geng:{n}: starting {GENG}: {error}")]
    GengStart {
        /// The vertices asked for.
        n: usize,
        /// Why.
        error: io::Error,
    },
    /// `nauty-geng` ended with a failure.
    #[error("geng:{n}: {GENG} failed ({status})")]
    GengFailed {
        /// The vertices asked for.
        n: usize,
        /// How it ended.
        status: ExitStatus,
    },
    /// Waiting for `nauty-geng` failed.
    #[error(transparent)]
    Wait(io::Error),
    /// A line could not be read.
    #[error("{name}: {error}")]
    Read {
        /// The source (`stdin`, `geng:8`, a path).
        name: String,
        /// Why.
        error: LineError,
    },
    /// A line, or an edge list, is no graph.
    #[error("{name}:{line}: {error}")]
    Line {
        /// The source.
        name: String,
        /// Its number, from 1.
        line: usize,
        /// What is wrong with it.
        error: FormatError,
    },
    /// A file of graphs could not be opened.
    #[error(transparent)]
    Open(#[from] InputError),
    /// An edge list could not be read.
    #[error(transparent)]
    Text(#[from] TextError),
    /// A family spec names no graph.
    #[error(transparent)]
    Family(#[from] FamilyError),
}

impl Source {
    /// What a name means: `-` standard input; anything on disk a file (what is
    /// none is named so when it is read); `geng:N` or `geng:A..B` the
    /// generator; another `name:args` a family (checked by [`Source::check`]).
    pub fn parse(s: &str) -> Result<Source, SourceError> {
        if s == "-" {
            return Ok(Source::Stdin);
        }
        if input::is_there(Path::new(s)) {
            return Ok(Source::File(PathBuf::from(s)));
        }
        if let Some(arg) = s.strip_prefix("geng:") {
            let num = |a: &str| {
                (a.trim().parse::<usize>()).map_err(|_| SourceError::GengNumbers(s.to_string()))
            };
            let (from, to) = match arg.split_once("..") {
                Some((a, b)) => (num(a)?, num(b)?),
                None => (num(arg)?, num(arg)?),
            };
            if from < 1 || to > GENG_MAX || from > to {
                return Err(SourceError::GengRange(s.to_string()));
            }
            return Ok(Source::Geng { from, to });
        }
        if s.contains(':') {
            return Ok(Source::Family(s.to_string()));
        }
        Err(SourceError::Unknown(s.to_string()))
    }

    /// Whether the source is the generator (every graph on each `n`).
    pub(crate) fn is_geng(&self) -> bool {
        matches!(self, Source::Geng { .. })
    }

    /// A family's spec checked before any work, so a typo costs nothing.
    pub fn check(&self) -> Result<(), FamilyError> {
        match self {
            Source::Family(spec) => family::expand(spec).map(drop),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Stdin => write!(f, "-"),
            Source::File(p) => write!(f, "{}", p.display()),
            Source::Geng { from, to } if from == to => write!(f, "geng:{from}"),
            Source::Geng { from, to } => write!(f, "geng:{from}..{to}"),
            Source::Family(spec) => write!(f, "{spec}"),
        }
    }
}

/// A graph, the label it is printed with, and the multigraph it was given as
/// when that had parallel edges or a loop listed twice (the graph is then its
/// reduction, of the same value).
pub(crate) type Item = (String, Graph, Option<Multigraph>);

/// Every graph of the sources, in order, as an iterator; an error ends it.
pub struct Inputs {
    pending: std::vec::IntoIter<Pending>,
    current: Box<dyn Iterator<Item = Result<Item, SourceError>>>,
    /// The `nauty-geng` process feeding `current`, checked when it is used up.
    child: Option<(Child, usize)>,
}

enum Pending {
    Edges(PathBuf),
    Source(Source),
    Geng(usize),
}

impl Inputs {
    /// The graphs of `sources` after those of the edge lists `edges`.
    pub fn new(sources: &[Source], edges: &[PathBuf]) -> Inputs {
        let mut pending: Vec<Pending> = edges.iter().cloned().map(Pending::Edges).collect();
        pending.extend(sources.iter().cloned().map(Pending::Source));
        Inputs {
            pending: pending.into_iter(),
            current: Box::new(std::iter::empty()),
            child: None,
        }
    }

    /// Opens the next source; `Ok(false)` when there is none.
    fn open_next(&mut self) -> Result<bool, SourceError> {
        let Some(p) = self.pending.next() else {
            return Ok(false);
        };
        self.current = match p {
            Pending::Edges(path) => Box::new(std::iter::once(read_edge_list(&path))),
            Pending::Geng(n) => {
                let mut child = Command::new(GENG)
                    .args(["-q", &n.to_string()])
                    .stdout(Stdio::piped())
                    .spawn()
                    .map_err(|error| match error.kind() {
                        io::ErrorKind::NotFound => SourceError::GengMissing(n),
                        _ => SourceError::GengStart { n, error },
                    })?;
                let stdout = child.stdout.take().expect("piped");
                self.child = Some((child, n));
                Box::new(read_lines(format!("geng:{n}"), BufReader::new(stdout)))
            }
            Pending::Source(Source::Stdin) => {
                Box::new(read_lines("stdin".to_string(), crate::base::text::stdin()?))
            }
            Pending::Source(Source::File(path)) => {
                // As every text input: decompressed if the name ends in `.xz`.
                let text = crate::base::text::open(&path, GRAPH_LINES)?;
                Box::new(read_lines(crate::base::shell::label(&path), text))
            }
            Pending::Source(Source::Geng { from, to }) => {
                let rest: Vec<Pending> = (from..=to)
                    .map(Pending::Geng)
                    .chain(std::mem::take(&mut self.pending))
                    .collect();
                self.pending = rest.into_iter();
                Box::new(std::iter::empty())
            }
            Pending::Source(Source::Family(spec)) => Box::new(
                family::expand(&spec)?
                    .into_iter()
                    .map(|(l, g)| Ok((l, g, None))),
            ),
        };
        Ok(true)
    }

    /// After a `nauty-geng` run is read to the end: did it succeed?
    fn reap(&mut self) -> Result<(), SourceError> {
        if let Some((mut child, n)) = self.child.take() {
            let status = child.wait().map_err(SourceError::Wait)?;
            if !status.success() {
                return Err(SourceError::GengFailed { n, status });
            }
        }
        Ok(())
    }
}

impl Iterator for Inputs {
    type Item = Result<Item, SourceError>;

    fn next(&mut self) -> Option<Result<Item, SourceError>> {
        loop {
            if let Some(item) = self.current.next() {
                return Some(item);
            }
            if let Err(e) = self.reap() {
                return Some(Err(e));
            }
            match self.open_next() {
                Ok(true) => continue,
                Ok(false) => return None,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// Reads graph6/sparse6 lines (each at most `base::text`'s limit long); the
/// error names the source and line.
fn read_lines(
    name: String,
    reader: impl BufRead + 'static,
) -> impl Iterator<Item = Result<Item, SourceError>> {
    Lines::new(reader).enumerate().filter_map(move |(i, line)| {
        let line = match line {
            Ok(l) => l,
            Err(error) => {
                let name = name.clone();
                return Some(Err(SourceError::Read { name, error }));
            }
        };
        let t = line.trim();
        if t.is_empty() {
            return None;
        }
        Some(
            parse_line(t)
                .map(|m| (t.to_string(), Graph::from_multigraph(&m), given(m)))
                .map_err(|error| SourceError::Line {
                    name: name.clone(),
                    line: i + 1,
                    error,
                }),
        )
    })
}

/// An edge-list file (standard input for `-`) as one labelled graph.
fn read_edge_list(path: &Path) -> Result<Item, SourceError> {
    let (text, name) = match path == Path::new("-") {
        true => (crate::base::text::stdin_to_string()?, "stdin".to_string()),
        false => (
            crate::base::text::read_to_string(path, "an edge list")?,
            crate::base::shell::label(path),
        ),
    };
    let m = parse_edge_list(&text).map_err(|(line, error)| SourceError::Line {
        name: name.clone(),
        line,
        error,
    })?;
    let g = Graph::from_multigraph(&m);
    Ok((name, g, given(m)))
}

/// The multigraph as given, kept when its graph is a reduction of it.
fn given(m: Multigraph) -> Option<Multigraph> {
    (!m.is_simple()).then_some(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_as_the_sources_they_mean() {
        assert_eq!(Source::parse("-").unwrap(), Source::Stdin);
        assert_eq!(
            Source::parse("geng:3..5").unwrap(),
            Source::Geng { from: 3, to: 5 }
        );
        assert_eq!(
            Source::parse("geng:7").unwrap(),
            Source::Geng { from: 7, to: 7 }
        );
        assert_eq!(
            Source::parse("wheel:3..5").unwrap(),
            Source::Family("wheel:3..5".into())
        );
        for bad in ["geng:0", "geng:5..3", "geng:33"] {
            assert!(matches!(Source::parse(bad), Err(SourceError::GengRange(_))));
        }
        assert!(matches!(
            Source::parse("geng:x"),
            Err(SourceError::GengNumbers(_))
        ));
        assert!(matches!(
            Source::parse("no-such-file"),
            Err(SourceError::Unknown(_))
        ));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("g.g6");
        std::fs::write(&file, "").unwrap();
        let name = file.to_str().unwrap();
        assert_eq!(Source::parse(name).unwrap(), Source::File(file.clone()));
        assert_eq!(Source::parse(name).unwrap().to_string(), name);
    }

    #[test]
    fn a_malformed_line_ends_the_graphs_naming_its_source_and_number() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("g.g6");
        // K_2 and K_3 in graph6, a blank line, then no graph.
        std::fs::write(&file, "A_\n\nBw\n!!\nBw\n").unwrap();
        // (A run stops at the first error.)
        let read: Vec<_> = Inputs::new(&[Source::File(file.clone())], &[])
            .take(3)
            .collect();
        assert_eq!(read[0].as_ref().unwrap().1.edges(), 1);
        assert_eq!(read[1].as_ref().unwrap().1.edges(), 3);
        let e = read[2].as_ref().unwrap_err().to_string();
        assert!(e.starts_with(&format!("{}:4: ", file.display())), "{e}");
    }
}
