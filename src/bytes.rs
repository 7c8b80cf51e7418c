//! Little-endian byte helpers shared by the two file formats (`table::raw` and
//! `census_file::raw`). Uses nothing else in the crate.

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
    u32_at(b, at) as i32
}

/// Writes `bytes` into `b` at offset `at`.
pub(crate) fn put(b: &mut [u8], at: usize, bytes: &[u8]) {
    b[at..at + bytes.len()].copy_from_slice(bytes);
}
