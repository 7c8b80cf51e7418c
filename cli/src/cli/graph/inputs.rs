//! The graphs named on the command line, one after another: edge lists, then
//! each source in order (standard input, a file, `geng:N`, a family).

use std::io::{self, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::{Result, anyhow};
use chomp3::graph::{Graph, Multigraph, family};

use super::{read_edge_list, read_lines};

/// A graph, the label it is printed with, and the multigraph it was given as
/// when that had parallel edges or a loop listed twice (the graph is then its
/// reduction, of the same value).
pub type Item = (String, Graph, Option<Multigraph>);

/// nauty's graph generator as Debian installs it.
const GENG: &str = "nauty-geng";

/// What a file of graphs is, for the message when its path is no file.
const GRAPH_LINES: &str = "a file of graphs (graph6 or sparse6 lines)";

/// Every graph of the sources, in order, as an iterator; an error ends it.
pub struct Inputs {
    pending: std::vec::IntoIter<Pending>,
    current: Box<dyn Iterator<Item = Result<Item>>>,
    /// The `nauty-geng` process feeding `current`, checked when it is used up.
    child: Option<(Child, usize)>,
}

enum Pending {
    Edges(PathBuf),
    Source(String),
    Geng(usize),
}

impl Inputs {
    /// The graphs of `sources` after those of the edge lists `edges`.
    pub fn new(sources: &[String], edges: &[PathBuf]) -> Inputs {
        let mut pending: Vec<Pending> = edges.iter().cloned().map(Pending::Edges).collect();
        pending.extend(sources.iter().cloned().map(Pending::Source));
        Inputs {
            pending: pending.into_iter(),
            current: Box::new(std::iter::empty()),
            child: None,
        }
    }

    /// Opens the next source; `Ok(false)` when there is none.
    fn open_next(&mut self) -> Result<bool> {
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
                    .map_err(|e| {
                        if e.kind() == io::ErrorKind::NotFound {
                            anyhow!(
                                "geng:{n}: {GENG} not found; install Debian's nauty package (apt-get install nauty)"
                            )
                        } else {
                            anyhow!("geng:{n}: starting {GENG}: {e}")
                        }
                    })?;
                let stdout = child.stdout.take().expect("piped");
                self.child = Some((child, n));
                Box::new(read_lines(format!("geng:{n}"), BufReader::new(stdout)))
            }
            Pending::Source(s) if s == "-" => {
                Box::new(read_lines("stdin".to_string(), BufReader::new(io::stdin())))
            }
            // Anything on disk is read as a file (what is none is named so).
            Pending::Source(s) if chomp3::base::input::is_there(Path::new(&s)) => {
                let f = chomp3::base::input::open(Path::new(&s), GRAPH_LINES)
                    .map_err(|e| anyhow!(e))?;
                Box::new(read_lines(s, BufReader::new(f)))
            }
            Pending::Source(s) if s.starts_with("geng:") => {
                let range = geng_range(&s)?;
                let rest: Vec<Pending> = range
                    .map(Pending::Geng)
                    .chain(std::mem::take(&mut self.pending))
                    .collect();
                self.pending = rest.into_iter();
                Box::new(std::iter::empty())
            }
            Pending::Source(s) if s.contains(':') => Box::new(
                family::expand(&s)?
                    .into_iter()
                    .map(|(l, g)| Ok((l, g, None))),
            ),
            Pending::Source(s) => {
                return Err(anyhow!(
                    "{s:?} is neither a file nor a family such as wheel:9 or geng:8"
                ));
            }
        };
        Ok(true)
    }

    /// After a `nauty-geng` run is read to the end: did it succeed?
    fn reap(&mut self) -> Result<()> {
        if let Some((mut child, n)) = self.child.take() {
            let status = child.wait()?;
            if !status.success() {
                return Err(anyhow!("geng:{n}: {GENG} failed ({status})"));
            }
        }
        Ok(())
    }
}

impl Iterator for Inputs {
    type Item = Result<Item>;

    fn next(&mut self) -> Option<Result<Item>> {
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

/// The vertex counts of `geng:N` or `geng:A..B` (nauty's geng takes 1 to 32).
fn geng_range(s: &str) -> Result<std::ops::RangeInclusive<usize>> {
    let arg = &s["geng:".len()..];
    let num = |a: &str| {
        a.trim()
            .parse::<usize>()
            .map_err(|_| anyhow!("{s:?}: give geng:N or geng:A..B with whole numbers"))
    };
    let (a, b) = match arg.split_once("..") {
        Some((a, b)) => (num(a)?, num(b)?),
        None => (num(arg)?, num(arg)?),
    };
    if a < 1 || b > 32 || a > b {
        return Err(anyhow!(
            "{s:?}: nauty's geng lists graphs on 1 to 32 vertices (a nonempty range)"
        ));
    }
    Ok(a..=b)
}
