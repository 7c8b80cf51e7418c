//! A reproducible xorshift generator shared by the unit tests. Test-only.

/// Xorshift64 from a non-zero seed.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// The next number.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}
