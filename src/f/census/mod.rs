//! The certified row census: runs the engine on rows `0 ..= R` only, each until
//! its fate is proved (doc/certificate.md), without storing the square table. A row
//! proved periodic leaves the engine's work and feeds the rows above it from its
//! pattern in O(1). On the way it collects what columns `0 ..= R` say (the
//! diagonal, P-position counts, the column maxima) and each row's true minimum, so
//! that every sequence of the analysis follows without a table. Uses `engine`,
//! `proof` and `facts`; never touches files (`census_file` stores the result).
//!
//! Proof, row by row in increasing order: a row that reaches `f(q,r) = q` is
//! constant (the recurrence's rule). A live row is proved periodic when every row
//! below it is constant or proved periodic (combined period `L`, all settled from
//! column `q1`), and its state (the engine's window: the values it has used at or
//! above `q`) is equal at two columns `qs >= max(q1, 1)` and `qs + K`, `K` a
//! multiple of `L` ([`Below::admits`]). The states are compared at batch
//! boundaries: every live row keeps a snapshot that is renewed at doubling
//! distances (Brent's method), so a cycle is found whatever its length.

mod checkpoint;
pub mod driver;
pub mod job;
mod moves;
mod offsets;
pub mod one_file;
pub mod rank_files;
mod snapshot;
pub mod trace;
mod tracker;

use crate::base::bytes::narrow;
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::f::engine::ranks::{self, Owners, Ranks, Solo};
use crate::f::engine::{Block, CHUNK_ROWS, Engine, State};
use crate::f::facts::ColumnFacts;
use crate::f::proof::{Below, Fate, RowStatus};
pub use checkpoint::CheckpointError;
use snapshot::StateAt;
use tracker::{BlockSeen, Tracker};

/// The state every row has under [`Weaken::ignore_state`].
const EMPTY: State = State {
    lead: 0,
    bits: Vec::new(),
};

/// Default columns between state comparisons: a multiple of every period 1..=10,
/// so that a repetition's length `K` is mostly a multiple of the period `L` below
/// (when it is not, the states are compared again at `lcm(K, L)`).
pub const BATCH_COLS: u32 = 2520;

/// Rows settle near column `sqrt(2) r` (README, `plots/census.png`).
pub(crate) const SETTLE_SLOPE: f64 = std::f64::consts::SQRT_2;

/// The peak memory of a census of rows `0 ..= rows` in one process, by the
/// fit to measured runs in doc/scaling.md ("The windows as a chain"): `2.3 GiB
/// (R / 10^6)^1.05`, above every peak measured (29 MB at `3*10^4`, 83 MB at
/// `10^5`, 2.06 GiB at `10^6` in a run continued from its checkpoint, whose
/// load is the peak). An estimate, used to refuse a census that this machine
/// cannot hold before it starts.
pub(crate) fn memory_estimate(rows: u32) -> u64 {
    let gib = 2.3 * (f64::from(rows.max(1)) / 1e6).powf(1.05);
    // A float past u64 saturates in `as` (and is never negative here): the
    // estimate of a census past counting is u64::MAX.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let bytes = (gib * (1u64 << 30) as f64) as u64;
    bytes
}

/// The peak memory of `here` ranks of a census of rows `0 ..= rows` on one
/// machine, at most: the rows' state of [`memory_estimate`] once (the runs
/// of chunks are cut by work, not by memory, and the rank of the oldest rows,
/// with the longest histories, can hold nearly all of it: doc/scaling.md,
/// "Memory per rank"), plus for each rank what every rank holds whatever
/// their number, by the fit to measured ranks there: 22.3 MiB and, for its
/// one thread at least, `737 R` bytes (the replicated rows' state and a
/// block of columns over every row). Used to refuse a rank, or the ranks of
/// one machine, that it cannot hold before they start, as in one process.
pub(crate) fn rank_memory_estimate(rows: u32, here: u32) -> u64 {
    // 22.3 MiB, in whole bytes.
    let every_rank = 23_383_244 + 737 * u64::from(rows);
    memory_estimate(rows).saturating_add(every_rank.saturating_mul(u64::from(here.max(1))))
}

