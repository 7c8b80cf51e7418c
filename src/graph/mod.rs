//! Graph Chomp (the vertex and edge deletion game, `doc/graphs.md`): a graph
//! type with loops and parallel edges, exact nim-values by Sprague-Grundy
//! recursion memoised on an exact canonical form of each connected component, the
//! formats people use, and named families; and a run over many graphs as one
//! job for every front end (`job`). Its own module: the solver uses only
//! `bytes` (to save the memo); the job, and a memo saved to a file on its own
//! (`memo_file`), use `outputs` and `base`'s files, locks and stop token.
//!
//! A move deletes one edge (a loop is an edge of its vertex) or one vertex with
//! every edge at it; the player who cannot move loses. `g(G) = mex` of the
//! options' values, and `g(G + H) = g(G) xor g(H)`.

use crate::base::bytes::narrow;
use smallvec::{SmallVec, smallvec};

mod canon;
pub mod family;
pub mod format;
pub mod job;
pub mod memo_file;
pub mod os85;
pub mod output;
mod recent;
mod same_result;
mod small;
mod solve;
pub mod sources;
mod subgraphs;
pub mod summary;

pub(crate) use solve::Solved;
pub use solve::{MemoError, Solver};
pub use subgraphs::subgraphs;
pub(crate) use subgraphs::subgraphs_or_stop;

/// Most vertices a graph may have (vertex sets are `u64` bitsets).
pub const MAX_VERTICES: usize = 64;

/// A multigraph as given: `n` vertices and a list of edges (a loop is `(v, v)`;
/// an edge may be listed more than once).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Multigraph {
    /// Number of vertices, `0 .. n`.
    pub n: usize,
    /// The edges, each `(u, v)` with `u, v < n`.
    pub edges: Vec<(usize, usize)>,
}

impl Multigraph {
    /// Whether no edge and no loop is listed twice (then
    /// [`Graph::from_multigraph`] keeps every edge as given).
    pub(crate) fn is_simple(&self) -> bool {
        self.pairs().windows(2).all(|w| w[0] != w[1])
    }

    /// The edges as pairs `(u, v)`, `u <= v`, sorted, copies kept.
    fn pairs(&self) -> Vec<(usize, usize)> {
        let mut pairs: Vec<(usize, usize)> = self
            .edges
            .iter()
            .map(|&(u, v)| (u.min(v), u.max(v)))
            .collect();
        pairs.sort_unstable();
        pairs
    }

    /// Every move with the multigraph it leaves: deleting one copy of an
    /// edge or loop (one move for all copies of it: they are alike), or a
    /// vertex with every edge at it (the vertices after it numbered one
    /// lower; numbering does not change a value).
    pub fn options(&self) -> Vec<(Move, Multigraph)> {
        let mut out = Vec::new();
        let mut distinct = self.pairs();
        distinct.dedup();
        for (u, v) in distinct {
            let mut m = self.clone();
            let at = m
                .edges
                .iter()
                .position(|&(a, b)| (a.min(b), a.max(b)) == (u, v))
                .expect("a listed edge");
            m.edges.remove(at);
            out.push((Move::Edge(u, v), m));
        }
        for x in 0..self.n {
            let renumber = |w: usize| if w > x { w - 1 } else { w };
            let edges = self
                .edges
                .iter()
                .filter(|&&(u, v)| u != x && v != x)
                .map(|&(u, v)| (renumber(u), renumber(v)))
                .collect();
            out.push((
                Move::Vertex(x),
                Multigraph {
                    n: self.n - 1,
                    edges,
                },
            ));
        }
        out
    }
}

/// Vertices whose rows a [`Graph`] holds inline (more go to the heap): the
/// solver makes a graph per option, and an allocation for each cost about a
/// tenth of a search.
const INLINE_ROWS: usize = 24;

/// A graph with at most one edge between two vertices and at most one loop at a
/// vertex: the form the solver works on (see [`Graph::from_multigraph`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Graph {
    n: usize,
    /// `adj[u]` has bit `v` when `u v` is an edge (`u != v`).
    adj: SmallVec<[u64; INLINE_ROWS]>,
    /// Bit `v` when `v` has a loop.
    loops: u64,
}

impl Graph {
    /// `n` vertices and no edge.
    pub fn empty(n: usize) -> Graph {
        assert!(n <= MAX_VERTICES, "at most {MAX_VERTICES} vertices");
        Graph {
            n,
            adj: smallvec![0; n],
            loops: 0,
        }
    }

