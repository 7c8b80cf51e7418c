//! Creating or extending a table file: checks the request, runs the `Engine` and
//! streams its blocks into a `TableWriter`, committing as it goes. This is the one
//! place where engine and table meet (uses `engine`, `table`, `stop`, `bytes`,
//! and `path_message` for its errors).

use crate::base::bytes::narrow;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::base::path_message::NamesPath;
use crate::base::stop::Stop;
use crate::f::engine::{BLOCK_COLS, Engine, StoredColumns};
use crate::f::table::raw::{self, MAX_CAPACITY};
use crate::f::table::{Shape, Table, TableError, TableWriter, parent_dir};

/// Capacity given to a new table when none is asked for: the largest `N` whose
/// values (at most `2N + 1`) fit in 18 bits.
pub const DEFAULT_CAPACITY: u64 = 131_071;

/// How often a computation commits (syncs the file) by default: a crash loses at
/// most this much work.
pub const DEFAULT_COMMIT_EVERY: Duration = Duration::from_secs(2);

/// What to compute.
#[derive(Clone, Debug)]
pub struct Request {
    /// The table file.
    pub path: PathBuf,
    /// Compute columns `0 ..= n`.
    pub n: u64,
    /// Capacity for a new table (default: the larger of `n` and [`DEFAULT_CAPACITY`]).
    pub capacity: Option<u64>,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// Commit at most this often (a commit syncs the file to disk).
    pub commit_every: Duration,
    /// Once requested, the computation commits what it has and stops
    /// ([`ComputeError::Interrupted`]).
    pub stop: Stop,
}

/// Why a computation did not run or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ComputeError {
    /// A table-file problem.
    #[error(transparent)]
    Table(#[from] TableError),
    /// Another process writes a file at this path.
    #[error(transparent)]
    Locked(#[from] crate::base::lock::LockError),
    /// A capacity this format cannot hold.
    #[error("a capacity of {0} is not possible: it must be at least N and at most {MAX_CAPACITY}")]
    BadCapacity(u64),
    /// An `N` beyond the largest table the format can hold.
    #[error("N = {0} is beyond the largest table this format holds (N <= {MAX_CAPACITY})")]
    TooLarge(u64),
    /// Not enough free disk for the requested table.
    #[error(
        "not enough free disk in {dir}: N = {n} needs {needed} more bytes, {available} available"
    )]
    DiskFull {
        /// The directory.
        dir: PathBuf,
        /// Requested N.
        n: u64,
        /// Bytes still to write.
        needed: u64,
        /// Bytes free.
        available: u64,
    },
    /// The directory for a new table is missing.
    #[error("directory {0} does not exist; create it first")]
    NoDirectory(PathBuf),
    /// A file stands where a directory of the table's path must be.
    #[error(
        "{0} is a file, not a directory, so the table cannot be written there; give a directory"
    )]
    FileAbove(PathBuf),
    /// The worker threads could not be started.
    #[error("cannot start {threads} worker threads: {error}; ask for fewer")]
    Threads {
        /// How many were to start.
        threads: usize,
        /// The system's refusal.
        error: String,
    },
    /// The directory for a new table may not be written by this process.
    #[error("directory {0} is read-only for this process; the table must go elsewhere")]
    ReadOnly(PathBuf),
    /// Stopped by Ctrl-C; every column up to `n` is committed.
    #[error(
        "interrupted; the table is safe and holds {}{}",
        crate::f::table::holds(*n),
        match reached {
            true => ", all that was asked: nothing is left to compute",
            false => "; run compute again to continue",
        }
    )]
    Interrupted {
        /// The N now committed (`None`: no column yet).
        n: Option<u64>,
        /// Whether that is the N asked for (the stop came as the last
        /// columns were written).
        reached: bool,
    },
}

impl NamesPath for ComputeError {
    fn names_path(&self) -> bool {
        match self {
            ComputeError::Table(e) => e.names_path(),
            ComputeError::NoDirectory(_)
            | ComputeError::FileAbove(_)
            | ComputeError::ReadOnly(_)
            | ComputeError::DiskFull { .. }
            | ComputeError::Locked(_) => true,
            _ => false,
        }
    }
}

/// What a computation did.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// N before the run (`None` for a table that held no column).
    pub from_n: Option<u64>,
    /// N after the run.
    pub n: u64,
    /// Cells computed in this run.
    pub cells: u64,
    /// Wall time of this run (checks, rebuild and writing included).
    pub elapsed: Duration,
    /// Bytes in the table file afterwards.
    pub file_len: u64,
}

/// Progress reports: `(cells done, cells to do)`.
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64);

