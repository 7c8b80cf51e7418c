//! Chunks of rows moving between ranks between two `advance` calls: who owns
//! which chunk ([`Owners`]), what each chunk cost this rank of late, and a
//! chunk written out by the rank that gives it and read in by the rank that
//! takes it. The caller (the census) decides the new owners and carries the
//! bytes; the engine only gives and takes.
//!
//! A chunk travels as the engine's checkpoint writes it (`checkpoint.rs`):
//! every row's state at the engine's column, which is all its future depends
//! on, so the rank that takes it goes on exactly as the giver would have.
//! While rows are still to be born in it or in the chunk after it, the
//! giver's diagonal values from the column's word on go with it: the first
//! row of a chunk, born at column `r`, starts from the values `f(a,a) >= r`
//! of the rows below (`chain.rs`), and the rank that made the last row so
//! far holds them all (its own rows', and those handed to it with the column
//! sets where rows were born). So the chunk's new owner holds them too, and
//! hands them on to the owner of the next chunk as the giver would have;
//! without them, a chunk moved whole at the column where the next chunk
//! begins would leave that chunk's first row a diagonal short of values.

use std::io;
use std::sync::Mutex;

use super::checkpoint::{load_chunk, save_chunk};
use super::{CHUNK_ROWS, Deltas, Engine, Owners};
use crate::base::bytes::damaged;
use crate::base::bytes::stream::{get64, get64s, put64, put64s};

impl Engine {
    /// Who owns which chunk of rows ([`Owners::solo`] in one process).
    pub(crate) fn owners(&self) -> &Owners {
        &self.owners
    }

    /// Takes `owners` for an engine that holds no row of a chunk they give
    /// another rank (one made new, or loaded from this rank's checkpoint);
    /// `false`, and nothing changed, if it does.
    pub(crate) fn set_owners(&mut self, owners: Owners) -> bool {
        let others = (0..self.chunks_created()).any(|c| !owners.mine(c) && self.chunk_len(c) > 0);
        if !others {
            self.owners = owners;
            self.edges = super::handoff::Edges::default();
        }
        !others
    }

    /// Each chunk's CPU time on this rank, in nanoseconds, over the last
    /// blocks of the last `advance` (a few, so that the figures say what the
    /// next blocks will cost); 0 for the chunks it did not compute.
    pub(crate) fn take_work(&mut self) -> Vec<u64> {
        std::mem::take(self.work.get_mut().unwrap())
    }

    /// Chunk `c`, which this rank owns, written for the rank that takes it
    /// ([`Engine::take_chunk`]) with the diagonal values where rows are still
    /// to be born in it or the next chunk (the module's comment), and dropped
    /// here.
    pub(crate) fn give_chunk(&mut self, c: u32) -> Vec<u8> {
        let q = self.columns;
        let births = self.births_ahead(c);
        let chunk = std::mem::take(self.chunks[c as usize].get_mut().unwrap());
        let mut bytes = Vec::new();
        save_chunk(&mut bytes, &chunk, c, q, &mut Deltas::default()).expect("writes to memory");
        if births {
            let diagonal = self.diagonal.get_mut().unwrap();
            let words = diagonal.get(q as usize / 64..).unwrap_or(&[]);
            put64(&mut bytes, words.len() as u64).expect("writes to memory");
            put64s(&mut bytes, words).expect("writes to memory");
        }
        bytes
    }

    /// Takes in chunk `c` as another rank gave it ([`Engine::give_chunk`]),
    /// at the same column. A message that does not read as one is an error
    /// (the ranks run one program: a fault of the sender, or damage).
    pub(crate) fn take_chunk(&mut self, c: u32, mut bytes: &[u8]) -> io::Result<()> {
        let q = self.columns;
        let rows_end = q.min(self.row_limit.saturating_add(1));
        while self.chunks.len() <= c as usize {
            self.chunks.push(Mutex::new(super::Chunk::default()));
        }
        let rd: &mut dyn io::Read = &mut bytes;
        let chunk = load_chunk(rd, c, q, rows_end, &mut Deltas::default())?;
        *self.chunks[c as usize].get_mut().unwrap() = chunk;
        if self.births_ahead(c) {
            let n = crate::base::bytes::usize_of(get64(rd)?);
            let words = get64s(rd, n)?;
            let diagonal = self.diagonal.get_mut().unwrap();
            let base = q as usize / 64;
            if diagonal.len() < base + n {
                diagonal.resize(base + n, 0);
            }
            for (d, w) in diagonal[base..].iter_mut().zip(words) {
                *d |= w;
            }
        }
        if !bytes.is_empty() {
            return Err(damaged("a chunk given with bytes after its end"));
        }
        Ok(())
    }

    /// Takes `owners` once every chunk whose owner they change has been
    /// given and taken.
    pub(crate) fn moved_to(&mut self, owners: Owners) {
        debug_assert!(
            (0..self.chunks_created()).all(|c| owners.mine(c) || self.chunk_len(c) == 0),
            "a chunk of another rank left here"
        );
        self.owners = owners;
    }

    /// Whether rows are still to be born, from the engine's column on, in
    /// chunk `c` or in the chunk after it.
    fn births_ahead(&self, c: u32) -> bool {
        let top = c
            .saturating_add(2)
            .saturating_mul(CHUNK_ROWS)
            .min(self.row_limit.saturating_add(1));
        self.columns < top
    }
}
