//! `chomp3 grundy-census`: prove the period of every line `(q,r)`, `q <= Q`,
//! of the Sprague-Grundy values, and write the Grundy census file.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Result, anyhow, bail};
use chomp3::grundy::{ProvedLine, census::census, file, line, sequences};
use chomp3::outputs::{self, Kind, Output};

use super::Interrupted;
use super::args::QuietArg;
use super::progress::{bar, peak_rss_kib};

#[derive(clap::Args)]
pub struct Args {
    /// Prove every line (q,r) with r <= q <= Q
    #[arg(long, value_name = "Q", value_parser = super::args::grundy_lines)]
    lines: u32,
    /// Give up on lines not proved once p reaches this
    #[arg(long, value_name = "P", default_value_t = 10_000_000)]
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
    let mut plan = vec![Output::new(&args.out, Kind::GrundyCensus, "--out")];
    if let Some(dir) = &args.bfiles {
        let mut names = vec!["grundy-periods.txt", "grundy-starts.txt"];
        if args.rectangles.is_some() {
            names.push("grundy-rectangles.txt");
        }
        for name in names {
            plan.push(Output::new(dir.join(name), Kind::GrundyBFile, "--bfiles"));
        }
    }
    outputs::check(&plan)?;
    chomp3::grundy::file::may_write(&args.out, args.lines, args.replace)?;
    if let Some(dir) = &args.bfiles {
        let lines = line(args.lines, args.lines) as u64 + 1;
        for name in ["grundy-periods.txt", "grundy-starts.txt"] {
            sequences::may_write_bfile(&dir.join(name), lines, args.replace)?;
        }
        if let Some(n) = args.rectangles {
            let path = dir.join("grundy-rectangles.txt");
            sequences::may_write_bfile(&path, n.into(), args.replace)?;
        }
    }
    chomp3::grundy::check_memory(args.lines.max(args.rectangles.unwrap_or(0)))?;
    let _held = outputs::lock(&plan)?;
    let started = Instant::now();
    let all = line(args.lines, args.lines) + 1;
    let bar = bar(
        args.quiet.quiet,
        "{spinner} pass {prefix}: p = {pos}, {msg}  {elapsed}",
    );
    let stop = super::ctrl_c();
    // Off a terminal (a run in the background) a line a minute instead of the bar.
    let lines_to_log = !args.quiet.quiet && bar.is_hidden();
    let mut logged = Instant::now();
    let c = census(args.lines, args.max_p, &stop, &mut |at| {
        if at.p.is_multiple_of(256) {
            let what = if at.pass == 1 {
                "proved"
            } else {
                "with exact starts"
            };
            let msg = format!("{} of {all} lines {what}, {} live", at.done, at.live);
            if lines_to_log && logged.elapsed().as_secs() >= 60 {
                logged = Instant::now();
                eprintln!(
                    "chomp3: pass {}: p = {}, {msg}, {:.0} s",
                    at.pass,
                    at.p,
                    started.elapsed().as_secs_f64()
                );
            }
            bar.set_prefix(at.pass.to_string());
            bar.set_position(at.p as u64);
            bar.set_message(msg);
        }
    });
    bar.finish_and_clear();
    if stop.requested() {
        return Err(Interrupted(format!(
            "interrupted; {} not written (the Grundy census keeps no checkpoint: run the command again)",
            args.out.display()
        ))
        .into());
    }
    let mut command = format!(
        "chomp3 grundy-census --lines {} --max-p {}",
        args.lines, args.max_p
    );
    if let Some(dir) = &args.bfiles {
        command += &format!(" --bfiles {}", super::args::quote(dir.as_os_str()));
        if let Some(n) = args.rectangles {
            command += &format!(" --rectangles {n}");
        }
    }
    command += &format!(" --out {}", super::args::quote(args.out.as_os_str()));
    chomp3::base::atomic_write::write_atomically(&args.out, |w| file::write(&c, &command, w))
        .map_err(|e| anyhow!("{}: {e}", args.out.display()))?;
    if let Some(dir) = &args.bfiles {
        write_bfiles(dir, &c, args.rectangles, &command, &stop)?;
    }
    eprintln!(
        "chomp3: {} of {all} lines proved (p swept to {}), {:.1} s, peak RSS {} MiB; wrote {}",
        c.lines.len(),
        c.swept,
        started.elapsed().as_secs_f64(),
        peak_rss_kib().unwrap_or(0) / 1024,
        args.out.display()
    );
    if c.lines.len() < all {
        bail!(
            "{} lines not proved by p = {}; raise --max-p (the file holds the lines proved)",
            all - c.lines.len(),
            args.max_p
        );
    }
    Ok(())
}

/// The b-files of `--bfiles DIR`.
fn write_bfiles(
    dir: &Path,
    c: &chomp3::grundy::census::Census,
    rectangles: Option<u32>,
    command: &str,
    stop: &chomp3::base::stop::Stop,
) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| anyhow!("{}: {e}", dir.display()))?;
    let write = |name: &str, f: &dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()>| {
        let path = dir.join(name);
        chomp3::base::atomic_write::write_atomically(&path, |w| f(w))
            .map_err(|e| anyhow!("{}: {e}", path.display()))
    };
    let rows: Vec<ProvedLine> = c.lines.iter().map(ProvedLine::from).collect();
    write("grundy-periods.txt", &|w| {
        sequences::write_lines(&rows, true, command, w)
    })?;
    write("grundy-starts.txt", &|w| {
        sequences::write_lines(&rows, false, command, w)
    })?;
    if let Some(n) = rectangles {
        let values = sequences::rectangles(n, stop)
            .ok_or_else(|| Interrupted("interrupted; grundy-rectangles.txt not written".into()))?;
        write("grundy-rectangles.txt", &|w| {
            sequences::write_rectangles(&values, command, w)
        })?;
    }
    Ok(())
}
