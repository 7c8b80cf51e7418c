//! `chomp3 plot`: the figures of a table and its analysis, or of a census alone.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use chomp3::analysis::Analysis;
use chomp3::plot::Format;

use super::args::{CensusArg, TABLE_GAPS, TableArg, ThreadsArg, open_table};

/// The row shown up close by default (period 2 from q = 170: SPEC section 2).
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
    /// The row shown up close
    #[arg(long, value_name = "R", default_value_t = DEFAULT_ROW)]
    row: u32,
    /// Draw from the census alone, even where a table exists (also the default
    /// when no table is named and none is at the default path)
    #[arg(long, conflicts_with = "table")]
    census_only: bool,
    #[command(flatten)]
    threads: ThreadsArg,
}

pub fn run(args: &Args) -> Result<()> {
    let table = args.table.named();
    let format = if args.svg { Format::Svg } else { Format::Png };
    if args.census_only || (!table.named && !table.path.exists()) {
        // No table: the figures an analysis of the census alone can give.
        let a = super::analyze::census_analysis(&args.table, &args.census)?;
        return draw(None, &a, &args.out, format, args.row);
    }
    let census = args.census.open(TABLE_GAPS)?;
    let a = super::analyze::passes(&table.path, census.as_ref(), &args.threads, false)?.1;
    draw(Some(&table.path), &a, &args.out, format, args.row)
}

/// Draws every figure of `a` into `out` and lists the files (without a table,
/// those that need none).
pub fn draw(
    table: Option<&Path>,
    a: &Analysis,
    out: &Path,
    format: Format,
    row: u32,
) -> Result<()> {
    let t = table.map(open_table).transpose()?;
    if let Some(t) = &t
        && row as i64 > t.n()
    {
        bail!(
            "--row {row} is beyond the table, which holds N = {}; choose a row <= N",
            t.n()
        );
    }
    let written = chomp3::plot::plot_all(t.as_ref(), a, out, format, row)
        .map_err(|e| anyhow::anyhow!("drawing into {}: {e}", out.display()))?;
    for f in written {
        println!("{}", f.display());
    }
    Ok(())
}
