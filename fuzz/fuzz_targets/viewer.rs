//! The viewer's answer to any request path and query, over a small table
//! and census made once per process.
#![no_main]

use std::sync::OnceLock;

use chomp3::f::lookup::{Named, Sources};
use libfuzzer_sys::fuzz_target;

fn sources() -> &'static Sources {
    static SOURCES: OnceLock<Sources> = OnceLock::new();
    SOURCES.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("chomp3-fuzz-view-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let table = dir.join("t.c3t");
        let _ = std::fs::remove_file(&table);
        let req = chomp3::f::compute::Request {
            path: table.clone(),
            n: 300,
            capacity: None,
            threads: 1,
            commit_every: chomp3::f::compute::DEFAULT_COMMIT_EVERY,
            stop: chomp3::base::stop::Stop::new(),
        };
        chomp3::f::compute::compute(&req, &mut |_, _| {}).unwrap();
        let named = |path| Named { path, named: true };
        let census = Named { path: dir.join("none.c3d"), named: false };
        Sources::open(&named(table), &census).unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let url = String::from_utf8_lossy(data);
    let reply = chomp3::view::respond(sources(), &url);
    assert!((200..600).contains(&reply.status));
    if reply.status >= 400 {
        let body = String::from_utf8_lossy(&reply.body);
        assert_eq!(body.trim_end().lines().count(), 1, "{url:?}: {body}");
    }
});
