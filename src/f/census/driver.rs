//! Running a census to its end: a step per batch, a checkpoint at a set rhythm
//! and when a stop is requested, and a hook after every batch for progress.
//! The command (one process, or one rank of several) and the Python package
//! both run a census through [`drive`]; where checkpoints live is behind
//! [`Checkpoints`] (one file in one process, `one_file`; the command's MPI
//! ranks keep one file each, `rank_files`). Uses `Run`, the engine's `ranks` for the decisions all ranks must
//! share, `stop` and `atomic_write`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{Census, CheckpointError, Run};
use crate::base::input::InputError;
use crate::base::stop::Stop;
use crate::f::engine::ranks::{self as share, Ranks, Traffic};

/// A checkpoint written.
#[derive(Clone, Debug)]
pub struct Saved {
    /// The file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Seconds the save took.
    pub seconds: f64,
}

/// Why a census could not be continued or saved.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// The checkpoint to continue from is refused.
    #[error("{}: {error}", .path.display())]
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// What is wrong with it.
        error: CheckpointError,
    },
    /// A checkpoint could not be read or written.
    #[error("{}: {error}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        error: std::io::Error,
    },
    /// The census files could not be written (the message names the file;
    /// the files there before are as they were).
    #[error("writing the census: {0}")]
    Results(std::io::Error),
    /// The checkpoint files of several ranks disagree (the message says how).
    #[error("{0}")]
    Ranks(String),
    /// The checkpoint's path is no regular file, or a link to nothing (the
    /// message names it).
    #[error(transparent)]
    Input(InputError),
}

/// What a checkpoint is, for the message when the path is no file.
pub(crate) const CHECKPOINT: &str = "a census checkpoint";

/// Where a census keeps its state between runs.
pub trait Checkpoints {
    /// Saves the whole state of `run`.
    fn save(&self, run: &mut Run) -> Result<Saved, DriverError>;
    /// Deletes the checkpoints once the census's files are written (every rank
    /// calls it).
    fn remove(&self, ranks: &dyn Ranks) -> Result<(), DriverError>;
}

/// What the hook hears after every batch.
pub struct Batch<'a> {
    /// Columns computed.
    pub columns: u32,
    /// Rows `0 .. settled` are settled.
    pub settled: u32,
    /// The checkpoint written after this batch, if one was.
    pub saved: Option<&'a Saved>,
}

/// How a drive ended.
pub enum Ended {
    /// Every row settled or the column limit reached: the census (on rank 0;
    /// `None` on the other ranks) and this rank's message traffic.
    Finished {
        /// The result.
        census: Option<Census>,
        /// Bytes and messages this rank sent.
        traffic: Traffic,
    },
    /// Stopped on request, after saving the state.
    Stopped {
        /// Columns computed.
        columns: u32,
        /// The checkpoint written.
        saved: Saved,
    },
}

/// How often to save, and what else a drive needs.
pub struct Drive<'a> {
    /// The worker threads.
    pub pool: &'a rayon::ThreadPool,
    /// Once requested (on any rank), the state is saved and the drive stops.
    pub stop: &'a Stop,
    /// Save at least this often (on rank 0's clock).
    pub every: Duration,
    /// Where to save.
    pub checkpoints: &'a dyn Checkpoints,
    /// Where to write this rank's trace of the run (`None`: no trace; see
    /// [`super::job::Job::trace_file`]).
    pub trace: Option<&'a Path>,
}

/// No checkpoints: for a census that is never stopped and never saved
/// ([`super::census`]); asked to save, it says so.
pub(crate) struct Nowhere;

impl Checkpoints for Nowhere {
    fn save(&self, _: &mut Run) -> Result<Saved, DriverError> {
        Err(DriverError::Ranks(
            "this census keeps no checkpoint".to_string(),
        ))
    }

    fn remove(&self, _: &dyn Ranks) -> Result<(), DriverError> {
        Ok(())
    }
}

