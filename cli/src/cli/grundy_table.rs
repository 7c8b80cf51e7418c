//! `chomp3 grundy-table`: create or extend the stored table of `G(p,q,r)` for
//! every position with `p <= N` (a `.g3t` file; resumable, kill -9 safe).

use super::Shown;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use chomp3::f::table::Table;
use chomp3::grundy::job::{Checked, Job, Names, RECTANGLES, SLAB_COUNTS};
use chomp3::grundy::table::{Damaged, ExtendError, Extended, GrundyTable, extend, zeros_match};

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
    /// The sweep's saved state, from which the next run continues (kept after
    /// the run, for a later --n) [default: the table's path with .g3s]
    #[arg(long, value_name = "PATH")]
    checkpoint: Option<PathBuf>,
    /// Seconds between saves of the sweep (each after a commit of the table)
    #[arg(long, value_name = "S", default_value = "600", value_parser = super::args::seconds)]
    checkpoint_secs: Duration,
    #[command(flatten)]
    quiet: QuietArg,
    /// Afterwards, check that G = 0 exactly at the P-positions of this f table
    /// (`chomp3 compute`), for every position whose q it holds
    #[arg(long, value_name = "PATH")]
    check_f: Option<PathBuf>,
    /// Once the table is complete, write into DIR the b-file of G(n,n,n),
    /// n <= N (grundy-rectangles.txt, OEIS A069001), and per slab the count of
    /// positions with G = 0, 1, 2, 3 (grundy-slab-counts.tsv), read from it
    #[arg(long, value_name = "DIR")]
    bfiles: Option<PathBuf>,
    /// Replace b-files in --bfiles of more terms than this table gives
    #[arg(long)]
    replace: bool,
    /// Test hook: once slab P is written (not yet committed), say so and wait for Ctrl-C
    #[cfg(feature = "test-hooks")]
    #[arg(long, value_name = "P", hide = true)]
    hold_at: Option<u32>,
}

pub fn run(args: &Args) -> Result<()> {
    let path = args
        .table
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_GRUNDY_TABLE));
    // The f table to compare with is opened before the work, not after it.
    if let Some(f_path) = &args.check_f {
        Table::open(f_path).map_err(|e| file_error(f_path, e))?;
    }
    let had_table = path.exists();
    let job = Job {
        n: args.n,
        table: path.clone(),
        capacity: args.capacity,
        checkpoint: args.checkpoint.clone(),
        checkpoint_every: args.checkpoint_secs,
        bfiles: args.bfiles.clone(),
        replace: args.replace,
    };
    let names = Names {
        table: "--table",
        checkpoint: "--checkpoint",
        bfiles: "--bfiles",
    };
    let Checked {
        capacity,
        checkpoint,
        held: _held,
    } = job.check(names)?;
    let started = Instant::now();
    let bar = bar(
        args.quiet.quiet,
        "{bar:40} p = {pos}/{len}  {elapsed} (eta {eta})",
    );
    bar.set_length(args.n as u64);
    let stop = super::ctrl_c();
    let outcome = extend(&path, args.n, capacity, Some(&checkpoint), &stop, |p| {
        bar.set_position(p as u64);
        #[cfg(feature = "test-hooks")]
        let hold_at = args.hold_at;
        #[cfg(not(feature = "test-hooks"))]
        let hold_at = None;
        if hold_at == Some(p) {
            note!("chomp3: holding at p = {p}");
            super::hold_until_ctrl_c();
        }
    })
    .map_err(|e| match e {
        ExtendError::Table(e) => file_error(&path, e),
        e => anyhow::anyhow!(e),
    })?;
    bar.finish_and_clear();
    let t = GrundyTable::open(&path).map_err(|e| file_error(&path, e))?;
    let bytes = std::fs::metadata(&path)?.len();
    match outcome {
        Extended::Stopped(p) => Err(Interrupted(format!(
            "interrupted; {} holds every p <= {p}{}",
            path.shown(),
            match p >= u64::from(args.n) {
                true => ", all that was asked: nothing is left to compute",
                false => "; run the same command to continue",
            }
        ))
        .into()),
        Extended::Held { swept } => {
            say!(
                "{}: holds every position with p <= {} already; nothing computed{}",
                path.shown(),
                t.n().unwrap_or(0),
                match swept {
                    Some(p) => format!(
                        " (its sweep, missing or behind, brought to p = {p} through the stored slabs, each checked, and saved in {})",
                        checkpoint.path.shown()
                    ),
                    None => String::new(),
                }
            );
            finish(&t, args, &path)
        }
        Extended::Done { checked, resumed } => {
            let from = match resumed {
                Some(p) => format!("from the sweep saved at p = {p}, "),
                None if had_table => format!(
                    "no sweep saved at {}: every stored slab swept again, ",
                    checkpoint.path.shown()
                ),
                None => String::new(),
            };
            let computed = (args.n as u64) - resumed.unwrap_or(0) - checked;
            say!(
                "{}: every position with p <= {} ({from}{checked} checked again, {computed} computed) in {:.2} s, peak memory {} MiB, {bytes} bytes",
                path.shown(),
                t.n().unwrap_or(0),
                started.elapsed().as_secs_f64(),
                peak_rss_kib().unwrap_or(0) / 1024
            );
            finish(&t, args, &path)
        }
    }
}

