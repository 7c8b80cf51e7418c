//! The values taken at the current `p` by a group of lines, as a bitset
//! emptied in time proportional to what was set: over absolute values in the
//! plain sweep, over values seen from `p` (`frozen::Layout`) in the census's.
//!
//! Hand-made rather than a general bitset crate because it sits in the
//! engine's inner loop: the mex of a line is found a word at a time by or-ing
//! the line's own used words with three of these (see `Sweep::least_free`),
//! and each is emptied at every step or every `q` by clearing only the words
//! it touched.

use crate::base::bytes::narrow;

/// A set of `u32` values.
#[derive(Default)]
pub(super) struct Taken {
    words: Vec<u64>,
    /// Indices of the non-zero words.
    touched: Vec<u32>,
}

impl Taken {
    /// Adds `v`.
    pub(super) fn insert(&mut self, v: u32) {
        let k = (v / 64) as usize;
        if k >= self.words.len() {
            self.words.resize((k + 1).next_power_of_two(), 0);
        }
        if self.words[k] == 0 {
            self.touched.push(narrow::<u32, _>(k));
        }
        self.words[k] |= 1 << (v % 64);
    }

    /// Word `k`: bit `i` says whether `64 k + i` is in the set.
    #[inline]
    pub(super) fn word(&self, k: usize) -> u64 {
        self.words.get(k).copied().unwrap_or(0)
    }

    /// Whether `v` is in the set.
    #[cfg(test)]
    pub(super) fn contains(&self, v: u32) -> bool {
        self.word((v / 64) as usize) >> (v % 64) & 1 == 1
    }

    /// Empties the set.
    pub(super) fn clear(&mut self) {
        for k in self.touched.drain(..) {
            self.words[k as usize] = 0;
        }
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
    use std::collections::HashSet;

    #[test]
    fn it_answers_as_a_hash_set_and_forgets_on_clear() {
        let mut rng = Rng(11);
        let mut taken = Taken::default();
        for round in 0..200 {
            taken.clear();
            let mut plain = HashSet::new();
            for _ in 0..50 {
                let v = (rng.next() % (400 + 50 * round)) as u32;
                plain.insert(v);
                taken.insert(v);
            }
            for v in 0..(500 + 50 * round) as u32 {
                assert_eq!(taken.contains(v), plain.contains(&v), "{v}");
            }
        }
    }
}
