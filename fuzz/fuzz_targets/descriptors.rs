//! A census descriptor file (`.c3d`): opened, every row's status read; the
//! same bytes opened as a `.c3d.xz` (so that the reader of a compressed
//! file's index meets any ending), and compressed (so that its header's
//! checks meet them through the index's length).
#![no_main]
mod common;

use std::io::Write;

use chomp3::f::census_file::Descriptors;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = common::as_file(data);
    if let Ok(d) = Descriptors::open(&path) {
        for r in 0..d.rows().min(10_000) {
            let _ = d.status(r);
        }
    }
    let xz = path.with_extension("c3d.xz");
    std::fs::write(&xz, data).expect("the scratch file is writable");
    let _ = Descriptors::open(&xz);
    let mut e = xz2::write::XzEncoder::new(Vec::new(), 0);
    e.write_all(data).expect("in memory");
    std::fs::write(&xz, e.finish().expect("in memory")).expect("the scratch file is writable");
    if let Ok(d) = Descriptors::open(&xz) {
        for r in 0..d.rows().min(10_000) {
            let _ = d.status(r);
        }
    }
});
