//! Nim-values by Sprague-Grundy recursion: xor over connected components, each
//! component's value memoised on its exact canonical form. Two reductions, both
//! theorems of doc/graphs.md section 3:
//!
//! * a bipartite component has value `p(G) = 2 (e mod 2) + (v mod 2)`
//!   [FS91; KY Thm 3; MPCV Thm 1; OS Prop 1.1];
//! * the symmetry lemma [KY Thm 1; OS Lemma 2.1]: if an automorphism `s` with
//!   `s(s(x)) = x` joins no vertex `x` to `s(x) != x` by an edge (a *mirror*),
//!   then `g(G) = g(Fix(s))`, where `Fix(s)` is the subgraph induced by the
//!   vertices `s` fixes. Proof: in `G + Fix(s)`, answer every move by its
//!   mirror image (a move outside `Fix(s)` in `G` by its image under `s`, a
//!   move in one copy of `Fix(s)` by the same move in the other). The answer is
//!   always there: an edge `s` moves is not its own image (its ends would be
//!   swapped, and no edge joins `x` to `s(x)`), and deleting a vertex `x`
//!   deletes only edges at `x`, none at `s(x)`; the position stays symmetric
//!   under `s`. So the second player wins `G + Fix(s)`: `g(G) xor g(Fix(s)) = 0`.
//!   The condition matters: in `K_2 + K_1` (doc/graphs.md) swapping the edge's
//!   ends would give `g = g(K_1) = 1`, but the value is 3.
//!
//! The solver uses two kinds of mirror: a swap of two *false twins* (two
//! vertices, not adjacent, with the same neighbours and the same loop), found
//! before any canonical form, and the mirror fixing fewest vertices among all
//! automorphisms, which the canonical search meets anyway (`canon`).
//!
//! Graphs on at most 7 vertices without loops go to `small` (a table of their
//! isomorphism classes); the rest use `canon` for keys and mirrors, and
//! `recent`, a cache per thread of components as they were reached, in front
//! of the canonical search.

use crate::base::bytes::narrow;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use dashmap::DashMap;
use rayon::prelude::*;
use rustc_hash::FxBuildHasher;

use super::canon::{Key, key, key_and_mirror};
use super::recent;
use super::small::{self, Small};
use super::{Graph, Move, Multigraph};
use crate::base::bytes::stream::{CrcReader, CrcWriter, get32, get64, put32, put64};
use crate::base::input::InputError;
use crate::base::path_message::NamesPath;
use crate::base::stop::Stop;

/// First 8 bytes of a memo file, and its version.
const MAGIC: &[u8; 8] = b"CHOMP3GM";
/// Version 4: the layout of version 3, but keys from the present canonical
/// form (refinement by fresh cells); version 3's keys would not be found.
const VERSION: u32 = 4;

/// Components with at least this many vertices solve their options in parallel.
const PARALLEL_FROM: usize = 10;

/// Why a memo file cannot be read: the cases of every chomp3 file format.
/// Each message ends with what to do.
#[derive(Debug, thiserror::Error)]
pub enum MemoError {
    /// No file at the path.
    #[error("{0}: no such graph memo")]
    NotFound(PathBuf),
    /// Not a graph memo.
    #[error(
        "not a chomp3 graph memo (no CHOMP3GM header); give the path of a memo, or a new path to start one"
    )]
    NotThisFile,
    /// Another kind of file chomp3 writes.
    #[error(
        "this file is {0}, not a graph memo; give the path of a memo, or a new path to start one"
    )]
    OtherFile(&'static str),
    /// Written by another layout version.
    #[error(
        "graph memo of version {found}; this chomp3 reads version {expected} only; {START_OVER}"
    )]
    Version {
        /// The version this build reads.
        expected: u32,
        /// The version in the file.
        found: u32,
    },
    /// Cut off, or bytes that cannot be right.
    #[error("damaged graph memo ({0}); {START_OVER}")]
    Damaged(String),
    /// An operating-system error while reading.
    #[error("{0}")]
    Io(io::Error),
    /// Nothing in the file (a memo is written whole, never empty).
    #[error("the file is empty, not a graph memo; {START_OVER}")]
    Empty,
    /// The path is no regular file, or a link to nothing (the message names it).
    #[error(transparent)]
    Input(InputError),
    /// Stopped by the stop token before the whole memo was read.
    #[error("stopped before the whole memo was read; the file is as it was")]
    Stopped,
}

