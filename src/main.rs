//! The `chomp3` command line: parses arguments, calls the library, prints results.
//! Errors are one line on stderr, `chomp3: error: ...`; exit codes: 0 success,
//! 1 error, 2 bad usage, 130 interrupted (the table is committed and safe).

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chomp3::analysis::Analysis;
use chomp3::compute::{self, ComputeError, Outcome, Request};
use chomp3::plot::Format;
use chomp3::position;
use chomp3::table::Table;
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};

const DEFAULT_TABLE: &str = "data/table.c3t";
const DEFAULT_DESCRIPTORS: &str = "data/census.c3d";
/// Where `chomp3 run` writes its analysis.
const RUN_RESULTS: &str = "data/run";
/// Where `chomp3 run` draws its figures.
const RUN_PLOTS: &str = "plots/run";

#[derive(Parser)]
#[command(
    name = "chomp3",
    version,
    about = "Exact three-rowed Chomp: the table f(q,r) of P-positions"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(clap::Args)]
struct TableArg {
    /// Table file
    #[arg(long, value_name = "PATH", default_value = DEFAULT_TABLE)]
    table: PathBuf,
}

#[derive(clap::Args)]
struct ComputeArgs {
    /// Compute every f(q,r) with r <= q <= N
    #[arg(long, value_name = "N")]
    n: u64,
    #[command(flatten)]
    table: TableArg,
    /// Largest N a new table may grow to; sets the bits per value [default: max(N, 131071), 18 bits]
    #[arg(long, value_name = "N")]
    capacity: Option<u64>,
    /// Worker threads [default: one per core]
    #[arg(long, value_name = "T", default_value_t = 0)]
    threads: usize,
    /// No progress bar
    #[arg(long)]
    quiet: bool,
    /// Print one line of measurements (time, cells/s, peak memory, file size)
    #[arg(long)]
    stats: bool,
    /// Commit (sync to disk) at most every S seconds
    #[arg(long, value_name = "S", default_value_t = 2.0, hide = true)]
    commit_secs: f64,
}