/// The census job of `chomp3 census` and of Python's `census`: drives `run`
/// to its end ([`drive`]); if it finished, rank 0 writes the census table
/// `out` and its descriptors (`command` in their headers), then every rank's
/// checkpoints are deleted. A stopped job leaves its checkpoint.
pub fn drive_and_write(
    run: Run,
    d: Drive,
    (out, descriptors, command): (&Path, &Path, &str),
    on_batch: &mut dyn FnMut(Batch),
) -> Result<Ended, DriverError> {
    let ranks = run.shared_ranks();
    let checkpoints = d.checkpoints;
    let ended = drive(run, d, on_batch)?;
    if let Ended::Finished { census, .. } = &ended {
        let written = match census {
            Some(c) => c.write(command, out, descriptors),
            None => Ok(()),
        };
        together(&*ranks, written)?;
        checkpoints.remove(&*ranks)?;
    }
    Ok(ended)
}

/// `result` as every rank sees it: under several ranks each rank's refusal
/// is gathered to rank 0, joined, and handed back to every rank, so that no
/// rank stops alone while the others wait for it without end (and the
/// launcher, stopping the job at the first rank to end, does not cut off
/// the one that says why). Also a barrier. One process keeps its own.
pub(super) fn together<T>(
    ranks: &dyn Ranks,
    result: Result<T, DriverError>,
) -> Result<T, DriverError> {
    if ranks.size() == 1 {
        return result;
    }
    every_rank(ranks, result).map_err(DriverError::Ranks)
}

/// `together` for any error, for callers outside the census's files: every
/// rank's refusal, joined and worded with its rank, on every rank (even
/// under one rank; `together` keeps one process's error as it is).
pub fn every_rank<T, E: std::fmt::Display>(
    ranks: &dyn Ranks,
    result: Result<T, E>,
) -> Result<T, String> {
    let said = result.as_ref().err().map(ToString::to_string);
    let all = share::gather(ranks, said.unwrap_or_default().into_bytes()).map(|all| {
        let refusals: Vec<String> = (all.iter().enumerate())
            .filter(|(_, b)| !b.is_empty())
            .map(|(k, b)| {
                format!(
                    "rank {k} of {}: {}",
                    ranks.size(),
                    String::from_utf8_lossy(b)
                )
            })
            .collect();
        refusals.join("; ").into_bytes()
    });
    let all = share::broadcast(ranks, 0, all.unwrap_or_default());
    match (result, all.is_empty()) {
        (Ok(value), true) => Ok(value),
        _ => Err(format!(
            "{}; nothing more was done",
            String::from_utf8_lossy(&all)
        )),
    }
}

/// Runs `run` to its end as `d` says, calling `on_batch` after every batch.
pub fn drive(
    mut run: Run,
    d: Drive,
    on_batch: &mut dyn FnMut(Batch),
) -> Result<Ended, DriverError> {
    let mut last_save = Instant::now();
    if d.trace.is_some() {
        run.trace();
    }
    let save_trace = |run: &Run| match d.trace {
        Some(path) => run
            .save_trace(path, d.pool.current_num_threads())
            .map_err(|error| DriverError::Io {
                path: path.to_path_buf(),
                error,
            }),
        None => Ok(()),
    };
    while !run.done() {
        run.step(d.pool);
        crate::base::huge::release_free_pages();
        let ranks = run.ranks();
        let wanted = d.stop.requested();
        // Rank 0's clock decides; a stop on any rank stops them all.
        let due = last_save.elapsed() >= d.every && !run.done() && ranks.rank() == 0;
        let save_now = share::any(ranks, due || wanted);
        let stopped = share::any(ranks, wanted);
        run.trace_traffic();
        let saved = match save_now {
            true => Some(d.checkpoints.save(&mut run)?),
            false => None,
        };
        if saved.is_some() {
            last_save = Instant::now();
        }
        on_batch(Batch {
            columns: run.columns(),
            settled: run.settled_rows(),
            saved: saved.as_ref(),
        });
        if let (true, Some(saved)) = (stopped, saved) {
            together(run.ranks(), save_trace(&run))?;
            return Ok(Ended::Stopped {
                columns: run.columns(),
                saved,
            });
        }
    }
    let traffic = run.ranks().sent();
    together(run.ranks(), save_trace(&run))?;
    Ok(Ended::Finished {
        census: run.finish(),
        traffic,
    })
}
