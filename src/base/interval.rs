//! How often a long run saves or commits: a number of seconds, checked the
//! same way for every front end. Uses nothing else in the crate.

use std::time::Duration;

/// The most seconds between two saves: 10^7, about 116 days.
pub const MAX_SECONDS: f64 = 1e7;

/// A number of seconds that is no interval: negative, past [`MAX_SECONDS`],
/// or not a number; it holds what was given, as it was written.
#[derive(Debug, thiserror::Error)]
#[error("a number of seconds from 0 to 10000000 (about 116 days), not {0}")]
pub struct NotAnInterval(pub String);

/// `seconds` as a duration, if it is a number from 0 to [`MAX_SECONDS`].
pub fn interval(seconds: f64) -> Result<Duration, NotAnInterval> {
    within(seconds).ok_or_else(|| NotAnInterval(seconds.to_string()))
}

/// The number of seconds written `text` as a duration; the refusal quotes
/// `text` itself, not the nearest float to it (a number of twenty digits is
/// not read back rounded).
pub fn parse(text: &str) -> Result<Duration, NotAnInterval> {
    text.parse::<f64>()
        .ok()
        .and_then(within)
        .ok_or_else(|| NotAnInterval(text.to_string()))
}

fn within(seconds: f64) -> Option<Duration> {
    (0.0..=MAX_SECONDS)
        .contains(&seconds)
        .then(|| Duration::from_secs_f64(seconds))
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

    #[test]
    fn a_refused_text_is_quoted_as_written() {
        assert_eq!(parse("2.5").unwrap(), Duration::from_millis(2500));
        for bad in ["12345678901234567891", "-1", "1e8", "nan", "ten", ""] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(e.ends_with(&format!(", not {bad}")), "{e}");
        }
    }
}
