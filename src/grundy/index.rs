//! Which line of a group took a value at the current `p`: a small hash table
//! emptied at every step by a generation count.
//!
//! Hand-made rather than a `HashMap` because it sits in the engine's inner loop
//! (a few look-ups per line and step) and must be emptied at every step in
//! constant time; a generation stamp per slot does that.

/// A map from values to line numbers, for at most `capacity` entries between
/// two calls of [`ValueIndex::clear`].
pub(super) struct ValueIndex {
    slots: Vec<Slot>,
    generation: u32,
    shift: u32,
}

#[derive(Clone, Copy, Default)]
struct Slot {
    generation: u32,
    value: u32,
    line: u32,
}

impl ValueIndex {
    /// A map for at most `capacity` entries at a time.
    pub(super) fn new(capacity: usize) -> ValueIndex {
        let bits = (2 * capacity.max(2)).next_power_of_two().trailing_zeros();
        ValueIndex {
            slots: vec![Slot::default(); 1 << bits],
            generation: 1,
            shift: 32 - bits,
        }
    }

    /// Forgets every entry.
    pub(super) fn clear(&mut self) {
        self.generation += 1;
        if self.generation == u32::MAX {
            self.slots.fill(Slot::default());
            self.generation = 1;
        }
    }

    fn home(&self, value: u32) -> usize {
        (value.wrapping_mul(0x9E37_79B1) >> self.shift) as usize
    }

    /// Records that `line` took `value`. A value is recorded at most once
    /// between clears (the lines of a group take distinct values).
    pub(super) fn insert(&mut self, value: u32, line: u32) {
        let mask = self.slots.len() - 1;
        let mut i = self.home(value);
        while self.slots[i].generation == self.generation {
            debug_assert_ne!(self.slots[i].value, value, "a value taken twice in a group");
            i = (i + 1) & mask;
        }
        self.slots[i] = Slot {
            generation: self.generation,
            value,
            line,
        };
    }

    /// The line that took `value` since the last clear, if one did.
    pub(super) fn get(&self, value: u32) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(value);
        while self.slots[i].generation == self.generation {
            if self.slots[i].value == value {
                return Some(self.slots[i].line);
            }
            i = (i + 1) & mask;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;
    use std::collections::HashMap;

    #[test]
    fn it_answers_as_a_hash_map_and_forgets_on_clear() {
        let mut rng = Rng(11);
        let mut index = ValueIndex::new(50);
        for _ in 0..200 {
            index.clear();
            let mut plain = HashMap::new();
            for line in 0..50 {
                let v = (rng.next() % 400) as u32;
                if let std::collections::hash_map::Entry::Vacant(e) = plain.entry(v) {
                    e.insert(line);
                    index.insert(v, line);
                }
            }
            for v in 0..400 {
                assert_eq!(index.get(v), plain.get(&v).copied());
            }
        }
    }
}
