//! One row's state and the inner loop that advances it through a block of columns.
//!
//! This is where the engine spends its time: every live cell of the table is one
//! iteration of [`Live::advance`]. A live row only needs the values it has already
//! used at or above the current column `q` (see the rule in `engine/mod.rs`): its
//! window, a bitset of `[q, q + r + 1]`. The windows themselves are kept by the
//! row's chunk as a chain of differences (`chain.rs`); a row here holds what is its
//! own, and works on the window its chunk lends it.
//!
//! # The neighbour shortcut (proof)
//!
//! Rows go up a column in order, so when row `y` computes `f(q,y)` the nearest
//! row `x < y` that has not died before `q` has already computed `g = f(q,x) >= q`.
//! Write `W_x`, `W_y` for the values `>= q` that the two rows used before column
//! `q`, and `U_x` for the values `>= q` that rows below `x` took in column `q`.
//! By the rule, every value in `[q, g)` lies in `W_x` or `U_x`, and row `y` sees
//! `U_y = U_x + {g}` (plus the dead rows' values, all `< q`). So a value `v` in
//! `[q, g]` missing from both `W_y` and `U_y` lies in `W_x` and not in `W_y`:
//! it is in the difference `D = W_x - W_y`. Hence `f(q,y)` is the least element
//! of `D` below `g` missing from `W_y` and `U_y`, if there is one, and otherwise
//! the first value from `g + 1` missing from both: the scan starts at `g + 1`
//! instead of the row's first free value, and `D` has a few elements where the
//! scan had hundreds of words (doc/algorithm.md section 4).
//!
//! Each live row keeps a superset of `D` (checking every candidate against
//! `W_y` and `U_y` keeps the answer exact with extra elements):
//! * at birth (column `y`) it is empty: `W_y` then is the diagonal values
//!   `f(a,a) >= y`, `a < y`, and so is `W_{y-1}`, whose own value at `y - 1`
//!   is a diagonal one (the engine checks that row `y - 1` is alive at `y`);
//! * after column `q` it gains `g` unless `g` is in `W_y`, and loses `f(q,y)`
//!   and the values below `q + 1`;
//! * when the neighbour `x` dies at column `s` (`f(s,x) = s`), the nearest row
//!   `x'` below it that has not becomes the neighbour, and
//!   `W_{x'} - W_y` lies in `(W_{x'} - W_x) + {f(s,x')} + (W_x - W_y)`: the
//!   dying row hands its own set and `f(s,x')` on to the next row above that
//!   has not died (`carry`), which exists by then (rows are born at their
//!   column and never die there, so row `s` is alive at `s`);
//! * a set that cannot be kept (no neighbour known, as at the first row of a
//!   chunk another rank computes, or after a checkpoint) is `None`, and the
//!   row scans as before until [`Live::set_diff`] rebuilds it from the two
//!   windows at the start of a later `advance`.

use crate::base::bytes::narrow;

/// The state of row `r` after some column.
#[derive(Clone, Debug)]
pub(crate) enum Row {
    /// The row died (`f(q,r) = q` happened at `q = value`): constant from there.
    Dead {
        /// The row's constant value.
        value: u32,
    },
    /// A row proved periodic: `f(q,r) - q = pattern[(q - start) % len]` for
    /// `q >= start`; it leaves its chunk's chain and its values come from this
    /// in O(1).
    Periodic {
        /// First column of the pattern.
        start: u32,
        /// One period of `f(q,r) - q`.
        pattern: Vec<i32>,
    },
    /// A live row.
    Live(Live),
}

/// What a live row keeps of its own; its window is its chunk's to lend.
#[derive(Clone, Debug)]
pub(crate) struct Live {
    /// Lower bound for the first value `>= q` that is not in the window: every
    /// value from the column up to it is used.
    low: u32,
    /// A superset of the values `>= q` that the neighbour below has used and
    /// this row has not (see the module's proof); `None` when not known.
    diff: Option<Vec<u32>>,
    /// The chain's link (`chain.rs`): the values `>= q`, at the engine's column
    /// `q`, in which this row's window differs from that of the live row before
    /// it in its chunk; empty for the chunk's first live row. In no order.
    pub(crate) delta: Vec<u32>,
}

