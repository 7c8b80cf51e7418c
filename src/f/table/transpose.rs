//! A table stored by rows ([`Shape::Rows`]) made from a table stored by
//! columns, so that a row is read in at most two runs of bytes (its cells
//! left of the diagonal, from the diagonal's run, and its own), where by
//! columns a row of the `10^5` table touches one page per column.
//!
//! The rows are made a band at a time: for a band of rows `r0 .. r1`, every
//! column `q >= r0` gives the cells `f(q, r0 .. min(r1, q + 1))`, which lie
//! together in the column, and the band's rows are then appended in order
//! through the writer (which makes the block checksums) and committed, so a
//! run stopped or killed leaves whole rows that the next run continues from.
//! Every block read from the source is checked; the file written is checked
//! whole (every block, the CRC of the whole) before it is called done.

use std::path::{Path, PathBuf};

use super::raw::{self, Shape};
use super::{Table, TableError, TableWriter};
use crate::base::bytes::narrow;
use crate::base::path_message::NamesPath;
use crate::base::stop::Stop;

/// Why [`transpose`] did not finish; each message names the file it concerns.
#[derive(Debug, thiserror::Error)]
pub enum TransposeError {
    /// Another process writes a file at the output's path.
    #[error(transparent)]
    Locked(#[from] crate::base::lock::LockError),
    /// The source table (at this path) failed.
    #[error("{}", .1.with_path(.0))]
    Source(PathBuf, TableError),
    /// The table by rows (at this path) cannot be made or continued.
    #[error("{}", .1.with_path(.0))]
    Out(PathBuf, TableError),
    /// The directory has less room than the table by rows needs.
    #[error(
        "not enough free disk in {}: the table by rows needs {needed} more bytes, {available} available",
        .dir.display()
    )]
    DiskFull {
        /// The directory of the table by rows.
        dir: PathBuf,
        /// Bytes it still needs.
        needed: u64,
        /// Bytes free there.
        available: u64,
    },
    /// Stopped on request: the rows committed are kept in the file at this
    /// path, and the same call continues from them.
    #[error(
        "{}: stopped with {done} of {all} rows written; {}",
        .path.display(),
        match done >= all {
            true => "the table by rows is whole: nothing is left to write",
            false => "they are kept, and the same command continues from them",
        }
    )]
    Stopped {
        /// The table by rows.
        path: PathBuf,
        /// Rows committed.
        done: u64,
        /// Rows of the table.
        all: u64,
    },
}

/// Values of a band held at once (256 MiB of `u32`): at `N = 10^5`, bands of
/// 671 rows, so the source's columns are read in 150 passes.
const BAND_VALUES: u64 = 1 << 26;

