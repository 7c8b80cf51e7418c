//! The stored Grundy table: `G(p,q,r)` for every position with `p <= N`, in a
//! `.g3t` file. It is the `f` table's format (FORMAT.md) with
//! [`Shape::Tetrahedron`]: slab `p` holds the lines `(q, r)`, `r <= q <= p`, in
//! the order of [`line()`], so `G(p,q,r)` is cell `p(p+1)(p+2)/6 + line(q,r)`;
//! slab 0 holds one placeholder 0 (`[0,0,0]` is not a position).
//!
//! The values come from [`Sweep`] with `Q = N`: after step `p` its lines with
//! `q <= p` hold exactly slab `p`. Slabs are appended and committed through
//! `TableWriter`, so a kill at any moment leaves a valid table of whole
//! slabs. The sweep's state is saved beside the table (a `.g3s` checkpoint,
//! FORMAT.md) after a commit every so often and when a run is stopped; a run
//! on an existing table starts from that state, checks that its values are
//! the table's slab there, and sweeps the committed slabs after it again,
//! comparing every stored value on the way (without a checkpoint, all of
//! them): a table that disagrees is reported damaged and never extended.

use crate::base::bytes::narrow;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::checkpoint::{CheckpointError, Format};
use super::{Sweep, line};
use crate::base::path_message::NamesPath;
use crate::base::stop::Stop;
use crate::f::table::{Shape, Table, TableError, TableWriter, raw};

/// The cell of `G(p,q,r)`.
pub fn cell(p: u32, q: u32, r: u32) -> u64 {
    Shape::Tetrahedron.cells(p as u64) + line(q, r) as u64
}

/// A Grundy table opened for reading.
pub struct GrundyTable(Table);

impl GrundyTable {
    /// Opens and checks a `.g3t` file (as [`Table::open`] does a `.c3t`).
    pub fn open(path: &Path) -> Result<GrundyTable, TableError> {
        Table::options()
            .shape(Shape::Tetrahedron)
            .open(path)
            .map(GrundyTable)
    }

    /// Opens and checks a `.g3t` file to be read with positional reads, not a
    /// map: for a process that keeps it open while other programs may change
    /// the file (a cut file gives an error, not SIGBUS).
    pub fn open_reading(path: &Path) -> Result<GrundyTable, TableError> {
        Table::options()
            .shape(Shape::Tetrahedron)
            .mapped(false)
            .open(path)
            .map(GrundyTable)
    }

    /// Its file's header: layout, bits per value and capacity.
    pub(crate) fn header(&self) -> crate::f::table::raw::Header {
        crate::f::table::raw::Header {
            shape: Shape::Tetrahedron,
            bits: self.0.bits(),
            capacity: self.0.capacity(),
        }
    }

    /// The largest `p` held (`None` before the first slab past the placeholder).
    pub fn n(&self) -> Option<u64> {
        // Column 0 is the placeholder slab.
        (self.0.columns() >= 2).then(|| self.0.columns() - 1)
    }

    /// `G(p,q,r)` for a position with `p <= N`.
    pub fn get(&self, p: u64, q: u64, r: u64) -> Result<u32, TableError> {
        assert!(p >= q && q >= r && p >= 1, "not a position");
        if p >= self.0.columns() {
            return Err(self.0.past_the_end(TableError::OutOfRange {
                what: "p",
                value: p,
                n: self.n(),
                shape: Shape::Tetrahedron,
            }));
        }
        self.0.cell(cell(
            narrow::<u32, _>(p),
            narrow::<u32, _>(q),
            narrow::<u32, _>(r),
        ))
    }

    /// Recomputes the data checksum (see [`Table::verify`]).
    pub fn verify(&self) -> Result<(), TableError> {
        self.0.verify()
    }
}

/// How a run ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Extended {
    /// The table holds every `p <= n`.
    Done {
        /// Slabs that were on disk when the run began, swept again and
        /// checked (not rewritten): those after the checkpoint's.
        checked: u64,
        /// The slab of the sweep checkpoint the run began from, if any.
        resumed: Option<u64>,
    },
    /// Stopped on request; the table holds `p <=` this (committed).
    Stopped(u64),
    /// The table held every `p <= n` already; nothing was computed (its
    /// blocks are checked as they are read).
    Held {
        /// The `p` its sweep checkpoint, missing or behind, was brought to
        /// through the stored slabs (each checked) and saved at, if it was.
        swept: Option<u64>,
    },
}

