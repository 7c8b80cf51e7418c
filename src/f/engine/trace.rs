//! What a traced engine records of each block of columns (doc/scaling.md,
//! "The simulator"): per chunk of rows, the CPU time of its work and the
//! hand-offs it received and sent; per block, the CPU time of the caller's
//! work on the finished block. Owns the records and the thread clock they are
//! timed with; the engine fills them only when a trace was asked for, so an
//! untraced census spends nothing here.

use std::sync::Mutex;

/// One chunk's work in one block of columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkWork {
    /// The block's first column.
    pub q0: u32,
    /// The block's columns.
    pub cols: u32,
    /// The chunk (rows `chunk * CHUNK_ROWS ..`).
    pub chunk: u32,
    /// Rows of the chunk that exist in the block.
    pub rows: u32,
    /// CPU nanoseconds of the thread, from the hand-off's arrival (or the
    /// end of the wait for the block before) to the end of the work and of
    /// the send: the waits are not in it.
    pub cpu_ns: u64,
    /// The rank the chunk's hand-off came from, and its bytes (`None`: the
    /// chunk below is this rank's, or there is none).
    pub received: Option<(u32, u64)>,
    /// The rank the hand-off went to, and its bytes (`None`: the chunk above
    /// is this rank's, or there is none).
    pub sent: Option<(u32, u64)>,
    /// Bytes of the hand-off to the chunk above, had it been another rank's
    /// (0 for the block's top chunk): what a census with other owners sends
    /// at this edge.
    pub edge_bytes: u64,
}

/// The caller's work on one finished block (the census's scan and the rows'
/// observations), on the thread that computed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockWork {
    /// The block's first column.
    pub q0: u32,
    /// The thread of the pool (`0 .. threads`) that computed the block.
    pub thread: u32,
    /// CPU nanoseconds of that work.
    pub cpu_ns: u64,
}

/// The records of a traced engine, filled by its threads.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    chunks: Mutex<Vec<ChunkWork>>,
    blocks: Mutex<Vec<BlockWork>>,
}

impl Recorder {
    /// Adds one block's records (taken from the thread's own list).
    pub(crate) fn add(&self, chunks: &mut Vec<ChunkWork>, block: BlockWork) {
        self.chunks.lock().unwrap().append(chunks);
        self.blocks.lock().unwrap().push(block);
    }

    /// The records so far, in the order the blocks finished; the recorder is
    /// left empty.
    pub(crate) fn take(&mut self) -> (Vec<ChunkWork>, Vec<BlockWork>) {
        (
            std::mem::take(self.chunks.get_mut().unwrap()),
            std::mem::take(self.blocks.get_mut().unwrap()),
        )
    }
}

/// CPU nanoseconds this thread has run (`CLOCK_THREAD_CPUTIME_ID`; on other
/// systems, the time since a fixed instant).
pub fn thread_cpu_ns() -> u64 {
    #[cfg(target_os = "linux")]
    {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid timespec for the call to fill.
        let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
        if ok {
            let secs = u64::try_from(t.tv_sec).unwrap_or(0);
            let nanos = u64::try_from(t.tv_nsec).unwrap_or(0);
            return secs * 1_000_000_000 + nanos;
        }
    }
    let since = START.get_or_init(std::time::Instant::now).elapsed();
    u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)
}

/// The fixed instant of [`thread_cpu_ns`] where no thread clock is read.
static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
