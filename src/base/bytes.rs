//! Little-endian byte helpers shared by the file formats (`table::raw`,
//! `census_file::raw`, the census checkpoint and the graph memo), and the
//! checked integer conversions every module uses where a cast could drop bits
//! ([`narrow`], [`usize_of`], [`len32`]), and the cache hint of the loops that
//! read far apart ([`prefetch`]). Uses nothing else in the crate.

/// Asks for the cache line of `items[i]` (a hint; nothing if `i` is out of
/// range or the machine is not x86-64).
#[inline(always)]
pub(crate) fn prefetch<T>(items: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = items.get(i) {
        // SAFETY: a prefetch reads nothing the program sees and never
        // faults; the address is that of an element of the slice.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                (x as *const T).cast::<i8>(),
            )
        }
    }
}

/// The `u32` stored little-endian at `b[at .. at + 4]`.
pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// The `u64` stored little-endian at `b[at .. at + 8]`.
pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// The `i32` stored little-endian at `b[at .. at + 4]`.
pub(crate) fn i32_at(b: &[u8], at: usize) -> i32 {
    u32_at(b, at).cast_signed()
}

// chomp3 builds for 64-bit targets only, where a `u64` fits a `usize`.
const _: () = assert!(usize::BITS == 64, "chomp3 needs a 64-bit target");

/// `x` as a `usize`: lossless on the 64-bit targets chomp3 builds for
/// (asserted at compile time above).
#[allow(clippy::cast_possible_truncation)] // usize is 64 bits, asserted above
pub(crate) const fn usize_of(x: u64) -> usize {
    x as usize
}

/// `x` in the narrower integer type `T`, for a value the caller knows fits
/// (an index of a vector whose length is bounded by a `u32` count, a value
/// of the table, a byte of a small number): panics, naming the caller's
/// line, where a cast would silently drop bits.
#[track_caller]
pub(crate) fn narrow<T, S>(x: S) -> T
where
    T: TryFrom<S>,
    S: Copy + std::fmt::Display,
{
    match T::try_from(x) {
        Ok(y) => y,
        Err(_) => panic!("{x} does not fit {}", std::any::type_name::<T>()),
    }
}

/// A count stored in 32 bits in a file, or an error where it does not fit
/// (rather than a wrapped count that would misread the file).
pub(crate) fn len32(len: usize) -> std::io::Result<u32> {
    u32::try_from(len).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{len} items do not fit the file's 32-bit count"),
        )
    })
}

/// Writes `bytes` into `b` at offset `at`.
pub(crate) fn put(b: &mut [u8], at: usize, bytes: &[u8]) {
    b[at..at + bytes.len()].copy_from_slice(bytes);
}

/// The error a part of a file's reader gives for bytes that cannot be right
/// (the file is damaged): the reader of the whole file turns it into that
/// file's typed `Damaged` error, as it does a cut-off input.
pub(crate) fn damaged(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string())
}

/// Little-endian values on streams (the checkpoints and the graph memo).
pub(crate) mod stream {
    use std::io::{self, Read, Write};

