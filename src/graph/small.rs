//! Graphs on at most 7 vertices without loops, solved through a table of their
//! isomorphism classes made when chomp3 is built (`build.rs`): a class is one
//! read from the table instead of a canonical search, and a value one byte of
//! an array. These graphs are all the positions of the graphs people check by
//! hand and by `geng`, and the small components of every larger search.
//!
//! A graph here is `n` (its vertex count) and its 21-bit edge code on 7 slots:
//! edge `u v`, `u < v`, at bit `v (v - 1) / 2 + u`; the slots no vertex holds
//! are isolated. So `(n, code)` stands for the graph on the code's slots with
//! `n - b` isolated vertices, where `b` counts the slots with an edge, and a
//! deleted vertex simply becomes an empty slot.
//!
//! The key `(n, class of code)` is exact: two graphs `G`, `H` on `n` vertices
//! are isomorphic exactly when `G + (7 - n) K_1` and `H + (7 - n) K_1` are (an
//! isomorphism maps isolated vertices onto isolated vertices, so it matches the
//! rest of `G` with the rest of `H` and leaves equally many isolated vertices
//! on both sides), and the table's classes are exactly the orbits of the
//! codes under the permutations of the 7 slots (`build.rs`; tested against
//! A000088 and a brute-force isomorphism test).
//!
//! Values come from the game's definition (mex over every option, xor over
//! components) and two theorems the rest of the solver uses too (`solve`): the
//! parity value of a bipartite graph and the symmetry lemma for false twins.
//! Uses the `Graph` type and its breadth-first walks.

use crate::base::bytes::narrow;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering::Relaxed};

use super::{Graph, reach, two_colourable};

/// Most vertices of a graph solved here.
pub(super) const SLOTS: usize = 7;
/// Classes in the table: graphs on 7 vertices (A000088).
const CLASSES: usize = 1044;
/// A value not known yet.
const UNKNOWN: u8 = u8::MAX;

/// Per graph on slots 0..6, its class among those (`build.rs` says how the
/// tables work).
static CLASS6: &[u8; 1 << 15] = include_bytes!(concat!(env!("OUT_DIR"), "/small_class6.bin"));
/// Per graph on slots 0..6, a permutation taking it to its class's smallest
/// code.
static TO_FIRST: &[u8; 2 << 15] = include_bytes!(concat!(env!("OUT_DIR"), "/small_to_first.bin"));
/// Per permutation of slots 0..6, the image of each set of them.
static MOVED: &[u8; 720 << 6] = include_bytes!(concat!(env!("OUT_DIR"), "/small_moved.bin"));
/// Per class on slots 0..6 and neighbours of slot 6, the class on 7 slots.
static JOINED: &[u8; 2 * (156 << 6)] =
    include_bytes!(concat!(env!("OUT_DIR"), "/small_joined.bin"));
/// Per class on 7 slots, its smallest code.
static REPS7: &[u8; 4 * CLASSES] = include_bytes!(concat!(env!("OUT_DIR"), "/small_reps7.bin"));

/// The bit of edge `u v`, `u != v`.
const fn bit(u: usize, v: usize) -> u32 {
    let (u, v) = if u < v { (u, v) } else { (v, u) };
    1 << (v * (v - 1) / 2 + u)
}

/// The edges at each slot.
const STAR: [u32; SLOTS] = {
    let mut star = [0; SLOTS];
    let mut v = 0;
    while v < SLOTS {
        let mut u = 0;
        while u < SLOTS {
            if u != v {
                star[v] |= bit(u, v);
            }
            u += 1;
        }
        v += 1;
    }
    star
};

/// Whether the solver takes `g` here.
pub(super) fn fits(g: &Graph) -> bool {
    g.n <= SLOTS && g.loops == 0
}

/// The edge code of a graph that [`fits`].
pub(super) fn code(g: &Graph) -> u32 {
    (1..g.n).fold(0, |code, v| {
        code | narrow::<u32, _>(g.adj[v] & ((1 << v) - 1)) << (v * (v - 1) / 2)
    })
}

