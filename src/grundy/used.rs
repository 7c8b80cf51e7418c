//! The set of values a line has taken so far, kept as its first free value and
//! a window of bits from there: every value below the window is taken.

use std::collections::VecDeque;

/// A set of `u32` values held as: every value below `base` is in it; bit `i` of
/// word `k` of `words` says whether `base + 64 k + i` is. The front word is
/// never full (it is dropped and `base` moved on), so the first value not in
/// the set is in the front word or just past the last one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Used {
    base: u32,
    words: VecDeque<u64>,
}

impl Used {
    /// Adds `v`.
    pub(super) fn insert(&mut self, v: u32) {
        if v < self.base {
            return;
        }
        let k = ((v - self.base) / 64) as usize;
        if k >= self.words.len() {
            self.words.resize(k + 1, 0);
        }
        self.words[k] |= 1 << ((v - self.base) % 64);
        while self.words.front() == Some(&u64::MAX) {
            self.words.pop_front();
            self.base += 64;
        }
    }

    /// The least value at or above `from` that is not in the set.
    pub(super) fn next_free(&self, from: u32) -> u32 {
        let from = from.max(self.base);
        let mut k = ((from - self.base) / 64) as usize;
        // Bits below `from` in its word count as taken.
        let mut word =
            self.words.get(k).copied().unwrap_or(0) | ((1u64 << ((from - self.base) % 64)) - 1);
        loop {
            if word != u64::MAX {
                return self.base + 64 * k as u32 + word.trailing_ones();
            }
            k += 1;
            word = self.words.get(k).copied().unwrap_or(0);
        }
    }

    /// The least value not in the set.
    pub(super) fn first_free(&self) -> u32 {
        self.next_free(self.base)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;
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
        }
    }
}
