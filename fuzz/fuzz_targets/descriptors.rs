//! A census descriptor file (`.c3d`): opened, every row's status read.
#![no_main]
mod common;

use chomp3::f::census_file::Descriptors;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = common::as_file(data);
    let Ok(d) = Descriptors::open(&path) else { return };
    for r in 0..d.rows().min(10_000) {
        let _ = d.status(r);
    }
});