    /// The graph of a multigraph with the same nim-value: `m` parallel edges (or
    /// `m` loops at one vertex) become one when `m` is odd and none when `m` is
    /// even.
    ///
    /// Proof (the symmetry lemma, [KY Thm 1; OS Lemma 2.1], doc/graphs.md section 3):
    /// swapping two parallel edges (or two loops at one vertex) and fixing
    /// everything else is an automorphism `s` with `s(s(x)) = x` that fixes every
    /// vertex, so no edge joins a vertex `x` to `s(x) != x`; hence
    /// `g(G) = g(Fix(s))`, and `Fix(s)` is `G` without those two edges.
    pub fn from_multigraph(m: &Multigraph) -> Graph {
        let mut g = Graph::empty(m.n);
        for &(u, v) in &m.edges {
            if u == v {
                g.loops ^= 1 << u;
            } else {
                g.adj[u] ^= 1 << v;
                g.adj[v] ^= 1 << u;
            }
        }
        g
    }

    /// A simple graph on `n` vertices with these edges (each listed once).
    pub fn from_edges(n: usize, edges: &[(usize, usize)]) -> Graph {
        Graph::from_multigraph(&Multigraph {
            n,
            edges: edges.to_vec(),
        })
    }

    /// Number of vertices.
    pub fn vertices(&self) -> usize {
        self.n
    }

    /// Number of edges, loops included.
    pub fn edges(&self) -> usize {
        let ordinary: u32 = self.adj.iter().map(|a| a.count_ones()).sum();
        ordinary as usize / 2 + self.loops.count_ones() as usize
    }

    /// Whether `u v` is an edge (`u == v`: a loop).
    pub(crate) fn has_edge(&self, u: usize, v: usize) -> bool {
        if u == v {
            self.loops >> u & 1 == 1
        } else {
            self.adj[u] >> v & 1 == 1
        }
    }

    /// Every edge once, `(u, v)` with `u <= v`, in order.
    pub fn edge_list(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for u in 0..self.n {
            if self.loops >> u & 1 == 1 {
                out.push((u, u));
            }
            for v in u + 1..self.n {
                if self.adj[u] >> v & 1 == 1 {
                    out.push((u, v));
                }
            }
        }
        out
    }

    /// The parity value `p(G) = 2 (e mod 2) + (v mod 2)` of doc/graphs.md.
    pub fn parity_value(&self) -> u32 {
        2 * narrow::<u32, _>(self.edges() % 2) + narrow::<u32, _>(self.n % 2)
    }

    /// No loop and no odd cycle.
    pub(crate) fn is_bipartite(&self) -> bool {
        if self.loops != 0 {
            return false;
        }
        two_colourable(self.all(), |u| self.adj[u])
    }

    /// Whether the graph has at most one connected component.
    pub(crate) fn is_connected(&self) -> bool {
        self.n == 0 || self.component_of(0) == self.all()
    }

    /// The vertex set of the connected component of `s`.
    fn component_of(&self, s: usize) -> u64 {
        reach(s, |u| self.adj[u])
    }

    /// Every vertex, as a bitset.
    pub fn all(&self) -> u64 {
        if self.n == 64 {
            u64::MAX
        } else {
            (1u64 << self.n) - 1
        }
    }

    /// The subgraph induced by the vertices in `mask`, relabelled `0..` in order.
    pub fn induced(&self, mask: u64) -> Graph {
        let mask = mask & self.all();
        // Each run of consecutive kept vertices moves down by the number of
        // vertices dropped below it: a row is compressed run by run (few runs:
        // one deleted vertex leaves two), not bit by bit. (By hand: BMI2's
        // `pext` would do it in one instruction, but the build targets every
        // x86-64.)
        let mut runs: SmallVec<[(u64, u32); 8]> = SmallVec::new();
        let mut rest = mask;
        while rest != 0 {
            let start = rest.trailing_zeros();
            let dropped = (!mask & ((1u64 << start) - 1)).count_ones();
            let len = (!(rest >> start)).trailing_zeros();
            let run = if len == 64 {
                u64::MAX
            } else {
                ((1u64 << len) - 1) << start
            };
            runs.push((run, dropped));
            rest &= !run;
        }
        let compress = |bits: u64| runs.iter().fold(0, |a, &(run, d)| a | (bits & run) >> d);
        let mut g = Graph::empty(mask.count_ones() as usize);
        let mut b = mask;
        let mut i = 0;
        while b != 0 {
            let u = b.trailing_zeros() as usize;
            b &= b - 1;
            g.adj[i] = compress(self.adj[u]);
            i += 1;
        }
        g.loops = compress(self.loops);
        g
    }

    /// The vertex sets of the connected components.
    pub(crate) fn component_masks(&self) -> Vec<u64> {
        let mut seen = 0u64;
        let mut out = Vec::new();
        for s in 0..self.n {
            if seen >> s & 1 == 1 {
                continue;
            }
            let comp = self.component_of(s);
            seen |= comp;
            out.push(comp);
        }
        out
    }