/// Writes `source` (a table by columns with at least one column) again by
/// rows at `out`; returns its `N`. `progress(done, all)` after each band, in
/// rows. `out` must not exist, or be the unfinished table by rows of a table
/// of the same `N` that no process is writing (left by a run stopped or
/// killed): its committed rows are kept and the rows after them written; if
/// it holds every row already, it is checked and kept. Stopped, the rows
/// committed are kept (the same call continues); a file that fails the final
/// check is removed.
pub fn transpose(
    source: &Table,
    out: &Path,
    stop: &Stop,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Transposed, TransposeError> {
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
) -> Result<Transposed, TransposeError> {
    assert_eq!(source.shape(), Shape::Triangle, "the source is by columns");
    // No other chomp3 writer has this path (see `compute`).
    crate::base::lock::check_file_name(out)?;
    let _held = crate::base::lock::lock(out)?;
    let src = |e| TransposeError::Source(source.path().to_path_buf(), e);
    let dst = |e| TransposeError::Out(out.to_path_buf(), e);
    let n = source.n().ok_or(TableError::OutOfRange {
        what: "column",
        value: 0,
        n: None,
        shape: Shape::Triangle,
    });
    let n = n.map_err(src)?;
    // What the whole table by rows takes, against the room its directory
    // has, before any of it is written (the rows written are kept).
    let header = raw::Header {
        shape: Shape::Rows,
        bits: Shape::Rows.bits_for_capacity(n),
        capacity: n,
    };
    let have = std::fs::metadata(out).map_or(0, |m| m.len());
    let needed = header.file_len(raw::rows_units(n)).saturating_sub(have);
    if let Some((dir, available)) = crate::base::atomic_write::short_of_room(out, needed) {
        return Err(TransposeError::DiskFull {
            dir,
            needed,
            available,
        });
    }
    let mut w = match out.exists() {
        true => unfinished(out, n),
        false => TableWriter::create_shape(out, Shape::Rows, n),
    }
    .map_err(dst)?;
    // The file this run writes: another put at `out` meanwhile is not it.
    let written = file_id(out);
    let from = w.committed_columns();
    let whole = from == raw::rows_units(n);
    match write_rows(source, n, band, from, &mut w, stop, progress) {
        Ok(()) => {}
        Err(Written::Stopped) => {
            // Said kept only if it is still this run's file.
            w.check_still_here().map_err(dst)?;
            return Err(TransposeError::Stopped {
                path: out.to_path_buf(),
                done: w.committed_columns().min(n + 1),
                all: n + 1,
            });
        }
        Err(Written::Source(e)) => return Err(src(e)),
        Err(Written::Out(e)) => return Err(dst(e)),
    }
    // Another file moved to `out` while this run wrote, or the file
    // removed or written over, is not this run's output: kept, and said.
    // The file this run wrote rows of is removed below only if it fails
    // its check (damage; a rerun writes it again); a whole table by rows
    // that was there already (a result this run did not write) is kept,
    // as is the file at any other failure (a read error, say).
    w.check_still_here().map_err(dst)?;
    drop(w);
    let checked = Table::options()
        .either_f()
        .mapped(false)
        .open(out)
        .and_then(|t| t.verify());
    if let Err(TableError::Damaged { .. } | TableError::ChecksumMismatch(_)) = &checked
        && !whole
        && written.is_some()
        && file_id(out) == written
    {
        let _ = std::fs::remove_file(out);
    }
    checked.map_err(dst)?;
    if stop.requested() && !whole {
        // Heard as the last rows were committed: said, not dropped.
        return Err(TransposeError::Stopped {
            path: out.to_path_buf(),
            done: n + 1,
            all: n + 1,
        });
    }
    Ok(match whole {
        true => Transposed::Held { n },
        false => Transposed::Written { n, from },
    })
}

/// The device and inode of the file at `path`, if there is one.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// What [`transpose`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transposed {
    /// Wrote the table by rows of the table of largest column `n`, from
    /// unit `from` on (0 for a new file; else the rows a stopped or killed
    /// run had committed were kept).
    Written {
        /// The table's largest column.
        n: u64,
        /// The units (rows, then the diagonal) that were there already.
        from: u64,
    },
    /// The file was already the whole table by rows of this `N` (a run
    /// killed after its last commit left it): checked, not written.
    Held {
        /// The table's largest column.
        n: u64,
    },
}

impl Transposed {
    /// The table's largest column.
    pub fn n(self) -> u64 {
        match self {
            Transposed::Written { n, .. } | Transposed::Held { n } => n,
        }
    }
}

/// How [`write_rows`] did not finish.
enum Written {
    Stopped,
    Source(TableError),
    Out(TableError),
}

