//! Rows moving between the ranks of a census at the end of a batch: the new
//! owners, decided on rank 0 from what each chunk of rows cost in the last
//! blocks ([`Owners::balanced`]: each rank a run of chunks in order, near an
//! equal share), and each chunk that changes hands carried with its rows'
//! trackers. Uses the engine's moves and the tracker's checkpoint layout.
//!
//! Inside a block the column sets go up the ranks in the order of their
//! chunks, so with each rank a single run of chunks a block crosses each
//! rank's edge once, and a rank works on its next block while the ranks above
//! finish the one before: a pipeline, as fast as its slowest rank. The work
//! moves up the rows as the columns go on (the young rows, which cost most,
//! are those above about `q / sqrt 2`), so the runs are cut again at every
//! batch's end. Where the rows are computed changes no value: every cell
//! depends only on its row's state and the rows below it in its column, and a
//! chunk travels as its rows' states, which are all their future depends on.

use super::Run;
use super::checkpoint::{load_tracker, save_tracker};
use super::tracker::Tracker;
use crate::base::bytes::narrow;
use crate::base::bytes::stream::{get64, put64};
use crate::f::engine::ranks::{self, CONTROL_TAG, Owners};
use crate::f::engine::{BLOCK_COLS, CHUNK_ROWS, Deltas};

/// The columns of each part of a batch of `cols` columns on `size` ranks
/// (whole blocks; the last part takes what is left, and a part may be
/// longer than the batch): the chunks are cut into runs again after each
/// part. Each cut empties the pipeline, which then fills again over
/// `size - 1` blocks of its ranks, so the batch is cut into no more parts
/// than leave each about `20 (size - 1)` blocks, a twentieth spent filling:
/// two parts of a batch of 2520 columns (20 and 19.4 blocks) on two ranks,
/// one on more (where a batch's end empties the pipeline anyway). On two ranks of one
/// thread at `R = 5*10^4` (doc/scaling.md) two parts took 19.6 s where one
/// took 20.8 s (means of three alternated runs), four parts 19.9 s.
pub(super) fn part(cols: u32, size: u32) -> u32 {
    if size < 2 {
        return cols;
    }
    let blocks = cols.div_ceil(BLOCK_COLS);
    let parts = (blocks / (20 * (size - 1))).max(1);
    blocks.div_ceil(parts) * BLOCK_COLS
}

/// The tag of a chunk carried to its new owner (the collectives' tags are
/// [`CONTROL_TAG`] and up).
const MOVE_TAG: u32 = CONTROL_TAG + 1;