    /// Adds the edge `u v` (`u == v`: a loop) if it is not there.
    pub(crate) fn add_edge(&mut self, u: usize, v: usize) {
        if u == v {
            self.loops |= 1 << u;
        } else {
            self.adj[u] |= 1 << v;
            self.adj[v] |= 1 << u;
        }
    }

    /// Deletes the edge `u v` (`u == v`: the loop) if it is there.
    pub(crate) fn remove_edge(&mut self, u: usize, v: usize) {
        if u == v {
            self.loops &= !(1 << u);
        } else {
            self.adj[u] &= !(1 << v);
            self.adj[v] &= !(1 << u);
        }
    }

    /// Every position one move away, with the move.
    pub fn options(&self) -> Vec<(Move, Graph)> {
        let mut out = Vec::new();
        for (u, v) in self.edge_list() {
            let mut g = self.clone();
            g.remove_edge(u, v);
            out.push((Move::Edge(u, v), g));
        }
        let all = self.all();
        for v in 0..self.n {
            out.push((Move::Vertex(v), self.induced(all & !(1 << v))));
        }
        out
    }
}

/// A move: delete an edge `(u, v)` (`u == v`: a loop), or a vertex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Move {
    /// Delete the edge `u v`.
    Edge(usize, usize),
    /// Delete vertex `v` and every edge at it.
    Vertex(usize),
}

impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Move::Edge(u, v) if u == v => write!(f, "delete the loop at {u}"),
            Move::Edge(u, v) => write!(f, "delete edge {u}-{v}"),
            Move::Vertex(v) => write!(f, "delete vertex {v}"),
        }
    }
}

/// The vertices joined to `s` by a path, where `row(u)` is the neighbour set of
/// `u` (shared by [`Graph`] and the small graphs of `small`).
fn reach(s: usize, row: impl Fn(usize) -> u64) -> u64 {
    let (mut comp, mut frontier) = (1u64 << s, 1u64 << s);
    while frontier != 0 {
        let u = frontier.trailing_zeros() as usize;
        frontier &= frontier - 1;
        let new = row(u) & !comp;
        comp |= new;
        frontier |= new;
    }
    comp
}

/// Whether the graph on `vertices`, `row(u)` the neighbour set of `u`, has no
/// odd cycle (loops are the caller's to exclude).
fn two_colourable(vertices: u64, row: impl Fn(usize) -> u64) -> bool {
    // Breadth first from each unseen vertex, levels alternating sides: an
    // edge inside a level or between levels two apart cannot occur in a
    // breadth-first search, so an edge within a side is one inside a level.
    let mut unseen = vertices;
    while unseen != 0 {
        let start = unseen & unseen.wrapping_neg();
        let (mut sides, mut frontier, mut side) = ([start, 0u64], start, 0);
        while frontier != 0 {
            let mut next = 0u64;
            let mut f = frontier;
            while f != 0 {
                let u = f.trailing_zeros() as usize;
                f &= f - 1;
                if row(u) & sides[side] != 0 {
                    return false;
                }
                next |= row(u);
            }
            side ^= 1;
            frontier = next & !(sides[0] | sides[1]);
            sides[side] |= frontier;
        }
        unseen &= !(sides[0] | sides[1]);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) use crate::base::test_rng::Rng;

    #[test]
    fn induced_keeps_the_edges_and_loops_among_the_kept_vertices_in_order() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut next = move || rng.next();
        for n in [0, 1, 2, 5, 7, 24, 25, 40, 63, 64] {
            let mut g = Graph::empty(n);
            for u in 0..n {
                for v in u..n {
                    if next() % 3 == 0 {
                        g.add_edge(u, v);
                    }
                }
            }
            let all = g.all();
            let singles = (0..n).map(|v| all & !(1u64 << v));
            let masks: Vec<u64> = [0, all, next(), next() & next(), next() | next()]
                .into_iter()
                .chain(singles)
                .collect();
            for mask in masks {
                // The definition: the i-th kept vertex becomes i.
                let kept: Vec<usize> = (0..n).filter(|&v| mask >> v & 1 == 1).collect();
                let h = g.induced(mask);
                assert_eq!(h.vertices(), kept.len(), "n {n} mask {mask:x}");
                for (i, &u) in kept.iter().enumerate() {
                    for (j, &v) in kept.iter().enumerate() {
                        assert_eq!(h.has_edge(i, j), g.has_edge(u, v), "n {n} mask {mask:x}");
                    }
                }
                let edges = kept
                    .iter()
                    .enumerate()
                    .flat_map(|(i, &u)| kept[i..].iter().map(move |&v| (u, v)))
                    .filter(|&(u, v)| g.has_edge(u, v))
                    .count();
                assert_eq!(
                    h.edges(),
                    edges,
                    "n {n} mask {mask:x}: no edge from outside"
                );
            }
        }
    }
}
