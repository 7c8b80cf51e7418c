//! The `chomp3 graph --summary` table: per number of vertices, how many graphs,
//! P-positions, non-bipartite graphs, those of them whose value is not the parity
//! value `p(G)`, and the count of each value. One writer and one reader, so a
//! figure or a notebook reads exactly what the command wrote; and the b-file
//! of the P-positions per number of vertices drawn from it. Uses `Graph` and
//! `base::lines`.

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::Graph;
use crate::base::lines::{BadLine, data_lines};

/// The header line of a summary table.
pub const HEADER: &str =
    "vertices\tgraphs\tP-positions\tnon-bipartite\tnon-bipartite with g != p(G)\tvalue:count";

/// The counts of the graphs on one number of vertices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Graphs counted.
    pub graphs: u64,
    /// Those that are not bipartite.
    pub non_bipartite: u64,
    /// Non-bipartite graphs whose value is not `p(G)`.
    pub differ: u64,
    /// Graphs of each value.
    pub values: BTreeMap<u32, u64>,
}

impl Counts {
    /// Graphs of value 0 (P-positions).
    pub fn p_positions(&self) -> u64 {
        self.values.get(&0).copied().unwrap_or(0)
    }
}

/// Counts by number of vertices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Number of vertices to its counts, ascending.
    pub by_n: BTreeMap<usize, Counts>,
}

impl Summary {
    /// Counts `g`, of nim-value `value`.
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

    /// Writes the table: [`HEADER`], then a line per number of vertices.
    pub fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{HEADER}")?;
        for (n, c) in &self.by_n {
            let counts: Vec<String> = c.values.iter().map(|(v, k)| format!("{v}:{k}")).collect();
            writeln!(
                out,
                "{n}\t{}\t{}\t{}\t{}\t{}",
                c.graphs,
                c.p_positions(),
                c.non_bipartite,
                c.differ,
                counts.join(",")
            )?;
        }
        Ok(())
    }

    /// The P-positions per number of vertices as an OEIS b-file (`n count`),
    /// after comment lines that say what it counts and the command
    /// `command` that made it (every graph on each `n`, from `nauty-geng`).
    pub(crate) fn write_bfile(&self, out: &mut dyn Write, command: &str) -> io::Result<()> {
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
            writeln!(out, "{n} {}", c.p_positions())?;
        }
        Ok(())
    }

    /// Reads a table written by [`Summary::write`], skipping blank lines,
    /// comment lines (`#`, as in a file written with `--out`) and the header
    /// (any line starting `vertices`).
    /// Every column is read and checked against the others.
    pub fn read(text: &str) -> Result<Summary, BadLine> {
        let mut summary = Summary::default();
        for (i, cols) in data_lines(text, "vertices") {
            let bad = || BadLine {
                line: i,
                what: "a graph summary table",
            };
            let [n, graphs, p, non_bipartite, differ, values] = cols[..] else {
                return Err(bad());
            };
            let num = |s: &str| s.parse::<u64>().map_err(|_| bad());
            let values = values
                .split(',')
                .map(|vc| {
                    let (v, c) = vc.split_once(':')?;
                    Some((v.parse().ok()?, c.parse().ok()?))
                })
                .collect::<Option<BTreeMap<u32, u64>>>()
                .ok_or_else(bad)?;
            let c = Counts {
                graphs: num(graphs)?,
                non_bipartite: num(non_bipartite)?,
                differ: num(differ)?,
                values,
            };
            let consistent = c.p_positions() == num(p)?
                && c.values.values().sum::<u64>() == c.graphs
                && c.differ <= c.non_bipartite
                && c.non_bipartite <= c.graphs;
            let n = n.parse().map_err(|_| bad())?;
            if !consistent || summary.by_n.insert(n, c).is_some() {
                return Err(bad());
            }
        }
        Ok(summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::family;

    #[test]
    fn a_summary_reads_back_as_written() {
        let mut s = Summary::default();
        for name in ["wheel:3..7", "complete:1..5", "path:1..6", "cycle:3..7"] {
            for (_, g) in family::expand(name).unwrap() {
                let value = crate::graph::Solver::new().value(&g);
                s.add(&g, value);
            }
        }
        let mut text = b"# chomp3 graph ... --summary\n".to_vec();
        s.write(&mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let again = Summary::read(&text).unwrap();
        assert_eq!(again, s);
        assert_eq!(again.graphs(), 5 + 5 + 6 + 5);
        // The values of C_3 = K_3 and the paths differ from their parity.
        assert!(again.by_n.values().any(|c| c.differ > 0));
    }

    #[test]
    fn a_line_that_does_not_add_up_is_refused_with_its_number() {
        let good = format!("{HEADER}\n3\t2\t1\t1\t0\t0:1,2:1\n");
        assert!(Summary::read(&good).is_ok());
        for bad in [
            "3\t2\t1\t1\t0\t0:1,2:2", // values sum to 3, not 2 graphs
            "3\t2\t0\t1\t0\t0:1,2:1", // P-positions not the count of value 0
            "3\t2\t1\t1\t0",          // a column missing
            "3\t2\t1\t1\t0\t0:1;2:1", // not value:count
            "x\t2\t1\t1\t0\t0:1,2:1", // not a number
            "3\t2\t1\t1\t2\t0:1,2:1", // more differing than non-bipartite
        ] {
            let text = format!("{HEADER}\n\n{bad}\n");
            let e = Summary::read(&text).unwrap_err();
            assert_eq!(e.line, 3, "{bad}");
            assert!(e.to_string().starts_with("line 3: "), "{e}");
        }
        let twice = format!("{good}3\t2\t1\t1\t0\t0:1,2:1\n");
        assert_eq!(Summary::read(&twice).unwrap_err().line, 3);
    }
}
