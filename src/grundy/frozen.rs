//! Sets of values seen from the current `p`, for the census's sweep
//! ([`super::lines`]): a value `p + x` is bit `x + bias` ([`Layout`]). A
//! [`RelSet`] is filled and emptied within one step; a [`Table`] holds, for
//! every residue of `p` modulo its period, the union of the values of a group
//! of lines that are all periodic from before the current `p`, so the group
//! costs one word read per step instead of one value per line.
//!
//! Hand-made rather than a bitset crate: these are read a word at a time in
//! the mex, the engine's inner loop, and a table's rows must be laid out by
//! residue.

use super::lines::Pattern;

/// Where a value lands in a relative set: `x = value - p` is bit `x + bias`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    bias: i32,
    words: usize,
}

impl Layout {
    /// The layout for the lines `q <= q_max` with room for `x >= -below`
    /// (`below` rounded up to a multiple of 64). Above: `G(p,q,r)` is the mex
    /// of at most `p - 1 + q + r` option values, so `x <= q + r - 1 <= 2Q - 1`.
    /// Below there is no bound: a value can fill a hole left far back, so the
    /// sweep reports a value below the window ([`Layout::fits`]) and the
    /// census starts again with a wider one.
    pub(super) fn new(q_max: u32, below: u32) -> Layout {
        let bias = 64 * (below as usize).div_ceil(64);
        let words = (bias + 2 * q_max as usize).div_ceil(64).max(1);
        assert!(
            words <= 128,
            "Q = {q_max} is beyond the relative sets' 128 words"
        );
        Layout {
            bias: bias as i32,
            words,
        }
    }

    /// A first window for the lines `q <= q_max`: `x >= -(2Q + 64)`.
    pub(super) fn first_guess(q_max: u32) -> u32 {
        2 * q_max + 64
    }

    /// The number of words of a relative set.
    pub(super) fn words(&self) -> usize {
        self.words
    }

    /// The bias: bit 0 stands for the value `p - bias`.
    pub(super) fn bias(&self) -> i32 {
        self.bias
    }

    /// Whether `x = value - p` has a bit (above, it always has).
    #[inline]
    pub(super) fn fits(&self, x: i32) -> bool {
        x >= -self.bias
    }

    /// The bit of `x = value - p`, which must fit.
    #[inline]
    pub(super) fn bit(&self, x: i32) -> usize {
        let b = x + self.bias;
        assert!(
            b >= 0 && (b as usize) < 64 * self.words,
            "G - p = {x} is outside the census's window (-{}..{})",
            self.bias,
            64 * self.words as i32 - self.bias
        );
        b as usize
    }
}

/// A relative set emptied in time proportional to the words it touched.
#[derive(Clone, Debug)]
pub(super) struct RelSet {
    words: Vec<u64>,
    /// Bit `k`: word `k` may be non-zero.
    touched: u128,
}

impl RelSet {
    /// An empty set of `layout`'s size.
    pub(super) fn new(layout: &Layout) -> RelSet {
        RelSet {
            words: vec![0; layout.words()],
            touched: 0,
        }
    }

    /// Adds bit `b`.
    #[inline]
    pub(super) fn insert(&mut self, b: usize) {
        self.words[b / 64] |= 1 << (b % 64);
        self.touched |= 1u128 << (b / 64);
    }

    /// Word `k` (0 past the end).
    #[inline]
    pub(super) fn word(&self, k: usize) -> u64 {
        self.words.get(k).copied().unwrap_or(0)
    }

    /// Empties the set.
    #[inline]
    pub(super) fn clear(&mut self) {
        let mut t = self.touched;
        while t != 0 {
            self.words[t.trailing_zeros() as usize] = 0;
            t &= t - 1;
        }
        self.touched = 0;
    }
}

/// The most words a table may hold (16 MiB); a line whose period would take a
/// table past this stays out of it (and is evaluated on its own).
const MAX_WORDS: usize = 1 << 21;

/// The union of the values of some lines, each periodic from before the
/// current `p`, stored for each residue of `p` modulo `period` (a common
/// multiple of the lines' periods): row `t` holds the words `lo .. lo + width`
/// of the relative set at every `p` with `p % period == t`.
#[derive(Clone, Debug)]
pub(super) struct Table {
    period: u64,
    lo: usize,
    width: usize,
    rows: Vec<u64>,
    /// `p % period` at the current `p`.
    phase: usize,
}