/// A window of used values: bit `v` lives in `bits[v / 64 - base]`; values
/// below `64 * base` count as used, and bits below the current column are
/// stale and never read.
#[derive(Clone, Debug, Default)]
pub(crate) struct Window {
    /// Absolute word index of `bits[0]`.
    pub(crate) base: u32,
    /// The words from `base` on; every value past them is unused.
    pub(crate) bits: Vec<u64>,
}

/// In [`BlockOut::below`] and a row's marks: no value is known in that column.
pub(crate) const NONE: u32 = u32::MAX;

/// A set of differences larger than this is dropped (the row scans instead):
/// checking it would cost more than the words it saves.
const MAX_DIFF: usize = 192;

/// A live row's state at a column `q`: the values `>= q` it has used, in one
/// canonical form, so that two states are equal exactly when their sets are.
/// Every value in `q .. q + lead` is used and `q + lead` is not; bit `i` of
/// `bits` is the value `q + lead + i` (so bit 0 is clear), with no zero words
/// at the end. A settled row's state is a run of used values: no words at all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct State {
    /// Used values from `q` on, before the first unused one.
    pub lead: u32,
    /// The values from `q + lead` on, one bit each.
    pub bits: Vec<u64>,
}

impl State {
    /// The state as one bitset from the column on (bit `x` is the value `q + x`).
    pub fn words(&self) -> Vec<u64> {
        let lead = self.lead as usize;
        let (skip, shift) = (lead / 64, lead % 64);
        let mut out = vec![0u64; (lead + 64 * self.bits.len()).div_ceil(64)];
        out[..skip].fill(u64::MAX);
        if shift > 0 {
            out[skip] = (1 << shift) - 1;
        }
        for (i, &word) in self.bits.iter().enumerate() {
            out[skip + i] |= word << shift;
            if shift > 0 && word >> (64 - shift) != 0 {
                out[skip + i + 1] |= word >> (64 - shift);
            }
        }
        out
    }

    /// The state whose bitset from the column on is `words` (bit `x`: value `q + x`).
    pub(crate) fn from_words(words: &[u64]) -> State {
        let Some(first) = words.iter().position(|&w| w != u64::MAX) else {
            return State {
                lead: 64 * narrow::<u32, _>(words.len()),
                bits: Vec::new(),
            };
        };
        let shift = (!words[first]).trailing_zeros();
        let word = |i: usize| words.get(i).copied().unwrap_or(0);
        let mut bits: Vec<u64> = (first..words.len())
            .map(|i| match shift {
                0 => word(i),
                s => word(i) >> s | word(i + 1) << (64 - s),
            })
            .collect();
        trim(&mut bits);
        State {
            lead: 64 * narrow::<u32, _>(first) + shift,
            bits,
        }
    }

    /// The state of the values `q + x` for the offsets `x` that `has(x)` accepts
    /// among `0 .. width`.
    #[cfg(test)]
    pub(crate) fn from_fn(width: u32, has: impl Fn(u32) -> bool) -> State {
        let lead = (0..width).find(|&x| !has(x)).unwrap_or(width);
        let mut bits = vec![0u64; (width - lead) as usize / 64 + 1];
        for i in 0..width - lead {
            if has(lead + i) {
                bits[i as usize / 64] |= 1 << (i % 64);
            }
        }
        trim(&mut bits);
        State { lead, bits }
    }
}

/// Drops the zero words at the end.
fn trim(bits: &mut Vec<u64>) {
    while bits.last() == Some(&0) {
        bits.pop();
    }
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
    /// `f(q0 + j, r)` goes to `out[j * stride + r - lo]`.
    pub(crate) out: &'a mut [u32],
    /// Rows per column in `out`.
    pub(crate) stride: usize,
    /// The first row in `out`; the rows below are dead or periodic and
    /// write nothing.
    pub(crate) lo: u32,
    /// Per column of the block, the value there of the nearest row below that
    /// has not died before it ([`NONE`] if not known): the neighbour of the
    /// module's proof.
    pub(crate) below: &'a mut [u32],
    /// What rows that died in this block hand to the next row above that has
    /// not ([`Window::diff`]'s elements; `None`: not known).
    pub(crate) carry: &'a mut Option<Vec<u32>>,
}

