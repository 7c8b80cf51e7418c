//! Rows shared among processes ("ranks", as in MPI): the chunks of
//! [`CHUNK_ROWS`](super::CHUNK_ROWS) rows are dealt out `t` at a time (chunk `c`
//! belongs to rank `(c / t) % P`, [`Owners`]), so that every rank keeps rows (and
//! work) as the band of live rows moves up, and a block's column sets cross
//! from rank to rank only every `t` chunks ([`turn`]). This module owns
//! the interface the engine and the census talk through, the few collective
//! operations they need (built from point-to-point messages), and two in-process
//! implementations: `Solo` (one rank, no messages) and [`Local`] (`P` ranks as
//! threads of one process, for tests). The MPI implementation is `cluster`.

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
    /// Chunks dealt to a rank at a time (see [`Owners`]): 1 unless wrapped
    /// in [`Turns`].
    fn turn(&self) -> u32 {
        1
    }
    /// Who owns which chunk.
    fn owners(&self) -> Owners {
        Owners {
            size: self.size(),
            rank: self.rank(),
            turn: self.turn(),
        }
    }
}

/// Who owns which chunk: chunk `c` belongs to rank `(c / turn) % size`, and
/// this is rank `rank`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Owners {
    /// Number of ranks `P`.
    pub size: u32,
    /// This rank.
    pub rank: u32,
    /// Chunks dealt to a rank at a time.
    pub turn: u32,
}

impl Owners {
    /// The rank that owns chunk `chunk`.
    pub fn of(&self, chunk: u32) -> u32 {
        (chunk / self.turn) % self.size
    }

    /// Whether this rank owns chunk `chunk`.
    pub fn mine(&self, chunk: u32) -> bool {
        self.of(chunk) == self.rank
    }
}

/// Chunks of rows each rank takes at a time in a census of the rows
/// `0 ..= last_row` on `size` ranks. Inside a block, the column sets go up
/// the chunks and cross to another rank at each change of owner, carrying
/// about a bit per row below (doc/scaling.md): with one chunk at a time every
/// chunk's edge is a crossing, and the bytes sent grow like `R^3` for every
/// `P`. Dealt `t` at a time, a block crosses `1/t` as often. The turn is the
/// shortest that deals the chunks in at most [`TURNS_PER_RANK`] turns per
/// rank, so that the rows born late in the census, and the young rows that
/// cost most, are still shared out among the ranks.
pub fn turn(last_row: u32, size: u32) -> u32 {
    let chunks = last_row / super::CHUNK_ROWS + 1;
    chunks.div_ceil(size.saturating_mul(TURNS_PER_RANK).max(1))
}

/// Turns each rank takes over the rows: see [`turn`].
pub const TURNS_PER_RANK: u32 = 2;

/// Ranks that take their chunks [`Ranks::turn`] at a time; messages go
/// through the ranks wrapped.
pub struct Turns {
    inner: Arc<dyn Ranks>,
    turn: u32,
}

impl Turns {
    /// `inner`, dealt `turn >= 1` chunks at a time.
    pub fn new(inner: Arc<dyn Ranks>, turn: u32) -> Turns {
        assert!(turn >= 1, "a turn of at least one chunk");
        Turns { inner, turn }
    }
}

impl Ranks for Turns {
    fn size(&self) -> u32 {
        self.inner.size()
    }
    fn rank(&self) -> u32 {
        self.inner.rank()
    }
    fn send(&self, to: u32, tag: u32, bytes: &[u8]) {
        self.inner.send(to, tag, bytes);
    }
    fn receive(&self, from: u32, tag: u32) -> Vec<u8> {
        self.inner.receive(from, tag)
    }
    fn sent(&self) -> Traffic {
        self.inner.sent()
    }
    fn on_this_machine(&self) -> u32 {
        self.inner.on_this_machine()
    }
    fn turn(&self) -> u32 {
        self.turn
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
    fn every_rank_gets_its_turns_over_the_rows() {
        let rows = [0, 1023, 1024, 7167, 50_000, 1_000_000, 10_000_000, u32::MAX];
        for last_row in rows {
            let chunks = u64::from(last_row / super::super::CHUNK_ROWS + 1);
            for size in [1, 2, 3, 8, 64, 1024, u32::MAX] {
                let t = turn(last_row, size);
                assert!(t >= 1, "{last_row} {size}");
                let turns = |t: u32| chunks.div_ceil(u64::from(t));
                let wanted = u64::from(size) * u64::from(TURNS_PER_RANK);
                // At most the turns wanted, with the shortest turn that
                // does it (a chunk less would need more turns).
                assert!(turns(t) <= wanted, "{last_row} rows, {size} ranks, {t}");
                assert!(t == 1 || turns(t - 1) > wanted, "{last_row} {size} {t}");
                let owners = Owners {
                    size,
                    rank: 0,
                    turn: t,
                };
                for c in [0, 1, t - 1, t, u32::MAX] {
                    assert_eq!(owners.of(c), (c / t) % size);
                }
            }
        }
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
