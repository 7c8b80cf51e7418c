//! What one rank hands the next inside a block of columns (`Engine::advance_shared`):
//! the column sets of the rows below the edge, and the diagonal where rows
//! are born above it. Owns the message's layout and the sets each side keeps
//! per edge, so that a message carries only the words that changed since the
//! block before.
//!
//! # Why the changes are few, and why they are exact
//!
//! Column `q`'s set below an edge `lo` holds `f(q,r)` for the rows `r < lo`.
//! Once those rows have settled, `f(q,r) - q` repeats with short periods, and
//! the set seen from `q` is nearly the set of column `q - 64` seen from
//! `q - 64`: at `R = 5000` with the edges at a quarter, half and three
//! quarters of the rows, sending the words in which the two differ took 0.19
//! of the bytes of the sets themselves (0.08 at the lowest edge, 0.29 at the
//! highest, where rows are young).
//!
//! A block's sets start at word `q0 / 64` (value `64 * (q0 / 64)`). For the
//! block before, at `q0 - 64`, they start at word `q0 / 64 - 1`: word `i` of
//! its column `j` covers the values of word `i` of this block's column `j`,
//! less 64, the values of a column 64 before. So the sender xors its column
//! `j` with the same column of the block before, word by word, the words
//! past the shorter of the two taken as zero, and sends the words that are
//! not zero; the receiver, which took in the block before at this edge,
//! xors them back. Nothing is assumed of the values: the xor is an exact
//! description of the words whatever they hold, and it is short only when
//! the sets repeat. A message says which it is (the sets whole, or the
//! changes from the block starting at `q0 - 64`); a block with no such block
//! before at its edge (the first, the first after a start or a checkpoint,
//! or after a block of fewer columns) sends its sets whole.

use std::collections::HashMap;
use std::sync::Mutex;

use super::{CHUNK_ROWS, Engine, Place};
use crate::base::bytes::narrow;
use crate::base::bytes::stream::{get32, get64};

/// A message of the sets whole.
const WHOLE: u8 = 0;
/// A message of the changes since the block before.
const CHANGES: u8 = 1;
/// A column's changes sent as every word of its xor (when that is shorter
/// than a list of its words that are not zero).
const DENSE: u32 = u32::MAX;

/// One block's sets at one edge: `cols` columns of `words` words each.
struct Sets {
    q0: u32,
    cols: u32,
    words: usize,
    sets: Vec<u64>,
}

/// The sets last sent and last taken in at each edge, by the edge's row and
/// the rank on its other side, kept between blocks and between calls of
/// `advance_shared`. When chunks move between ranks, an edge that keeps its
/// row and its two ranks keeps its reference on both sides; any other edge
/// starts with its sets whole.
#[derive(Default)]
pub(super) struct Edges {
    sent: Mutex<HashMap<(u32, u32), Sets>>,
    taken: Mutex<HashMap<(u32, u32), Sets>>,
}

