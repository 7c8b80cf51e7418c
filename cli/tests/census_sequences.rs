//! Every sequence from a census alone (no table) against the same sequences from a
//! dense table of the same size: every term agrees, and each b-file says its range.

use crate::common;

use std::path::Path;

use common::{chomp3_in, computed};

/// The terms of a b-file (skipping `#` lines).
fn terms(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(String::from)
        .collect()
}

#[test]
fn census_alone_gives_the_tables_sequences_term_for_term() {
    const R: u64 = 2500;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("data")).unwrap();
    let ok = |args: &[&str]| {
        let o = chomp3_in(d, args);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        o
    };
    ok(&[
        "census",
        "--quiet",
        "--rows",
        &R.to_string(),
        "--out",
        "data/census.tsv",
    ]);
    // No table anywhere: analyze reads the census alone, and says so.
    let o = ok(&[
        "analyze",
        "--quiet",
        "--census",
        "data/census.c3d",
        "--out",
        "from_census",
    ]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("no table"));
    let t = computed(d, "t.c3t", R, &[]);
    ok(&[
        "analyze",
        "--quiet",
        "--table",
        t.to_str().unwrap(),
        "--census",
        "data/census.c3d",
        "--out",
        "from_table",
    ]);
    for id in [
        "029899", "029900", "029901", "029902", "029903", "029904", "029905", "147983",
    ] {
        let name = format!("b{id}.txt");
        let (c, t) = (
            terms(&d.join("from_census").join(&name)),
            terms(&d.join("from_table").join(&name)),
        );
        assert!(c.len() > 10, "{name}: {} terms", c.len());
        assert_eq!(c, t, "{name} differs between census and table");
    }
    // The census knows every row's true minimum: the check covers all rows.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("from_census/summary.json")).unwrap())
            .unwrap();
    assert_eq!(
        json["checks"]["row_minima_nondecreasing"]["holds"]["upto"],
        R
    );
    assert_eq!(json["checks"]["complementary"]["holds"]["upto"], R);
    let header = std::fs::read_to_string(d.join("from_census/b029900.txt")).unwrap();
    assert!(header.contains(&format!("(N = {R})")), "{header}");
    assert!(
        !d.join("from_census/values.tsv").exists(),
        "a census counts no values"
    );
}
