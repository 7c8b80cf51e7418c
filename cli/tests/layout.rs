//! README's *Layout* table against the tree: every path its first column
//! names exists, and every module of the library (each file and folder in
//! `src/`, `src/base/` and `src/f/` but `lib.rs` and `mod.rs`) has a row;
//! and every relative link of the repository's Markdown files to a file or
//! folder leads to one.

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

/// The Markdown files under `dir`, but in hidden folders and build output.
fn markdown_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        if path.is_dir() {
            markdown_files(&path, out);
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
}

#[test]
fn every_relative_link_in_the_documents_resolves() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut files = Vec::new();
    markdown_files(root, &mut files);
    assert!(files.len() > 10, "too few documents found: {files:?}");
    let mut broken = Vec::new();
    let mut seen = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        // Each `](target)` of an inline link; addresses and anchors in the same file are left out.
        for piece in text.split("](").skip(1) {
            let target = piece.split([')', ' ']).next().unwrap_or_default();
            if target.is_empty() || target.starts_with('#') || target.contains("://") {
                continue;
            }
            seen += 1;
            let path = target.split('#').next().unwrap();
            if !file.parent().unwrap().join(path).exists() {
                let shown = file.strip_prefix(root).unwrap_or(file).display();
                broken.push(format!("{shown} links {target}, which does not exist"));
            }
        }
    }
    assert!(seen > 20, "too few links read: {seen}");
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}
