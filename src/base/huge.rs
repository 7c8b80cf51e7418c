//! The process's allocator: the system's, asking Linux to back large blocks
//! with huge pages. Owns nothing else; uses `libc`.
//!
//! A large search probes its memo (gigabytes of hash table) at random; with
//! 4 KiB pages nearly every probe also misses the processor's address cache.
//! Linux gives huge (2 MiB) pages to a block only when asked (`madvise`), and
//! the hash maps allocate through the global allocator, so the asking is done
//! here. Hand-made because the general allocators that can do it (jemalloc,
//! mimalloc) are C libraries built for one call.

use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator, with `MADV_HUGEPAGE` on blocks of at least 8 MiB
/// (declared in `main.rs`; the library itself does not choose an allocator).
pub struct HugePages;

/// A huge page.
const HUGE: usize = 1 << 21;

/// The whole huge pages inside a block of `size` bytes at address `p`, as
/// `start..end`, if the block is large.
fn huge_range(p: usize, size: usize) -> Option<(usize, usize)> {
    let start = p.next_multiple_of(HUGE);
    let end = (p + size) / HUGE * HUGE;
    (p != 0 && size >= 4 * HUGE && end > start).then_some((start, end))
}

/// Asks for huge pages on the whole huge pages inside `size` bytes at `p`.
fn advise(p: *mut u8, size: usize) {
    #[cfg(target_os = "linux")]
    if let Some((start, end)) = huge_range(p as usize, size) {
        // SAFETY: the range lies inside a block just allocated; the advice
        // changes how it is backed, never its contents. A refusal (an old
        // kernel) leaves small pages: the result is ignored.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

// SAFETY: every block comes from `System` and goes back to it unchanged.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        advise(p, layout.size());
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, size) };
        advise(q, size);
        q
    }
}

/// Hands the allocator's free pages back to the system. A long run that
/// frees many mid-sized blocks (the census's windows, as rows settle) leaves
/// holes in glibc's heaps that would otherwise stay resident; this unmaps the
/// whole free pages in them. A no-op where the C library is not glibc.
pub(crate) fn release_free_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only gives free memory back; it takes no pointer.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
// Test data: small numbers made by the tests themselves.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_huge_pages_inside_a_large_block_are_advised() {
        for p in [16, HUGE - 16, HUGE, 3 * HUGE + 4096, 1 << 40] {
            for size in [
                0,
                HUGE,
                4 * HUGE - 1,
                4 * HUGE,
                4 * HUGE + 17,
                100 * HUGE + 5,
            ] {
                match huge_range(p, size) {
                    Some((start, end)) => {
                        assert!(size >= 4 * HUGE, "{p} {size}: a small block");
                        assert!(p <= start && end <= p + size, "{p} {size}: outside");
                        assert!(start % HUGE == 0 && end % HUGE == 0 && start < end);
                        // No whole huge page of the block is left out.
                        assert!(start - p < HUGE && p + size - end < HUGE, "{p} {size}");
                    }
                    None => assert!(size < 4 * HUGE, "{p} {size}: a large block left out"),
                }
            }
        }
        assert_eq!(huge_range(0, 8 * HUGE), None, "a failed allocation");
    }

    #[test]
    fn blocks_keep_their_contents() {
        let a = HugePages;
        let layout = Layout::from_size_align(9 * HUGE + 3, 8).unwrap();
        // SAFETY: sizes are non-zero, and each block is freed with its layout.
        unsafe {
            let p = a.alloc_zeroed(layout);
            assert!(!p.is_null());
            let s = std::slice::from_raw_parts_mut(p, layout.size());
            assert!(s.iter().all(|&b| b == 0));
            s.iter_mut().enumerate().for_each(|(i, b)| *b = i as u8);
            let q = a.realloc(p, layout, 20 * HUGE);
            let s = std::slice::from_raw_parts(q, layout.size());
            assert!(s.iter().enumerate().all(|(i, &b)| b == i as u8));
            a.dealloc(q, Layout::from_size_align(20 * HUGE, 8).unwrap());
        }
    }
}