impl Engine {
    /// The message to the chunk starting at row `lo`, on rank `to`: each column's set of
    /// values, as far as rows `< lo` reach (`f(q,r) <= q + r + 1`), whole or as
    /// its changes since the block before (the module's comment); and, when
    /// rows are born in that chunk, the diagonal bitset from word `q0 / 64`
    /// on. The sets are kept as the next block's reference.
    pub(super) fn handoff(
        &self,
        at: Place,
        (lo, to): (u32, u32),
        rows_end: u32,
        used_words: usize,
        used: &[u64],
    ) -> Vec<u8> {
        let w = handoff_words(at, lo, used_words);
        let cols = at.q_end - at.q0;
        let mut kept = Vec::with_capacity(cols as usize * w);
        for column in used.chunks_exact(used_words) {
            kept.extend_from_slice(&column[..w]);
        }
        let mut sent = self.edges.sent.lock().unwrap();
        let before = sent
            .get(&(lo, to))
            .filter(|s| s.cols == cols && s.q0.checked_add(64) == Some(at.q0));
        let mut bytes = Vec::with_capacity(kept.len() * 8 + 16);
        match before {
            None => {
                bytes.push(WHOLE);
                bytes.extend(kept.iter().flat_map(|x| x.to_le_bytes()));
            }
            Some(before) => {
                bytes.push(CHANGES);
                for (now, then) in kept
                    .chunks_exact(w)
                    .zip(before.sets.chunks_exact(before.words))
                {
                    let xor = |i: usize| now[i] ^ then.get(i).copied().unwrap_or(0);
                    let changed = (0..w).filter(|&i| xor(i) != 0).count();
                    // A listed word costs 12 bytes, a dense one 8.
                    if changed * 12 >= w * 8 {
                        bytes.extend(DENSE.to_le_bytes());
                        bytes.extend((0..w).flat_map(|i| xor(i).to_le_bytes()));
                    } else {
                        bytes.extend(narrow::<u32, _>(changed).to_le_bytes());
                        for i in (0..w).filter(|&i| xor(i) != 0) {
                            bytes.extend(narrow::<u32, _>(i).to_le_bytes());
                            bytes.extend(xor(i).to_le_bytes());
                        }
                    }
                }
            }
        }
        sent.insert(
            (lo, to),
            Sets {
                q0: at.q0,
                cols,
                words: w,
                sets: kept,
            },
        );
        drop(sent);
        if births(at, lo, rows_end) {
            let diagonal = self.diagonal.lock().unwrap();
            let words = diagonal.get(at.q0 as usize / 64..).unwrap_or(&[]);
            bytes.extend(words.iter().flat_map(|x| x.to_le_bytes()));
        }
        bytes
    }

    /// Takes in a [`Engine::handoff`] for the chunk starting at row `lo`,
    /// from rank `from`.
    pub(super) fn take_handoff(
        &self,
        at: Place,
        (lo, from): (u32, u32),
        rows_end: u32,
        used_words: usize,
        used: &mut [u64],
        message: &[u8],
    ) {
        let w = handoff_words(at, lo, used_words);
        let cols = at.q_end - at.q0;
        let (&kind, mut read) = message
            .split_first()
            .expect("a hand-off too short for its block");
        let mut taken = self.edges.taken.lock().unwrap();
        let mut sets = vec![0u64; cols as usize * w];
        match kind {
            WHOLE => {
                for x in &mut sets {
                    *x = u64_of(&mut read);
                }
            }
            CHANGES => {
                let before = taken
                    .get(&(lo, from))
                    .filter(|s| s.cols == cols && s.q0.checked_add(64) == Some(at.q0))
                    .expect("changes against the block before, which this rank took in");
                for (now, then) in sets
                    .chunks_exact_mut(w)
                    .zip(before.sets.chunks_exact(before.words))
                {
                    let n = now.len().min(then.len());
                    now[..n].copy_from_slice(&then[..n]);
                    match u32_of(&mut read) {
                        DENSE => now.iter_mut().for_each(|x| *x ^= u64_of(&mut read)),
                        listed => {
                            for _ in 0..listed {
                                let i = u32_of(&mut read) as usize;
                                now[i] ^= u64_of(&mut read);
                            }
                        }
                    }
                }
            }
            _ => panic!("a hand-off of unknown kind {kind}"),
        }
        for (column, set) in used.chunks_exact_mut(used_words).zip(sets.chunks_exact(w)) {
            column[..w].copy_from_slice(set);
        }
        taken.insert(
            (lo, from),
            Sets {
                q0: at.q0,
                cols,
                words: w,
                sets,
            },
        );
        drop(taken);
        if births(at, lo, rows_end) {
            let extra = read;
            let mut diagonal = self.diagonal.lock().unwrap();
            let base = at.q0 as usize / 64;
            let n = extra.len() / 8;
            if diagonal.len() < base + n {
                diagonal.resize(base + n, 0);
            }
            for (d, b) in diagonal[base..].iter_mut().zip(extra.chunks_exact(8)) {
                *d |= u64::from_le_bytes(b.try_into().unwrap());
            }
        }
    }
}

/// The next `u32` and `u64` of a message; a message shorter than its layout
/// is a fault of the sender (the ranks run one program), so it panics.
fn u32_of(read: &mut &[u8]) -> u32 {
    get32(read).expect("a hand-off too short for its block")
}

fn u64_of(read: &mut &[u8]) -> u64 {
    get64(read).expect("a hand-off too short for its block")
}

