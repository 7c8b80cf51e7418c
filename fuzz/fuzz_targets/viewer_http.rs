//! The viewer's reading of a request head: any bytes are a method and a
//! target, or a refusal with a 4xx status and one line.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match chomp3::view::http::parse(data) {
        Ok((_, target)) => assert!(target.starts_with('/')),
        Err(reply) => {
            assert!((400..500).contains(&reply.status));
            let body = String::from_utf8_lossy(&reply.body);
            assert_eq!(body.trim_end().lines().count(), 1, "{body:?}");
        }
    }
});
