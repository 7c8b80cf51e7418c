//! The exact memo key: a canonical form of a graph with loops, computed by the
//! `canonical-form` crate (individualization and refinement with automorphism
//! pruning). Two graphs get equal keys exactly when they are isomorphic (loops
//! mapped to loops), so a memo on this key never confuses two positions.

use canonical_form::Canonize;

use super::Graph;

/// A graph as the canonizer sees it (vertex `u`'s neighbours and its loop bit).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct Key {
    loops: u64,
    adj: Vec<u64>,
}

impl Canonize for Key {
    fn size(&self) -> usize {
        self.adj.len()
    }

    fn apply_morphism(&self, p: &[usize]) -> Key {
        let map = |bits: u64| {
            let mut out = 0u64;
            let mut b = bits;
            while b != 0 {
                let v = b.trailing_zeros() as usize;
                b &= b - 1;
                out |= 1 << p[v];
            }
            out
        };
        let mut adj = vec![0; self.adj.len()];
        for (u, &a) in self.adj.iter().enumerate() {
            adj[p[u]] = map(a);
        }
        Key {
            loops: map(self.loops),
            adj,
        }
    }

    fn invariant_color(&self, u: usize) -> u64 {
        (self.loops >> u & 1) | (self.adj[u].count_ones() as u64) << 1
    }

    fn invariant_neighborhood(&self, u: usize) -> impl Iterator<Item = (usize, u64)> {
        let mut b = self.adj[u];
        std::iter::from_fn(move || {
            (b != 0).then(|| {
                let v = b.trailing_zeros() as usize;
                b &= b - 1;
                (v, 0)
            })
        })
    }
}

/// The canonical key of `g`.
pub(super) fn key(g: &Graph) -> Key {
    Key {
        loops: g.loops,
        adj: g.adj.clone(),
    }
    .canonical()
}
