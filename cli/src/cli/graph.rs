//! `chomp3 graph`: nim-values of graphs in graph Chomp, from named families,
//! graph6/sparse6 files (or standard input), nauty's generator and edge lists.

use std::io::{self, BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Result, anyhow, bail};
use chomp3::base::path_message::NamesPath;
use chomp3::graph::format::{parse_edge_list, parse_line, to_graph6};
use chomp3::graph::{self, Graph, Move, Multigraph, Solver, family, subgraphs_or_stop};
use chomp3::outputs::{self, Kind};

use super::Interrupted;
use super::args::{QuietArg, ThreadsArg};
use super::progress::{bar, peak_rss_kib};

mod inputs;
mod tally;

use inputs::{Inputs, Item};
use tally::Tally;

/// The long help of the graph sources, with every family.
fn sources_help() -> String {
    format!(
        "Graphs: a family such as wheel:9 or wheel:3..16 ({}; any number may be a range a..b); \
         geng:N or geng:A..B, every graph on N vertices from nauty's `nauty-geng`; a file of \
         graph6/sparse6 lines; or - for standard input",
        family::names()
    )
}

/// Graphs read and solved together (in parallel) before their lines are written.
const CHUNK: usize = 4096;

#[derive(clap::Args)]
pub struct Args {
    /// Graphs: a family, geng:N, a graph6/sparse6 file, or - (see --help)
    #[arg(value_name = "GRAPHS", long_help = sources_help())]
    sources: Vec<String>,
    /// An edge list, `u v` per line (vertices numbered from 0)
    #[arg(long, value_name = "FILE")]
    edges: Vec<PathBuf>,
    /// Replace each graph by all its subgraphs up to isomorphism (every position
    /// a game from it can reach, itself included), each once, labelled by graph6
    #[arg(long)]
    subgraphs: bool,
    /// List every move, the value of the position it leaves, and mark the
    /// winning ones (with --tsv: one line per move)
    #[arg(long)]
    moves: bool,
    /// Tab-separated: one line per graph (source, vertices, edges, value)
    #[arg(long)]
    tsv: bool,
    /// Instead of a line per graph, one line per number of vertices: graphs,
    /// P-positions, non-bipartite graphs, those with a value other than the parity
    /// value p(G), and the count of each value (TSV)
    #[arg(long, conflicts_with_all = ["moves", "tsv"])]
    summary: bool,
    /// Print (graph6) only the graphs with p(G) = 2 (even vertices, odd edges)
    /// that have no edge deletion to a position of value 0: the exceptions to
    /// [OS] Conjecture 8.5; a last line counts the graphs checked
    #[arg(long, conflicts_with_all = ["moves", "tsv", "summary"])]
    os85: bool,
    /// With --tsv: solve each graph from an empty memo and add its cost (memo
    /// positions, seconds, peak RSS of the process so far); timings vary from
    /// run to run
    #[arg(long, requires = "tsv", conflicts_with_all = ["moves", "memo", "subgraphs"])]
    cost: bool,
    /// Write the output to FILE (aside, then renamed), after a first line that
    /// gives the command; the same command writes the same bytes (not with --cost)
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// With --summary and only geng sources: write the number of P-positions
    /// among all graphs on n vertices as an OEIS b-file
    #[arg(long, value_name = "FILE", requires = "summary")]
    bfile: Option<PathBuf>,
    /// Memo file: read at the start if it exists, written (aside, then renamed)
    /// at the end, so that a long search continues instead of starting over
    #[arg(long, value_name = "FILE")]
    memo: Option<PathBuf>,
    /// Say on stderr how long it took and how many positions the memo holds
    #[arg(long)]
    stats: bool,
    #[command(flatten)]
    threads: ThreadsArg,
    #[command(flatten)]
    quiet: QuietArg,
}

