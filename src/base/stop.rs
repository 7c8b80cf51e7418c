//! The stop token: how a long computation learns that it should stop early
//! (Ctrl-C on the command line; a caller's own reason elsewhere). Owns a flag
//! and nothing else; uses nothing.
//!
//! Every long run (a table's computation, a census, a graph solve, the listing
//! of subgraphs) takes one and looks at it between units of work that leave a
//! consistent state behind (a commit, a batch of columns, a finished position),
//! so that stopping loses nothing that was done.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A request to stop, shared between whoever asks and whoever works; clones
/// share one flag.
#[derive(Clone, Debug, Default)]
pub struct Stop(Arc<AtomicBool>);

impl Stop {
    /// A token nobody has asked to stop yet.
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Asks every holder of the token to stop.
    pub fn request(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether a stop has been asked for, of this token or of every one
    /// ([`stop_every_run`]).
    pub fn requested(&self) -> bool {
        self.0.load(Ordering::Relaxed) || EVERY.load(Ordering::Relaxed)
    }
}

/// Set by [`stop_every_run`].
static EVERY: AtomicBool = AtomicBool::new(false);

/// Asks every run of this process to stop, whatever its token, until
/// [`stop_every_run_no_more`]: for an allocator that has run out of memory
/// and has only a little in reserve (it may be called there: it allocates
/// nothing).
pub fn stop_every_run() {
    EVERY.store(true, Ordering::SeqCst);
}

/// Takes back [`stop_every_run`], once the runs it stopped have ended.
pub fn stop_every_run_no_more() {
    EVERY.store(false, Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_one_request() {
        let a = Stop::new();
        let b = a.clone();
        let other = Stop::new();
        assert!(!b.requested());
        a.request();
        assert!(b.requested() && a.requested());
        assert!(!other.requested(), "separate tokens stay separate");
    }
}
