//! The census on a cluster: [`Mpi`], the [`Ranks`] of an MPI job (Open MPI
//! through the `mpi` crate), built only with the cargo feature `mpi`. Owns the
//! MPI environment of the process; uses `engine::ranks`, whose protocol it
//! carries (point-to-point messages of bytes, by rank and tag).

use crate::base::bytes::narrow;
use std::sync::Mutex;

use mpi::environment::Universe;
use mpi::point_to_point::MatchedReceiveVec;
use mpi::request::{Request, StaticScope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use crate::f::engine::ranks::{Ranks, Traffic, TrafficCounter};

/// Looks for a message, yielding the core in between, before [`POLL`] pauses.
const YIELDS: u32 = 100;

/// Pause between two later looks for a message that has not arrived.
const POLL: std::time::Duration = std::time::Duration::from_micros(50);

/// This process's place in an MPI job. MPI is finalized when it is dropped.
pub struct Mpi {
    world: SimpleCommunicator,
    /// Ranks on this machine (a communicator split by shared memory).
    local: u32,
    traffic: TrafficCounter,
    /// Sends under way, with the buffers they read (freed once complete).
    pending: Mutex<Vec<Pending>>,
    // Dropped last: finalizes MPI.
    _universe: Universe,
}

/// Why MPI cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum MpiError {
    /// `Mpi::init` was called twice in one process.
    #[error("MPI was initialized already")]
    AlreadyInitialized,
    /// The library does not give the threading level the engine needs.
    #[error(
        "the MPI library gives threading level {0}; chomp3 needs MPI_THREAD_MULTIPLE (build Open MPI or MPICH with thread support)"
    )]
    Threading(String),
    /// The process may map less than [`MIN_ROOM`] bytes (`ulimit -v`); its
    /// limit, in bytes.
    #[error(
        "an MPI rank of a census needs at least {} MiB of address space (Open MPI's start alone maps about 55 MiB, and a census keeps 64 MiB to spare beside what it maps), and this process may map (ulimit -v) {} MiB; nothing was computed",
        MIN_ROOM >> 20,
        .0 >> 20
    )]
    Room(u64),
}

/// The least address space (`ulimit -v`) a rank is let start MPI in, in
/// bytes. Below it, Open MPI's own start (which maps about 55 MiB) fails
/// inside `MPI_Init`: near its need, with a segmentation fault and no word
/// of why, or by leaving the other ranks waiting. A census asks for 64 MiB
/// to spare beside what the process maps ([`crate::base::memory::check`]),
/// so no census that this refuses would have run.
pub const MIN_ROOM: u64 = 128 << 20;

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
    /// receive on their own); an error if MPI cannot give it. Returns once
    /// every process of the job has called it. A process that may map less
    /// than [`MIN_ROOM`] is refused before MPI starts.
    pub fn init() -> Result<Mpi, MpiError> {
        if let Some(limit) = crate::base::memory::process_limit().filter(|&l| l < MIN_ROOM) {
            return Err(MpiError::Room(limit));
        }
        let (universe, threading) = mpi::initialize_with_threading(mpi::Threading::Multiple)
            .ok_or(MpiError::AlreadyInitialized)?;
        if threading != mpi::Threading::Multiple {
            return Err(MpiError::Threading(format!("{threading:?}")));
        }
        // A rank that panics would leave the others waiting for it without
        // end (and its own finalizing could wait for them): once the panic
        // is said, the whole job is ended, with a panic's status.
        let said = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            said(info);
            SimpleCommunicator::world().abort(101);
        }));
        let world = universe.world();
        // Every rank calls this here (a collective call), at its start; the
        // barrier after it returns once every process of the job has started
        // MPI, which the caller may bound.
        let local = narrow::<u32, _>(world.split_shared(world.rank()).size());
        world.barrier();
        Ok(Mpi {
            world,
            local,
            traffic: TrafficCounter::default(),
            pending: Mutex::new(Vec::new()),
            _universe: universe,
        })
    }
}

impl Ranks for Mpi {
    fn size(&self) -> u32 {
        narrow::<u32, _>(self.world.size())
    }
    fn on_this_machine(&self) -> u32 {
        self.local
    }
    fn rank(&self) -> u32 {
        narrow::<u32, _>(self.world.rank())
    }
    fn send(&self, to: u32, tag: u32, bytes: &[u8]) {
        // A non-blocking send on a copy: a blocking one waits (spinning) until
        // the receiver takes the message, which may be a whole chunk of work
        // later; the copy lives until the send completes.
        self.traffic.add(bytes.len());
        let buffer: &'static mut [u8] = Box::leak(bytes.to_vec().into_boxed_slice());
        let buffer: *mut [u8] = buffer;
        // SAFETY: the buffer is freed only after its request completed.
        let data: &'static [u8] = unsafe { &*buffer };
        let request = self
            .world
            .process_at_rank(narrow::<i32, _>(to))
            .immediate_send_with_tag(StaticScope, data, narrow::<i32, _>(tag));
        let mut pending = self.pending.lock().unwrap();
        pending.push(Pending { request, buffer });
        reap(&mut pending);
    }
    fn receive(&self, from: u32, tag: u32) -> Vec<u8> {
        // Polls, sleeping in between, instead of a blocking receive: Open MPI
        // spins in a blocking receive, and a rank's threads that wait for
        // their blocks' hand-offs would take the cores from those that compute.
        let source = self.world.process_at_rank(narrow::<i32, _>(from));
        let since = std::time::Instant::now();
        let mut looks = 0;
        loop {
            if let Some(probed) = source.immediate_matched_probe_with_tag(narrow::<i32, _>(tag)) {
                let message = probed.matched_receive_vec::<u8>().0;
                self.traffic.waited(tag, since);
                return message;
            }
            if looks < YIELDS {
                looks += 1;
                std::thread::yield_now();
            } else {
                std::thread::sleep(POLL);
            }
        }
    }
    fn sent(&self) -> Traffic {
        self.traffic.get()
    }
}

/// A send under way and the buffer it reads.
struct Pending {
    request: Request<'static, [u8]>,
    buffer: *mut [u8],
}

/// Frees the buffers of the sends that have completed.
fn reap(pending: &mut Vec<Pending>) {
    let mut still = Vec::with_capacity(pending.len());
    for p in pending.drain(..) {
        match p.request.test() {
            // SAFETY: the send is complete; nothing else holds the buffer.
            Ok(_) => drop(unsafe { Box::from_raw(p.buffer) }),
            Err(request) => still.push(Pending {
                request,
                buffer: p.buffer,
            }),
        }
    }
    *pending = still;
}

impl Drop for Mpi {
    /// Completes the sends under way (every message is received: the protocol
    /// has a receive for each send) before MPI is finalized.
    fn drop(&mut self) {
        for p in self.pending.get_mut().unwrap().drain(..) {
            p.request.wait();
            // SAFETY: as in `reap`.
            drop(unsafe { Box::from_raw(p.buffer) });
        }
    }
}