impl Row {
    /// Row `r` at its birth column `r`: its window there is the diagonal
    /// values `f(a,a) >= r`, `a < r`, which its chunk lends it.
    pub(crate) fn born(r: u32) -> Row {
        Row::live_at(r, Vec::new())
    }

    /// A live row at column `q` with the chain's link `delta`.
    pub(crate) fn live_at(q: u32, delta: Vec<u32>) -> Row {
        Row::Live(Live {
            // f is positive: at column 0 the least candidate is 1, not 0.
            low: q.max(1),
            diff: None,
            delta,
        })
    }

    /// Starts a row born at its column `r` with an empty set of differences:
    /// exact when row `r - 1` is alive at column `r` (module's proof).
    pub(crate) fn start_diff(&mut self) {
        if let Row::Live(w) = self {
            w.diff = Some(Vec::new());
        }
    }

    /// Whether a live row lacks its set of differences.
    pub(crate) fn lacks_diff(&self) -> bool {
        matches!(self, Row::Live(w) if w.diff.is_none())
    }

    /// Computes `f(q, r)` for `q` in `q_from..q_end` (all inside the block that starts
    /// at column `b.q0`), writing `f(q0 + j, r)` to `b.out[j * b.stride + r]` and
    /// adding the row's values to the block's column bitsets. A live row works on
    /// `win`, its window at `q_from`, and appends its values to `marks`; the
    /// caller turns a row that died into [`Row::Dead`] (returned: its column).
    pub(crate) fn advance(
        &mut self,
        r: u32,
        q_from: u32,
        q_end: u32,
        b: &mut BlockOut,
        win: &mut Window,
        marks: &mut Vec<u32>,
    ) -> Option<u32> {
        let (q0, used_words, stride) = (b.q0, b.used_words, b.stride);
        let r_idx = r.checked_sub(b.lo).map(|i| i as usize);
        match self {
            Row::Dead { value } => {
                // A dead row below the reported ones writes nothing.
                if let Some(i) = r_idx {
                    for q in q_from..q_end {
                        b.out[(q - q0) as usize * stride + i] = *value;
                    }
                }
                None
            }
            Row::Periodic { start, pattern } => {
                let used_base = q0 / 64;
                let period = narrow::<u32, _>(pattern.len());
                // The pattern's place steps on with the column (a division
                // per cell cost a few percent of a census).
                let mut k = ((q_from - *start) % period) as usize;
                for q in q_from..q_end {
                    let j = (q - q0) as usize;
                    // A value of the table, like every `f` the engine
                    // stores as a u32 (a checked cast here cost 7 % of a census).
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    let v = (q as i64 + pattern[k] as i64) as u32;
                    debug_assert_eq!(i64::from(v), q as i64 + pattern[k] as i64);
                    debug_assert_eq!(k, ((q - *start) % period) as usize);
                    k += 1;
                    if k == pattern.len() {
                        k = 0;
                    }
                    b.used[j * used_words + (v / 64 - used_base) as usize] |= 1u64 << (v % 64);
                    if let Some(i) = r_idx {
                        b.out[j * stride + i] = v;
                    }
                    b.below[j] = v;
                }
                // The rows above see this row as their neighbour; it never dies.
                clear(b.carry);
                None
            }
            Row::Live(live) => {
                let r_idx = r_idx.expect("rows below the reported ones are dead or periodic");
                let died = live.advance(r, q_from, q_end, b, win, marks);
                if let Some(died) = died {
                    for q2 in died + 1..q_end {
                        b.out[(q2 - q0) as usize * stride + r_idx] = died;
                    }
                }
                died
            }
        }
    }
}

impl Window {
    /// Overwrites `dst`'s words with this window's values (the values below
    /// this window's `64 * base` set).
    pub(crate) fn copy_into(&self, dst: &mut Window) {
        for (k, w) in (dst.base as usize..).zip(dst.bits.iter_mut()) {
            *w = match k.checked_sub(self.base as usize) {
                None => u64::MAX,
                Some(i) => self.word(i),
            };
        }
    }

    /// The window's words from absolute word `k >= base` on, the zero words
    /// at the end dropped.
    pub(crate) fn tail_from(&self, k: u32) -> Window {
        let start = ((k - self.base) as usize).min(self.bits.len());
        let mut bits = self.bits[start..].to_vec();
        trim(&mut bits);
        Window { base: k, bits }
    }

