//! `chomp3 grundy-periods`: the start and least period of every line
//! `(q,r)`, `q <= Q`, proved by two sweeps `L` apart without keeping any
//! pattern (`grundy::lag`); resumable from a checkpoint.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};
use chomp3::base::path_message::NamesPath;
use chomp3::grundy::ProvedLine;
use chomp3::grundy::file;
use chomp3::grundy::lag;
use chomp3::grundy::{line, sequences};
use chomp3::outputs::{self, Kind, Output};

use super::Interrupted;
use super::args::QuietArg;
use super::progress::{bar, peak_rss_kib};

#[derive(clap::Args)]
pub struct Args {
    /// Prove every line (q,r) with r <= q <= Q
    #[arg(long, value_name = "Q", value_parser = super::args::grundy_lines)]
    lines: u32,
    /// The lag L between the two sweeps, which every least period must divide
    /// (a line whose period does not is never proved); at least 2Q + 2
    #[arg(long, value_name = "L")]
    lag: u32,
    /// Give up once the trailing sweep reaches this p
    #[arg(long, value_name = "P", default_value_t = 1_000_000_000)]
    max_p: u32,
    /// Write the b-files grundy-periods.txt and grundy-starts.txt into DIR
    #[arg(long, value_name = "DIR")]
    bfiles: PathBuf,
    /// Also write every line's q, r, start and period (a census of periods
    /// and starts, FORMAT.md; `chomp3 nim --grundy-census` reads it)
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Keep the run's state in FILE, and continue from it if it is there
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// Seconds of work between checkpoints
    #[arg(long, value_name = "S", default_value = "600", value_parser = super::args::seconds)]
    checkpoint_secs: Duration,
    /// If the run stops at --max-p before every line is done, still write
    /// the b-files of the lines done so far in order (a prefix, every term
    /// proved) and, with --out, every line done so far (its second line says
    /// how many); the command still fails, saying how many (--max-p 0 with
    /// --checkpoint writes those of a checkpoint without sweeping)
    #[arg(long)]
    partial: bool,
    /// Replace a Grundy census at the output, or b-files, of more lines than this one
    #[arg(long)]
    replace: bool,
    #[command(flatten)]
    quiet: QuietArg,
}

pub fn run(args: &Args) -> Result<()> {
    let mut plan = vec![
        Output::new(
            args.bfiles.join("grundy-periods.txt"),
            Kind::GrundyBFile,
            "--bfiles",
        ),
        Output::new(
            args.bfiles.join("grundy-starts.txt"),
            Kind::GrundyBFile,
            "--bfiles",
        ),
    ];
    if let Some(out) = &args.out {
        plan.push(Output::new(out, Kind::PeriodsCensus, "--out"));
    }
    if let Some(checkpoint) = &args.checkpoint {
        plan.push(Output::new(
            checkpoint,
            Kind::PeriodsCheckpoint,
            "--checkpoint",
        ));
    }
    outputs::check(&plan)?;
    if let Some(out) = &args.out {
        chomp3::grundy::file::may_write(out, args.lines, args.replace)?;
    }
    let lines = line(args.lines, args.lines) as u64 + 1;
    for name in ["grundy-periods.txt", "grundy-starts.txt"] {
        let path = args.bfiles.join(name);
        chomp3::grundy::sequences::may_write_bfile(&path, lines, args.replace)?;
    }
    let _held = outputs::lock(&plan)?;
    let started = Instant::now();
    let all = line(args.lines, args.lines) + 1;
    let resume = resume(args)?;
    let bar = bar(args.quiet.quiet, "{spinner} p = {pos}, {msg}  {elapsed}");
    let stop = super::ctrl_c();
    let lines_to_log = !args.quiet.quiet && bar.is_hidden();
    let (mut logged, mut saved) = (Instant::now(), Instant::now());
    let every = args.checkpoint_secs;
    let mut save_error = None;
    let mut restart_said = None;
    let mut show = |run: &lag::Run| {
        let at = run.progress();
        if let Some((x, room)) = run.restarted()
            && restart_said != Some(room)
        {
            restart_said = Some(room);
            eprintln!(
                "chomp3: a value G - p = {x} fell below the window; started again from p = 1 \
                 with room down to G - p = -{room}"
            );
        }
        let msg = format!(
            "lead p = {}, {} of {all} lines proved, {} with least period",
            at.lead, at.proved, at.done
        );
        if lines_to_log && logged.elapsed().as_secs() >= 60 {
            logged = Instant::now();
            eprintln!(
                "chomp3: p = {}, {msg}, {:.0} s",
                at.p,
                started.elapsed().as_secs_f64()
            );
        }
        bar.set_position(at.p as u64);
        bar.set_message(msg);
        if let Some(path) = &args.checkpoint
            && saved.elapsed() >= every
            && save_error.is_none()
        {
            // A run that cannot save its work stops at once; the last good
            // checkpoint stays (it is replaced only by a whole new one).
            save_error = save(run, path).err();
            if save_error.is_some() {
                stop.request();
            }
            saved = Instant::now();
        }
    };
    let run = lag::run(args.lines, args.lag, args.max_p, resume, &stop, &mut show)
        .map_err(|e| anyhow!(e))?;
    bar.finish_and_clear();
    if let Some(e) = save_error {
        return Err(anyhow!(
            "{e}; the run stopped there, as its work could not be saved (the last checkpoint written is kept)"
        ));
    }
    if let Some(path) = &args.checkpoint
        && (stop.requested() || !run.finished())
    {
        lag::save(&run, path).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    }
    if stop.requested() {
        let kept = match &args.checkpoint {
            Some(path) => format!(
                "the run is kept in {}: run the command again",
                path.display()
            ),
            None => "no --checkpoint: nothing kept".to_string(),
        };
        return Err(Interrupted(format!("interrupted at p = {}; {kept}", run.progress().p)).into());
    }
    finish(args, &run, started)
}

