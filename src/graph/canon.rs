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

impl Key {
    /// Writes the key: vertex count u8, loops u64, then one u64 per vertex.
    pub(super) fn save(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        use crate::bytes::stream::{put64, put64s};
        w.write_all(&[self.adj.len() as u8])?;
        put64(w, self.loops)?;
        put64s(w, &self.adj)
    }

    /// Reads a key written by [`Key::save`].
    pub(super) fn load(r: &mut dyn std::io::Read) -> std::io::Result<Key> {
        use crate::bytes::stream::{get64, get64s};
        let mut n = [0u8];
        r.read_exact(&mut n)?;
        if n[0] as usize > super::MAX_VERTICES {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "a key with more vertices than supported",
            ));
        }
        let loops = get64(r)?;
        let adj = get64s(r, n[0] as usize)?;
        Ok(Key { loops, adj })
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

/// `g` relabelled into its canonical form: two graphs give equal results exactly
/// when they are isomorphic.
pub(super) fn canonical(g: &Graph) -> Graph {
    let k = key(g);
    Graph {
        n: k.adj.len(),
        adj: k.adj,
        loops: k.loops,
    }
}