/// Default column limit for a census of rows `0 ..= rows`: `3 R` plus four
/// batches, far past where rows settle.
pub fn default_max_columns(rows: u32) -> u32 {
    rows.saturating_mul(3).saturating_add(4 * BATCH_COLS)
}

/// A fair guess of the columns a census of rows `0 ..= rows` computes (for a
/// progress bar): where the last row settles, plus two batches.
pub fn expected_columns(rows: u32) -> u64 {
    // A positive guess far below 2^64 (rows < 2^32): no bits to lose.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let settle = (f64::from(rows) * SETTLE_SLOPE) as u64;
    settle + 2 * u64::from(BATCH_COLS)
}

mod hooks {
    /// Test hooks (feature `test-hooks`): a deliberately wrong state
    /// comparison, to show the tests can fail; and the engine's other way
    /// of keeping windows, which must give the same census.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct Weaken {
        /// Compare empty states (drops every value from the state).
        pub ignore_state: bool,
        /// Flip every block's windows value by value, as wide windows are,
        /// instead of copying the narrow ones whole (`engine/chain.rs`).
        pub wide_windows: bool,
    }
}
#[cfg(not(feature = "test-hooks"))]
use hooks::Weaken;
#[cfg(feature = "test-hooks")]
pub use hooks::Weaken;

/// The result of a census.
#[derive(Clone, Debug)]
pub struct Census {
    /// Rows `0 ..= R`: each one's proved fate, `None` if open.
    pub rows: Vec<Option<RowStatus>>,
    /// Rows whose proved fate holds from its `start`, but whose least start lies
    /// before the offsets were recorded (`start` is an upper bound). None so far.
    pub start_bounds: Vec<u32>,
    /// Columns computed.
    pub columns: u32,
    /// What columns `0 ..= min(R, columns - 1)` say, with every settled row's
    /// true minimum (`u32::MAX` for a row not settled).
    pub facts: ColumnFacts,
}

/// What the census counts in columns `0 ..= R` as it computes them (on one of
/// several ranks, the columns whose diagonal row is its own; the ranks' scans
/// are merged at the end).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Scan {
    /// `f(q,q)` (0 where another rank holds row `q`, and so column `q`).
    pub(crate) diagonal: Vec<u32>,
    /// Cells with `q <= f(q,r) = v <= R`, by `v`.
    pub(crate) p_count: Vec<u32>,
    /// The largest `f(q,r)`, `r < q`, in column `q`.
    pub(crate) largest_below: Vec<u32>,
}

impl Scan {
    fn new(rows: u32) -> Scan {
        Scan {
            diagonal: vec![0; rows as usize + 1],
            p_count: vec![0; rows as usize + 1],
            largest_below: vec![0; rows as usize + 1],
        }
    }

    /// Adds column `q <= R` from its diagonal value `f(q,q)` and the values
    /// `>= q` its rows took, `taken` (one per row alive there). The same
    /// counts as a look at every row's value: a dead row's value is below `q`, so it is never a P-position count's
    /// `v >= q`, and never the column's largest below the diagonal, since
    /// row 0 never dies (`f(q,0) = q + 1 >= q`: two-row Chomp's P-positions
    /// are `[q+1, q]`), so for `q >= 1` a value `>= q` lies below the diagonal.
    fn add_taken(&mut self, q: u32, diagonal: u32, taken: impl Iterator<Item = u32>) {
        let top = narrow::<u32, _>(self.p_count.len()) - 1;
        self.diagonal[q as usize] = diagonal;
        let mut largest_below = 0;
        for v in taken {
            if v != diagonal {
                largest_below = v;
            }
            if v <= top {
                self.p_count[v as usize] += 1;
            }
        }
        assert!(q == 0 || largest_below >= q, "row 0 is alive at column {q}");
        let l = &mut self.largest_below[q as usize];
        *l = (*l).max(largest_below);
    }

