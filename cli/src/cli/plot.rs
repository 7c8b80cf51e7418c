//! `chomp3 plot`: the figures of a table and its analysis, or of a census alone.

use super::Shown;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use chomp3::base::path_message::NamesPath as _;
use chomp3::f::analysis::Analysis;
use chomp3::f::lookup::{Named, Sources};
use chomp3::plot::row::RowData;
use chomp3::plot::{Format, Made, PlotError};

use super::args::{CensusArg, TABLE_GAPS, TableArg, ThreadsArg, open_table};

/// The row shown up close by default (period 2 from q = 170: doc/chomp.md section 2).
pub const DEFAULT_ROW: u32 = 120;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArg,
    #[command(flatten)]
    census: CensusArg,
    /// Directory for the figures
    #[arg(long, value_name = "DIR", default_value = "plots")]
    out: PathBuf,
    /// Write SVG instead of PNG
    #[arg(long)]
    svg: bool,
    /// The row shown up close [default: 120; with --census-only, none]
    #[arg(long, value_name = "R")]
    row: Option<u32>,
    /// Draw from the census alone, even where a table exists (also the default
    /// when no table is named and none is at the default path)
    #[arg(long, conflicts_with = "table")]
    census_only: bool,
    /// Draw graph Chomp's figures instead, from the files in DIR that
    /// `chomp3 graph` wrote: small-graphs.tsv (--summary), wheel-cost.tsv
    /// (--tsv --cost) and any wheel-<n>-cost.tsv (single wheels, the same way)
    #[arg(long, value_name = "DIR", conflicts_with_all = ["table", "census_only"])]
    graphs: Option<PathBuf>,
    /// Draw the Grundy census figure instead (grundy-periods), from FILE
    /// (`chomp3 grundy-census --out FILE`)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["table", "census_only", "graphs"])]
    grundy: Option<PathBuf>,
    /// Draw the same figure from the b-files grundy-periods.txt and
    /// grundy-starts.txt in DIR (`chomp3 grundy-periods --bfiles DIR`, or
    /// `grundy-census`'s)
    #[arg(long, value_name = "DIR", conflicts_with_all = ["table", "census_only", "graphs", "grundy"])]
    grundy_bfiles: Option<PathBuf>,
    /// Replace figures in --out drawn from a larger table or census, or from
    /// another kind of source (their record, figures.tsv, says which)
    #[arg(long)]
    replace: bool,
    #[command(flatten)]
    threads: ThreadsArg,
}

/// `chomp3 plot` with `args`, as a person would type it again.
fn command(args: &[String]) -> String {
    format!("chomp3 plot {}", args.join(" "))
}

/// `source` of size `n`, drawn by `chomp3 plot` with `args`.
fn made(kind: &str, n: u64, args: &[String]) -> Made {
    Made::new(kind, n, command(args))
}

pub fn run(args: &Args) -> Result<()> {
    // A directory named as another output's lock or file written aside
    // would stand in that writer's way: refused by its name first.
    chomp3::base::lock::check_name(&args.out)?;
    // One drawer into `--out` at a time, from the check of its record to the
    // last figure (the drawing locks it too; this process holds it already).
    let _held = chomp3::base::lock::lock_for_calls(&args.out.join(chomp3::plot::record::RECORD))?;
    let table = args.table.named();
    let format = if args.svg { Format::Svg } else { Format::Png };
    let mut given = vec![format!(
        "--out {}",
        super::shell::quote(args.out.as_os_str())
    )];
    if args.svg {
        given.push("--svg".into());
    }
    if let Some(dir) = &args.graphs {
        given.insert(
            0,
            format!("--graphs {}", super::shell::quote(dir.as_os_str())),
        );
        return graph_figures(dir, &args.out, format, &given, args.replace);
    }
    let open =
        |file: &Path, what| chomp3::base::text::open(file, what).map_err(|e| anyhow::anyhow!(e));
    let grundy = match (&args.grundy, &args.grundy_bfiles) {
        (Some(file), _) => Some(
            chomp3::grundy::nim::census_summaries(file)
                .map_err(|e| anyhow::anyhow!(e.with_path(file)))?
                .1,
        ),
        (_, Some(dir)) => Some(
            chomp3::grundy::sequences::read_lines(
                // A directory is wanted: anything else is named for what it is.
                chomp3::base::input::directory(dir, "a directory of Grundy b-files")
                    .map_err(|e| anyhow::anyhow!(e))
                    .and_then(|()| open(&dir.join("grundy-periods.txt"), "a Grundy b-file"))?,
                open(&dir.join("grundy-starts.txt"), "a Grundy b-file")?,
            )
            .map_err(|e| anyhow::anyhow!("{}: {e}", dir.shown()))?,
        ),
        (None, None) => None,
    };
    if let Some(lines) = grundy {
        match (&args.grundy, &args.grundy_bfiles) {
            (Some(file), _) => given.insert(
                0,
                format!("--grundy {}", super::shell::quote(file.as_os_str())),
            ),
            (_, Some(dir)) => given.insert(
                0,
                format!("--grundy-bfiles {}", super::shell::quote(dir.as_os_str())),
            ),
            _ => {}
        }
        let written = chomp3::plot::grundy::plot_grundy(
            &lines,
            &args.out,
            format,
            command(&given),
            args.replace,
        )
        .map_err(|e| anyhow::anyhow!("{}", drawing(&args.out, e)))?;
        say!("{}", written.shown());
        return Ok(());
    }
    if let Some(row) = args.row {
        given.push(format!("--row {row}"));
    }
    if args.census_only || (!table.named && !table.path.exists()) {
        // No table: the figures an analysis of the census alone can give.
        let a = super::analyze::census_analysis(&args.table, &args.census)?;
        let census = args.census.named().path;
        given.insert(
            0,
            format!(
                "--census-only --census {}",
                super::shell::quote(census.as_os_str())
            ),
        );
        let made = made("census", a.facts.n.into(), &given);
        // The close-up only when a row was asked for: from the census's proof.
        let row = args.row.map(u64::from);
        let no_table = Named {
            path: table.path.clone(),
            named: false,
        };
        let sources = Sources::open(&no_table, &args.census.named())?;
        return draw(&sources, &a, &args.out, format, row, &made, args.replace);
    }
    if let Some(census) = args.census.given() {
        given.insert(
            0,
            format!("--census {}", super::shell::quote(census.as_os_str())),
        );
    }
    given.insert(
        0,
        format!("--table {}", super::shell::quote(table.path.as_os_str())),
    );
    let n = open_table(&table.path)?.n().unwrap_or(0);
    let made = made("table", n, &given);
    // Refused before the analysis, not after it.
    let shown = args.row.unwrap_or(DEFAULT_ROW);
    let row = Some(u64::from(shown));
    // The row's figure as it will be drawn: from the table where it holds it.
    let by_row = (u64::from(shown), u64::from(shown) > n);
    chomp3::plot::may_plot_all(
        &args.out,
        true,
        format,
        Some(by_row),
        &made,
        None,
        args.replace,
    )
    .map_err(|e| anyhow::anyhow!("{}", drawing(&args.out, e)))?;
    let census = args.census.open(TABLE_GAPS)?;
    let a = super::analyze::passes(&table.path, census.as_ref(), &args.threads, false)?.1;
    let sources = Sources::open(&table, &args.census.named())?;
    draw(&sources, &a, &args.out, format, row, &made, args.replace)
}

