//! The figure record (`figures.tsv`) that `plot` reads before drawing.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = chomp3::plot::record::read(data);
});
