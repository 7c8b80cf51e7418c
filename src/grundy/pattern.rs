//! A proved line's values as one period of `G(p,q,r) - p` from a start: what
//! the live lines hand to the frozen table. Uses nothing of the sweep.

use crate::base::bytes::narrow;

/// A line's values from `from` on: `G(p,q,r) - p = x[(p - from) % x.len()]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Pattern {
    /// The first `p` the pattern holds at.
    pub(super) from: u32,
    /// One period of `G - p`, from `from`.
    pub(super) x: Vec<i16>,
}

impl Pattern {
    /// Its period.
    pub(super) fn period(&self) -> u32 {
        narrow::<u32, _>(self.x.len())
    }

    /// `G(p,q,r) - p`, `p >= from`.
    #[inline]
    pub(super) fn at(&self, p: u32) -> i16 {
        self.x[((p - self.from) % self.period()) as usize]
    }
}
