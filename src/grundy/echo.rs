//! Lines whose least period is known, taken by the trailing sweep of
//! [`super::lag`] from their last period instead of by the mex ("echoes").
//! Owns those values, within a memory budget; uses [`super::live`] (a
//! taken line's used set is not kept, and is rebuilt for a checkpoint).
//!
//! # Why the values are the same
//!
//! A line done with start `s` and least period `P` has `x(p) = x(p - P)`
//! for every `p >= s + P`. Its ring holds `x(j)` at slot `j % P` for `P`
//! consecutive `j >= s` (every residue once), so slot `p % P` is `x(p)` for
//! every `p >= s`. The trailing sweep takes it at a step as [`super::live`]
//! takes a given value: it enters the line's column and row as the mex's
//! would, and the line's own used set, read only by its mex and by a
//! checkpoint, is left. For a checkpoint it is made again from the ring
//! ([`super::live::Live::rebuild`], which needs the values of the last
//! `bias + 2Q` steps, all at or after `s`: a line is taken only from
//! `p >= s + bias + 2Q` on), so a checkpoint is the one the mex would have
//! written, and a run continued from it refills the rings.
//!
//! The rings of lines with the same period are kept side by side, a block
//! of [`WIDTH`] lines step by step (row `p % P`, a column a line), so that
//! the values of a stretch of steps are read in order: a ring a line, each
//! far from the next, cost a miss of every cache for every line and
//! stretch, as much as the mex it spared (RESULTS.md).
//!
//! Not every done line fits: at `Q = 200` most least periods are 589,824,
//! 1.2 MB a line. Lines are given rings in the order they are done while
//! the budget lasts (a block's whole size counted at its first line).

use super::live::Live;

/// `x` of a line not started, or not taken, at a `p`.
const ABSENT: i16 = i16::MIN;
/// Lines in a block.
const WIDTH: usize = 64;

/// The done lines' rings and which of them the trailing sweep takes.
pub(super) struct Echoes {
    /// Bytes left for more blocks.
    left: u64,
    blocks: Vec<Block>,
    /// Per line: its ring, once it has one.
    rings: Vec<Option<Ring>>,
    /// Per line: whether it was offered a ring (a line is offered once).
    offered: Vec<bool>,
    /// Per line: whether the trailing sweep takes it from its ring.
    taken: Vec<bool>,
    /// The lines taken, ascending.
    list: Vec<usize>,
}

/// The rings of up to [`WIDTH`] lines of one period.
struct Block {
    period: u32,
    /// Row `p % period`, column `c`: `x(p)` of the block's `c`-th line.
    x: Vec<i16>,
    /// The block's lines, by column.
    lines: Vec<usize>,
}

/// Where one line's ring is, and how far it is filled.
struct Ring {
    block: usize,
    col: usize,
    start: u32,
    /// `x(j)` is kept for `j` in `from ..= last`.
    from: u32,
    /// The last `p` kept (`from - 1` before the first).
    last: u32,
}

impl Echoes {
    /// No rings yet for `n` lines, with `bytes` to spend on them.
    pub(super) fn new(n: usize, bytes: u64) -> Echoes {
        Echoes {
            left: bytes,
            blocks: Vec::new(),
            rings: (0..n).map(|_| None).collect(),
            offered: vec![false; n],
            taken: vec![false; n],
            list: Vec::new(),
        }
    }

    /// Per line, whether the trailing sweep takes it.
    pub(super) fn taken(&self) -> &[bool] {
        &self.taken
    }

    /// How many lines the trailing sweep takes.
    pub(super) fn count(&self) -> usize {
        self.list.len()
    }

    /// Offers line `at`, done with `start` and least `period`, a ring,
    /// filled from the trailing sweep's next `p` (`next`) on, if the budget
    /// has room (once per line).
    pub(super) fn offer(&mut self, at: usize, start: u32, period: u32, next: u32) {
        if std::mem::replace(&mut self.offered[at], true) {
            return;
        }
        let open = self
            .blocks
            .iter()
            .rposition(|b| b.period == period && b.lines.len() < WIDTH);
        let block = match open {
            Some(b) => b,
            None => {
                let bytes = 2 * WIDTH as u64 * period as u64;
                if bytes > self.left {
                    return;
                }
                self.left -= bytes;
                self.blocks.push(Block {
                    period,
                    x: vec![ABSENT; WIDTH * period as usize],
                    lines: Vec::with_capacity(WIDTH),
                });
                self.blocks.len() - 1
            }
        };
        let col = self.blocks[block].lines.len();
        self.blocks[block].lines.push(at);
        let from = next.max(start);
        self.rings[at] = Some(Ring {
            block,
            col,
            start,
            from,
            last: from - 1,
        });
    }

    /// Whether line `at` was offered a ring.
    pub(super) fn offered(&self, at: usize) -> bool {
        self.offered[at]
    }

