//! `chomp3 nim`: the Sprague-Grundy value of one position, from a Grundy table
//! or a Grundy census when one is named and covers it, else computed by the
//! sweep; the source is always said.

use std::path::PathBuf;

use anyhow::Result;
use chomp3::grundy::nim::{Census, NimError, nim};

use super::Interrupted;

#[derive(clap::Args)]
pub struct Args {
    /// Bottom row length
    p: u64,
    /// Middle row length
    q: u64,
    /// Top row length
    r: u64,
    /// A Grundy census to answer from (`chomp3 grundy-census --out FILE`, or
    /// `chomp3 grundy-periods --out FILE`: p reduced by the line's period,
    /// then computed)
    #[arg(long, value_name = "FILE")]
    grundy_census: Option<PathBuf>,
    /// A Grundy table (`chomp3 grundy-table --table FILE`) to answer from
    #[arg(long, value_name = "FILE")]
    grundy_table: Option<PathBuf>,
}

pub fn run(args: &Args) -> Result<()> {
    let stop = super::ctrl_c();
    let table = args.grundy_table.as_deref();
    let census = args.grundy_census.as_deref().map(Census::File);
    // Shown on a terminal only, from the sweep's 4,096th step on.
    let bar = super::progress::bar(
        false,
        "computing G by the sweep {bar:40} p = {pos}/{len} {eta}",
    );
    let mut progress = |at: u64, target: u64| {
        bar.set_length(target);
        bar.set_position(at);
    };
    let answer = nim(
        [args.p, args.q, args.r],
        table,
        census,
        &stop,
        &mut progress,
    );
    bar.finish_and_clear();
    let answer = match answer {
        Ok(a) => a,
        Err(NimError::Stopped) => return Err(Interrupted(NimError::Stopped.to_string()).into()),
        Err(e @ NimError::NotAPosition { .. }) => return Err(super::Usage(e.to_string()).into()),
        Err(e) => return Err(e.into()),
    };
    for note in &answer.passed {
        eprintln!("chomp3: {note}; looking further");
    }
    println!("{}", answer.value);
    println!("source: {}", answer.source);
    Ok(())
}
