//! The Grundy table as one job for every front end: its files (the table, the
//! sweep checkpoint beside it, the b-files), its capacity, and the checks made
//! before any work (the size the format holds, outputs that are one file or a
//! file of another kind in the way, the machine's memory), ending with each
//! output locked for this process. The binary and the Python package both
//! run `grundy-table` through this, so they refuse the same things.

use std::path::PathBuf;
use std::time::Duration;

use crate::base::lock::{Held, LockError};
use crate::base::memory::TooMuch;
use crate::f::table::Shape;
use crate::grundy::table::Checkpoint;
use crate::outputs::{self, Kind, Output, OutputError};

/// The b-file of `G(n,n,n)` a Grundy table's job writes.
pub const RECTANGLES: &str = "grundy-rectangles.txt";
/// The b-file of the slabs' counts of `G = 0, 1, 2, 3`.
pub const SLAB_COUNTS: &str = "grundy-slab-counts.tsv";

/// The smallest capacity a new table is given (room to extend it later).
pub const DEFAULT_CAPACITY: u64 = 5000;

/// A Grundy table made or extended to `n`, as asked.
#[derive(Clone, Debug)]
pub struct Job {
    /// Every position with `p <= n`.
    pub n: u32,
    /// The table file (`.g3t`).
    pub table: PathBuf,
    /// Capacity of a new table; `None`: the larger of `n` and [`DEFAULT_CAPACITY`].
    pub capacity: Option<u64>,
    /// The sweep's checkpoint; `None`: beside the table, as `.g3s`.
    pub checkpoint: Option<PathBuf>,
    /// Time between saves of the checkpoint.
    pub checkpoint_every: Duration,
    /// Where the b-files go, if anywhere.
    pub bfiles: Option<PathBuf>,
    /// Whether b-files of more terms may be replaced.
    pub replace: bool,
}

/// How a front end names the job's files in its messages.
#[derive(Clone, Copy, Debug)]
pub struct Names {
    /// The table's.
    pub table: &'static str,
    /// The checkpoint's.
    pub checkpoint: &'static str,
    /// The b-files' directory's.
    pub bfiles: &'static str,
}

