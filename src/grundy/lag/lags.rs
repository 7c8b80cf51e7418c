//! The leading sweep's record of each line's last difference at every small
//! lag (`e <= SMALL`), kept as a shift register per line and updated with a
//! hand-written SSE4.1 step: the quick answer to "is `e` a period" once a
//! line is proved. Part of the census of periods (`super`).

use super::*;

/// Lags up to which the leading sweep keeps each line's last difference.
pub(super) const SMALL: usize = 8;

/// For every line and every lag `e <= SMALL`, the last `p` of the leading
/// sweep with `x(p) != x(p - e)` (or a `p < first + e`, before there were
/// two values): when a line is proved at `c`, the leading sweep has passed
/// `c + L`, so a divisor `e` of `L` is a period of the line iff this is at
/// most `c + e` (no difference among `L - e` consecutive values after `c`,
/// which with period `L` is every `p > c`; a later difference refutes).
///
/// Each line's last values are a shift register (`hist[i]` is `x(p - i)`
/// after step `p`, [`ABSENT`] before its first `p`), so that a step compares
/// and updates all lags at once, in a few vector instructions: this runs
/// once per line and step, and a loop over the lags cost a fifth of the
/// sweep.
pub(super) struct Lags {
    pub(super) lags: Vec<u32>,
    pub(super) hist: Vec<[i16; SMALL]>,
    pub(super) last: Vec<[u32; SMALL]>,
}

/// Some lines of a [`Lags`], from line `from` on.
pub(super) struct LagsPart<'a> {
    pub(super) hist: &'a mut [[i16; SMALL]],
    pub(super) last: &'a mut [[u32; SMALL]],
    pub(super) from: usize,
}

impl LagsPart<'_> {
    /// Takes in `x(p)` of line `at` (counted from line 0).
    #[inline]
    pub(super) fn observe(&mut self, at: usize, p: u32, x: i16) {
        let i = at - self.from;
        shift_in(&mut self.hist[i], &mut self.last[i], p, x);
    }
}

/// One step of a line's record: `last[e] = p` where `x != h[e]` (the value
/// `e + 1` steps back), then `x` shifted in. By hand in SSE4.1 where the
/// build has it (every build of `.cargo/config.toml`): the compiler makes
/// a branch per lag of the plain loop, and this runs once per line and step
/// of the leading sweep.
#[inline(always)]
pub(super) fn shift_in(h: &mut [i16; SMALL], last: &mut [u32; SMALL], p: u32, x: i16) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse4.1"))]
    {
        use std::arch::x86_64::*;
        const _: () = assert!(SMALL == 8);
        // SAFETY: SSE4.1 is enabled at compile time; the loads and stores
        // are unaligned ones within `h` (16 bytes) and `last` (32 bytes).
        unsafe {
            let hv = _mm_loadu_si128(h.as_ptr() as *const __m128i);
            let same = _mm_cmpeq_epi16(hv, _mm_set1_epi16(x));
            let (lo, hi) = (
                last.as_mut_ptr() as *mut __m128i,
                last.as_mut_ptr().add(4) as *mut __m128i,
            );
            let pv = _mm_set1_epi32(p.cast_signed());
            let keep_lo = _mm_cvtepi16_epi32(same);
            let keep_hi = _mm_cvtepi16_epi32(_mm_srli_si128::<8>(same));
            _mm_storeu_si128(lo, _mm_blendv_epi8(pv, _mm_loadu_si128(lo), keep_lo));
            _mm_storeu_si128(hi, _mm_blendv_epi8(pv, _mm_loadu_si128(hi), keep_hi));
            let shifted = _mm_insert_epi16::<0>(_mm_slli_si128::<2>(hv), x as i32);
            _mm_storeu_si128(h.as_mut_ptr() as *mut __m128i, shifted);
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse4.1")))]
    shift_in_plain(h, last, p, x);
}

/// [`shift_in`] as a plain loop.
#[cfg_attr(
    all(target_arch = "x86_64", target_feature = "sse4.1"),
    allow(dead_code)
)]
pub(super) fn shift_in_plain(h: &mut [i16; SMALL], last: &mut [u32; SMALL], p: u32, x: i16) {
    for e in 0..SMALL {
        if h[e] != x {
            last[e] = p;
        }
    }
    h.copy_within(0..SMALL - 1, 1);
    h[0] = x;
}

impl Lags {
    pub(super) fn new(divs: &[u32], n: usize) -> Lags {
        Lags {
            lags: divs
                .iter()
                .copied()
                .filter(|&d| d as usize <= SMALL)
                .collect(),
            hist: vec![[ABSENT; SMALL]; n],
            last: vec![[0; SMALL]; n],
        }
    }

    /// Every line, to be fed.
    pub(super) fn whole(&mut self) -> LagsPart<'_> {
        self.split(0).1
    }

    /// The lines below `at` and those from `at` on, to be fed apart.
    pub(super) fn split(&mut self, at: usize) -> (LagsPart<'_>, LagsPart<'_>) {
        let (h0, h1) = self.hist.split_at_mut(at);
        let (l0, l1) = self.last.split_at_mut(at);
        (
            LagsPart {
                hist: h0,
                last: l0,
                from: 0,
            },
            LagsPart {
                hist: h1,
                last: l1,
                from: at,
            },
        )
    }

    /// Whether `e` (one of the lags) is a period of the line `at` proved at
    /// `c` (the leading sweep being past `c + L`).
    pub(super) fn period(&self, at: usize, e: u32, c: u32) -> Option<bool> {
        self.lags
            .contains(&e)
            .then(|| self.last[at][e as usize - 1] <= c + e)
    }

    /// Writes the record after step `p` (format 2: each line's last values
    /// at `p % SMALL`, then its last differences at the divisors of `L` up
    /// to `SMALL`; a value before the line's first `p` as 0).
    pub(super) fn save(&self, w: &mut dyn Write, p: u32) -> io::Result<()> {
        for h in &self.hist {
            let mut ring = [0i16; SMALL];
            for (i, &x) in h.iter().enumerate() {
                if x != ABSENT {
                    ring[(p as usize + SMALL - i) % SMALL] = x;
                }
            }
            put32s(w, ring.iter().map(|&x| x.cast_unsigned() as u32))?;
        }
        for last in &self.last {
            put32s(w, self.lags.iter().map(|&e| last[e as usize - 1]))?;
        }
        Ok(())
    }

    /// Reads a record written by [`Lags::save`] after step `p`, the lines'
    /// first `p` being `first`.
    pub(super) fn load(&mut self, r: &mut dyn Read, p: u32, first: &[u32]) -> io::Result<()> {
        for (h, &f) in self.hist.iter_mut().zip(first) {
            let mut ring = [0i16; SMALL];
            for x in ring.iter_mut() {
                *x = get16(r)?;
            }
            for (i, x) in h.iter_mut().enumerate() {
                let at = p as i64 - narrow::<i64, _>(i);
                *x = match at >= f as i64 {
                    true => ring[narrow::<usize, _>(at) % SMALL],
                    false => ABSENT,
                };
            }
        }
        for last in &mut self.last {
            // Lags not kept: as if every step differed (never asked for).
            *last = [p; SMALL];
            for &e in &self.lags {
                last[e as usize - 1] = get32(r)?;
            }
        }
        Ok(())
    }
}
