//! The exact memo key: a canonical form of a graph with loops. Two graphs get
//! equal keys exactly when they are isomorphic (loops mapped to loops), so a memo
//! on this key never confuses two positions.
//!
//! Most positions are small and have few automorphisms; for them a search of our
//! own on `u64` bitsets is many times faster than the general `canonical-form`
//! crate (individualization and refinement with automorphism pruning), which
//! takes the rest. Which of the two a graph gets depends only on its
//! isomorphism class (below), and the key records which one made it, so the two
//! never mix.

use crate::base::bytes::narrow;
use canonical_form::Canonize;
use smallvec::SmallVec;

use super::Graph;

/// A canonical form, packed into bits: bits 0..7 hold the vertex count `n`,
/// bit 7 the canonizer that made it (`BY_SEARCH` or `BY_CRATE`); from bit 8
/// come the `n` loop bits (vertex `v` at bit `8 + v`), then the edges, for
/// `u = 0, 1, ..` the bits of `u v` for `v = u+1 .. n-1`; unused bits are zero.
/// From bit 8 on this is the memo file's layout (FORMAT.md).
///
/// Five inline words hold every graph up to 24 vertices (308 bits at 24), so
/// a memo entry needs no allocation of its own: the memo of a large search
/// is most of its memory (a vector of rows cost about 200 more bytes per
/// entry at 22 vertices).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct Key {
    words: SmallVec<[u64; 5]>,
}

/// The key was made by [`search`].
const BY_SEARCH: u8 = 0;
/// The key was made by the `canonical-form` crate.
const BY_CRATE: u8 = 1;
/// Most leaves [`search`] visits before it leaves the graph to the crate.
const LEAF_BUDGET: usize = 256;
/// Bits before the loops: the vertex count and the canonizer.
const HEAD: usize = 8;
/// Most vertices of a key held in its five inline words (`8 + 24 + 276 = 308`
/// bits of 320).
const INLINE_VERTICES: usize = 24;

/// Number of loop and edge bits of a key on `n` vertices.
fn body_bits(n: usize) -> usize {
    n + n * n.saturating_sub(1) / 2
}

/// The set `bits` with each vertex `v` renamed `to[v]`.
fn relabel_bits<T: Copy + Into<usize>>(bits: u64, to: &[T]) -> u64 {
    let mut out = 0u64;
    let mut b = bits;
    while b != 0 {
        let v = b.trailing_zeros() as usize;
        b &= b - 1;
        out |= 1 << to[v].into();
    }
    out
}

/// A labelled graph as the `canonical-form` crate sees it: vertex `u`'s
/// neighbours and its loop bit.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Labelled {
    loops: u64,
    adj: Vec<u64>,
}

impl Canonize for Labelled {
    fn size(&self) -> usize {
        self.adj.len()
    }