    /// Word `i` of the window (`0` past its end).
    #[inline]
    fn word(&self, i: usize) -> u64 {
        self.bits.get(i).copied().unwrap_or(0)
    }

    /// The word holding value `v` (absolute, `v >= 64 * base`), the words
    /// grown if `v` lies past them.
    #[inline]
    fn word_of(&mut self, v: u32) -> &mut u64 {
        let w = (v / 64 - self.base) as usize;
        if w >= self.bits.len() {
            self.bits.resize(w + 1, 0);
        }
        &mut self.bits[w]
    }

    /// The window based at column `q` holding the values `q + x` for the bits
    /// `x` set in `offsets` (as marking each of them would make it: no zero
    /// words at the end).
    pub(crate) fn from_offsets(q: u32, offsets: &[u64]) -> Window {
        let shift = q % 64;
        let mut bits = vec![0u64; offsets.len() + 1];
        for (i, &w) in offsets.iter().enumerate() {
            bits[i] |= w << shift;
            if shift > 0 {
                bits[i + 1] |= w >> (64 - shift);
            }
        }
        while bits.last() == Some(&0) {
            bits.pop();
        }
        Window { base: q / 64, bits }
    }

    /// Sets value `v` (absolute, `v >= 64 * base`).
    #[inline]
    pub(crate) fn mark(&mut self, v: u32) {
        *self.word_of(v) |= 1u64 << (v % 64);
    }

    /// Flips value `v` (absolute, `v >= 64 * base`).
    #[inline]
    pub(crate) fn toggle(&mut self, v: u32) {
        *self.word_of(v) ^= 1u64 << (v % 64);
    }

    /// Whether the window holds `v` (values below `64 * base` count as used).
    #[inline]
    pub(crate) fn has(&self, v: u32) -> bool {
        match (v / 64).checked_sub(self.base) {
            None => true,
            Some(w) => self.word(w as usize) >> (v % 64) & 1 == 1,
        }
    }

    /// How many values from `q` on a row `r` whose first free value is at
    /// least `low` has used without a gap (at most `r + 2`: its state's `lead`).
    pub(crate) fn lead(&self, r: u32, q: u32, low: u32) -> u32 {
        (self.next_free(low.max(q)) - q).min(r + 2)
    }

    /// The window's values `from .. to` (absolute, `from >= 64 * base`), 64 to a
    /// word, the last word padded with zeros.
    pub(crate) fn words_from(&self, from: u32, to: u32) -> impl Iterator<Item = u64> + '_ {
        debug_assert!(from >= 64 * self.base);
        let (first, shift) = ((from / 64 - self.base) as usize, from % 64);
        let n = to.saturating_sub(from);
        (0..n.div_ceil(64)).map(move |k| {
            let i = first + k as usize;
            let mut x = self.word(i) >> shift;
            if shift > 0 {
                x |= self.word(i + 1) << (64 - shift);
            }
            let left = n - 64 * k;
            if left < 64 {
                x & ((1u64 << left) - 1)
            } else {
                x
            }
        })
    }

    /// First value `>= from` (with `from >= 64 * base`) that is not in the window.
    #[inline]
    fn next_free(&self, from: u32) -> u32 {
        let mut w = (from / 64 - self.base) as usize;
        // Values below `from` in its word count as used.
        let mut word = self.word(w) | ((1u64 << (from % 64)) - 1);
        while word == u64::MAX {
            w += 1;
            word = self.word(w);
        }
        // A word of a window of fewer than 2^32 values (unchecked: the scan's
        // result, on every cell).
        #[allow(clippy::cast_possible_truncation)]
        let w = w as u32;
        (self.base + w) * 64 + (!word).trailing_zeros()
    }
}

impl Live {
    /// Whether the row lacks its set of differences.
    pub(crate) fn diff_missing(&self) -> bool {
        self.diff.is_none()
    }

    /// The row's state at column `q` (the values `>= q` it has used), its
    /// window being `win`.
    pub(crate) fn state(&self, win: &Window, r: u32, q: u32) -> State {
        let lead = win.lead(r, q, self.low);
        let mut bits: Vec<u64> = win.words_from(q + lead, q + r + 2).collect();
        trim(&mut bits);
        bits.shrink_to_fit();
        State { lead, bits }
    }

