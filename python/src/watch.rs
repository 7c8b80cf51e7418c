//! `Watcher`: Python's signal handlers and progress callback between the steps
//! of a long call; `interruptible`: the same for a call that has no steps to
//! hear from.

use std::sync::{Condvar, Mutex};

use chomp3::base::stop::Stop;
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError};
use pyo3::prelude::*;

/// What a long call does between its steps: runs Python's signal handlers
/// (Ctrl-C raises KeyboardInterrupt there) and the progress callback; the
/// first error requests the stop and is kept for the caller to raise.
pub(crate) struct Watcher {
    progress: Option<PyObject>,
    pub(crate) stop: Stop,
    raised: Mutex<Option<PyErr>>,
}

impl Watcher {
    pub(crate) fn new(progress: Option<PyObject>) -> Watcher {
        Watcher {
            progress,
            stop: Stop::new(),
            raised: Mutex::new(None),
        }
    }

    /// Called without the GIL, on the thread that released it.
    pub(crate) fn tick(&self, done: u64, total: u64) {
        Python::with_gil(|py| {
            let outcome = py.check_signals().and_then(|()| match &self.progress {
                Some(f) => f.call1(py, (done, total)).map(|_| ()),
                None => Ok(()),
            });
            if let Err(e) = outcome {
                self.stop.request();
                self.raised.lock().unwrap().get_or_insert(e);
            }
        })
    }

    /// Runs `work` without the GIL, as `allow_threads` does, on a thread of
    /// its own, while this thread runs Python's signal handlers every 20 ms:
    /// Ctrl-C is heard however far apart the ticks are, and its error
    /// requests the stop and is kept as at a tick.
    pub(crate) fn during<T: Send>(
        &self,
        py: Python<'_>,
        work: impl FnOnce() -> T + Send,
    ) -> PyResult<T> {
        watched(py, work, |e| {
            self.stop.request();
            self.raised.lock().unwrap().get_or_insert(e);
        })
    }

    /// The error that stopped the call, if one did.
    pub(crate) fn raised(&self) -> Option<PyErr> {
        self.raised.lock().unwrap().take()
    }
}

/// What a call stopped by `raised` raises: the user's own exception (a
/// handler's) as it is, else KeyboardInterrupt saying `said` (where the
/// call stopped, what it kept).
pub(crate) fn interruption(py: Python<'_>, raised: Option<PyErr>, said: String) -> PyErr {
    match raised {
        Some(e) if !e.is_instance_of::<PyKeyboardInterrupt>(py) => e,
        _ => PyKeyboardInterrupt::new_err(said),
    }
}

/// Runs `work` on a thread of its own while this one runs Python's signal
/// handlers every 20 ms: the first error they raise (Ctrl-C:
/// KeyboardInterrupt) sets `stop`, which `work` must heed, and is returned
/// once `work` has ended.
pub(crate) fn interruptible<T: Send>(
    py: Python<'_>,
    stop: &Stop,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let mut raised = None;
    let done = watched(py, work, |e| {
        if raised.is_none() {
            stop.request();
            raised = Some(e);
        }
    })?;
    match raised {
        Some(e) => Err(e),
        None => Ok(done),
    }
}

/// Runs `work` on a thread of its own and waits for it without the GIL,
/// running Python's signal handlers every 20 ms and giving `heard` each
/// error they raise, and a `MemoryError` once if an allocation failed
/// meanwhile; returns as soon as `work` ends (a call of a fraction of a
/// millisecond takes no more).
fn watched<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> T + Send,
    mut heard: impl FnMut(PyErr),
) -> PyResult<T> {
    /// Says the work ended, however it ends (a panic too).
    struct Ended<'a>(&'a (Mutex<bool>, Condvar));
    impl Drop for Ended<'_> {
        fn drop(&mut self) {
            let (ended, woken) = self.0;
            *ended.lock().unwrap_or_else(|p| p.into_inner()) = true;
            woken.notify_all();
        }
    }
    let ended = (Mutex::new(false), Condvar::new());
    // An allocation that failed during the call (see `oom`) stops it.
    let before = crate::oom::ran_out();
    let mut short = false;
    let mut heard_short = |heard: &mut dyn FnMut(PyErr)| {
        if !short && crate::oom::ran_out() != before {
            short = true;
            heard(PyMemoryError::new_err(
                "out of memory: an allocation failed (this process's limit, or the machine's memory), so the call was stopped; what it wrote is whole, and a call that continues goes on from its last checkpoint",
            ));
        }
    };
    /// The call's end for the reserve (see `oom`), however it ends (a panic
    /// of the work too).
    struct Call;
    impl Drop for Call {
        fn drop(&mut self) {
            crate::oom::leave();
        }
    }
    crate::oom::enter();
    let call = Call;
    let done = std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .spawn_scoped(s, || {
                let _ended = Ended(&ended);
                work()
            })
            .map_err(|e| {
                PyMemoryError::new_err(format!(
                    "could not start the thread this call runs on ({e}): the process is short of memory or of threads"
                ))
            })?;
        loop {
            let finished = py.allow_threads(|| {
                let (flag, woken) = &ended;
                let flag = flag.lock().unwrap_or_else(|p| p.into_inner());
                let tick = std::time::Duration::from_millis(20);
                let (flag, _) = woken
                    .wait_timeout_while(flag, tick, |ended| !*ended)
                    .unwrap_or_else(|p| p.into_inner());
                *flag
            });
            heard_short(&mut heard);
            if finished {
                break;
            }
            if let Err(e) = py.check_signals() {
                heard(e);
            }
        }
        Ok(worker
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    });
    drop(call);
    if short {
        chomp3::base::stop::stop_every_run_no_more();
    }
    done
}
