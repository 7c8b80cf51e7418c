//! What a graph run writes (FORMAT.md, doc/cli.md): a line per graph
//! (`label: g = v (n vertices, e edges)`, with its moves below), a TSV row
//! per graph or per move (with the cost of a solve from an empty memo), or
//! only the counts at the end: the summary table per number of vertices, or
//! the [OS Conj. 8.5] check's exceptions and counts. Owns these formats and the
//! counts a run keeps; uses `summary`, `os85` and `Graph`.

use std::io::{self, Write};

use super::os85;
use super::summary::Summary;
use super::{Graph, Move, Multigraph};

/// What is written per graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// `label: g = v (...)`; with `moves`, a line per move below it.
    Lines {
        /// Every move with its option's value, the winning ones marked.
        moves: bool,
    },
    /// Tab-separated, a header first: a line per graph, or per move.
    Tsv {
        /// A line per move (its option's value in the last column).
        moves: bool,
        /// Each graph solved from an empty memo, with the memo's positions,
        /// seconds and the process's peak RSS after it (not with `moves`).
        cost: bool,
    },
    /// Only the counts per number of vertices, at the end ([`Summary`]).
    Summary,
    /// Only the exceptions to [OS Conj. 8.5], and the counts.
    Os85,
}

impl Output {
    /// Whether each graph's moves are solved too.
    pub(crate) fn wants_moves(self) -> bool {
        matches!(
            self,
            Output::Os85 | Output::Lines { moves: true } | Output::Tsv { moves: true, .. }
        )
    }

    /// Whether each graph is solved alone from an empty memo.
    pub fn cost(self) -> bool {
        matches!(self, Output::Tsv { cost: true, .. })
    }

    /// The header of the TSV output (nothing for the others).
    pub(crate) fn write_header(self, out: &mut dyn Write) -> io::Result<()> {
        if let Output::Tsv { moves, cost } = self {
            let cost = if cost {
                "\tmemo\tseconds\tpeak_rss_mib"
            } else {
                ""
            };
            let moves = if moves { "\tmove\toption_value" } else { "" };
            writeln!(out, "source\tvertices\tedges\tvalue{moves}{cost}")?;
        }
        Ok(())
    }
}

/// The cost of solving one graph from an empty memo.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cost {
    /// Positions in the memo after the solve.
    pub memo: usize,
    /// Seconds the solve took.
    pub seconds: f64,
    /// The process's peak resident memory so far, MiB.
    pub peak_rss_mib: u64,
}

/// What is known of one graph once solved.
#[derive(Clone, Debug)]
pub struct Solved {
    /// What it is printed as.
    pub label: String,
    /// The graph solved.
    pub graph: Graph,
    /// The multigraph as given, when the graph is its reduction.
    pub given: Option<Multigraph>,
    /// Its nim-value.
    pub value: u32,
    /// Every move and its option's value, when they are written or checked.
    pub moves: Option<Vec<(Move, u32)>>,
    /// Its cost, when asked for.
    pub cost: Option<Cost>,
}

/// The counts a run keeps: the summary per number of vertices and the
/// [OS Conj. 8.5] check's.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Graphs by number of vertices (with [`Output::Summary`]).
    pub summary: Summary,
    /// The [OS Conj. 8.5] counts (with [`Output::Os85`]).
    pub os85: os85::Counts,
    /// The exceptions to [OS Conj. 8.5] found, in order.
    pub exceptions: Vec<os85::Exception>,
}

impl Output {
    /// Writes (or counts) one solved graph.
    pub(crate) fn write_one(
        self,
        tally: &mut Tally,
        s: &Solved,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let (g, value) = (&s.graph, s.value);
        // Counts as given; a reduced multigraph says so in the line output.
        let (n, e) = match &s.given {
            Some(m) => (m.n, m.edges.len()),
            None => (g.vertices(), g.edges()),
        };
        match self {
            Output::Summary => tally.summary.add(g, value),
            Output::Os85 => {
                let moves = s.moves.as_deref().unwrap_or_default();
                let found = tally.os85.add(g, &s.label, value, moves, out)?;
                tally.exceptions.extend(found);
            }
            Output::Tsv { moves: true, .. } => {
                for (m, v) in s.moves.iter().flatten() {
                    writeln!(out, "{}\t{n}\t{e}\t{value}\t{m}\t{v}", s.label)?;
                }
            }
            Output::Tsv { moves: false, .. } => {
                write!(out, "{}\t{n}\t{e}\t{value}", s.label)?;
                if let Some(c) = s.cost {
                    write!(out, "\t{}\t{:.6}\t{}", c.memo, c.seconds, c.peak_rss_mib)?;
                }
                writeln!(out)?;
            }
            Output::Lines { .. } => {
                let reduced = match &s.given {
                    Some(_) => format!(
                        "; {} after pairs of parallel edges and of loops are dropped, the same value",
                        g.edges()
                    ),
                    None => String::new(),
                };
                let (vertices, edges) = (
                    if n == 1 { "vertex" } else { "vertices" },
                    if e == 1 { "edge" } else { "edges" },
                );
                writeln!(
                    out,
                    "{}: g = {value} ({n} {vertices}, {e} {edges}{reduced})",
                    s.label
                )?;
                for (m, v) in s.moves.iter().flatten() {
                    let mark = if *v == 0 { "  (winning)" } else { "" };
                    writeln!(out, "  {m} -> {v}{mark}")?;
                }
            }
        }
        Ok(())
    }

    /// What follows the last graph: the summary table, or the check's counts.
    pub(crate) fn write_end(self, tally: &Tally, out: &mut dyn Write) -> io::Result<()> {
        match self {
            Output::Summary => tally.summary.write(out),
            Output::Os85 => tally.os85.write_total(out),
            _ => Ok(()),
        }
    }
}
