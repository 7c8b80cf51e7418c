//! `chomp3 census`: prove the fate of rows `0 ..= R` without a table, and write
//! `census.tsv` and its descriptor file, never over a census that covers more.
//! Under `mpirun` (a build with the feature `mpi`), every process is one rank of
//! the census; rank 0 writes the files (see `ranks.rs` beside this one).

mod ranks;

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use chomp3::analysis::crosscheck::check_against;
use chomp3::census::{self, BATCH_COLS, Params, Run, Weaken};
use chomp3::census_file::{self, rows_in_file};
use chomp3::engine::BLOCK_COLS;
use chomp3::engine::ranks as share;
use chomp3::proof::Counts;

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
    /// The census table
    #[arg(long, value_name = "PATH", default_value = "data/census.tsv")]
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
    /// Seconds of work between checkpoints
    #[arg(long, value_name = "S", default_value_t = 300.0)]
    checkpoint_secs: f64,
    /// Test hook: after the first checkpoint, wait for Ctrl-C
    #[arg(long, hide = true)]
    hold: bool,
    #[command(flatten)]
    threads: ThreadsArg,
    #[command(flatten)]
    quiet: QuietArg,
}

pub fn run(args: &Args) -> Result<()> {
    let rows = args.rows;
    let shared = ranks::launch()?;
    let descriptors = args
        .descriptors
        .clone()
        .unwrap_or_else(|| args.out.with_extension("c3d"));
    let checkpoint = args
        .checkpoint
        .clone()
        .unwrap_or_else(|| args.out.with_extension("c3k"));
    let check = args.check.as_deref().map(open_table).transpose()?;
    for path in [&args.out, &descriptors] {
        may_write(path, rows, args.replace)?;
    }
    let params = Params {
        last_row: rows,
        max_columns: args
            .max_columns
            .unwrap_or(census::default_max_columns(rows)),
        batch: BATCH_COLS,
    };
    let started = Instant::now();
    let (mut run, quiet) = match &shared {
        None => (
            resume_or_start(&checkpoint, params, args.quiet.quiet)?,
            args.quiet.quiet,
        ),
        Some(r) => {
            let quiet = args.quiet.quiet || r.rank() != 0;
            if !quiet {
                eprintln!("chomp3: census on {} MPI ranks", r.size());
            }
            (
                ranks::resume_or_start(&checkpoint, params, r.clone(), quiet)?,
                quiet,
            )
        }
    };
    let pool = args.threads.pool()?;
    let stop = super::ctrl_c();
    let bar = bar(quiet, "{bar:20} {msg}  ETA {eta}");
    bar.set_length(census::expected_columns(rows));
    let every = Duration::from_secs_f64(args.checkpoint_secs.max(0.0));
    let mut last_save = Instant::now();
    let mut hold = args.hold;
    let mut blocks = 0u64;
    while !run.done() {
        let before = run.columns();
        run.step(&pool, Weaken::default());
        chomp3::huge::release_free_pages();
        let (q, settled) = (run.columns(), run.settled_rows());
        blocks += (q - before).div_ceil(BLOCK_COLS) as u64;
        bar.set_position(q as u64);
        bar.set_message(format!(
            "column {q}, rows 0..{settled} settled of {}",
            rows as u64 + 1
        ));
        let mut interrupted = stop.requested();
        let mut save_now = (last_save.elapsed() >= every && !run.done()) || interrupted;
        if shared.is_some() {
            // Rank 0's clock decides; a stop on any rank stops them all.
            save_now = share::any(
                run.ranks(),
                save_now && (interrupted || run.ranks().rank() == 0),
            );
            interrupted = share::any(run.ranks(), interrupted);
        }
        if save_now {
            let (bytes, secs, path) = match &shared {
                None => {
                    let (bytes, secs) = save(&mut run, &checkpoint)?;
                    (bytes, secs, checkpoint.clone())
                }
                Some(_) => ranks::save(&mut run, &checkpoint)?,
            };
            if !quiet {
                bar.suspend(|| {
                    eprintln!(
                        "chomp3: checkpoint {}: column {q}, {bytes} bytes in {secs:.1} s",
                        path.display()
                    )
                });
            }
            last_save = Instant::now();
            if hold && !interrupted && shared.is_none() {
                hold = false;
                super::hold_until_ctrl_c();
            }
        }
        if interrupted {
            bar.finish_and_clear();
            return Err(Interrupted(format!(
                "interrupted; the census is saved in {} at column {q}; run the same command again to continue",
                checkpoint.display()
            ))
            .into());
        }
    }
    bar.finish_and_clear();
    let traffic = run.ranks().sent();
    let result = run.finish();
    let report = shared
        .as_ref()
        .and_then(|r| ranks::gather_report(&**r, traffic, blocks));
    let Some(result) = result else {
        // Rank 0 writes the files; the checkpoints go once it has.
        let shared = shared.expect("only rank 0 of several gets the census");
        return ranks::written(&*shared, &checkpoint);
    };
    let command = format!("chomp3 census --rows {rows}");
    let written = |path: &Path, e: std::io::Error| anyhow::anyhow!("{}: {e}", path.display());
    let (rows_, bounds) = (&result.rows, &result.start_bounds);
    census_file::write_tsv(rows_, bounds, result.columns, &command, &args.out)
        .map_err(|e| written(&args.out, e))?;
    census_file::write_descriptors(rows_, bounds, &result.facts, result.columns, &descriptors)
        .map_err(|e| written(&descriptors, e))?;
    match &shared {
        None => {
            if checkpoint.exists() {
                std::fs::remove_file(&checkpoint).map_err(|e| written(&checkpoint, e))?;
            }
        }
        Some(r) => ranks::written(&**r, &checkpoint)?,
    }
    let c = Counts::of(&result.rows);
    println!(
        "census of rows 0..={rows} in {:.1} s ({} columns, peak RSS {} MiB): {} constant, {} proved periodic, {} open",
        started.elapsed().as_secs_f64(),
        result.columns,
        peak_rss_kib().unwrap_or(0) / 1024,
        c.constant,
        c.periodic,
        c.open
    );
    if let Some(report) = report {
        print!("{report}");
    }
    println!(
        "wrote {} (the census table) and {} (its descriptors, for get and analyze)",
        args.out.display(),
        descriptors.display()
    );
    if let Some(t) = check {
        let started = Instant::now();
        let report = check_against(&result.rows, &t);
        if let Some((q, r)) = report.first_mismatch {
            bail!("the census disagrees with the table at f({q},{r})");
        }
        println!(
            "checked against the table ({}): all {} proved values agree, every start is the least ({:.1} s)",
            chomp3::table::holds(t.n()),
            report.values,
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// Continues from the checkpoint at `path` if there is one (it must be for the
/// same parameters), else starts a new census.
fn resume_or_start(path: &Path, params: Params, quiet: bool) -> Result<Run> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Run::new(params)),
        Err(e) => bail!("{}: {e}", path.display()),
    };
    let run = Run::load(&mut BufReader::with_capacity(1 << 20, file), params)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    if !quiet {
        eprintln!(
            "chomp3: resuming from {}: column {}, rows 0..{} settled",
            path.display(),
            run.columns(),
            run.settled_rows()
        );
    }
    Ok(run)
}

