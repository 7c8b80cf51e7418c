//! What a mapped table may trust: the blocks of data that passed their check
//! since the file last changed. A map shows another program's writes as they
//! land, so a block checked once is only as good as the file's state then;
//! this module keeps one bit per block and the file's change stamp they hold
//! for, and forgets them all when the stamp moves.
//!
//! # Why the stamp tells
//!
//! `write(2)` and `truncate(2)` set the file's modification and change times
//! before a byte of data lands (the kernel's `file_modified`, then the copy),
//! and since Linux 6.13 a local file system (ext4, xfs, btrfs, tmpfs) gives a
//! change after a `stat` of the file a time later than the one that `stat`
//! saw. So a read that takes the stamp before and after it, and finds both
//! equal to the stamp its blocks were checked under, read bytes that no
//! `write` changed since their check. A read that finds the stamp moved is
//! done again from a checked copy instead ([`super::Table`]). Two ways round
//! this are not seen: another program writing through its own writable map of
//! the file (its time moves at the first write to a page, not at each), and
//! a file system or kernel that keeps coarser times (a change in the same
//! clock tick as the change before it); a reader without a map checks every
//! block at every read and is exact against both.

use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{PoisonError, RwLock, RwLockReadGuard};

/// The file's state as `fstat` gives it: modification and change times to
/// the nanosecond, and length.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Stamp {
    modified: (i64, i64),
    changed: (i64, i64),
    len: u64,
}

impl Stamp {
    /// The stamp of the open file now.
    pub(super) fn of(file: &File) -> std::io::Result<Stamp> {
        let m = file.metadata()?;
        Ok(Stamp {
            modified: (m.mtime(), m.mtime_nsec()),
            changed: (m.ctime(), m.ctime_nsec()),
            len: m.size(),
        })
    }
}

/// One bit per block of data, set once the block has passed its check, and
/// the stamp of the file they hold for.
pub(super) struct Checked {
    bits: Box<[AtomicU64]>,
    since: RwLock<Stamp>,
}

/// The checks of [`Checked`] held for one read: no block's bit is forgotten
/// while it is held, and no block is trusted that was checked under another
/// stamp.
pub(super) struct Held<'a> {
    _since: RwLockReadGuard<'a, Stamp>,
    stamp: Stamp,
}

impl Held<'_> {
    /// Whether the file's stamp is still the one the read began under: then
    /// every byte it read is as checked.
    pub(super) fn unchanged(&self, now: Stamp) -> bool {
        now == self.stamp
    }
}

impl Checked {
    /// `blocks` blocks, none checked, for a file whose stamp is `stamp`.
    pub(super) fn new(blocks: u64, stamp: Stamp) -> Checked {
        Checked {
            bits: (0..blocks.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            since: RwLock::new(stamp),
        }
    }

    /// The checks, held for a read that begins with the file's stamp `now`;
    /// `None` when the file changed since they were made (they are
    /// forgotten, and the read goes by a checked copy).
    pub(super) fn hold(&self, now: Stamp) -> Option<Held<'_>> {
        let since = self.since.read().unwrap_or_else(PoisonError::into_inner);
        if *since == now {
            return Some(Held {
                _since: since,
                stamp: now,
            });
        }
        drop(since);
        // Waits for every read that holds the checks: a read still under
        // the old stamp may set a bit after its block changed, and the
        // clearing must come after it.
        let mut since = self.since.write().unwrap_or_else(PoisonError::into_inner);
        if *since != now {
            for word in &self.bits {
                word.store(0, Ordering::Relaxed);
            }
            *since = now;
        }
        None
    }

    /// Whether block `block` passed its check (under a [`Held`]).
    pub(super) fn passed(&self, block: u64) -> bool {
        self.bits[(block / 64) as usize].load(Ordering::Relaxed) & (1 << (block % 64)) != 0
    }

    /// Records that block `block` passed its check (under a [`Held`]).
    pub(super) fn pass(&self, block: u64) {
        self.bits[(block / 64) as usize].fetch_or(1 << (block % 64), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A write moves the stamp, at once, however soon after a `stat` it
    /// comes (the kernel's fine-grained times; a coarse clock would give
    /// the same time to most of these writes).
    #[test]
    fn every_write_after_a_stat_moves_the_stamp() {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(b"abc").unwrap();
        for i in 0..200u8 {
            let before = Stamp::of(&f).unwrap();
            std::os::unix::fs::FileExt::write_all_at(&f, &[i], 1).unwrap();
            assert_ne!(Stamp::of(&f).unwrap(), before, "write {i} left the stamp");
        }
        f.flush().unwrap();
    }

    /// Checks made under one stamp are forgotten when the stamp moves, and
    /// kept while it does not.
    #[test]
    fn checks_hold_for_their_stamp_only() {
        let f = tempfile::tempfile().unwrap();
        let old = Stamp::of(&f).unwrap();
        let checked = Checked::new(130, old);
        let held = checked.hold(old).unwrap();
        checked.pass(129);
        assert!(held.unchanged(old));
        drop(held);
        assert!(checked.hold(old).is_some_and(|_| checked.passed(129)));
        f.set_len(7).unwrap();
        let new = Stamp::of(&f).unwrap();
        assert_ne!(new, old);
        assert!(checked.hold(new).is_none());
        assert!(!checked.passed(129));
        assert!(checked.hold(new).is_some());
    }
}
