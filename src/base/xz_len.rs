//! The decompressed length of an `.xz` file, read from its indexes without
//! decompressing it (the `.xz` format: every stream ends with an index of its
//! blocks' sizes and a footer giving the index's size). Knows nothing of what
//! the file holds.
//!
//! The length is a claim of the file, not a proof: a reader takes room for
//! it and still reads the content to its end (the decoder checks each index
//! against the blocks it decoded, so a file whose index lies fails there).

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::FileExt;

/// Size of a stream's header and of its footer.
const EDGE: u64 = 12;
/// The last two bytes of a stream's footer.
const FOOTER_MAGIC: [u8; 2] = *b"YZ";
/// The largest index read (a 16 MiB index lists about a million blocks;
/// `xz` writes one block per 3 times the dictionary size, or one in all).
const MOST_INDEX: u64 = 16 << 20;

/// An `.xz` file's length as its indexes give it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XzLen {
    /// The bytes it decompresses to.
    pub content: u64,
    /// Where its last stream ends: past it is only stream padding (null
    /// bytes), which a reader need not read.
    pub streams_end: u64,
}

/// The bytes `file` decompresses to, every stream of a multi-stream file
/// (and the padding between them) included, by the streams' indexes; `None`
/// where the file does not end as an `.xz` file does, or an index cannot be
/// read (the caller then learns the length by decompressing).
pub fn decompressed_len(file: &File) -> Option<XzLen> {
    // `SEEK_DATA` moves the file's position: it is put back, so that a
    // reader of the same `File` starts where it was.
    let mut f = file;
    let at = f.stream_position().ok()?;
    let len = streams(file);
    f.seek(SeekFrom::Start(at)).ok()?;
    len
}

/// [`decompressed_len`], the file's position left where `SEEK_DATA` puts it.
fn streams(file: &File) -> Option<XzLen> {
    let mut end = file.metadata().ok()?.len();
    let mut total: u64 = 0;
    let mut streams_end = None;
    let read = |at: u64, len: u64| -> Option<Vec<u8>> {
        let mut b = vec![0u8; usize::try_from(len).ok()?];
        file.read_exact_at(&mut b, at).ok()?;
        Some(b)
    };
    while end > 0 {
        // Stream padding: null bytes, in fours.
        end -= (end - before_nulls(file, end)?) / 4 * 4;
        streams_end.get_or_insert(end);
        if end < 2 * EDGE {
            return None;
        }
        let footer = read(end - EDGE, EDGE)?;
        if footer[10..12] != FOOTER_MAGIC {
            return None;
        }
        let stored = u32::from_le_bytes(footer[4..8].try_into().ok()?);
        let index_len = (u64::from(stored) + 1) * 4;
        if index_len > MOST_INDEX || index_len + 2 * EDGE > end {
            return None;
        }
        let index_at = end - EDGE - index_len;
        let (blocks, out) = parse_index(&read(index_at, index_len)?)?;
        total = total.checked_add(out)?;
        end = index_at.checked_sub(blocks)?.checked_sub(EDGE)?;
    }
    Some(XzLen {
        content: total,
        streams_end: streams_end?,
    })
}

/// Bytes read at a time while looking for the last byte that is not null.
const PIECE: usize = 1 << 20;

/// The end of the last byte before `end` that is not null (0 if none): a
/// sparse file's holes are passed over by asking the system where its data
/// is (`SEEK_DATA`), in steps that double, and the rest is read a MiB at a
/// time, so that a tail of gigabytes of nulls costs milliseconds, not a
/// read of four bytes each.
fn before_nulls(file: &File, mut end: u64) -> Option<u64> {
    let mut step = PIECE as u64;
    let mut piece = vec![0u8; PIECE];
    while end > 0 {
        let from = end.saturating_sub(step);
        if next_data(file, from).is_none_or(|at| at >= end) {
            // A hole: nulls, not stored.
            end = from;
            step = step.saturating_mul(2);
            continue;
        }
        step = PIECE as u64;
        let at = end.saturating_sub(PIECE as u64);
        let bytes = &mut piece[..usize::try_from(end - at).ok()?];
        file.read_exact_at(bytes, at).ok()?;
        if let Some(i) = bytes.iter().rposition(|&b| b != 0) {
            return Some(at + i as u64 + 1);
        }
        end = at;
    }
    Some(0)
}

/// Where the first data of `file` at or after `at` is; `None` if it has
/// none there. A system that cannot say answers `at` (every byte read).
fn next_data(file: &File, at: u64) -> Option<u64> {
    use std::os::fd::AsRawFd;
    let Ok(offset) = libc::off_t::try_from(at) else {
        return Some(at);
    };
    // SAFETY: `lseek` on a descriptor this `File` holds open; the position
    // it moves is not used by this module's reads (`pread`), and
    // `decompressed_len` puts it back.
    let found = unsafe { libc::lseek(file.as_raw_fd(), offset, libc::SEEK_DATA) };
    match u64::try_from(found) {
        Ok(found) => Some(found),
        Err(_) if std::io::Error::last_os_error().raw_os_error() == Some(libc::ENXIO) => None,
        Err(_) => Some(at),
    }
}

