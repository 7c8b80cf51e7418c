//! The checkpoint of a census in one process: one file, written aside,
//! synced and renamed into place, and read back to continue. Refuses to
//! start afresh beside the files of an MPI job's ranks (`rank_files`).

use std::io::BufReader;
use std::path::PathBuf;
use std::time::Instant;

use super::driver::{CHECKPOINT, Checkpoints, DriverError, Saved};
use super::{Params, Run};
use crate::base::input::{self, InputError};
use crate::f::engine::ranks::Ranks;

/// The checkpoint of a census in one process: one file, written aside, synced
/// and renamed into place.
pub struct OneFile {
    /// The file.
    pub path: PathBuf,
}

impl OneFile {
    /// The state saved in the file, if there is one (it must be for `params`).
    pub fn resume(&self, params: Params) -> Result<Option<Run>, DriverError> {
        // Nothing there: a new census. A link to nothing is named, not
        // written over.
        let file = match input::open(&self.path, CHECKPOINT) {
            Ok(f) => f,
            Err(InputError::Missing { .. }) => {
                super::rank_files::refuse_rank_files(&self.path)?;
                return Ok(None);
            }
            Err(e) => return Err(DriverError::Input(e)),
        };
        Run::load(&mut BufReader::with_capacity(1 << 20, file), params)
            .map(Some)
            .map_err(|error| DriverError::Checkpoint {
                path: self.path.clone(),
                error,
            })
    }
}

impl Checkpoints for OneFile {
    fn save(&self, run: &mut Run) -> Result<Saved, DriverError> {
        let started = Instant::now();
        crate::base::atomic_write::write_atomically(&self.path, |w| run.save(w)).map_err(
            |error| DriverError::Io {
                path: self.path.clone(),
                error,
            },
        )?;
        Ok(Saved {
            path: self.path.clone(),
            bytes: std::fs::metadata(&self.path).map_or(0, |m| m.len()),
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    fn remove(&self, _: &dyn Ranks) -> Result<(), DriverError> {
        // What killed writers of it left aside (a run that finishes before
        // its first save never writes it, which removes them too).
        crate::base::atomic_write::remove_left_aside(&self.path);
        // Not a file another program put there meanwhile.
        crate::base::lock::remove_own(&self.path).map_err(|error| DriverError::Io {
            path: self.path.clone(),
            error,
        })
    }
}
