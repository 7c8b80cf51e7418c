//! Messages that name their file once. Some errors carry the path of the file
//! they concern in their own message and some do not; [`NamesPath`] says which,
//! and puts the path in front only where it is missing.
//!
//! Uses nothing.

use std::fmt::Display;
use std::path::Path;

/// An error whose message may already name the file it concerns.
pub trait NamesPath: Display {
    /// Whether the message already names the file (else show it after the path).
    fn names_path(&self) -> bool;

    /// The message as one sentence that names the file `path` once.
    fn with_path(&self, path: &Path) -> String {
        if self.names_path() {
            self.to_string()
        } else {
            format!("{}: {self}", path.display())
        }
    }
}
