//! The binary's allocator: the library's (`HugePages`), but an allocation
//! that fails ends the process with one line and exit status 1 instead of
//! Rust's abort (a core dump, status 134, no advice).
//!
//! Jobs whose memory can be told in advance refuse before they start
//! (`chomp3::base::memory`); this is for what cannot be (a graph solver's
//! memo, a limit so small that the threads' own heaps reach it). Every file
//! chomp3 writes survives a kill at any instant, so an exit here leaves them
//! as a kill would: whole, and continued by the same command where the job
//! resumes. Nothing here may allocate: the line is formatted on the stack.

use std::alloc::{GlobalAlloc, Layout};
use std::fmt::Write;

use chomp3::base::huge::HugePages;

/// Under an address-space limit (`ulimit -v`), has every thread allocate
/// from one heap. glibc gives threads heaps of their own (up to eight per
/// core), each reserving 64 MiB of address space when made: under a limit
/// of a few hundred MiB a pool of threads takes it all, and a thread that
/// then cannot allocate what it needs to start (its signal stack, its
/// thread-local destructors) ends the process in glibc or Rust's runtime,
/// with an abort this allocator never sees. Without a limit nothing
/// changes. Call before any thread starts.
pub fn share_heaps_under_limit() {
    #[cfg(target_env = "gnu")]
    if chomp3::base::memory::process_limit().is_some() {
        // SAFETY: sets a tunable of glibc's allocator before any thread
        // allocates; the result (0 where refused) leaves the default.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
        }
    }
}

/// [`HugePages`], ending the process in one line where an allocation fails.
pub struct ExitOnFailure;

// SAFETY: every block comes from `HugePages` and goes back to it unchanged.
unsafe impl GlobalAlloc for ExitOnFailure {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { HugePages.alloc(layout) };
        if p.is_null() {
            failed(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { HugePages.alloc_zeroed(layout) };
        if p.is_null() {
            failed(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { HugePages.dealloc(p, layout) }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let q = unsafe { HugePages.realloc(p, layout, size) };
        if q.is_null() {
            failed(size);
        }
        q
    }
}

/// A line of at most 512 bytes on the stack (longer text is cut).
struct Line {
    bytes: [u8; 512],
    len: usize,
}

impl Write for Line {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let n = s.len().min(self.bytes.len() - self.len);
        self.bytes[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// Says that `size` bytes could not be had, and ends the process (status 1)
/// without unwinding or running destructors, as a kill would. The first
/// thread to fail speaks and ends the process; one failing beside it waits
/// for that (ending the process itself could cut the line short).
#[cold]
fn failed(size: usize) -> ! {
    use std::sync::atomic::{AtomicBool, Ordering};
    static SAID: AtomicBool = AtomicBool::new(false);
    if SAID.swap(true, Ordering::SeqCst) {
        loop {
            // SAFETY: sleeps this thread until a signal; the speaking
            // thread's `_exit` ends it with the process.
            unsafe {
                libc::pause();
            }
        }
    }
    let mut line = Line {
        bytes: [0; 512],
        len: 0,
    };
    let _ = write!(
        line,
        "chomp3: error: out of memory: {size} bytes more could not be had"
    );
    if let Some(l) = chomp3::base::memory::process_limit() {
        let _ = write!(
            line,
            " (this process may map {:.1} MiB: ulimit -v {})",
            l as f64 / f64::from(1 << 20),
            l / 1024
        );
    }
    let _ = writeln!(
        line,
        "; the files written so far are whole, and a resumable run continues from its last checkpoint; run it again with more memory"
    );
    let mut written = 0;
    while written < line.len {
        // SAFETY: writes bytes of a live stack buffer to standard error.
        let n =
            unsafe { libc::write(2, line.bytes[written..].as_ptr().cast(), line.len - written) };
        match usize::try_from(n) {
            Ok(n) if n > 0 => written += n,
            _ => break,
        }
    }
    // SAFETY: ends the process at once; nothing after this runs.
    unsafe { libc::_exit(1) }
}