    fn merge(&mut self, other: &Scan) {
        for (a, b) in self.diagonal.iter_mut().zip(&other.diagonal) {
            *a = (*a).max(*b);
        }
        for (a, b) in self.p_count.iter_mut().zip(&other.p_count) {
            *a += b;
        }
        for (a, b) in self.largest_below.iter_mut().zip(&other.largest_below) {
            *a = (*a).max(*b);
        }
    }

    /// The first column `q <= n` whose largest value is not `f(q,q)`.
    fn not_max(&self, n: u32) -> Option<u32> {
        (0..=n).find(|&q| self.largest_below[q as usize] > self.diagonal[q as usize])
    }
}

/// The rows of `ranges` inside `from .. to`, in order.
fn clipped(ranges: &[Range<u32>], from: u32, to: u32) -> impl Iterator<Item = u32> + '_ {
    ranges
        .iter()
        .flat_map(move |r| r.start.max(from)..r.end.min(to))
}

/// What a census computes: its last row, its column limit, and the columns
/// between state comparisons (at most [`BATCH_COLS`]). A checkpoint belongs to
/// one set of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// The last row: the census settles rows `0 ..= last_row`.
    pub last_row: u32,
    /// Stop after this many columns.
    pub max_columns: u32,
    /// Columns between state comparisons.
    pub batch: u32,
}

/// A census under way: its whole state, which [`Run::save`] writes and
/// [`Run::load`] reads back, so that it continues to the same results.
pub struct Run {
    params: Params,
    engine: Engine,
    trackers: Vec<Tracker>,
    settled: Vec<Option<RowStatus>>,
    start_bounds: Vec<u32>,
    /// True minima of the settled rows.
    minima: Vec<u32>,
    /// One scan per worker thread (merged when saved or finished).
    scans: Vec<Mutex<Scan>>,
    below: Below,
    /// Rows `0 .. settled_below` are settled; `settled_below` is the first
    /// unsettled row.
    settled_below: u32,
    /// The ranks sharing this census (one unless it runs on several processes).
    ranks: Arc<dyn Ranks>,
    /// Test hook (feature `test-hooks`); never set otherwise.
    weaken: Weaken,
    /// The records of a traced run ([`Run::trace`]); `None`: untraced.
    trace: Option<trace::Trace>,
}

impl Run {
    /// A census before column 0.
    pub fn new(params: Params) -> Run {
        Run::shared(params, Arc::new(Solo))
    }

    /// A census before column 0, on one of the ranks `ranks` (every rank makes
    /// one and steps it in lockstep; rank 0 gets the result), its chunks cut
    /// into equal runs, one a rank, until the work of a batch's first part
    /// says where to cut them (`moves.rs`).
    pub fn shared(params: Params, ranks: Arc<dyn Ranks>) -> Run {
        let chunks = params.last_row / CHUNK_ROWS + 1;
        let owners = Owners::balanced(ranks.size(), ranks.rank(), &[], chunks);
        Run::owned(params, ranks, owners)
    }

    /// A census before column 0 on one of `ranks`, its chunks dealt `turn` at
    /// a time (as the censuses whose checkpoints are of format 6 and before
    /// dealt them) until the end of a batch's first part cuts them into runs.
    pub fn dealt(params: Params, ranks: Arc<dyn Ranks>, turn: u32) -> Run {
        let chunks = params.last_row / CHUNK_ROWS + 1;
        let owners = Owners::dealt(ranks.size(), ranks.rank(), turn, chunks);
        Run::owned(params, ranks, owners)
    }

    /// A census before column 0 on one of `ranks`, its chunks owned as
    /// `owners` say until the end of a batch's first part.
    fn owned(params: Params, ranks: Arc<dyn Ranks>, owners: Owners) -> Run {
        assert_eq!(
            (owners.size(), owners.rank()),
            (ranks.size(), ranks.rank()),
            "owners for this rank"
        );
        assert!(
            (1..=BATCH_COLS).contains(&params.batch),
            "batch of 1 ..= {BATCH_COLS} columns"
        );
        let rows = params.last_row;
        let mut engine = Engine::with_row_limit(rows);
        assert!(engine.set_owners(owners), "a new engine holds no rows");
        Run {
            params,
            engine,
            trackers: (0..=rows).map(|_| Tracker::new()).collect(),
            settled: vec![None; rows as usize + 1],
            start_bounds: Vec::new(),
            minima: vec![u32::MAX; rows as usize + 1],
            scans: vec![Mutex::new(Scan::new(rows))],
            below: Below::none(),
            settled_below: 0,
            ranks,
            weaken: Weaken::default(),
            trace: None,
        }
    }

