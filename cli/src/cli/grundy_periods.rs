//! `chomp3 grundy-periods`: the start and least period of every line
//! `(q,r)`, `q <= Q`, proved by two sweeps `L` apart without keeping any
//! pattern (`grundy::lag`); resumable from a checkpoint. The job, its checks
//! and its outputs are the library's (`grundy::periods_job`); this parses,
//! shows the progress and words the outcome.

use super::Shown;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};
use chomp3::grundy::periods_job::{DEFAULT_MAX_P, Event, Job, JobError, Names, Outcome, Partial};

use super::Interrupted;
use super::args::QuietArg;
use super::progress::{bar, peak_rss_kib};

#[derive(clap::Args)]
pub struct Args {
    /// Prove every line (q,r) with r <= q <= Q
    #[arg(long, value_name = "Q", value_parser = super::args::grundy_lines)]
    lines: u32,
    /// The lag L between the two sweeps, which every least period must divide
    /// (a line whose period does not is never proved); at least 2Q + 2, with
    /// at most 128 divisors
    #[arg(long, value_name = "L")]
    lag: u32,
    /// Give up once the trailing sweep reaches this p
    #[arg(long, value_name = "P", default_value_t = DEFAULT_MAX_P)]
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
    let job = Job {
        lines: args.lines,
        lag: args.lag,
        max_p: args.max_p,
        bfiles: args.bfiles.clone(),
        out: args.out.clone(),
        checkpoint: args.checkpoint.clone(),
        checkpoint_every: args.checkpoint_secs,
        partial: args.partial,
        replace: args.replace,
        command: format!(
            "chomp3 grundy-periods --lines {} --lag {} --bfiles {}",
            args.lines,
            args.lag,
            super::shell::quote(args.bfiles.as_os_str())
        ),
    };
    let names = Names {
        bfiles: "--bfiles",
        out: "--out",
        checkpoint: "--checkpoint",
    };
    // A lag that does not fit the lines is an argument error (exit 2).
    let checked = job.check(names).map_err(|e| match e {
        e @ chomp3::grundy::periods_job::JobError::Lag(_) => {
            anyhow::Error::from(super::Usage(e.to_string()))
        }
        e => e.into(),
    })?;
    let started = Instant::now();
    let all = chomp3::grundy::line(args.lines, args.lines) + 1;
    let bar = bar(args.quiet.quiet, "{spinner} p = {pos}, {msg}  {elapsed}");
    let stop = super::ctrl_c();
    // Off a terminal (a run in the background) a line a minute instead of the bar.
    let lines_to_log = !args.quiet.quiet && bar.is_hidden();
    let mut logged = Instant::now();
    let outcome = job.run(checked, &stop, &mut |event| match event {
        Event::Resumed { path, p } => {
            bar.suspend(|| note!("chomp3: continuing from {} (p = {p})", path.shown()))
        }
        Event::Restarted { x, room } => bar.suspend(|| {
            note!(
                "chomp3: a value G - p = {x} fell below the window; started again from p = 1 \
                 with room down to G - p = -{room}"
            )
        }),
        Event::At(at) => {
            let msg = format!(
                "lead p = {}, {} of {all} lines proved, {} with least period",
                at.lead, at.proved, at.done
            );
            if lines_to_log && logged.elapsed().as_secs() >= 60 {
                logged = Instant::now();
                note!(
                    "chomp3: p = {}, {msg}, {:.0} s",
                    at.p,
                    started.elapsed().as_secs_f64()
                );
            }
            bar.set_position(at.p as u64);
            bar.set_message(msg);
        }
        Event::Saved { path, p, seconds } => bar.suspend(|| {
            note!(
                "chomp3: checkpoint {} at p = {p} in {seconds:.1} s",
                path.shown()
            )
        }),
    });
    bar.finish_and_clear();
    match outcome.map_err(worded)? {
        Outcome::Finished { lines, swept } => {
            note!(
                "chomp3: all {lines} lines proved (trailing sweep to p = {swept}), {:.1} s, peak RSS {} MiB",
                started.elapsed().as_secs_f64(),
                peak_rss_kib().unwrap_or(0) / 1024
            );
            super::heard_at_the_end(&format!("the b-files in {} are whole", args.bfiles.shown()))
        }
        Outcome::Unfinished {
            lines,
            done,
            swept,
            partial,
            kept,
        } => {
            let mut written = match partial {
                Some(Partial { prefix, census }) => {
                    let dir = args.bfiles.shown();
                    let mut said = format!("the b-files in {dir} hold the first {prefix}");
                    if let Some(out) = census {
                        said += &format!(", {} the {done} lines done", out.shown());
                    }
                    said + " (--partial)"
                }
                None => "no result written".to_string(),
            };
            if let Some(path) = kept {
                written += &format!("; the run is kept in {}", path.shown());
            }
            bail!(
                "{} of {lines} lines not done by p = {swept} (a period that does not divide --lag {}, \
                 or --max-p too small); {written}",
                lines - done,
                args.lag
            )
        }
        Outcome::Interrupted { p, kept } => {
            let kept = match kept {
                Some(path) => format!("the run is kept in {}: run the command again", path.shown()),
                None => "no --checkpoint: nothing kept".to_string(),
            };
            Err(Interrupted(format!("interrupted at p = {p}; {kept}")).into())
        }
    }
}

/// The job's errors in the shell's words where they name what was asked.
fn worded(e: JobError) -> anyhow::Error {
    match e {
        JobError::OtherShape { path, lines, lag } => anyhow!(
            "{}: a checkpoint of --lines {lines} --lag {lag}, not of this command",
            path.shown()
        ),
        e => e.into(),
    }
}
