//! One row's state and the inner loop that advances it through a block of columns.
//!
//! This is where the engine spends its time: every live cell of the table is one
//! iteration of [`Row::advance`]. A live row only needs the values it has already
//! used at or above the current column `q` (see the rule in `engine/mod.rs`), so its
//! state is a short bitset window `[q, q + r + 1]`, not a set of every value so far.

/// The state of row `r` after some column.
#[derive(Clone, Debug)]
pub(crate) enum Row {
    /// The row died (`f(q,r) = q` happened at `q = value`): constant from there.
    Dead {
        /// The row's constant value.
        value: u32,
    },
    /// A row proved periodic: `f(q,r) - q = pattern[(q - start) % len]` for
    /// `q >= start`; its window is dropped and its values come from this in O(1).
    Periodic {
        /// First column of the pattern.
        start: u32,
        /// One period of `f(q,r) - q`.
        pattern: Vec<i32>,
    },
    /// A live row: the window of values `>= q` that earlier entries already use.
    Live(Window),
}

/// A live row's window of used values.
#[derive(Clone, Debug)]
pub(crate) struct Window {
    /// Absolute word index of `bits[0]`: bit `v` of the row lives in
    /// `bits[v / 64 - base]`. Bits below the current column are stale and always masked.
    base: u32,
    /// Lower bound for the first value `>= q` that is not in the window.
    low: u32,
    /// The window: twice the span the row needs, so it slides by a cheap copy
    /// once every `~r` columns instead of a shift every column.
    bits: Vec<u64>,
}

/// Where a block's cells go while its rows are computed in order.
pub(crate) struct BlockOut<'a> {
    /// First column of the block.
    pub(crate) q0: u32,
    /// One bitset per column of the block, `used_words` words each, word `i`
    /// covering values `64 * (q0 / 64 + i) ..`: the values `>= q0` already taken in
    /// that column by the rows below (each row adds its own for the rows above).
    pub(crate) used: &'a mut [u64],
    /// Words per column bitset.
    pub(crate) used_words: usize,
    /// `f(q0 + j, r)` goes to `out[j * stride + r]`.
    pub(crate) out: &'a mut [u32],
    /// Rows per column in `out`.
    pub(crate) stride: usize,
}

/// Number of 64-bit words that cover `[q, q + r + 1]` for any `q`.
fn span_words(r: u32) -> usize {
    (r as usize + 1) / 64 + 2
}

impl Row {
    /// A live row `r` at column `q`, its window filled by `fill`, which receives the
    /// window's words (absolute word index `q / 64` first) and sets the used values.
    pub(crate) fn live(r: u32, q: u32, fill: impl FnOnce(u32, &mut [u64])) -> Row {
        let mut bits = vec![0u64; 2 * span_words(r)];
        fill(q / 64, &mut bits);
        Row::Live(Window {
            base: q / 64,
            // f is positive: at column 0 the least candidate is 1, not 0.
            low: q.max(1),
            bits,
        })
    }

    /// Replaces a live row's window by its proved periodic pattern: from column
    /// `start` on, `f(q,r) - q = pattern[(q - start) % pattern.len()]`.
    pub(crate) fn make_periodic(&mut self, start: u32, pattern: Vec<i32>) {
        assert!(matches!(self, Row::Live(_)) && !pattern.is_empty());
        *self = Row::Periodic { start, pattern };
    }

    /// The state of a live row at column `q` (its values `>= q` used so far, as
    /// offsets from `q`): bit `x` set when `q + x` is in the window.
    pub(crate) fn state(&self, r: u32, q: u32) -> Option<Vec<u64>> {
        let Row::Live(w) = self else { return None };
        let mut out = vec![0u64; (r as usize + 2) / 64 + 1];
        for x in 0..=r + 1 {
            let v = q + x;
            let i = (v / 64 - w.base) as usize;
            if w.bits.get(i).is_some_and(|b| b >> (v % 64) & 1 == 1) {
                out[x as usize / 64] |= 1 << (x % 64);
            }
        }
        Some(out)
    }

    /// Sets value `v` (absolute) in a live row's window; a no-op on other rows.
    pub(crate) fn mark(&mut self, v: u32) {
        if let Row::Live(w) = self {
            w.mark(v);
        }
    }