/// Words of each column set that rows `< lo` can have set in the block: their
/// values are at most `q + r + 1 < q_end + lo`.
fn handoff_words(at: Place, lo: u32, used_words: usize) -> usize {
    (((at.q_end + lo) / 64 - at.q0 / 64) as usize + 1).min(used_words)
}

/// Whether rows are born in the block in the chunk starting at row `lo`.
fn births(at: Place, lo: u32, rows_end: u32) -> bool {
    lo.max(at.q0) < (lo + CHUNK_ROWS).min(rows_end)
}

#[cfg(test)]
// Test data: small numbers made by the test itself.
#[allow(clippy::cast_possible_truncation)]
mod tests {
    use super::*;

    /// A small xorshift generator: test data only.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// Column sets of a block at `q0 .. q_end`, `words` words a column from
    /// word `q0 / 64`: value `v` of column `q` is in when `v - q` is in
    /// `offsets`, except for the values `noise` flips at random, and every
    /// word of the columns in `random` is at random.
    fn sets(
        at: Place,
        words: usize,
        offsets: &[u32],
        noise: u32,
        random: &[u32],
        rng: &mut u64,
    ) -> Vec<u64> {
        let base = 64 * (at.q0 / 64);
        let mut used = vec![0u64; (at.q_end - at.q0) as usize * words];
        for (j, column) in used.chunks_exact_mut(words).enumerate() {
            let q = at.q0 + j as u32;
            if random.contains(&(j as u32)) {
                column.iter_mut().for_each(|x| *x = next(rng));
                continue;
            }
            let mut flip = |v: u32| {
                if let Some(i) = v.checked_sub(base)
                    && let Some(x) = column.get_mut((i / 64) as usize)
                {
                    *x ^= 1 << (i % 64);
                }
            };
            offsets.iter().for_each(|&d| flip(q + d));
            for _ in 0..noise {
                flip(base + (next(rng) % (64 * words as u64)) as u32);
            }
        }
        used
    }

    #[test]
    fn the_rank_above_takes_in_exactly_the_sets_sent_whole_or_as_changes() {
        let (below, above) = (Engine::new(), Engine::new());
        let mut rng = 0x9e37_79b9_7f4a_7c15;
        let lo = 3 * CHUNK_ROWS;
        // No rows born above the edge: the message is the sets alone.
        let rows_end = lo + 1;
        let offsets: Vec<u32> = (0..lo)
            .filter(|_| !next(&mut rng).is_multiple_of(3))
            .collect();
        let mut q0 = 5000;
        let mut kinds = Vec::new();
        for block in 0..12u32 {
            // A block of fewer columns breaks the chain of references.
            let cols = if block == 6 { 40 } else { 64 };
            let at = Place {
                block,
                q0,
                q_end: q0 + cols,
                recent: false,
            };
            let used_words = ((2 * at.q_end) / 64 - q0 / 64) as usize + 1;
            let (noise, random): (u32, &[u32]) = match block {
                3 => (200, &[]),
                4 => (0, &[0, 17, 63]),
                _ => (2, &[]),
            };
            let used = sets(at, used_words, &offsets, noise, random, &mut rng);
            let message = below.handoff(at, (lo, 1), rows_end, used_words, &used);
            let mut taken = vec![u64::MAX; used.len()];
            above.take_handoff(at, (lo, 0), rows_end, used_words, &mut taken, &message);
            let w = handoff_words(at, lo, used_words);
            for (got, sent) in taken
                .chunks_exact(used_words)
                .zip(used.chunks_exact(used_words))
            {
                assert_eq!(got[..w], sent[..w], "block {block}");
                assert!(
                    got[w..].iter().all(|&x| x == u64::MAX),
                    "only the edge's words"
                );
            }
            let whole = 1 + 8 * w * cols as usize;
            kinds.push(message[0]);
            if message[0] == CHANGES && noise == 2 {
                assert!(
                    message.len() * 10 < whole,
                    "block {block}: {} of {whole}",
                    message.len()
                );
            }
            q0 += cols;
        }
        // Whole at the start and after the short block, changes otherwise.
        let mut expected = vec![CHANGES; 12];
        expected[0] = WHOLE;
        expected[6] = WHOLE;
        expected[7] = WHOLE;
        assert_eq!(kinds, expected);
    }
}