impl NamesPath for MemoError {
    fn names_path(&self) -> bool {
        matches!(self, MemoError::NotFound(_) | MemoError::Input(_))
    }
}

/// What every memo message offers.
const START_OVER: &str = "delete it to start over";

/// What [`Solver::try_batch`] finds of one graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solved {
    /// Its nim-value.
    pub value: u32,
    /// Every move with the value of the position it leaves, if asked for.
    pub moves: Option<Vec<(Move, u32)>>,
}

/// A solver with its memo (keep it across graphs: positions recur). Threads may
/// share one solver: the memo is a concurrent map, and two threads that reach
/// the same new position compute the same value.
#[derive(Debug)]
pub struct Solver {
    /// Keyed by canonical forms; Fx hashing, as the keys are not chosen by an
    /// adversary and SipHash cost several per cent of a solve.
    /// (Shared with the solvers [`Solver::stopping`] makes.)
    memo: Arc<DashMap<Key, u32, FxBuildHasher>>,
    /// Graphs on at most 7 vertices without loops, by isomorphism class.
    small: Arc<Small>,
    /// When set (say by Ctrl-C), solves stop early: see [`Solver::try_value`].
    stop: Option<Stop>,
    /// Names this solver's entries in the per-thread caches (`recent`).
    id: u64,
}

/// Stack left below which a solve's next level runs on a new segment: a
/// level holds a few graphs and keys of up to 64 rows, and the canonical
/// form's search.
const STACK_RED_ZONE: usize = 256 * 1024;
/// Size of each new stack segment.
const STACK_SEGMENT: usize = 8 * 1024 * 1024;

/// The next solver's `id`.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

impl Default for Solver {
    fn default() -> Solver {
        Solver::with_memo(DashMap::default())
    }
}

impl Solver {
    /// An empty memo.
    pub fn new() -> Solver {
        Solver::default()
    }

