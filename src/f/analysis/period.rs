//! Finding the eventual period of a finite sequence (the offsets `f(q,r) - q` of a
//! row), with no cap on the period: evidence within the data, not proof.

/// A periodic tail found in a finite sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tail {
    /// Index where the periodic part starts (the least one for this period).
    pub start: usize,
    /// The least period of that part.
    pub period: usize,
}

/// The periodic tail of `s` that repeats at least three times, or `None`.
///
/// Among the periods `p` whose periodic suffix has length `>= 3p`, it takes the
/// one whose suffix is longest, and the smallest such `p`. (The smallest `p` alone
/// would be fooled by a pattern that happens to end in three equal values; for
/// multiples of the true period the suffix is never longer, so the true period
/// wins the tie.) Linear time: the Z-function of the reversed sequence gives, for
/// every `p`, the length of the longest suffix with period `p`.
pub fn periodic_tail(s: &[i64]) -> Option<Tail> {
    let n = s.len();
    let rev: Vec<i64> = s.iter().rev().copied().collect();
    let z = z_function(&rev);
    let mut best: Option<(usize, usize)> = None; // (suffix length, period)
    for (p, &zp) in z.iter().enumerate().take(n / 3 + 1).skip(1) {
        let len = zp + p;
        if len >= 3 * p && best.is_none_or(|(l, _)| len > l) {
            best = Some((len, p));
        }
    }
    best.map(|(len, period)| Tail {
        start: n - len,
        period,
    })
}

/// `z[i]` = length of the longest common prefix of `t` and `t[i..]` (`z[0] = n`).
fn z_function(t: &[i64]) -> Vec<usize> {
    let n = t.len();
    let mut z = vec![0; n];
    if n == 0 {
        return z;
    }
    z[0] = n;
    let (mut l, mut r) = (0, 0);
    for i in 1..n {
        if i < r {
            z[i] = z[i - l].min(r - i);
        }
        while i + z[i] < n && t[z[i]] == t[i + z[i]] {
            z[i] += 1;
        }
        if i + z[i] > r {
            l = i;
            r = i + z[i];
        }
    }
    z
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

    /// `pre` then `pattern` repeated to `len` values in all.
    fn row(pre: &[i64], pattern: &[i64], len: usize) -> Vec<i64> {
        let mut s = pre.to_vec();
        s.extend(pattern.iter().cycle().take(len - pre.len()));
        s
    }

    /// A pattern of length `p` with no smaller period, built from a seed.
    fn pattern(p: usize, seed: i64) -> Vec<i64> {
        let mut v: Vec<i64> = (0..p as i64).map(|i| (i * 7 + seed) % 11 + 20).collect();
        v[p - 1] = 99; // one marker makes the least period exactly p
        v
    }

    #[test]
    fn finds_each_period_and_preperiod() {
        for p in [1usize, 2, 3, 9, 25, 700] {
            for pre_len in [0usize, 1, 5, 40, 333] {
                let pre: Vec<i64> = (0..pre_len as i64).map(|i| 1000 + i).collect();
                let pat = pattern(p, 3);
                let s = row(&pre, &pat, pre_len + 3 * p + 17);
                let tail = periodic_tail(&s).unwrap_or_else(|| panic!("p {p} pre {pre_len}"));
                assert_eq!(
                    tail,
                    Tail {
                        start: pre_len,
                        period: p
                    },
                    "p {p} pre {pre_len}"
                );
            }
        }
    }

    #[test]
    fn preperiod_that_looks_like_the_pattern_is_absorbed() {
        // The last preperiod value equals the pattern's last: the true start is earlier.
        let s = row(&[5, 99], &[1, 99], 40);
        assert_eq!(
            periodic_tail(&s),
            Some(Tail {
                start: 1,
                period: 2
            })
        );
    }

    #[test]
    fn a_pattern_ending_in_a_run_is_not_mistaken_for_period_one() {
        let pat = vec![4, 8, 15, 16, 23, 42, 7, 7, 7];
        let s = row(&[], &pat, 9 * 6); // ends with 7, 7, 7
        assert_eq!(
            periodic_tail(&s),
            Some(Tail {
                start: 0,
                period: 9
            })
        );
    }

    #[test]
    fn fewer_than_three_repeats_is_open() {
        let pat = pattern(25, 1);
        let s = row(&[1, 2, 3], &pat, 3 + 2 * 25 + 10);
        assert_eq!(periodic_tail(&s), None);
        let rising: Vec<i64> = (0..500).collect();
        assert_eq!(periodic_tail(&rising), None);
        assert_eq!(periodic_tail(&[]), None);
    }
}
