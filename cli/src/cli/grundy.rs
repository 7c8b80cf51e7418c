//! `chomp3 grundy-census`: prove the period of every line `(q,r)`, `q <= Q`,
//! of the Sprague-Grundy values, and write the Grundy census file. The job,
//! its checks and its outputs are the library's (`grundy::census_job`); this
//! parses, shows the progress and words the outcome.

use super::Shown;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};
use chomp3::grundy::census_job::{DEFAULT_MAX_P, Job, Names, Outcome};

use super::Interrupted;
use super::args::QuietArg;
use super::progress::{bar, peak_rss_kib};

#[derive(clap::Args)]
pub struct Args {
    /// Prove every line (q,r) with r <= q <= Q
    #[arg(long, value_name = "Q", value_parser = super::args::grundy_lines)]
    lines: u32,
    /// Give up on lines not proved once p reaches this
    #[arg(long, value_name = "P", default_value_t = DEFAULT_MAX_P)]
    max_p: u32,
    /// The census file to write (aside, then renamed)
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Also write b-files into DIR: each line's period and start
    /// (grundy-periods.txt, grundy-starts.txt) and, with --rectangles N,
    /// G(n,n,n) for n <= N (grundy-rectangles.txt)
    #[arg(long, value_name = "DIR")]
    bfiles: Option<PathBuf>,
    /// With --bfiles: the 3 x n rectangles up to N
    #[arg(long, value_name = "N", requires = "bfiles")]
    rectangles: Option<u32>,
    /// Replace a Grundy census at the output, or b-files, of more lines than this one
    #[arg(long)]
    replace: bool,
    #[command(flatten)]
    quiet: QuietArg,
}

pub fn run(args: &Args) -> Result<()> {
    let mut command = format!(
        "chomp3 grundy-census --lines {} --max-p {}",
        args.lines, args.max_p
    );
    if let Some(dir) = &args.bfiles {
        command += &format!(" --bfiles {}", super::shell::quote(dir.as_os_str()));
        if let Some(n) = args.rectangles {
            command += &format!(" --rectangles {n}");
        }
    }
    command += &format!(" --out {}", super::shell::quote(args.out.as_os_str()));
    let job = Job {
        lines: args.lines,
        max_p: args.max_p,
        out: args.out.clone(),
        bfiles: args.bfiles.clone(),
        rectangles: args.rectangles,
        replace: args.replace,
        command,
    };
    let names = Names {
        out: "--out",
        bfiles: "--bfiles",
    };
    // Options that ask for nothing writable are argument errors (exit 2).
    let checked = job.check(names).map_err(|e| match e {
        e @ (chomp3::grundy::census_job::JobError::NoRectangles
        | chomp3::grundy::census_job::JobError::RectanglesWithoutBFiles) => {
            anyhow::Error::from(super::Usage(e.to_string()))
        }
        e => e.into(),
    })?;
    let started = Instant::now();
    let all = chomp3::grundy::line(args.lines, args.lines) + 1;
    let bar = bar(
        args.quiet.quiet,
        "{spinner} pass {prefix}: p = {pos}, {msg}  {elapsed}",
    );
    let stop = super::ctrl_c();
    // Off a terminal (a run in the background) a line a minute instead of the bar.
    let lines_to_log = !args.quiet.quiet && bar.is_hidden();
    let mut logged = Instant::now();
    let outcome = job.run(checked, &stop, &mut |at| {
        let what = if at.pass == 1 {
            "proved"
        } else {
            "with exact starts"
        };
        let msg = format!("{} of {all} lines {what}, {} live", at.done, at.live);
        if lines_to_log && logged.elapsed().as_secs() >= 60 {
            logged = Instant::now();
            note!(
                "chomp3: pass {}: p = {}, {msg}, {:.0} s",
                at.pass,
                at.p,
                started.elapsed().as_secs_f64()
            );
        }
        bar.set_prefix(at.pass.to_string());
        bar.set_position(at.p as u64);
        bar.set_message(msg);
    });
    bar.finish_and_clear();
    let (lines, proved, swept) = match outcome? {
        Outcome::Written {
            lines,
            proved,
            swept,
        } => (lines, proved, swept),
        Outcome::Interrupted => {
            return Err(Interrupted(format!(
                "interrupted; {} not written (the Grundy census keeps no checkpoint: run the command again)",
                args.out.shown()
            ))
            .into());
        }
        Outcome::InterruptedInRectangles => {
            return Err(
                Interrupted("interrupted; grundy-rectangles.txt not written".into()).into(),
            );
        }
    };
    note!(
        "chomp3: {proved} of {lines} lines proved (p swept to {swept}), {:.1} s, peak RSS {} MiB; wrote {}",
        started.elapsed().as_secs_f64(),
        peak_rss_kib().unwrap_or(0) / 1024,
        args.out.shown()
    );
    if proved < lines {
        bail!(
            "{} lines not proved by p = {}; raise --max-p (the file holds the lines proved)",
            lines - proved,
            args.max_p
        );
    }
    super::heard_at_the_end(&format!("{} is whole", args.out.shown()))
}
