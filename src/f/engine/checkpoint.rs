//! Saving the engine's state to a writer and loading it back, so that a long
//! computation (the census) can stop and continue with exactly the same results.
//! The layout is in FORMAT.md (the census checkpoint); integers little-endian.
//!
//! A live row is saved as its state at the next column (the values it has used at
//! or above it: `Engine::row_state`, in its compact form), which is all its
//! future depends on; its window is rebuilt from that on loading.

use crate::base::bytes::narrow;
use std::io::{self, Read, Write};
use std::sync::Mutex;

use super::chain::{Builder, Chunk, Walk};
use super::row::{Row, State, Window};
use super::{CHUNK_ROWS, Engine};
use crate::base::bytes::damaged;
use crate::base::bytes::stream::{
    get_varint, get32, get64, get64s, put_varint, put32, put64, put64s,
};

const DEAD: u8 = 0;
const PERIODIC: u8 = 1;
const LIVE: u8 = 2;

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
        let mut live = Deltas::default();
        for (c, chunk) in self.chunks.iter_mut().enumerate() {
            save_chunk(
                w,
                chunk.get_mut().unwrap(),
                narrow::<u32, _>(c),
                q,
                &mut live,
            )?;
        }
        Ok(())
    }

    /// Reads a state written by [`Engine::save`].
    pub fn load(rd: &mut dyn Read) -> io::Result<Engine> {
        let q = get32(rd)?;
        let row_limit = get32(rd)?;
        let words = crate::base::bytes::usize_of(get64(rd)?);
        let diagonal = get64s(rd, words)?;
        let rows_end = q.min(row_limit.saturating_add(1));
        let nchunks = get64(rd)?;
        if nchunks > rows_end.div_ceil(CHUNK_ROWS) as u64 {
            return Err(damaged("more rows than columns"));
        }
        let mut chunks = Vec::new();
        let mut live = Deltas::default();
        for c in 0..narrow::<u32, _>(nchunks) {
            chunks.push(Mutex::new(load_chunk(rd, c, q, rows_end, &mut live)?));
        }
        Ok(Engine {
            columns: q,
            row_limit,
            chunks,
            diagonal: Mutex::new(diagonal),
            ..Engine::new()
        })
    }
}

/// Writes chunk `c` at column `q`: its number of rows, then each row (dead:
/// its value; periodic: start and pattern; live: its state, as the
/// difference from the state `live` wrote before).
pub(super) fn save_chunk(
    w: &mut dyn Write,
    chunk: &Chunk,
    c: u32,
    q: u32,
    live: &mut Deltas,
) -> io::Result<()> {
    put32(w, crate::base::bytes::len32(chunk.rows.len())?)?;
    let mut walk = Walk::new(chunk);
    for (i, row) in chunk.rows.iter().enumerate() {
        let r = c * CHUNK_ROWS + narrow::<u32, _>(i);
        match row {
            Row::Dead { value } => {
                w.write_all(&[DEAD])?;
                put32(w, *value)?;
            }
            Row::Periodic { start, pattern } => {
                w.write_all(&[PERIODIC])?;
                put32(w, *start)?;
                put32(w, crate::base::bytes::len32(pattern.len())?)?;
                for &x in pattern {
                    put32(w, x.cast_unsigned())?;
                }
            }
            Row::Live(_) => {
                let (l, win) = walk.row(chunk, i).expect("a live row");
                let state = l.state(win, r, q);
                w.write_all(&[LIVE])?;
                live.save(w, &state)?;
            }
        }
    }
    Ok(())
}

/// Reads chunk `c` written by [`save_chunk`] at column `q`, in an engine
/// whose rows end at `rows_end`: empty, or every row made by then.
pub(super) fn load_chunk(
    rd: &mut dyn Read,
    c: u32,
    q: u32,
    rows_end: u32,
    live: &mut Deltas,
) -> io::Result<Chunk> {
    let len = get32(rd)?;
    let lo = c * CHUNK_ROWS;
    if len != 0 && len != (lo + CHUNK_ROWS).min(rows_end) - lo {
        return Err(damaged("a chunk of rows neither empty nor whole"));
    }
    let mut chunk = Builder::new(q);
    for r in lo..lo + len {
        match load_row(rd, r, q, live)? {
            Ok(row) => chunk.settled(row),
            Err(win) => chunk.live(win),
        }
    }
    Ok(chunk.finish())
}

