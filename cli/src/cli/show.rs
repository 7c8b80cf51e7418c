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
    let t = args.table.open_f()?;
    let to = args.to.unwrap_or(t.n().unwrap_or(0));
    // Checks both ends before printing anything.
    t.get(to, args.r)
        .map_err(|e| super::args::file_error(&args.table.path(), e))?;
    // `to <= N` now, so every column and `r` capped at `N + 1` fit u32.
    let narrow = |x: u64| u32::try_from(x.min(t.columns())).expect("N + 1 fits u32");
    let mut values = Vec::new();
    if args.from <= to {
        t.read_row(
            narrow(args.r),
            narrow(args.from)..narrow(to + 1),
            &mut values,
        )
        .map_err(|e| super::args::file_error(&args.table.path(), e))?;
    }
    let mut out = BufWriter::new(io::stdout().lock());
    for (q, f) in (args.from..).zip(values) {
        writeln!(out, "{q} {f}")?;
    }
    out.flush()?;
    Ok(())
}

/// Prints `q r f` per line for every `r <= q`.
pub fn dump(args: &DumpArgs) -> Result<()> {
    let t = args.table.open_f()?;
    let path = args.table.path();
    let mut out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut column = Vec::new();
    for q in 0..t.columns() as u32 {
        column.clear();
        t.read_column(q, 0..q + 1, &mut column)
            .map_err(|e| super::args::file_error(&path, e))?;
        for (r, f) in column.iter().enumerate() {
            writeln!(out, "{q} {r} {f}")?;
        }
    }
    out.flush()?;
    Ok(())
}
