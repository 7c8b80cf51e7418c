//! Paths and arguments written back for the shell: quoted as a POSIX shell
//! reads them again, on one line, for the headers and records of the files
//! chomp3 writes; and text made one line for a terminal (a path's newline
//! escaped in a message). Knows nothing else.

/// `arg` as a POSIX shell reads it back, on one line: as it is when that is
/// safe, else in single quotes, or, with a control character (a newline in a
/// path) or bytes that are not UTF-8, in `$'...'` with escapes. So a recorded
/// command line stays one header line and runs again as given.
pub fn quote(arg: &std::ffi::OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    let bytes = arg.as_bytes();
    let plain = |b: &u8| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(b);
    if !bytes.is_empty() && bytes.iter().all(plain) {
        return arg.to_string_lossy().into_owned();
    }
    match std::str::from_utf8(bytes) {
        Ok(s) if !s.chars().any(char::is_control) => format!("'{}'", s.replace('\'', r"'\''")),
        _ => {
            let mut out = String::from("$'");
            for &b in bytes {
                match b {
                    b'\\' | b'\'' => out.extend(['\\', b as char]),
                    b'\n' => out.push_str(r"\n"),
                    b'\t' => out.push_str(r"\t"),
                    0x20..=0x7e => out.push(b as char),
                    _ => out.push_str(&format!("\\x{b:02x}")),
                }
            }
            out.push('\'');
            out
        }
    }
}

/// A path as a label in a record of a result file: as it is when it is
/// UTF-8 without control characters (spaces and all), else [`quote`]d, so
/// that a newline or tab in a file name cannot split a record or a column,
/// and bytes that are not UTF-8 are kept rather than replaced.
pub fn label(path: &std::path::Path) -> String {
    match path.to_str() {
        Some(s) if !s.chars().any(char::is_control) => s.to_string(),
        _ => quote(path.as_os_str()),
    }
}

/// `text` on one line: a control character (a newline or an escape in a
/// path the user gave) written as its escape, so that a message or a
/// source line stays one line and sends nothing to a terminal.
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' => "\\n".to_string(),
            '\t' => "\\t".to_string(),
            c if c.is_control() => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn a_label_is_the_path_unless_it_would_break_a_record() {
        use std::os::unix::ffi::OsStrExt;
        use std::path::Path;
        assert_eq!(label(Path::new("my dir/g.txt")), "my dir/g.txt");
        assert_eq!(label(Path::new("a\nb\tc")), r"$'a\nb\tc'");
        assert_eq!(label(Path::new(OsStr::from_bytes(b"x\xff"))), r"$'x\xff'");
    }

    #[test]
    fn a_quoted_argument_is_one_line_and_reads_back() {
        assert_eq!(quote(OsStr::new("data/t.c3t")), "data/t.c3t");
        assert_eq!(quote(OsStr::new("my dir/it's")), r"'my dir/it'\''s'");
        assert_eq!(quote(OsStr::new("t\nx.c3t")), r"$'t\nx.c3t'");
        assert_eq!(quote(OsStr::new("")), "''");
        assert_eq!(one_line("a\nb\tc\u{1b}"), "a\\nb\\tc\\u{1b}");
    }
}