/// Writes the checkpoint, and says so.
fn save(run: &lag::Run, path: &std::path::Path) -> Result<()> {
    let t = Instant::now();
    lag::save(run, path).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    eprintln!(
        "chomp3: checkpoint {} at p = {} in {:.1} s",
        path.display(),
        run.progress().p,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The run kept in `--checkpoint`, if the file is there (it must be of this
/// command); else checks that the arguments make a census.
fn resume(args: &Args) -> Result<Option<lag::Run>> {
    match &args.checkpoint {
        Some(path) if chomp3::base::input::is_there(path) => {
            let run = lag::load(path).map_err(|e| anyhow!("{}", e.with_path(path)))?;
            if run.shape() != (args.lines, args.lag) {
                bail!(
                    "{}: a checkpoint of --lines {} --lag {}, not of this command",
                    path.display(),
                    run.shape().0,
                    run.shape().1
                );
            }
            eprintln!(
                "chomp3: continuing from {} (p = {})",
                path.display(),
                run.progress().p
            );
            Ok(Some(run))
        }
        _ => {
            lag::Run::new(args.lines, args.lag, 0).map_err(|e| anyhow!(e))?;
            Ok(None)
        }
    }
}

/// After the run: the outputs if every line is done (then the checkpoint
/// goes), else an error saying how far it got.
fn finish(args: &Args, run: &lag::Run, started: Instant) -> Result<()> {
    let all = line(args.lines, args.lines) + 1;
    let outcome = run.outcome();
    let done: Vec<ProvedLine> = outcome.lines.iter().map_while(|f| *f).collect();
    // Every line done, in order but not a prefix: for a partial --out.
    let found: Vec<ProvedLine> = outcome.lines.iter().flatten().copied().collect();
    let command = format!(
        "chomp3 grundy-periods --lines {} --lag {} --bfiles {}",
        args.lines,
        args.lag,
        super::args::quote(args.bfiles.as_os_str())
    );
    if done.len() < all {
        let written = match args.partial && !done.is_empty() {
            true => {
                let note = format!(
                    "{command}, a run not finished: its first {} lines, those done by p = {}",
                    done.len(),
                    outcome.swept
                );
                write_outputs(args, &done, &note)?;
                let dir = args.bfiles.display();
                let mut said = format!("the b-files in {dir} hold the first {}", done.len());
                if let Some(out) = &args.out {
                    let note = format!(
                        "{command}, a run not finished: the {} of {all} lines done by p = {} only",
                        found.len(),
                        outcome.swept
                    );
                    write_census(out, args.lines, &found, &note)?;
                    said += &format!(", {} the {} lines done", out.display(), found.len());
                }
                said + " (--partial)"
            }
            false => "nothing written".to_string(),
        };
        bail!(
            "{} of {all} lines not done by p = {} (a period that does not divide --lag {}, \
             or --max-p too small); {written}",
            all - found.len(),
            outcome.swept,
            args.lag
        );
    }
    write_outputs(args, &done, &command)?;
    if let Some(out) = &args.out {
        write_census(out, args.lines, &done, &command)?;
    }
    if let Some(path) = &args.checkpoint {
        let _ = std::fs::remove_file(path);
    }
    eprintln!(
        "chomp3: all {all} lines proved (trailing sweep to p = {}), {:.1} s, peak RSS {} MiB",
        outcome.swept,
        started.elapsed().as_secs_f64(),
        peak_rss_kib().unwrap_or(0) / 1024
    );
    Ok(())
}

/// The b-files of `done` (the lines done, a prefix in order).
fn write_outputs(args: &Args, done: &[ProvedLine], command: &str) -> Result<()> {
    let dir = &args.bfiles;
    std::fs::create_dir_all(dir).map_err(|e| anyhow!("{}: {e}", dir.display()))?;
    for (name, period) in [("grundy-periods.txt", true), ("grundy-starts.txt", false)] {
        let path = dir.join(name);
        chomp3::base::atomic_write::write_atomically(&path, |w| {
            sequences::write_lines(done, period, command, w)
        })
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// The census of periods and starts of `lines` (in order) at `path`.
fn write_census(path: &Path, q_max: u32, lines: &[ProvedLine], command: &str) -> Result<()> {
    chomp3::base::atomic_write::write_atomically(path, |w| {
        file::write_periods(q_max, lines, command, w)
    })
    .map_err(|e| anyhow!("{}: {e}", path.display()))
}