    /// Whether the row's state at column `q` is `s`, its window being `win`,
    /// without copying it.
    pub(crate) fn state_is(&self, win: &Window, r: u32, q: u32, s: &State) -> bool {
        let lead = win.lead(r, q, self.low);
        if lead != s.lead {
            return false;
        }
        let mut words = win.words_from(q + lead, q + r + 2);
        s.bits.iter().all(|&x| words.next() == Some(x)) && words.all(|x| x == 0)
    }

    /// The live part of [`Row::advance`]: returns the column where the row died,
    /// if it did (the caller fills the rest of the block).
    fn advance(
        &mut self,
        r: u32,
        q_from: u32,
        q_end: u32,
        b: &mut BlockOut,
        win: &mut Window,
        marks: &mut Vec<u32>,
    ) -> Option<u32> {
        let BlockOut {
            q0,
            ref mut used,
            used_words,
            ref mut out,
            stride,
            lo,
            ref mut below,
            ref mut carry,
        } = *b;
        // What rows that died below hand on (module's proof).
        match carry.as_mut() {
            None => self.diff = None,
            Some(c) => {
                if let Some(d) = self.diff.as_mut() {
                    d.extend(c.iter().filter(|&&x| x >= q_from));
                }
            }
        }
        clear(carry);
        let used_base = q0 / 64;
        let mut low = self.low;
        for q in q_from..q_end {
            let j = (q - q0) as usize;
            let column = &mut used[j * used_words..(j + 1) * used_words];
            // Least value >= q unused by the row; every value in [q, low) is used.
            low = win.next_free(low.max(q));
            let g = below[j];
            let v = match self.neighbour_answer(win, q, g, column, used_base) {
                Ok(v) => v,
                Err(start) => {
                    // Least value >= start used neither by the row nor by the column below.
                    let start = start.max(low);
                    let from = start / 64;
                    from * 64
                        + first_zero_of_union(
                            win.bits.get((from - win.base) as usize..).unwrap_or(&[]),
                            &column[(from - used_base) as usize..],
                            start % 64,
                        )
                }
            };
            win.mark(v);
            marks.push(v);
            column[(v / 64 - used_base) as usize] |= 1u64 << (v % 64);
            out[j * stride + (r - lo) as usize] = v;
            below[j] = v;
            if v == q {
                // f(q, r) = q: the row is constant from here on; the row above
                // takes over its differences and its neighbour's value here.
                **carry = self.diff.take().map(|mut d| {
                    d.push(g);
                    d
                });
                return Some(q);
            }
            self.after(win, q, v, g);
            if v == low {
                low += 1;
            }
        }
        self.low = low;
        None
    }

    /// The neighbour shortcut at column `q`, `g` the neighbour's value there:
    /// `Ok(v)` if an element of the set of differences is `f(q, r)`, else
    /// `Err(start)`, a value from which the scan may start.
    #[inline]
    fn neighbour_answer(
        &mut self,
        win: &Window,
        q: u32,
        g: u32,
        column: &[u64],
        used_base: u32,
    ) -> Result<u32, u32> {
        // Worked on in place: taking the set out and putting it back stored
        // and reloaded its three words on every cell, a stall the profile
        // put at a tenth of a census.
        let Some(diff) = self.diff.as_mut() else {
            return Err(q);
        };
        if g == NONE {
            self.diff = None;
            return Err(q);
        }
        let mut best = NONE;
        diff.retain(|&d| {
            let keep = d >= q && !win.has(d);
            if keep && d < g && d < best {
                let in_column = column[(d / 64 - used_base) as usize] >> (d % 64) & 1 == 1;
                if !in_column {
                    best = d;
                }
            }
            keep
        });
        if best != NONE { Ok(best) } else { Err(g + 1) }
    }

    /// Keeps the set of differences after column `q` (`v = f(q, r)`, `g` the
    /// neighbour's value): `v` leaves it, `g` joins it unless the row holds it.
    #[inline]
    fn after(&mut self, win: &Window, q: u32, v: u32, g: u32) {
        let Some(diff) = self.diff.as_mut() else {
            return;
        };
        if let Some(i) = diff.iter().position(|&d| d == v) {
            diff.swap_remove(i);
        }
        if g != NONE && g > q && !win.has(g) {
            diff.push(g);
        }
        if diff.len() > MAX_DIFF {
            self.diff = None;
        }
    }

