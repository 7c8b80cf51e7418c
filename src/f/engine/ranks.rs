//! Rows shared among processes ("ranks", as in MPI): each chunk of
//! [`CHUNK_ROWS`](super::CHUNK_ROWS) rows has an owner ([`Owners`]). A census
//! gives each rank a run of chunks in order, each run as near an equal share of
//! the work as whole chunks allow ([`Owners::balanced`]), and moves chunks
//! between ranks as the work moves up the rows; inside a block the column sets
//! go up the ranks in order, crossing once at each rank's edge. This module owns
//! the interface the engine and the census talk through, the few collective
//! operations they need (built from point-to-point messages), and two in-process
//! implementations: `Solo` (one rank, no messages) and [`Local`] (`P` ranks as
//! threads of one process, for tests). The MPI implementation is `cluster`.

use crate::base::bytes::narrow;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// Message tags from this one on are the collectives'; lower tags are column
/// blocks (block `b` of an `advance` call travels with tag `b`). MPI promises
/// tags up to 32767.
pub(crate) const CONTROL_TAG: u32 = 1 << 14;

/// One rank's view of the others: its place, and ordered messages to and from
/// any rank. Messages between two ranks with one tag arrive in the order sent
/// (MPI's non-overtaking rule); `receive` blocks until the message is there.
pub trait Ranks: Send + Sync {
    /// Number of ranks `P`.
    fn size(&self) -> u32;
    /// This rank, `0 .. P`.
    fn rank(&self) -> u32;
    /// Sends `bytes` to rank `to`.
    fn send(&self, to: u32, tag: u32, bytes: &[u8]);
    /// The next message from rank `from` with `tag`.
    fn receive(&self, from: u32, tag: u32) -> Vec<u8>;
    /// Bytes and messages this rank has sent so far.
    fn sent(&self) -> Traffic;
    /// Ranks of the job on this rank's machine, this one included (they
    /// share its memory): 1 unless the ranks know better.
    fn on_this_machine(&self) -> u32 {
        1
    }
}

/// Who owns which chunk of rows: an owner for each chunk, and this rank.
/// Chunks past the end of the list are the last rank's (the rows born
/// later belong to the top of the chain). Cheap to clone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owners {
    /// Number of ranks `P`.
    size: u32,
    /// This rank.
    rank: u32,
    /// The owner of chunk `c`, for the chunks listed.
    map: Arc<[u32]>,
}

impl Owners {
    /// The only rank, owning every chunk.
    pub fn solo() -> Owners {
        Owners::from_map(1, 0, Vec::new())
    }

    /// Chunk `c` on rank `map[c]` (past the list: rank `size - 1`); this is
    /// rank `rank`. Every owner must be below `size`.
    pub fn from_map(size: u32, rank: u32, map: Vec<u32>) -> Owners {
        assert!(rank < size, "rank {rank} of {size}");
        assert!(map.iter().all(|&o| o < size), "an owner past the ranks");
        Owners {
            size,
            rank,
            map: map.into(),
        }
    }

    /// The `chunks` chunks dealt `turn >= 1` at a time: chunk `c` on rank
    /// `(c / turn) % size` (as censuses whose checkpoints are of format 6
    /// or before dealt them).
    pub fn dealt(size: u32, rank: u32, turn: u32, chunks: u32) -> Owners {
        assert!(turn >= 1, "a turn of at least one chunk");
        Owners::from_map(size, rank, (0..chunks).map(|c| (c / turn) % size).collect())
    }

    /// The `chunks` chunks cut into `size` runs, in order, each as near as
    /// whole chunks allow to an equal share of `cost` (a chunk's cost, 0
    /// past the list): chunk `c` goes to the rank `k` whose share, from
    /// `k / size` to `(k + 1) / size` of the whole, holds the chunk's middle
    /// (the costs before it and half its own). With nothing to share, the
    /// chunks in equal runs.
    pub fn balanced(size: u32, rank: u32, cost: &[u64], chunks: u32) -> Owners {
        let cost = |c: u32| cost.get(c as usize).copied().unwrap_or(0);
        let total: u128 = (0..chunks).map(|c| u128::from(cost(c))).sum();
        let mut map = Vec::with_capacity(chunks as usize);
        let mut before = 0u128;
        for c in 0..chunks {
            let owner = if total == 0 {
                u64::from(c) * u64::from(size) / u64::from(chunks)
            } else {
                // The chunk goes to the rank whose share holds its middle.
                let middle = 2 * before + u128::from(cost(c));
                let k = middle * u128::from(size) / (2 * total);
                u64::try_from(k).unwrap_or(u64::MAX)
            };
            map.push(narrow::<u32, _>(owner.min(u64::from(size - 1))));
            before += u128::from(cost(c));
        }
        Owners::from_map(size, rank, map)
    }

