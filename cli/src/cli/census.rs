//! `chomp3 census`: prove the fate of rows `0 ..= R` without a table, and write
//! `census.tsv` and its descriptor file, never over a census that covers more.
//! Under `mpirun` (a build with the feature `mpi`), every process is one rank of
//! the census; rank 0 writes the files (see `ranks.rs` beside this one).

pub(crate) mod ranks;

use super::Shown;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use chomp3::f::analysis::crosscheck::check_against;
use chomp3::f::census::driver::{self, Batch, Checkpoints, Drive, Ended};
use chomp3::f::census::job::{Job, Names};
use chomp3::f::census::one_file::OneFile;
use chomp3::f::census::rank_files::RankFiles;
use chomp3::f::census::{self, Params, Run};
use chomp3::f::engine::BLOCK_COLS;
use chomp3::f::proof::Counts;

use super::Interrupted;
use super::args::{QuietArg, ThreadsArg, open_table};
use super::progress::{bar, peak_rss_kib};

fn max_columns_help() -> String {
    format!(
        "Stop after this many columns; rows not proved by then are open [default: 3R + {}]",
        census::default_max_columns(0)
    )
}

#[derive(clap::Args)]
pub struct Args {
    /// Last row
    #[arg(long, value_name = "R")]
    rows: u32,
    /// The census table to write (its descriptors go beside it, as .c3d; `get`
    /// and `analyze` read them with `--census`)
    #[arg(long, value_name = "PATH")]
    out: PathBuf,
    /// The binary descriptors that `get` and `analyze` read [default: beside --out, as .c3d]
    #[arg(long, value_name = "PATH")]
    descriptors: Option<PathBuf>,
    #[arg(long, value_name = "C", help = max_columns_help())]
    max_columns: Option<u32>,
    /// Afterwards, compare every proved value with this dense table (q <= its N)
    #[arg(long, value_name = "TABLE")]
    check: Option<PathBuf>,
    /// Replace census files that cover more rows than this census
    #[arg(long)]
    replace: bool,
    /// Checkpoint file: the whole state, saved every few minutes and on Ctrl-C;
    /// the same command continues from it [default: beside --out, as .c3k]
    #[arg(long, value_name = "PATH")]
    checkpoint: Option<PathBuf>,
    /// Also write a trace of the run to this file: per batch, block and chunk
    /// of rows, the CPU time and the bytes sent and received (one file per
    /// rank under MPI, FILE.k-of-P; doc/scaling.md, "The simulator")
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Seconds of work between checkpoints
    #[arg(long, value_name = "S", default_value = "300", value_parser = super::args::seconds)]
    checkpoint_secs: Duration,
    /// Test hook: after the first checkpoint, wait for Ctrl-C
    #[cfg(feature = "test-hooks")]
    #[arg(long, hide = true)]
    hold: bool,
    #[command(flatten)]
    threads: ThreadsArg,
    #[command(flatten)]
    quiet: QuietArg,
}

pub fn run(args: &Args) -> Result<()> {
    let shared = ranks::launch()?;
    match (run_on(args, &shared), &shared) {
        // Under mpirun a rank that stops with an error says it and leaves
        // without finalizing MPI: finalizing can wait without end for a rank
        // that no longer hears (a transport that failed on one node), and
        // the error would never be said. The launcher ends the job once a
        // rank has left with a non-zero status.
        (Err(e), Some(_)) => std::process::exit(super::said(&e).into()),
        (result, _) => result,
    }
}