    /// Rebuilds the set of differences at column `q`: the values of
    /// `candidates` (a superset of those the neighbour's window `x` holds and
    /// this row's does not) that `x` holds. Left unknown when there are more
    /// than [`MAX_DIFF`].
    pub(crate) fn set_diff(&mut self, q: u32, candidates: impl Iterator<Item = u32>, x: &Window) {
        let mut diff = Vec::new();
        for v in candidates.filter(|&v| v >= q && x.has(v)) {
            diff.push(v);
            if diff.len() > MAX_DIFF {
                return;
            }
        }
        self.diff = Some(diff);
    }
}

/// The values `>= q` in which two windows differ, from word `q / 64` on (a
/// window's values below its `64 * base` count as used).
pub(crate) fn differences(q: u32, x: &Window, y: &Window) -> Vec<u32> {
    if x.base == y.base && x.bits.len() == y.bits.len() {
        // The chain's narrow windows: word by word.
        // Below `64 * base` both count every value as used.
        let at = (q / 64).checked_sub(x.base).map(|w| w as usize);
        let first = at.unwrap_or(0).min(x.bits.len());
        let mut out = Vec::new();
        // Sixty-four words at a time, then eight, skipped when equal (as
        // nearly all are): each comparison is one call of the C library's
        // vector `memcmp`, whose cost per call was a twelfth of a census when
        // it was made for every eight words.
        let wide = x.bits[first..].chunks(64).zip(y.bits[first..].chunks(64));
        let pieces = wide
            .enumerate()
            .filter(|(_, (xs, ys))| xs != ys)
            .flat_map(|(m, (xs, ys))| {
                let narrow = xs.chunks(8).zip(ys.chunks(8)).enumerate();
                narrow.map(move |(n, pair)| (8 * m + n, pair))
            });
        for (n, (xs, ys)) in pieces {
            if xs == ys {
                continue;
            }
            for (j, (a, b)) in xs.iter().zip(ys).enumerate() {
                let k = first + 8 * n + j;
                let mut word = a ^ b;
                if Some(k) == at {
                    word &= !((1u64 << (q % 64)) - 1);
                }
                while word != 0 {
                    out.push(64 * (x.base + narrow::<u32, _>(k)) + word.trailing_zeros());
                    word &= word - 1;
                }
            }
        }
        return out;
    }
    let last = (x.base as usize + x.bits.len()).max(y.base as usize + y.bits.len());
    let mut out = Vec::new();
    for k in q as usize / 64..last {
        let abs = |w: &Window| match k.checked_sub(w.base as usize) {
            None => u64::MAX,
            Some(i) => w.word(i),
        };
        let mut word = abs(x) ^ abs(y);
        if k == q as usize / 64 {
            word &= !((1u64 << (q % 64)) - 1);
        }
        while word != 0 {
            out.push(64 * narrow::<u32, _>(k) + word.trailing_zeros());
            word &= word - 1;
        }
    }
    out
}

/// Empties a carry (keeping its allocation), or makes a known empty one.
fn clear(carry: &mut Option<Vec<u32>>) {
    match carry {
        Some(c) => c.clear(),
        None => *carry = Some(Vec::new()),
    }
}

/// Index of the first bit, at or after bit `skip` of word 0, that is clear in both
/// `a` and `b` (`a` may be shorter: its missing words are zero). The caller
/// guarantees there is one within `b`.
#[inline]
fn first_zero_of_union(a: &[u64], b: &[u64], skip: u32) -> u32 {
    let at = |i: usize| a.get(i).copied().unwrap_or(0);
    let first = at(0) | b[0] | ((1u64 << skip) - 1);
    if first != u64::MAX {
        return (!first).trailing_zeros();
    }
    let (a, b) = (a.get(1..).unwrap_or(&[]), &b[1..]);
    let at = |i: usize| a.get(i).copied().unwrap_or(0);
    let mut i = full_prefix(a, b);
    loop {
        let word = at(i) | b[i];
        if word != u64::MAX {
            // A word of a window of fewer than 2^32 values (unchecked: the
            // scan's result, on every cell).
            #[allow(clippy::cast_possible_truncation)]
            let i = i as u32;
            return (i + 1) * 64 + (!word).trailing_zeros();
        }
        i += 1;
    }
}

