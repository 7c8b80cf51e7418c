//! `chomp3 position`: is `[P,Q,R]` won or lost, and every winning move.

use anyhow::Result;
use chomp3::position::{PositionError, is_p, winning_moves};

use super::args::{TableArg, table_error};

#[derive(clap::Args)]
pub struct Args {
    /// Bottom row length
    p: u64,
    /// Middle row length
    q: u64,
    /// Top row length
    r: u64,
    #[command(flatten)]
    table: TableArg,
}

pub fn run(args: &Args) -> Result<()> {
    let (p, q, r) = (args.p, args.q, args.r);
    let t = args.table.open()?;
    let named = |e: PositionError| match e {
        PositionError::Table(e) => table_error(&args.table.path(), e),
        e => e.into(),
    };
    if is_p(&t, p, q, r).map_err(named)? {
        println!("[{p},{q},{r}] is a P-position: the player to move loses");
        return Ok(());
    }
    let moves = winning_moves(&t, p, q, r).map_err(named)?;
    let s = if moves.len() == 1 { "" } else { "s" };
    println!(
        "[{p},{q},{r}] is an N-position: the player to move wins; {} winning move{s}:",
        moves.len()
    );
    for m in moves {
        println!("  {m}");
    }
    Ok(())
}