/// Where a run keeps its sweep's state, and how often it saves it.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    /// The checkpoint file (`.g3s`).
    pub path: PathBuf,
    /// Time between saves (each after a commit of the table).
    pub every: Duration,
}

/// What can stop a run of [`extend`].
#[derive(Debug)]
pub enum ExtendError {
    /// The table (see [`TableError`]).
    Table(TableError),
    /// The sweep checkpoint at this path cannot be read or written.
    Checkpoint(PathBuf, CheckpointError),
    /// The table was committed through `p`, and the sweep of it could not
    /// be saved at `path` afterwards (a full disk, say).
    SweepNotSaved {
        /// The table.
        table: PathBuf,
        /// Its last slab, committed.
        p: u64,
        /// The sweep checkpoint.
        path: PathBuf,
        /// Why it could not be written.
        error: io::Error,
    },
    /// The sweep checkpoint at this path is of a longer table than this one.
    NotThisTable {
        /// The checkpoint.
        path: PathBuf,
        /// Where its sweep is.
        p: u32,
        /// The table's last slab.
        last: u64,
    },
}

impl std::fmt::Display for ExtendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExtendError::Table(e) => write!(f, "{e}"),
            ExtendError::Checkpoint(path, e) => write!(f, "{}", e.with_path(path)),
            ExtendError::SweepNotSaved {
                table,
                p,
                path,
                error,
            } => write!(
                f,
                "{}: {error}; {} holds every p <= {p}, committed, but its sweep at p = {p} was not saved, so the next run brings the last sweep saved (if any) through the stored slabs again (checking each) before it extends the table",
                path.display(),
                table.display()
            ),
            ExtendError::NotThisTable { path, p, last } => write!(
                f,
                "{}: the sweep is at p = {p}, past the table's last slab {last}: not this table's",
                path.display()
            ),
        }
    }
}

impl std::error::Error for ExtendError {}

impl From<TableError> for ExtendError {
    fn from(e: TableError) -> ExtendError {
        ExtendError::Table(e)
    }
}

/// The sweep checkpoint's format (`.g3s`: `C3GSWP` and two digits).
pub(crate) const SWEEP_VERSION: u32 = 1;

const SWEEP: Format = Format {
    letters: b"C3GSWP",
    version: SWEEP_VERSION,
    oldest: SWEEP_VERSION,
    what: "grundy-table sweep",
};

/// Writes the sweep's state to `path` whole (beside it, then renamed), with a CRC.
fn save(sweep: &Sweep, path: &Path) -> io::Result<()> {
    SWEEP.save(path, |w| sweep.save(w))
}

/// Whether a table whole to its slab `done - 1` has its sweep brought
/// through the stored slabs and saved by [`extend`]: its checkpoint (at
/// `saved`; `None`: there is none) is behind its last slab.
pub(crate) fn sweep_behind(saved: Option<u32>, done: u64) -> bool {
    saved.is_none_or(|p| u64::from(p) + 1 < done)
}

/// The `p` of the sweep checkpoint at `path`, its whole file checked (for
/// the checks before a run), without holding the sweep.
pub(crate) fn saved_sweep_p(path: &Path) -> Result<u32, CheckpointError> {
    use crate::base::bytes::stream::get32;
    use std::io::Read;
    SWEEP.load(path, |r, bytes, _| {
        let (_, p) = (get32(r)?, get32(r)?);
        // The rest of the body (the magic's 8 bytes and the checksum's 4
        // aside), through the reader that sums it.
        let rest = bytes.saturating_sub(8 + 8 + 4);
        let read = io::copy(&mut Read::take(&mut *r, rest), &mut io::sink())?;
        match read == rest {
            true => Ok(p),
            false => Err(io::ErrorKind::UnexpectedEof.into()),
        }
    })
}

/// Reads a sweep checkpoint (`.g3s`) for the lines `q <= q_max`.
pub fn load_sweep(path: &Path, q_max: u32) -> Result<Sweep, CheckpointError> {
    SWEEP.load(path, |r, _, _| Sweep::load(r, q_max))
}

