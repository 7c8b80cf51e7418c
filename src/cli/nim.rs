//! `chomp3 nim`: the Sprague-Grundy value of one position, from a Grundy table
//! or a Grundy census when one is named and covers it, else computed by the
//! sweep; the source is always said.

use std::path::PathBuf;

use anyhow::Result;
use chomp3::grundy::nim::{NimError, nim};

use super::Interrupted;

#[derive(clap::Args)]
pub struct Args {
    /// Bottom row length
    p: u64,
    /// Middle row length
    q: u64,
    /// Top row length
    r: u64,
    /// A Grundy census (`chomp3 grundy-census --out FILE`) to answer from
    #[arg(long, value_name = "FILE")]
    grundy_census: Option<PathBuf>,
    /// A Grundy table (`chomp3 grundy-table --table FILE`) to answer from
    #[arg(long, value_name = "FILE")]
    grundy_table: Option<PathBuf>,
}

pub fn run(args: &Args) -> Result<()> {
    let stop = super::ctrl_c();
    let (table, census) = (args.grundy_table.as_deref(), args.grundy_census.as_deref());
    let answer = match nim([args.p, args.q, args.r], table, census, &stop) {
        Ok(a) => a,
        Err(NimError::Stopped) => return Err(Interrupted(NimError::Stopped.to_string()).into()),
        Err(e) => return Err(e.into()),
    };
    for note in &answer.passed {
        eprintln!("chomp3: {note}; looking further");
    }
    println!("{}", answer.value);
    println!("source: {}", answer.source);
    Ok(())
}
