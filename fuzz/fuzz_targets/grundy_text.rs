//! The Grundy censuses (with patterns, and of periods) and their b-files:
//! the input whole as a census, and split at its first NUL into the periods
//! and starts b-files.
#![no_main]

use chomp3::grundy::{file, sequences};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = file::summaries(data);
    let _ = file::read(data);
    let _ = file::find(data, 4, 2);
    let (periods, starts) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &b""[..]),
    };
    let _ = sequences::read_lines(periods, starts);
});
