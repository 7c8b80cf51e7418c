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
//! allocation must succeed. Nothing the allocator calls here allocates.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most address space held back (not memory: the pages are never
/// touched). A graph solver's memo grows by doubling a table (64 MiB at a
/// few million positions), so this holds such a step while the call is
/// stopped.
const MOST: usize = 256 << 20;

/// The reserve's address and length, if one is held, and the long calls
/// that run: the reserve is held while any does. Nothing allocates while
/// this is locked (the allocator locks it to give the reserve up).
static HELD: Mutex<Held> = Mutex::new(Held {
    map: None,
    calls: 0,
});

struct Held {
    map: Option<(usize, usize)>,
    calls: usize,
}

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

/// A long call begins: takes a reserve if none is held: 256 MiB, or
/// under a process limit (`RLIMIT_AS`) half the address space left; none
/// where that is under 1 MiB or the mapping fails.
pub(crate) fn enter() {
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
            let half = limit.saturating_sub(mapped) / 2;
            usize::try_from(half).map_or(MOST, |h| h.min(MOST)) & !4095
        }
    };
    let mut held = held();
    held.calls += 1;
    if held.map.is_some() || len < 1 << 20 {
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
    if p != libc::MAP_FAILED {
        held.map = Some((p as usize, len));
    }
}

/// A long call ends: the last one gives the reserve up.
pub(crate) fn leave() {
    let taken = {
        let mut held = held();
        held.calls -= 1;
        match held.calls {
            0 => held.map.take(),
            _ => None,
        }
    };
    unmap(taken);
}

/// The reserve's lock, as it is if a thread panicked holding it.
fn held() -> std::sync::MutexGuard<'static, Held> {
    HELD.lock().unwrap_or_else(|p| p.into_inner())
}

/// Gives the reserve up at a failed allocation; whether one was held.
fn give_back() -> bool {
    let taken = held().map.take();
    let was = taken.is_some();
    unmap(taken);
    was
}

fn unmap(map: Option<(usize, usize)>) {
    if let Some((at, len)) = map {
        // SAFETY: the mapping `enter` made, taken out of `HELD` once.
        unsafe {
            libc::munmap(at as *mut libc::c_void, len);
        }
    }
}