/// The census, on the ranks `shared` (`None`: one process).
fn run_on(
    args: &Args,
    shared: &Option<std::sync::Arc<dyn chomp3::f::engine::ranks::Ranks>>,
) -> Result<()> {
    let rows = args.rows;
    let job = Job {
        rows,
        out: args.out.clone(),
        descriptors: args.descriptors.clone(),
        checkpoint: args.checkpoint.clone(),
        max_columns: args.max_columns,
        replace: args.replace,
        trace: args.trace.clone(),
    };
    let (descriptors, checkpoint) = (job.descriptors(), job.checkpoint());
    let writes = shared.as_ref().is_none_or(|r| r.rank() == 0);
    let names = Names {
        out: "--out",
        descriptors: "--descriptors",
        checkpoint: "--checkpoint",
        trace: "--trace",
    };
    // Everything that can fail on one rank alone is done before the ranks
    // first wait for each other: under mpirun every rank learns whether
    // each passed (only rank 0 locks the outputs and reads the --check
    // table), so that none waits for one that stopped.
    let (rank, ranks, local) = shared
        .as_ref()
        .map_or((0, 1, 1), |r| (r.rank(), r.size(), r.on_this_machine()));
    let held = job.check(names, (rank, ranks, local));
    let check = match writes {
        true => args.check.as_deref().map(open_table).transpose(),
        false => Ok(None),
    };
    let pool = args.threads.pool();
    let (_held, check, pool) = match shared {
        Some(r) => {
            let ready = match (held, check, pool) {
                (Err(e), ..) => Err(super::worded(&e.into())),
                (_, Err(e), _) | (.., Err(e)) => Err(super::worded(&e)),
                (Ok(h), Ok(c), Ok(p)) => Ok((h, c, p)),
            };
            // A rank that cannot go on says why at once, before the ranks'
            // exchange: that needs the MPI transport, which may be what
            // failed on this rank (Open MPI's shared memory under `ulimit
            // -v`), and then the exchange never ends; such a rank leaves
            // after a bound. Every other refusal comes in the exchange.
            let own = ready.as_ref().err().cloned();
            if let Some(e) = &own {
                note!("chomp3: error: rank {} of {}: {e}", r.rank(), r.size());
                leave_after(Duration::from_secs(30));
            }
            match driver::every_rank(&**r, ready) {
                Ok(ready) => ready,
                Err(_) if own.is_some() => std::process::exit(1),
                Err(all) => bail!(all),
            }
        }
        None => (held?, check?, pool?),
    };
    let params = job.params();
    let started = Instant::now();
    let one_file = OneFile {
        path: checkpoint.clone(),
    };
    let rank_files = RankFiles {
        base: checkpoint.clone(),
    };
    let checkpoints: &dyn Checkpoints = match shared {
        None => &one_file,
        Some(_) => &rank_files,
    };
    let (run, quiet) = resume(args, shared, (&one_file, &rank_files), params)?;
    let trace = shared
        .as_ref()
        .map_or(job.trace_file(0, 1), |r| job.trace_file(r.rank(), r.size()));
    let drive = Drive {
        pool: &pool,
        stop: &super::ctrl_c(),
        every: args.checkpoint_secs,
        checkpoints,
        trace: trace.as_deref(),
    };
    #[cfg(feature = "test-hooks")]
    let hold = args.hold && shared.is_none();
    #[cfg(not(feature = "test-hooks"))]
    let hold = false;
    let mut progress = Progress::new(rows, run.columns(), quiet, hold);
    let command = format!("chomp3 census --rows {rows}");
    let outputs = (args.out.as_path(), descriptors.as_path(), command.as_str());
    let ended = driver::drive_and_write(run, drive, outputs, &mut |b| progress.batch(&b))?;
    progress.bar.finish_and_clear();
    let (result, traffic) = match ended {
        Ended::Stopped { columns, .. } => {
            // Under mpirun each rank keeps a file of its own.
            let saved = match shared {
                None => checkpoint.shown().to_string(),
                Some(r) => format!("{}.*-of-{}.at-{columns}", checkpoint.shown(), r.size()),
            };
            return Err(Interrupted(format!(
                "interrupted; the census is saved in {saved} at column {columns}; run the same command again to continue"
            ))
            .into());
        }
        Ended::Finished { census, traffic } => (census, traffic),
    };
    let report = shared
        .as_ref()
        .and_then(|r| ranks::gather_report(&**r, traffic, progress.blocks));
    // Rank 0 has written the files, and every rank's checkpoints are gone.
    let Some(result) = result else {
        return Ok(());
    };
    say_result(args, &result, started)?;
    {
        use std::io::Write as _;
        write!(super::stdout(), "{}", report.unwrap_or_default())?;
    }
    say!(
        "wrote {} (the census table) and {} (its descriptors, for get and analyze)",
        args.out.shown(),
        descriptors.shown()
    );
    super::heard_at_the_end(&format!("the census in {} is whole", args.out.shown()))?;
    match check {
        Some(t) => {
            // The census is written; the check takes no stop token, and
            // Ctrl-C ends it at once.
            super::ends_at_once_on_ctrl_c()?;
            check_table(&result.rows, &t)
        }
        None => Ok(()),
    }
}

/// Ends this process with status 1 after `wait`, whatever it is doing then,
/// without running exit handlers (MPI's could wait for the other ranks):
/// for a rank that has said its error and waits for the others in vain.
fn leave_after(wait: Duration) {
    // A small stack: a rank refused for want of address space may have room
    // for no more; where it has none, it leaves at once (mpirun then ends
    // the others, as at any rank's error).
    let leave = move || {
        std::thread::sleep(wait);
        // SAFETY: `_exit` ends the process at once; nothing is left half
        // written (every file chomp3 writes is written aside and renamed).
        unsafe { libc::_exit(1) }
    };
    let spawned = std::thread::Builder::new()
        .stack_size(64 << 10)
        .spawn(leave);
    if spawned.is_err() {
        // SAFETY: as above.
        unsafe { libc::_exit(1) }
    }
}

