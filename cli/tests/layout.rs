//! CONTRIBUTING.md's *Layout* table against the tree: every path its first
//! column names exists, and every module of the library (each file and
//! folder in `src/`, `src/base/` and `src/f/` but `lib.rs` and `mod.rs`) has
//! a row; every relative link of the repository's Markdown files to a file or
//! folder leads to one; and no two sibling modules import each other.

use std::path::Path;

#[test]
fn the_layout_table_matches_the_tree() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let contributing = std::fs::read_to_string(root.join("CONTRIBUTING.md")).unwrap();
    let layout = contributing
        .split("\n## Layout")
        .nth(1)
        .expect("CONTRIBUTING.md has a Layout section");
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
        .map(|path| format!("CONTRIBUTING.md's layout names {path}, which does not exist"))
        .collect();
    // Every entry of `src/` and of the two trees of many modules has a row.
    for dir in ["src", "src/base", "src/f"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            let module = format!("{dir}/{name}");
            if !["lib.rs", "mod.rs"].contains(&name.as_str())
                && !named.iter().any(|p| p.trim_end_matches('/') == module)
            {
                wrong.push(format!(
                    "{module} has no row in CONTRIBUTING.md's layout table"
                ));
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

/// The module of the library a source file is (`src/f/census/tracker.rs`:
/// `["f", "census", "tracker"]`; a `mod.rs`, its folder's).
fn module_of(path: &Path, src: &Path) -> Vec<String> {
    let rel = path.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// No two sibling modules of the library import each other, nor does any
/// longer circle of siblings close: in every folder, the modules it holds
/// (a file, or a folder with everything in it) are ordered by their `use`
/// lines (`crate::` and `super::` paths, read as text) with no cycle.
#[test]
fn sibling_modules_import_in_one_direction() {
    use std::collections::{BTreeMap, BTreeSet};
    let src = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../src"));
    let mut files = Vec::new();
    sources(src, &mut files);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(f, src)).collect();
    // (parent, child a, child b): something in `a` uses something in `b`.
    let mut edges: BTreeMap<Vec<String>, BTreeSet<(String, String)>> = BTreeMap::new();
    for file in &files {
        let me = module_of(file, src);
        let is_mod = file
            .file_name()
            .is_some_and(|n| n == "mod.rs" || n == "lib.rs");
        let text = std::fs::read_to_string(file).unwrap();
        // A `use` may span lines: read each statement to its `;`.
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join(" ");
        for stmt in code.split(';') {
            let stmt = stmt.trim();
            let Some(path) = ["use ", "pub use ", "pub(crate) use ", "pub(super) use "]
                .iter()
                .find_map(|p| stmt.strip_prefix(p))
            else {
                continue;
            };
            let mut target: Vec<String> = match path.split("::").next() {
                Some("crate") => Vec::new(),
                Some("super") => {
                    // `super` of a file is its folder's module; of a mod.rs, the folder above.
                    let mut m = me.clone();
                    if is_mod {
                        m.pop();
                    }
                    m.pop();
                    m
                }
                _ => continue,
            };
            let rest = path.split("::").skip(1).skip_while(|s| *s == "super");
            for word in rest {
                let word = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
                let mut longer = target.clone();
                longer.push(word.to_string());
                if !modules.iter().any(|m| m.starts_with(&longer)) {
                    break;
                }
                target = longer;
            }
            // The nearest common folder, and the two children of it.
            let common = me.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common < me.len() && common < target.len() {
                let (a, b) = (me[common].clone(), target[common].clone());
                edges
                    .entry(me[..common].to_vec())
                    .or_default()
                    .insert((a, b));
            }
        }
    }
    let mut circles = Vec::new();
    for (parent, pairs) in &edges {
        // Kahn's order of the siblings; what is left holds a circle.
        let mut left: BTreeSet<(String, String)> = pairs.clone();
        loop {
            let names: BTreeSet<&String> = left.iter().flat_map(|(a, b)| [a, b]).collect();
            let sink = names
                .into_iter()
                .find(|n| !left.iter().any(|(a, _)| a == *n))
                .cloned();
            match sink {
                Some(n) => left.retain(|(_, b)| *b != n),
                None => break,
            }
        }
        if !left.is_empty() {
            circles.push(format!("in src/{}: {left:?}", parent.join("/")));
        }
    }
    assert!(
        circles.is_empty(),
        "modules that import each other: {circles:?}"
    );
    assert!(
        edges.values().map(|e| e.len()).sum::<usize>() > 50,
        "too few imports read"
    );
}

/// Every test file of `cli/tests/` is a module of the one test program
/// (`suite.rs`; Cargo finds no other, as `autotests` is off), so none is
/// silently left out; `census_mpi.rs` is the program of its own.
#[test]
fn every_test_file_is_in_the_suite() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let suite = std::fs::read_to_string(dir.join("suite.rs")).unwrap();
    let mut missing = Vec::new();
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".rs") else {
            continue;
        };
        if ["suite", "census_mpi"].contains(&stem) {
            continue;
        }
        seen += 1;
        if !suite.contains(&format!("#[path = \"{name}\"]\nmod {stem};")) {
            missing.push(name);
        }
    }
    assert!(seen > 10, "too few test files read: {seen}");
    assert!(missing.is_empty(), "not modules of suite.rs: {missing:?}");
}
