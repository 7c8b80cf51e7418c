//! `chomp3 analyze`: a table (and a census for the rows it cannot settle) into
//! b-files, rows.tsv, summary.json and report.md.

use super::Shown;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chomp3::f::analysis::counts::RowCounts;
use chomp3::f::analysis::report::Extent;
use chomp3::f::analysis::{Analysis, analyze};
use chomp3::f::census_file::Descriptors;

use super::args::{CensusArg, QuietArg, TABLE_GAPS, TableArg, ThreadsArg, open_table};
use super::progress::bar;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArg,
    #[command(flatten)]
    census: CensusArg,
    /// Directory for the results
    #[arg(long, value_name = "DIR", default_value = "data")]
    out: PathBuf,
    /// Analyse the census alone, even where a table exists (also the default
    /// when no table is named and none is at the default path)
    #[arg(long, conflicts_with = "table")]
    census_only: bool,
    /// Replace an analysis in --out made from a larger table or census, from
    /// the other kind of source, or holding more (rows settled or b-file
    /// terms, as one made with a census does), or files of its names that
    /// no readable summary.json there accounts for
    #[arg(long)]
    replace: bool,
    #[command(flatten)]
    threads: ThreadsArg,
    #[command(flatten)]
    quiet: QuietArg,
}

pub fn run(args: &Args) -> Result<()> {
    // A directory named as another output's lock or file written aside
    // would stand in that writer's way: refused by its name first.
    chomp3::base::lock::check_name(&args.out)?;
    // One analysis into `--out` at a time, from the check of what is there
    // to the last file written.
    let _held = chomp3::base::lock::lock(&args.out.join("summary.json"))?;
    let table = args.table.named();
    if args.census_only || (!table.named && !table.path.exists()) {
        return census_only(args);
    }
    let mut command = format!(
        "chomp3 analyze --table {}",
        super::shell::quote(table.path.as_os_str())
    );
    if let Some(census) = args.census.given() {
        command += &format!(" --census {}", super::shell::quote(census.as_os_str()));
    }
    command += &format!(" --out {}", super::shell::quote(args.out.as_os_str()));
    may_replace(
        args,
        &Extent::before(open_table(&table.path)?.n().unwrap_or(0), false),
    )?;
    let census = args.census.open(TABLE_GAPS)?;
    let (elapsed, a) = passes(
        &table.path,
        census.as_ref(),
        &args.threads,
        args.quiet.quiet,
    )?;
    // Now that it is known how much this analysis holds.
    may_replace(args, &Extent::of(&a))?;
    write(&a, &table.path, &args.out, &command, elapsed)?;
    if census.is_none() {
        args.census.say_none();
    }
    Ok(())
}

/// No table named and none at the default path: everything from the census.
fn census_only(args: &Args) -> Result<()> {
    let started = Instant::now();
    let a = census_analysis(&args.table, &args.census)?;
    may_replace(args, &Extent::of(&a))?;
    let census = args.census.named().path;
    let command = format!(
        "chomp3 analyze --census-only --census {} --out {}",
        super::shell::quote(census.as_os_str()),
        super::shell::quote(args.out.as_os_str())
    );
    write(&a, &census, &args.out, &command, started.elapsed())
}

/// Refuses, unless `--replace`, to write over what `--out` holds: an analysis
/// of a larger `N`, of the other kind of source or holding more, or files
/// that no finished analysis there accounts for (the library's rule).
fn may_replace(args: &Args, this: &Extent) -> Result<()> {
    if args.replace {
        return Ok(());
    }
    chomp3::f::analysis::report::may_write(&args.out, this)
        .map_err(|e| anyhow::anyhow!("{e}; give another --out, or pass --replace"))
}

/// The analysis of the census alone (when there is no table).
pub fn census_analysis(table: &TableArg, census: &CensusArg) -> Result<Analysis> {
    let path = census.named().path;
    let Some(d) = census.open("for everything (no table)")? else {
        bail!(
            "no table at {} and no census at {}; give --table or --census",
            table.path().shown(),
            path.shown()
        );
    };
    chomp3::f::analysis::from_census(&d).ok_or_else(|| {
        anyhow::anyhow!(
            "{}: this census file has no facts of its columns (a version 1 file, or a census that computed no column); run `chomp3 census` again",
            path.shown()
        )
    })
}

/// Writes the results of `a` into `out` and says what was found.
pub fn write(
    a: &Analysis,
    table: &Path,
    out: &Path,
    command: &str,
    elapsed: Duration,
) -> Result<()> {
    super::writing(|| chomp3::f::analysis::report::write_all(a, table, command, out))
        .with_context(|| format!("writing {}", out.shown()))?;
    let counts = RowCounts::of(&a.rows);
    say!(
        "analysed N = {} in {:.1} s: {} constant rows, {} proved periodic, {} periodic by evidence, {} open",
        a.facts.n,
        elapsed.as_secs_f64(),
        counts.constant,
        counts.proved_periodic(),
        counts.evidence_periodic(),
        counts.open
    );
    say!(
        "every row below {} is settled; results in {}/ (report.md, {}, summary.json, b-files)",
        a.settled_below,
        out.shown(),
        chomp3::f::analysis::report::rows_file(a)
    );
    Ok(())
}

/// Runs the analysis passes with a progress bar; returns the time they took.
pub fn passes(
    table: &Path,
    census: Option<&Descriptors>,
    threads: &ThreadsArg,
    quiet: bool,
) -> Result<(Duration, Analysis)> {
    let t = open_table(table)?;
    if t.columns() == 0 {
        bail!("{}: the table is empty; run compute first", table.shown());
    }
    let started = Instant::now();
    let bar = bar(
        quiet,
        "{bar:20} {percent:>3}% {msg} {human_pos}/{human_len}  ETA {eta}",
    );
    let a = threads.pool()?.install(|| {
        analyze(&t, census, &mut |stage, done, total| {
            bar.set_message(stage.to_string());
            bar.set_length(total);
            bar.set_position(done);
        })
    });
    bar.finish_and_clear();
    Ok((
        started.elapsed(),
        a.map_err(|e| super::args::file_error(table, e))?,
    ))
}