/// Creates or extends the table at `path` to every position with `p <= n`.
/// `capacity` (the largest `N` the file may grow to) applies to a new file;
/// `progress` hears each `p` done. Commits every two seconds and at the end;
/// saves the sweep to `checkpoint` (if given) after a commit every
/// `checkpoint.every`, when stopped, and at the end, and starts from it when
/// it is there.
pub fn extend(
    path: &Path,
    n: u32,
    capacity: u64,
    checkpoint: Option<&Checkpoint>,
    stop: &Stop,
    mut progress: impl FnMut(u32),
) -> Result<Extended, ExtendError> {
    let ck_error = |c: &Checkpoint, e| ExtendError::Checkpoint(c.path.clone(), e);
    let mut w = if path.exists() {
        TableWriter::open_shape(path, Shape::Tetrahedron)?
    } else {
        // A new table holds slab 0 only: a checkpoint past it is of another
        // table, refused (below) before this one is made.
        if let Some(c) = checkpoint.filter(|c| crate::base::input::is_there(&c.path)) {
            let sweep = load_sweep(&c.path, n).map_err(|e| ck_error(c, e))?;
            if sweep.p() >= 1 {
                return Err(ExtendError::NotThisTable {
                    path: c.path.clone(),
                    p: sweep.p(),
                    last: 0,
                });
            }
        }
        TableWriter::create_shape(path, Shape::Tetrahedron, capacity)?
    };
    w.trim()?;
    let cap = w.capacity();
    if n as u64 > cap {
        return Err(TableError::BeyondCapacity {
            n: n as u64,
            capacity: cap,
            bits: w.bits(),
        }
        .into());
    }
    if w.columns() == 0 {
        w.append(1, raw::pack(w.bits(), 0, [&[0u32][..]]))?;
        w.commit()?;
    }
    let done = w.columns();
    let q_max = n.max(narrow::<u32, _>(done - 1));
    let io_error = |c: &Checkpoint, e| ck_error(c, CheckpointError::Io(e));
    let saved = match checkpoint.filter(|c| crate::base::input::is_there(&c.path)) {
        Some(c) => Some(load_sweep(&c.path, q_max).map_err(|e| ck_error(c, e))?),
        None => None,
    };
    if done > u64::from(n) {
        // The table is whole to `n`. A run killed after its last commit but
        // before its last save left the sweep behind the table (or none):
        // it is brought to the table's last slab (checking every slab it
        // passes) and saved, so that the checkpoint is the one an
        // uninterrupted run leaves.
        let behind = sweep_behind(saved.as_ref().map(Sweep::p), done);
        let Some(c) = checkpoint.filter(|_| behind) else {
            return Ok(Extended::Held { swept: None });
        };
        let mut sweep = saved.unwrap_or_else(|| Sweep::new(q_max));
        check_stored(path, &mut sweep, done, stop, Some(c))?;
        save(&sweep, &c.path).map_err(|error| ExtendError::SweepNotSaved {
            table: path.to_path_buf(),
            p: done - 1,
            path: c.path.clone(),
            error,
        })?;
        if stop.requested() {
            return Ok(Extended::Stopped(done - 1));
        }
        return Ok(Extended::Held {
            swept: Some(done - 1),
        });
    }
    let mut sweep = saved.unwrap_or_else(|| Sweep::new(q_max));
    let resumed = (sweep.p() > 0).then_some(u64::from(sweep.p()));
    if u64::from(sweep.p()) >= done {
        let c = checkpoint.expect("a loaded sweep has a file");
        return Err(ExtendError::NotThisTable {
            path: c.path.clone(),
            p: sweep.p(),
            last: done - 1,
        });
    }
    check_stored(path, &mut sweep, done, stop, checkpoint)?;
    if stop.requested() {
        if let Some(c) = checkpoint {
            save(&sweep, &c.path).map_err(|e| io_error(c, e))?;
        }
        return Ok(Extended::Stopped(sweep.p() as u64));
    }
    let mut last_commit = Instant::now();
    let mut last_save = Instant::now();
    while sweep.p() < n {
        if stop.requested() {
            w.commit()?;
            w.check_written()?;
            if let Some(c) = checkpoint {
                save(&sweep, &c.path).map_err(|e| io_error(c, e))?;
            }
            return Ok(Extended::Stopped(sweep.p() as u64));
        }
        sweep.step();
        let p = sweep.p();
        w.append(1, raw::pack(w.bits(), cell(p, 0, 0), [sweep.slab()]))?;
        if last_commit.elapsed() > Duration::from_secs(2) {
            w.commit()?;
            last_commit = Instant::now();
            // The saved sweep is never past the committed table.
            if let Some(c) = checkpoint.filter(|c| last_save.elapsed() >= c.every) {
                save(&sweep, &c.path).map_err(|e| io_error(c, e))?;
                last_save = Instant::now();
            }
        }
        progress(p);
    }
    w.commit()?;
    // A file another program removed, replaced or wrote over meanwhile is
    // said, not reported as the table swept.
    w.check_written()?;
    if let Some(c) = checkpoint {
        save(&sweep, &c.path).map_err(|error| ExtendError::SweepNotSaved {
            table: path.to_path_buf(),
            p: u64::from(sweep.p()),
            path: c.path.clone(),
            error,
        })?;
    }
    if stop.requested() {
        // Heard as the last slabs were committed: said, not dropped.
        return Ok(Extended::Stopped(sweep.p() as u64));
    }
    Ok(Extended::Done {
        checked: (done - 1).saturating_sub(resumed.unwrap_or(0)),
        resumed,
    })
}

