//! Command lines written back for the shell: an argument quoted as a POSIX
//! shell reads it again, and this process's own command line, recorded in
//! the first line of the files it writes.

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

/// This process's command line after the program's name, each argument
/// quoted ([`quote`]), for the first line of a file it writes.
pub fn command_line() -> String {
    let quoted: Vec<String> = std::env::args_os().skip(1).map(|a| quote(&a)).collect();
    format!("chomp3 {}", quoted.join(" "))
}