    /// The ranks sharing this census.
    pub fn ranks(&self) -> &dyn Ranks {
        &*self.ranks
    }

    /// The ranks sharing this census, to keep past the run.
    pub(crate) fn shared_ranks(&self) -> Arc<dyn Ranks> {
        self.ranks.clone()
    }

    /// Whether this rank owns row `r`.
    fn owns(&self, r: u32) -> bool {
        self.engine.owners().mine(r / CHUNK_ROWS)
    }

    /// Who owns which chunk of rows now.
    pub fn owners(&self) -> &Owners {
        self.engine.owners()
    }

    /// The parameters.
    pub fn params(&self) -> Params {
        self.params
    }

    /// Columns computed so far.
    pub fn columns(&self) -> u32 {
        self.engine.columns()
    }

    /// Rows settled so far (`0 .. settled_rows()`).
    pub fn settled_rows(&self) -> u32 {
        self.settled_below
    }

    /// Whether there is nothing left to do: every row settled, or the column
    /// limit reached.
    pub fn done(&self) -> bool {
        self.settled_below > self.params.last_row
            || self.engine.columns() >= self.params.max_columns
    }

    /// From the next batch on, records the work of each batch, block and
    /// chunk of rows ([`trace`]), to be written by [`Run::save_trace`].
    pub fn trace(&mut self) {
        if self.trace.is_none() {
            self.trace = Some(trace::Trace::new());
            self.engine.trace();
        }
    }

    /// Writes the records of a traced run to `path` (aside, then renamed):
    /// the batches this run computed. `threads`: the pool's.
    pub fn save_trace(&self, path: &Path, threads: usize) -> std::io::Result<()> {
        let Some(t) = &self.trace else {
            return Ok(());
        };
        let header = [
            self.ranks.rank(),
            self.ranks.size(),
            narrow::<u32, _>(threads),
            self.params.last_row,
            self.params.batch,
        ];
        t.save(path, header)
    }

    /// Brings the traffic of the last batch traced up to now (the drive's
    /// decisions after the batch are messages too).
    pub(crate) fn trace_traffic(&mut self) {
        let traffic = self.ranks.sent();
        if let Some(b) = self.trace.as_mut().and_then(|t| t.batches.last_mut()) {
            b.sent_bytes = traffic.bytes;
            b.messages = traffic.messages;
            b.waited_ns = traffic.waited_ns;
        }
    }

    /// Computes one batch of columns, compares states, and settles rows in order.
    pub fn step(&mut self, pool: &rayon::ThreadPool) {
        if let Some(t) = &mut self.trace {
            t.lap();
        }
        let weaken = self.weaken;
        let rows = self.params.last_row;
        while self.scans.len() < pool.current_num_threads() {
            self.scans.push(Mutex::new(Scan::new(rows)));
        }
        let cols = self
            .params
            .batch
            .min(self.params.max_columns - self.engine.columns());
        // The batch in parts, the chunks moved between them (`moves.rs`).
        let part = moves::part(cols, self.ranks.size());
        let mut done = 0;
        while done < cols {
            let now = part.min(cols - done);
            advance(
                &mut self.engine,
                &mut self.trackers,
                &self.scans,
                self.settled_below,
                now,
                pool,
                &*self.ranks,
            );
            done += now;
            if done < cols {
                self.rebalance();
            }
        }
        let advance = self.trace.as_mut().map_or([0; 2], trace::Trace::lap);
        let q = self.engine.columns();
        // Speculative cycle search on every live row old enough to have settled,
        // and the comparisons due at this column.
        let mut last = None;
        let mut live = self.engine.rows();
        for r in self.settled_below..=rows.min(q - 1) {
            if !self.engine.owners().mine(r / CHUNK_ROWS) {
                continue;
            }
            let t = &mut self.trackers[r as usize];
            let row = live.get(r);
            let state: Option<&dyn StateAt> = match &row {
                Some(_) if weaken.ignore_state => Some(&EMPTY),
                Some(row) => Some(row),
                None => None,
            };
            if let Some(state) = state
                && t.searching()
                && tracker::settling(r, q)
            {
                t.step(q, state, &mut last);
            }
            // Every repetition is confirmed at a multiple of the period below as
            // far as it is known, in parallel; the first unsettled row then rarely waits.
            t.schedule(q, self.below.period);
            if t.verify_at == Some(q) {
                t.verify(q, state);
            }
        }
        drop(live);
        let trackers = self.trace.as_mut().map_or([0; 2], trace::Trace::lap);
        let settle_links = self.settle(q);
        if let Some(t) = &mut self.trace {
            let settle = t.lap();
            let times = [advance, trackers, settle];
            self.record_batch(q - cols, cols, times, settle_links);
        }
        self.rebalance();
    }