    fn apply_morphism(&self, p: &[usize]) -> Labelled {
        let map = |bits: u64| relabel_bits(bits, p);
        let mut adj = vec![0; self.adj.len()];
        for (u, &a) in self.adj.iter().enumerate() {
            adj[p[u]] = map(a);
        }
        Labelled {
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
    /// `g` packed as it is labelled, not canonized (for `recent`); `None`
    /// above [`INLINE_VERTICES`], where a key would need an allocation.
    pub(super) fn labelled(g: &Graph) -> Option<Key> {
        (g.n <= INLINE_VERTICES).then(|| Key::pack(BY_SEARCH, g.loops, &g.adj))
    }

    /// The key of a graph already in canonical order.
    fn pack(by: u8, loops: u64, adj: &[u64]) -> Key {
        let n = adj.len();
        let mut words = SmallVec::new();
        let mut len = 0;
        let mut push = |value: u64, count: usize| {
            if count == 0 {
                return;
            }
            let off = len % 64;
            if off == 0 {
                words.push(0);
            }
            *words.last_mut().unwrap() |= value << off;
            if off + count > 64 {
                words.push(value >> (64 - off));
            }
            len += count;
        };
        push(n as u64 | (by as u64) << 7, HEAD);
        push(loops, n);
        for (u, &row) in adj.iter().enumerate().take(n.saturating_sub(1)) {
            let count = n - u - 1;
            // Rows have no bits past `n`: nothing to mask.
            push(row >> (u + 1), count);
        }
        Key { words }
    }

    /// Bit `i` of the packed form.
    fn bit(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 == 1
    }

    /// Vertex count.
    pub(super) fn n(&self) -> usize {
        (self.words[0] & 0x7f) as usize
    }

    /// Which canonizer made the key.
    fn by(&self) -> u8 {
        (self.words[0] >> 7 & 1) as u8
    }

    /// The graph the key describes (its canonical form).
    pub(super) fn graph(&self) -> Graph {
        let n = self.n();
        let mut g = Graph::empty(n);
        let mut i = HEAD;
        for v in 0..n {
            g.loops |= (self.bit(i) as u64) << v;
            i += 1;
        }
        for u in 0..n {
            for v in u + 1..n {
                if self.bit(i) {
                    g.add_edge(u, v);
                }
                i += 1;
            }
        }
        g
    }

    /// Writes the key: canonizer u8, vertex count `n` u8, then the loops and
    /// the edges as one bit string, least significant bit of each byte first:
    /// `n` loop bits (vertex `v` at bit `v`), then for `u = 0, 1, ..` the bits
    /// of `u v` for `v = u+1 .. n-1`, padded with zeros to whole bytes (the
    /// packed form from its bit 8: see [`Key`]).
    pub(super) fn save(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let bytes = body_bits(self.n()).div_ceil(8);
        let mut out = Vec::with_capacity(2 + bytes);
        out.extend_from_slice(&[self.by(), narrow::<u8, _>(self.n())]);
        let stream = self.words.iter().flat_map(|w| w.to_le_bytes());
        out.extend(stream.skip(HEAD / 8).take(bytes));
        w.write_all(&out)
    }

    /// Reads a key written by [`Key::save`].
    pub(super) fn load(r: &mut dyn std::io::Read) -> std::io::Result<Key> {
        let mut head = [0u8; 2];
        r.read_exact(&mut head)?;
        let [by, n] = head;
        let n = n as usize;
        if n > super::MAX_VERTICES || by > BY_CRATE {
            return Err(crate::base::bytes::damaged(
                "a key this version does not write",
            ));
        }
        let count = body_bits(n);
        let mut bytes = vec![0u8; 1 + count.div_ceil(8)];
        bytes[0] = narrow::<u8, _>(n) | by << 7;
        r.read_exact(&mut bytes[1..])?;
        let past = |i: usize| bytes[1 + i / 8] >> (i % 8) & 1 == 1;
        if (count..(bytes.len() - 1) * 8).any(past) {
            return Err(crate::base::bytes::damaged("a key with bits past its end"));
        }
        let words = bytes
            .chunks(8)
            .map(|c| {
                let mut w = [0u8; 8];
                w[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(w)
            })
            .collect();
        Ok(Key { words })
    }
}

/// The canonical key of `g`.
pub(super) fn key(g: &Graph) -> Key {
    key_and_mirror(g).0
}

/// The canonical key of `g`, and the vertices fixed by a mirror of `g` if the
/// search found one: an automorphism `s != id` with `s(s(x)) = x` and no edge
/// from a vertex `x` to `s(x) != x`, so that `g(G) = g(Fix(s))` by the symmetry
/// lemma (see `Solver`). Of all mirrors the one fixing fewest vertices (the
/// first found among equals). Mirrors are looked for only when our own search
/// makes the key (it meets every automorphism, see [`search`]); a graph the
/// crate canonizes gets `None`, which costs time, not exactness: without a
/// mirror the solver recurses over the options.
pub(super) fn key_and_mirror(g: &Graph) -> (Key, Option<u64>) {
    if let Some(key) = complete(g) {
        return (key, None);
    }
    if let Some(found) = search(g) {
        return found;
    }
    let c = Labelled {
        loops: g.loops,
        adj: g.adj.to_vec(),
    }
    .canonical();
    (Key::pack(BY_CRATE, c.loops, &c.adj), None)
}

/// The key of a complete graph with a loop at every vertex or at none, whose
/// every labelling is the same graph: its own bits are its canonical form,
/// with no search (both searches take time growing with `n!` of its
/// automorphisms: minutes at 40 vertices). Made for every graph of these
/// classes alone, as [`search`] makes it where it would reach them (its key
/// of a complete graph is the graph's bits too).
fn complete(g: &Graph) -> Option<Key> {
    let all = g.all();
    let uniform = g.loops == 0 || g.loops == all;
    let complete = (0..g.n).all(|v| g.adj[v] == all & !(1 << v));
    (uniform && complete).then(|| Key::pack(BY_SEARCH, g.loops, &g.adj))
}

/// Canonical form by individualization and refinement without pruning: refine
/// the partition of the vertices by (loop, degree) to an equitable one, then
/// individualize each vertex of the first cell that is not a singleton in turn,
/// refine, and go on, down to discrete partitions (the leaves); each leaf orders
/// the vertices, and the key is the least relabelled graph over all leaves.
///
/// Exact: refinement splits and orders cells by counts of neighbours in cells
/// that are themselves ordered by such counts, so an isomorphism maps the search
/// tree of one graph onto that of the other, leaf to leaf, and the least
/// relabelled graph is the same. For the same reason the number of leaves is
/// the same for isomorphic graphs, so whether it exceeds [`LEAF_BUDGET`] (and
/// the graph goes to the crate instead: `None`) depends only on the class.
///
/// Automorphisms: the leaves of the tree are mapped onto each other by every
/// automorphism, and two leaves give the same relabelled graph exactly when an
/// automorphism maps one to the other (the relabellings `a`, `b` of the two
/// leaves give equal graphs iff `b^-1 a` preserves edges and loops). So the
/// leaves equal to the final least graph, compared with the first of them,
/// give every automorphism but the identity, each once; mirrors are picked
/// from those (and from any met on the way: every one is an automorphism).
fn search(g: &Graph) -> Option<(Key, Option<u64>)> {
    let n = g.n;
    let mut order = [0u64; 64];
    for (v, o) in order[..n].iter_mut().enumerate() {
        *o = ((g.loops >> v & 1) | (g.adj[v].count_ones() as u64) << 1) << 6 | v as u64;
    }
    let mut cells = Cells::default();
    cells.push_sorted(&mut order[..n]);
    cells.refine(&g.adj, u64::MAX >> (64 - cells.len.max(1)));
    let mut best = Best::default();
    descend(g, &cells, &mut best).then_some(())?;
    let k = Key::pack(BY_SEARCH, best.loops, &best.adj[..n]);
    Some((k, best.mirror))
}

/// An ordered partition of the vertices: `cells[..len]`, each a bitset.
/// (Hand-made and on the stack: this is the solver's innermost loop, and a
/// partition of at most 64 vertices fits in one array.)
#[derive(Clone, Copy)]
struct Cells {
    cells: [u64; 64],
    len: usize,
}

impl Default for Cells {
    fn default() -> Cells {
        Cells {
            cells: [0; 64],
            len: 0,
        }
    }
}

impl Cells {
    /// Appends the vertices of words `signature | vertex` (the signature in
    /// the top 58 bits, the vertex in the low 6), sorted by signature, one
    /// cell per signature.
    fn push_sorted(&mut self, verts: &mut [u64]) {
        verts.sort_unstable();
        for i in 0..verts.len() {
            if i == 0 || verts[i - 1] >> 6 != verts[i] >> 6 {
                self.cells[self.len] = 0;
                self.len += 1;
            }
            self.cells[self.len - 1] |= 1 << (verts[i] & 63);
        }
    }

    /// Splits cells until no cell splits. A round sorts each cell's vertices
    /// by a signature of their counts of neighbours in the *fresh* cells, in
    /// cell order: those in `fresh` (bit `i` for cell `i`) in the first round,
    /// then the pieces of the cells the previous round split. The caller
    /// passes as fresh every cell against which the vertices of one cell may
    /// have different counts (all cells at the start; after individualizing,
    /// the two pieces of the cell it split): against the other cells, the
    /// vertices of a cell already have equal counts, as they had in the round
    /// that made the cell, so counting them again would split nothing. This
    /// is the partition the full count against every cell gives (the coarsest
    /// equitable refinement, up to signatures that collide), at a fraction of
    /// the work: a cell is counted against once per split that makes it, not
    /// once per round.
    ///
    /// The signature mixes the counts into the top 58 bits of a `u64`; two
    /// different count lists may share one, which only leaves a cell coarser.
    /// What matters for exactness is that the result is a function of the
    /// graph and the partition that commutes with relabelling, which it is:
    /// which cells are fresh depends only on the partitions.
    fn refine(&mut self, adj: &[u64], mut fresh: u64) {
        // One buffer for every cell and round, and one partition to build the
        // next round in (zeroing them per cell or round cost more than the
        // signatures of small graphs).
        let mut verts = [0u64; 64];
        let mut next = Cells::default();
        while fresh != 0 {
            next.len = 0;
            let mut split = 0u64;
            for &cell in &self.cells[..self.len] {
                if cell.count_ones() == 1 {
                    next.cells[next.len] = cell;
                    next.len += 1;
                    continue;
                }
                let mut k = 0;
                let mut b = cell;
                while b != 0 {
                    let v = b.trailing_zeros() as usize;
                    b &= b - 1;
                    let mut sig = 0u64;
                    let mut f = fresh;
                    while f != 0 {
                        let c = self.cells[f.trailing_zeros() as usize];
                        f &= f - 1;
                        let count = (adj[v] & c).count_ones() as u64;
                        sig = (sig ^ count)
                            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                            .rotate_left(29);
                    }
                    verts[k] = sig & !63 | v as u64;
                    k += 1;
                }
                let first = next.len;
                next.push_sorted(&mut verts[..k]);
                if next.len > first + 1 {
                    // Every piece of a split cell is fresh (indices below 64).
                    split |= (u64::MAX >> (64 - (next.len - first))) << first;
                }
            }
            std::mem::swap(self, &mut next);
            fresh = split;
        }
    }
}

/// The least relabelled graph found so far, the vertex its leaf puts at each
/// place (`at`), the leaves visited, and the fixed vertices of the best mirror
/// met so far.
struct Best {
    found: bool,
    loops: u64,
    adj: [u64; 64],
    at: [u8; 64],
    leaves: usize,
    mirror: Option<u64>,
}

impl Default for Best {
    fn default() -> Best {
        Best {
            found: false,
            loops: 0,
            adj: [0; 64],
            at: [0; 64],
            leaves: 0,
            mirror: None,
        }
    }
}

/// Searches below `cells`; false when the leaf budget ran out.
fn descend(g: &Graph, cells: &Cells, best: &mut Best) -> bool {
    let Some(at) = cells.cells[..cells.len]
        .iter()
        .position(|c| c.count_ones() > 1)
    else {
        best.leaves += 1;
        if best.leaves > LEAF_BUDGET {
            return false;
        }
        leaf(g, cells, best);
        return true;
    };
    let cell = cells.cells[at];
    let mut rest = cell;
    while rest != 0 {
        let v = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let mut next = *cells;
        next.cells.copy_within(at + 1..cells.len, at + 2);
        next.cells[at] = 1 << v;
        next.cells[at + 1] = cell & !(1 << v);
        next.len = cells.len + 1;
        next.refine(&g.adj, 0b11 << at);
        if !descend(g, &next, best) {
            return false;
        }
    }
    true
}

/// The graph relabelled by a discrete partition (the vertex of cell `i` becomes
/// `i`), kept in `best` if it is the least so far (loops first, then rows).
/// Rows are relabelled and compared one at a time: most leaves lose to the
/// best at an early row.
fn leaf(g: &Graph, cells: &Cells, best: &mut Best) {
    let n = g.n;
    // Vertex numbers as bytes: these arrays are set up at every leaf.
    let mut to = [0u8; 64];
    let mut at = [0u8; 64];
    for (i, c) in cells.cells[..n].iter().enumerate() {
        at[i] = narrow::<u8, _>(c.trailing_zeros());
        to[at[i] as usize] = narrow::<u8, _>(i);
    }
    let map = |bits: u64| relabel_bits(bits, &to);
    let loops = map(g.loops);
    let mut order = if best.found {
        loops.cmp(&best.loops)
    } else {
        std::cmp::Ordering::Less
    };
    let mut row = 0;
    while order.is_eq() && row < n {
        order = map(g.adj[at[row] as usize]).cmp(&best.adj[row]);
        row += 1;
    }
    match order {
        std::cmp::Ordering::Greater => {}
        std::cmp::Ordering::Less => {
            // Rows before the first difference are equal; relabel the rest.
            best.found = true;
            best.loops = loops;
            let first = row.saturating_sub(1);
            for (row, &v) in best.adj[first..n].iter_mut().zip(&at[first..n]) {
                *row = map(g.adj[v as usize]);
            }
            best.at[..n].copy_from_slice(&at[..n]);
        }
        std::cmp::Ordering::Equal => {
            // `s(u) = best.at[to[u]]` is an automorphism (see `search`).
            let mut s = [0u8; 64];
            for u in 0..n {
                s[u] = best.at[to[u] as usize];
            }
            if let Some(fixed) = mirror_fixed(g, &s[..n])
                && best
                    .mirror
                    .is_none_or(|m| fixed.count_ones() < m.count_ones())
            {
                best.mirror = Some(fixed);
            }
        }
    }
}

/// The vertices an automorphism `s` fixes, if `s` is a mirror: an involution
/// (`s(s(x)) = x`) with no edge from a vertex `x` to `s(x) != x`. (Then an
/// edge or loop `s` fixes has both ends fixed, and `Fix(s)` is the subgraph
/// induced by the fixed vertices.)
fn mirror_fixed(g: &Graph, s: &[u8]) -> Option<u64> {
    let mut fixed = 0u64;
    for (x, &y) in s.iter().enumerate() {
        let y = y as usize;
        if y == x {
            fixed |= 1 << x;
        } else if s[y] as usize != x || g.adj[x] >> y & 1 == 1 {
            return None;
        }
    }
    // The identity is no mirror (and never met: distinct leaves order the
    // vertices differently).
    (fixed.count_ones() < narrow::<u32, _>(s.len())).then_some(fixed)
}

/// `g` relabelled into its canonical form: two graphs give equal results exactly
/// when they are isomorphic.
pub(super) fn canonical(g: &Graph) -> Graph {
    // Either canonizer's form is a canonical relabelling of `g` (its class
    // always gets the same one).
    key(g).graph()
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

    fn random(rng: &mut Rng, n: usize, density: u64) -> Graph {
        let mut g = Graph::empty(n);
        for u in 0..n {
            for v in u..n {
                if rng.next() % 100 < density {
                    g.add_edge(u, v);
                }
            }
        }
        g
    }

    fn permuted(g: &Graph, p: &[usize]) -> Graph {
        let mut h = Graph::empty(g.n);
        for (u, v) in g.edge_list() {
            h.add_edge(p[u], p[v]);
        }
        h
    }

    /// Isomorphic by trying every permutation (the definition).
    fn isomorphic(a: &Graph, b: &Graph) -> bool {
        let n = a.n;
        let mut p: Vec<usize> = (0..n).collect();
        loop {
            if permuted(a, &p) == *b {
                return true;
            }
            let Some(i) = (1..n).rev().find(|&i| p[i - 1] < p[i]) else {
                return false;
            };
            let j = (i..n).rev().find(|&j| p[j] > p[i - 1]).unwrap();
            p.swap(i - 1, j);
            p[i..].reverse();
        }
    }

    /// The fixed vertex sets of all mirrors of `a`, by trying every permutation
    /// (the definition: an involutive automorphism other than the identity,
    /// with no edge from a vertex to its image).
    fn mirrors(a: &Graph) -> Vec<u64> {
        let n = a.n;
        let mut p: Vec<usize> = (0..n).collect();
        let mut out = Vec::new();
        loop {
            let fixed = (0..n).filter(|&x| p[x] == x).fold(0u64, |f, x| f | 1 << x);
            if fixed.count_ones() < n as u32
                && permuted(a, &p) == *a
                && (0..n).all(|x| p[p[x]] == x && (p[x] == x || !a.has_edge(x, p[x])))
            {
                out.push(fixed);
            }
            let Some(i) = (1..n).rev().find(|&i| p[i - 1] < p[i]) else {
                return out;
            };
            let j = (i..n).rev().find(|&j| p[j] > p[i - 1]).unwrap();
            p.swap(i - 1, j);
            p[i..].reverse();
        }
    }

    /// A key's bytes in the memo file, written from FORMAT.md's description
    /// bit by bit.
    fn file_bytes(by: u8, g: &Graph) -> Vec<u8> {
        let n = g.n;
        let mut bits = Vec::new();
        bits.extend((0..n).map(|v| g.loops >> v & 1 == 1));
        for u in 0..n {
            bits.extend((u + 1..n).map(|v| g.has_edge(u, v)));
        }
        let mut out = vec![by, n as u8];
        for chunk in bits.chunks(8) {
            out.push(chunk.iter().rev().fold(0, |b, &x| b << 1 | x as u8));
        }
        out
    }

    #[test]
    fn keys_pack_any_size_as_the_file_format_says() {
        let mut rng = Rng(0x9e3779b97f4a7c15);
        for n in (0..=30).chain([40, 63, 64]) {
            for density in [0, 30, 100] {
                let g = random(&mut rng, n, density);
                let by = (n % 2) as u8;
                let k = Key::pack(by, g.loops, &g.adj);
                assert_eq!((k.n(), k.by()), (n, by));
                assert_eq!(k.graph(), g, "n = {n}");
                let mut bytes = Vec::new();
                k.save(&mut bytes).unwrap();
                assert_eq!(bytes, file_bytes(by, &g), "n = {n}");
                assert_eq!(Key::load(&mut &bytes[..]).unwrap(), k, "n = {n}");
            }
        }
    }

    #[test]
    fn the_search_finds_a_least_mirror_when_there_is_one() {
        let mut rng = Rng(0x853c49e6748fea9b);
        let mut with = 0;
        for round in 0..400 {
            let n = 1 + round % 7;
            let a = random(&mut rng, n, [20, 50, 80][round % 3]);
            let Some((_, mirror)) = search(&a) else {
                continue;
            };
            let all = mirrors(&a);
            let least = all.iter().map(|f| f.count_ones()).min();
            assert_eq!(mirror.map(u64::count_ones), least, "{a:?}");
            if let Some(fixed) = mirror {
                with += 1;
                assert!(all.contains(&fixed), "{fixed:b} fixed in {a:?}");
            }
        }
        assert!(with > 50, "only {with} graphs with a mirror");
    }

    #[test]
    fn larger_graphs_keep_their_key_under_any_relabelling() {
        // Equal keys always mean isomorphic graphs (a key is a relabelling of
        // its graph); what can go wrong is a key that depends on the labels.
        // Wheels with edges taken away have long refinements and symmetries.
        let mut rng = Rng(0xda942042e4dd58b5);
        for round in 0..300 {
            let n = 8 + round % 33;
            let mut a = if round % 2 == 0 {
                random(&mut rng, n, [5, 20, 50][round % 3])
            } else {
                let mut w = crate::graph::family::build(&format!("wheel:{}", n - 1)).unwrap();
                for (u, v) in w.edge_list() {
                    if rng.next().is_multiple_of(8) {
                        w.remove_edge(u, v);
                    }
                }
                w
            };
            if round % 5 == 0 {
                a.loops |= rng.next() & a.all();
            }
            let ka = key(&a);
            for _ in 0..3 {
                let mut p: Vec<usize> = (0..n).collect();
                for i in (1..n).rev() {
                    p.swap(i, rng.next() as usize % (i + 1));
                }
                // `permuted` moves the loops too (they are in the edge list).
                assert_eq!(ka, key(&permuted(&a, &p)), "{a:?} relabelled by {p:?}");
            }
        }
    }

    #[test]
    fn keys_are_equal_exactly_for_isomorphic_graphs() {
        let mut rng = Rng(0x2545f4914f6cdd1d);
        let mut by = [0usize; 2];
        for round in 0..600 {
            let n = 1 + round % 7;
            let density = [15, 40, 70, 95][round % 4];
            let (a, b) = (random(&mut rng, n, density), random(&mut rng, n, density));
            let mut p: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                p.swap(i, rng.next() as usize % (i + 1));
            }
            let (ka, kb) = (key(&a), key(&b));
            by[ka.by() as usize] += 1;
            assert_eq!(ka, key(&permuted(&a, &p)), "relabelled {a:?}");
            assert_eq!(ka == kb, isomorphic(&a, &b), "{a:?} and {b:?}");
        }
        // Both canonizers were used (dense graphs have many automorphisms).
        assert!(by[0] > 0 && by[1] > 0, "{by:?}");
    }
}
