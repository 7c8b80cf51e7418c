//! Integer helpers the games' proofs share: divisors and least common
//! multiples of periods. Uses nothing else in the crate.

/// The divisors of `k`, increasing.
pub fn divisors(k: u64) -> Vec<u64> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1;
    while d * d <= k {
        if k.is_multiple_of(d) {
            small.push(d);
            if d * d != k {
                large.push(k / d);
            }
        }
        d += 1;
    }
    small.extend(large.into_iter().rev());
    small
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Least common multiple, saturating at `u64::MAX`.
pub fn lcm(a: u64, b: u64) -> u64 {
    (a / gcd(a, b)).saturating_mul(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcm_and_divisors() {
        assert_eq!(lcm(4, 6), 12);
        assert_eq!(lcm(1, 9), 9);
        assert_eq!(lcm(u64::MAX, 2), u64::MAX);
        assert_eq!(divisors(12), [1, 2, 3, 4, 6, 12]);
        assert_eq!(divisors(1), [1]);
        assert_eq!(divisors(97), [1, 97]);
    }
}
