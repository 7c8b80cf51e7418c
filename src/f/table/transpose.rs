//! A table stored by rows ([`Shape::Rows`]) made from a table stored by
//! columns, so that a row is read in at most two runs of bytes (its cells
//! left of the diagonal, from the diagonal's run, and its own), where by
//! columns a row of the `10^5` table touches one page per column.
//!
//! The rows are made a band at a time: for a band of rows `r0 .. r1`, every
//! column `q >= r0` gives the cells `f(q, r0 .. min(r1, q + 1))`, which lie
//! together in the column, and the band's rows are then appended in order
//! through the writer (which makes the block checksums) and committed. Every
//! block read from the source is checked; the file written is checked whole
//! (every block, the CRC of the whole) before it is called done.

use std::path::Path;

use super::raw::{self, Shape};
use super::{Table, TableError, TableWriter};
use crate::base::bytes::narrow;
use crate::base::stop::Stop;

/// Values of a band held at once (256 MiB of `u32`): at `N = 10^5`, bands of
/// 671 rows, so the source's columns are read in 150 passes.
const BAND_VALUES: u64 = 1 << 26;

/// Writes `source` (a table by columns with at least one column) again by
/// rows at `out`, which must not exist; returns its `N`. `progress(done,
/// all)` after each band, in rows. Stopped, or on an error, the partial file
/// is removed; a file left by a killed process is refused by every reader as
/// unfinished.
pub fn transpose(
    source: &Table,
    out: &Path,
    stop: &Stop,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<u64, TableError> {
    let rows = source.columns().max(1);
    transpose_in_bands(source, out, BAND_VALUES / rows, stop, progress)
}

/// [`transpose`] with bands of `band` rows (at least 1; each holds `band`
/// times `N + 1` values).
pub fn transpose_in_bands(
    source: &Table,
    out: &Path,
    band: u64,
    stop: &Stop,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<u64, TableError> {
    assert_eq!(source.shape(), Shape::Triangle, "the source is by columns");
    let n = source.n().ok_or(TableError::OutOfRange {
        what: "column",
        value: 0,
        n: None,
        shape: Shape::Triangle,
    })?;
    if out.exists() {
        return Err(TableError::io(out)(std::io::Error::other(
            "exists; name a new file for the table by rows",
        )));
    }
    let mut w = TableWriter::create_shape(out, Shape::Rows, n)?;
    let written = write_rows(source, n, band, &mut w, stop, progress)
        .map_err(|e| e.unwrap_or_else(|| interrupted(out)))
        .and_then(|()| {
            drop(w);
            Table::open_f(out, true)?.verify()
        })
        .map(|()| n);
    if written.is_err() {
        let _ = std::fs::remove_file(out);
    }
    written
}

fn interrupted(out: &Path) -> TableError {
    TableError::io(out)(std::io::Error::other(
        "interrupted; the partial table by rows was removed",
    ))
}

/// Appends every row of `source` to `w`, committing after each band; `None`
/// when stopped.
fn write_rows(
    source: &Table,
    n: u64,
    band: u64,
    w: &mut TableWriter,
    stop: &Stop,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(), Option<TableError>> {
    let rows = n + 1;
    let band = band.clamp(1, rows);
    let n32 = narrow::<u32, _>(n);
    // `cells[(q - r0) * height + (r - r0)]` = f(q, r): a column's piece of the
    // band lands in one run, and a row is gathered with a constant stride.
    let mut cells = Vec::new();
    let (mut piece, mut row) = (Vec::new(), Vec::new());
    let mut r0 = 0;
    while r0 < rows {
        let r1 = (r0 + band).min(rows);
        let height = narrow::<usize, _>(r1 - r0);
        cells.clear();
        cells.resize(narrow::<usize, _>((rows - r0) * (r1 - r0)), 0u32);
        for q in narrow::<u32, _>(r0)..=n32 {
            if stop.requested() {
                return Err(None);
            }
            let top = (u64::from(q) + 1).min(r1);
            piece.clear();
            source.read_column(q, narrow::<u32, _>(r0)..narrow::<u32, _>(top), &mut piece)?;
            let at = narrow::<usize, _>(u64::from(q) - r0) * height;
            cells[at..at + piece.len()].copy_from_slice(&piece);
        }
        for r in r0..r1 {
            let i = narrow::<usize, _>(r - r0);
            row.clear();
            row.extend(
                (narrow::<usize, _>(r - r0)..=narrow::<usize, _>(n - r0))
                    .map(|k| cells[k * height + i]),
            );
            w.append(1, raw::pack(w.bits(), raw::rows_cells(n, r), [&row[..]]))?;
        }
        w.commit()?;
        progress(r1, rows);
        r0 = r1;
    }
    // The diagonal once more, so that a row's cells `q < r` are one run too.
    row.clear();
    for q in 0..=n32 {
        row.push(source.value(q, q)?);
    }
    w.append(1, raw::pack(w.bits(), raw::rows_cells(n, rows), [&row[..]]))?;
    w.commit()?;
    Ok(())
}