/// The graph of `code` on `n` vertices, the slots with an edge first in order
/// (to key it in the general memo).
pub(super) fn graph(n: usize, code: u32) -> Graph {
    let busy = busy(&rows(code));
    // A slot's vertex: the number of busy slots below it.
    let vertex = |slot: usize| (busy & ((1 << slot) - 1)).count_ones() as usize;
    let mut g = Graph::empty(n);
    for v in 1..SLOTS {
        for u in 0..v {
            if code & bit(u, v) != 0 {
                g.add_edge(vertex(u), vertex(v));
            }
        }
    }
    g
}

/// The neighbours of each slot.
fn rows(code: u32) -> [u8; SLOTS] {
    let mut rows = [0u8; SLOTS];
    for v in 1..SLOTS {
        let below = narrow::<u8, _>((code >> (v * (v - 1) / 2)) & ((1 << v) - 1));
        rows[v] |= below;
        let mut b = below;
        while b != 0 {
            rows[b.trailing_zeros() as usize] |= 1 << v;
            b &= b - 1;
        }
    }
    rows
}

/// The slots with an edge.
fn busy(rows: &[u8; SLOTS]) -> u8 {
    (0..SLOTS).fold(0, |m, v| m | ((rows[v] != 0) as u8) << v)
}

/// The edges among the slots of `mask`.
fn within(mask: u8) -> u32 {
    let outside = (0..SLOTS)
        .filter(|v| mask >> v & 1 == 0)
        .fold(0, |m, v| m | STAR[v]);
    ((1 << 21) - 1) & !outside
}

/// The slots joined to slot `s`.
fn component(rows: &[u8; SLOTS], s: usize) -> u8 {
    narrow::<u8, _>(reach(s, |u| rows[u] as u64))
}

/// Whether the graph on `rows` has no odd cycle.
fn bipartite(rows: &[u8; SLOTS]) -> bool {
    two_colourable(busy(rows) as u64, |u| rows[u] as u64)
}

/// The class of `code`: one of `0 .. CLASSES`, equal for two codes exactly
/// when a permutation of the slots maps one onto the other.
fn class(code: u32) -> usize {
    let low = code as usize & 0x7fff;
    let k = u16::from_le_bytes([TO_FIRST[2 * low], TO_FIRST[2 * low + 1]]) as usize;
    let top = MOVED[k << 6 | (code >> 15) as usize & 0x3f] as usize;
    let j = 2 * ((CLASS6[low] as usize) << 6 | top);
    u16::from_le_bytes([JOINED[j], JOINED[j + 1]]) as usize
}

/// The smallest code of class `c`.
fn first_code(c: usize) -> u32 {
    u32::from_le_bytes([
        REPS7[4 * c],
        REPS7[4 * c + 1],
        REPS7[4 * c + 2],
        REPS7[4 * c + 3],
    ])
}

/// The values of the small graphs met so far, by `(n, class)`. Threads may
/// share it: two threads that solve the same graph store the same value.
#[derive(Debug)]
pub(super) struct Small {
    /// The value, or'd with [`COUNTED`] for a connected, non-bipartite graph
    /// (one the general memo would hold).
    values: Box<[AtomicU8]>,
    /// Connected, non-bipartite graphs solved.
    solved: AtomicUsize,
}

/// Marks a value of a connected, non-bipartite graph (values are below 29).
const COUNTED: u8 = 0x80;

impl Default for Small {
    fn default() -> Small {
        let slots = (SLOTS + 1) * CLASSES;
        Small {
            values: (0..slots).map(|_| AtomicU8::new(UNKNOWN)).collect(),
            solved: AtomicUsize::new(0),
        }
    }
}

impl Small {
    /// Connected, non-bipartite graphs solved (or loaded): the positions the
    /// general memo would hold.
    pub(super) fn solved(&self) -> usize {
        self.solved.load(Relaxed)
    }