    /// Keeps the trailing sweep's `x` of the `k` steps after `p0` (step
    /// `p0 + 1 + i` is `row(i)`, by line) in the rings being filled, step by
    /// step. A ring that missed steps (the sweep kept no values there)
    /// starts again.
    pub(super) fn keep<'a>(
        &mut self,
        p0: u32,
        k: usize,
        row: impl Fn(usize) -> (&'a [i16], &'a [i16]),
    ) {
        let mut filling: Vec<(usize, &mut Ring)> = Vec::new();
        for (at, ring) in self.rings.iter_mut().enumerate() {
            let Some(ring) = ring else { continue };
            let period = self.blocks[ring.block].period;
            if ring.full(period) {
                continue;
            }
            if ring.last < p0 {
                ring.from = (p0 + 1).max(ring.start);
                ring.last = ring.from - 1;
            }
            filling.push((at, ring));
        }
        for i in 0..k {
            let p = p0 + 1 + i as u32;
            let (low, high) = row(i);
            for (at, ring) in filling.iter_mut() {
                let block = &mut self.blocks[ring.block];
                if p == ring.last + 1 && !ring.full(block.period) {
                    let x = match at.checked_sub(low.len()) {
                        None => low[*at],
                        Some(j) => high[j],
                    };
                    block.x[(p % block.period) as usize * WIDTH + ring.col] = x;
                    ring.last = p;
                }
            }
        }
    }

    /// Takes, from the trailing sweep's next step on, the lines whose rings
    /// are full once that sweep is at `p` with its window `bias` below `p`
    /// and rows up to `q_max` (see the module's comment).
    pub(super) fn take(&mut self, p: u32, bias: u32, q_max: u32) {
        for (at, ring) in self.rings.iter().enumerate() {
            let Some(ring) = ring else { continue };
            let late = p >= ring.start + bias + 2 * q_max && p > 3 * q_max + bias;
            if !self.taken[at] && ring.full(self.blocks[ring.block].period) && late {
                self.taken[at] = true;
                self.list.push(at);
            }
        }
        self.list.sort_unstable();
    }

    /// The values of the lines taken among `lo .. hi` at the `steps` steps
    /// from `p1` on: step `i`, line `at` at `[i * (hi - lo) + at - lo]`, the
    /// other lines [`ABSENT`]. Empty if no line there is taken.
    pub(super) fn given(&self, lo: usize, hi: usize, p1: u32, steps: usize) -> Vec<i16> {
        if self.lines(lo, hi).is_empty() {
            return Vec::new();
        }
        let w = hi - lo;
        let mut out = vec![ABSENT; steps * w];
        for block in &self.blocks {
            let cols: Vec<(usize, usize)> = (block.lines.iter().enumerate())
                .filter(|&(_, &at)| self.taken[at] && (lo..hi).contains(&at))
                .map(|(c, &at)| (c, at - lo))
                .collect();
            if cols.is_empty() {
                continue;
            }
            let mut slot = (p1 % block.period) as usize;
            for i in 0..steps {
                let row = &block.x[slot * WIDTH..(slot + 1) * WIDTH];
                let to = &mut out[i * w..(i + 1) * w];
                for &(c, j) in &cols {
                    to[j] = row[c];
                }
                slot += 1;
                if slot == block.period as usize {
                    slot = 0;
                }
            }
        }
        out
    }

    /// Copies the taken lines' values of `given` (from [`Echoes::given`]
    /// with the same `lo` and `hi`) into `x`, laid out alike.
    pub(super) fn fill(&self, x: &mut [i16], given: &[i16], lo: usize, hi: usize) {
        if given.is_empty() {
            return;
        }
        let w = hi - lo;
        for (row, from) in x.chunks_exact_mut(w).zip(given.chunks_exact(w)) {
            for &at in self.lines(lo, hi) {
                row[at - lo] = from[at - lo];
            }
        }
    }

    /// Makes the used sets of the lines taken in `live` (the trailing
    /// sweep) again, as the mex would have left them.
    pub(super) fn rebuild(&self, live: &mut Live) {
        for &at in &self.list {
            let ring = self.rings[at].as_ref().expect("a taken line has a ring");
            let block = &self.blocks[ring.block];
            live.rebuild(at, |j| {
                assert!(j >= ring.start, "a value before the line's start");
                block.x[(j % block.period) as usize * WIDTH + ring.col] as i32
            });
        }
    }

    /// The lines taken among `lo .. hi`.
    fn lines(&self, lo: usize, hi: usize) -> &[usize] {
        let a = self.list.partition_point(|&at| at < lo);
        let b = self.list.partition_point(|&at| at < hi);
        &self.list[a..b]
    }
}

impl Ring {
    /// Whether it holds a whole period.
    fn full(&self, period: u32) -> bool {
        self.last + 1 - self.from == period
    }
}
