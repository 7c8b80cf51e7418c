//! A `.g3s` sweep checkpoint beside a Grundy table.
#![no_main]
mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = common::as_file(data);
    let _ = chomp3::grundy::table::load_sweep(&path, 12);
});