impl Table {
    /// The empty table.
    pub(super) fn empty() -> Table {
        Table {
            period: 1,
            lo: 0,
            width: 0,
            rows: Vec::new(),
            phase: 0,
        }
    }

    /// Word `k` of the set at the current `p`.
    #[inline]
    pub(super) fn word(&self, k: usize) -> u64 {
        let i = k.wrapping_sub(self.lo);
        if i < self.width {
            self.rows[self.phase * self.width + i]
        } else {
            0
        }
    }

    /// Moves to the next `p`.
    #[inline]
    pub(super) fn advance(&mut self) {
        self.phase += 1;
        if self.phase as u64 == self.period {
            self.phase = 0;
        }
    }

    /// Adds the line with `pattern` (periodic from `pattern.from <= p`), `p`
    /// being the current one; false (and the table unchanged) if its size
    /// would pass [`MAX_WORDS`].
    pub(super) fn add(&mut self, pattern: &Pattern, layout: &Layout, p: u32) -> bool {
        debug_assert!(pattern.from <= p + 1);
        let k = pattern.period() as u64;
        let period = self.period / gcd(self.period, k) * k;
        let bits: Vec<usize> = pattern.x.iter().map(|&x| layout.bit(x as i32)).collect();
        let (lo_p, hi_p) = (
            bits.iter().min().unwrap() / 64,
            bits.iter().max().unwrap() / 64 + 1,
        );
        let (lo, hi) = if self.width == 0 {
            (lo_p, hi_p)
        } else {
            (self.lo.min(lo_p), (self.lo + self.width).max(hi_p))
        };
        let width = hi - lo;
        if period.saturating_mul(width as u64) > MAX_WORDS as u64 {
            return false;
        }
        if period != self.period || lo != self.lo || width != self.width {
            let mut rows = vec![0u64; period as usize * width];
            for t in 0..period as usize {
                let old = t % self.period as usize;
                for i in 0..self.width {
                    rows[t * width + self.lo - lo + i] = self.rows[old * self.width + i];
                }
            }
            *self = Table {
                period,
                lo,
                width,
                rows,
                phase: 0,
            };
        }
        // Row t is every p = t mod period; there x = pattern at (p - from) mod k,
        // which is (t - from) mod k because k divides the period.
        for t in 0..period {
            let i = (t as i64 - pattern.from as i64).rem_euclid(k as i64) as usize;
            let b = bits[i];
            self.rows[t as usize * width + b / 64 - lo] |= 1 << (b % 64);
        }
        self.phase = (p as u64 % period) as usize;
        true
    }
}

/// Greatest common divisor.
pub(super) fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    #[test]
    fn a_table_holds_the_union_of_its_lines_at_every_p() {
        let layout = Layout::new(40, Layout::first_guess(40));
        let mut rng = Rng(5);
        let lines: Vec<Pattern> = [(3u32, 4usize), (10, 6), (7, 1), (0, 9), (12, 12)]
            .iter()
            .map(|&(from, k)| Pattern {
                from,
                x: (0..k).map(|_| (rng.next() % 100) as i16 - 45).collect(),
            })
            .collect();
        let mut table = Table::empty();
        let p0 = 12;
        for l in &lines {
            assert!(table.add(l, &layout, p0));
        }
        for p in p0..p0 + 200 {
            if p > p0 {
                table.advance();
            }
            let mut want = RelSet::new(&layout);
            for l in &lines {
                want.insert(layout.bit(l.at(p) as i32));
            }
            for k in 0..layout.words() + 2 {
                assert_eq!(table.word(k), want.word(k), "p = {p}, word {k}");
            }
        }
    }

    #[test]
    fn a_relative_set_forgets_on_clear() {
        let layout = Layout::new(100, Layout::first_guess(100));
        let mut s = RelSet::new(&layout);
        for b in [0, 63, 64, 200, 64 * layout.words() - 1] {
            s.insert(b);
        }
        assert_eq!(s.word(0), 1 | 1 << 63);
        s.clear();
        assert!((0..layout.words()).all(|k| s.word(k) == 0));
    }
}
