//! `chomp3 run`: the main job. Computes `data/table.c3t`, analyses it into
//! `data/run/` and draws into `plots/run/`, beside (never over) the committed
//! N = 10^5 results.

use super::Shown;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use chomp3::f::analysis::report::Extent;
use chomp3::f::compute::{DEFAULT_COMMIT_EVERY, Request};
use chomp3::plot::{Format, Made};

use super::args::{CensusArg, DEFAULT_TABLE, TABLE_GAPS, ThreadsArg};

/// Where `chomp3 run` writes its analysis.
const RUN_RESULTS: &str = "data/run";
/// Where `chomp3 run` draws its figures.
const RUN_PLOTS: &str = "plots/run";

#[derive(clap::Args)]
pub struct Args {
    /// Table size
    #[arg(long, value_name = "N", default_value_t = 5000)]
    n: u64,
    #[command(flatten)]
    census: CensusArg,
    #[command(flatten)]
    threads: ThreadsArg,
    /// Replace an analysis in data/run/ or figures in plots/run/ that hold
    /// more (made with a census, or of a larger table), or files there that
    /// chomp3 did not write
    #[arg(long)]
    replace: bool,
}

pub fn run(args: &Args) -> Result<()> {
    let path = PathBuf::from(DEFAULT_TABLE);
    std::fs::create_dir_all(path.parent().unwrap()).context("creating data/")?;
    let req = Request {
        path: path.clone(),
        n: args.n,
        capacity: None,
        threads: args.threads.get()?,
        commit_every: DEFAULT_COMMIT_EVERY,
        stop: super::ctrl_c(),
    };
    match super::compute::with_bar(&req, false, false)? {
        Some(o) => super::compute::print_outcome(&path, &o)?,
        None => say!("{}: already holds N >= {}", path.shown(), args.n),
    }
    // The analysis and the figures, as `analyze` and `plot` alone, take no
    // stop token: Ctrl-C ends them at once, the files left whole.
    super::ends_at_once_on_ctrl_c()?;
    let census = args.census.open(TABLE_GAPS)?;
    let (elapsed, a) = super::analyze::passes(&path, census.as_ref(), &args.threads, false)?;
    let out = Path::new(RUN_RESULTS);
    let row = u64::from(super::plot::DEFAULT_ROW.min(a.facts.n));
    let made = Made::new("table", a.facts.n.into(), "chomp3 run".into());
    let plots = Path::new(RUN_PLOTS);
    // Both outputs checked before either is written: an analysis or
    // figures holding more than this run's are kept unless --replace.
    if !args.replace {
        let again = "run again with the same --census, or pass --replace";
        chomp3::f::analysis::report::may_write(out, &Extent::of(&a))
            .map_err(|e| anyhow::anyhow!("{e}; {again}"))?;
        let by_row = Some((row, false));
        chomp3::plot::may_plot_all(plots, true, Format::Png, by_row, &made, Some(&a), false)
            .map_err(|e| anyhow::anyhow!("{e}; {again}"))?;
    }
    super::analyze::write(&a, &path, out, "chomp3 run", elapsed)?;
    let table = chomp3::f::lookup::Named { path, named: true };
    let sources = chomp3::f::lookup::Sources::open(&table, &args.census.named())?;
    super::plot::draw(
        &sources,
        &a,
        plots,
        Format::Png,
        Some(row),
        &made,
        args.replace,
    )
}
