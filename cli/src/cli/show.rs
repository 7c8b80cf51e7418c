//! `chomp3 row` and `chomp3 dump`: a table's values as text (a row past
//! the table from the census, by `get`'s source rule).

use super::Shown;
use std::io::{BufWriter, Write};

use anyhow::Result;

use super::Usage;
use super::args::{CensusArg, TableArg};
use chomp3::f::lookup::Sources;

#[derive(clap::Args)]
pub struct RowArgs {
    /// The row
    r: u64,
    /// First column [default: 0]
    #[arg(long, value_name = "A", default_value_t = 0)]
    from: u64,
    /// Last column [default: the table's N]
    #[arg(long, value_name = "B")]
    to: Option<u64>,
    #[command(flatten)]
    table: TableArg,
    #[command(flatten)]
    census: CensusArg,
}

#[derive(clap::Args)]
pub struct DumpArgs {
    #[command(flatten)]
    table: TableArg,
}

/// Prints `q f(q,R)` per line: from the table where it reaches, past it from
/// the census (said on stderr), every column checked before any is printed.
pub fn row(args: &RowArgs) -> Result<()> {
    let (table, census) = (args.table.named(), args.census.named());
    // The census is read only if the table does not hold the last column
    // asked for (by default the table's last).
    let (q, r) = args.to.map_or((0, 0), |to| (to, args.r));
    let sources = Sources::open_for_mapped(q, r, &table, &census)?;
    let n = sources.table.as_ref().and_then(|t| t.n());
    let to = match (args.to, n) {
        (Some(to), _) => to,
        (None, Some(n)) => n,
        (None, None) => {
            let why = match sources.table {
                Some(_) => "holds no column yet",
                None => "is not there",
            };
            return Err(Usage(format!(
                "the table {} {why}, so there is no last column to print to; give --to",
                table.path.shown()
            ))
            .into());
        }
    };
    if args.from > to {
        return Err(Usage(format!(
            "--from {} is past --to {to}: no column to print",
            args.from
        ))
        .into());
    }
    if let Some(q) = sources.first_unanswered(args.r, args.from, to) {
        // The look-up's own error for that column: what stops the row.
        sources.answer(q, args.r)?;
        unreachable!("column {q} was found unanswered");
    }
    let in_table = n.filter(|&n| n >= args.from).map(|n| n.min(to));
    let mut out = BufWriter::new(super::stdout());
    if let Some(last) = in_table {
        let t = sources.table.as_ref().expect("a table holds these columns");
        // Within the table every column and `r` capped at `N + 1` fit u32.
        let narrow = |x: u64| u32::try_from(x.min(t.columns())).expect("N + 1 fits u32");
        let mut values = Vec::new();
        t.read_row(
            narrow(args.r),
            narrow(args.from)..narrow(last + 1),
            &mut values,
        )
        .map_err(|e| super::args::file_error(&table.path, e))?;
        for (q, f) in (args.from..).zip(values) {
            writeln!(out, "{q} {f}")?;
        }
    }
    let first = in_table.map_or(args.from, |last| last + 1);
    // Past the table: each kind of source said once, where it begins.
    let mut said = None;
    for q in first..=to {
        let a = sources.answer(q, args.r)?;
        let kind = std::mem::discriminant(&a.source);
        if said != Some(kind) {
            note!("chomp3: q = {q}.. {}", a.source);
            said = Some(kind);
        }
        writeln!(out, "{q} {}", a.value)?;
    }
    out.flush()?;
    Ok(())
}

/// Prints `q r f` per line for every `r <= q`.
pub fn dump(args: &DumpArgs) -> Result<()> {
    let t = args.table.open_f()?;
    let path = args.table.path();
    let mut out = BufWriter::with_capacity(1 << 16, super::stdout());
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
