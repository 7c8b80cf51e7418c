//! Saving the engine's state to a writer and loading it back, so that a long
//! computation (the census) can stop and continue with exactly the same results.
//! The layout is in FORMAT.md (the census checkpoint); integers little-endian.
//!
//! A live row is saved as its state at the next column (the values it has used at
//! or above it: `Engine::row_state`, in its compact form), which is all its
//! future depends on; its window is rebuilt from that on loading.

use std::io::{self, Read, Write};
use std::sync::Mutex;

use super::row::{Row, State};
use super::{CHUNK_ROWS, Engine};
use crate::bytes::stream::{get32, get64, get64s, put32, put64, put64s};

const DEAD: u8 = 0;
const PERIODIC: u8 = 1;
const LIVE: u8 = 2;

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

impl Engine {
    /// Writes the state: complete columns, row limit, the diagonal bitset, and
    /// every row created (dead: its value; periodic: start and pattern; live: its
    /// state words).
    pub fn save(&mut self, w: &mut dyn Write) -> io::Result<()> {
        let q = self.columns;
        put32(w, q)?;
        put32(w, self.row_limit)?;
        let diagonal = self.diagonal.get_mut().unwrap();
        put64(w, diagonal.len() as u64)?;
        put64s(w, diagonal)?;
        // Chunk by chunk: on one of several ranks, the chunks of other ranks are
        // empty here.
        put64(w, self.chunks.len() as u64)?;
        for (c, chunk) in self.chunks.iter_mut().enumerate() {
            let chunk = chunk.get_mut().unwrap();
            put32(w, chunk.len() as u32)?;
            for (i, row) in chunk.iter().enumerate() {
                let r = c as u32 * CHUNK_ROWS + i as u32;
                match row {
                    Row::Dead { value } => {
                        w.write_all(&[DEAD])?;
                        put32(w, *value)?;
                    }
                    Row::Periodic { start, pattern } => {
                        w.write_all(&[PERIODIC])?;
                        put32(w, *start)?;
                        put32(w, pattern.len() as u32)?;
                        for &x in pattern {
                            put32(w, x as u32)?;
                        }
                    }
                    Row::Live(_) => {
                        let state = row.state(r, q).expect("a live row has a state");
                        w.write_all(&[LIVE])?;
                        save_state(w, &state)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Reads a state written by [`Engine::save`].
    pub fn load(rd: &mut dyn Read) -> io::Result<Engine> {
        let q = get32(rd)?;
        let row_limit = get32(rd)?;
        let words = get64(rd)? as usize;
        let diagonal = get64s(rd, words)?;
        let rows_end = q.min(row_limit.saturating_add(1));
        let nchunks = get64(rd)?;
        if nchunks > rows_end.div_ceil(CHUNK_ROWS) as u64 {
            return Err(bad("more rows than columns"));
        }
        let mut chunks: Vec<Mutex<Vec<Row>>> = Vec::new();
        for c in 0..nchunks as u32 {
            let len = get32(rd)?;
            let lo = c * CHUNK_ROWS;
            if len != 0 && len != (lo + CHUNK_ROWS).min(rows_end) - lo {
                return Err(bad("a chunk of rows neither empty nor whole"));
            }
            let mut chunk = Vec::with_capacity(len as usize);
            for r in lo..lo + len {
                chunk.push(load_row(rd, r, q)?);
            }
            chunks.push(Mutex::new(chunk));
        }
        Ok(Engine {
            columns: q,
            row_limit,
            chunks,
            diagonal: Mutex::new(diagonal),
        })
    }
}

/// Writes a row state: `lead` u32, `w` u32, `w` words.
pub(crate) fn save_state(w: &mut dyn Write, s: &State) -> io::Result<()> {
    put32(w, s.lead)?;
    put32(w, s.bits.len() as u32)?;
    put64s(w, &s.bits)
}

/// Reads a row state written by [`save_state`].
pub(crate) fn load_state(rd: &mut dyn Read) -> io::Result<State> {
    let lead = get32(rd)?;
    let n = get32(rd)? as usize;
    Ok(State {
        lead,
        bits: get64s(rd, n)?,
    })
}

/// One row `r` of a checkpoint taken before column `q`.
fn load_row(rd: &mut dyn Read, r: u32, q: u32) -> io::Result<Row> {
    let mut tag = [0u8];
    rd.read_exact(&mut tag)?;
    Ok(match tag[0] {
        DEAD => Row::Dead { value: get32(rd)? },
        PERIODIC => {
            let start = get32(rd)?;
            let len = get32(rd)? as usize;
            let pattern = (0..len)
                .map(|_| get32(rd).map(|x| x as i32))
                .collect::<io::Result<Vec<_>>>()?;
            Row::Periodic { start, pattern }
        }
        LIVE => {
            let state = load_state(rd)?;
            if state.lead > r + 2 || state.bits.len() as u64 * 64 > (r + 2 - state.lead) as u64 + 63
            {
                return Err(bad("a row state wider than its row"));
            }
            Row::live(r, q, |base, bits| {
                for x in 0..r + 2 {
                    if state.contains(x) {
                        let v = q + x;
                        bits[(v / 64 - base) as usize] |= 1u64 << (v % 64);
                    }
                }
            })
        }
        _ => return Err(bad("unknown row tag")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tests::columns;

    #[test]
    fn a_saved_and_loaded_engine_continues_exactly() {
        for limit in [u32::MAX, 150] {
            let mut direct = Engine::with_row_limit(limit);
            let mut all = columns(&mut direct, 900);
            let mut cut = Engine::with_row_limit(limit);
            let mut resumed = columns(&mut cut, 400);
            cut.set_periodic(0, 1, vec![1]); // row 0 is [k+1, k, 0]: f(q,0) = q + 1
            let mut bytes = Vec::new();
            cut.save(&mut bytes).unwrap();
            let mut loaded = Engine::load(&mut bytes.as_slice()).unwrap();
            assert_eq!(loaded.columns(), 400);
            resumed.extend(columns(&mut loaded, 500));
            all.truncate(900);
            assert!(resumed == all, "limit {limit}: resumed columns differ");
        }
    }
}
