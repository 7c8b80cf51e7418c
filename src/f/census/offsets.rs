//! A row's recorded offsets `f(q,r) - q`, held as the census checkpoint
//! writes them: each the zigzag LEB128 varint of its difference from the one
//! before (the first from 0). A row that has settled repeats a few values, so
//! most offsets take one byte where an `i32` takes four, and rows waiting for
//! the rows below them to be proved record an offset every column. Uses
//! `bytes` for the varints.

use crate::base::bytes::narrow;
use std::io;

use crate::base::bytes::stream::{get_varint, push_varint};

/// Offsets at consecutive columns, in the checkpoint's encoding.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Offsets {
    bytes: Vec<u8>,
    len: u32,
    last: i32,
}

/// The zigzag form of a difference (small magnitudes, small numbers).
fn zigzag(d: i64) -> u64 {
    ((d << 1) ^ (d >> 63)).cast_unsigned()
}

/// The difference a zigzag number stands for.
fn unzigzag(z: u64) -> i64 {
    (z >> 1).cast_signed() ^ -(z & 1).cast_signed()
}

impl Offsets {
    /// Number of offsets.
    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    /// Whether there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes held (for memory accounting).
    pub(crate) fn encoded(&self) -> &[u8] {
        &self.bytes
    }

    /// Appends offsets, growing by an eighth at a time rather than doubling.
    pub(crate) fn extend(&mut self, xs: &[i32]) {
        let want = self.bytes.len() + 2 * xs.len();
        if self.bytes.capacity() < want {
            self.bytes
                .reserve_exact((2 * xs.len()).max(self.bytes.len() / 8));
        }
        for &x in xs {
            let z = zigzag(i64::from(x) - i64::from(self.last));
            push_varint(&mut self.bytes, z);
            self.last = x;
        }
        self.len += narrow::<u32, _>(xs.len());
    }

    /// The offsets, decoded.
    pub(crate) fn to_vec(&self) -> Vec<i32> {
        let mut out = Vec::with_capacity(self.len as usize);
        let (mut rd, mut last) = (&self.bytes[..], 0i64);
        for _ in 0..self.len {
            last += unzigzag(get_varint(&mut rd).expect("offsets this type encoded"));
            out.push(narrow::<i32, _>(last));
        }
        out
    }

    /// Reads `len` offsets in this encoding from `rd` (a checkpoint); an
    /// offset outside `i32` is damage.
    pub(crate) fn read(rd: &mut dyn io::Read, len: u32) -> io::Result<Offsets> {
        let mut offsets = Offsets::default();
        let mut last = 0i64;
        for _ in 0..len {
            last += unzigzag(get_varint(rd)?);
            let x = i32::try_from(last)
                .map_err(|_| crate::base::bytes::damaged("an offset out of range"))?;
            offsets.extend(&[x]);
        }
        offsets.bytes.shrink_to_fit();
        Ok(offsets)
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
    use super::*;

    #[test]
    fn offsets_read_back_and_take_a_byte_when_they_repeat() {
        let xs: Vec<i32> = vec![0, 5, -3, i32::MAX, i32::MIN, 7, 7, 8, 7, 8, 40_000, -40_000];
        let mut o = Offsets::default();
        o.extend(&xs[..4]);
        o.extend(&xs[4..]);
        assert_eq!(o.to_vec(), xs);
        assert_eq!(o.len(), xs.len() as u32);
        let again = Offsets::read(&mut o.encoded(), o.len()).unwrap();
        assert_eq!(again.to_vec(), xs);
        let mut settled = Offsets::default();
        settled.extend(&[1000; 1]);
        settled.extend(&[1001, 1000, 1002, 1001].repeat(250));
        assert!(
            settled.encoded().len() <= 2 + 1000,
            "one byte a repeated offset"
        );
    }
}
