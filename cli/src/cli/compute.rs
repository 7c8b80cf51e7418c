//! `chomp3 compute`: create or extend a table, with a progress bar.

use super::Shown;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use chomp3::base::path_message::NamesPath;
use chomp3::f::compute::{self, ComputeError, DEFAULT_COMMIT_EVERY, Outcome, Request};

use super::Interrupted;
use super::args::{QuietArg, TableArg, ThreadsArg};
use super::progress::{bar, peak_rss_kib};

#[derive(clap::Args)]
pub struct Args {
    /// Compute every f(q,r) with r <= q <= N
    #[arg(long, value_name = "N")]
    n: u64,
    #[command(flatten)]
    table: TableArg,
    /// Largest N a new table may grow to; sets the bits per value [default: max(N, 131071), 18 bits]
    #[arg(long, value_name = "N")]
    capacity: Option<u64>,
    #[command(flatten)]
    threads: ThreadsArg,
    #[command(flatten)]
    quiet: QuietArg,
    /// Print one line of measurements (time, cells/s, peak memory, file size)
    #[arg(long)]
    stats: bool,
    /// Commit (sync to disk) at most every S seconds [default: 2]
    #[arg(long, value_name = "S", hide = true, value_parser = super::args::seconds)]
    commit_secs: Option<Duration>,
    /// Test hook: once the first columns are written, wait for Ctrl-C
    #[cfg(feature = "test-hooks")]
    #[arg(long, hide = true)]
    hold: bool,
}

pub fn run(args: &Args) -> Result<()> {
    let req = Request {
        path: args.table.path(),
        n: args.n,
        capacity: args.capacity,
        threads: args.threads.get()?,
        commit_every: args.commit_secs.unwrap_or(DEFAULT_COMMIT_EVERY),
        stop: super::ctrl_c(),
    };
    #[cfg(feature = "test-hooks")]
    let hold = args.hold;
    #[cfg(not(feature = "test-hooks"))]
    let hold = false;
    let Some(o) = with_bar(&req, args.quiet.quiet, hold)? else {
        say!(
            "{}: already holds N >= {}; nothing to do",
            req.path.shown(),
            req.n
        );
        return Ok(());
    };
    if args.stats {
        say!(
            "n={} cells={} seconds={:.2} cells_per_sec={:.0} peak_rss_kib={} file_bytes={}",
            o.n,
            o.cells,
            o.elapsed.as_secs_f64(),
            o.cells as f64 / o.elapsed.as_secs_f64(),
            peak_rss_kib().unwrap_or(0),
            o.file_len
        );
    } else {
        print_outcome(&req.path, &o)?;
    }
    Ok(())
}

/// Computes `req` with a progress bar (the error names the file once); with `hold`, waits for Ctrl-C once the first
/// columns are written (a test hook).
pub fn with_bar(req: &Request, quiet: bool, mut hold: bool) -> Result<Option<Outcome>> {
    let bar = bar(
        quiet,
        "{bar:20} {percent:>3}% {human_pos}/{human_len} cells  {msg}  ETA {eta}",
    );
    let result = compute::compute(req, &mut |done, todo| {
        bar.set_length(todo);
        bar.set_position(done);
        let rate = done as f64 / bar.elapsed().as_secs_f64().max(1e-9);
        bar.set_message(format!("{:.1} M/s", rate / 1e6));
        if hold && done > 0 {
            hold = false;
            super::hold_until_ctrl_c();
        }
    });
    bar.finish_and_clear();
    result.map_err(|e| compute_error(&req.path, e))
}

/// A compute error as one sentence that names the file once; an interruption
/// stays recognisable for its exit code.
fn compute_error(path: &Path, e: ComputeError) -> anyhow::Error {
    let message = e.with_path(path);
    if matches!(e, ComputeError::Interrupted { .. }) {
        Interrupted(message).into()
    } else {
        anyhow::anyhow!(message)
    }
}

/// The one-line summary of a computation.
pub fn print_outcome(path: &Path, o: &Outcome) -> Result<()> {
    let from = match o.from_n {
        None => "new table".to_string(),
        Some(n) => format!("extended from N = {n}"),
    };
    say!(
        "{}: N = {} ({from}), {} cells in {:.2} s ({:.1} M cells/s), {} bytes",
        path.shown(),
        o.n,
        o.cells,
        o.elapsed.as_secs_f64(),
        o.cells as f64 / o.elapsed.as_secs_f64() / 1e6,
        o.file_len
    );
    Ok(())
}
