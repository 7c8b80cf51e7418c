//! How often a long run saves or commits: a number of seconds, checked the
//! same way for every front end. Uses nothing else in the crate.

use std::time::Duration;

/// The most seconds between two saves: 10^7, about 116 days.
pub const MAX_SECONDS: f64 = 1e7;

/// A number of seconds that is no interval: negative, past [`MAX_SECONDS`],
/// or not a number.
#[derive(Debug, thiserror::Error)]
#[error("a number of seconds from 0 to 10000000 (about 116 days), not {0}")]
pub struct NotAnInterval(pub f64);

/// `seconds` as a duration, if it is a number from 0 to [`MAX_SECONDS`].
pub fn interval(seconds: f64) -> Result<Duration, NotAnInterval> {
    match (0.0..=MAX_SECONDS).contains(&seconds) {
        true => Ok(Duration::from_secs_f64(seconds)),
        false => Err(NotAnInterval(seconds)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_seconds_from_zero_to_the_most_are_intervals() {
        assert_eq!(interval(0.0).unwrap(), Duration::ZERO);
        assert_eq!(interval(1e7).unwrap(), Duration::from_secs(10_000_000));
        for bad in [-0.5, 1.0000001e7, 1e20, f64::INFINITY, f64::NAN] {
            assert!(interval(bad).is_err(), "{bad}");
        }
    }
}