    /// Adds the batch of columns `q0 .. q0 + cols` to the trace.
    fn record_batch(&mut self, q0: u32, cols: u32, times: [[u64; 2]; 3], links: u32) {
        let [
            [advance_ns, consume_ns],
            [_, trackers_ns],
            [settle_wall_ns, settle_ns],
        ] = times;
        let (mut chunks, mut blocks) = self.engine.take_trace();
        chunks.sort_unstable_by_key(|c| (c.q0, c.chunk));
        blocks.sort_unstable_by_key(|b| b.q0);
        let traffic = self.ranks.sent();
        let settled = self.settled_below;
        let Some(t) = &mut self.trace else { return };
        t.batches.push(trace::BatchWork {
            q0,
            cols,
            advance_ns,
            consume_ns,
            trackers_ns,
            settle_ns,
            settle_wall_ns,
            settle_links: links,
            settled,
            sent_bytes: traffic.bytes,
            messages: traffic.messages,
            waited_ns: traffic.waited_ns,
            rss_kib: trace::rss_kib(),
            peak_kib: crate::base::memory::peak_rss_kib().unwrap_or(0),
            blocks,
            chunks,
        });
        // The records' own time is the next batch's.
        t.lap();
    }

    /// The chain: settles rows in order while the hypotheses hold. The rank that
    /// owns the first unsettled row's chunk settles what it can there and announces it to every
    /// rank; the chain goes on in the next chunk while it is not stopped. The
    /// chunks it visited.
    fn settle(&mut self, q: u32) -> u32 {
        let mut links = 0;
        while self.settled_below <= self.params.last_row {
            links += 1;
            let root = self.engine.owners().of(self.settled_below / CHUNK_ROWS);
            let mut news = Vec::new();
            if root == self.ranks.rank() {
                self.settle_chunk(q, &mut news);
            }
            if self.ranks.size() > 1 {
                news = ranks::broadcast(&*self.ranks, root, news);
            }
            if !self.take_news(&news) {
                break;
            }
        }
        links
    }

    /// Settles rows of the first unsettled row's chunk (this rank's) in order while the data
    /// allows; writes them, as [`Run::take_news`] reads them, to `news`.
    fn settle_chunk(&mut self, q: u32, news: &mut Vec<u8>) {
        let end =
            ((self.settled_below / CHUNK_ROWS + 1) * CHUNK_ROWS).min(self.params.last_row + 1);
        let mut below = self.below;
        let mut settled = Vec::new();
        let mut r = self.settled_below;
        while r < end {
            let Some(s) = self.trackers[r as usize].settle(r, q, &below) else {
                break;
            };
            if let Fate::Periodic { start, pattern } = &s.status.fate {
                self.engine.set_periodic(r, *start, pattern.clone());
            }
            below.add(&s.status.fate);
            settled.push((s, self.trackers[r as usize].min_value));
            self.trackers[r as usize] = Tracker::default();
            r += 1;
        }
        news.push((r == end) as u8);
        news.extend(narrow::<u32, _>(settled.len()).to_le_bytes());
        for (s, min_value) in settled {
            news.push(s.exact_start as u8);
            news.extend(min_value.to_le_bytes());
            checkpoint::save_status(news, &s.status).expect("writes to memory");
        }
    }