/// Writes the checkpoint aside, syncs it and renames it into place; returns its
/// size and the seconds it took.
fn save(run: &mut Run, path: &Path) -> Result<(u64, f64)> {
    let started = Instant::now();
    chomp3::atomic_write::write_atomically(path, |w| run.save(w))
        .map_err(|e| anyhow::anyhow!("{}: writing the checkpoint: {e}", path.display()))?;
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    Ok((bytes, started.elapsed().as_secs_f64()))
}

/// Refuses, before any work, to write `path` when its directory is missing, or
/// when it holds a census of more rows (or something that is not a census)
/// unless `replace`.
fn may_write(path: &Path, rows: u32, replace: bool) -> Result<()> {
    let dir = chomp3::table::parent_dir(path);
    if !dir.is_dir() {
        bail!(
            "directory {} does not exist; create it first",
            dir.display()
        );
    }
    if replace {
        return Ok(());
    }
    match rows_in_file(path) {
        Ok(Some(covered)) if covered as u64 > rows as u64 + 1 => bail!(
            "{} holds a census of rows 0..{}, more than the {} rows asked for; pass --replace to replace it, or write elsewhere with --out",
            path.display(),
            covered - 1,
            rows as u64 + 1
        ),
        Ok(_) => Ok(()),
        Err(e) => bail!(
            "{} exists and is not a census file this chomp3 reads ({e}); pass --replace to replace it",
            path.display()
        ),
    }
}
