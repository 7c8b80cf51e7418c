//! `chomp3 position`: is `[P,Q,R]` won or lost, and every winning move, each
//! value of `f` by `chomp3 get`'s source rule.

use super::Shown;
use anyhow::Result;
use chomp3::f::lookup::Sources;
use chomp3::f::position::{MAX_MIDDLE, PositionError, is_p, winning_moves};
use chomp3::f::table::holds;

use super::args::{CensusArg, TableArg};

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
    #[command(flatten)]
    census: CensusArg,
    /// Also print the Sprague-Grundy value of the position and of every
    /// position one move away (computed by the Grundy sweep: about Q^2 P / 2
    /// steps, so for P up to a few 10^5 with small Q; reads no table or census)
    #[arg(long, conflicts_with_all = ["table", "census"])]
    nim: bool,
}

pub fn run(args: &Args) -> Result<()> {
    let (p, q, r) = (args.p, args.q, args.r);
    if !(p >= q && q >= r && p >= 1) {
        return Err(super::Usage(PositionError::Invalid(p, q, r).to_string()).into());
    }
    if args.nim {
        return nim_values(p, q, r);
    }
    // Every value read is in a column <= q and a row <= r.
    let sources = Sources::open_for(q, r, &args.table.named(), &args.census.named())?;
    let lost = is_p(&sources, p, q, r)?;
    // Won or lost is answered for every position; the moves are listed
    // where the library lists them (q <= MAX_MIDDLE).
    let moves = match lost {
        true => Some(Vec::new()),
        false => match winning_moves(&sources, p, q, r, &super::ctrl_c()) {
            Err(PositionError::TooLong(..)) => None,
            Err(e @ PositionError::Stopped) => return Err(super::Interrupted(e.to_string()).into()),
            moves => Some(moves?),
        },
    };
    // Never an answer from a source the user did not see named.
    if sources.census.is_some() {
        let (table, census) = (args.table.path(), args.census.named().path);
        match &sources.table {
            Some(t) => note!(
                "chomp3: values of f beyond the table {} ({}) are from the census {}",
                table.shown(),
                holds(t.n()),
                census.shown()
            ),
            None => note!(
                "chomp3: values of f are from the census {} (no table at {})",
                census.shown(),
                table.shown()
            ),
        }
    }
    if lost {
        say!("[{p},{q},{r}] is a P-position: the player to move loses");
        return Ok(());
    }
    let Some(moves) = moves else {
        say!("[{p},{q},{r}] is an N-position: the player to move wins");
        note!(
            "chomp3: its winning moves are not listed: that reads f for every middle row below Q, and Q <= {MAX_MIDDLE} only"
        );
        return Ok(());
    };
    let s = if moves.len() == 1 { "" } else { "s" };
    say!(
        "[{p},{q},{r}] is an N-position: the player to move wins; {} winning move{s}:",
        moves.len()
    );
    for m in moves {
        say!("  {m}");
    }
    Ok(())
}

/// `--nim`: the value of `[p,q,r]` and of each move's result, from the sweep.
fn nim_values(p: u64, q: u64, r: u64) -> Result<()> {
    let (Ok(p), Ok(q), Ok(r)) = (u32::try_from(p), u32::try_from(q), u32::try_from(r)) else {
        anyhow::bail!("[{p},{q},{r}] is too large for the Grundy sweep (P < 2^32)");
    };
    chomp3::grundy::check_options_memory(p, q, r, 0)?;
    let (value, options) = chomp3::grundy::options(p, q, r, &super::ctrl_c())
        .ok_or_else(|| super::Interrupted("interrupted; nothing computed".into()))?;
    let what = if value == 0 {
        "a P-position"
    } else {
        "an N-position"
    };
    say!("[{p},{q},{r}]: Sprague-Grundy value {value} ({what}; computed by the Grundy sweep)");
    let (bottom, rest) = options.split_at(p as usize - 1);
    let (middle, top) = rest.split_at(q as usize);
    for (row, list) in [
        ("row 1 (bottom)", bottom),
        ("row 2 (middle)", middle),
        ("row 3 (top)", top),
    ] {
        for (i, ([a, b, c], v)) in list.iter().enumerate() {
            let column = if row.starts_with("row 1") {
                i + 2
            } else {
                i + 1
            };
            let mark = if *v == 0 { "  (winning)" } else { "" };
            say!("  take {row}, column {column} -> [{a},{b},{c}]: value {v}{mark}");
        }
    }
    Ok(())
}
