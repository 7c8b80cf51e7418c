//! README's *Layout* table against the tree: every path its first column
//! names exists, and every module of the library (each file and folder in
//! `src/`, `src/base/` and `src/f/` but `lib.rs` and `mod.rs`) has a row.

use std::path::Path;

#[test]
fn the_layout_table_matches_the_tree() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let layout = readme
        .split("\n## Layout")
        .nth(1)
        .expect("README has a Layout section");
    let layout = layout.split("\n## ").next().unwrap();
    // The paths in the first column of each row: `a`, `b` ...
    let mut named = Vec::new();
    for row in layout.lines().filter(|l| l.starts_with("| `")) {
        let first = row.split(" | ").next().unwrap();
        named.extend(first.split('`').skip(1).step_by(2).map(str::to_string));
    }
    assert!(named.len() > 20, "too few rows read: {named:?}");
    let mut wrong: Vec<String> = named
        .iter()
        .filter(|path| !root.join(path).exists())
        .map(|path| format!("README's layout names {path}, which does not exist"))
        .collect();
    // Every entry of `src/` and of the two trees of many modules has a row.
    for dir in ["src", "src/base", "src/f"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let module = format!("{dir}/{name}");
            if !["lib.rs", "mod.rs"].contains(&name.as_str())
                && !named.iter().any(|p| p.trim_end_matches('/') == module)
            {
                wrong.push(format!("{module} has no row in README's layout table"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