    /// A solver with `memo` and a new `id`.
    fn with_memo(memo: DashMap<Key, u32, FxBuildHasher>) -> Solver {
        Solver {
            memo: Arc::new(memo),
            small: Arc::default(),
            stop: None,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// Connected positions remembered: solved from their options or by the
    /// symmetry lemma, or loaded (bipartite ones are not kept).
    pub fn memo_len(&self) -> usize {
        self.memo.len() + self.small.solved()
    }

    /// Writes the memo: magic `CHOMP3GM`, version u32 (4), entry count u64, then
    /// per entry its canonical key (canonizer u8: 0 chomp3's search, 1 the
    /// `canonical-form` crate; vertex count u8; loops and edges as packed
    /// bits, FORMAT.md) and value u32, and a CRC-32 of all of it. Entries are
    /// written by vertex count, and in key order within one count, so the same
    /// memo gives the same bytes. The entries of one vertex count at a time are
    /// copied and sorted (one pass over the memo per count), so that saving a
    /// memo of hundreds of millions of positions needs a fraction of its
    /// memory again, not all of it.
    pub fn save(&self, w: &mut dyn Write) -> io::Result<()> {
        self.save_until(w, &Stop::new())
    }

    /// [`Solver::save`], failing with an error of kind
    /// [`io::ErrorKind::Interrupted`] once `stop` is set: it is asked every
    /// 65,536 positions gathered or written and between the steps (the
    /// positions of one vertex count are sorted in one step). What was
    /// written is then no memo: the caller drops it.
    pub fn save_until(&self, w: &mut dyn Write, stop: &Stop) -> io::Result<()> {
        let stopped = || match stop.requested() {
            true => Err(io::Error::new(io::ErrorKind::Interrupted, "stopped")),
            false => Ok(()),
        };
        let mut out = CrcWriter::new(w);
        // Counted first, and exactly those many written: other threads may
        // solve with this memo meanwhile, and a memo only grows, so each
        // count's pass finds at least as many entries as were counted (any
        // of them is an exact value; the file stays whole).
        let mut counts = [0usize; super::MAX_VERTICES + 1];
        for e in self.memo.iter() {
            counts[e.key().n()] += 1;
        }
        for (n, _, _) in self.small.entries() {
            counts[n] += 1;
        }
        out.write_all(MAGIC)?;
        put32(&mut out, VERSION)?;
        put64(&mut out, counts.iter().sum::<usize>() as u64)?;
        for (n, &count) in counts.iter().enumerate().filter(|(_, c)| **c > 0) {
            stopped()?;
            let mut group: Vec<(Key, u32)> = Vec::with_capacity(count);
            for e in self.memo.iter().filter(|e| e.key().n() == n) {
                if group.len().is_multiple_of(65_536) {
                    stopped()?;
                }
                group.push((e.key().clone(), *e.value()));
            }
            for (_, code, v) in self.small.entries().filter(|e| e.0 == n) {
                group.push((key(&small::graph(n, code)), v));
            }
            group.sort_unstable();
            if group.len() < count {
                return Err(io::Error::other(
                    "the memo lost entries while it was saved; save it again",
                ));
            }
            group.truncate(count);
            stopped()?;
            for (i, (k, v)) in group.into_iter().enumerate() {
                if i.is_multiple_of(65_536) {
                    stopped()?;
                }
                k.save(&mut out)?;
                put32(&mut out, v)?;
            }
        }
        stopped()?;
        let crc = out.crc.finalize();
        put32(out.w, crc)
    }

    /// Reads the memo file at `path` (see [`Solver::load`]).
    pub fn open(path: &Path) -> Result<Solver, MemoError> {
        Solver::open_until(path, &Stop::new())
    }

    /// [`Solver::open`], ending with [`MemoError::Stopped`] soon after
    /// `stop` is set (a memo of hundreds of millions of positions takes
    /// minutes to read).
    pub fn open_until(path: &Path, stop: &Stop) -> Result<Solver, MemoError> {
        let file = crate::base::input::open(path, "a graph memo").map_err(|e| match e {
            InputError::Missing { path } => MemoError::NotFound(path),
            e => MemoError::Input(e),
        })?;
        Solver::load_until(&mut io::BufReader::new(file), stop)
    }

    /// Reads a memo written by [`Solver::save`], entry by entry (a memo file
    /// is not held in memory whole). The CRC, checked at the end, covers every
    /// entry; a memo that fails it is not returned. The values were computed by
    /// this solver's exact recursion.
    pub fn load(r: &mut dyn Read) -> Result<Solver, MemoError> {
        Solver::load_until(r, &Stop::new())
    }

    /// [`Solver::load`], ending with [`MemoError::Stopped`] soon after `stop`
    /// is set.
    pub fn load_until(r: &mut dyn Read, stop: &Stop) -> Result<Solver, MemoError> {
        let damaged = |e: io::Error| match e.kind() {
            io::ErrorKind::UnexpectedEof => MemoError::Damaged("truncated".into()),
            io::ErrorKind::InvalidData => MemoError::Damaged(e.to_string()),
            _ => MemoError::Io(e),
        };
        let mut rd = CrcReader::new(r);
        let mut magic = Vec::with_capacity(8);
        (&mut rd)
            .take(8)
            .read_to_end(&mut magic)
            .map_err(MemoError::Io)?;
        match magic.len() {
            0 => return Err(MemoError::Empty),
            _ if !MAGIC.starts_with(&magic) => {
                // Another kind of file chomp3 writes is named, and kept.
                let _ = (&mut rd).take(64).read_to_end(&mut magic);
                return Err(match crate::outputs::kind_of(&magic) {
                    Some(kind) => MemoError::OtherFile(kind.what()),
                    // A memo is read plain; a compressed one is named so.
                    None if magic.starts_with(crate::outputs::XZ_MAGIC) => {
                        MemoError::OtherFile("compressed with xz (decompress it first)")
                    }
                    None => MemoError::NotThisFile,
                });
            }
            1..8 => return Err(MemoError::Damaged("truncated".into())),
            _ => {}
        }
        let version = get32(&mut rd).map_err(damaged)?;
        if version != VERSION {
            return Err(MemoError::Version {
                expected: VERSION,
                found: version,
            });
        }
        let count = get64(&mut rd).map_err(damaged)?;
        let memo = DashMap::with_capacity_and_hasher(count.min(1 << 24) as usize, FxBuildHasher);
        let small = Small::default();
        for i in 0..count {
            // Asked every 65,536 entries: some milliseconds apart.
            if i.is_multiple_of(65_536) && stop.requested() {
                return Err(MemoError::Stopped);
            }
            let k = Key::load(&mut rd).map_err(damaged)?;
            let v = get32(&mut rd).map_err(damaged)?;
            let g = (k.n() <= small::SLOTS).then(|| k.graph());
            match g.filter(small::fits) {
                Some(g) if !small.load(g.n, small::code(&g), v) => {
                    return Err(MemoError::Damaged("a value too large for its graph".into()));
                }
                Some(_) => {}
                None => {
                    memo.insert(k, v);
                }
            }
        }
        let crc = rd.crc.finalize();
        let stored = get32(rd.r).map_err(damaged)?;
        if crc != stored || rd.r.read(&mut [0u8]).map_err(MemoError::Io)? != 0 {
            return Err(MemoError::Damaged("checksum".into()));
        }
        Ok(Solver {
            small: Arc::new(small),
            ..Solver::with_memo(memo)
        })
    }

    /// The same solver, stopping its solves early once `flag` is set: then
    /// [`Solver::try_value`] gives `None`, and the memo holds only positions
    /// solved to the end (save it, and a rerun continues from them).
    pub fn stop_on(self, stop: Stop) -> Solver {
        Solver {
            stop: Some(stop),
            ..self
        }
    }

    /// Whether `other`'s memo holds a position this one's does not (the
    /// table of small graphs apart: solved again at once).
    pub fn lacks_any_of(&self, other: &Solver) -> bool {
        other.memo.iter().any(|e| !self.memo.contains_key(e.key()))
    }

    /// A solver of this one's memo that stops early once `stop` is set, as
    /// [`Solver::stop_on`] (for one call on a memo kept across calls).
    pub fn stopping(&self, stop: Stop) -> Solver {
        Solver {
            memo: Arc::clone(&self.memo),
            small: Arc::clone(&self.small),
            stop: Some(stop),
            id: self.id,
        }
    }

    /// The nim-value of `g`. Panics if the solve was stopped (only a solver
    /// made with [`Solver::stop_on`] stops: use `try_value` there).
    pub fn value(&self, g: &Graph) -> u32 {
        self.try_value(g)
            .expect("a solve without a stop flag finishes")
    }

    /// The nim-value of `g`, or `None` if the stop flag was set before the
    /// end.
    pub fn try_value(&self, g: &Graph) -> Option<u32> {
        if let Some(v) = self.small_value(g) {
            return Some(v);
        }
        if g.is_connected() {
            // Most options are (and the empty graph, bipartite: 0): no copy
            // through `induced`.
            return self.component(g);
        }
        g.component_masks()
            .into_iter()
            .try_fold(0, |a, m| Some(a ^ self.component(&g.induced(m))?))
    }

    /// Every move from `g` with the value of the position it leaves.
    pub fn moves(&self, g: &Graph) -> Vec<(Move, u32)> {
        self.try_moves(g)
            .expect("a solve without a stop flag finishes")
    }

    /// Every move from `g` with the value of the position it leaves, or `None`
    /// if the stop flag was set before the end.
    pub fn try_moves(&self, g: &Graph) -> Option<Vec<(Move, u32)>> {
        g.options()
            .into_iter()
            .map(|(m, h)| Some((m, self.try_value(&h)?)))
            .collect()
    }

    /// Every move from the multigraph `m` as given (deleting one of parallel
    /// edges or of repeated loops is a move) with the value of the position
    /// it leaves, or `None` if the stop flag was set before the end; those
    /// of a simple graph in the order of [`Graph::options`]. The moves
    /// `chomp3 graph --moves` lists.
    pub fn try_moves_as_given(&self, m: &Multigraph) -> Option<Vec<(Move, u32)>> {
        match m.is_simple() {
            true => self.try_moves(&Graph::from_multigraph(m)),
            false => self.try_multigraph_moves(m),
        }
    }

    /// Every move from the multigraph `m` (parallel edges and repeated loops
    /// as given: deleting one copy is a move) with the value of the position
    /// it leaves, or `None` if the stop flag was set before the end.
    pub(crate) fn try_multigraph_moves(&self, m: &Multigraph) -> Option<Vec<(Move, u32)>> {
        m.options()
            .into_iter()
            .map(|(mv, h)| Some((mv, self.try_value(&Graph::from_multigraph(&h))?)))
            .collect()
    }

    /// A batch of graphs solved in parallel with this one memo: per graph its
    /// value and, with `moves`, every move with the value of the position it
    /// leaves (from the multigraph as given, where there is one: deleting one
    /// of parallel edges is a move). `None` if the stop flag was set before
    /// the end. The batch job of `chomp3 graph` and of Python's `nim_values`.
    pub fn try_batch(
        &self,
        batch: &[(&Graph, Option<&Multigraph>)],
        moves: bool,
    ) -> Option<Vec<Solved>> {
        batch
            .par_iter()
            .map(|&(g, given)| {
                let value = self.try_value(g)?;
                let moves = match (moves, given) {
                    (true, Some(m)) => Some(self.try_multigraph_moves(m)?),
                    (true, None) => Some(self.try_moves(g)?),
                    (false, _) => None,
                };
                Some(Solved { value, moves })
            })
            .collect()
    }

    /// The value of `g` from the table of small graphs, if it is one.
    fn small_value(&self, g: &Graph) -> Option<u32> {
        small::fits(g).then(|| self.small.value(g.n, small::code(g)))
    }

    fn component(&self, c: &Graph) -> Option<u32> {
        if let Some(v) = self.small_value(c) {
            return Some(v);
        }
        if c.is_bipartite() {
            return Some(c.parity_value());
        }
        if let Some((u, v)) = false_twins(c) {
            // The swap of `u` and `v` is a mirror fixing all else.
            return self.try_value(&c.induced(c.all() & !(1 << u | 1 << v)));
        }
        let labelled = Key::labelled(c);
        if let Some(v) = labelled.as_ref().and_then(|l| recent::get(self.id, l)) {
            return Some(v);
        }
        let v = self.canonical(c)?;
        if let Some(l) = labelled {
            recent::put(self.id, l, v);
        }
        Some(v)
    }

    /// The value of a connected, non-bipartite `c` through its canonical key:
    /// from the memo, by the symmetry lemma, or from its options.
    fn canonical(&self, c: &Graph) -> Option<u32> {
        // One level of the recursion through the options: a dense graph of 64
        // vertices goes some 2,000 moves deep, past any thread's own stack
        // (rayon's, Python's), so the stack is extended where it runs low.
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || self.canonical_here(c))
    }

    /// [`Solver::canonical`] on the stack it has.
    fn canonical_here(&self, c: &Graph) -> Option<u32> {
        let (k, mirror) = key_and_mirror(c);
        // The guard is dropped at once: holding it across the recursion below
        // could deadlock on the same shard.
        if let Some(v) = self.memo.get(&k).map(|e| *e) {
            return Some(v);
        }
        if self.stop.as_ref().is_some_and(Stop::requested) {
            return None;
        }
        if let Some(fixed) = mirror {
            let v = self.try_value(&c.induced(fixed))?;
            self.memo.insert(k, v);
            return Some(v);
        }
        // Large positions solve their options in parallel (rayon steals the work
        // of the recursion); small ones are cheaper than a task, and delete
        // each edge of one copy in turn instead of making every option.
        let values: Vec<u32> = if c.vertices() >= PARALLEL_FROM {
            let options = c.options();
            options
                .par_iter()
                .map(|(_, h)| self.try_value(h))
                .collect::<Option<_>>()?
        } else {
            let mut h = c.clone();
            let mut values: Vec<u32> = Vec::with_capacity(c.edges() + c.vertices());
            for (u, v) in c.edge_list() {
                h.remove_edge(u, v);
                values.push(self.try_value(&h)?);
                h.add_edge(u, v);
            }
            let all = c.all();
            for v in 0..c.vertices() {
                values.push(self.try_value(&c.induced(all & !(1 << v)))?);
            }
            values
        };
        let mut seen = Vec::new();
        for v in values {
            let v = v as usize;
            if v >= seen.len() {
                seen.resize(v + 1, false);
            }
            seen[v] = true;
        }
        let mex = narrow::<u32, _>(seen.iter().position(|&s| !s).unwrap_or(seen.len()));
        self.memo.insert(k, mex);
        Some(mex)
    }
}

/// Two vertices that are not adjacent and have the same neighbours and the same
/// loop (the first such pair), if any.
fn false_twins(c: &Graph) -> Option<(usize, usize)> {
    for u in 0..c.n {
        for v in u + 1..c.n {
            if c.adj[u] == c.adj[v] && (c.loops >> u & 1) == (c.loops >> v & 1) {
                // Equal neighbour sets: `u` is not in its own, so not in `v`'s.
                return Some((u, v));
            }
        }
    }
    None
}
