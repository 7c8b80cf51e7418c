//! A cache, one per thread, of the values of components exactly as the solver
//! meets them: labelled as reached, not canonized. The solver reaches the same
//! labelled graph again and again (deleting `a` then `b`, or `b` then `a`,
//! leaves the same graph with the same labels: 70 % of the canonical searches
//! of `W_15` are repeats, and this cache answers 58-60 % of all of them), and
//! a probe here costs a fraction of a canonical search. Uses `canon` to pack
//! a graph into a key.
//!
//! Exact: a slot holds a whole labelled graph and its value, and a probe
//! compares the whole graph; a value is a fact about that graph, whichever
//! solve computed it. The cache belongs to one solver at a time (it is emptied
//! when another solver uses the thread), so every graph it answers for was
//! solved, or found in the memo, by this solver: the memo's contents do not
//! depend on it. Direct-mapped (a new entry replaces the one in its slot) and
//! hand-made rather than a map crate's: it must stay bounded, and every
//! operation is one slot.

use crate::base::bytes::narrow;
use std::cell::RefCell;
use std::hash::{Hash, Hasher};

use rustc_hash::FxHasher;

use super::canon::Key;

/// Slots of a fresh cache (small: short solves should not pay for a large
/// table).
const FIRST_SLOTS: usize = 1 << 10;
/// Most slots per thread (64 bytes each: 64 MiB).
const MAX_SLOTS: usize = 1 << 20;

/// The cache of one thread.
struct Cache {
    /// The solver whose values it holds.
    owner: u64,
    slots: Vec<Option<(Key, u32)>>,
    /// Entries put into empty slots since the table was made.
    filled: usize,
}

thread_local! {
    static CACHE: RefCell<Cache> = const {
        RefCell::new(Cache { owner: u64::MAX, slots: Vec::new(), filled: 0 })
    };
}

impl Cache {
    /// An empty cache of `slots` slots for solver `owner`.
    fn empty(owner: u64, slots: usize) -> Cache {
        Cache {
            owner,
            slots: vec![None; slots],
            filled: 0,
        }
    }

    /// The slot of `k`, after emptying the cache if it is another solver's.
    fn slot(&mut self, owner: u64, k: &Key) -> usize {
        if self.owner != owner || self.slots.is_empty() {
            *self = Cache::empty(owner, FIRST_SLOTS);
        }
        let mut h = FxHasher::default();
        k.hash(&mut h);
        narrow::<usize, _>(h.finish()) & (self.slots.len() - 1)
    }
}

/// The value of the labelled graph `k` if this thread's cache for solver
/// `owner` holds it.
pub(super) fn get(owner: u64, k: &Key) -> Option<u32> {
    CACHE.with_borrow_mut(|c| {
        let i = c.slot(owner, k);
        match &c.slots[i] {
            Some((have, v)) if have == k => Some(*v),
            _ => None,
        }
    })
}

/// Remembers that the labelled graph `k` has value `v` (solved by `owner`).
/// The table doubles, empty, when half of its slots have been filled, up to
/// [`MAX_SLOTS`]: a search's repeats come close together, and a larger table
/// was slower (each probe a miss in the processor's caches; `W_17` on two
/// threads took 26.3-27.4 s with at most 2^20 slots and 28.1-30.4 s with
/// 2^18, against 33.1-35.9 s without the cache; a table growing to 2^21 by
/// another rule took 29.1-30.8 s).
pub(super) fn put(owner: u64, k: Key, v: u32) {
    CACHE.with_borrow_mut(|c| {
        let mut i = c.slot(owner, &k);
        if c.slots[i].is_none() {
            c.filled += 1;
            if c.filled > c.slots.len() / 2 && c.slots.len() < MAX_SLOTS {
                *c = Cache::empty(owner, c.slots.len() * 2);
                c.filled = 1;
                i = c.slot(owner, &k);
            }
        }
        c.slots[i] = Some((k, v));
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Graph;

    /// The graph on 8 vertices whose edges are the bits of `i` (28 pairs).
    fn graph(i: u32) -> Graph {
        let mut g = Graph::empty(8);
        let pairs = (0..8).flat_map(|u| (u + 1..8).map(move |v| (u, v)));
        for (b, (u, v)) in pairs.enumerate() {
            if i >> b & 1 == 1 {
                g.add_edge(u, v);
            }
        }
        g
    }

    #[test]
    fn answers_only_for_the_same_graph_and_the_same_solver() {
        // Values that are a function of the graph (its edge count), so a
        // wrong answer shows: 300,000 graphs overflow the table many times.
        let value = |i: u32| i.count_ones() + 1;
        let (owner, other) = (u64::MAX - 7, u64::MAX - 8);
        let mut answered = 0;
        let spread = |i: u32| i.wrapping_mul(2_654_435_761) >> 4;
        for i in 0..300_000u32 {
            let k = Key::labelled(&graph(spread(i))).unwrap();
            put(owner, k, value(spread(i)));
        }
        for i in 0..300_000u32 {
            let j = spread(i);
            let k = Key::labelled(&graph(j)).unwrap();
            if let Some(v) = get(owner, &k) {
                assert_eq!(v, value(j), "graph {j}");
                answered += 1;
            }
        }
        assert!(answered > 50_000, "only {answered} answered");
        // Another solver on this thread finds nothing, and empties the cache.
        let k = Key::labelled(&graph(12345)).unwrap();
        put(owner, k.clone(), 9);
        assert_eq!(get(owner, &k), Some(9));
        assert_eq!(get(other, &k), None);
        assert_eq!(get(owner, &k), None);
    }
}
