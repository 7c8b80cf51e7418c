//! `chomp3 transpose`: a table written again stored by rows, so that `row`,
//! `position` and Python's `Table.row` read a row as one run of bytes.

use super::Shown;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;

use super::args::{QuietArg, TableArg};
use super::progress::bar;
use chomp3::f::table::Transposed;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArg,
    /// The table by rows to write: a new file, or the unfinished one a stopped
    /// or killed run of this command left (continued from its last whole row)
    #[arg(long, value_name = "PATH")]
    out: PathBuf,
    #[command(flatten)]
    quiet: QuietArg,
}

pub fn run(args: &Args) -> Result<()> {
    let started = Instant::now();
    let source = args.table.open()?;
    let bar = bar(
        args.quiet.quiet,
        "{bar:40} {pos}/{len} rows  {elapsed} (eta {eta})",
    );
    let done =
        chomp3::f::table::transpose(&source, &args.out, &super::ctrl_c(), &mut |done, all| {
            bar.set_length(all);
            bar.set_position(done);
        })
        .map_err(|e| match e {
            e @ chomp3::f::table::TransposeError::Stopped { .. } => {
                anyhow::Error::new(super::Interrupted(e.to_string()))
            }
            e => anyhow::Error::new(e),
        })?;
    bar.finish_and_clear();
    let table_path = args.table.path();
    let (out, table) = (args.out.shown(), table_path.shown());
    let seconds = started.elapsed().as_secs_f64();
    match done {
        Transposed::Held { n } => say!(
            "{out}: holds the table {table} (N = {n}) by rows already; every block checked, nothing written, in {seconds:.1} s"
        ),
        Transposed::Written { n, from: 0 } => say!(
            "{out}: the table {table} (N = {n}) by rows, every block checked on both sides, in {seconds:.1} s"
        ),
        Transposed::Written { n, from } => say!(
            "{out}: the table {table} (N = {n}) by rows, continued after the {} rows a stopped run wrote; every block checked on both sides, in {seconds:.1} s",
            from.min(n + 1)
        ),
    }
    Ok(())
}