/// What follows a complete table: `--bfiles`, then `--check-f`.
fn finish(t: &GrundyTable, args: &Args, path: &std::path::Path) -> Result<()> {
    // The table is whole; what follows takes no stop token, and Ctrl-C ends
    // it at once (but while the b-files are written as a set).
    if args.bfiles.is_some() || args.check_f.is_some() {
        super::ends_at_once_on_ctrl_c()?;
    }
    if let Some(dir) = &args.bfiles {
        write_bfiles(t, dir, path)?;
    }
    if let Some(f_path) = &args.check_f {
        let f = Table::open(f_path).map_err(|e| file_error(f_path, e))?;
        let compared = zeros_match(t, &f).map_err(|e| match e {
            Damaged::Grundy(e) => file_error(path, e),
            Damaged::F(e) => file_error(f_path, e),
        })?;
        match compared {
            Ok(n) => say!(
                "G = 0 exactly at f(q,r) of {} on all {n} positions compared",
                f_path.shown()
            ),
            Err([p, q, r]) => bail!(
                "G and the f table {} disagree at [{p},{q},{r}]: one says P-position, the other not",
                f_path.shown()
            ),
        }
    }
    Ok(())
}

/// Writes the rectangles' b-file and the slab counts of the complete table
/// `t` (at `path`) into `dir`, as a set.
fn write_bfiles(t: &GrundyTable, dir: &std::path::Path, path: &std::path::Path) -> Result<()> {
    use chomp3::grundy::{sequences, table};
    let named = |e| file_error(path, e);
    let rectangles = table::rectangles(t).map_err(named)?;
    let counts = table::slab_counts(t).map_err(named)?;
    let command = format!(
        "chomp3 grundy-table --n {} --table {} --bfiles {}",
        t.n().unwrap_or(0),
        super::shell::quote(path.as_os_str()),
        super::shell::quote(dir.as_os_str())
    );
    std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.shown()))?;
    super::writing(|| {
        let mut set = chomp3::base::atomic_write::FileSet::new();
        set.write(&dir.join(RECTANGLES), |w| {
            sequences::write_rectangles(&rectangles, &command, w)
        })?;
        set.write(&dir.join(SLAB_COUNTS), |w| {
            sequences::write_slab_counts(&counts, &command, w)
        })?;
        set.commit()
    })?;
    say!(
        "wrote {} and {} in {}",
        RECTANGLES,
        SLAB_COUNTS,
        dir.shown()
    );
    Ok(())
}
