//! The exact recurrence for `f(q,r)`: owns the per-row state and computes new
//! columns in order; never touches files (callers receive each finished block of
//! columns and decide what to do with it). Uses only `bytes`, to save its state.
//!
//! # The rule the engine uses (proof)
//!
//! doc/chomp.md section 2 defines `f(q,r)` as a mex over the earlier entries of its row and
//! column, with the exception that a row that has become constant stays constant.
//! The engine uses an equivalent rule that only looks at values `>= q`:
//!
//! > If row `r` has not died before column `q` (no `a < q` with `f(a,r) = a`), then
//! > `f(q,r)` is the least `p >= q` that is neither `f(a,r)` for some `a < q` nor
//! > `f(q,b)` for some `b < r`. If it died at column `s < q`, then `f(q,r) = s`.
//!
//! Proof, from the game rules of doc/chomp.md section 1. Take `q >= r` and `p >= q` and list
//! the moves from `[p,q,r]`:
//! * top row: `[p,q,r']`, `r' < r`. It is a P-position iff `p = f(q,r')`
//!   (if `f(q,r') < q` the P-position of `(q,r')` has first row `< q <= p`);
//! * middle row: `[p,q',min(r,q')]`, `q' < q`. P iff `p = f(q',r)`, by the same
//!   argument (for `q' < r` this is `f(q',q') = f(q',r)`);
//! * bottom row to `p' >= q`: `[p',q,r]`, P iff it is the P-position of `(q,r)`;
//! * bottom row to `p' < q`: `[p',p',min(p',r)]`, which is P iff `f(p',r) = p'`,
//!   i.e. iff row `r` died at column `p'`.
//!
//! If the row has not died before `q`, the last kind never reaches a P-position, so
//! `[p,q,r]` is P iff `p` avoids the row and column values of the rule and no smaller
//! `p' >= q` is P: the least such `p` is `f(q,r)`. In particular `f(q,r) >= q` on a
//! live row, and `f(q,r) = q` is exactly the death of the row. If the row died at
//! `s < q`, `[s,s,min(s,r)]` is P and reachable, so no `p >= q` works and
//! `f(q,r) = s`. The brute-force solver in the tests checks this independently.
//!
//! Consequences the engine relies on:
//! * only values `>= q` of the row matter, and they come from the last `r + 1`
//!   columns, so `f(q,r) <= q + r + 1` and the row state is a window of `r + 2` bits;
//! * dead rows below `r` never matter to it after their death column (their value
//!   is `< q`), so nothing has to be folded into higher rows;
//! * the row set of row `r` starts (at column `r`) as the diagonal values
//!   `f(a,a)`, `a < r` (doc/chomp.md: `f(a,r) = f(a,a)` for `a < r`), of which only those
//!   `>= r` are kept.
//!
//! # Schedule
//!
//! Columns are computed in blocks of [`BLOCK_COLS`]. Inside a block, rows go in
//! increasing order and each row runs through all the block's columns while its
//! window is in L1; one bitset per column of the block (`used`) carries the
//! column's values `>= q` up the rows. A cell is then the first zero of
//! `window | used` from the row's own first free value: O(1) words on rows that
//! have settled, about `(f - q) / 64` words on young rows (`r > q / sqrt 2`),
//! which is where the time goes (see `doc/algorithm.md`). Block `b + 1` may process a chunk of
//! [`CHUNK_ROWS`] rows as soon as block `b` has finished those rows, so `k` threads
//! work on `k` consecutive blocks in a pipeline. Every cell depends only on its row's
//! state and the rows below it in its own column, so the result does not depend on
//! the number of threads.

mod chain;
mod checkpoint;
mod handoff;
mod moves;
pub mod ranks;
mod resume;
mod row;
pub mod trace;

use crate::base::bytes::narrow;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, mpsc};

use chain::{COPY_WORDS, Chunk, Scratch, Walk};
pub(crate) use checkpoint::Deltas;
use ranks::{Owners, Ranks, Solo};
pub(crate) use resume::StoredColumns;
pub(crate) use row::State;
use row::{BlockOut, Live, Row, Window};
use trace::{BlockWork, ChunkWork, Recorder, thread_cpu_ns};

/// Columns per block. A row's window is reused across the block's columns while
/// the block's column bitsets (`N / 8` bytes each) stay in L2. 32, 64 and 128
/// measured within noise of each other at N = 3*10^4 (about 7-8.5 s each).
pub const BLOCK_COLS: u32 = 64;

/// Rows handed from one block's thread to the next at a time. Larger chunks mean
/// fewer hand-offs, smaller ones an earlier start for the next block; 1024 rows
/// is ~0.1 ms of work at N = 10^5, far above the cost of a hand-off.
pub const CHUNK_ROWS: u32 = 1024;

/// A finished block of columns `first .. first + cols`, as handed to the caller.
pub(crate) struct Block<'a> {
    /// First column of the block.
    pub first: u32,
    /// Number of columns in the block.
    pub cols: u32,
    stride: usize,
    /// First row held in `values` (see [`Engine::report_from`]).
    lo: u32,
    row_limit: u32,
    values: &'a [u32],
    /// Per column, the values `>= first` its rows took (`used_words` words
    /// from value `64 * (first / 64)`).
    used: &'a [u64],
    used_words: usize,
    owners: Owners,
}

