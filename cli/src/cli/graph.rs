//! `chomp3 graph`: nim-values of graphs in graph Chomp, from named families,
//! graph6/sparse6 files (or standard input), nauty's generator and edge lists.
//! The options become the library's `graph::job::Job`, which checks and runs
//! them; here are the flags, the progress bar and the words of the outcome.

use super::Shown;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use chomp3::graph::family;
use chomp3::graph::job::{Job, JobError, Names, RunError};
use chomp3::graph::output::Output;
use chomp3::graph::sources::Source;

use super::Interrupted;
use super::args::{QuietArg, ThreadsArg};
use super::progress::{bar, peak_rss_kib};

/// The long help of the graph sources, with every family.
fn sources_help() -> String {
    format!(
        "Graphs: a family such as wheel:9 or wheel:3..16 ({}; any number may be a range a..b); \
         geng:N or geng:A..B, every graph on N vertices from nauty's `nauty-geng`; a file of \
         graph6/sparse6 lines; or - for standard input",
        family::names()
    )
}

#[derive(clap::Args)]
pub struct Args {
    /// Graphs: a family, geng:N, a graph6/sparse6 file, or - (see --help)
    #[arg(value_name = "GRAPHS", long_help = sources_help())]
    sources: Vec<String>,
    /// An edge list, `u v` per line (vertices numbered from 0); `-` reads standard input
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
    /// Replace another result at --out (other graphs or values), or a b-file of more terms at --bfile
    #[arg(long)]
    replace: bool,
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
    // A source or family that names no graph is an argument error (exit 2).
    let sources = (args.sources.iter())
        .map(|s| Source::parse(s).map_err(|e| super::Usage(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let output = match (args.summary, args.os85, args.tsv) {
        (true, _, _) => Output::Summary,
        (_, true, _) => Output::Os85,
        (_, _, true) => Output::Tsv {
            moves: args.moves,
            cost: args.cost,
        },
        _ => Output::Lines { moves: args.moves },
    };
    let job = Job {
        sources,
        edges: args.edges.clone(),
        subgraphs: args.subgraphs,
        output,
        out: args.out.clone(),
        bfile: args.bfile.clone(),
        replace: args.replace,
        memo: args.memo.clone(),
        command: super::shell::command_line(),
    };
    let names = Names {
        out: "--out",
        memo: "--memo",
        bfile: "--bfile",
    };
    let checked = job.check(names).map_err(|e| match e {
        e @ (JobError::Family(_)
        | JobError::StdinTwice
        | JobError::NoGraphs
        | JobError::BFileNotGeng { .. }
        | JobError::BFileNotSummary { .. }
        | JobError::BFileRanges { .. }
        | JobError::Cost) => anyhow::Error::from(super::Usage(e.to_string())),
        e => e.into(),
    })?;
    let started = Instant::now();
    let pool = args.threads.pool()?;
    let bar = bar(args.quiet.quiet, "{spinner} {pos} graphs  {elapsed}");
    let ran = job.run(
        &checked,
        &super::ctrl_c(),
        &pool,
        &mut |done| bar.set_position(done),
        &mut super::stdout(),
    );
    bar.finish_and_clear();
    if let (true, Some(f)) = (args.stats, ran.figures) {
        note!(
            "chomp3: {:.2} s, memo {} connected positions ({} loaded), peak RSS {} MiB",
            started.elapsed().as_secs_f64(),
            f.held,
            f.loaded,
            peak_rss_kib().unwrap_or(0) / 1024
        );
    }
    match ran.result {
        Ok(_) => {}
        // The shell's remedy: the memo keeps what was solved.
        Err(e @ RunError::Interrupted { memo: None, .. }) => {
            let said = format!("{e}; give --memo FILE to keep the positions solved so far");
            return Err(Interrupted(said).into());
        }
        Err(
            e @ (RunError::Interrupted { .. }
            | RunError::InterruptedReadingMemo { .. }
            | RunError::InterruptedAtEnd { .. }),
        ) => {
            return Err(Interrupted(e.to_string()).into());
        }
        // Standard output's errors as they are (a closed pipe ends quietly).
        Err(RunError::Write(e)) => return Err(e.into()),
        Err(e) => return Err(e.into()),
    }
    if let Some(path) = &args.out {
        note!("chomp3: wrote {}", path.shown());
    }
    Ok(())
}