    /// Computes `f(q, r)` for `q` in `q_from..q_end` (all inside the block that starts
    /// at column `b.q0`), writing `f(q0 + j, r)` to `b.out[j * b.stride + r]` and
    /// adding the row's values to the block's column bitsets.
    pub(crate) fn advance(&mut self, r: u32, q_from: u32, q_end: u32, b: &mut BlockOut) {
        let (q0, used_words, stride, r_idx) = (b.q0, b.used_words, b.stride, r as usize);
        match self {
            Row::Dead { value } => {
                for q in q_from..q_end {
                    b.out[(q - q0) as usize * stride + r_idx] = *value;
                }
            }
            Row::Periodic { start, pattern } => {
                let used_base = q0 / 64;
                let period = pattern.len() as u32;
                for q in q_from..q_end {
                    let j = (q - q0) as usize;
                    let v = (q as i64 + pattern[((q - *start) % period) as usize] as i64) as u32;
                    b.used[j * used_words + (v / 64 - used_base) as usize] |= 1u64 << (v % 64);
                    b.out[j * stride + r_idx] = v;
                }
            }
            Row::Live(w) => {
                if let Some(died) = w.advance(r, q_from, q_end, b) {
                    for q2 in died + 1..q_end {
                        b.out[(q2 - q0) as usize * stride + r_idx] = died;
                    }
                    *self = Row::Dead { value: died };
                }
            }
        }
    }
}

impl Window {
    /// Sets value `v` (absolute) in the window.
    fn mark(&mut self, v: u32) {
        let w = (v / 64 - self.base) as usize;
        self.bits[w] |= 1u64 << (v % 64);
    }

    /// Slides the window so that columns `q0..q_end` fit without reallocation.
    fn make_room(&mut self, r: u32, q0: u32, q_end: u32) {
        let top_word = ((q_end - 1 + r + 1) / 64 - self.base) as usize;
        if top_word < self.bits.len() {
            return;
        }
        let new_base = q0 / 64;
        let shift = (new_base - self.base) as usize;
        self.bits.copy_within(shift.., 0);
        let keep = self.bits.len() - shift;
        self.bits[keep..].fill(0);
        self.base = new_base;
        debug_assert!((((q_end + r) / 64 - self.base) as usize) < self.bits.len());
    }

    /// First value `>= from` that is not in the window.
    #[inline]
    fn next_free(&self, from: u32) -> u32 {
        let mut w = (from / 64 - self.base) as usize;
        // Values below `from` in its word count as used.
        let mut word = self.bits[w] | ((1u64 << (from % 64)) - 1);
        while word == u64::MAX {
            w += 1;
            word = self.bits[w];
        }
        (self.base + w as u32) * 64 + (!word).trailing_zeros()
    }

    /// The live part of [`Row::advance`]: returns the column where the row died,
    /// if it did (the caller fills the rest of the block and drops the window).
    fn advance(&mut self, r: u32, q_from: u32, q_end: u32, b: &mut BlockOut) -> Option<u32> {
        let BlockOut {
            q0,
            ref mut used,
            used_words,
            ref mut out,
            stride,
        } = *b;
        self.make_room(r, q0, q_end);
        let used_base = q0 / 64;
        let mut low = self.low;
        for q in q_from..q_end {
            let j = (q - q0) as usize;
            let column = &mut used[j * used_words..(j + 1) * used_words];
            // Least value >= q unused by the row; every value in [q, low) is used.
            low = self.next_free(low.max(q));
            // Least value >= low used neither by the row nor by the column below.
            let from = low / 64;
            let v = from * 64
                + first_zero_of_union(
                    &self.bits[(from - self.base) as usize..],
                    &column[(from - used_base) as usize..],
                    low % 64,
                );
            self.mark(v);
            column[(v / 64 - used_base) as usize] |= 1u64 << (v % 64);
            out[j * stride + r as usize] = v;
            if v == q {
                // f(q, r) = q: the row is constant from here on.
                return Some(q);
            }
            if v == low {
                low += 1;
            }
        }
        self.low = low;
        None
    }
}

/// Index of the first bit, at or after bit `skip` of word 0, that is clear in both
/// `a` and `b`. The caller guarantees there is one within both slices.
#[inline]
fn first_zero_of_union(a: &[u64], b: &[u64], skip: u32) -> u32 {
    let first = a[0] | b[0] | ((1u64 << skip) - 1);
    if first != u64::MAX {
        return (!first).trailing_zeros();
    }
    // Four words per step: one branch per 256 candidates (this loop is the engine's
    // hot spot on rows that have not settled yet).
    let (a, b) = (&a[1..], &b[1..]);
    let mut i = 0;
    for (x, y) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        let all = (x[0] | y[0]) & (x[1] | y[1]) & (x[2] | y[2]) & (x[3] | y[3]);
        if all != u64::MAX {
            break;
        }
        i += 4;
    }
    loop {
        let word = a[i] | b[i];
        if word != u64::MAX {
            return (i as u32 + 1) * 64 + (!word).trailing_zeros();
        }
        i += 1;
    }
}
