//! Rows shared among processes ("ranks", as in MPI): chunk `c` of
//! [`CHUNK_ROWS`](super::CHUNK_ROWS) rows belongs to rank `c % P`, so that every
//! rank keeps rows (and work) as the band of live rows moves up. This module owns
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
}

/// What a rank has sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Payload bytes.
    pub bytes: u64,
    /// Messages.
    pub messages: u64,
}

/// Counts a rank's traffic (for the implementations).
#[derive(Debug, Default)]
pub(crate) struct TrafficCounter {
    bytes: AtomicU64,
    messages: AtomicU64,
}

impl TrafficCounter {
    /// Counts one message of `bytes` bytes.
    pub fn add(&self, bytes: usize) {
        self.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
        self.messages.fetch_add(1, Ordering::Relaxed);
    }

    /// The totals so far.
    pub fn get(&self) -> Traffic {
        Traffic {
            bytes: self.bytes.load(Ordering::Relaxed),
            messages: self.messages.load(Ordering::Relaxed),
        }
    }
}

/// The rank that owns chunk `chunk` among `size` ranks.
pub fn owner(chunk: u32, size: u32) -> u32 {
    chunk % size
}

/// Whether this rank owns chunk `chunk`.
pub(crate) fn owns(ranks: &dyn Ranks, chunk: u32) -> bool {
    owner(chunk, ranks.size()) == ranks.rank()
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
        let mut boxes = self.post.boxes.lock().unwrap();
        loop {
            if let Some(m) = boxes.get_mut(&key).and_then(|q| q.pop_front()) {
                return m;
            }
            boxes = self.post.arrived.wait(boxes).unwrap();
        }
    }
    fn sent(&self) -> Traffic {
        self.traffic.get()
    }
}
