//! Counts by number of vertices, for `--summary`, `--bfile` and `--os85`.

use std::io::{self, Write};

use chomp3::graph::Graph;
use chomp3::graph::summary::Summary;

/// The `--summary` counts (see `graph::summary`) and the `--os85` counts.
#[derive(Default)]
pub struct Tally {
    /// Graphs by number of vertices.
    pub summary: Summary,
    /// Graphs with `p(G) = 2` seen by `--os85`.
    pub parity_two: u64,
    /// Those without an edge deletion to value 0.
    pub os85_exceptions: u64,
}

impl Tally {
    /// Counts `g` of value `value`.
    pub fn add(&mut self, g: &Graph, value: u32) {
        self.summary.add(g, value);
    }

    /// Graphs counted.
    pub fn graphs(&self) -> u64 {
        self.summary.graphs()
    }
    /// The P-positions per number of vertices as an OEIS b-file (`n count`),
    /// after comment lines that say what it counts and the command.
    pub fn write_bfile(&self, out: &mut impl Write, command: &str) -> io::Result<()> {
        writeln!(
            out,
            "# Number of graphs on n unlabeled vertices that are P-positions (nim-value 0)"
        )?;
        writeln!(
            out,
            "# of graph Chomp (delete a vertex with its edges, or an edge; last to move wins)."
        )?;
        writeln!(
            out,
            "# Exact: every graph from nauty-geng, each solved by chomp3."
        )?;
        writeln!(out, "# {command}")?;
        for (n, c) in &self.summary.by_n {
            writeln!(out, "{n} {}", c.p_positions())?;
        }
        Ok(())
    }
}