/// Checks the sweep (at `p >= 1`, from a checkpoint) against the table's
/// slab `p`, then sweeps the committed slabs after it up to `done - 1`,
/// comparing each stored value, and saves the sweep to `checkpoint` every
/// `checkpoint.every` on the way. Every slab it passes is committed, so a
/// saved sweep is never past the table, and a run killed again and again
/// while it checks still gets further each time.
fn check_stored(
    path: &Path,
    sweep: &mut Sweep,
    done: u64,
    stop: &Stop,
    checkpoint: Option<&Checkpoint>,
) -> Result<(), ExtendError> {
    let t = GrundyTable::open(path)?;
    let compare = |sweep: &Sweep| {
        let p = sweep.p();
        let first = cell(p, 0, 0);
        let mut slab = Vec::new();
        t.0.read_cells(first..cell(p + 1, 0, 0), &mut slab)?;
        for (i, (&v, &stored)) in sweep.slab().iter().zip(&slab).enumerate() {
            if stored != v {
                return Err(TableError::ChecksumMismatch(format!(
                    "slab p = {p}, cell {i}: stored {stored}, the sweep gives {v}"
                )));
            }
        }
        Ok(())
    };
    if sweep.p() > 0 {
        // The slabs before the saved sweep are not swept again: their
        // blocks' checksums are checked instead, before any is extended.
        t.verify()?;
        compare(sweep)?;
    }
    let mut last_save = Instant::now();
    while (sweep.p() as u64) + 1 < done && !stop.requested() {
        sweep.step();
        compare(sweep)?;
        if let Some(c) = checkpoint.filter(|c| last_save.elapsed() >= c.every) {
            save(sweep, &c.path)
                .map_err(|e| ExtendError::Checkpoint(c.path.clone(), CheckpointError::Io(e)))?;
            last_save = Instant::now();
        }
    }
    Ok(())
}

/// `G(n,n,n)`, the 3 x n rectangle, for `n = 1 ..= N`, read from the table.
pub fn rectangles(t: &GrundyTable) -> Result<Vec<u32>, TableError> {
    (1..=t.n().unwrap_or(0)).map(|n| t.get(n, n, n)).collect()
}

/// Per slab `p = 1 ..= N`: the number of positions `[p,q,r]` (`r <= q <= p`)
/// and how many of them have `G = 0` (the P-positions), 1, 2 and 3.
pub fn slab_counts(t: &GrundyTable) -> Result<Vec<[u64; 5]>, TableError> {
    let (mut out, mut slab) = (Vec::new(), Vec::new());
    for p in 1..=narrow::<u32, _>(t.n().unwrap_or(0)) {
        let mut c = [0u64; 5];
        slab.clear();
        t.0.read_cells(cell(p, 0, 0)..cell(p + 1, 0, 0), &mut slab)?;
        for &g in &slab {
            c[0] += 1;
            if g < 4 {
                c[1 + g as usize] += 1;
            }
        }
        out.push(c);
    }
    Ok(out)
}

