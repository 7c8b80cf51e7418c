//! A census checkpoint (`.c3k`), read for each census size `fuzz/seed.sh`
//! stops one at (a checkpoint for another size is refused at its header).
#![no_main]

use chomp3::f::census::{BATCH_COLS, Params, Run, default_max_columns};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for rows in [40, 5000, 15000, 40000] {
        let params = Params {
            last_row: rows,
            max_columns: default_max_columns(rows),
            batch: BATCH_COLS,
        };
        let _ = Run::load(&mut &data[..], params);
    }
});
