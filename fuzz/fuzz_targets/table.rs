//! A `.c3t` table, opened both ways (mapped and read), every column read
//! at a few rows, then verified whole.
#![no_main]
mod common;

use chomp3::f::table::Table;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = common::as_file(data);
    for open in [Table::open, Table::open_reading] {
        let Ok(t) = open(&path) else { continue };
        for q in 0..t.columns().min(200) {
            let _ = t.get(q, q / 2);
            let _ = t.get(q, q + 3);
        }
        let _ = t.verify();
    }
});
