//! `chomp3 info`: describe a table file and check it.

use anyhow::Result;

use super::args::{TableArg, file_error};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    table: TableArg,
    /// Also read all data and check its checksum
    #[arg(long)]
    verify: bool,
}

pub fn run(args: &Args) -> Result<()> {
    let path = args.table.path();
    let t = args.table.open()?;
    println!("table        {}", path.display());
    println!(
        "N            {} ({} complete columns, {} cells)",
        t.n().map_or("none".to_string(), |n| n.to_string()),
        t.columns(),
        chomp3::table::raw::cells(t.columns())
    );
    println!("capacity     {}", t.capacity());
    println!("bits/value   {}", t.bits());
    println!(
        "file size    {} bytes (committed data ends at {})",
        t.file_len(),
        t.used_len()
    );
    if args.verify {
        t.verify().map_err(|e| file_error(&path, e))?;
        println!(
            "status       complete and consistent (header, length and data checksum verified)"
        );
    } else {
        println!(
            "status       complete and consistent (header and length checked; --verify reads all data)"
        );
    }
    Ok(())
}
