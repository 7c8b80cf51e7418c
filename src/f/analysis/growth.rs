//! Growth statistics of a sequence against a line `c n`: least-squares fit of the
//! deviation, its extremes, and the frequencies of successive differences.

use std::collections::BTreeMap;

use serde::Serialize;

/// The three growth deviations of doc/chomp.md section 4.
#[derive(Clone, Debug, Serialize)]
pub struct Growth {
    /// `d_n - a n`, the diagonal.
    #[serde(rename = "d_n")]
    pub d: Deviation,
    /// `q_n - b n`, the constant-row starts.
    #[serde(rename = "q_n")]
    pub q: Deviation,
    /// `r_n - a n`, the constant rows.
    #[serde(rename = "r_n")]
    pub r: Deviation,
}

impl Growth {
    /// From the diagonal `d_0, d_1, ...` and the constant rows `(q_n, r_n)`,
    /// `n = 1, 2, ...`.
    pub fn of(diagonal: &[u32], starts: &[(u32, u32)]) -> Growth {
        let q: Vec<u64> = starts.iter().map(|&(q, _)| q as u64).collect();
        let r: Vec<u64> = starts.iter().map(|&(_, r)| r as u64).collect();
        let d: Vec<u64> = diagonal.iter().map(|&v| v as u64).collect();
        Growth {
            d: deviation(&d, 0, A),
            q: deviation(&q, 1, B),
            r: deviation(&r, 1, A),
        }
    }

    /// The three, with their names as `x_n - c n` and their constant's name.
    pub fn named(&self) -> [(&'static str, &'static str, &Deviation); 3] {
        [
            ("d_n", "a", &self.d),
            ("q_n", "b", &self.q),
            ("r_n", "a", &self.r),
        ]
    }
}

/// `a = 1 + 1/sqrt 2`, the growth rate of `d_n` and `r_n`.
pub const A: f64 = 1.0 + std::f64::consts::FRAC_1_SQRT_2;
/// `b = 1 + sqrt 2`, the growth rate of `q_n`.
pub const B: f64 = 1.0 + std::f64::consts::SQRT_2;

/// How `x_n - c n` behaves over the terms given.
#[derive(Clone, Debug, Serialize)]
pub struct Deviation {
    /// The constant `c`.
    pub c: f64,
    /// Terms used (`n` from `first_n` to `last_n`).
    pub first_n: u64,
    /// Last index used.
    pub last_n: u64,
    /// Least-squares line `x_n - c n ~ slope n + intercept`.
    pub slope: f64,
    /// Its intercept.
    pub intercept: f64,
    /// Smallest deviation and the `n` where it first occurs.
    pub min: f64,
    /// Where the minimum is.
    pub min_at: u64,
    /// Largest deviation and the `n` where it first occurs.
    pub max: f64,
    /// Where the maximum is.
    pub max_at: u64,
    /// Successive differences `x_{n+1} - x_n` and how often each occurs.
    pub differences: BTreeMap<i64, u64>,
    /// The deviation by runs of consecutive `n` (at most [`BINS`] of them), for
    /// figures that must show structure at 10^5 to 10^6 points.
    #[serde(skip)]
    pub bins: Vec<Bin>,
}

/// Runs of `n` kept in [`Deviation::bins`] (a few pixels each in a figure).
pub(crate) const BINS: usize = 600;

/// The deviation over one run of consecutive `n`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bin {
    /// First `n` of the run.
    pub first_n: u64,
    /// Last `n` of the run.
    pub last_n: u64,
    /// Minimum, 5 %, 25 %, 50 %, 75 %, 95 % quantiles and maximum (the value at
    /// rank `floor(k (m - 1))` among the run's `m` sorted values).
    pub quantiles: [f64; 7],
}

/// The quantile levels of [`Bin::quantiles`].
pub(crate) const LEVELS: [f64; 7] = [0.0, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0];

impl Bin {
    fn of(first_n: u64, ys: &mut [f64]) -> Bin {
        ys.sort_by(f64::total_cmp);
        // `k` is a level in [0, 1], so the index lies in `0 .. ys.len()`.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let at = |k: f64| ys[(k * (ys.len() - 1) as f64) as usize];
        Bin {
            first_n,
            last_n: first_n + ys.len() as u64 - 1,
            quantiles: LEVELS.map(at),
        }
    }
}

