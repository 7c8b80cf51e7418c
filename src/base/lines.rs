//! Reading the text result files line by line: the data lines of a file and
//! the error for a line that is not what the file should hold. Uses nothing
//! else in the crate.

/// A line of a result file that is not what the file should hold.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: not a line of {what}")]
pub struct BadLine {
    /// Its number, from 1.
    pub line: usize,
    /// The kind of file it should belong to.
    pub what: &'static str,
}

/// The data lines of a result file, numbered from 1, split at tabs: without
/// comments (`#`), blank lines and the header line (it starts with `header`).
pub(crate) fn data_lines<'a>(
    text: &'a str,
    header: &'a str,
) -> impl Iterator<Item = (usize, Vec<&'a str>)> {
    text.lines()
        .enumerate()
        .filter(move |(_, l)| !(l.starts_with('#') || l.starts_with(header) || l.is_empty()))
        .map(|(i, l)| (i + 1, l.split('\t').collect()))
}
