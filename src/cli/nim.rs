//! `chomp3 nim`: the Sprague-Grundy value of one position, from a Grundy table
//! or a Grundy census when one is named and covers it, else computed by the
//! sweep; the source is always said.

use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};
use chomp3::grundy::{self, census::LineFate, table::GrundyTable};
use chomp3::table::TableError;

use super::Interrupted;
use super::args::table_error;

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
    let (p, q, r) = (args.p, args.q, args.r);
    if !(p >= q && q >= r && p >= 1) {
        bail!("[{p},{q},{r}] is not a position: it needs P >= Q >= R >= 0 and P >= 1");
    }
    if let Some(path) = &args.grundy_table {
        let t = GrundyTable::open(path).map_err(|e| table_error(path, e))?;
        match t.get(p, q, r) {
            Ok(value) => {
                println!("{value}");
                println!(
                    "source: the Grundy table {} (every p <= {})",
                    path.display(),
                    t.n().unwrap_or(0)
                );
                return Ok(());
            }
            Err(TableError::OutOfRange { .. }) => eprintln!(
                "chomp3: {} holds p <= {} only (extend it with `chomp3 grundy-table --n {p} --table {}`); looking further",
                path.display(),
                t.n().unwrap_or(0),
                path.display()
            ),
            Err(e) => return Err(table_error(path, e)),
        }
    }
    if let Some(path) = &args.grundy_census {
        let reader = std::fs::File::open(path)
            .map(std::io::BufReader::new)
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
        // Streamed: a census of a large Q is gigabytes, and one line is wanted.
        let fate = match (u32::try_from(q), u32::try_from(r)) {
            (Ok(q), Ok(r)) => grundy::file::find(reader, q, r),
            _ => grundy::file::summaries(reader).map(|(q_max, _)| (q_max, None)),
        }
        .map_err(|e| anyhow!("{}: {e}", path.display()))?
        .1;
        if let Some(value) = fate.as_ref().and_then(|f| f.value(p)) {
            let f: &LineFate = fate.as_ref().unwrap();
            println!("{value}");
            println!(
                "source: {}, line ({q},{r}): G - p repeats from p = {} with period {}",
                path.display(),
                f.start,
                f.period
            );
            return Ok(());
        }
        eprintln!(
            "chomp3: {} does not cover [{p},{q},{r}] (line not proved, or p before its start); computing it",
            path.display()
        );
    }
    let (Ok(p32), Ok(q32), Ok(r32)) = (u32::try_from(p), u32::try_from(q), u32::try_from(r)) else {
        bail!(
            "[{p},{q},{r}] is too large to compute (P < 2^32); name a Grundy census that covers it"
        );
    };
    let value = grundy::value(p32, q32, r32, &super::ctrl_c())
        .ok_or_else(|| Interrupted("interrupted; nothing computed".into()))?;
    println!("{value}");
    println!("source: computed by the Grundy sweep (every line q' <= {q} to p = {p})");
    Ok(())
}
