//! Sets of values seen from the current `p`, for the census's sweep
//! ([`super::lines`]): a value `p + x` is bit `x + bias` ([`Layout`]), in a
//! `Taken` set (filled and emptied within one step) or a [`Table`], which holds, for
//! every residue of `p` modulo its period, the union of the values of a group
//! of lines that are all periodic from before the current `p`, so the group
//! costs one word read per step instead of one value per line.
//!
//! Hand-made rather than a bitset crate: these are read a word at a time in
//! the mex, the engine's inner loop, and a table's rows must be laid out by
//! residue.

use super::pattern::Pattern;
use crate::base::bytes::narrow;
use crate::base::numeric::lcm;

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
            bias: narrow::<i32, _>(bias),
            words,
        }
    }

    /// A first window for the lines `q <= q_max`: `x >= -(2Q + 64)`.
    pub(super) fn first_guess(q_max: u32) -> u32 {
        2 * q_max + 64
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
            usize::try_from(b).is_ok_and(|b| b < 64 * self.words),
            "G - p = {x} is outside the census's window (-{}..{})",
            self.bias,
            64 * narrow::<i32, _>(self.words) - self.bias
        );
        narrow::<usize, _>(b)
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
        let period = lcm(self.period, k);
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
            let mut rows = vec![0u64; narrow::<usize, _>(period) * width];
            for t in 0..narrow::<usize, _>(period) {
                let old = t % narrow::<usize, _>(self.period);
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
            let i = narrow::<usize, _>(
                (t.cast_signed() - pattern.from as i64).rem_euclid(k.cast_signed()),
            );
            let b = bits[i];
            self.rows[narrow::<usize, _>(t) * width + b / 64 - lo] |= 1 << (b % 64);
        }
        self.phase = narrow::<usize, _>(p as u64 % period);
        true
    }
}

#[cfg(test)]
// Test data: small numbers made by the tests themselves.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]
mod tests {
    use super::super::index::Taken;
    use super::*;
    use crate::base::test_rng::Rng;

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
            let mut want = Taken::default();
            for l in &lines {
                want.insert(layout.bit(l.at(p) as i32) as u32);
            }
            for k in 0..layout.words + 2 {
                assert_eq!(table.word(k), want.word(k), "p = {p}, word {k}");
            }
        }
    }
}
