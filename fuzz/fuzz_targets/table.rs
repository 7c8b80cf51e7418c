//! A `.c3t` table, by columns or by rows, opened both ways (mapped and
//! read), every column read at a few rows, a few rows read, then verified
//! whole.
#![no_main]
mod common;

use chomp3::f::table::Table;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = common::as_file(data);
    for map in [true, false] {
        let Ok(t) = Table::options().either_f().mapped(map).open(&path) else { continue };
        for q in 0..t.columns().min(200) {
            let _ = t.get(q, q / 2);
            let _ = t.get(q, q + 3);
        }
        let end = t.columns().min(200) as u32;
        for r in [0, end / 2, end] {
            let _ = t.read_row(r, 0..end, &mut Vec::new());
        }
        let _ = t.verify();
    }
});