/// Row states written one after another, each as the offsets `x` (values
/// `q + x`) where it differs from the state written before it. Neighbouring
/// rows that have not settled yet have nearly the same state (at `R = 3*10^5`
/// they differ in 1.3e-5 of their bits: a few values in hundreds of
/// thousands), so the states of a census cost little more than one of them.
#[derive(Default)]
pub(crate) struct Deltas {
    /// The state written or read last, as a bitset from the column on.
    prev: Vec<u64>,
}

impl Deltas {
    /// Writes `s`: the number of differing offsets and their gaps, as varints.
    pub(crate) fn save(&mut self, w: &mut dyn Write, s: &State) -> io::Result<()> {
        let words = s.words();
        let at = |v: &[u64], i: usize| v.get(i).copied().unwrap_or(0);
        let mut diff = Vec::new();
        for i in 0..words.len().max(self.prev.len()) {
            let mut x = at(&words, i) ^ at(&self.prev, i);
            while x != 0 {
                diff.push(64 * i as u64 + x.trailing_zeros() as u64);
                x &= x - 1;
            }
        }
        put_varint(w, diff.len() as u64)?;
        let mut last = 0;
        for x in diff {
            put_varint(w, x - last)?;
            last = x;
        }
        self.prev = words;
        Ok(())
    }

    /// Reads a state written by [`Deltas::save`] for a row whose state spans
    /// `width` offsets.
    pub(crate) fn load(&mut self, rd: &mut dyn Read, width: u32) -> io::Result<State> {
        let count = get_varint(rd)?;
        let mut x = 0u64;
        for k in 0..count {
            x = x
                .checked_add(get_varint(rd)?)
                .filter(|&x| x < width as u64 && (k == 0 || x > 0))
                .ok_or_else(|| damaged("a row state wider than its row"))?;
            let i = (x / 64) as usize;
            if i >= self.prev.len() {
                self.prev.resize(i + 1, 0);
            }
            self.prev[i] ^= 1 << (x % 64);
        }
        let state = State::from_words(&self.prev);
        if state.lead > width
            || state.lead as u64 + 64 * state.bits.len() as u64 > width as u64 + 63
        {
            return Err(damaged("a row state wider than its row"));
        }
        Ok(state)
    }
}

/// One row `r` of a checkpoint taken before column `q`: a dead or periodic
/// row, or a live row's window.
fn load_row(
    rd: &mut dyn Read,
    r: u32,
    q: u32,
    live: &mut Deltas,
) -> io::Result<Result<Row, Window>> {
    let mut tag = [0u8];
    rd.read_exact(&mut tag)?;
    Ok(match tag[0] {
        DEAD => Ok(Row::Dead { value: get32(rd)? }),
        PERIODIC => {
            let start = get32(rd)?;
            let len = get32(rd)? as usize;
            let pattern = (0..len)
                .map(|_| get32(rd).map(|x| x.cast_signed()))
                .collect::<io::Result<Vec<_>>>()?;
            Ok(Row::Periodic { start, pattern })
        }
        LIVE => {
            // Checks the state; `live.prev` is then its bitset (bit `x`: the
            // value `q + x`, none at or past `r + 2`), which becomes the window
            // a word at a time: marking each value took O(r) per row, minutes
            // for a census of 10^6 rows.
            live.load(rd, r + 2)?;
            Err(Window::from_offsets(q, &live.prev))
        }
        _ => return Err(damaged("unknown row tag")),
    })
}

#[cfg(test)]
// Test data: small numbers made by the tests themselves.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]
mod tests {
    use super::*;
    use crate::base::test_rng::Rng;
    use crate::f::engine::tests::columns;

