//! The census as one job for every front end: its files (named, or beside the
//! census table), its parameters, and the checks made before any work (two
//! outputs that are one file, a file of another kind in the way, a census of
//! more rows not asked to be replaced, the machine's memory), ending with
//! each output locked for this process. The binary and the Python package
//! both run a census through this, so they refuse the same things.

use std::path::PathBuf;

use super::{BATCH_COLS, Params, default_max_columns, memory_estimate, rank_memory_estimate};
use crate::base::lock::{Held, LockError};
use crate::base::memory::TooMuch;
use crate::f::census_file::{self, MayWriteError};
use crate::outputs::{self, Kind, Output, OutputError};

/// A census of rows `0 ..= rows`, as asked.
#[derive(Clone, Debug)]
pub struct Job {
    /// The last row.
    pub rows: u32,
    /// The census table (`census.tsv`).
    pub out: PathBuf,
    /// Its descriptors; `None`: beside `out`, as `.c3d`.
    pub descriptors: Option<PathBuf>,
    /// The checkpoint; `None`: beside `out`, as `.c3k`.
    pub checkpoint: Option<PathBuf>,
    /// Columns after which unproved rows are open; `None`: the default.
    pub max_columns: Option<u32>,
    /// Whether a census of more rows may be replaced.
    pub replace: bool,
    /// Where to write the run's trace (doc/scaling.md, "The simulator");
    /// `None`: no trace. Each rank of several writes its own
    /// ([`Job::trace_file`]).
    pub trace: Option<PathBuf>,
}

/// How a front end names the job's three files in its messages (the shell's
/// options, Python's keyword arguments).
#[derive(Clone, Copy, Debug)]
pub struct Names {
    /// The census table's.
    pub out: &'static str,
    /// The descriptors'.
    pub descriptors: &'static str,
    /// The checkpoint's.
    pub checkpoint: &'static str,
    /// The trace's.
    pub trace: &'static str,
}

/// Why a census may not start.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// Two outputs are one file, or one is in the way.
    #[error(transparent)]
    Outputs(#[from] OutputError),
    /// A census of more rows, or another file, is there.
    #[error(transparent)]
    Replace(#[from] MayWriteError),
    /// More memory than the machine has.
    #[error(transparent)]
    Memory(#[from] TooMuch),
    /// Another process writes one of the files.
    #[error(transparent)]
    Locked(#[from] LockError),
}

impl Job {
    /// The descriptor file.
    pub fn descriptors(&self) -> PathBuf {
        (self.descriptors.clone()).unwrap_or_else(|| self.out.with_extension("c3d"))
    }

    /// The checkpoint file (for ranks, the base of their names).
    pub fn checkpoint(&self) -> PathBuf {
        (self.checkpoint.clone()).unwrap_or_else(|| self.out.with_extension("c3k"))
    }

    /// The trace this process writes, if one was asked for: the path named,
    /// or for rank `k` of `P > 1` ranks the path with `.k-of-P` after it.
    pub fn trace_file(&self, rank: u32, ranks: u32) -> Option<PathBuf> {
        let path = self.trace.as_ref()?;
        Some(match ranks {
            0 | 1 => path.clone(),
            _ => {
                let mut name = path.as_os_str().to_owned();
                name.push(format!(".{rank}-of-{ranks}"));
                PathBuf::from(name)
            }
        })
    }

    /// The run's parameters.
    pub fn params(&self) -> Params {
        Params {
            last_row: self.rows,
            max_columns: self.max_columns.unwrap_or(default_max_columns(self.rows)),
            batch: BATCH_COLS,
        }
    }

    /// Every check before work, then the outputs locked (held until the
    /// value is dropped), for rank `rank` of `ranks` (`0` of `1`: the whole
    /// census in this process; under MPI each rank holds a share, and the
    /// `local` ranks on this machine, this one among them, share its memory,
    /// which is checked so). Rank 0 writes and locks the census's files; every
    /// rank checks them, and checks and locks the trace it writes itself
    /// ([`Job::trace_file`]), so that a clash with any rank's trace is
    /// refused before any work.
    pub fn check(
        &self,
        names: Names,
        (rank, ranks, local): (u32, u32, u32),
    ) -> Result<Vec<Held>, JobError> {
        let (one_process, writes) = (ranks <= 1, rank == 0);
        let (descriptors, checkpoint) = (self.descriptors(), self.checkpoint());
        let mut plan = vec![
            Output::new(&self.out, Kind::CensusTsv, names.out),
            Output::new(&descriptors, Kind::Descriptors, names.descriptors),
            Output::new(&checkpoint, Kind::CensusCheckpoint, names.checkpoint),
        ];
        let files = plan.len();
        if let Some(trace) = self.trace_file(rank, ranks) {
            plan.push(Output::new(trace, Kind::CensusTrace, names.trace));
        }
        outputs::check(&plan)?;
        if one_process {
            crate::base::memory::check(
                format!("a census of rows 0..={} in one process", self.rows),
                memory_estimate(self.rows),
            )?;
        } else {
            let census = format!("a census of rows 0..={} on {ranks} MPI ranks", self.rows);
            let needs = rank_memory_estimate(self.rows, 1);
            crate::base::memory::check(format!("a rank of {census}"), needs)?;
            // The ranks on this machine share its memory.
            let local = local.clamp(1, ranks);
            if local > 1 {
                crate::base::memory::check_machine(
                    format!("the share of this machine ({local} ranks) of {census}"),
                    rank_memory_estimate(self.rows, local),
                )?;
            }
        }
        for path in [&self.out, &descriptors] {
            census_file::may_write(path, self.rows, self.params().max_columns, self.replace)?;
        }
        Ok(match writes {
            true => outputs::lock(&plan)?,
            false => outputs::lock(&plan[files..])?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: Names = Names {
        out: "out",
        descriptors: "descriptors",
        checkpoint: "checkpoint",
        trace: "trace",
    };

    #[test]
    fn a_second_census_into_the_same_files_is_refused_while_the_first_holds_them() {
        let dir = tempfile::tempdir().unwrap();
        let job = Job {
            rows: 10,
            out: dir.path().join("census.tsv"),
            descriptors: None,
            checkpoint: None,
            max_columns: None,
            replace: false,
            trace: None,
        };
        assert_eq!(job.descriptors(), dir.path().join("census.c3d"));
        // Another process writing the census table holds its lock.
        let lock = crate::base::lock::lock_path(&job.out);
        let other = std::fs::File::create(&lock).unwrap();
        other.try_lock().unwrap();
        let err = job.check(NAMES, (0, 1, 1)).unwrap_err();
        assert!(matches!(err, JobError::Locked(_)), "{err}");
        // A rank other than 0 takes no lock of the census files (nor of a
        // trace, none being asked for).
        assert!(job.check(NAMES, (1, 2, 1)).unwrap().is_empty());
        drop(other);
        drop(job.check(NAMES, (0, 1, 1)).unwrap());
        assert!(!lock.exists());
        // Two of its files named alike are one file.
        let same = Job {
            checkpoint: Some(job.out.clone()),
            ..job.clone()
        };
        let err = same.check(NAMES, (0, 1, 1)).unwrap_err();
        assert!(matches!(err, JobError::Outputs(_)), "{err}");
    }
}