impl Block<'_> {
    /// `f(q,r)`, for a column `q` of the block and a row `r` of
    /// [`Block::column`]'s.
    #[inline]
    pub(crate) fn value(&self, q: u32, r: u32) -> u32 {
        let j = q - self.first;
        debug_assert!(
            r >= self.lo && r <= q.min(self.row_limit),
            "row {r} in column {q}"
        );
        self.values[j as usize * self.stride + (r - self.lo) as usize]
    }

    /// Column `first + j`: `f(first + j, r)` for `r = first_row() ..= first + j`
    /// (rows up to the engine's row limit), row `r` at index `r - first_row()`.
    pub fn column(&self, j: u32) -> &[u32] {
        let start = j as usize * self.stride;
        let top = (self.first + j).min(self.row_limit);
        &self.values[start..start + (top + 1).saturating_sub(self.lo) as usize]
    }

    /// The values `>= first + j` taken in column `first + j`, in increasing
    /// order: one per row alive there (a row's value is never another's in its
    /// column), dead rows' values (all below the column) left out. On one of
    /// several ranks, the values of the rows below this rank's that handed
    /// their column sets on are in it too (a hand-off carries every value
    /// of the rows below it), so the set is whole for a column whose top
    /// row [`Block::owns`].
    pub fn taken(&self, j: u32) -> impl Iterator<Item = u32> + '_ {
        let q = self.first + j;
        let base = self.first / 64;
        let words = &self.used[j as usize * self.used_words..][..self.used_words];
        (q / 64 - base..)
            .zip(&words[(q / 64 - base) as usize..])
            .flat_map(move |(k, &w)| {
                let mut w = w;
                if k == q / 64 - base {
                    w &= u64::MAX << (q % 64);
                }
                std::iter::from_fn(move || {
                    (w != 0).then(|| {
                        let bit = w.trailing_zeros();
                        w &= w - 1;
                        64 * (base + k) + bit
                    })
                })
            })
    }

    /// Whether this rank computed row `r` (every row on a single rank).
    pub(crate) fn owns(&self, r: u32) -> bool {
        self.owners.mine(r / CHUNK_ROWS)
    }

    /// The first row of [`Block::column`]: 0 unless the caller asked for
    /// fewer ([`Engine::report_from`]).
    pub(crate) fn first_row(&self) -> u32 {
        self.lo
    }

    /// The rows this rank computed (all of them on a single rank), as ranges
    /// inside `first_row() .. first_row() + stride`; other rows read as 0 in
    /// [`Block::column`].
    pub(crate) fn owned_rows(&self) -> impl Iterator<Item = Range<u32>> + '_ {
        let owners = &self.owners;
        let (lo, rows_end) = (self.lo, self.lo + narrow::<u32, _>(self.stride));
        (lo / CHUNK_ROWS..rows_end.div_ceil(CHUNK_ROWS))
            .filter(move |&c| owners.mine(c))
            .map(move |c| (c * CHUNK_ROWS).max(lo)..((c + 1) * CHUNK_ROWS).min(rows_end))
    }
}

/// The live rows at the engine's next column `q`, lent one at a time in
/// increasing order (`Engine::rows`): each row's window is rebuilt from its
/// chunk's chain (`chain.rs`) as the rows are walked.
pub struct Rows<'a> {
    engine: &'a Engine,
    /// The chunk being walked, and the walk.
    at: Option<(u32, MutexGuard<'a, Chunk>, Walk)>,
}

impl Rows<'_> {
    /// Live row `r` (`None` for a dead or periodic row, or one not made yet);
    /// rows asked in increasing order cost one walk of their chunks.
    pub fn get(&mut self, r: u32) -> Option<LiveRow<'_>> {
        let c = r / CHUNK_ROWS;
        if self.at.as_ref().is_none_or(|(at, _, _)| *at != c) {
            self.at = None;
            let chunk = self.engine.chunks.get(c as usize)?.lock().unwrap();
            let walk = Walk::new(&chunk);
            self.at = Some((c, chunk, walk));
        }
        let (_, chunk, walk) = self.at.as_mut()?;
        let i = (r % CHUNK_ROWS) as usize;
        if i >= chunk.rows.len() {
            return None;
        }
        let (live, win) = walk.row(chunk, i)?;
        Some(LiveRow {
            live,
            win,
            r,
            q: self.engine.columns,
        })
    }
}

/// A live row at the engine's next column `q`, with its window.
pub struct LiveRow<'a> {
    live: &'a Live,
    win: &'a Window,
    r: u32,
    q: u32,
}

impl LiveRow<'_> {
    /// The row's state at `q`: the values `>= q` it has used.
    pub(crate) fn state(&self) -> State {
        self.live.state(self.win, self.r, self.q)
    }

    /// Whether the row's state at `q` is `s` (compared without a copy).
    pub(crate) fn state_is(&self, s: &State) -> bool {
        self.live.state_is(self.win, self.r, self.q, s)
    }
}

