//! The check of [OS Conj. 8.5] (doc/graphs.md): a graph with parity
//! value `p(G) = 2` (an even number of vertices, an odd number of edges) has
//! an edge whose deletion leaves a position of value 0. Owns the rule, its
//! counts and their lines (FORMAT.md: an exception as `graph6, label,
//! g = v`, a closing count line). Uses `Graph`, `Move` and `format`.

use std::io::{self, Write};

use super::format;
use super::{Graph, Move};

/// The counts of a check: graphs seen, those with `p(G) = 2`, and those of
/// them without an edge deletion to value 0 (the exceptions).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Graphs checked.
    pub graphs: u64,
    /// Those with `p(G) = 2`.
    pub parity_two: u64,
    /// Those without an edge deletion to a position of value 0.
    pub exceptions: u64,
}

/// An exception found: the graph (graph6, canonical for subgraphs), its
/// label and its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exception {
    /// The graph in graph6.
    pub graph6: String,
    /// Its label (its source's, or its graph6 for a subgraph).
    pub label: String,
    /// Its nim-value.
    pub value: u32,
}

/// Whether `g`, whose moves and their options' values are `moves`, is an
/// exception to the conjecture: `p(G) = 2` and no edge deletion reaches 0.
pub(crate) fn is_exception(g: &Graph, moves: &[(Move, u32)]) -> bool {
    g.parity_value() == 2
        && !moves
            .iter()
            .any(|(m, v)| matches!(m, Move::Edge(..)) && *v == 0)
}

impl Counts {
    /// Counts `g` (with its `moves`); writes its line and gives it if it is
    /// an exception.
    pub fn add(
        &mut self,
        g: &Graph,
        label: &str,
        value: u32,
        moves: &[(Move, u32)],
        out: &mut dyn Write,
    ) -> io::Result<Option<Exception>> {
        self.graphs += 1;
        if g.parity_value() != 2 {
            return Ok(None);
        }
        self.parity_two += 1;
        if !is_exception(g, moves) {
            return Ok(None);
        }
        self.exceptions += 1;
        let graph6 = format::label(g);
        writeln!(out, "{graph6}\t{label}\tg = {value}")?;
        Ok(Some(Exception {
            graph6,
            label: label.to_string(),
            value,
        }))
    }

    /// The counts since `before` (of one graph's subgraphs).
    pub fn since(self, before: Counts) -> Counts {
        Counts {
            graphs: self.graphs - before.graphs,
            parity_two: self.parity_two - before.parity_two,
            exceptions: self.exceptions - before.exceptions,
        }
    }

    /// The closing line of a run.
    pub(crate) fn write_total(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "# {} graphs checked, {} with p(G) = 2, {} without an edge deletion to 0",
            self.graphs, self.parity_two, self.exceptions
        )
    }

    /// The line after the subgraphs of the graph `label`.
    pub(crate) fn write_subgraphs(&self, label: &str, out: &mut dyn Write) -> io::Result<()> {
        writeln!(
            out,
            "# {label}: {} subgraphs, {} with p(G) = 2, {} without an edge deletion to 0",
            self.graphs, self.parity_two, self.exceptions
        )
    }
}