/// Statistics of `x_n - c n` for `n = first_n, first_n + 1, ...` (`xs` non-empty).
pub(crate) fn deviation(xs: &[u64], first_n: u64, c: f64) -> Deviation {
    let mut d = Deviation {
        c,
        first_n,
        last_n: first_n + xs.len() as u64 - 1,
        slope: 0.0,
        intercept: 0.0,
        min: f64::INFINITY,
        min_at: 0,
        max: f64::NEG_INFINITY,
        max_at: 0,
        differences: BTreeMap::new(),
        bins: Vec::new(),
    };
    let per = xs.len().div_ceil(BINS).max(1);
    let mut bucket = Vec::with_capacity(per);
    let (mut sn, mut sy, mut snn, mut sny) = (0.0, 0.0, 0.0, 0.0);
    for (i, &x) in xs.iter().enumerate() {
        let n = first_n + i as u64;
        let y = x as f64 - c * n as f64;
        let nf = n as f64;
        sn += nf;
        sy += y;
        snn += nf * nf;
        sny += nf * y;
        if y < d.min {
            (d.min, d.min_at) = (y, n);
        }
        if y > d.max {
            (d.max, d.max_at) = (y, n);
        }
        bucket.push(y);
        if (i + 1) % per == 0 || i + 1 == xs.len() {
            let first = n + 1 - bucket.len() as u64;
            d.bins.push(Bin::of(first, &mut bucket));
            bucket.clear();
        }
    }
    let m = xs.len() as f64;
    let denom = m * snn - sn * sn;
    if denom != 0.0 {
        d.slope = (m * sny - sn * sy) / denom;
        d.intercept = (sy - d.slope * sn) / m;
    } else {
        d.intercept = sy / m;
    }
    for w in xs.windows(2) {
        *d.differences
            .entry((w[1]).cast_signed() - (w[0]).cast_signed())
            .or_default() += 1;
    }
    d
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

    #[test]
    fn fits_a_known_line_and_finds_extremes() {
        // x_n = 3n + 2 + (1 at n = 4, -2 at n = 7)
        let xs: Vec<u64> = (0..10u64)
            .map(|n| 3 * n + 2 + [0, 0, 0, 0, 1, 0, 0, 0, 0, 0][n as usize])
            .collect();
        let mut xs = xs;
        xs[7] -= 2;
        let d = deviation(&xs, 0, 1.0);
        assert_eq!((d.min_at, d.max_at), (0, 9));
        let e = deviation(&xs, 0, 3.0);
        assert_eq!((e.min, e.min_at, e.max, e.max_at), (0.0, 7, 3.0, 4));
        // By hand: sum (n - 4.5) * delta_n / sum (n - 4.5)^2 = -5.5 / 82.5.
        assert!((e.slope + 5.5 / 82.5).abs() < 1e-12, "{}", e.slope);
        assert_eq!(e.differences.get(&3), Some(&5));
        assert_eq!(e.differences.get(&5), Some(&1));
        // Ten values make ten runs of one: each run's quantiles are its value.
        assert_eq!(e.bins.len(), 10);
        assert_eq!(e.bins[7].quantiles, [0.0; 7]);
        assert_eq!(e.bins[4].quantiles, [3.0; 7]);
    }

    #[test]
    fn bins_hold_the_quantiles_of_their_run() {
        // 0, 1, ..., 99 in one run (c = 0): quantile k is at rank floor(99 k).
        let xs: Vec<u64> = (0..100).collect();
        let mut b = vec![];
        let ys: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
        b.extend(ys);
        let bin = Bin::of(0, &mut b);
        assert_eq!(bin.quantiles, [0.0, 4.0, 24.0, 49.0, 74.0, 94.0, 99.0]);
        assert_eq!((bin.first_n, bin.last_n), (0, 99));
        let d = deviation(&(0..6000).collect::<Vec<u64>>(), 0, 1.0);
        assert_eq!(d.bins.len(), BINS);
        assert!(d.bins.iter().all(|b| b.quantiles == [0.0; 7]));
        assert_eq!(d.bins.last().unwrap().last_n, 5999);
    }
}
