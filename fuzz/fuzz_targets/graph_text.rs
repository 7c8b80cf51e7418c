//! Graphs as text: a graph6 or sparse6 line, an edge list, a family name
//! (each graph built, none solved: a solve is bounded by its own checks).
#![no_main]

use chomp3::graph::{Graph, family, format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(m) = format::parse_line(&text) {
        let _ = Graph::from_multigraph(&m);
    }
    if let Ok(m) = format::parse_edge_list(&text) {
        let _ = Graph::from_multigraph(&m);
    }
    let _ = family::build(text.trim());
});