    /// Number of ranks `P`.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// This rank.
    pub fn rank(&self) -> u32 {
        self.rank
    }

    /// The rank that owns chunk `chunk`.
    pub fn of(&self, chunk: u32) -> u32 {
        self.map
            .get(chunk as usize)
            .copied()
            .unwrap_or(self.size - 1)
    }

    /// Whether this rank owns chunk `chunk`.
    pub fn mine(&self, chunk: u32) -> bool {
        self.of(chunk) == self.rank
    }

    /// The owners of chunks `0 .. chunks`.
    pub fn list(&self, chunks: u32) -> Vec<u32> {
        (0..chunks).map(|c| self.of(c)).collect()
    }
}

/// What a rank has sent, and how long its threads waited for hand-offs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Payload bytes.
    pub bytes: u64,
    /// Messages.
    pub messages: u64,
    /// Nanoseconds this rank's threads spent waiting for the column sets of
    /// a block (receives of a block's tag), summed over the threads.
    pub waited_ns: u64,
}

/// Counts a rank's traffic (for the implementations).
#[derive(Debug, Default)]
pub(crate) struct TrafficCounter {
    bytes: AtomicU64,
    messages: AtomicU64,
    waited_ns: AtomicU64,
}

impl TrafficCounter {
    /// Counts one message of `bytes` bytes.
    pub fn add(&self, bytes: usize) {
        self.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        self.messages.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts the wait of a receive with `tag` that began at `since`, if it
    /// is a block's hand-off (the collectives' waits are not counted).
    pub fn waited(&self, tag: u32, since: std::time::Instant) {
        if tag < CONTROL_TAG {
            let ns = u64::try_from(since.elapsed().as_nanos()).unwrap_or(u64::MAX);
            self.waited_ns.fetch_add(ns, Ordering::Relaxed);
        }
    }

    /// The totals so far.
    pub fn get(&self) -> Traffic {
        Traffic {
            bytes: self.bytes.load(Ordering::Relaxed),
            messages: self.messages.load(Ordering::Relaxed),
            waited_ns: self.waited_ns.load(Ordering::Relaxed),
        }
    }
}

/// `bytes` from rank `root` on every rank (the root passes its own).
pub(crate) fn broadcast(ranks: &dyn Ranks, root: u32, bytes: Vec<u8>) -> Vec<u8> {
    if ranks.rank() != root {
        return ranks.receive(root, CONTROL_TAG);
    }
    for to in (0..ranks.size()).filter(|&to| to != root) {
        ranks.send(to, CONTROL_TAG, &bytes);
    }
    bytes
}

/// Every rank's `bytes`, in rank order, on rank 0 (`None` elsewhere).
pub fn gather(ranks: &dyn Ranks, bytes: Vec<u8>) -> Option<Vec<Vec<u8>>> {
    if ranks.rank() != 0 {
        ranks.send(0, CONTROL_TAG, &bytes);
        return None;
    }
    let mut all = vec![bytes];
    all.extend((1..ranks.size()).map(|from| ranks.receive(from, CONTROL_TAG)));
    Some(all)
}

/// Whether `flag` holds on any rank (on every rank).
pub fn any(ranks: &dyn Ranks, flag: bool) -> bool {
    let gathered = gather(ranks, vec![flag as u8]);
    let answer = gathered.is_some_and(|all| all.iter().any(|b| b == &[1]));
    broadcast(ranks, 0, vec![answer as u8]) == [1]
}

/// The only rank: owns every chunk and never sends.
#[derive(Debug, Default)]
pub(crate) struct Solo;

impl Ranks for Solo {
    fn size(&self) -> u32 {
        1
    }
    fn rank(&self) -> u32 {
        0
    }
    fn send(&self, to: u32, _: u32, _: &[u8]) {
        panic!("a single rank sends nothing (to rank {to})");
    }
    fn receive(&self, from: u32, _: u32) -> Vec<u8> {
        panic!("a single rank receives nothing (from rank {from})");
    }
    fn sent(&self) -> Traffic {
        Traffic::default()
    }
}

/// `(from, to, tag)`.
type Address = (u32, u32, u32);

/// Mailboxes shared by the ranks of one process: each address's messages not
/// yet received.
#[derive(Default)]
struct Post {
    boxes: Mutex<HashMap<Address, VecDeque<Vec<u8>>>>,
    arrived: Condvar,
}

/// `P` ranks inside one process (run each on its own thread), talking through
/// shared mailboxes: the same protocol as MPI, without MPI.
pub struct Local {
    size: u32,
    rank: u32,
    post: Arc<Post>,
    traffic: TrafficCounter,
}

impl Local {
    /// The ranks `0 .. size` of one group.
    pub fn group(size: u32) -> Vec<Local> {
        assert!(size >= 1, "at least one rank");
        let post = Arc::new(Post::default());
        (0..size)
            .map(|rank| Local {
                size,
                rank,
                post: post.clone(),
                traffic: TrafficCounter::default(),
            })
            .collect()
    }
}

impl Ranks for Local {
    fn size(&self) -> u32 {
        self.size
    }
    fn rank(&self) -> u32 {
        self.rank
    }
    fn send(&self, to: u32, tag: u32, bytes: &[u8]) {
        assert!(to < self.size && to != self.rank, "send to rank {to}");
        self.traffic.add(bytes.len());
        let mut boxes = self.post.boxes.lock().unwrap();
        boxes
            .entry((self.rank, to, tag))
            .or_default()
            .push_back(bytes.to_vec());
        self.post.arrived.notify_all();
    }
    fn receive(&self, from: u32, tag: u32) -> Vec<u8> {
        let key = (from, self.rank, tag);
        let since = std::time::Instant::now();
        let mut boxes = self.post.boxes.lock().unwrap();
        loop {
            if let Some(m) = boxes.get_mut(&key).and_then(|q| q.pop_front()) {
                self.traffic.waited(tag, since);
                return m;
            }
            boxes = self.post.arrived.wait(boxes).unwrap();
        }
    }
    fn sent(&self) -> Traffic {
        self.traffic.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_owners_are_runs_in_order_each_near_an_equal_share() {
        // A small xorshift generator: test data only.
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for size in [1, 2, 3, 4, 8] {
            for chunks in [1, 2, 5, 49, 200] {
                for spread in [0, 1, 10, 1_000_000] {
                    let cost: Vec<u64> = (0..chunks).map(|_| next() % (spread + 1)).collect();
                    let owners = Owners::balanced(size, 0, &cost, chunks);
                    let map = owners.list(chunks);
                    assert!(map.windows(2).all(|w| w[0] <= w[1]), "in order: {map:?}");
                    assert!(map.iter().all(|&o| o < size));
                    let total: u64 = cost.iter().sum();
                    let most = cost.iter().copied().max().unwrap_or(0);
                    for k in 0..size {
                        let share: u64 = (0..chunks as usize)
                            .filter(|&c| map[c] == k)
                            .map(|c| cost[c])
                            .sum();
                        // A rank's share is off an equal one by less than a
                        // chunk at either end.
                        let fair = total / u64::from(size);
                        assert!(
                            share <= fair + 2 * most + 1,
                            "{size} {chunks} {k}: {share} of {total}"
                        );
                        if total == 0 {
                            let runs = narrow::<u32, _>(map.iter().filter(|&&o| o == k).count());
                            assert!(runs.abs_diff(chunks / size) <= 1, "{map:?}");
                        }
                    }
                    // Chunks past the list are the last rank's.
                    assert_eq!(owners.of(chunks), size - 1);
                }
            }
        }
        // The work of one chunk goes to the rank whose share holds it.
        let owners = Owners::balanced(2, 1, &[1, 1, 10, 1, 1], 5);
        assert_eq!(owners.list(5), [0, 0, 1, 1, 1]);
        assert!(owners.mine(3) && !owners.mine(0));
    }

    #[test]
    fn dealt_owners_take_turns() {
        let owners = Owners::dealt(3, 2, 2, 14);
        assert_eq!(owners.list(14), [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0, 0]);
        assert!(owners.mine(4) && owners.mine(5) && !owners.mine(6));
        assert_eq!(Owners::solo().of(1_000_000), 0);
    }

    #[test]
    fn waits_for_a_blocks_hand_off_are_counted_and_the_collectives_are_not() {
        let group = Local::group(2);
        let (a, b) = (&group[0], &group[1]);
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(60));
                a.send(1, 3, b"block");
                std::thread::sleep(std::time::Duration::from_millis(60));
                a.send(1, CONTROL_TAG, b"control");
            });
            assert_eq!(b.receive(0, 3), b"block");
            let after_block = b.sent().waited_ns;
            assert!(after_block >= 50_000_000, "{after_block} ns");
            assert_eq!(b.receive(0, CONTROL_TAG), b"control");
            assert_eq!(b.sent().waited_ns, after_block);
        });
        assert_eq!(a.sent().waited_ns, 0);
        assert_eq!(a.sent().messages, 2);
    }
}