/// The engine's state after some number of complete columns.
pub(crate) struct Engine {
    columns: u32,
    /// Rows above this are never created (`u32::MAX`: no limit).
    row_limit: u32,
    /// Rows `c * CHUNK_ROWS ..` in chunk `c`; a mutex each so that the pipeline's
    /// threads can hand chunks on (the schedule makes every lock uncontended).
    chunks: Vec<Mutex<Chunk>>,
    /// Bitset of the diagonal values `f(a,a)` for the rows created so far.
    diagonal: Mutex<Vec<u64>>,
    /// Rows below this are not handed to the caller ([`Engine::report_from`]).
    report_from: u32,
    /// Blocks whose bitsets have at most this many words copy windows whole
    /// (`chain.rs`, "Narrow windows"); [`COPY_WORDS`] but in tests.
    narrow_words: usize,
    /// The records of a traced engine ([`Engine::trace`]); `None`: untraced.
    trace: Option<Recorder>,
    /// The column sets last handed on and taken in at each edge between ranks.
    edges: handoff::Edges,
    /// Who owns which chunk of rows ([`Owners::solo`] in one process).
    owners: Owners,
    /// Each chunk's CPU time in the last blocks of the last `advance`
    /// ([`Engine::take_work`]), in nanoseconds.
    work: Mutex<Vec<u64>>,
}