/// Checks `G` against the `f` table, which a different recurrence computed:
/// on the line `(q,r)` the value is 0 at `p >= q` exactly when `p = f(q,r)`
/// (if `f(q,r) < q` the line has no P-position at all: doc/chomp.md
/// section 2). Covers every position with `p <= N` whose `q` the `f` table holds;
/// returns how many were compared, or the first that disagrees (slab by
/// slab, `p` outermost). Both tables
/// are verified first (`Err(TableError)`: a damaged one, and which).
pub fn zeros_match(g: &GrundyTable, f: &Table) -> Result<Result<u64, [u64; 3]>, Damaged> {
    g.verify().map_err(Damaged::Grundy)?;
    f.verify().map_err(Damaged::F)?;
    let n = g.n().unwrap_or(0);
    let mut compared = 0;
    // An `f` table that holds no column yet gives nothing to compare.
    let Some(q_top) = f.columns().checked_sub(1).map(|top| n.min(top)) else {
        return Ok(Ok(compared));
    };
    // `f(q, r)` of every line compared, by line number; then slab by slab,
    // each read at once.
    let mut zero_at = Vec::new();
    let mut column = Vec::new();
    for q in 0..=narrow::<u32, _>(q_top) {
        column.clear();
        f.read_column(q, 0..q + 1, &mut column)
            .map_err(Damaged::F)?;
        zero_at.extend(column.iter().map(|&v| u64::from(v)));
    }
    let mut slab = Vec::new();
    for p in 1..=narrow::<u32, _>(n) {
        slab.clear();
        g.0.read_cells(cell(p, 0, 0)..cell(p + 1, 0, 0), &mut slab)
            .map_err(Damaged::Grundy)?;
        for q in 0..=p.min(narrow::<u32, _>(q_top)) {
            for r in 0..=q {
                let value = slab[line(q, r)];
                if (value == 0) != (u64::from(p) == zero_at[line(q, r)]) {
                    return Ok(Err([u64::from(p), u64::from(q), u64::from(r)]));
                }
                compared += 1;
            }
        }
    }
    Ok(Ok(compared))
}

/// Which table of [`zeros_match`] failed its checks.
#[derive(Debug)]
pub enum Damaged {
    /// The Grundy table.
    Grundy(TableError),
    /// The `f` table.
    F(TableError),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sweep that cannot be saved once the table is committed (here its
    /// directory is missing) leaves the table whole, says so, and says what
    /// the next run does; a sweep saved is read back at its `p`.
    #[test]
    fn a_sweep_not_saved_leaves_the_table_whole_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let table = dir.path().join("g.g3t");
        let lost = Checkpoint {
            path: dir.path().join("missing").join("g.g3s"),
            every: Duration::from_secs(600),
        };
        let e = extend(&table, 10, 100, Some(&lost), &Stop::new(), |_| {}).unwrap_err();
        assert!(matches!(e, ExtendError::SweepNotSaved { p: 10, .. }), "{e}");
        let said = e.to_string();
        assert!(
            said.contains("holds every p <= 10, committed, but its sweep at p = 10 was not saved")
                && said.contains("the next run brings the last sweep saved (if any)"),
            "{said}"
        );
        assert_eq!(GrundyTable::open(&table).unwrap().n(), Some(10));
        let kept = Checkpoint {
            path: dir.path().join("g.g3s"),
            every: Duration::from_secs(600),
        };
        let done = extend(&table, 12, 100, Some(&kept), &Stop::new(), |_| {}).unwrap();
        assert!(matches!(done, Extended::Done { .. }), "{done:?}");
        assert_eq!(saved_sweep_p(&kept.path).unwrap(), 12);
        assert_eq!(load_sweep(&kept.path, 12).unwrap().p(), 12);
        // Cut short, it is damage, not a `p`.
        let bytes = std::fs::read(&kept.path).unwrap();
        std::fs::write(&kept.path, &bytes[..bytes.len() - 9]).unwrap();
        assert!(matches!(
            saved_sweep_p(&kept.path),
            Err(CheckpointError::Damaged { .. })
        ));
    }
}
