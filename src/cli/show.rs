//! `chomp3 row` and `chomp3 dump`: a table's values as text.

use std::io::{self, BufWriter, Write};

use anyhow::Result;

use super::args::TableArg;

#[derive(clap::Args)]
pub struct RowArgs {
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
}

#[derive(clap::Args)]
pub struct DumpArgs {
    #[command(flatten)]
    table: TableArg,
}

/// Prints `q f(q,R)` per line.
pub fn row(args: &RowArgs) -> Result<()> {
    let t = args.table.open()?;
    let to = args.to.unwrap_or(t.n().unwrap_or(0));
    // Checks both ends before printing anything.
    t.get(to, args.r)
        .map_err(|e| super::args::file_error(&args.table.path(), e))?;
    let mut out = BufWriter::new(io::stdout().lock());
    for q in args.from..=to {
        writeln!(out, "{q} {}", t.get(q, args.r)?)?;
    }
    out.flush()?;
    Ok(())
}

/// Prints `q r f` per line for every `r <= q`.
pub fn dump(args: &DumpArgs) -> Result<()> {
    let t = args.table.open()?;
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    for q in 0..t.columns() as u32 {
        for r in 0..=q {
            writeln!(out, "{q} {r} {}", t.value(q, r))?;
        }
    }
    out.flush()?;
    Ok(())
}