/// The blocks at the end of an `advance` whose chunks' CPU times
/// [`Engine::take_work`] reports: the work moves up the rows as the columns
/// go on, so the last blocks say best what the next ones will cost.
const RECENT_BLOCKS: usize = 4;

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Engine {
    /// An engine before column 0.
    pub fn new() -> Engine {
        Engine {
            columns: 0,
            row_limit: u32::MAX,
            chunks: Vec::new(),
            diagonal: Mutex::new(Vec::new()),
            report_from: 0,
            narrow_words: COPY_WORDS,
            trace: None,
            edges: handoff::Edges::default(),
            owners: Owners::solo(),
            work: Mutex::new(Vec::new()),
        }
    }

    /// Test hook: blocks whose bitsets have at most `words` words copy
    /// windows whole, the others flip them value by value (0: every block
    /// flips). Both give the same columns.
    #[cfg(any(test, feature = "test-hooks"))]
    pub(crate) fn set_narrow_words(&mut self, words: usize) {
        self.narrow_words = words;
    }

    /// From the next `advance` on, hands the caller only rows `lo ..` (and
    /// spends nothing on the dead rows below): for a caller that needs no
    /// more. Every row below `lo` must be dead or periodic by then.
    pub(crate) fn report_from(&mut self, lo: u32) {
        self.report_from = lo;
    }

    /// From the next `advance` on, records each chunk's and block's work
    /// ([`trace`]); [`Engine::take_trace`] hands the records over.
    pub(crate) fn trace(&mut self) {
        self.trace.get_or_insert_with(Recorder::default);
    }

    /// The records since the last call (empty for an untraced engine).
    pub(crate) fn take_trace(&mut self) -> (Vec<ChunkWork>, Vec<BlockWork>) {
        self.trace.as_mut().map(Recorder::take).unwrap_or_default()
    }

    /// An engine before column 0 that computes rows `0 ..= limit` only (every row
    /// depends only on the rows below it, so these stay exact).
    pub(crate) fn with_row_limit(limit: u32) -> Engine {
        Engine {
            row_limit: limit,
            ..Engine::new()
        }
    }

    /// The live rows at the next column `q = columns()`, to read their states
    /// in place, in increasing order.
    pub fn rows(&self) -> Rows<'_> {
        Rows {
            engine: self,
            at: None,
        }
    }

    /// Hands a live row over to its proved pattern: from column `start` on,
    /// `f(q,r) - q = pattern[(q - start) % pattern.len()]`. The row's window is
    /// dropped; later columns take its values from the pattern in O(1).
    pub(crate) fn set_periodic(&mut self, r: u32, start: u32, pattern: Vec<i32>) {
        let chunk = self.chunks[(r / CHUNK_ROWS) as usize].get_mut().unwrap();
        chunk.make_periodic((r % CHUNK_ROWS) as usize, start, pattern);
    }

    /// Number of chunks of [`CHUNK_ROWS`] rows made so far.
    pub(crate) fn chunks_created(&self) -> u32 {
        narrow::<u32, _>(self.chunks.len())
    }

    /// Rows held in chunk `c` (0 for another rank's chunk).
    pub(crate) fn chunk_len(&mut self, c: u32) -> usize {
        self.chunks[c as usize].get_mut().unwrap().rows.len()
    }

    /// Number of complete columns (`0 .. columns()` are done).
    pub fn columns(&self) -> u32 {
        self.columns
    }

    /// Computes the next `cols` columns on `pool`'s threads. `on_block` runs on the
    /// worker that finished a block (for example to pack it); `consume` receives its
    /// results on the calling thread, in column order.
    pub(crate) fn advance<T: Send>(
        &mut self,
        cols: u32,
        pool: &rayon::ThreadPool,
        on_block: impl Fn(&Block) -> T + Sync,
        consume: impl FnMut(T),
    ) {
        self.advance_shared(cols, pool, &Solo, on_block, consume);
    }

    /// [`Engine::advance`] on one of several ranks: this engine computes the
    /// chunks of rows this rank owns ([`ranks::Owners`]); every rank calls it with
    /// the same `cols`. Inside a block, the column sets (and, for a chunk where
    /// rows are born, the diagonal values) come from the owner of the chunk below
    /// and go on to the owner of the chunk above, with the block's index as tag.
    pub(crate) fn advance_shared<T: Send>(
        &mut self,
        cols: u32,
        pool: &rayon::ThreadPool,
        ranks: &dyn Ranks,
        on_block: impl Fn(&Block) -> T + Sync,
        mut consume: impl FnMut(T),
    ) {
        if cols == 0 {
            return;
        }
        let first = self.columns;
        let end = first.checked_add(cols).expect("column count fits in u32");
        let nblocks = cols.div_ceil(BLOCK_COLS) as usize;
        assert!(
            nblocks < ranks::CONTROL_TAG as usize,
            "block tags stay below the collectives' tags"
        );
        assert_eq!(ranks.size(), self.owners.size(), "owners for every rank");
        let rows_end = end.min(self.row_limit.saturating_add(1));
        self.work.get_mut().unwrap().clear();
        self.rebuild_diffs();
        while self.chunks.len() < rows_end.div_ceil(CHUNK_ROWS) as usize {
            self.chunks.push(Mutex::new(Chunk::default()));
        }
        let narrow_words = self.narrow_words;
        let block_range = |b: usize| {
            let q0 = first + narrow::<u32, _>(b) * BLOCK_COLS;
            (q0, (q0 + BLOCK_COLS).min(end))
        };
        let progress: Vec<AtomicU32> = (0..nblocks).map(|_| AtomicU32::new(0)).collect();
        let signal = (Mutex::new(()), Condvar::new());
        let workers = pool.current_num_threads().clamp(1, nblocks);
        let this = &*self;
        pool.in_place_scope(|scope| {
            let (tx, rx) = mpsc::sync_channel::<(usize, T)>(2 * workers);
            for t in 0..workers {
                let tx = tx.clone();
                let (progress, signal, on_block) = (&progress, &signal, &on_block);
                scope.spawn(move |_| {
                    let mut used = Vec::new();
                    let mut out = Vec::new();
                    let mut scratch = Scratch::new(narrow_words);
                    let mut records = Vec::new();
                    for b in (t..nblocks).step_by(workers) {
                        let (q0, q_end) = block_range(b);
                        let wait_for = |rows: u32| {
                            if b > 0 {
                                wait_until(&progress[b - 1], rows, signal);
                            }
                        };
                        let done = |rows: u32| {
                            progress[b].store(rows, Ordering::Release);
                            let _guard = signal.0.lock().unwrap();
                            signal.1.notify_all();
                        };
                        let at = Place {
                            block: narrow::<u32, _>(b),
                            q0,
                            q_end,
                            recent: b + RECENT_BLOCKS >= nblocks,
                        };
                        let bufs = (&mut used, &mut out, &mut scratch);
                        let log = this.trace.is_some().then_some(&mut records);
                        this.compute_block(at, ranks, bufs, log, (wait_for, done));
                        let rows_end = q_end.min(this.row_limit.saturating_add(1));
                        let lo = this.report_from.min(rows_end);
                        let block = Block {
                            first: q0,
                            cols: q_end - q0,
                            stride: (rows_end - lo) as usize,
                            lo,
                            row_limit: this.row_limit,
                            values: &out,
                            used: &used,
                            used_words: used.len() / (q_end - q0) as usize,
                            owners: this.owners.clone(),
                        };
                        let started = this.trace.as_ref().map(|_| thread_cpu_ns());
                        let result = on_block(&block);
                        if let (Some(recorder), Some(started)) = (&this.trace, started) {
                            let work = BlockWork {
                                q0,
                                thread: narrow::<u32, _>(t),
                                cpu_ns: thread_cpu_ns().saturating_sub(started),
                            };
                            recorder.add(&mut records, work);
                        }
                        if tx.send((b, result)).is_err() {
                            return;
                        }
                    }
                });
            }
            drop(tx);
            in_order(rx, &mut consume);
        });
        self.columns = end;
    }

    /// Gives every live row that lacks its set of differences (after a
    /// checkpoint, or at a rank's edge) the one its two windows determine, where
    /// its neighbour below is a live row of this rank (`row.rs`).
    fn rebuild_diffs(&mut self) {
        let q = self.columns;
        let owners = &self.owners;
        let lacking = |c: &mut Mutex<Chunk>| c.get_mut().unwrap().rows.iter().any(Row::lacks_diff);
        if !self.chunks.iter_mut().any(lacking) {
            return;
        }
        // The window of the nearest row below that has not died, if it is a
        // live row of this rank.
        let mut below: Option<Window> = None;
        for (c, chunk) in self.chunks.iter_mut().enumerate() {
            if !owners.mine(narrow::<u32, _>(c)) {
                below = None;
                continue;
            }
            chunk.get_mut().unwrap().rebuild_diffs(q, &mut below);
        }
    }

    /// Computes columns `q0 .. q_end` into `out` (column `q0 + j`, row `r` at
    /// `j * stride + r`, `stride` the rows that exist in the block: `min(q_end, row limit + 1)`),
    /// for the chunks this rank owns. `wait_for(n)` returns once
    /// the previous block has finished rows `0 .. n` (of this rank); `done(n)`
    /// announces that this block has. A traced engine's chunks go to `log`.
    fn compute_block(
        &self,
        at: Place,
        ranks: &dyn Ranks,
        (used, out, scratch): (&mut Vec<u64>, &mut Vec<u32>, &mut Scratch),
        mut log: Option<&mut Vec<ChunkWork>>,
        (wait_for, done): (impl Fn(u32), impl Fn(u32)),
    ) {
        let Place { q0, q_end, .. } = at;
        // Rows 0 .. rows_end exist in this block; rows lo .. rows_end go to `out`.
        let rows_end = q_end.min(self.row_limit.saturating_add(1));
        let lo_out = self.report_from.min(rows_end);
        let stride = (rows_end - lo_out) as usize;
        let size = (q_end - q0) as usize * stride;
        // Exactly the block's size: capacity doubling would hold twice as much.
        out.clear();
        out.reserve_exact(size);
        out.resize(size, 0);
        // Values in column q are at most q + r + 1 <= 2 q_end - 1; one bitset per
        // column, from word q0 / 64.
        let used_words = ((2 * q_end) / 64 - q0 / 64) as usize + 1;
        used.clear();
        used.resize((q_end - q0) as usize * used_words, 0);
        let chunks = rows_end.div_ceil(CHUNK_ROWS);
        let owners = &self.owners;
        // The neighbour shortcut's per-column values and hand-on (`row.rs`).
        let mut below = vec![row::NONE; (q_end - q0) as usize];
        let mut carry = Some(Vec::new());
        for chunk in (0..chunks).filter(|&c| owners.mine(c)) {
            let lo = chunk * CHUNK_ROWS;
            let hi = (lo + CHUNK_ROWS).min(rows_end);
            if chunk > 0 && !owners.mine(chunk - 1) {
                // The rows below are another rank's: nothing of theirs is known.
                below.fill(row::NONE);
                carry = None;
            }
            // The previous block covers rows 0 .. q0 (up to the limit); new rows
            // (r >= q0) also need its diagonal values, so they wait for all of it.
            wait_for(hi.min(q0).min(self.row_limit.saturating_add(1)));
            let message = (chunk > 0 && !owners.mine(chunk - 1)).then(|| {
                (
                    owners.of(chunk - 1),
                    ranks.receive(owners.of(chunk - 1), at.block),
                )
            });
            // The chunk's CPU time, for the trace and, on several ranks, for
            // cutting the runs again (`Engine::take_work`).
            let started = (log.is_some() || owners.size() > 1).then(thread_cpu_ns);
            if let Some((from, message)) = &message {
                self.take_handoff(at, (lo, *from), rows_end, used_words, used, message);
            }
            let mut rows = self.chunks[chunk as usize].lock().unwrap();
            let mut b = BlockOut {
                q0,
                used,
                used_words,
                out,
                stride,
                lo: lo_out,
                below: &mut below,
                carry: &mut carry,
            };
            rows.advance_block((lo, hi), q_end, &mut b, scratch, &self.diagonal);
            drop(rows);
            // The message is made (and kept as the edge's reference) before
            // the next block may take these rows, so that the next block's
            // message at this edge finds it (`handoff.rs`). A traced run makes
            // one at every edge, to record what it would send.
            let to_above = chunk + 1 < chunks && !owners.mine(chunk + 1);
            let above = owners.of(chunk + 1);
            let outgoing = (chunk + 1 < chunks && (log.is_some() || to_above))
                .then(|| self.handoff(at, (hi, above), rows_end, used_words, used));
            done(hi);
            let mut sent = None;
            if let Some(outgoing) = outgoing.as_ref().filter(|_| to_above) {
                ranks.send(owners.of(chunk + 1), at.block, outgoing);
                sent = Some((owners.of(chunk + 1), outgoing.len() as u64));
            }
            let cpu_ns = started.map_or(0, |t| thread_cpu_ns().saturating_sub(t));
            if at.recent && owners.size() > 1 {
                let mut work = self.work.lock().unwrap();
                if work.len() <= chunk as usize {
                    work.resize(chunk as usize + 1, 0);
                }
                work[chunk as usize] += cpu_ns;
            }
            if let Some(log) = log.as_deref_mut() {
                let edge_bytes = outgoing.map_or(0, |m| m.len() as u64);
                log.push(ChunkWork {
                    q0,
                    cols: q_end - q0,
                    chunk,
                    rows: hi - lo,
                    cpu_ns,
                    received: message.map(|(from, m)| (from, m.len() as u64)),
                    sent,
                    edge_bytes,
                });
            }
        }
        done(rows_end);
    }
}

