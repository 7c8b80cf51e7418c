//! `chomp3 get`: one value, from the table or the census, with its source.

use anyhow::Result;
use chomp3::f::lookup::{Source, lookup};

use super::args::{CensusArg, TableArg};

#[derive(clap::Args)]
pub struct Args {
    /// Column q (middle row length)
    q: u64,
    /// Row r (top row length)
    r: u64,
    #[command(flatten)]
    table: TableArg,
    #[command(flatten)]
    census: CensusArg,
    /// Also say where the value came from
    #[arg(long)]
    explain: bool,
}

pub fn run(args: &Args) -> Result<()> {
    let answer = lookup(args.q, args.r, &args.table.named(), &args.census.named())?;
    say!("{}", answer.value);
    if args.explain {
        say!("{}", super::one_line_of(&answer.source.to_string()));
    } else if !matches!(answer.source, Source::Table { .. }) {
        // Never an answer from a source the user did not see named.
        note!("chomp3: {}", answer.source);
    }
    Ok(())
}
