//! Writing an [`Analysis`] out, one module per kind of file: OEIS b-files,
//! `rows.tsv` and `values.tsv`, `summary.json`, `report.md`. Every file says what
//! table it came from, the command, and how far each list is complete.

mod bfiles;
mod json;
mod markdown;
mod tsv;

use std::io::{self, Write};
use std::path::Path;

use super::Analysis;
use super::counts::RowCounts;
use crate::base::atomic_write::FileSet;

/// What every file says about where it came from.
struct Provenance<'a> {
    /// The table's path as given.
    table: &'a Path,
    /// The command that wrote the files.
    command: &'a str,
}

impl Provenance<'_> {
    /// The `# from ...` header line.
    fn header_line(&self, n: u32) -> String {
        format!(
            "# from chomp3 on {} (N = {n}); command: {}",
            self.table.display(),
            self.command
        )
    }
}

/// What the analysis already in `dir` was made from, by its `summary.json`:
/// its `N` and whether from a census alone; `None` when there is none (or
/// it cannot be read as one).
pub fn existing(dir: &Path) -> Option<(u64, bool)> {
    let text = crate::base::text::read_to_string(&dir.join("summary.json"), "a summary").ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    let n = v.get("n")?.as_u64()?;
    let census_only = v.get("command")?.as_str()?.contains("--census-only");
    Some((n, census_only))
}

/// Writes every output file into `dir`. `table` (the table's path, or the
/// census's for a census-only analysis) and `command` go into headers.
pub fn write_all(a: &Analysis, table: &Path, command: &str, dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let provenance = Provenance { table, command };
    let from = provenance.header_line(a.facts.n);
    let sequences = a.sequences();
    let counts = RowCounts::of(&a.rows);
    // Every file is written aside first, then all are renamed: the old set
    // stays whole if any write fails.
    let mut set = FileSet::new();
    let large = a.rows.len() > tsv::PLAIN_ROWS;
    let mut split = Vec::new();
    for s in &sequences {
        split.push(bfiles::write(&mut set, s, &from, dir, large)?);
    }
    let rows_name = tsv::write_rows(&mut set, a, &from, dir)?;
    // A census does not count every value of every cell; only a table does.
    if !a.facts.value_count.is_empty() {
        tsv::write_values(&mut set, a, &from, &dir.join("values.tsv"))?;
    }
    json::write(
        &mut set,
        a,
        &counts,
        &sequences,
        &provenance,
        &dir.join("summary.json"),
    )?;
    let report = markdown::report(a, &counts, (&sequences, &split), &provenance, rows_name);
    set.write(&dir.join("report.md"), |w| w.write_all(report.as_bytes()))?;
    set.commit()
}