pub fn run(args: &Args) -> Result<()> {
    if args.sources.is_empty() && args.edges.is_empty() {
        bail!(
            "no graphs given; name a family (wheel:9), geng:N, a graph6 file, - for standard input, or --edges FILE"
        );
    }
    if args.bfile.is_some() && !args.sources.iter().all(|s| s.starts_with("geng:")) {
        bail!("--bfile counts all graphs on each n: give the graphs as geng:N or geng:A..B only");
    }
    // Check every family name before any work, so a typo costs nothing.
    for s in &args.sources {
        if s.contains(':')
            && !s.starts_with("geng:")
            && !chomp3::base::input::is_there(Path::new(s))
        {
            family::expand(s)?;
        }
    }
    let named = [
        (&args.out, Kind::GraphResult, "--out"),
        (&args.memo, Kind::GraphMemo, "--memo"),
        (&args.bfile, Kind::GraphBFile, "--bfile"),
    ];
    let plan: Vec<outputs::Output> = named
        .into_iter()
        .filter_map(|(path, kind, option)| Some(outputs::Output::new(path.as_ref()?, kind, option)))
        .collect();
    outputs::check(&plan)?;
    let _held = outputs::lock(&plan)?;
    let started = Instant::now();
    let solver = match &args.memo {
        Some(path) if chomp3::base::input::is_there(path) => {
            Solver::open(path).map_err(|e| anyhow!("{}", e.with_path(path)))?
        }
        _ => Solver::new(),
    }
    .stop_on(super::ctrl_c());
    let loaded = solver.memo_len();
    let pool = args.threads.pool()?;
    let mut tally = Tally::default();
    let result = pool.install(|| match &args.out {
        Some(path) => {
            let mut outcome = Ok(());
            let written = chomp3::base::atomic_write::write_atomically(path, |w| {
                writeln!(w, "# {}", super::args::command_line())?;
                outcome = solve_all(args, &solver, &mut tally, w);
                // A failed batch leaves no file behind (and the old one intact).
                outcome
                    .as_ref()
                    .map_err(|e| io::Error::other(e.to_string()))
                    .copied()
            });
            match (outcome, written) {
                (Err(e), _) => Err(e),
                (Ok(()), Err(e)) => Err(anyhow!("{}: {e}", path.display())),
                (Ok(()), Ok(())) => Ok(()),
            }
        }
        None => solve_all(args, &solver, &mut tally, &mut io::stdout().lock()),
    });
    // The memo is saved even when a later line is malformed or the run is
    // stopped by Ctrl-C: nothing is lost.
    finish(args, &solver, loaded, started)?;
    if let Err(e) = result {
        if e.downcast_ref::<Interrupted>().is_some() {
            let kept = match &args.memo {
                Some(p) => format!(
                    "; the memo ({} positions) is saved in {}: the same command continues from it",
                    solver.memo_len(),
                    p.display()
                ),
                None => "; give --memo FILE to keep the positions solved so far".into(),
            };
            let out = match &args.out {
                Some(p) => format!(", {} not written", p.display()),
                None => String::new(),
            };
            return Err(Interrupted(format!("interrupted{out}{kept}")).into());
        }
        return Err(e);
    }
    if let Some(path) = &args.bfile {
        chomp3::base::atomic_write::write_atomically(path, |w| {
            tally.write_bfile(w, &super::args::command_line())
        })
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &args.out {
        eprintln!("chomp3: wrote {}", path.display());
    }
    Ok(())
}

/// What the command writes per graph, from its flags (clap keeps them apart).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Output {
    /// `name: g = v (...)`, with `--moves` a line per move.
    Lines { moves: bool },
    /// `--tsv`: a line per graph, or per move with `--moves`; `--cost` adds
    /// memo, seconds and peak RSS.
    Tsv { moves: bool, cost: bool },
    /// `--summary`: only the counts per number of vertices, at the end.
    Summary,
    /// `--os85`: only the exceptions to [OS] Conjecture 8.5, and the counts.
    Os85,
}

impl Output {
    fn of(args: &Args) -> Output {
        match (args.summary, args.os85, args.tsv) {
            (true, _, _) => Output::Summary,
            (_, true, _) => Output::Os85,
            (_, _, true) => Output::Tsv {
                moves: args.moves,
                cost: args.cost,
            },
            _ => Output::Lines { moves: args.moves },
        }
    }

    /// Whether each graph's moves are solved too.
    fn wants_moves(self) -> bool {
        matches!(
            self,
            Output::Os85 | Output::Lines { moves: true } | Output::Tsv { moves: true, .. }
        )
    }
}

/// What is known of one graph once solved.
struct Solved {
    label: String,
    graph: Graph,
    /// The multigraph as given, when the graph is its reduction.
    given: Option<Multigraph>,
    value: u32,
    /// Every move and its option's value, when they are printed or checked.
    moves: Option<Vec<(Move, u32)>>,
    /// `--cost`: memo positions, seconds, and the process's peak RSS in MiB
    /// right after a solve from an empty memo.
    cost: Option<(usize, f64, u64)>,
}