/// Creates `req.path` or extends it to `req.n`. Returns `Ok(None)` when the table
/// already holds `N >= req.n` (nothing is written).
pub fn compute(req: &Request, progress: Progress) -> Result<Option<Outcome>, ComputeError> {
    let start = Instant::now();
    let path = req.path.as_path();
    // No other chomp3 writer (a census's checkpoint, a graph's memo) has
    // this path: the table's own lock keeps out only other tables. (A missing
    // directory is refused below, not made for the lock.)
    crate::base::lock::check_file_name(path)?;
    let dir = crate::base::atomic_write::parent_dir(path);
    // A path that goes up (`..`) from a missing directory is refused as such;
    // a new table in a directory this process may not write (where its lock
    // is made too) as that. (A table there already may be extended in place
    // under a lock file there already; without one, the lock says why not.)
    let _held = match dir.is_dir() {
        true if !path.exists() && !writable(&dir) => return Err(ComputeError::ReadOnly(dir)),
        true => Some(crate::base::lock::lock(path)?),
        false => {
            crate::base::lock::check_name(path)?;
            None
        }
    };
    let existing = if path.exists() {
        Some(Table::open(path)?)
    } else {
        None
    };
    let (bits, capacity, from_columns) = shape(req, existing.as_ref())?;
    if req.n > capacity {
        return Err(TableError::BeyondCapacity {
            n: req.n,
            capacity,
            bits,
        }
        .into());
    }
    let target = req.n + 1;
    if target <= from_columns {
        return Ok(None);
    }
    let header = raw::Header {
        shape: Shape::Triangle,
        bits,
        capacity,
    };
    let have = existing
        .as_ref()
        .map_or(0, |t| header.disk_len(t.columns()));
    check_disk(path, req.n, header.disk_len(target).saturating_sub(have))?;

    // Threads that cannot start are said before any file is made.
    crate::base::threads::room_for(req.threads).map_err(|e| ComputeError::Threads {
        threads: crate::base::threads::count(req.threads),
        error: e.0,
    })?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(req.threads)
        .build()
        .map_err(|e| ComputeError::Threads {
            threads: crate::base::threads::count(req.threads),
            error: e.to_string(),
        })?;
    let mut writer = match existing {
        Some(_) => TableWriter::open(path)?,
        None => TableWriter::create(path, capacity)?,
    };
    // Rebuild the engine from the committed columns (the writer's lock is held, so
    // they cannot change under us).
    // The base is checked whole (every block) before it is extended, and
    // every read of it checks its blocks again (another program may write
    // it meanwhile), so no damaged value feeds the new columns.
    let mut engine = match Table::open(path)? {
        t if t.columns() > 0 => {
            t.verify()?;
            Engine::resume(&t)?
        }
        _ => Engine::new(),
    };
    let todo = raw::cells(target) - raw::cells(from_columns);
    progress(0, todo);
    fill(&mut engine, &mut writer, &pool, req, target, &mut |done| {
        progress(done, todo)
    })?;
    writer.commit()?;
    writer.trim()?;
    // A file another program removed, replaced or wrote over meanwhile is
    // said, not reported as the table computed.
    writer.check_written()?;
    if req.stop.requested() {
        // Heard as the last columns were committed: said, not dropped.
        let n = writer.committed_columns().checked_sub(1);
        return Err(ComputeError::Interrupted { n, reached: true });
    }
    Ok(Some(Outcome {
        from_n: from_columns.checked_sub(1),
        n: req.n,
        cells: todo,
        elapsed: start.elapsed(),
        file_len: raw::file_len(target, capacity),
    }))
}

/// Computes columns up to `target` into `writer`, committing at the request's
/// rhythm and when it is stopped; `progress(cells written in this run)`.
fn fill(
    engine: &mut Engine,
    writer: &mut TableWriter,
    pool: &rayon::ThreadPool,
    req: &Request,
    target: u64,
    progress: &mut dyn FnMut(u64),
) -> Result<(), ComputeError> {
    let bits = writer.bits();
    let batch = BLOCK_COLS * 8 * narrow::<u32, _>(pool.current_num_threads());
    let mut last_commit = Instant::now();
    let mut failure = None;
    let mut done = 0u64;
    while (engine.columns() as u64) < target {
        let cols = narrow::<u32, _>((target - engine.columns() as u64).min(batch as u64));
        engine.advance(
            cols,
            pool,
            |block| {
                let first = raw::cells(block.first as u64);
                (
                    block.cols,
                    raw::pack(bits, first, (0..block.cols).map(|j| block.column(j))),
                )
            },
            |(count, packed)| {
                if failure.is_none() {
                    let cells = packed.end_bit / bits as u64 - raw::cells(writer.columns());
                    failure = writer.append(count as u64, packed).err();
                    done += cells;
                    progress(done);
                }
            },
        );
        if let Some(e) = failure {
            return Err(e.into());
        }
        let interrupted = req.stop.requested();
        if last_commit.elapsed() >= req.commit_every || interrupted {
            writer.commit()?;
            last_commit = Instant::now();
        }
        if interrupted {
            // Said safe only if it is still this run's file.
            writer.check_written()?;
            let n = writer.committed_columns().checked_sub(1);
            return Err(ComputeError::Interrupted {
                n,
                reached: n.is_some_and(|n| n >= req.n),
            });
        }
    }
    Ok(())
}

