//! The census on a cluster: [`Mpi`], the [`Ranks`] of an MPI job (Open MPI
//! through the `mpi` crate), built only with the cargo feature `mpi`. Owns the
//! MPI environment of the process; uses `engine::ranks`, whose protocol it
//! carries (point-to-point messages of bytes, by rank and tag).

use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::engine::ranks::{Ranks, Traffic, TrafficCounter};

/// This process's place in an MPI job. MPI is finalized when it is dropped.
pub struct Mpi {
    world: SimpleCommunicator,
    traffic: TrafficCounter,
    // Dropped last: finalizes MPI.
    _universe: Universe,
}

// SAFETY: `Mpi::init` refuses to run unless the MPI library grants
// MPI_THREAD_MULTIPLE, under which any thread may call MPI at any time on one
// communicator; the communicator is a handle that is never changed after
// initialization. (The `mpi` crate marks its handles neither Send nor Sync,
// since it cannot know the threading level.)
unsafe impl Send for Mpi {}
// SAFETY: as for `Send`.
unsafe impl Sync for Mpi {}

impl Mpi {
    /// Initializes MPI with full thread support (the engine's threads send and
    /// receive on their own); an error if MPI cannot give it.
    pub fn init() -> Result<Mpi, String> {
        let (universe, threading) = mpi::initialize_with_threading(mpi::Threading::Multiple)
            .ok_or("MPI was initialized already")?;
        if threading != mpi::Threading::Multiple {
            return Err(format!(
                "the MPI library gives threading level {threading:?}; chomp3 needs MPI_THREAD_MULTIPLE"
            ));
        }
        Ok(Mpi {
            world: universe.world(),
            traffic: TrafficCounter::default(),
            _universe: universe,
        })
    }

    /// Waits until every rank is here.
    pub fn barrier(&self) {
        self.world.barrier();
    }
}

impl Ranks for Mpi {
    fn size(&self) -> u32 {
        self.world.size() as u32
    }
    fn rank(&self) -> u32 {
        self.world.rank() as u32
    }
    fn send(&self, to: u32, tag: u32, bytes: &[u8]) {
        self.traffic.add(bytes.len());
        self.world
            .process_at_rank(to as i32)
            .send_with_tag(bytes, tag as i32);
    }
    fn receive(&self, from: u32, tag: u32) -> Vec<u8> {
        let (bytes, _) = self
            .world
            .process_at_rank(from as i32)
            .receive_vec_with_tag::<u8>(tag as i32);
        bytes
    }
    fn sent(&self) -> Traffic {
        self.traffic.get()
    }
}