    /// Takes in the rows a [`Run::settle_chunk`] settled; whether the chain goes
    /// on past them.
    fn take_news(&mut self, mut news: &[u8]) -> bool {
        let read = |news: &mut &[u8], n: usize| {
            let (a, b) = news.split_at(n);
            *news = b;
            a.to_vec()
        };
        let go_on = read(&mut news, 1)[0] == 1;
        let count = u32::from_le_bytes(read(&mut news, 4).try_into().unwrap());
        for _ in 0..count {
            let r = self.settled_below;
            let exact_start = read(&mut news, 1)[0] == 1;
            let min_value = u32::from_le_bytes(read(&mut news, 4).try_into().unwrap());
            let status = checkpoint::load_status(&mut news).expect("a whole announcement");
            if !exact_start {
                self.start_bounds.push(r);
            }
            self.below.add(&status.fate);
            self.minima[r as usize] = min_value;
            self.settled[r as usize] = Some(status);
            self.settled_below += 1;
        }
        go_on
    }

    /// All the scans in one.
    fn merged_scan(&self) -> Scan {
        let mut scan = Scan::new(self.params.last_row);
        for s in &self.scans {
            scan.merge(&s.lock().unwrap());
        }
        scan
    }

    /// The result (what is not settled by now is open), on rank 0; `None` on
    /// the other ranks (every rank calls it: the ranks' scans meet on rank 0).
    pub fn finish(self) -> Option<Census> {
        let columns = self.engine.columns();
        let mut scan = self.merged_scan();
        if self.ranks.size() > 1 {
            let mut bytes = Vec::new();
            checkpoint::save_scan(&mut bytes, &scan).expect("writes to memory");
            let all = ranks::gather(&*self.ranks, bytes)?;
            for theirs in &all[1..] {
                let theirs = checkpoint::load_scan(&mut theirs.as_slice(), self.params.last_row)
                    .expect("a whole scan");
                scan.merge(&theirs);
            }
        }
        let facts = facts(
            self.params.last_row,
            columns,
            &self.settled,
            &self.minima,
            scan,
        );
        Some(Census {
            rows: self.settled,
            start_bounds: self.start_bounds,
            columns,
            facts,
        })
    }
}

impl Census {
    /// Writes `census.tsv` (`tsv`, after a line naming `command`) and the
    /// descriptor file as a set: both aside, then both renamed into place, so
    /// a failed write leaves the old pair as it was.
    pub fn write(
        &self,
        command: &str,
        tsv: &Path,
        descriptors: &Path,
    ) -> Result<(), driver::DriverError> {
        let (rows, bounds) = (&self.rows, &self.start_bounds);
        let mut set = crate::base::atomic_write::FileSet::new();
        crate::f::census_file::write_tsv(&mut set, rows, bounds, self.columns, command, tsv)
            .and_then(|()| {
                crate::f::census_file::write_descriptors(
                    &mut set,
                    rows,
                    bounds,
                    &self.facts,
                    self.columns,
                    descriptors,
                )
            })
            .and_then(|()| set.commit())
            .map_err(driver::DriverError::Results)
    }
}

/// Census of rows `0 ..= params.last_row` from the start, with no checkpoints.
/// `progress(column, rows settled)` after each batch.
pub fn census(
    params: Params,
    pool: &rayon::ThreadPool,
    progress: &mut dyn FnMut(u32, u32),
) -> Census {
    census_of(Run::new(params), pool, progress)
}

/// [`census`] with a test hook set (feature `test-hooks`).
#[cfg(feature = "test-hooks")]
pub fn census_weakened(
    params: Params,
    pool: &rayon::ThreadPool,
    weaken: Weaken,
    progress: &mut dyn FnMut(u32, u32),
) -> Census {
    let mut run = Run::new(params);
    run.weaken = weaken;
    if weaken.wide_windows {
        run.engine.set_narrow_words(0);
    }
    census_of(run, pool, progress)
}

