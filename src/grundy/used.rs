//! The set of values a line has taken so far, kept as its first free value and
//! a window of bits from there: every value below the window is taken.

use crate::base::bytes::narrow;
use smallvec::SmallVec;
use std::io::{self, Read, Write};

use crate::base::bytes::damaged;
use crate::base::bytes::stream::{get32, get64, put32, put64, put64s};

/// A set of `u32` values held as: every value below `base` is in it; bit `i` of
/// word `k` of `words` says whether `base + 64 k + i` is. The front word is
/// never full (it is dropped and `base` moved on), so the first value not in
/// the set is in the front word or just past the last one.
///
/// The words sit inline up to [`INLINE`] (a line's window is a few words), so
/// that a sweep's sets lie in one block of memory rather than one heap block
/// each: the sweep reads every line's set at every step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Used {
    base: u32,
    words: SmallVec<[u64; INLINE]>,
}

/// Words of a used set held without a heap block.
const INLINE: usize = 8;

impl Used {
    /// Adds `v`.
    #[inline]
    pub(super) fn insert(&mut self, v: u32) {
        if v < self.base {
            return;
        }
        let off = v - self.base;
        let k = (off / 64) as usize;
        match self.words.get_mut(k) {
            Some(w) => *w |= 1 << (off % 64),
            None => self.insert_beyond(k, off),
        }
        // Only the front word can have become full, and only then can more.
        if k == 0 && self.words[0] == u64::MAX {
            self.drop_full_front();
        }
    }

    /// [`Used::insert`] past the last word (kept out of its inlined body).
    #[cold]
    fn insert_beyond(&mut self, k: usize, off: u32) {
        self.words.resize(k + 1, 0);
        self.words[k] |= 1 << (off % 64);
    }

    /// Drops the full words at the front, moving `base` on.
    #[cold]
    fn drop_full_front(&mut self) {
        let full = self.words.iter().take_while(|&&w| w == u64::MAX).count();
        self.words.drain(..full);
        self.base += 64 * narrow::<u32, _>(full);
    }

    /// The least value at or above `from` that is not in the set.
    #[inline]
    pub(super) fn next_free(&self, from: u32) -> u32 {
        let from = from.max(self.base);
        let mut k = ((from - self.base) / 64) as usize;
        // Bits below `from` in its word count as taken.
        let mut word =
            self.words.get(k).copied().unwrap_or(0) | ((1u64 << ((from - self.base) % 64)) - 1);
        loop {
            if word != u64::MAX {
                return self.base + 64 * narrow::<u32, _>(k) + word.trailing_ones();
            }
            k += 1;
            word = self.words.get(k).copied().unwrap_or(0);
        }
    }

    /// Word `k` of the set over absolute values: bit `i` says whether
    /// `64 k + i` is in it (`base` is a multiple of 64).
    #[inline]
    pub(super) fn word(&self, k: usize) -> u64 {
        let first = (self.base / 64) as usize;
        match k.checked_sub(first) {
            None => u64::MAX,
            Some(i) => self.words.get(i).copied().unwrap_or(0),
        }
    }

    /// Bit `i` says whether `v + i` is in the set, `i < 64` (values below 0
    /// count as in it, as every value below the window does).
    #[inline]
    pub(super) fn bits_from(&self, v: i64) -> u64 {
        let base = self.base as i64;
        let word = |k: usize| self.words.get(k).copied().unwrap_or(0);
        if v >= base {
            let off = narrow::<usize, _>(v - base);
            let (k, s) = (off / 64, off % 64);
            match s {
                0 => word(k),
                s => word(k) >> s | word(k + 1) << (64 - s),
            }
        } else if base - v >= 64 {
            u64::MAX
        } else {
            let d = narrow::<u32, _>(base - v);
            word(0) << d | ((1u64 << d) - 1)
        }
    }

    /// Writes the set (for the sweep's checkpoint): `base`, then its words.
    pub(super) fn save(&self, w: &mut dyn Write) -> io::Result<()> {
        put32(w, self.base)?;
        put32(w, crate::base::bytes::len32(self.words.len())?)?;
        put64s(w, &self.words)
    }

    /// Reads a set written by [`Used::save`]; one no sweep can have made
    /// (a base not a multiple of 64, a full front word, past 2^20 words) is
    /// damage.
    pub(super) fn load(r: &mut dyn Read) -> io::Result<Used> {
        let base = get32(r)?;
        let n = get32(r)? as usize;
        if n > 1 << 20 || !base.is_multiple_of(64) {
            return Err(damaged("a used set no sweep makes"));
        }
        let words: SmallVec<[u64; INLINE]> = (0..n).map(|_| get64(r)).collect::<io::Result<_>>()?;
        if words.first() == Some(&u64::MAX) || base.checked_add(64 * narrow::<u32, _>(n)).is_none()
        {
            return Err(damaged("a used set no sweep makes"));
        }
        Ok(Used { base, words })
    }

