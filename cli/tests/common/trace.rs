//! Reading a census trace (FORMAT.md, "The census trace") in the tests of
//! the census in one process and under `mpirun`.

/// The records of kind `kind` in a census trace, split at tabs.
pub fn records(trace: &str, kind: &str) -> Vec<Vec<String>> {
    trace
        .lines()
        .filter(|l| l.split('\t').next() == Some(kind))
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}