/// Bits per value, capacity and complete columns of the table: the existing one's,
/// or those a new one gets.
fn shape(req: &Request, existing: Option<&Table>) -> Result<(u32, u64, u64), ComputeError> {
    if let Some(t) = existing {
        return Ok((t.bits(), t.capacity(), t.columns()));
    }
    if req.capacity.is_none() && req.n > MAX_CAPACITY {
        return Err(ComputeError::TooLarge(req.n));
    }
    let capacity = req.capacity.unwrap_or(req.n.max(DEFAULT_CAPACITY));
    if capacity < req.n || capacity > MAX_CAPACITY {
        return Err(ComputeError::BadCapacity(capacity));
    }
    Ok((raw::bits_for_capacity(capacity), capacity, 0))
}

/// Checks, before anything is written, that the directory exists and has
/// room for the `needed` bytes the table will add to the disk.
fn check_disk(path: &Path, n: u64, needed: u64) -> Result<(), ComputeError> {
    let dir = parent_dir(path);
    if !dir.is_dir() {
        return Err(match crate::base::lock::file_above(path) {
            Some(file) => ComputeError::FileAbove(file.to_path_buf()),
            None => ComputeError::NoDirectory(dir),
        });
    }
    let available = fs4::available_space(&dir).map_err(TableError::io(&dir))?;
    if needed > available {
        return Err(ComputeError::DiskFull {
            dir,
            n,
            needed,
            available,
        });
    }
    Ok(())
}

/// Whether this process may make files in `dir`, as the system decides
/// (`faccessat` for the effective user, as `open` does: the permission
/// bits, a read-only mount; root may write where the bits say no one may).
/// Taken as so where it cannot be asked: the write then says what went
/// wrong.
fn writable(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(name) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return true;
    };
    // SAFETY: `faccessat` reads the NUL-terminated name and nothing else.
    let asked =
        unsafe { libc::faccessat(libc::AT_FDCWD, name.as_ptr(), libc::W_OK, libc::AT_EACCESS) };
    if asked == 0 {
        return true;
    }
    let refused = std::io::Error::last_os_error().raw_os_error();
    !matches!(refused, Some(libc::EACCES | libc::EROFS | libc::EPERM))
}

/// The engine rebuilds its state from a stored table through this.
impl StoredColumns for Table {
    fn columns(&self) -> u32 {
        narrow::<u32, _>(Table::columns(self))
    }

    type Error = TableError;

    /// Every block read is checked (a table damaged since it was verified
    /// is refused, not read).
    fn read_column(&self, q: u32, rows: Range<u32>, out: &mut Vec<u32>) -> Result<(), TableError> {
        Table::read_column(self, q, rows, out)
    }
}

/// The table of `f(q, r)` for `q <= n` computed at `path`, for tests.
#[cfg(test)]
pub(crate) fn computed(path: &Path, n: u64) -> Table {
    let req = Request {
        path: path.to_path_buf(),
        n,
        capacity: None,
        threads: 1,
        commit_every: DEFAULT_COMMIT_EVERY,
        stop: Stop::new(),
    };
    compute(&req, &mut |_, _| {}).unwrap();
    Table::open(path).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileExt;

    /// A table damaged after it was verified (another program writing it
    /// while `compute` rebuilds its state) is refused by the rebuild, not
    /// read: the error of the read, no panic.
    #[test]
    fn a_table_damaged_after_its_check_is_refused_by_the_rebuild() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.c3t");
        let t = computed(&path, 300);
        t.verify().unwrap();
        assert!(Engine::resume(&t).is_ok());
        // A byte of the last block's data, changed as another program would.
        let at = t.file_len() - 64;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let mut byte = [0u8];
        file.read_exact_at(&mut byte, at).unwrap();
        file.write_all_at(&[byte[0] ^ 0x10], at).unwrap();
        assert!(matches!(
            Engine::resume(&t),
            Err(TableError::Damaged { .. })
        ));
    }
}