/// The writer of the unfinished table by rows at `out`, to be continued for
/// a source of largest column `n`; an error for any other file.
fn unfinished(out: &Path, n: u64) -> Result<TableWriter, TableError> {
    let refuse = |why: String| TableError::io(out)(std::io::Error::other(why));
    if !out.is_file() {
        return Err(refuse(
            "exists and is not a file; name a new file for the table by rows".into(),
        ));
    }
    let mut w = match TableWriter::open_shape(out, Shape::Rows) {
        Ok(w) => w,
        Err(TableError::OtherKind { found, .. }) => {
            return Err(refuse(format!(
                "exists and is {}; name a new file for the table by rows",
                found.what()
            )));
        }
        Err(TableError::NotThisFile | TableError::OtherFile(_)) => {
            use crate::outputs::Found;
            return Err(refuse(match crate::outputs::found(out) {
                Ok(Found::Compressed) => "exists and is a file compressed with xz; decompress it (xz -d) if it is the table you meant, or name a new file for the table by rows".into(),
                Ok(Found::Kind(kind)) => format!(
                    "exists and is {}; name a new file for the table by rows",
                    kind.what()
                ),
                _ => "exists and is not a chomp3 table; name a new file for the table by rows".into(),
            }));
        }
        Err(e) => return Err(e),
    };
    if w.capacity() != n {
        let whole = w.committed_columns() == raw::rows_units(w.capacity());
        return Err(refuse(format!(
            "{} table by rows of a table with N = {}, not {n}; remove it or name a new file",
            if whole { "a" } else { "an unfinished" },
            w.capacity()
        )));
    }
    w.trim()?;
    Ok(w)
}

