//! `chomp3 nim`: the Sprague-Grundy value of one position, from a Grundy table,
//! the rectangles' b-file or a Grundy census where one covers it (the
//! committed ones when none is named), else computed by the sweep within a
//! time budget; the source is always said.

use std::path::PathBuf;

use anyhow::Result;
use chomp3::grundy::nim::{
    BigUint, Census, DEFAULT_CENSUS, DEFAULT_RECTANGLES, Files, NimError, nim, or_default,
};

use super::Interrupted;

#[derive(clap::Args)]
pub struct Args {
    /// Bottom row length (any size: a line's period reduces it)
    p: BigUint,
    /// Middle row length
    q: u64,
    /// Top row length
    r: u64,
    /// A Grundy census to answer from (`chomp3 grundy-census --out FILE`, or
    /// `chomp3 grundy-periods --out FILE`: p reduced by the line's period,
    /// then computed) [default: data/grundy-periods-300/grundy-periods-census.tsv,
    /// if it exists]
    #[arg(long, value_name = "FILE")]
    grundy_census: Option<PathBuf>,
    /// A Grundy table (`chomp3 grundy-table --table FILE`) to answer from
    #[arg(long, value_name = "FILE")]
    grundy_table: Option<PathBuf>,
    /// The b-file of the rectangles G(n,n,n) (`chomp3 grundy-table --bfiles`)
    /// [default: data/grundy-table-5000/grundy-rectangles.txt, if it exists]
    #[arg(long, value_name = "FILE")]
    rectangles: Option<PathBuf>,
    /// Compute by the sweep only if it is estimated to take at most S seconds
    /// of one core; past it, say the estimate and compute nothing
    #[arg(long, value_name = "S", default_value = "60")]
    max_seconds: f64,
}

pub fn run(args: &Args) -> Result<()> {
    let stop = super::ctrl_c();
    let files = Files {
        table: args.grundy_table.as_deref(),
        rectangles: or_default(args.rectangles.as_deref(), DEFAULT_RECTANGLES),
        census: or_default(args.grundy_census.as_deref(), DEFAULT_CENSUS).map(Census::File),
    };
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
        &args.p,
        args.q,
        args.r,
        files,
        args.max_seconds,
        &stop,
        &mut progress,
    );
    bar.finish_and_clear();
    let answer = match answer {
        Ok(a) => a,
        Err(NimError::Stopped) => return Err(Interrupted(NimError::Stopped.to_string()).into()),
        Err(e @ NimError::NotAPosition { .. }) => return Err(super::Usage(e.to_string()).into()),
        Err(NimError::BadBudget(s)) => {
            return Err(
                super::Usage(format!("--max-seconds {s} is not a number of seconds")).into(),
            );
        }
        Err(e @ NimError::TooCostly { .. }) => {
            let NimError::TooCostly { cost, .. } = &e else {
                unreachable!()
            };
            let ask = (cost.seconds * 1.2).ceil();
            return Err(anyhow::anyhow!(
                "{e}; give --max-seconds {ask} to compute it"
            ));
        }
        Err(e) => return Err(e.into()),
    };
    for note in &answer.passed {
        note!("chomp3: {note}; looking further");
    }
    say!("{}", answer.value);
    say!("source: {}", super::one_line_of(&answer.source.to_string()));
    Ok(())
}