/// [`census`] of a run made.
fn census_of(run: Run, pool: &rayon::ThreadPool, progress: &mut dyn FnMut(u32, u32)) -> Census {
    let d = driver::Drive {
        pool,
        stop: &crate::base::stop::Stop::new(),
        every: std::time::Duration::MAX,
        checkpoints: &driver::Nowhere,
        trace: None,
    };
    match driver::drive(run, d, &mut |b| progress(b.columns, b.settled)) {
        Ok(driver::Ended::Finished {
            census: Some(c), ..
        }) => c,
        _ => unreachable!("a census in one process, never stopped, finishes"),
    }
}

/// The facts of columns `0 ..= min(R, columns - 1)` from the scan, the settled
/// rows' starts and the rows' minima.
fn facts(
    rows: u32,
    columns: u32,
    settled: &[Option<RowStatus>],
    minima: &[u32],
    scan: Scan,
) -> ColumnFacts {
    let n = rows.min(columns.saturating_sub(1));
    let mut starts: Vec<(u32, u32)> = settled
        .iter()
        .enumerate()
        .filter_map(|(r, s)| match s.as_ref()?.fate {
            Fate::Constant { start } if start <= n => Some((start, narrow::<u32, _>(r))),
            _ => None,
        })
        .collect();
    starts.sort_unstable();
    let keep = n as usize + 1;
    ColumnFacts {
        n,
        diagonal: scan.diagonal[..keep].to_vec(),
        starts,
        p_count: scan.p_count[..keep].iter().map(|&c| c as u64).collect(),
        value_count: Vec::new(),
        row_min: minima[..keep].to_vec(),
        row_min_complete: true,
        diagonal_not_max: scan.not_max(n),
    }
}

/// Computes `cols` more columns, scans those up to column `R` (on the worker
/// threads, one scan each), and records this rank's rows `settled_below ..` in
/// their trackers (only those: the rows below are settled).
fn advance(
    engine: &mut Engine,
    trackers: &mut [Tracker],
    scans: &[Mutex<Scan>],
    settled_below: u32,
    cols: u32,
    pool: &rayon::ThreadPool,
    ranks: &dyn Ranks,
) {
    let rows = narrow::<u32, _>(trackers.len()) - 1;
    // The rows below the first unsettled one (dead or periodic) are of no use
    // here: the scan of columns up to R reads the values each column took.
    engine.report_from(settled_below);
    // A dead row's tracker takes nothing more (`Tracker::take`): its values
    // are not gathered.
    let gathered: Vec<bool> = trackers[settled_below as usize..]
        .iter()
        .map(|t| t.dead.is_none())
        .collect();
    engine.advance_shared(
        cols,
        pool,
        ranks,
        |b: &Block| {
            let owned: Vec<Range<u32>> = b.owned_rows().collect();
            if b.first <= rows {
                let i = rayon::current_thread_index().unwrap_or(0) % scans.len();
                let mut scan = scans[i].lock().unwrap();
                for j in 0..b.cols.min(rows + 1 - b.first) {
                    // Column q's rows are rows 0 ..= q, so the rank that
                    // computed row q holds every value of the column
                    // (`Block::taken`): that rank, and only it, adds it.
                    let q = b.first + j;
                    if b.owns(q) {
                        scan.add_taken(q, b.value(q, q), b.taken(j));
                    }
                }
            }
            // What the trackers need of each unsettled row, gathered
            // here (column by column, in memory order) so that only a few words
            // a row wait for the calling thread.
            let lo = b.first_row();
            let last = lo + narrow::<u32, _>(b.column(b.cols - 1).len());
            let rows: Vec<u32> = clipped(&owned, settled_below, last)
                .filter(|&r| gathered[(r - settled_below) as usize])
                .collect();
            BlockSeen::gather(&rows, b.first, b.cols, |q, r| b.value(q, r))
        },
        |seen| seen.hand_to(trackers),
    );
}