/// A count `i` of leading words with `a[k] | b[k]` all ones for every `k < i`
/// (the scan's bulk: on rows that have not settled yet it runs over hundreds of
/// words, and is the engine's hot spot). Hand-written rather than left to the
/// compiler: the test "all ones" over a group of words is one vector
/// instruction with AVX2, which the portable build (x86-64-v2) cannot assume.
#[inline]
fn full_prefix(a: &[u64], b: &[u64]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the processor has AVX-512F, checked just above.
        return unsafe { full_prefix_avx512(a, b) };
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, checked just above.
        return unsafe { full_prefix_avx2(a, b) };
    }
    full_prefix_words(a, b)
}

/// [`full_prefix`] four words at a time, one branch per 256 values.
fn full_prefix_words(a: &[u64], b: &[u64]) -> usize {
    let mut i = 0;
    for (x, y) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        let all = (x[0] | y[0]) & (x[1] | y[1]) & (x[2] | y[2]) & (x[3] | y[3]);
        if all != u64::MAX {
            break;
        }
        i += 4;
    }
    i
}

/// [`full_prefix`] with AVX2: eight words (512 values) per branch.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn full_prefix_avx2(a: &[u64], b: &[u64]) -> usize {
    use std::arch::x86_64::{__m256i, _mm256_and_si256, _mm256_loadu_si256, _mm256_or_si256};
    use std::arch::x86_64::{_mm256_set1_epi64x, _mm256_testc_si256};
    let n = a.len().min(b.len());
    let ones = _mm256_set1_epi64x(-1);
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: words i .. i + 8 are inside both slices (i + 8 <= n).
        let [x0, x1, y0, y1] = unsafe {
            let at = |s: &[u64], k: usize| s.as_ptr().add(k).cast::<__m256i>();
            [
                _mm256_loadu_si256(at(a, i)),
                _mm256_loadu_si256(at(a, i + 4)),
                _mm256_loadu_si256(at(b, i)),
                _mm256_loadu_si256(at(b, i + 4)),
            ]
        };
        let all = _mm256_and_si256(_mm256_or_si256(x0, y0), _mm256_or_si256(x1, y1));
        // testc: whether every bit set in `ones` is set in `all`.
        if _mm256_testc_si256(all, ones) == 0 {
            break;
        }
        i += 8;
    }
    i
}