/// Says what the census found.
fn say_result(args: &Args, result: &census::Census, started: Instant) -> Result<()> {
    let rows = args.rows;
    let c = Counts::of(&result.rows);
    say!(
        "census of rows 0..={rows} in {:.1} s ({} columns, peak RSS {} MiB): {} constant, {} proved periodic, {} open",
        started.elapsed().as_secs_f64(),
        result.columns,
        peak_rss_kib().unwrap_or(0) / 1024,
        c.constant,
        c.periodic,
        c.open
    );
    Ok(())
}

/// The run to continue (from the checkpoint, one file or the ranks' files) or
/// a new one, and whether this process stays quiet.
fn resume(
    args: &Args,
    shared: &Option<std::sync::Arc<dyn chomp3::f::engine::ranks::Ranks>>,
    (one_file, rank_files): (&OneFile, &RankFiles),
    params: Params,
) -> Result<(Run, bool)> {
    match shared {
        None => {
            let run = one_file.resume(params)?;
            if let (Some(run), false) = (&run, args.quiet.quiet) {
                note!(
                    "chomp3: resuming from {}: column {}, rows 0..{} settled",
                    one_file.path.shown(),
                    run.columns(),
                    run.settled_rows()
                );
            }
            Ok((run.unwrap_or_else(|| Run::new(params)), args.quiet.quiet))
        }
        Some(r) => {
            let quiet = args.quiet.quiet || r.rank() != 0;
            if !quiet {
                note!("chomp3: census on {} MPI ranks", r.size());
            }
            let (run, left_over) = rank_files.resume_or_start(params, r.clone())?;
            // Files removed are said even when quiet.
            if r.rank() == 0 && left_over {
                note!(
                    "chomp3: removed the checkpoint files {}.*-of-{}.at-* that only some ranks had (a census stopped at its first checkpoint, or while removing them after writing its results): nothing continues from them; starting the census again",
                    rank_files.base.shown(),
                    r.size()
                );
            }
            if !quiet && run.columns() > 0 {
                note!(
                    "chomp3: resuming from {}.*-of-{}.at-{}: column {}, rows 0..{} settled",
                    rank_files.base.shown(),
                    r.size(),
                    run.columns(),
                    run.columns(),
                    run.settled_rows()
                );
            }
            Ok((run, quiet))
        }
    }
}

/// The progress bar and what the command says after each batch.
struct Progress {
    bar: indicatif::ProgressBar,
    rows: u32,
    quiet: bool,
    /// Test hook `--hold`: wait for Ctrl-C after the first checkpoint.
    hold: bool,
    /// Column blocks computed (for the ranks' traffic report).
    blocks: u64,
    before: u32,
}

impl Progress {
    fn new(rows: u32, columns: u32, quiet: bool, hold: bool) -> Progress {
        let bar = bar(quiet, "{bar:20} {msg}  ETA {eta}");
        bar.set_length(census::expected_columns(rows));
        Progress {
            bar,
            rows,
            quiet,
            hold,
            blocks: 0,
            before: columns,
        }
    }

    fn batch(&mut self, b: &Batch) {
        self.blocks += (b.columns - self.before).div_ceil(BLOCK_COLS) as u64;
        self.before = b.columns;
        self.bar.set_position(b.columns as u64);
        self.bar.set_message(format!(
            "column {}, rows 0..{} settled of {}",
            b.columns,
            b.settled,
            self.rows as u64 + 1
        ));
        let Some(saved) = b.saved else { return };
        if !self.quiet {
            self.bar.suspend(|| {
                note!(
                    "chomp3: checkpoint {}: column {}, {} bytes in {:.1} s",
                    saved.path.shown(),
                    b.columns,
                    saved.bytes,
                    saved.seconds
                )
            });
        }
        if std::mem::take(&mut self.hold) {
            super::hold_until_ctrl_c();
        }
    }
}

/// `--check`: every proved value against a dense table.
fn check_table(
    rows: &[Option<chomp3::f::proof::RowStatus>],
    t: &chomp3::f::table::Table,
) -> Result<()> {
    let started = Instant::now();
    let report = check_against(rows, t).map_err(|e| anyhow::anyhow!("the --check table: {e}"))?;
    if let Some((q, r)) = report.first_mismatch {
        bail!("the census disagrees with the table at f({q},{r})");
    }
    say!(
        "checked against the table ({}): all {} proved values agree, every start is the least ({:.1} s)",
        chomp3::f::table::holds(t.n()),
        report.values,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
