//! `chomp3 info`: describe a table file (`.c3t` by columns or by rows, or a
//! Grundy table `.g3t`) and check it.

use super::Shown;
use anyhow::Result;
use chomp3::f::table::raw::Shape;
use chomp3::f::table::{Table, TableError};

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
    // Either kind of table, by its magic.
    let t = match Table::options().either_f().mapped(true).open(&path) {
        Err(TableError::OtherKind { found, .. }) => Table::options().shape(found).open(&path),
        opened => opened,
    }
    .map_err(|e| file_error(&path, e))?;
    let (kind, columns) = match t.shape() {
        Shape::Triangle => ("table", "complete columns"),
        Shape::Tetrahedron => ("Grundy table", "complete slabs p"),
        Shape::Rows => ("table by rows", "columns, stored row after row"),
    };
    say!("{kind:<12} {}", path.shown());
    say!(
        "N            {} ({} {columns}, {} cells)",
        t.n().map_or("none".to_string(), |n| n.to_string()),
        t.columns(),
        t.cell_count()
    );
    say!("capacity     {}", t.capacity());
    say!("bits/value   {}", t.bits());
    say!(
        "file size    {} bytes (committed data ends at {})",
        t.file_len(),
        t.used_len()
    );
    if let Some(slot) = t.unreadable_slot() {
        say!(
            "note         commit slot {slot} fails its checksum (a commit cut short by a crash, or damage): the table is read at the other slot's commit"
        );
    }
    if args.verify {
        t.verify().map_err(|e| file_error(&path, e))?;
        say!(
            "status       complete and consistent (header, length, every block's checksum and the data checksum verified)"
        );
    } else {
        say!(
            "status       header and length checked (each read checks its blocks; --verify reads all data)"
        );
    }
    Ok(())
}