#[derive(Subcommand)]
enum Cmd {
    /// Create the table, or extend it, up to N
    Compute(ComputeArgs),
    /// Print f(Q,R) (for R > Q, f(Q,Q)); beyond the table, from a certified census
    Get {
        /// Column q (middle row length)
        q: u64,
        /// Row r (top row length)
        r: u64,
        #[command(flatten)]
        table: TableArg,
        /// Census descriptors used for Q beyond the table
        #[arg(long, value_name = "PATH", default_value = DEFAULT_DESCRIPTORS)]
        census: PathBuf,
        /// Also say where the value came from
        #[arg(long)]
        explain: bool,
    },
    /// Print "q f(q,R)" per line for one row
    Row {
        /// The row
        r: u64,
        /// First column [default: 0]
        #[arg(long, value_name = "A", default_value_t = 0)]
        from: u64,
        /// Last column [default: N]
        #[arg(long, value_name = "B")]
        to: Option<u64>,
        #[command(flatten)]
        table: TableArg,
    },
    /// Print "q r f" per line for every r <= q, q outer
    Dump {
        #[command(flatten)]
        table: TableArg,
    },
    /// Describe a table file and check it
    Info {
        #[command(flatten)]
        table: TableArg,
        /// Also read all data and check its checksum
        #[arg(long)]
        verify: bool,
    },
    /// Read a table and write b-files, rows.tsv, summary.json and report.md
    Analyze {
        #[command(flatten)]
        table: TableArg,
        /// Census descriptors for rows the table cannot settle (used if present)
        #[arg(long, value_name = "PATH", default_value = DEFAULT_DESCRIPTORS)]
        census: PathBuf,
        /// Directory for the results
        #[arg(long, value_name = "DIR", default_value = "data")]
        out: PathBuf,
        /// Worker threads [default: one per core]
        #[arg(long, value_name = "T", default_value_t = 0)]
        threads: usize,
        /// No progress bar
        #[arg(long)]
        quiet: bool,
    },
    /// Draw the figures of a table and its analysis
    Plot {
        #[command(flatten)]
        table: TableArg,
        /// Directory for the figures
        #[arg(long, value_name = "DIR", default_value = "plots")]
        out: PathBuf,
        /// Write SVG instead of PNG
        #[arg(long)]
        svg: bool,
        /// The row shown up close
        #[arg(long, value_name = "R", default_value_t = 120)]
        row: u32,
        /// Worker threads [default: one per core]
        #[arg(long, value_name = "T", default_value_t = 0)]
        threads: usize,
    },
    /// Say whether [P,Q,R] is won or lost, and list every winning move
    Position {
        /// Bottom row length
        p: u64,
        /// Middle row length
        q: u64,
        /// Top row length
        r: u64,
        #[command(flatten)]
        table: TableArg,
    },
    /// Prove the fate of rows 0..=R without storing the table (certified census)
    Census {
        /// Last row
        #[arg(long, value_name = "R")]
        rows: u32,
        /// The census table
        #[arg(long, value_name = "PATH", default_value = "data/census.tsv")]
        out: PathBuf,
        /// The binary descriptors that `get` reads
        #[arg(long, value_name = "PATH", default_value = DEFAULT_DESCRIPTORS)]
        descriptors: PathBuf,
        /// Stop after this many columns; rows not proved by then are open [default: 3R + 10080]
        #[arg(long, value_name = "C")]
        max_columns: Option<u32>,
        /// Afterwards, compare every proved value with this dense table (q <= its N)
        #[arg(long, value_name = "TABLE")]
        check: Option<PathBuf>,
        /// Worker threads [default: one per core]
        #[arg(long, value_name = "T", default_value_t = 0)]
        threads: usize,
        /// No progress bar
        #[arg(long)]
        quiet: bool,
    },
    /// The main job: compute data/table.c3t (N = 5000), analyse it into data/run/, plot into plots/run/
    Run {
        /// Table size
        #[arg(long, value_name = "N", default_value_t = 5000)]
        n: u64,
        /// Worker threads [default: one per core]
        #[arg(long, value_name = "T", default_value_t = 0)]
        threads: usize,
    },
    /// Time fresh computations at several sizes, each in its own process
    Bench {
        /// Sizes to compute
        #[arg(long, value_delimiter = ',', default_value = "10000,30000,100000")]
        sizes: Vec<u64>,
        /// Worker threads [default: one per core]
        #[arg(long, value_name = "T", default_value_t = 0)]
        threads: usize,
        /// Directory for the temporary tables (deleted afterwards)
        #[arg(long, value_name = "DIR", default_value = "data")]
        dir: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let _ = ctrlc::set_handler(|| {
        compute::INTERRUPTED.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chomp3: error: {e:#}");
            let interrupted = matches!(e.downcast_ref(), Some(ComputeError::Interrupted { .. }));
            ExitCode::from(if interrupted { 130 } else { 1 })
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<io::Error>()
        .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
}

fn run(cmd: Cmd) -> Result<()> {
    match cmd {
        Cmd::Compute(args) => compute_cmd(&args),
        Cmd::Get {
            q,
            r,
            table,
            census,
            explain,
        } => get_cmd(&table.table, &census, q, r, explain),
        Cmd::Census {
            rows,
            out,
            descriptors,
            max_columns,
            check,
            threads,
            quiet,
        } => census_cmd(
            rows,
            &out,
            &descriptors,
            max_columns,
            check.as_deref(),
            threads,
            quiet,
        ),
        Cmd::Row { r, from, to, table } => {
            let t = open(&table.table)?;
            let to = to.unwrap_or(t.n().max(0) as u64);
            t.get(to, r)?; // checks both ends before printing anything
            let mut out = BufWriter::new(io::stdout().lock());
            for q in from..=to {
                writeln!(out, "{q} {}", t.get(q, r)?)?;
            }
            out.flush()?;
            Ok(())
        }
        Cmd::Dump { table } => {
            let t = open(&table.table)?;
            let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
            for q in 0..t.columns() as u32 {
                for r in 0..=q {
                    writeln!(out, "{q} {r} {}", t.value(q, r))?;
                }
            }
            out.flush()?;
            Ok(())
        }
        Cmd::Info { table, verify } => info(&table.table, verify),
        Cmd::Analyze {
            table,
            census,
            out,
            threads,
            quiet,
        } => {
            let command = format!(
                "chomp3 analyze --table {} --out {}",
                table.table.display(),
                out.display()
            );
            analyze_cmd(&table.table, &census, &out, threads, quiet, &command).map(|_| ())
        }
        Cmd::Plot {
            table,
            out,
            svg,
            row,
            threads,
        } => {
            let a = analysis(&table.table, Path::new(DEFAULT_DESCRIPTORS), threads, false)?.1;
            plot_cmd(&table.table, &a, &out, svg, row)
        }
        Cmd::Position { p, q, r, table } => position_cmd(&table.table, p, q, r),
        Cmd::Run { n, threads } => main_job(n, threads),
        Cmd::Bench {
            sizes,
            threads,
            dir,
        } => bench(&sizes, threads, &dir),
    }
}

fn open(path: &Path) -> Result<Table> {
    Table::open(path).with_context(|| format!("{}", path.display()))
}

fn compute_cmd(args: &ComputeArgs) -> Result<()> {
    let req = Request {
        path: args.table.table.clone(),
        n: args.n,
        capacity: args.capacity,
        threads: args.threads,
        commit_every: Duration::from_secs_f64(args.commit_secs.max(0.0)),
    };
    let outcome = compute_with_bar(&req, args.quiet)?;
    let Some(o) = outcome else {
        println!(
            "{}: already holds N >= {}; nothing to do",
            req.path.display(),
            req.n
        );
        return Ok(());
    };
    if args.stats {
        println!(
            "n={} cells={} seconds={:.2} cells_per_sec={:.0} peak_rss_kib={} file_bytes={}",
            o.n,
            o.cells,
            o.elapsed.as_secs_f64(),
            o.cells as f64 / o.elapsed.as_secs_f64(),
            peak_rss_kib().unwrap_or(0),
            o.file_len
        );
    } else if !args.quiet {
        print_outcome(&req.path, &o);
    }
    Ok(())
}

fn compute_with_bar(req: &Request, quiet: bool) -> Result<Option<Outcome>> {
    let bar = bar(
        quiet,
        "{bar:20} {percent:>3}% {human_pos}/{human_len} cells  {msg}  ETA {eta}",
    );
    let result = compute::compute(req, &mut |done, todo| {
        bar.set_length(todo);
        bar.set_position(done);
        let rate = done as f64 / bar.elapsed().as_secs_f64().max(1e-9);
        bar.set_message(format!("{:.1} M/s", rate / 1e6));
    });
    bar.finish_and_clear();
    result.with_context(|| format!("{}", req.path.display()))
}

fn print_outcome(path: &Path, o: &Outcome) {
    let from = if o.from_n < 0 {
        "new table".to_string()
    } else {
        format!("extended from N = {}", o.from_n)
    };
    println!(
        "{}: N = {} ({from}), {} cells in {:.2} s ({:.1} M cells/s), {} bytes",
        path.display(),
        o.n,
        o.cells,
        o.elapsed.as_secs_f64(),
        o.cells as f64 / o.elapsed.as_secs_f64() / 1e6,
        o.file_len
    );
}

fn info(path: &Path, verify: bool) -> Result<()> {
    let t = open(path)?;
    println!("table        {}", path.display());
    println!(
        "N            {} ({} complete columns, {} cells)",
        t.n(),
        t.columns(),
        chomp3::table::raw::cells(t.columns())
    );
    println!("capacity     {}", t.capacity());
    println!("bits/value   {}", t.bits());
    println!(
        "file size    {} bytes (committed data ends at {})",
        t.file_len(),
        t.used_len()
    );
    if verify {
        t.verify().with_context(|| format!("{}", path.display()))?;
        println!(
            "status       complete and consistent (header, length and data checksum verified)"
        );
    } else {
        println!(
            "status       complete and consistent (header and length checked; --verify reads all data)"
        );
    }
    Ok(())
}

fn main_job(n: u64, threads: usize) -> Result<()> {
    let path = PathBuf::from(DEFAULT_TABLE);
    std::fs::create_dir_all(path.parent().unwrap()).context("creating data/")?;
    let req = Request {
        path: path.clone(),
        n,
        capacity: None,
        threads,
        commit_every: Duration::from_secs(2),
    };
    match compute_with_bar(&req, false)? {
        Some(o) => print_outcome(&path, &o),
        None => println!("{}: already holds N >= {n}", path.display()),
    }
    // Results go beside, not over, the committed N = 10^5 results.
    let census = Path::new(DEFAULT_DESCRIPTORS);
    let a = analyze_cmd(
        &path,
        census,
        Path::new(RUN_RESULTS),
        threads,
        false,
        "chomp3 run",
    )?;
    plot_cmd(&path, &a, Path::new(RUN_PLOTS), false, 120.min(a.facts.n))
}

fn analyze_cmd(
    path: &Path,
    census: &Path,
    out: &Path,
    threads: usize,
    quiet: bool,
    command: &str,
) -> Result<Analysis> {
    let (elapsed, a) = analysis(path, census, threads, quiet)?;
    chomp3::analysis::report::write_all(&a, path, command, out)
        .with_context(|| format!("writing {}", out.display()))?;
    let census = a.census();
    println!(
        "analysed N = {} in {:.1} s: {} constant rows, {} proved periodic, {} periodic by evidence, {} open",
        a.facts.n,
        elapsed.as_secs_f64(),
        census.constant,
        census.proved.values().sum::<u64>(),
        census.evidence.values().sum::<u64>(),
        census.open
    );
    println!(
        "every row below {} is settled; results in {}/ (report.md, rows.tsv, summary.json, b-files)",
        a.resolved_below,
        out.display()
    );
    Ok(a)
}

/// Runs the analysis passes with a progress bar; returns the time they took.
fn analysis(
    path: &Path,
    census: &Path,
    threads: usize,
    quiet: bool,
) -> Result<(Duration, Analysis)> {
    let t = open(path)?;
    let census = census
        .exists()
        .then(|| chomp3::census_file::Descriptors::open(census))
        .transpose()
        .map_err(|e| anyhow::anyhow!(e))?;
    if t.columns() == 0 {
        bail!("{}: the table is empty; run compute first", path.display());
    }
    let started = Instant::now();
    let bar = bar(
        quiet,
        "{bar:20} {percent:>3}% {msg} {human_pos}/{human_len}  ETA {eta}",
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let a = pool.install(|| {
        chomp3::analysis::analyze(&t, census.as_ref(), &mut |stage, done, total| {
            bar.set_message(stage.to_string());
            bar.set_length(total);
            bar.set_position(done);
        })
    });
    bar.finish_and_clear();
    Ok((started.elapsed(), a))
}

fn plot_cmd(path: &Path, a: &Analysis, out: &Path, svg: bool, row: u32) -> Result<()> {
    let t = open(path)?;
    if row as i64 > t.n() {
        bail!("--row {row} is beyond the table, which holds N = {}", t.n());
    }
    let format = if svg { Format::Svg } else { Format::Png };
    let written = chomp3::plot::plot_all(&t, a, out, format, row)
        .map_err(|e| anyhow::anyhow!("drawing into {}: {e}", out.display()))?;
    for f in written {
        println!("{}", f.display());
    }
    Ok(())
}

fn get_cmd(table: &Path, census: &Path, q: u64, r: u64, explain: bool) -> Result<()> {
    let from_table = Table::open(table)
        .map_err(anyhow::Error::from)
        .and_then(|t| {
            let v = t.get(q, r)?;
            Ok((
                v as u64,
                format!("from the table {} (N = {})", table.display(), t.n()),
            ))
        });
    let (value, how) = match from_table {
        Ok(found) => found,
        Err(table_err) => {
            // Beyond the table: a certified row answers for any q >= its start.
            let row = r.min(q);
            let fate = census
                .exists()
                .then(|| chomp3::census_file::Descriptors::open(census))
                .transpose()
                .map_err(|e| anyhow::anyhow!(e))?
                .and_then(|d| u32::try_from(row).ok().and_then(|row| d.fate(row)));
            match fate.as_ref().and_then(|f| f.value(q).map(|v| (f, v))) {
                Some((f, v)) => (v, describe(f, row, census)),
                None => return Err(table_err.context(format!("{}", table.display()))),
            }
        }
    };
    println!("{value}");
    if explain {
        println!("{how}");
    }
    Ok(())
}

fn describe(f: &chomp3::census::Fate, r: u64, census: &Path) -> String {
    use chomp3::census::Fate;
    let src = census.display();
    match f {
        Fate::Constant { start } => {
            format!("from {src}: row {r} is constant, f(q,{r}) = {start} for q >= {start}")
        }
        Fate::Periodic { start, pattern, .. } => format!(
            "from {src}: row {r} is proved periodic, f(q,{r}) - q repeats [{}] from q = {start}",
            pattern
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(",")
        ),
        Fate::Open => unreachable!("open rows give no value"),
    }
}

fn census_cmd(
    rows: u32,
    out: &Path,
    descriptors: &Path,
    max_columns: Option<u32>,
    check: Option<&Path>,
    threads: usize,
    quiet: bool,
) -> Result<()> {
    use chomp3::census::{self, BATCH_COLS, Fate, Weaken};
    let check = check.map(open).transpose()?;
    for p in [out, descriptors] {
        let dir = chomp3::table::parent_dir(p);
        if !dir.is_dir() {
            bail!("directory {} does not exist", dir.display());
        }
    }
    let max_columns = max_columns.unwrap_or(rows.saturating_mul(3).saturating_add(4 * BATCH_COLS));
    let started = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let bar = bar(quiet, "{bar:20} {msg}  ETA {eta}");
    // Rows settle near column sqrt(2) r: a fair guess of the columns needed.
    bar.set_length((rows as u64 * 1415 / 1000) + 2 * BATCH_COLS as u64);
    let (fates, columns) = census::census(
        rows,
        max_columns,
        BATCH_COLS,
        &pool,
        Weaken::default(),
        &mut |q, settled| {
            bar.set_position(q as u64);
            bar.set_message(format!(
                "column {q}, rows 0..{settled} settled of {}",
                rows as u64 + 1
            ));
        },
    );
    bar.finish_and_clear();
    let command = format!("chomp3 census --rows {rows}");
    chomp3::census_file::write_tsv(&fates, columns, &command, out)
        .with_context(|| format!("{}", out.display()))?;
    chomp3::census_file::write_descriptors(&fates, columns, descriptors)
        .with_context(|| format!("{}", descriptors.display()))?;
    let (mut constant, mut periodic, mut open) = (0, 0, 0);
    for f in &fates {
        match f {
            Fate::Constant { .. } => constant += 1,
            Fate::Periodic { .. } => periodic += 1,
            Fate::Open => open += 1,
        }
    }
    println!(
        "census of rows 0..={rows} in {:.1} s ({columns} columns, peak RSS {} MiB): {constant} constant, {periodic} proved periodic, {open} open",
        started.elapsed().as_secs_f64(),
        peak_rss_kib().unwrap_or(0) / 1024
    );
    println!("wrote {} and {}", out.display(), descriptors.display());
    if let Some(t) = check {
        let started = Instant::now();
        let report = census::check_against(&fates, &t);
        if let Some((q, r)) = report.first_mismatch {
            bail!("the census disagrees with the table at f({q},{r})");
        }
        println!(
            "checked against the table (N = {}): all {} proved values agree, every start is the least ({:.1} s)",
            t.n(),
            report.values,
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

fn position_cmd(path: &Path, p: u64, q: u64, r: u64) -> Result<()> {
    let t = open(path)?;
    if position::is_p(&t, p, q, r)? {
        println!("[{p},{q},{r}] is a P-position: the player to move loses");
        return Ok(());
    }
    let moves = position::winning_moves(&t, p, q, r)?;
    let s = if moves.len() == 1 { "" } else { "s" };
    println!(
        "[{p},{q},{r}] is an N-position: the player to move wins; {} winning move{s}:",
        moves.len()
    );
    for m in moves {
        println!("  {m}");
    }
    Ok(())
}

/// A progress bar on a terminal, hidden otherwise or when `quiet`.
fn bar(quiet: bool, template: &str) -> ProgressBar {
    if quiet || !io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
            .with_style(ProgressStyle::with_template(template).expect("valid template"))
    }
}

fn bench(sizes: &[u64], threads: usize, dir: &Path) -> Result<()> {
    let exe = std::env::current_exe()?;
    println!(
        "{:>8} {:>14} {:>9} {:>14} {:>12} {:>15}",
        "N", "cells", "seconds", "cells/s", "peak RSS MiB", "file bytes"
    );
    for &n in sizes {
        let path = dir.join(format!(".bench-{n}-{}.c3t", std::process::id()));
        let output = Command::new(&exe)
            .args(["compute", "--quiet", "--stats", "--n", &n.to_string()])
            .args(["--threads", &threads.to_string(), "--table"])
            .arg(&path)
            .output();
        let _ = std::fs::remove_file(&path);
        let output = output?;
        if !output.status.success() {
            bail!(
                "bench N = {n}: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        let line = String::from_utf8_lossy(&output.stdout);
        let field = |k: &str| -> String {
            line.split_whitespace()
                .find_map(|kv| kv.strip_prefix(k).and_then(|v| v.strip_prefix('=')))
                .unwrap_or("?")
                .to_string()
        };
        let rss_mib = field("peak_rss_kib").parse::<f64>().unwrap_or(0.0) / 1024.0;
        println!(
            "{n:>8} {:>14} {:>9} {:>14} {rss_mib:>12.0} {:>15}",
            field("cells"),
            field("seconds"),
            field("cells_per_sec"),
            field("file_bytes")
        );
    }
    Ok(())
}

/// Peak resident memory of this process (Linux `VmHWM`), in KiB.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