/// Solves every graph in order, CHUNK at a time, and writes what was asked;
/// at a malformed line, writes what came before it and stops with its error.
fn solve_all(args: &Args, solver: &Solver, tally: &mut Tally, out: &mut dyn Write) -> Result<()> {
    let mut out: BufWriter<&mut dyn Write> = BufWriter::new(out);
    let output = Output::of(args);
    if let Output::Tsv { moves, cost } = output {
        let cost = if cost {
            "\tmemo\tseconds\tpeak_rss_mib"
        } else {
            ""
        };
        let moves = if moves { "\tmove\toption_value" } else { "" };
        writeln!(out, "source\tvertices\tedges\tvalue{moves}{cost}")?;
    }
    let bar = bar(args.quiet.quiet, "{spinner} {pos} graphs  {elapsed}");
    let mut items = Inputs::new(&args.sources, &args.edges);
    let solve =
        |batch: Vec<Item>, tally: &mut Tally, out: &mut BufWriter<&mut dyn Write>| -> Result<()> {
            for s in solve_chunk(args, solver, batch)? {
                bar.inc(1);
                write_one(args, tally, &s, out)?;
            }
            Ok(())
        };
    // Graphs read: an empty input is said, not answered with nothing.
    let mut read = 0usize;
    loop {
        let mut chunk = Vec::with_capacity(CHUNK);
        let mut error = None;
        while chunk.len() < CHUNK {
            match items.next() {
                None => break,
                Some(Err(e)) => {
                    error = Some(e);
                    break;
                }
                Some(Ok(item)) => chunk.push(item),
            }
        }
        let done = chunk.len() < CHUNK;
        read += chunk.len();
        if args.subgraphs {
            for (label, g, _) in chunk {
                each_subgraph(args, &label, &g, tally, &mut out, &solve)?;
            }
        } else {
            solve(chunk, tally, &mut out)?;
        }
        if let Some(e) = error {
            out.flush()?;
            return Err(e);
        }
        if done {
            break;
        }
    }
    bar.finish_and_clear();
    if read == 0 {
        bail!(
            "no graphs read: the input given ({}) holds none",
            args.sources.join(" ")
        );
    }
    if output == Output::Summary {
        tally.summary.write(&mut out)?;
    }
    if output == Output::Os85 {
        writeln!(
            out,
            "# {} graphs checked, {} with p(G) = 2, {} without an edge deletion to 0",
            tally.graphs(),
            tally.parity_two,
            tally.os85_exceptions
        )?;
    }
    out.flush()?;
    Ok(())
}

/// Solves a batch of graphs and writes (or counts) them.
type SolveBatch<'a> =
    dyn Fn(Vec<Item>, &mut Tally, &mut BufWriter<&mut dyn Write>) -> Result<()> + 'a;

/// `--subgraphs`: solves every subgraph of `g`, CHUNK at a time, then (with
/// `--os85`) writes its counts.
fn each_subgraph(
    args: &Args,
    label: &str,
    g: &Graph,
    tally: &mut Tally,
    out: &mut BufWriter<&mut dyn Write>,
    solve: &SolveBatch,
) -> Result<()> {
    let before = (tally.graphs(), tally.parity_two, tally.os85_exceptions);
    let all: Vec<Item> = subgraphs_or_stop(g, &super::ctrl_c())
        .ok_or_else(stopped)?
        .into_iter()
        .map(|h| (to_graph6(&h), h, None))
        .collect();
    let mut all = all.into_iter().peekable();
    while all.peek().is_some() {
        solve(all.by_ref().take(CHUNK).collect(), tally, out)?;
    }
    if Output::of(args) == Output::Os85 {
        writeln!(
            out,
            "# {label}: {} subgraphs, {} with p(G) = 2, {} without an edge deletion to 0",
            tally.graphs() - before.0,
            tally.parity_two - before.1,
            tally.os85_exceptions - before.2
        )?;
    }
    Ok(())
}

/// Solves one chunk: in parallel with one shared memo, or, for `--cost`, one
/// graph at a time from an empty memo.
fn solve_chunk(args: &Args, solver: &Solver, chunk: Vec<Item>) -> Result<Vec<Solved>> {
    let want_moves = Output::of(args).wants_moves();
    if let Output::Tsv { cost: true, .. } = Output::of(args) {
        return chunk
            .into_iter()
            .map(|(label, graph, given)| {
                let solver = Solver::new().stop_on(super::ctrl_c());
                let t = Instant::now();
                let value = solver.try_value(&graph).ok_or_else(stopped)?;
                let secs = t.elapsed().as_secs_f64();
                let rss = peak_rss_kib().unwrap_or(0) / 1024;
                let cost = Some((solver.memo_len(), secs, rss));
                Ok(Solved {
                    label,
                    graph,
                    given,
                    value,
                    moves: None,
                    cost,
                })
            })
            .collect();
    }
    let batch: Vec<_> = chunk.iter().map(|(_, g, m)| (g, m.as_ref())).collect();
    let results = solver.try_batch(&batch, want_moves).ok_or_else(stopped)?;
    Ok(chunk
        .into_iter()
        .zip(results)
        .map(
            |((label, graph, given), graph::Solved { value, moves })| Solved {
                label,
                graph,
                given,
                value,
                moves,
                cost: None,
            },
        )
        .collect())
}