    /// The least value not in the set.
    #[inline]
    pub(super) fn first_free(&self) -> u32 {
        self.next_free(self.base)
    }

    /// The set seen from `origin`: its first free value minus `origin`, and the
    /// set's bits from the first free value on (bit `i` of the words: is
    /// `first free + i` in the set), without trailing zero words. Everything
    /// below the first free value is in the set, so this describes the set
    /// exactly, relative to `origin`.
    pub(super) fn seen_from(&self, origin: u32) -> Seen {
        let free = self.first_free();
        let shift = free - self.base;
        let word = |k: usize| self.words.get(k).copied().unwrap_or(0);
        // The first free value is in the front word (it is never full).
        debug_assert!(shift < 64 || self.words.is_empty());
        let mut bits: Vec<u64> = (0..self.words.len())
            .map(|k| match shift % 64 {
                0 => word(k),
                s => word(k) >> s | word(k + 1) << (64 - s),
            })
            .collect();
        while bits.last() == Some(&0) {
            bits.pop();
        }
        Seen {
            free: free as i64 - origin as i64,
            bits,
        }
    }
}

/// A line's set of used values relative to a `p` (see `Used::seen_from`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Seen {
    free: i64,
    bits: Vec<u64>,
}

impl Seen {
    /// The state whose first free value is `free` (relative to its `p`) and
    /// whose bits from there on are `bits` (trailing zero words dropped).
    pub(super) fn new(free: i64, mut bits: Vec<u64>) -> Seen {
        while bits.last() == Some(&0) {
            bits.pop();
        }
        Seen { free, bits }
    }

    /// Writes the state (for a checkpoint).
    pub(super) fn save(&self, w: &mut dyn Write) -> io::Result<()> {
        put64(w, self.free.cast_unsigned())?;
        put32(w, crate::base::bytes::len32(self.bits.len())?)?;
        put64s(w, &self.bits)
    }

    /// Reads a state written by [`Seen::save`].
    pub(super) fn load(r: &mut dyn Read) -> io::Result<Seen> {
        let free = (get64(r)?).cast_signed();
        let n = get32(r)? as usize;
        if n > 1 << 20 {
            return Err(damaged("a state of more than 2^20 words"));
        }
        let bits = (0..n).map(|_| get64(r)).collect::<io::Result<_>>()?;
        Ok(Seen { free, bits })
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
    use crate::base::test_rng::Rng;
    use std::collections::BTreeSet;

    #[test]
    fn the_window_answers_as_a_plain_set_does() {
        let mut rng = Rng(7);
        let mut used = Used::default();
        let mut plain = BTreeSet::new();
        for step in 0..4000u32 {
            // Mostly values near a rising point, as a line's are.
            let v = (step + (rng.next() % 200) as u32).saturating_sub(100);
            used.insert(v);
            plain.insert(v);
            let from = step.saturating_sub((rng.next() % 300) as u32);
            let want = (from..).find(|x| !plain.contains(x)).unwrap();
            assert_eq!(used.next_free(from), want);
            let first = (0..).find(|x| !plain.contains(x)).unwrap();
            assert_eq!(used.first_free(), first);
            let v = step as i64 - (rng.next() % 400) as i64;
            for i in 0..64 {
                let x = v + i;
                let want = x < 0 || plain.contains(&(x as u32));
                assert_eq!(used.bits_from(v) >> i & 1 == 1, want, "{x}");
            }
            let k = (rng.next() % (step as u64 / 64 + 3)) as usize;
            for i in 0..64 {
                let v = 64 * k as u32 + i;
                assert_eq!(used.word(k) >> i & 1 == 1, plain.contains(&v), "{v}");
            }
            // Seen from `step`: the same set shifted by `step` is seen alike.
            let seen = used.seen_from(step);
            assert_eq!(seen.free, first as i64 - step as i64);
            let top = plain.iter().next_back().copied().unwrap_or(0);
            for x in first..=top + 70 {
                let i = (x - first) as usize;
                let bit = seen
                    .bits
                    .get(i / 64)
                    .is_some_and(|w| w >> (i % 64) & 1 == 1);
                assert_eq!(bit, plain.contains(&x), "{x}");
            }
        }
    }
}
