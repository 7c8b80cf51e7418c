//! A graph Chomp memo (`graph --memo FILE`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = chomp3::graph::Solver::load(&mut &data[..]);
});