/// The bytes of a stream's blocks and what they decompress to, from its
/// index: indicator 0, the record count, then per block its unpadded size
/// (its bytes are that, rounded up to four) and its uncompressed size, each
/// a variable-length integer; then padding and a CRC-32, not read here.
fn parse_index(b: &[u8]) -> Option<(u64, u64)> {
    let (&indicator, mut rest) = b.split_first()?;
    if indicator != 0 {
        return None;
    }
    let records = vli(&mut rest)?;
    let (mut blocks, mut out) = (0u64, 0u64);
    for _ in 0..records {
        let unpadded = vli(&mut rest)?;
        blocks = blocks.checked_add(unpadded.checked_add(3)? & !3)?;
        out = out.checked_add(vli(&mut rest)?)?;
    }
    Some((blocks, out))
}

/// A variable-length integer of the format (at most 9 bytes, 7 bits each,
/// least significant first, the high bit set on all but the last), taken
/// from the front of `b`.
fn vli(b: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for i in 0..9 {
        let (&byte, rest) = b.split_first()?;
        *b = rest;
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            // A final zero byte past the first is not the shortest form.
            return (i == 0 || byte != 0).then_some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// `bytes` compressed by the `xz` crate's encoder (liblzma), as `xz` does.
    fn xz(bytes: &[u8]) -> Vec<u8> {
        let mut e = xz2::write::XzEncoder::new(Vec::new(), 6);
        e.write_all(bytes).unwrap();
        e.finish().unwrap()
    }

    fn len_of(compressed: &[u8]) -> Option<u64> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.xz");
        std::fs::write(&path, compressed).unwrap();
        decompressed_len(&File::open(&path).unwrap()).map(|l| l.content)
    }

    #[test]
    fn gives_what_the_decoder_reads() {
        let mut rng = crate::base::test_rng::Rng(7);
        for n in [0usize, 1, 100, 70_000, 3_000_000] {
            // Bytes that compress, but not to nothing.
            let data: Vec<u8> = (0..n)
                .map(|i| (rng.next() % 4).wrapping_mul(i as u64).to_le_bytes()[0])
                .collect();
            assert_eq!(len_of(&xz(&data)), Some(n as u64), "{n} bytes");
        }
    }

    #[test]
    fn counts_every_stream_and_skips_padding() {
        let (a, b) = (vec![1u8; 5000], vec![2u8; 123]);
        let mut two = xz(&a);
        two.extend([0u8; 8]);
        two.extend(xz(&b));
        two.extend([0u8; 4]);
        assert_eq!(len_of(&two), Some(5123));
    }

    #[test]
    fn a_tail_of_nulls_is_passed_over_without_reading_it_byte_by_byte() {
        // Four GiB of padding: a hole in a sparse file, then nulls written
        // out. The streams end where the compressed bytes do.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.xz");
        let packed = xz(&[7u8; 3000]);
        std::fs::write(&path, &packed).unwrap();
        let f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.set_len(packed.len() as u64 + (4 << 30)).unwrap();
        let expected = Some(XzLen {
            content: 3000,
            streams_end: packed.len() as u64,
        });
        // (Read four bytes a time, the hole alone would take a billion reads.)
        assert_eq!(decompressed_len(&File::open(&path).unwrap()), expected);
        let mut written = packed.clone();
        written.extend(vec![0u8; 3 << 20]);
        std::fs::write(&path, &written).unwrap();
        assert_eq!(decompressed_len(&File::open(&path).unwrap()), expected);
    }

    #[test]
    fn the_file_is_read_from_where_it_was_after_its_length_is_taken() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.xz");
        // More than a MiB that does not compress, then padding: the system
        // is asked where the data is a MiB from the end of each.
        let mut rng = crate::base::test_rng::Rng(11);
        let data: Vec<u8> = (0..3 << 19).map(|_| rng.next().to_le_bytes()[0]).collect();
        let mut packed = xz(&data);
        packed.extend(vec![0u8; 3 << 20]);
        std::fs::write(&path, &packed).unwrap();
        let mut f = File::open(&path).unwrap();
        assert_eq!(
            decompressed_len(&f).map(|l| l.content),
            Some(data.len() as u64)
        );
        let mut out = Vec::new();
        std::io::Read::read_to_end(
            &mut xz2::read::XzDecoder::new_multi_decoder(&mut f),
            &mut out,
        )
        .unwrap();
        assert!(out == data);
    }

    #[test]
    fn refuses_what_does_not_end_as_xz() {
        let good = xz(&[9u8; 1000]);
        assert_eq!(len_of(&good[..good.len() - 1]), None, "cut");
        assert_eq!(len_of(b"not an xz file at all, but long enough"), None);
        assert_eq!(len_of(&[0u8; 64]), None, "only padding");
        let mut odd = good.clone();
        odd.extend([0u8; 2]);
        assert_eq!(len_of(&odd), None, "padding not a multiple of four");
    }
}
