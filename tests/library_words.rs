//! The library speaks to every front end, so no text it builds names an
//! option of the command line (`--replace`, `--table`): each front end adds
//! its own advice (the binary's `cli/advice.rs`, the Python module's error
//! wording). Read from the sources: every string literal outside comments and
//! test modules.

use std::path::Path;

/// Literals that name a flag for a reason other than advice.
const ALLOWED: [(&str, &str); 1] = [
    // Reads the command a summary recorded, to tell a census-only analysis.
    ("src/f/analysis/report/mod.rs", "--census-only"),
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The string literals of `line` (no raw strings in the library's messages).
fn literals(line: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find('"') {
        let after = &rest[start + 1..];
        let mut end = None;
        let mut escaped = false;
        for (i, c) in after.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => {
                    end = Some(i);
                    break;
                }
                _ => escaped = false,
            }
        }
        let Some(end) = end else { break };
        found.push(&after[..end]);
        rest = &after[end + 1..];
    }
    found
}

/// Whether `text` names an option: `--` then a letter, at the start or after
/// a space, a backtick or a parenthesis.
fn names_flag(text: &str) -> bool {
    let b = text.as_bytes();
    (0..b.len().saturating_sub(2)).any(|i| {
        b[i] == b'-'
            && b[i + 1] == b'-'
            && b[i + 2].is_ascii_lowercase()
            && (i == 0 || matches!(b[i - 1], b' ' | b'`' | b'('))
    })
}

#[test]
fn no_library_text_names_a_command_line_option() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    assert!(files.len() > 50, "the library's sources are under src/");
    let mut wrong = Vec::new();
    for file in &files {
        let name = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .to_string();
        let text = std::fs::read_to_string(file).unwrap();
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("#[cfg(test)]") {
                break;
            }
            if line.trim_start().starts_with("//") {
                continue;
            }
            for lit in literals(line) {
                if names_flag(lit) && !ALLOWED.iter().any(|&(f, l)| f == name && lit.contains(l)) {
                    wrong.push(format!("{name}:{}: {lit}", i + 1));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "library texts that name an option:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_scan_sees_an_option_where_one_is_named() {
    // The rule itself, on lines like those it must catch and pass.
    assert_eq!(literals(r#"x("a \"b\" c", "d")"#), [r#"a \"b\" c"#, "d"]);
    assert!(names_flag("pass --replace to replace it"));
    assert!(names_flag("`--n 5`"));
    assert!(!names_flag("rows 0..=5 -- all proved"));
    assert!(!names_flag("a-b--c"));
}