/// Appends the rows of `source` from unit `from` on to `w` (the rows
/// `from ..= n`, then the diagonal), committing after each band.
fn write_rows(
    source: &Table,
    n: u64,
    band: u64,
    from: u64,
    w: &mut TableWriter,
    stop: &Stop,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(), Written> {
    let rows = n + 1;
    let band = band.clamp(1, rows);
    if from > rows {
        return Ok(());
    }
    let n32 = narrow::<u32, _>(n);
    // `cells[(q - r0) * height + (r - r0)]` = f(q, r): a column's piece of the
    // band lands in one run, and a row is gathered with a constant stride.
    let mut cells = Vec::new();
    let (mut piece, mut row) = (Vec::new(), Vec::new());
    let mut r0 = from;
    while r0 < rows {
        let r1 = (r0 + band).min(rows);
        let height = narrow::<usize, _>(r1 - r0);
        cells.clear();
        cells.resize(narrow::<usize, _>((rows - r0) * (r1 - r0)), 0u32);
        for q in narrow::<u32, _>(r0)..=n32 {
            if stop.requested() {
                return Err(Written::Stopped);
            }
            let top = (u64::from(q) + 1).min(r1);
            piece.clear();
            source
                .read_column(q, narrow::<u32, _>(r0)..narrow::<u32, _>(top), &mut piece)
                .map_err(Written::Source)?;
            let at = narrow::<usize, _>(u64::from(q) - r0) * height;
            cells[at..at + piece.len()].copy_from_slice(&piece);
        }
        for r in r0..r1 {
            // Stopped, the band's rows appended so far are not committed
            // (the next writer cuts them off).
            if stop.requested() {
                return Err(Written::Stopped);
            }
            let i = narrow::<usize, _>(r - r0);
            row.clear();
            row.extend(
                (narrow::<usize, _>(r - r0)..=narrow::<usize, _>(n - r0))
                    .map(|k| cells[k * height + i]),
            );
            w.append(1, raw::pack(w.bits(), raw::rows_cells(n, r), [&row[..]]))
                .map_err(Written::Out)?;
        }
        w.commit().map_err(Written::Out)?;
        progress(r1, rows);
        r0 = r1;
    }
    // The diagonal once more, so that a row's cells `q < r` are one run too.
    row.clear();
    for q in 0..=n32 {
        row.push(source.value(q, q).map_err(Written::Source)?);
    }
    w.append(1, raw::pack(w.bits(), raw::rows_cells(n, rows), [&row[..]]))
        .map_err(Written::Out)?;
    w.commit().map_err(Written::Out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table by columns of largest column `n` whose cell `(q, r)` holds
    /// `(31 q + 7 r) mod 211`: transposing only moves values.
    fn source(path: &Path, n: u32) -> Table {
        let mut w = TableWriter::create(path, 200).unwrap();
        for q in 0..=n {
            let column: Vec<u32> = (0..=q).map(|r| (31 * q + 7 * r) % 211).collect();
            let first = Shape::Triangle.cells(u64::from(q));
            w.append(1, raw::pack(w.bits(), first, [&column[..]]))
                .unwrap();
        }
        w.commit().unwrap();
        Table::open(path).unwrap()
    }

    #[test]
    fn a_stopped_transpose_continues_to_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let t = source(&dir.path().join("t.c3t"), 150);
        let whole = dir.path().join("whole.c3t");
        let none = &mut |_, _| {};
        assert_eq!(
            transpose_in_bands(&t, &whole, 7, &Stop::new(), none).unwrap(),
            Transposed::Written { n: 150, from: 0 }
        );
        let want = std::fs::read(&whole).unwrap();
        // Stopped after one band, then after three more, then to the end.
        let out = dir.path().join("r.c3t");
        for bands in [1, 3] {
            let stop = Stop::new();
            let mut seen = 0;
            let mut each = |_, _| {
                seen += 1;
                if seen == bands {
                    stop.request();
                }
            };
            let e = transpose_in_bands(&t, &out, 7, &stop, &mut each).unwrap_err();
            assert!(matches!(e, TransposeError::Stopped { all: 151, .. }), "{e}");
            assert!(matches!(
                Table::options().either_f().mapped(true).open(&out),
                Err(TableError::Unfinished { slot_failed: false })
            ));
        }
        assert_eq!(
            transpose_in_bands(&t, &out, 7, &Stop::new(), none).unwrap(),
            Transposed::Written { n: 150, from: 28 }
        );
        assert!(std::fs::read(&out).unwrap() == want);
        // A complete table by rows is checked and kept, never written; an
        // unfinished one of another table is not continued.
        let again = transpose_in_bands(&t, &out, 7, &Stop::new(), none).unwrap();
        assert_eq!(again, Transposed::Held { n: 150 });
        assert!(std::fs::read(&out).unwrap() == want);
        // Damaged since, it is refused and kept as it is: not this run's.
        let mut damaged = want.clone();
        let last = damaged.len() - 3;
        damaged[last] ^= 0x21;
        std::fs::write(&out, &damaged).unwrap();
        let e = transpose_in_bands(&t, &out, 7, &Stop::new(), none).unwrap_err();
        assert!(e.to_string().contains("restore the file"), "{e}");
        assert!(std::fs::read(&out).unwrap() == damaged);
        let small = source(&dir.path().join("s.c3t"), 40);
        let part = dir.path().join("p.c3t");
        let stop = Stop::new();
        stop.request();
        assert!(transpose_in_bands(&small, &part, 7, &stop, none).is_err());
        let e = transpose_in_bands(&t, &part, 7, &Stop::new(), none).unwrap_err();
        assert!(e.to_string().contains("N = 40, not 150"), "{e}");
    }

    /// A table by rows that a transpose writes is told as such by every name
    /// it is reached by, a hard link included; once the transpose is stopped,
    /// as unfinished.
    #[test]
    fn a_table_by_rows_being_written_is_told_by_any_name() {
        let dir = tempfile::tempdir().unwrap();
        let t = source(&dir.path().join("t.c3t"), 150);
        let out = dir.path().join("sub/r.c3r");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let (hard, soft) = (dir.path().join("h.c3r"), dir.path().join("s.c3r"));
        let names = [out.clone(), hard.clone(), soft.clone()];
        let open = |p: &Path| Table::options().either_f().mapped(false).open(p);
        let stop = Stop::new();
        let mut seen = Vec::new();
        let mut each = |_, _| {
            if seen.is_empty() {
                std::fs::hard_link(&out, &hard).unwrap();
                std::os::unix::fs::symlink(&out, &soft).unwrap();
                seen = names.iter().map(|p| open(p).err()).collect();
            }
            stop.request();
        };
        assert!(transpose_in_bands(&t, &out, 7, &stop, &mut each).is_err());
        for (name, e) in names.iter().zip(&seen) {
            assert!(
                matches!(e, Some(TableError::BeingWritten)),
                "{}: {e:?}",
                name.display()
            );
        }
        for name in &names {
            assert!(matches!(
                open(name),
                Err(TableError::Unfinished { slot_failed: false })
            ));
        }
    }
}