    /// A writer that keeps the CRC-32 of what passes through it.
    pub(crate) struct CrcWriter<'a> {
        pub(crate) w: &'a mut dyn Write,
        pub(crate) crc: crc32fast::Hasher,
    }

    impl<'a> CrcWriter<'a> {
        /// Writes to `w`, starting a CRC.
        pub(crate) fn new(w: &'a mut dyn Write) -> CrcWriter<'a> {
            CrcWriter {
                w,
                crc: crc32fast::Hasher::new(),
            }
        }
    }

    impl Write for CrcWriter<'_> {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let n = self.w.write(buf)?;
            self.crc.update(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            self.w.flush()
        }
    }

    /// A reader that keeps the CRC-32 of what passes through it.
    pub(crate) struct CrcReader<'a> {
        pub(crate) r: &'a mut dyn Read,
        pub(crate) crc: crc32fast::Hasher,
    }

    impl<'a> CrcReader<'a> {
        /// Reads from `r`, starting a CRC.
        pub(crate) fn new(r: &'a mut dyn Read) -> CrcReader<'a> {
            CrcReader {
                r,
                crc: crc32fast::Hasher::new(),
            }
        }
    }

    impl Read for CrcReader<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.r.read(buf)?;
            self.crc.update(&buf[..n]);
            Ok(n)
        }
    }

    /// Writes a `u32`.
    pub(crate) fn put32(w: &mut dyn Write, x: u32) -> io::Result<()> {
        w.write_all(&x.to_le_bytes())
    }

    /// Writes a `u64`.
    pub(crate) fn put64(w: &mut dyn Write, x: u64) -> io::Result<()> {
        w.write_all(&x.to_le_bytes())
    }

    /// Writes `u32`s in one write.
    pub(crate) fn put32s(w: &mut dyn Write, xs: impl IntoIterator<Item = u32>) -> io::Result<()> {
        let bytes: Vec<u8> = xs.into_iter().flat_map(u32::to_le_bytes).collect();
        w.write_all(&bytes)
    }

    /// Writes `u64`s in one write.
    pub(crate) fn put64s(w: &mut dyn Write, xs: &[u64]) -> io::Result<()> {
        let bytes: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        w.write_all(&bytes)
    }

    /// Reads a `u32`.
    pub(crate) fn get32(r: &mut dyn Read) -> io::Result<u32> {
        let mut b = [0; 4];
        r.read_exact(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Reads a `u64`.
    pub(crate) fn get64(r: &mut dyn Read) -> io::Result<u64> {
        let mut b = [0; 8];
        r.read_exact(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// Writes `x` in LEB128: seven bits a byte, low bits first.
    pub(crate) fn put_varint(w: &mut dyn Write, mut x: u64) -> io::Result<()> {
        let mut buf = [0u8; 10];
        let mut n = 0;
        loop {
            let low = (x & 0x7f) as u8;
            x >>= 7;
            buf[n] = low | if x > 0 { 0x80 } else { 0 };
            n += 1;
            if x == 0 {
                return w.write_all(&buf[..n]);
            }
        }
    }

    /// Appends `x` to `out` as [`put_varint`] writes it, without a writer:
    /// the census records an offset a row and column this way, where the
    /// call through `dyn Write` and its copy of one byte cost some 2 % of a census.
    #[inline]
    pub(crate) fn push_varint(out: &mut Vec<u8>, mut x: u64) {
        while x >= 0x80 {
            // The low seven bits, kept by the mask.
            #[allow(clippy::cast_possible_truncation)]
            out.push((x & 0x7f) as u8 | 0x80);
            x >>= 7;
        }
        // Below 0x80 here.
        #[allow(clippy::cast_possible_truncation)]
        out.push(x as u8);
    }

    /// Reads a value written by [`put_varint`].
    pub(crate) fn get_varint(r: &mut dyn Read) -> io::Result<u64> {
        let mut x = 0u64;
        for shift in (0..70).step_by(7) {
            let mut b = [0u8];
            r.read_exact(&mut b)?;
            if shift == 63 && b[0] > 1 {
                break;
            }
            x |= ((b[0] & 0x7f) as u64) << shift;
            if b[0] & 0x80 == 0 {
                return Ok(x);
            }
        }
        Err(super::damaged("a variable-length number too long"))
    }

    /// Reads `n` `u32`s.
    pub(crate) fn get32s(r: &mut dyn Read, n: usize) -> io::Result<Vec<u32>> {
        get_words(r, n, u32::from_le_bytes)
    }

    /// Reads `n` `u64`s.
    pub(crate) fn get64s(r: &mut dyn Read, n: usize) -> io::Result<Vec<u64>> {
        get_words(r, n, u64::from_le_bytes)
    }

    /// Reads `n` little-endian words of `B` bytes, at most 64 KiB at a time, so
    /// that a damaged count fails at the end of the input instead of asking for
    /// more memory than the input could fill.
    fn get_words<T, const B: usize>(
        r: &mut dyn Read,
        n: usize,
        word: fn([u8; B]) -> T,
    ) -> io::Result<Vec<T>> {
        let mut out = Vec::with_capacity(n.min(1 << 13));
        let mut bytes = vec![0u8; B * n.min(1 << 13)];
        while out.len() < n {
            let k = (n - out.len()).min(1 << 13);
            r.read_exact(&mut bytes[..B * k])?;
            out.extend(
                bytes[..B * k]
                    .chunks_exact(B)
                    .map(|c| word(c.try_into().unwrap())),
            );
        }
        Ok(out)
    }
}
