//! Nim-values by Sprague-Grundy recursion: xor over connected components, each
//! component's value memoised on its exact canonical form. The one reduction:
//! a bipartite component has value `p(G) = 2 (e mod 2) + (v mod 2)`
//! [FS91; KY Thm 3; MPCV Thm 1; OS Prop 1.1], GRAPHS.md section 3.

use std::collections::HashMap;

use super::canon::{Key, key};
use super::{Graph, Move};

/// A solver with its memo (keep it across graphs: positions recur).
#[derive(Default)]
pub struct Solver {
    memo: HashMap<Key, u32>,
}

impl Solver {
    /// An empty memo.
    pub fn new() -> Solver {
        Solver::default()
    }

    /// Connected positions remembered.
    pub fn memo_len(&self) -> usize {
        self.memo.len()
    }

    /// The nim-value of `g`.
    pub fn value(&mut self, g: &Graph) -> u32 {
        g.component_masks()
            .into_iter()
            .map(|m| self.component(&g.induced(m)))
            .fold(0, |a, b| a ^ b)
    }

    /// Every move from `g` with the value of the position it leaves.
    pub fn moves(&mut self, g: &Graph) -> Vec<(Move, u32)> {
        g.options()
            .into_iter()
            .map(|(m, h)| (m, self.value(&h)))
            .collect()
    }

    fn component(&mut self, c: &Graph) -> u32 {
        if c.is_bipartite() {
            return c.parity_value();
        }
        let k = key(c);
        if let Some(&v) = self.memo.get(&k) {
            return v;
        }
        let mut seen = Vec::new();
        for (_, h) in c.options() {
            let v = self.value(&h) as usize;
            if v >= seen.len() {
                seen.resize(v + 1, false);
            }
            seen[v] = true;
        }
        let mex = seen.iter().position(|&s| !s).unwrap_or(seen.len()) as u32;
        self.memo.insert(k, mex);
        mex
    }
}