/// Where a block is: its index in the `advance` call (its messages' tag), its
/// columns `q0 .. q_end`, and whether it is one of the call's last
/// [`RECENT_BLOCKS`] (whose chunks' times [`Engine::take_work`] reports).
#[derive(Clone, Copy)]
struct Place {
    block: u32,
    q0: u32,
    q_end: u32,
    recent: bool,
}

/// Blocks until `counter >= target`.
fn wait_until(counter: &AtomicU32, target: u32, signal: &(Mutex<()>, Condvar)) {
    if counter.load(Ordering::Acquire) >= target {
        return;
    }
    let mut guard = signal.0.lock().unwrap();
    while counter.load(Ordering::Acquire) < target {
        guard = signal.1.wait(guard).unwrap();
    }
}

/// Copies `src[base ..]` into `dst`, zero past the end of `src`.
fn copy_words(src: &[u64], base: u32, dst: &mut [u64]) {
    let base = base as usize;
    if base < src.len() {
        let n = dst.len().min(src.len() - base);
        dst[..n].copy_from_slice(&src[base..base + n]);
    }
}

/// Sets bit `v` of a growable bitset.
fn set_bit(bits: &mut Vec<u64>, v: u32) {
    let w = (v / 64) as usize;
    if w >= bits.len() {
        bits.resize(w + 1, 0);
    }
    bits[w] |= 1u64 << (v % 64);
}