impl Run {
    /// Cuts the chunks into runs again by the work of the last blocks of the
    /// part of a batch just computed, and moves those that change hands
    /// (every rank calls it at the same column).
    pub(super) fn rebalance(&mut self) {
        let work = self.engine.take_work();
        if self.ranks.size() < 2 {
            return;
        }
        let chunks = self.params.last_row / CHUNK_ROWS + 1;
        let mut mine = Vec::with_capacity(8 * chunks as usize);
        for c in 0..chunks as usize {
            put64(&mut mine, work.get(c).copied().unwrap_or(0)).expect("writes to memory");
        }
        let size = self.ranks.size();
        let decided = ranks::gather(&*self.ranks, mine).map(|all| {
            let mut total = vec![0u64; chunks as usize];
            for bytes in all {
                let mut read = bytes.as_slice();
                for t in &mut total {
                    *t = t.saturating_add(get64(&mut read).expect("a whole list of times"));
                }
            }
            let owners = Owners::balanced(size, 0, &total, chunks).list(chunks);
            owners.iter().flat_map(|o| o.to_le_bytes()).collect()
        });
        let list = ranks::broadcast(&*self.ranks, 0, decided.unwrap_or_default());
        let map = list
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("four bytes")))
            .collect();
        self.move_to(Owners::from_map(size, self.ranks.rank(), map));
    }

    /// Gives away the chunks `to` gives another rank and takes in those it
    /// gives this one, each with the trackers of its rows not yet settled.
    pub(super) fn move_to(&mut self, to: Owners) {
        let from = self.engine.owners().clone();
        let made = self.engine.chunks_created();
        for c in (0..made).filter(|&c| from.mine(c) && !to.mine(c)) {
            let chunk = self.engine.give_chunk(c);
            let mut bytes = Vec::with_capacity(chunk.len() + 1024);
            put64(&mut bytes, chunk.len() as u64).expect("writes to memory");
            bytes.extend(chunk);
            let mut snapshots = Deltas::default();
            for r in self.tracked(c) {
                let t = std::mem::replace(&mut self.trackers[r as usize], Tracker::new());
                save_tracker(&mut bytes, &t, &mut snapshots).expect("writes to memory");
            }
            self.ranks.send(to.of(c), MOVE_TAG, &bytes);
        }
        for c in (0..made).filter(|&c| to.mine(c) && !from.mine(c)) {
            let bytes = self.ranks.receive(from.of(c), MOVE_TAG);
            let mut read = bytes.as_slice();
            let len = get64(&mut read).expect("a chunk's length");
            let (chunk, mut read) = read.split_at(narrow::<usize, _>(len));
            self.engine
                .take_chunk(c, chunk)
                .expect("a chunk as its rank gave it");
            let (mut snapshots, mut last) = (Deltas::default(), None);
            for r in self.tracked(c) {
                self.trackers[r as usize] = load_tracker(&mut read, r, &mut snapshots, &mut last)
                    .expect("the trackers of a chunk as its rank gave them");
            }
            assert!(read.is_empty(), "a chunk given with bytes after its end");
        }
        self.engine.moved_to(to);
    }

    /// The rows of chunk `c` whose trackers are in use: those of the census
    /// not yet settled.
    fn tracked(&self, c: u32) -> std::ops::Range<u32> {
        let lo = c.saturating_mul(CHUNK_ROWS).max(self.settled_below);
        let hi = (c.saturating_add(1).saturating_mul(CHUNK_ROWS)).min(self.params.last_row + 1);
        lo..hi.max(lo)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use crate::f::census::{Params, Run, census};
    use crate::f::engine::ranks::{Local, Ranks};
    use std::sync::Arc;

    /// A census on `size` ranks (threads of this process, one pool thread
    /// each), each rank's run made by `make` and stepped to its end: rank
    /// 0's rows.
    pub(in crate::f::census) fn on_ranks(
        size: u32,
        make: &(dyn Fn(Arc<dyn Ranks>) -> Run + Sync),
    ) -> Vec<Option<crate::f::proof::RowStatus>> {
        std::thread::scope(|s| {
            let handles: Vec<_> = Local::group(size)
                .into_iter()
                .map(|rank| {
                    s.spawn(move || {
                        let pool = rayon::ThreadPoolBuilder::new()
                            .num_threads(1)
                            .build()
                            .unwrap();
                        let mut run = make(Arc::new(rank));
                        while !run.done() {
                            run.step(&pool);
                        }
                        run.finish().map(|c| c.rows)
                    })
                })
                .collect();
            let mut rows: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
            rows.swap_remove(0).unwrap()
        })
    }

    #[test]
    fn chunks_moved_where_a_chunk_begins_give_the_census_of_one_process() {
        // Batches of 1024 and 2048 columns cut the runs where the next
        // chunk's first row is born: its diagonal values must have moved
        // with the chunk below.
        for batch in [1024, 2048] {
            let params = Params {
                last_row: 3500,
                max_columns: 20_000,
                batch,
            };
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .build()
                .unwrap();
            let one = census(params, &pool, &mut |_, _| {}).rows;
            for size in [2, 3] {
                let rows = on_ranks(size, &|ranks| Run::shared(params, ranks));
                assert!(rows == one, "batch {batch}, {size} ranks");
            }
        }
    }

    #[test]
    fn a_batch_is_cut_in_parts_of_whole_blocks_only_on_two_ranks() {
        assert_eq!(super::part(2520, 1), 2520);
        assert_eq!(super::part(2520, 2), 20 * 64);
        assert_eq!(super::part(2520, 3), 40 * 64);
        assert_eq!(super::part(2520, 64), 40 * 64);
        assert_eq!(super::part(360, 2), 6 * 64);
        assert_eq!(super::part(7, 2), 64);
    }
}
