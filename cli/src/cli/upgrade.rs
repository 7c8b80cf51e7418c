//! `chomp3 upgrade OLD NEW`: a version 1 table (`.c3t` or `.g3t`, no block
//! checksums) written again as a version 2 file, checked on both sides.

use super::Shown;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, anyhow};
use chomp3::base::path_message::NamesPath;

use super::args::QuietArg;
use super::progress::bar;

#[derive(clap::Args)]
pub struct Args {
    /// The version 1 table (read only)
    old: PathBuf,
    /// The version 2 table to write (must not exist)
    new: PathBuf,
    #[command(flatten)]
    quiet: QuietArg,
}

pub fn run(args: &Args) -> Result<()> {
    let started = Instant::now();
    let bar = bar(
        args.quiet.quiet,
        "{bar:40} {pos}/{len} columns  {elapsed} (eta {eta})",
    );
    let columns = chomp3::f::table::upgrade(
        &args.old,
        &args.new,
        "NEW",
        &super::ctrl_c(),
        &mut |done, all| {
            bar.set_length(all);
            bar.set_position(done);
        },
    )
    .map_err(|e| anyhow!("{}", e.with_path(&args.old)))?;
    bar.finish_and_clear();
    say!(
        "{}: {columns} columns of {} checked and written again with block checksums, read back equal, in {:.1} s",
        args.new.shown(),
        args.old.shown(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