/// Why a Grundy table's job may not start.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// `n` past what the format holds.
    #[error("N = {n} is beyond the largest Grundy table this format holds (N <= {max})")]
    TooLarge {
        /// Asked.
        n: u32,
        /// The format's largest.
        max: u64,
    },
    /// A capacity below `n` or past the format.
    #[error(
        "a capacity of {capacity} is not possible: it must be at least N = {n} and at most {max}"
    )]
    BadCapacity {
        /// Asked.
        capacity: u64,
        /// The table's `n`.
        n: u32,
        /// The format's largest.
        max: u64,
    },
    /// Two outputs are one file, or one is in the way.
    #[error(transparent)]
    Outputs(#[from] OutputError),
    /// More memory than the machine has.
    #[error(transparent)]
    Memory(#[from] TooMuch),
    /// A b-file of more terms is there.
    #[error(transparent)]
    Larger(#[from] crate::grundy::sequences::LargerBFile),
    /// Another process writes one of the files.
    #[error(transparent)]
    Locked(#[from] LockError),
    /// The table at `n` does not fit in its directory's free space.
    #[error(
        "not enough free disk in {}: N = {n} needs {needed} more bytes ({what}), {available} available",
        dir.display()
    )]
    DiskFull {
        /// The directory short of room: the table's, or the checkpoint's
        /// on a file system of its own.
        dir: PathBuf,
        /// Asked.
        n: u32,
        /// Bytes still to write there.
        needed: u64,
        /// What they are.
        what: &'static str,
        /// Bytes free.
        available: u64,
    },
}

/// A job that passed its checks: what the run needs, its outputs locked.
#[derive(Debug)]
pub struct Checked {
    /// The capacity of a new table.
    pub capacity: u64,
    /// The sweep's checkpoint.
    pub checkpoint: Checkpoint,
    /// The locks, held until dropped.
    pub held: Vec<Held>,
}

impl Job {
    /// Every check before work, then the outputs locked.
    pub fn check(&self, names: Names) -> Result<Checked, JobError> {
        let max = Shape::Tetrahedron.max_capacity();
        let n = self.n;
        if u64::from(n) > max {
            return Err(JobError::TooLarge { n, max });
        }
        let capacity = (self.capacity).unwrap_or(u64::from(n).max(DEFAULT_CAPACITY));
        if capacity < u64::from(n) || capacity > max {
            return Err(JobError::BadCapacity { capacity, n, max });
        }
        let checkpoint = Checkpoint {
            path: (self.checkpoint.clone()).unwrap_or_else(|| self.table.with_extension("g3s")),
            every: self.checkpoint_every,
        };
        let mut plan = vec![
            Output::new(&self.table, Kind::GrundyTable, names.table),
            Output::new(&checkpoint.path, Kind::SweepCheckpoint, names.checkpoint),
        ];
        for name in [RECTANGLES, SLAB_COUNTS] {
            if let Some(dir) = &self.bfiles {
                plan.push(Output::new(dir.join(name), Kind::GrundyBFile, names.bfiles));
            }
        }
        if let Some(dir) = &self.bfiles {
            outputs::check_dir_name(dir)?;
        }
        outputs::check(&plan)?;
        if let Some(dir) = &self.bfiles {
            // The b-file holds G(n,n,n) for every n <= the table's N, which
            // is this run's n or the table's own, if larger.
            let held = crate::grundy::table::GrundyTable::open(&self.table)
                .ok()
                .and_then(|t| t.n());
            let terms = held.unwrap_or(0).max(u64::from(n));
            let path = dir.join(RECTANGLES);
            crate::grundy::sequences::may_write_bfile(&path, terms, self.replace)?;
            // One line a slab p = 1..N.
            let path = dir.join(SLAB_COUNTS);
            crate::grundy::sequences::may_write_slab_counts(&path, terms, self.replace)?;
        }
        crate::grundy::check_memory(n)?;
        let held = outputs::lock(&plan)?;
        // What the table adds to the disk at `n` (slabs 0..=n), against the
        // room its directory has, before any of it is written.
        let (header, have) = match crate::grundy::table::GrundyTable::open(&self.table) {
            Ok(t) => (t.header(), t.n().map_or(0, |n| n + 1)),
            Err(_) => (
                crate::f::table::raw::Header {
                    shape: Shape::Tetrahedron,
                    bits: Shape::Tetrahedron.bits_for_capacity(capacity),
                    capacity,
                },
                0,
            ),
        };
        let extends = u64::from(n) + 1 > have;
        let table = header
            .disk_len(u64::from(n) + 1)
            .saturating_sub(header.disk_len(have));
        // The sweep's checkpoint (of the lines `q <= ` the larger of `n` and
        // the table's `N`) is saved by a run that extends the table, and by
        // one that finds the table whole and its checkpoint missing or
        // behind (`table::extend`), at the end and as often as asked; each
        // save is written whole beside the one before, so two are on the
        // disk at once (less the one there now, on it already), each in
        // whole blocks of 4 KiB.
        use crate::grundy::table::{saved_sweep_p, sweep_behind};
        let saves = extends
            || match saved_sweep_p(&checkpoint.path) {
                Ok(p) => sweep_behind(Some(p), have),
                Err(crate::grundy::checkpoint::CheckpointError::NotFound) => {
                    sweep_behind(None, have)
                }
                // (refused by the run itself, saying what is wrong)
                Err(_) => false,
            };
        let q = u32::try_from(have.saturating_sub(1)).map_or(n, |last| last.max(n));
        let one = crate::grundy::sweep_saved_len(q).div_ceil(4096) * 4096;
        let there = std::fs::metadata(&checkpoint.path)
            .map_or(0, |m| std::os::unix::fs::MetadataExt::blocks(&m) * 512);
        let sweep = match saves {
            true => (2 * one).saturating_sub(there),
            false => 0,
        };
        let apart = !same_file_system(&self.table, &checkpoint.path);
        let both = "the table's data, and two sweep checkpoints, each written beside the last";
        let two = "two sweep checkpoints, each written beside the last";
        let mut wants = match apart {
            true => vec![
                (&self.table, table, "the table's data"),
                (&checkpoint.path, sweep, two),
            ],
            false if table == 0 => vec![(&self.table, sweep, two)],
            false => vec![(&self.table, table.saturating_add(sweep), both)],
        };
        wants.retain(|&(_, needed, _)| needed > 0);
        // (A table whose capacity is below `n` is refused as such when
        // opened to be extended, not here.)
        for (path, needed, what) in wants {
            let short = crate::base::atomic_write::short_of_room(path, needed);
            if let (true, Some((dir, available))) = (u64::from(n) <= header.capacity, short) {
                return Err(JobError::DiskFull {
                    dir,
                    n,
                    needed,
                    what,
                    available,
                });
            }
        }
        Ok(Checked {
            capacity,
            checkpoint,
            held,
        })
    }
}

/// Whether two files' directories are on one file system (taken as so when
/// either cannot be read: the check then counts both files on one).
fn same_file_system(a: &std::path::Path, b: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let dev = |p: &std::path::Path| {
        std::fs::metadata(crate::base::atomic_write::parent_dir(p)).map(|m| m.dev())
    };
    match (dev(a), dev(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: Names = Names {
        table: "table",
        checkpoint: "checkpoint",
        bfiles: "bfiles",
    };

    fn job(dir: &std::path::Path) -> Job {
        Job {
            n: 10,
            table: dir.join("g.g3t"),
            capacity: None,
            checkpoint: None,
            checkpoint_every: Duration::from_secs(600),
            bfiles: Some(dir.join("b")),
            replace: false,
        }
    }

    #[test]
    fn sizes_outputs_and_other_writers_are_checked_before_any_work() {
        let dir = tempfile::tempdir().unwrap();
        let ok = job(dir.path()).check(NAMES).unwrap();
        assert_eq!(ok.capacity, DEFAULT_CAPACITY);
        assert_eq!(ok.checkpoint.path, dir.path().join("g.g3s"));
        drop(ok);
        let max = Shape::Tetrahedron.max_capacity();
        let too_large = Job {
            n: u32::try_from(max + 1).unwrap(),
            ..job(dir.path())
        };
        assert!(matches!(
            too_large.check(NAMES),
            Err(JobError::TooLarge { .. })
        ));
        let small = Job {
            capacity: Some(5),
            ..job(dir.path())
        };
        let err = small.check(NAMES).unwrap_err();
        assert!(matches!(err, JobError::BadCapacity { .. }), "{err}");
        assert!(!err.to_string().contains("--"), "{err}");
        // Another process writing the table holds its lock.
        let other =
            std::fs::File::create(crate::base::lock::lock_path(&dir.path().join("g.g3t"))).unwrap();
        other.try_lock().unwrap();
        let err = job(dir.path()).check(NAMES).unwrap_err();
        assert!(matches!(err, JobError::Locked(_)), "{err}");
        drop(other);
        // The checkpoint named as the table: one file.
        let same = Job {
            checkpoint: Some(dir.path().join("g.g3t")),
            ..job(dir.path())
        };
        assert!(matches!(same.check(NAMES), Err(JobError::Outputs(_))));
    }
}
