//! A `.g3t` Grundy table: opened, a few cells of every slab read, verified.
#![no_main]
mod common;

use chomp3::grundy::table::GrundyTable;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = common::as_file(data);
    let Ok(t) = GrundyTable::open(&path) else { return };
    for p in 1..=t.n().unwrap_or(0).min(100) {
        let _ = t.get(p, p / 2, p / 3);
        let _ = t.get(p, p, p);
    }
    let _ = t.verify();
});