/// A drawing error for the user: a refusal as it is, the rest with the directory.
fn drawing(out: &Path, e: PlotError) -> String {
    match e {
        PlotError::Refused(why) => format!("{why}; give another --out, or pass --replace"),
        e => format!("drawing into {}: {e}", out.shown()),
    }
}

/// Draws every figure of `a` into `out` and lists the files (without a table,
/// those that need none); `row`, the row up close, from the table where it
/// holds it, else from the census, by the look-up's rule.
pub fn draw(
    sources: &Sources,
    a: &Analysis,
    out: &Path,
    format: Format,
    row: Option<u64>,
    made: &Made,
    replace: bool,
) -> Result<()> {
    let row = row
        .map(|r| {
            let fate = usize::try_from(r)
                .ok()
                .and_then(|i| a.rows.get(i))
                .cloned()
                .flatten();
            RowData::read(sources, r, fate)
        })
        .transpose()?;
    let t = sources.table.as_ref();
    let written = chomp3::plot::plot_all(t, a, out, format, row.as_ref(), made, replace)
        .map_err(|e| anyhow::anyhow!("{}", drawing(out, e)))?;
    for f in written {
        say!("{}", f.shown());
    }
    Ok(())
}

/// The summary and wheel files a graph figure is drawn from.
const GRAPH_FILES: [&str; 2] = ["small-graphs.tsv", "wheel-cost.tsv"];

/// Draws graph Chomp's figures from the files in `dir`.
fn graph_figures(
    dir: &Path,
    out: &Path,
    format: Format,
    given: &[String],
    replace: bool,
) -> Result<()> {
    use chomp3::graph::summary::Summary;
    use chomp3::plot::graphs::{plot_graphs, read_wheel_costs};
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => bail!(
            "--graphs {} is not a directory; give the directory of the files `chomp3 graph ... --out` wrote",
            dir.shown()
        ),
        Err(e) => bail!("--graphs {}: {e}", dir.shown()),
    }
    let read = |name: &str| {
        use chomp3::base::text::{TextError, read_to_string};
        read_to_string(&dir.join(name), "a chomp3 graph table").map_err(|e| match e {
            TextError::Open(e) if e.is_missing() => {
                anyhow::anyhow!("{e}; write it with `chomp3 graph ... --out` first")
            }
            e => anyhow::anyhow!(e),
        })
    };
    let [summary, wheels] = GRAPH_FILES;
    let values = Summary::read(&read(summary)?)
        .map_err(|e| anyhow::anyhow!("{}: {e}", dir.join(summary).shown()))?;
    let mut costs = read_wheel_costs(&read(wheels)?)
        .map_err(|e| anyhow::anyhow!("{}: {e}", dir.join(wheels).shown()))?;
    // Wheels solved on their own, each in `wheel-<n>-cost.tsv`.
    let mut singles: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| anyhow::anyhow!("{}: {e}", dir.shown()))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| {
            f.strip_prefix("wheel-")
                .and_then(|f| f.strip_suffix("-cost.tsv"))
                .is_some_and(|n| n.parse::<usize>().is_ok())
        })
        .collect();
    singles.sort();
    for name in singles {
        costs.extend(
            read_wheel_costs(&read(&name)?)
                .map_err(|e| anyhow::anyhow!("{}: {e}", dir.join(&name).shown()))?,
        );
    }
    costs.sort_by_key(|w| w.n);
    let written = plot_graphs(&values, &costs, out, format, command(given), replace)
        .map_err(|e| anyhow::anyhow!("{}", drawing(out, e)))?;
    for f in written {
        say!("{}", f.shown());
    }
    Ok(())
}
