//! `chomp3 grundy-table`: create or extend the stored table of `G(p,q,r)` for
//! every position with `p <= N` (a `.g3t` file; resumable, kill -9 safe).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};
use chomp3::grundy::table::{Damaged, Extended, GrundyTable, extend, zeros_match};
use chomp3::table::{Shape, Table};

use super::Interrupted;
use super::args::{QuietArg, file_error};
use super::progress::{bar, peak_rss_kib};

/// Where the Grundy table is read or written when `--table` is not given.
pub const DEFAULT_GRUNDY_TABLE: &str = "data/grundy.g3t";

#[derive(clap::Args)]
pub struct Args {
    /// Store G(p,q,r) for every position with p <= N
    #[arg(long, value_name = "N")]
    n: u32,
    /// Table file [default: data/grundy.g3t]
    #[arg(long = "table", value_name = "PATH")]
    table: Option<PathBuf>,
    /// Largest N a new table may grow to; sets the bits per value [default: max(N, 5000)]
    #[arg(long, value_name = "N")]
    capacity: Option<u64>,
    #[command(flatten)]
    quiet: QuietArg,
    /// Afterwards, check that G = 0 exactly at the P-positions of this f table
    /// (`chomp3 compute`), for every position whose q it holds
    #[arg(long, value_name = "PATH")]
    check_f: Option<PathBuf>,
    /// Test hook: once slab P is written (not yet committed), say so and wait for Ctrl-C
    #[arg(long, value_name = "P", hide = true)]
    hold_at: Option<u32>,
}

pub fn run(args: &Args) -> Result<()> {
    let path = args
        .table
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_GRUNDY_TABLE));
    let capacity = args.capacity.unwrap_or((args.n as u64).max(5000));
    let max = Shape::Tetrahedron.max_capacity();
    if args.n as u64 > max {
        bail!(
            "--n {} is beyond the largest Grundy table this format holds (N <= {max})",
            args.n
        );
    }
    if capacity < args.n as u64 || capacity > max {
        bail!("--capacity {capacity} is not possible: give at least --n and at most {max}");
    }
    chomp3::grundy::check_memory(args.n)?;
    let started = Instant::now();
    let bar = bar(
        args.quiet.quiet,
        "{bar:40} p = {pos}/{len}  {elapsed} (eta {eta})",
    );
    bar.set_length(args.n as u64);
    let stop = super::ctrl_c();
    let outcome = extend(&path, args.n, capacity, &stop, |p| {
        bar.set_position(p as u64);
        if args.hold_at == Some(p) {
            eprintln!("chomp3: holding at p = {p}");
            super::hold_until_ctrl_c();
        }
    })
    .map_err(|e| file_error(&path, e))?;
    bar.finish_and_clear();
    let t = GrundyTable::open(&path).map_err(|e| file_error(&path, e))?;
    let bytes = std::fs::metadata(&path)?.len();
    match outcome {
        Extended::Stopped(p) => Err(Interrupted(format!(
            "interrupted; {} holds every p <= {p}; run the same command to continue",
            path.display()
        ))
        .into()),
        Extended::Done { checked } => {
            println!(
                "{}: every position with p <= {} ({} checked again, {} computed) in {:.2} s, peak memory {} MiB, {bytes} bytes",
                path.display(),
                t.n().unwrap_or(0),
                checked,
                (args.n as u64).saturating_sub(checked),
                started.elapsed().as_secs_f64(),
                peak_rss_kib().unwrap_or(0) / 1024
            );
            if let Some(f_path) = &args.check_f {
                let f = Table::open(f_path).map_err(|e| file_error(f_path, e))?;
                let compared = zeros_match(&t, &f).map_err(|e| match e {
                    Damaged::Grundy(e) => file_error(&path, e),
                    Damaged::F(e) => file_error(f_path, e),
                })?;
                match compared {
                    Ok(n) => println!(
                        "G = 0 exactly at f(q,r) of {} on all {n} positions compared",
                        f_path.display()
                    ),
                    Err([p, q, r]) => bail!(
                        "G and the f table {} disagree at [{p},{q},{r}]: one says P-position, the other not",
                        f_path.display()
                    ),
                }
            }
            Ok(())
        }
    }
}
