//! A census's trace (`census --trace`, format in doc/scaling.md, "The
//! simulator"): per batch of columns, the times of its parts, this rank's
//! traffic and memory so far; per block, the caller's work on it; per chunk
//! and block, the engine's records (`engine::trace`). Owns the records of a
//! run and the text file they are written to (aside, then renamed, as every
//! output). `benches/census_sim.py` reads it.

use std::io::{self, Write};
use std::path::Path;
use std::time::Instant;

use crate::f::engine::trace::{BlockWork, ChunkWork, thread_cpu_ns};
use crate::f::engine::{BLOCK_COLS, CHUNK_ROWS};

/// The first line of a trace (the file's kind, `outputs::Kind::CensusTrace`).
pub const TITLE: &str = "# chomp3 census trace, format 2";

/// One batch of columns on this rank.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct BatchWork {
    /// The batch's first column.
    pub q0: u32,
    /// Its columns.
    pub cols: u32,
    /// Wall nanoseconds of the engine's work on its blocks (every block done).
    pub advance_ns: u64,
    /// CPU nanoseconds of the calling thread meanwhile (it takes in the
    /// blocks' observations of the rows, beside the pool's threads).
    pub consume_ns: u64,
    /// CPU nanoseconds of the rows' state comparisons after it (on the
    /// calling thread).
    pub trackers_ns: u64,
    /// CPU nanoseconds of the settle chain (with its announcements), and its
    /// wall nanoseconds.
    pub settle_ns: u64,
    /// See `settle_ns`.
    pub settle_wall_ns: u64,
    /// Links of the settle chain (chunks it visited, one announcement each
    /// when there are several ranks).
    pub settle_links: u32,
    /// Rows `0 .. settled` settled after it.
    pub settled: u32,
    /// Bytes and messages this rank sent so far, and nanoseconds its
    /// threads waited for hand-offs so far (summed over threads).
    pub sent_bytes: u64,
    /// See `sent_bytes`.
    pub messages: u64,
    /// See `sent_bytes`.
    pub waited_ns: u64,
    /// This process's resident memory after it, and its peak so far, KiB.
    pub rss_kib: u64,
    /// See `rss_kib`.
    pub peak_kib: u64,
    /// The blocks' records, in column order.
    pub blocks: Vec<BlockWork>,
    /// The chunks' records, by block and chunk.
    pub chunks: Vec<ChunkWork>,
}

/// The records of a traced run, with what the file's header says.
#[derive(Debug)]
pub(crate) struct Trace {
    /// Batches recorded so far.
    pub batches: Vec<BatchWork>,
    /// When the last part of a batch ended, on the wall clock and on the
    /// calling thread's CPU clock.
    clock: (Instant, u64),
}

impl Trace {
    /// An empty trace.
    pub fn new() -> Trace {
        Trace {
            batches: Vec::new(),
            clock: (Instant::now(), thread_cpu_ns()),
        }
    }

    /// Wall and CPU nanoseconds (of the calling thread) since the clocks
    /// were last read; the clocks reset.
    pub fn lap(&mut self) -> [u64; 2] {
        let now = (Instant::now(), thread_cpu_ns());
        let wall = now.0.duration_since(self.clock.0).as_nanos();
        let cpu = now.1.saturating_sub(self.clock.1);
        self.clock = now;
        [u64::try_from(wall).unwrap_or(u64::MAX), cpu]
    }

    /// Writes the trace as text (see the module's doc). `header`: rank, ranks,
    /// threads, last row, batch columns.
    pub fn write(&self, w: &mut impl Write, header: [u32; 5]) -> io::Result<()> {
        let [rank, ranks, threads, rows, batch] = header;
        writeln!(w, "{TITLE}")?;
        writeln!(
            w,
            "# H rank ranks threads rows batch_cols block_cols chunk_rows"
        )?;
        writeln!(
            w,
            "# B q0 cols advance_ns consume_ns trackers_ns settle_ns settle_wall_ns settle_links settled sent_bytes messages waited_ns rss_kib peak_kib"
        )?;
        writeln!(w, "# K q0 thread cpu_ns")?;
        writeln!(
            w,
            "# C q0 cols chunk rows cpu_ns from received to sent edge_bytes"
        )?;
        writeln!(
            w,
            "H\t{rank}\t{ranks}\t{threads}\t{rows}\t{batch}\t{BLOCK_COLS}\t{CHUNK_ROWS}"
        )?;
        let rank_or_dash = |x: Option<(u32, u64)>| match x {
            Some((k, bytes)) => format!("{k}\t{bytes}"),
            None => "-\t0".to_string(),
        };
        for b in &self.batches {
            writeln!(
                w,
                "B\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                b.q0,
                b.cols,
                b.advance_ns,
                b.consume_ns,
                b.trackers_ns,
                b.settle_ns,
                b.settle_wall_ns,
                b.settle_links,
                b.settled,
                b.sent_bytes,
                b.messages,
                b.waited_ns,
                b.rss_kib,
                b.peak_kib
            )?;
            for k in &b.blocks {
                writeln!(w, "K\t{}\t{}\t{}", k.q0, k.thread, k.cpu_ns)?;
            }
            for c in &b.chunks {
                writeln!(
                    w,
                    "C\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                    c.q0,
                    c.cols,
                    c.chunk,
                    c.rows,
                    c.cpu_ns,
                    rank_or_dash(c.received),
                    rank_or_dash(c.sent),
                    c.edge_bytes
                )?;
            }
        }
        Ok(())
    }

    /// Writes the trace to `path` (aside, synced, renamed).
    pub fn save(&self, path: &Path, header: [u32; 5]) -> io::Result<()> {
        crate::base::atomic_write::write_atomically(path, |w| self.write(w, header))
    }
}

/// This process's resident memory now, KiB (`VmRSS`), 0 where it cannot be read.
pub(crate) fn rss_kib() -> u64 {
    let read = || -> Option<u64> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    read().unwrap_or(0)
}
