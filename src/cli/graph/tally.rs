//! Counts by number of vertices, for `--summary`, `--bfile` and `--os85`.

use std::collections::BTreeMap;
use std::io::{self, Write};

use chomp3::graph::Graph;

/// Per number of vertices: graphs, non-bipartite graphs, those of them with
/// `g != p(G)`, and the count of each value; and the `--os85` counts.
#[derive(Default)]
pub struct Tally {
    by_n: BTreeMap<usize, Counts>,
    /// Graphs with `p(G) = 2` seen by `--os85`.
    pub parity_two: u64,
    /// Those without an edge deletion to value 0.
    pub os85_exceptions: u64,
}

#[derive(Default)]
struct Counts {
    graphs: u64,
    non_bipartite: u64,
    differ: u64,
    values: BTreeMap<u32, u64>,
}

impl Tally {
    /// Counts `g` of value `value`.
    pub fn add(&mut self, g: &Graph, value: u32) {
        let c = self.by_n.entry(g.vertices()).or_default();
        c.graphs += 1;
        if !g.is_bipartite() {
            c.non_bipartite += 1;
            c.differ += (value != g.parity_value()) as u64;
        }
        *c.values.entry(value).or_default() += 1;
    }

    /// Graphs counted.
    pub fn graphs(&self) -> u64 {
        self.by_n.values().map(|c| c.graphs).sum()
    }

    /// The `--summary` table.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(
            out,
            "vertices\tgraphs\tP-positions\tnon-bipartite\tnon-bipartite with g != p(G)\tvalue:count"
        )?;
        for (n, c) in &self.by_n {
            let p = c.values.get(&0).copied().unwrap_or(0);
            let counts: Vec<String> = c.values.iter().map(|(v, k)| format!("{v}:{k}")).collect();
            writeln!(
                out,
                "{n}\t{}\t{p}\t{}\t{}\t{}",
                c.graphs,
                c.non_bipartite,
                c.differ,
                counts.join(",")
            )?;
        }
        Ok(())
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
        for (n, c) in &self.by_n {
            writeln!(out, "{n} {}", c.values.get(&0).copied().unwrap_or(0))?;
        }
        Ok(())
    }
}