/// The error of a run stopped by Ctrl-C (`run` words it in full).
fn stopped() -> anyhow::Error {
    Interrupted("interrupted".into()).into()
}

/// Writes (or counts) one solved graph as the options ask.
fn write_one(args: &Args, tally: &mut Tally, s: &Solved, out: &mut impl Write) -> Result<()> {
    let (g, value) = (&s.graph, s.value);
    // Counts as given; a reduced multigraph says so in the line output.
    let (n, e) = match &s.given {
        Some(m) => (m.n, m.edges.len()),
        None => (g.vertices(), g.edges()),
    };
    match Output::of(args) {
        Output::Summary => tally.add(g, value),
        Output::Os85 => {
            tally.add(g, value);
            if g.parity_value() == 2 {
                tally.parity_two += 1;
                let moves = s.moves.as_deref().unwrap_or_default();
                let edge_to_zero = moves
                    .iter()
                    .any(|(m, v)| matches!(m, Move::Edge(..)) && *v == 0);
                if !edge_to_zero {
                    tally.os85_exceptions += 1;
                    writeln!(out, "{}\t{}\tg = {value}", to_graph6(g), s.label)?;
                }
            }
        }
        Output::Tsv { moves: true, .. } => {
            for (m, v) in s.moves.iter().flatten() {
                writeln!(out, "{}\t{n}\t{e}\t{value}\t{m}\t{v}", s.label)?;
            }
        }
        Output::Tsv { moves: false, .. } => {
            write!(out, "{}\t{n}\t{e}\t{value}", s.label)?;
            if let Some((memo, secs, rss)) = s.cost {
                write!(out, "\t{memo}\t{secs:.6}\t{rss}")?;
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
            writeln!(
                out,
                "{}: g = {value} ({n} vertices, {e} edges{reduced})",
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

/// Saves the memo if asked and reports the figures if asked.
fn finish(args: &Args, solver: &Solver, loaded: usize, started: Instant) -> Result<()> {
    if let Some(path) = &args.memo {
        chomp3::base::atomic_write::write_atomically(path, |w| solver.save(w))
            .map_err(|e| anyhow!("{}: writing the memo: {e}", path.display()))?;
    }
    if args.stats {
        eprintln!(
            "chomp3: {:.2} s, memo {} connected positions ({} loaded), peak RSS {} MiB",
            started.elapsed().as_secs_f64(),
            solver.memo_len(),
            loaded,
            peak_rss_kib().unwrap_or(0) / 1024
        );
    }
    Ok(())
}

/// Reads graph6/sparse6 lines (each at most `base::text`'s limit long); the
/// error names the source and line.
fn read_lines(name: String, reader: impl BufRead + 'static) -> impl Iterator<Item = Result<Item>> {
    let lines = chomp3::base::text::Lines::new(reader);
    lines.enumerate().filter_map(move |(i, line)| {
        let line = match line {
            Ok(l) => l,
            Err(e) => return Some(Err(anyhow!("{name}: {e}"))),
        };
        let t = line.trim();
        if t.is_empty() {
            return None;
        }
        Some(
            parse_line(t)
                .map(|m| (t.to_string(), Graph::from_multigraph(&m), given(m)))
                .map_err(|e| anyhow!("{name}:{}: {e}", i + 1)),
        )
    })
}

/// An edge-list file as one labelled graph.
fn read_edge_list(path: &Path) -> Result<Item> {
    let text = chomp3::base::text::read_to_string(path, "an edge list").map_err(|e| anyhow!(e))?;
    let m =
        parse_edge_list(&text).map_err(|(line, e)| anyhow!("{}:{line}: {e}", path.display()))?;
    let g = Graph::from_multigraph(&m);
    Ok((path.display().to_string(), g, given(m)))
}

/// The multigraph as given, kept when its graph is a reduction of it.
fn given(m: Multigraph) -> Option<Multigraph> {
    (!m.is_simple()).then_some(m)
}
