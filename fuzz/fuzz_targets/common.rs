//! What the file targets share: the input written to a file of this
//! process's own, for readers that take a path.

use std::path::PathBuf;

/// Writes `data` to this process's scratch file and returns its path.
pub fn as_file(data: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("chomp3-fuzz-{}", std::process::id()));
    std::fs::write(&path, data).expect("the scratch file is writable");
    path
}