    /// Each connected, non-bipartite graph solved, as `(n, code, value)`.
    pub(super) fn entries(&self) -> impl Iterator<Item = (usize, u32, u32)> + '_ {
        self.values.iter().enumerate().filter_map(|(i, v)| {
            let v = v.load(Relaxed);
            (v != UNKNOWN && v & COUNTED != 0)
                .then(|| (i / CLASSES, first_code(i % CLASSES), (v & !COUNTED) as u32))
        })
    }

    /// Records the value of a connected, non-bipartite graph from a saved
    /// memo; `false` if the value cannot be one of a graph on 7 vertices (at
    /// most 28 options, so below 29).
    pub(super) fn load(&self, n: usize, code: u32, value: u32) -> bool {
        let ok = value < 29;
        if ok {
            self.store(n * CLASSES + class(code), narrow::<u8, _>(value), true);
        }
        ok
    }

    /// Stores `value` at `index`; `counted` marks a connected, non-bipartite
    /// graph.
    fn store(&self, index: usize, value: u8, counted: bool) {
        let marked = if counted { value | COUNTED } else { value };
        let fresh = self.values[index]
            .compare_exchange(UNKNOWN, marked, Relaxed, Relaxed)
            .is_ok();
        if fresh && counted {
            self.solved.fetch_add(1, Relaxed);
        }
    }

    /// The value stored at `index`, if any.
    fn known(&self, index: usize) -> Option<u32> {
        match self.values[index].load(Relaxed) {
            UNKNOWN => None,
            v => Some((v & !COUNTED) as u32),
        }
    }

    /// The nim-value of the graph `code` on `n` vertices (`n` at least the
    /// number of slots with an edge).
    pub(super) fn value(&self, n: usize, code: u32) -> u32 {
        let index = n * CLASSES + class(code);
        self.known(index)
            .unwrap_or_else(|| self.solve(index, n, code))
    }

    fn solve(&self, index: usize, n: usize, code: u32) -> u32 {
        let rows = rows(code);
        let busy = busy(&rows);
        let isolated = n - busy.count_ones() as usize;
        let connected = busy == 0 && n <= 1
            || isolated == 0 && component(&rows, busy.trailing_zeros() as usize) == busy;
        let (value, counted) = if !connected {
            // xor over components: `K_1` has value 1.
            let mut value = narrow::<u32, _>(isolated & 1);
            let mut left = busy;
            while left != 0 {
                let c = component(&rows, left.trailing_zeros() as usize);
                left &= !c;
                value ^= self.value(c.count_ones() as usize, code & within(c));
            }
            (value, false)
        } else if bipartite(&rows) {
            // [FS91; KY Thm 3; MPCV Thm 1; OS Prop 1.1], as in `solve`.
            (
                2 * (code.count_ones() & 1) + (narrow::<u32, _>(n) & 1),
                false,
            )
        } else if let Some((u, v)) = false_twins(&rows) {
            // The symmetry lemma on the swap of `u` and `v` (`solve`).
            (self.value(n - 2, code & !(STAR[u] | STAR[v])), true)
        } else {
            (self.mex(n, code, busy), true)
        };
        self.store(index, narrow::<u8, _>(value), counted);
        value
    }

    /// The mex of the options of the connected graph `code` on the slots of
    /// `busy`.
    fn mex(&self, n: usize, code: u32, busy: u8) -> u32 {
        // Every option first, and its class, so that the table reads overlap.
        let mut options = [(0usize, 0u32); 21 + SLOTS];
        let mut count = 0;
        let mut b = code;
        while b != 0 {
            let e = b & b.wrapping_neg();
            b ^= e;
            options[count] = (n, code ^ e);
            count += 1;
        }
        let mut s = busy;
        while s != 0 {
            let v = s.trailing_zeros() as usize;
            s &= s - 1;
            options[count] = (n - 1, code & !STAR[v]);
            count += 1;
        }
        let mut indices = [0usize; 21 + SLOTS];
        for (i, &(n, code)) in options[..count].iter().enumerate() {
            indices[i] = n * CLASSES + class(code);
        }
        // At most 28 options: every value is below 64.
        let mut seen = 0u64;
        for (&(n, code), &index) in options[..count].iter().zip(&indices) {
            let v = self
                .known(index)
                .unwrap_or_else(|| self.solve(index, n, code));
            seen |= 1 << v;
        }
        (!seen).trailing_zeros()
    }
}

