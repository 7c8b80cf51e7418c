//! `chomp3 graph`: nim-values of graphs in graph Chomp, from named families,
//! graph6/sparse6 files (or standard input) and edge lists.

use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Result, bail};
use chomp3::graph::format::{parse_edge_list, parse_line};
use chomp3::graph::{Graph, Solver, family};

use super::args::QuietArg;
use super::progress::bar;

#[derive(clap::Args)]
pub struct Args {
    /// Graphs: a family such as wheel:9 (path, cycle, star, complete, bipartite,
    /// multipartite, wheel, fan, fan2, gmk), a file of graph6/sparse6 lines, or -
    /// for standard input (`nauty-geng 8 | chomp3 graph -`)
    #[arg(value_name = "GRAPHS")]
    sources: Vec<String>,
    /// An edge list, `u v` per line (vertices numbered from 0)
    #[arg(long, value_name = "FILE")]
    edges: Vec<PathBuf>,
    /// List every move, the value of the position it leaves, and mark the winning ones
    #[arg(long)]
    moves: bool,
    /// One tab-separated line per graph: source, vertices, edges, value
    #[arg(long)]
    tsv: bool,
    /// Instead of a line per graph, one line per number of vertices: graphs,
    /// P-positions, non-bipartite graphs, those with a value other than the parity
    /// value p(G), and the count of each value (TSV)
    #[arg(long, conflicts_with_all = ["moves", "tsv"])]
    summary: bool,
    /// Print (graph6) only the graphs with p(G) = 2 (even vertices, odd edges)
    /// that have no edge deletion to a position of value 0: the exceptions to
    /// [OS] Conjecture 8.5
    #[arg(long, conflicts_with_all = ["moves", "tsv", "summary"])]
    os85: bool,
    /// Memo file: read at the start if it exists, written (aside, then renamed)
    /// at the end, so that a long search continues instead of starting over
    #[arg(long, value_name = "FILE")]
    memo: Option<PathBuf>,
    /// Say on stderr how long it took and how many positions the memo holds
    #[arg(long)]
    stats: bool,
    #[command(flatten)]
    quiet: QuietArg,
}

pub fn run(args: &Args) -> Result<()> {
    if args.sources.is_empty() && args.edges.is_empty() {
        bail!(
            "no graphs given; name a family (wheel:9), a graph6 file, - for standard input, or --edges FILE"
        );
    }
    let started = std::time::Instant::now();
    let mut solver = match &args.memo {
        Some(path) if path.exists() => {
            let f = std::fs::File::open(path)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            Solver::load(&mut BufReader::new(f))
                .map_err(|e| anyhow::anyhow!("{}: {e}; delete it to start over", path.display()))?
        }
        _ => Solver::new(),
    };
    let loaded = solver.memo_len();
    // The memo is saved even when a later line is malformed: nothing is lost.
    let result = solve_all(args, &mut solver);
    finish(args, &solver, loaded, started)?;
    result
}

