//! The extension's allocator: the system's, with a reserve of address space
//! held while a long call runs ([`crate::watch`]) and given up where an
//! allocation fails, so that the failed allocation is had after all and the
//! call is stopped with `MemoryError`, instead of Rust's abort of the whole
//! interpreter.
//!
//! Jobs whose memory can be told in advance refuse before they start
//! (`chomp3::base::memory`); this is for what cannot be (a graph solver's
//! memo, a process limit so small that a reader's buffers reach it). A
//! failure past the reserve still aborts: nothing else can be done where an
//! allocation must succeed. Nothing here allocates.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most address space held back (not memory: the pages are never
/// touched). A graph solver's memo grows by doubling a table (64 MiB at a
/// few million positions), so this holds such a step while the call is
/// stopped.
const MOST: usize = 256 << 20;

/// The reserve's address and length, if one is held. Nothing allocates
/// while this is locked (the allocator locks it to give the reserve up).
static HELD: Mutex<Option<(usize, usize)>> = Mutex::new(None);

/// How many times an allocation has failed.
static RAN_OUT: AtomicU64 = AtomicU64::new(0);

/// The system's allocator, giving up the reserve where an allocation fails.
pub(crate) struct Reserved;

// SAFETY: every block comes from `System` and goes back to it unchanged.
unsafe impl GlobalAlloc for Reserved {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        again(|| unsafe { System.alloc(layout) })
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        again(|| unsafe { System.alloc_zeroed(layout) })
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        again(|| unsafe { System.realloc(p, layout, size) })
    }
}

/// `allocate`, and where it fails, again once the reserve is given up
/// (counted in [`ran_out`] either way).
fn again(allocate: impl Fn() -> *mut u8) -> *mut u8 {
    let p = allocate();
    if !p.is_null() {
        return p;
    }
    RAN_OUT.fetch_add(1, Ordering::SeqCst);
    // While a long call runs (it holds the reserve), every run stops at its
    // next look at its stop token, not at the watcher's next tick, while
    // the reserve lasts. (A reservation that fails outside one, which its
    // caller handles, stops nothing.)
    if give_back() {
        chomp3::base::stop::stop_every_run();
    }
    allocate()
}

/// Times an allocation has failed so far (a call compares the count at its
/// end with that at its start).
pub(crate) fn ran_out() -> u64 {
    RAN_OUT.load(Ordering::SeqCst)
}

/// Takes a reserve for a call, if none is held: 64 MiB, or under a process
/// limit (`RLIMIT_AS`) an eighth of the address space left, so that the
/// reserve itself takes little of it; none where that is under 1 MiB or
/// the mapping fails.
pub(crate) fn hold() {
    if held().is_some() {
        return;
    }
    let len = match chomp3::base::memory::process_limit() {
        None => MOST,
        Some(limit) => {
            // glibc gives threads heaps of their own, each reserving 64 MiB
            // of address space when made: under a limit a new one would take
            // the reserve as soon as it is given up. From here on, threads
            // share the heaps there are (as the command line's do).
            #[cfg(target_env = "gnu")]
            // SAFETY: sets a tunable of glibc's allocator; the result (0
            // where refused) leaves it as it was.
            unsafe {
                libc::mallopt(libc::M_ARENA_MAX, 1);
            }
            let mapped = chomp3::base::memory::mapped().unwrap_or(limit);
            let eighth = limit.saturating_sub(mapped) / 2;
            usize::try_from(eighth).map_or(MOST, |e| e.min(MOST)) & !4095
        }
    };
    if len < 1 << 20 {
        return;
    }
    // SAFETY: a new private mapping that nothing reads or writes; PROT_NONE
    // and MAP_NORESERVE: address space only, no memory committed.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return;
    }
    let taken = {
        let mut held = held();
        match *held {
            Some(_) => false,
            None => {
                *held = Some((p as usize, len));
                true
            }
        }
    };
    if !taken {
        // Another thread took one meanwhile.
        // SAFETY: the mapping made just above, which nothing else has.
        unsafe {
            libc::munmap(p, len);
        }
    }
}

/// The reserve's lock, as it is if a thread panicked holding it.
fn held() -> std::sync::MutexGuard<'static, Option<(usize, usize)>> {
    HELD.lock().unwrap_or_else(|p| p.into_inner())
}

/// Gives the reserve up, if one is held (at a failed allocation, and at the
/// end of the call that took it); whether one was.
pub(crate) fn give_back() -> bool {
    let taken = held().take();
    if let Some((at, len)) = taken {
        // SAFETY: the mapping `hold` made, taken out of `HELD` once.
        unsafe {
            libc::munmap(at as *mut libc::c_void, len);
        }
    }
    taken.is_some()
}