/// Two slots with the same neighbours, if any (no loops here, so they are not
/// adjacent).
fn false_twins(rows: &[u8; SLOTS]) -> Option<(usize, usize)> {
    for u in 0..SLOTS {
        for v in u + 1..SLOTS {
            if rows[u] != 0 && rows[u] == rows[v] {
                return Some((u, v));
            }
        }
    }
    None
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
    use crate::graph::tests::Rng;
    use std::collections::HashSet;

    /// `code` with slot `u` renamed `p[u]`, edge by edge.
    fn relabel(code: u32, p: &[usize; SLOTS]) -> u32 {
        let mut out = 0;
        for v in 0..SLOTS {
            for u in 0..v {
                if code & bit(u, v) != 0 {
                    out |= bit(p[u], p[v]);
                }
            }
        }
        out
    }

    /// Every permutation of the slots (Heap's algorithm).
    fn all_permutations() -> Vec<[usize; SLOTS]> {
        fn heap(k: usize, p: &mut [usize; SLOTS], out: &mut Vec<[usize; SLOTS]>) {
            if k == 1 {
                out.push(*p);
                return;
            }
            for i in 0..k {
                heap(k - 1, p, out);
                p.swap(if k.is_multiple_of(2) { i } else { 0 }, k - 1);
            }
        }
        let mut out = Vec::new();
        heap(SLOTS, &mut std::array::from_fn(|i| i), &mut out);
        out
    }

    #[test]
    fn graphs_on_n_slots_fall_into_a000088_classes() {
        // OEIS A000088: the number of graphs on n unlabelled vertices.
        let want = [1, 1, 2, 4, 11, 34, 156, 1044];
        for (n, &want) in want.iter().enumerate() {
            let codes = 0u32..1 << (n * n.saturating_sub(1) / 2);
            let classes: HashSet<usize> = codes.map(class).collect();
            assert_eq!(classes.len(), want, "graphs on {n} vertices");
        }
    }

    #[test]
    fn a_class_is_an_orbit_and_its_first_code_the_orbits_least() {
        // Brute force: the least code a graph takes under the 5,040
        // permutations names its isomorphism class.
        let perms = all_permutations();
        assert_eq!(perms.len(), 5040);
        let mut rng = Rng(0x2545f4914f6cdd1d);
        for _ in 0..300 {
            let code = (rng.next() & ((1 << 21) - 1)) as u32;
            let least = perms.iter().map(|p| relabel(code, p)).min().unwrap();
            assert_eq!(first_code(class(code)), least, "{code:#x}");
            let p = &perms[rng.next() as usize % perms.len()];
            assert_eq!(class(relabel(code, p)), class(code), "{code:#x}");
        }
    }

    #[test]
    fn a_code_becomes_a_graph_of_its_class() {
        let mut rng = Rng(77);
        for _ in 0..2000 {
            let code = (rng.next() & ((1 << 21) - 1)) as u32;
            let busy = busy(&rows(code)).count_ones() as usize;
            let n = busy + (rng.next() % (SLOTS - busy + 1) as u64) as usize;
            let g = graph(n, code);
            assert_eq!(
                (g.n, g.loops, g.edges()),
                (n, 0, code.count_ones() as usize)
            );
            assert_eq!(class(super::code(&g)), class(code), "{code:#x}");
        }
    }
}
