//! How many worker threads a job may be given: one per core by default, up
//! to [`PER_CORE`] per core on purpose (oversubscribed, as the tests and the
//! MPI runs do); more is refused before any thread starts, as a number that
//! would make the machine spend its time starting threads; and the start of
//! rayon's global pool, with its failure as an error. Uses `rayon`.

/// The most worker threads a job may have per core of the machine.
pub const PER_CORE: usize = 16;

/// A request for more worker threads than the machine should run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{asked} worker threads {} more than {most} ({PER_CORE} a core, on the {cores} this process may use); nothing was computed",
    if *.from_env { "(asked for by RAYON_NUM_THREADS) are" } else { "is" }
)]
pub struct TooMany {
    /// The count asked for.
    pub asked: usize,
    /// The most allowed here.
    pub most: usize,
    /// The machine's cores.
    pub cores: usize,
    /// Whether the count came from `RAYON_NUM_THREADS` (asked for one per
    /// core, which rayon takes from there when it is set).
    pub from_env: bool,
}

/// The cores this process may run on (1 if the system does not say).
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The count rayon takes for a pool of "one per core" (asked as 0):
/// `RAYON_NUM_THREADS` when it is a positive number.
fn from_env() -> Option<usize> {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
}

/// The threads rayon starts for a pool of `asked` (0: one per core, or as
/// many as `RAYON_NUM_THREADS` says).
pub fn count(asked: usize) -> usize {
    match asked {
        0 => from_env().unwrap_or_else(cores),
        n => n,
    }
}

/// `asked` (0: one per core, or as many as `RAYON_NUM_THREADS` says, as
/// rayon reads it), if this machine should run that many.
pub fn check(asked: usize) -> Result<usize, TooMany> {
    let cores = cores();
    let most = cores * PER_CORE;
    let (n, from_env) = match asked {
        0 => (from_env().unwrap_or(0), true),
        n => (n, false),
    };
    match n <= most {
        true => Ok(asked),
        false => Err(TooMany {
            asked: n,
            most,
            cores,
            from_env,
        }),
    }
}

/// Worker threads that could not be started (the system refused a thread,
/// or the memory for its stack).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot start the worker threads ({0}); nothing was computed")]
pub struct CannotStart(pub String);

/// Starts rayon's global pool of worker threads (one per core, or as many as
/// `RAYON_NUM_THREADS` says) unless it runs already, so that a job that runs
/// on it learns here that its threads cannot be started, as an error, and
/// not from a panic inside rayon at its first parallel step. After an error
/// the global pool must not be used (rayon would panic).
pub fn global() -> Result<(), CannotStart> {
    use std::error::Error;
    if let Err(e) = check(0) {
        return Err(CannotStart(format!(
            "RAYON_NUM_THREADS asks for {} of them, more than {} ({PER_CORE} a core, on the {} this process may use)",
            e.asked, e.most, e.cores
        )));
    }
    room_for(0)?;
    match rayon::ThreadPoolBuilder::new().build_global() {
        Ok(()) => Ok(()),
        // An operating-system error: no pool. Without one (the pool runs
        // already, or this thread is one of a pool's), it works.
        Err(e) => match e.source() {
            Some(cause) => Err(CannotStart(cause.to_string())),
            None => Ok(()),
        },
    }
}

/// Refuses `n` threads (0: one per core) where the process's address-space
/// limit (`ulimit -v`) has no room for their stacks (2 MiB each, and their
/// signal stacks) beside what it maps and 32 MiB: a thread started without
/// room for its signal stack ends the process in Rust's runtime, past any
/// error a caller could give. May refuse a count that would just have fit.
pub fn room_for(n: usize) -> Result<(), CannotStart> {
    let n = count(n);
    let Some(limit) = crate::base::memory::process_limit() else {
        return Ok(());
    };
    let stacks = (n as u64).saturating_mul((2 << 20) + (256 << 10));
    let needs = crate::base::memory::mapped()
        .unwrap_or(0)
        .saturating_add(stacks)
        .saturating_add(32 << 20);
    match needs > limit {
        true => Err(CannotStart(format!(
            "{n} threads' stacks need {} MiB of address space beside what is mapped, and this process may map {} MiB (ulimit -v)",
            stacks >> 20,
            limit >> 20
        ))),
        false => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_per_core_or_a_few_times_more_is_allowed_and_no_more() {
        let most = cores() * PER_CORE;
        assert_eq!(check(0), Ok(0));
        assert_eq!(check(most), Ok(most));
        let e = check(most + 1).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(&format!("{} worker threads is more than {most}", most + 1))
        );
    }
}