    #[test]
    fn a_window_made_a_word_at_a_time_is_the_one_marked_value_by_value() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for q in [0u32, 1, 63, 64, 65, 127, 1000, 4_000_003] {
            for len in [0usize, 1, 2, 5] {
                // Sparse, dense and empty words, the last one sometimes zero.
                let mut offsets: Vec<u64> = (0..len)
                    .map(|i| match i % 3 {
                        0 => rng.next(),
                        1 => rng.next() & rng.next() & rng.next(),
                        _ => u64::MAX,
                    })
                    .collect();
                if len > 1 && rng.next().is_multiple_of(2) {
                    offsets[len - 1] = 0;
                }
                let mut marked = Window {
                    base: q / 64,
                    bits: Vec::new(),
                };
                for x in 0..64 * len as u32 {
                    if offsets[x as usize / 64] >> (x % 64) & 1 == 1 {
                        marked.mark(q + x);
                    }
                }
                let made = Window::from_offsets(q, &offsets);
                assert_eq!(
                    (made.base, &made.bits),
                    (marked.base, &marked.bits),
                    "q {q}, {offsets:x?}"
                );
            }
        }
    }

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

#[cfg(test)]
// Test data: small numbers made by the tests themselves.
#[allow(clippy::cast_possible_truncation)]
mod delta_tests {
    use super::*;
    use crate::base::bytes::stream::push_varint;

    #[test]
    fn states_read_back_through_their_differences() {
        // Random states of growing rows, some near copies of the one before
        // (as neighbouring young rows are), some not; leads of every length.
        let mut rng = crate::base::test_rng::Rng(0x2545_f491_4f6c_dd1d);
        let mut next = move || rng.next();
        let mut states = Vec::new();
        let mut words: Vec<u64> = Vec::new();
        for r in (0..400u32).step_by(7) {
            let width = r + 2;
            if next() % 3 == 0 {
                words = (0..width.div_ceil(64)).map(|_| next()).collect();
            }
            words.resize(width.div_ceil(64) as usize, 0);
            let flip = (next() % width as u64) as usize;
            words[flip / 64] ^= 1 << (flip % 64);
            let lead = (next() % width as u64) as usize;
            for x in 0..lead {
                words[x / 64] |= 1 << (x % 64);
            }
            let s = State::from_fn(width, |x| words[x as usize / 64] >> (x % 64) & 1 == 1);
            assert_eq!(State::from_words(&s.words()), s, "words round trip");
            states.push((width, s));
        }
        let mut bytes = Vec::new();
        let mut out = Deltas::default();
        for (_, s) in &states {
            out.save(&mut bytes, s).unwrap();
        }
        let mut back = Deltas::default();
        let mut rd = bytes.as_slice();
        for (width, s) in &states {
            assert_eq!(&back.load(&mut rd, *width).unwrap(), s);
        }
        assert!(rd.is_empty());
        // A state wider than its row is refused.
        let mut bytes = Vec::new();
        Deltas::default()
            .save(&mut bytes, &State::from_fn(100, |x| x == 99))
            .unwrap();
        assert!(Deltas::default().load(&mut bytes.as_slice(), 50).is_err());
    }

    #[test]
    fn varints_read_back() {
        for x in [0, 1, 127, 128, 300, u32::MAX as u64, u64::MAX - 1, u64::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, x).unwrap();
            assert_eq!(get_varint(&mut b.as_slice()).unwrap(), x);
            let mut pushed = Vec::new();
            push_varint(&mut pushed, x);
            assert_eq!(pushed, b, "{x}");
        }
        assert!(get_varint(&mut [0xffu8; 11].as_slice()).is_err());
        // LEB128's textbook cases.
        let leb = |x: u64| {
            let mut b = Vec::new();
            push_varint(&mut b, x);
            b
        };
        assert_eq!(leb(127), [0x7f]);
        assert_eq!(leb(128), [0x80, 0x01]);
        assert_eq!(leb(300), [0xac, 0x02]);
        assert_eq!(leb(624_485), [0xe5, 0x8e, 0x26]);
        let mut max = vec![0xff; 9];
        max.push(0x01);
        assert_eq!(leb(u64::MAX), max);
    }
}