/// [`full_prefix`] with AVX-512: sixteen words (1024 values) per branch.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn full_prefix_avx512(a: &[u64], b: &[u64]) -> usize {
    use std::arch::x86_64::{__m512i, _mm512_and_si512, _mm512_loadu_si512, _mm512_or_si512};
    use std::arch::x86_64::{_mm512_cmpneq_epi64_mask, _mm512_set1_epi64};
    let n = a.len().min(b.len());
    let ones = _mm512_set1_epi64(-1);
    let mut i = 0;
    while i + 16 <= n {
        // SAFETY: words i .. i + 16 are inside both slices (i + 16 <= n).
        let [x0, x1, y0, y1] = unsafe {
            let at = |s: &[u64], k: usize| s.as_ptr().add(k).cast::<__m512i>();
            [
                _mm512_loadu_si512(at(a, i)),
                _mm512_loadu_si512(at(a, i + 8)),
                _mm512_loadu_si512(at(b, i)),
                _mm512_loadu_si512(at(b, i + 8)),
            ]
        };
        let all = _mm512_and_si512(_mm512_or_si512(x0, y0), _mm512_or_si512(x1, y1));
        if _mm512_cmpneq_epi64_mask(all, ones) != 0 {
            break;
        }
        i += 16;
    }
    i
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

    /// The first bit clear in both, from bit `skip`, found one bit at a time.
    fn plain(a: &[u64], b: &[u64], skip: u32) -> u32 {
        (skip..)
            .find(|&x| (a[x as usize / 64] | b[x as usize / 64]) >> (x % 64) & 1 == 0)
            .unwrap()
    }

    #[test]
    fn differences_of_two_windows_are_the_values_one_lacks() {
        let mut rng = crate::base::test_rng::Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..200 {
            let (r, q) = (1 + (rng.next() % 700) as u32, (rng.next() % 5000) as u32);
            let values: Vec<u32> = (0..r + 2)
                .filter(|_| !rng.next().is_multiple_of(3))
                .map(|x| q + x)
                .collect();
            // x holds `values`; y the same but for a few, and a few more.
            let dropped: Vec<u32> = values
                .iter()
                .copied()
                .filter(|_| rng.next().is_multiple_of(50))
                .collect();
            let y_has = |v: u32| values.contains(&v) && !dropped.contains(&v) || v % 97 == 5;
            // Windows from a word at or below the column, stale bits below it.
            let build = |base: u32, has: &dyn Fn(u32) -> bool| {
                let mut w = Window {
                    base,
                    bits: Vec::new(),
                };
                for v in 64 * base..q + r + 2 {
                    if v < q && v % 3 == 0 || v >= q && has(v) {
                        w.mark(v);
                    }
                }
                w
            };
            let x = build(q / 64, &|v| values.contains(&v));
            let y = build((q / 64).saturating_sub(1), &y_has);
            let mut symmetric: Vec<u32> = (q..q + r + 2)
                .filter(|&v| values.contains(&v) != y_has(v))
                .collect();
            let mut got = differences(q, &x, &y);
            got.sort_unstable();
            symmetric.sort_unstable();
            assert_eq!(got, symmetric, "r {r} q {q}");
            let Row::Live(mut live) = Row::born(q) else {
                unreachable!()
            };
            live.set_diff(q, got.iter().copied(), &x);
            let want: Vec<u32> = dropped.iter().copied().filter(|&v| v % 97 != 5).collect();
            match (&live.diff, want.len() <= MAX_DIFF) {
                (Some(got), true) => assert_eq!(got, &want, "r {r} q {q}"),
                (None, false) => {}
                (got, _) => panic!("r {r} q {q}: {got:?} for {} values", want.len()),
            }
        }
    }

    #[test]
    fn the_union_scan_finds_the_first_common_zero() {
        // Words mostly full, with the one zero anywhere: every length of the
        // vector prefix and of the word-by-word tail.
        let mut rng = crate::base::test_rng::Rng(0x9e37_79b9_7f4a_7c15);
        let mut next = move || rng.next();
        for len in 1..70 {
            for _ in 0..40 {
                let mut a: Vec<u64> = (0..len).map(|_| next()).collect();
                let mut b: Vec<u64> = a.iter().map(|&x| !x | next()).collect();
                let skip = (next() % 64) as u32;
                let hole = skip + (next() % (64 * len as u64 - skip as u64)) as u32;
                let (w, bit) = (hole as usize / 64, hole % 64);
                a[w] &= !(1 << bit);
                b[w] &= !(1 << bit);
                let want = plain(&a, &b, skip);
                assert_eq!(first_zero_of_union(&a, &b, skip), want, "len {len}");
                // A window shorter than the column: its missing words are zero.
                let cut = (next() % (len as u64 + 1)) as usize;
                let mut padded = a[..cut].to_vec();
                padded.resize(len, 0);
                let want = plain(&padded, &b, skip);
                assert_eq!(first_zero_of_union(&a[..cut], &b, skip), want, "cut {cut}");
                let (a1, b1) = (&a[1..], &b[1..]);
                let words = full_prefix_words(a1, b1);
                assert!((0..words).all(|k| a1[k] | b1[k] == u64::MAX));
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: checked just above.
                    let wide = unsafe { full_prefix_avx2(a1, b1) };
                    assert!((0..wide).all(|k| a1[k] | b1[k] == u64::MAX));
                    let first_gap = (0..a1.len()).find(|&k| a1[k] | b1[k] != u64::MAX);
                    assert!(first_gap.is_none_or(|g| g < wide + 8), "stops at the group");
                }
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx512f") {
                    // SAFETY: checked just above.
                    let wide = unsafe { full_prefix_avx512(a1, b1) };
                    assert!((0..wide).all(|k| a1[k] | b1[k] == u64::MAX));
                    let first_gap = (0..a1.len()).find(|&k| a1[k] | b1[k] != u64::MAX);
                    assert!(
                        first_gap.is_none_or(|g| g < wide + 16),
                        "stops at the group"
                    );
                }
            }
        }
    }
}