/// Prints every graph's value (and moves) in order; stops at the first bad one.
fn solve_all(args: &Args, solver: &mut Solver) -> Result<()> {
    let mut out = BufWriter::new(io::stdout().lock());
    if args.tsv {
        writeln!(out, "source\tvertices\tedges\tvalue")?;
    }
    let bar = bar(args.quiet.quiet, "{spinner} {pos} graphs  {msg}");
    let mut tally = Tally::default();
    let mut show = |label: &str, g: &Graph, out: &mut BufWriter<io::StdoutLock>| -> Result<()> {
        let value = solver.value(g);
        bar.inc(1);
        if args.summary {
            tally.add(g, value);
            return Ok(());
        }
        if args.os85 {
            let mut edge_to_zero = || {
                solver
                    .moves(g)
                    .iter()
                    .any(|(m, v)| matches!(m, chomp3::graph::Move::Edge(..)) && *v == 0)
            };
            if g.parity_value() == 2 && !edge_to_zero() {
                writeln!(
                    out,
                    "{}\t{label}\tg = {value}",
                    chomp3::graph::format::to_graph6(g)
                )?;
            }
            return Ok(());
        }
        if args.tsv {
            writeln!(out, "{label}\t{}\t{}\t{value}", g.vertices(), g.edges())?;
        } else {
            writeln!(
                out,
                "{label}: g = {value} ({} vertices, {} edges)",
                g.vertices(),
                g.edges()
            )?;
        }
        if args.moves {
            for (m, v) in solver.moves(g) {
                let mark = if v == 0 { "  (winning)" } else { "" };
                writeln!(out, "  {m} -> {v}{mark}")?;
            }
        }
        Ok(())
    };
    for path in &args.edges {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let m = parse_edge_list(&text)
            .map_err(|(line, e)| anyhow::anyhow!("{}:{line}: {e}", path.display()))?;
        show(
            &path.display().to_string(),
            &Graph::from_multigraph(&m),
            &mut out,
        )?;
    }
    for source in &args.sources {
        if source == "-" || std::path::Path::new(source).is_file() {
            let (name, reader): (&str, Box<dyn BufRead>) = if source == "-" {
                ("stdin", Box::new(BufReader::new(io::stdin().lock())))
            } else {
                let f =
                    std::fs::File::open(source).map_err(|e| anyhow::anyhow!("{source}: {e}"))?;
                (source, Box::new(BufReader::new(f)))
            };
            for (i, line) in reader.lines().enumerate() {
                let line = line?;
                if line.trim().is_empty() {
                    continue;
                }
                let m = parse_line(line.trim())
                    .map_err(|e| anyhow::anyhow!("{name}:{}: {e}", i + 1))?;
                show(line.trim(), &Graph::from_multigraph(&m), &mut out)?;
            }
        } else if source.contains(':') {
            let g = family::build(source).map_err(anyhow::Error::msg)?;
            show(source, &g, &mut out)?;
        } else {
            bail!("{source:?} is neither a file nor a family such as wheel:9");
        }
    }
    bar.finish_and_clear();
    if args.summary {
        tally.write(&mut out)?;
    }
    out.flush()?;
    Ok(())
}

/// Counts by number of vertices, for `--summary`.
#[derive(Default)]
struct Tally {
    /// Per number of vertices: graphs, non-bipartite, non-bipartite with
    /// `g != p(G)`, and the count of each value.
    by_n: std::collections::BTreeMap<usize, (u64, u64, u64, std::collections::BTreeMap<u32, u64>)>,
}

impl Tally {
    fn add(&mut self, g: &Graph, value: u32) {
        let e = self.by_n.entry(g.vertices()).or_default();
        e.0 += 1;
        if !g.is_bipartite() {
            e.1 += 1;
            e.2 += (value != g.parity_value()) as u64;
        }
        *e.3.entry(value).or_default() += 1;
    }

    fn write(&self, out: &mut impl Write) -> io::Result<()> {
        writeln!(
            out,
            "vertices\tgraphs\tP-positions\tnon-bipartite\tnon-bipartite with g != p(G)\tvalue:count"
        )?;
        for (n, (graphs, nonbip, differ, values)) in &self.by_n {
            let p = values.get(&0).copied().unwrap_or(0);
            let counts: Vec<String> = values.iter().map(|(v, c)| format!("{v}:{c}")).collect();
            writeln!(
                out,
                "{n}\t{graphs}\t{p}\t{nonbip}\t{differ}\t{}",
                counts.join(",")
            )?;
        }
        Ok(())
    }
}

/// Saves the memo if asked and reports the figures if asked.
fn finish(args: &Args, solver: &Solver, loaded: usize, started: std::time::Instant) -> Result<()> {
    if let Some(path) = &args.memo {
        chomp3::census_file::write_atomically(path, |w| solver.save(w))
            .map_err(|e| anyhow::anyhow!("{}: writing the memo: {e}", path.display()))?;
    }
    if args.stats {
        eprintln!(
            "chomp3: {:.2} s, memo {} connected positions ({} loaded), peak RSS {} MiB",
            started.elapsed().as_secs_f64(),
            solver.memo_len(),
            loaded,
            super::progress::peak_rss_kib().unwrap_or(0) / 1024
        );
    }
    Ok(())
}