/// Hands the blocks' results to `consume` in block order: blocks finish in
/// order, but their results may arrive out of order.
fn in_order<T>(rx: mpsc::Receiver<(usize, T)>, consume: &mut impl FnMut(T)) {
    let mut pending = BTreeMap::new();
    let mut next = 0;
    for (b, result) in rx {
        pending.insert(b, result);
        while let Some(result) = pending.remove(&next) {
            consume(result);
            next += 1;
        }
    }
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

    /// doc/chomp.md section 2, written as plainly as possible: the mex over the whole row and
    /// column, with the constant-row exception.
    fn slow_table(n: usize) -> Vec<Vec<u32>> {
        let mut f = vec![vec![0u32; n + 1]; n + 1]; // f[q][r], r <= q
        let at = |f: &Vec<Vec<u32>>, q: usize, r: usize| f[q][r.min(q)];
        for q in 0..=n {
            for r in 0..=q {
                if q > 0 && (at(&f, q - 1, r) as usize) < q {
                    f[q][r] = at(&f, q - 1, r);
                    continue;
                }
                let mut used = vec![false; q + r + 3];
                for a in 0..q {
                    used[at(&f, a, r) as usize] = true;
                }
                for b in 0..r {
                    used[f[q][b] as usize] = true;
                }
                f[q][r] = (1..).find(|&v| !used[v]).unwrap() as u32;
            }
        }
        f
    }

    fn engine_table(n: u32, threads: usize, steps: &[u32]) -> Vec<Vec<u32>> {
        engine_table_with(n, threads, steps, COPY_WORDS)
    }

    /// [`engine_table`] with windows of at most `narrow_words` words copied whole.
    fn engine_table_with(
        n: u32,
        threads: usize,
        steps: &[u32],
        narrow_words: usize,
    ) -> Vec<Vec<u32>> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut engine = Engine::new();
        engine.set_narrow_words(narrow_words);
        let mut cols = Vec::new();
        for &step in steps {
            engine.advance(
                step,
                &pool,
                |b: &Block| {
                    (0..b.cols)
                        .map(|j| b.column(j).to_vec())
                        .collect::<Vec<_>>()
                },
                |block| cols.extend(block),
            );
        }
        assert_eq!(engine.columns(), n + 1);
        cols
    }

    /// Advances `engine` by `cols` columns on two threads; returns them.
    pub(crate) fn columns(engine: &mut Engine, cols: u32) -> Vec<Vec<u32>> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let mut out = Vec::new();
        engine.advance(
            cols,
            &pool,
            |b: &Block| {
                (0..b.cols)
                    .map(|j| b.column(j).to_vec())
                    .collect::<Vec<_>>()
            },
            |block| out.extend(block),
        );
        out
    }

    /// The first cell where two tables differ, if any.
    pub(crate) fn first_difference(a: &[Vec<u32>], b: &[Vec<u32>]) -> Option<(usize, usize)> {
        assert_eq!(a.len(), b.len(), "column counts differ");
        for (q, (x, y)) in a.iter().zip(b).enumerate() {
            for r in 0..=q {
                if x[r] != y[r] {
                    return Some((q, r));
                }
            }
        }
        None
    }

    #[test]
    fn matches_the_plain_recurrence() {
        let slow: Vec<Vec<u32>> = slow_table(300);
        for threads in [1, 2, 3] {
            let fast = engine_table(300, threads, &[301]);
            assert_eq!(first_difference(&fast, &slow), None, "threads = {threads}");
        }
    }

    /// The columns computed by `size` ranks (threads of this process, each with
    /// its own engine and two threads), each cell taken from the rank that owns it.
    fn shared_table(n: u32, size: u32, limit: u32, steps: &[u32]) -> Vec<Vec<u32>> {
        dealt_table(n, size, 1, limit, steps)
    }

    /// [`shared_table`] with the chunks dealt `turn` at a time.
    fn dealt_table(n: u32, size: u32, turn: u32, limit: u32, steps: &[u32]) -> Vec<Vec<u32>> {
        dealt_table_on(n, (size, 2), turn, limit, steps)
    }

    /// [`dealt_table`] with `threads` threads a rank.
    fn dealt_table_on(
        n: u32,
        (size, threads): (u32, usize),
        turn: u32,
        limit: u32,
        steps: &[u32],
    ) -> Vec<Vec<u32>> {
        let chunks = n / CHUNK_ROWS + 1;
        let dealt = |rank: u32, _: usize| Owners::dealt(size, rank, turn, chunks);
        moved_table(n, (size, threads), limit, steps, &dealt)
    }

    /// The columns computed by `size` ranks of `threads` threads, the chunks
    /// owned before step `i` as `owners(rank, i)` say: between two steps,
    /// the chunks whose owner changes are given and taken.
    fn moved_table(
        n: u32,
        (size, threads): (u32, usize),
        limit: u32,
        steps: &[u32],
        owners: &(dyn Fn(u32, usize) -> Owners + Sync),
    ) -> Vec<Vec<u32>> {
        let groups = ranks::Local::group(size);
        let parts: Vec<Vec<Vec<u32>>> = std::thread::scope(|s| {
            let handles: Vec<_> = groups
                .iter()
                .map(|rank| {
                    s.spawn(move || {
                        let pool = rayon::ThreadPoolBuilder::new()
                            .num_threads(threads)
                            .build()
                            .unwrap();
                        let mut engine = Engine::with_row_limit(limit);
                        assert!(engine.set_owners(owners(rank.rank(), 0)));
                        let mut cols = Vec::new();
                        for (i, &step) in steps.iter().enumerate() {
                            move_chunks(&mut engine, rank, owners(rank.rank(), i));
                            engine.advance_shared(
                                step,
                                &pool,
                                rank,
                                |b: &Block| {
                                    let owned: Vec<_> = b.owned_rows().collect();
                                    (0..b.cols)
                                        .map(|j| {
                                            let mut col = b.column(j).to_vec();
                                            for (r, v) in col.iter_mut().enumerate() {
                                                if !owned.iter().any(|o| o.contains(&(r as u32))) {
                                                    *v = 0;
                                                }
                                            }
                                            col
                                        })
                                        .collect::<Vec<_>>()
                                },
                                |block| cols.extend(block),
                            );
                        }
                        assert_eq!(engine.columns(), n + 1);
                        cols
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut merged = parts[0].clone();
        for part in &parts[1..] {
            for (a, b) in merged.iter_mut().zip(part) {
                for (x, y) in a.iter_mut().zip(b) {
                    assert!(*x == 0 || *y == 0, "two ranks computed one cell");
                    *x = (*x).max(*y);
                }
            }
        }
        merged
    }

    /// Gives the chunks `to` gives other ranks and takes those it gives this
    /// one (a chunk at a time, in order, each rank sending before it receives).
    fn move_chunks(engine: &mut Engine, rank: &dyn Ranks, to: Owners) {
        let from = engine.owners().clone();
        let tag = ranks::CONTROL_TAG + 1;
        let made = engine.chunks_created();
        for c in (0..made).filter(|&c| from.mine(c) && !to.mine(c)) {
            rank.send(to.of(c), tag, &engine.give_chunk(c));
        }
        for c in (0..made).filter(|&c| to.mine(c) && !from.mine(c)) {
            engine
                .take_chunk(c, &rank.receive(from.of(c), tag))
                .unwrap();
        }
        engine.moved_to(to);
    }

    /// Every column of `shared` is `reference`'s, cut at row `limit`.
    fn assert_rows_up_to(shared: &[Vec<u32>], reference: &[Vec<u32>], limit: u32) {
        for (q, col) in shared.iter().enumerate() {
            assert_eq!(
                col[..],
                reference[q][..=q.min(limit as usize)],
                "column {q}"
            );
        }
    }

    #[test]
    fn ranks_sharing_the_rows_compute_the_same_columns() {
        // Chunks of 1024 rows: 3000 columns give three chunks, so every rank
        // count below passes column sets and diagonal values between ranks.
        let n = 3000;
        let reference = engine_table(n, 2, &[n + 1]);
        for size in [1, 2, 3, 4] {
            let shared = shared_table(n, size, u32::MAX, &[1000, 7, 1994]);
            assert_eq!(first_difference(&shared, &reference), None, "P = {size}");
        }
        let limit = 2500;
        let shared = shared_table(n, 3, limit, &[n + 1]);
        assert_rows_up_to(&shared, &reference, limit);
    }

    #[test]
    fn ranks_dealt_chunks_several_at_a_time_compute_the_same_columns() {
        // Seven chunks: two and three at a time on two and three ranks put
        // some edges inside a rank and some between ranks, and a rank with
        // no chunk of the last turn.
        let n = 7000;
        let reference = engine_table(n, 2, &[n + 1]);
        for (size, turn) in [(2, 2), (2, 3), (3, 2), (2, 7), (3, 4)] {
            let shared = dealt_table(n, size, turn, u32::MAX, &[1000, 7, 5994]);
            assert_eq!(
                first_difference(&shared, &reference),
                None,
                "P = {size}, turn {turn}"
            );
        }
        let limit = 5000;
        let shared = dealt_table(n, 2, 2, limit, &[n + 1]);
        assert_rows_up_to(&shared, &reference, limit);
    }

    #[test]
    fn ranks_of_one_thread_hand_on_changes_and_compute_the_same_columns() {
        // One thread a rank takes its blocks in order, and a block's sets at
        // an edge go as changes from the block before's (`handoff.rs`),
        // across calls of uneven length too.
        let n = 6000;
        let reference = engine_table(n, 2, &[n + 1]);
        for (size, turn) in [(2, 1), (2, 2), (3, 1), (4, 1)] {
            let shared = dealt_table_on(n, (size, 1), turn, u32::MAX, &[2520, 64, 3417]);
            assert_eq!(
                first_difference(&shared, &reference),
                None,
                "P = {size}, turn {turn}"
            );
        }
    }

    #[test]
    fn chunks_moved_between_ranks_between_steps_compute_the_same_columns() {
        // Steps that end inside chunks, so that a chunk moves while rows are
        // still to be born in it (its diagonal values go with it); steps of
        // whole blocks, so that an edge's sets go on as changes across a
        // move where its row and ranks stay (`handoff.rs`); and owners of
        // every kind: runs, chunks dealt one at a time, a rank
        // with none, the top chunk moving down and up.
        let n = 6000;
        let reference = engine_table(n, 2, &[n + 1]);
        let steps = [700, 512, 1088, 64, 1280, 999, 1358];
        let chunks = n / CHUNK_ROWS + 1;
        for (size, threads) in [(2, 1), (2, 2), (3, 1), (4, 2)] {
            let owners = |rank: u32, i: usize| {
                // A small hash of the step and the chunk: test data only.
                let map = (0..chunks)
                    .map(|c| {
                        let h = (c + 7).wrapping_mul(2_654_435_761_u32.wrapping_mul(i as u32 + 3));
                        match i % 3 {
                            0 => (h >> 7) % size,
                            1 => (c * size / chunks + i as u32) % size,
                            _ => (c + i as u32) % size,
                        }
                    })
                    .collect();
                Owners::from_map(size, rank, map)
            };
            let moved = moved_table(n, (size, threads), u32::MAX, &steps, &owners);
            assert_eq!(
                first_difference(&moved, &reference),
                None,
                "P = {size}, {threads} threads"
            );
        }
        // A chunk moved whole at the column where the next chunk begins:
        // that chunk's first row is born from the diagonal values that went
        // with it (every chunk from one rank to the other at column 1024).
        let reference = engine_table(3000, 2, &[3001]);
        let all_on = |rank: u32, i: usize| Owners::from_map(2, rank, vec![i as u32 % 2; 3]);
        for steps in [&[1024, 1977][..], &[1024, 1024, 953], &[2048, 953]] {
            let moved = moved_table(3000, (2, 1), u32::MAX, steps, &all_on);
            assert_eq!(first_difference(&moved, &reference), None, "{steps:?}");
        }
        let reference = engine_table(n, 2, &[n + 1]);
        // The rank below an edge keeps it while the rank above changes
        // (chunk 1 alternates between ranks 1 and 2 under chunk 0 on rank 0).
        let alternate = |rank: u32, i: usize| {
            let map = (0..chunks).map(|c| [0, 1 + i as u32 % 2, 2 - i as u32 % 2][c as usize % 3]);
            Owners::from_map(3, rank, map.collect())
        };
        let moved = moved_table(n, (3, 1), u32::MAX, &steps, &alternate);
        assert_eq!(first_difference(&moved, &reference), None, "alternating");
    }

    #[test]
    fn narrow_and_wide_windows_give_the_plain_recurrence() {
        // Every block of a table to 300 has narrow windows; 0 makes them all
        // take the wide way, 20 splits the table between the two ways.
        let slow = slow_table(300);
        for words in [0, 20, usize::MAX] {
            let fast = engine_table_with(300, 2, &[1, 2, 63, 64, 65, 5, 101], words);
            assert_eq!(
                first_difference(&fast, &slow),
                None,
                "narrow up to {words} words"
            );
        }
        // Three chunks, births and deaths in every block.
        let wide = engine_table_with(3000, 2, &[3001], 0);
        assert_eq!(
            first_difference(&wide, &engine_table(3000, 2, &[3001])),
            None
        );
    }

    #[test]
    fn uneven_steps_give_the_same_columns() {
        let slow = slow_table(300);
        let fast = engine_table(300, 2, &[1, 2, 63, 64, 65, 5, 101]);
        assert_eq!(first_difference(&fast, &slow), None);
    }
}
