//! Writing an [`Analysis`] out, one module per kind of file: OEIS b-files,
//! `rows.tsv` and `values.tsv`, `summary.json`, `report.md`. Every file says what
//! table it came from, the command, and how far each list is complete.

mod bfiles;
mod json;
mod markdown;
mod tsv;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

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

/// Why an analysis is not written into a directory unless replacing what is
/// there is asked for.
#[derive(Debug, thiserror::Error)]
pub enum Kept {
    /// The directory holds an analysis of a larger `N`, or of the other kind
    /// of source.
    #[error(
        "{} holds the analysis of {} to N = {had} (its summary.json); this one, of {} to N = {n}, would replace it",
        .dir.display(),
        source_kind(*.had_census_only),
        source_kind(*.census_only)
    )]
    Larger {
        /// The directory.
        dir: PathBuf,
        /// The `N` of the analysis there.
        had: u64,
        /// Whether that one is of a census alone.
        had_census_only: bool,
        /// The `N` of this one.
        n: u64,
        /// Whether this one is of a census alone.
        census_only: bool,
    },
    /// `summary.json` is there but is not a summary this chomp3 reads.
    #[error(
        "{} is not a summary chomp3 can read (another program's file, or one damaged), so what the directory holds is not known; it is kept",
        .path.display()
    )]
    Unreadable {
        /// The summary's path.
        path: PathBuf,
    },
    /// A file the analysis writes is there, and no summary accounts for it.
    #[error(
        "{} is not part of a finished analysis (the directory has no summary.json): another program's file, or one left by an analysis that did not finish; it is kept",
        .path.display()
    )]
    Unaccounted {
        /// The file.
        path: PathBuf,
    },
}

/// What a source is called in [`Kept`].
fn source_kind(census_only: bool) -> &'static str {
    if census_only {
        "the census alone"
    } else {
        "a table"
    }
}

/// Whether an analysis of `N = n` (of a census alone or not) may be written
/// into `dir` without replacing what is asked to be kept: nothing there of
/// the names an analysis writes, or a finished analysis (its `summary.json`)
/// of the same kind and of an `N` no larger. A file of those names without a
/// summary is kept, as is everything beside a summary that cannot be read:
/// nothing tells chomp3's files from another program's there.
pub fn may_write(dir: &Path, n: u64, census_only: bool) -> Result<(), Kept> {
    let summary = dir.join("summary.json");
    if std::fs::symlink_metadata(&summary).is_ok() {
        return match existing(dir) {
            None => Err(Kept::Unreadable { path: summary }),
            Some((had, had_census_only)) if had > n || had_census_only != census_only => {
                Err(Kept::Larger {
                    dir: dir.to_path_buf(),
                    had,
                    had_census_only,
                    n,
                    census_only,
                })
            }
            Some(_) => Ok(()),
        };
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        // No directory yet (or none to list): nothing to keep.
        return Ok(());
    };
    let mut names: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| written_here(&e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .collect();
    names.sort();
    match names.into_iter().next() {
        Some(path) => Err(Kept::Unaccounted { path }),
        None => Ok(()),
    }
}

/// Whether an analysis writes a file of this name: `report.md`,
/// `summary.json`, `rows.tsv`, `values.tsv` and the b-files `bNNNNNN.txt`,
/// each also compressed (`.xz`).
fn written_here(name: &str) -> bool {
    let name = name.strip_suffix(".xz").unwrap_or(name);
    let bfile = name
        .strip_prefix('b')
        .and_then(|s| s.strip_suffix(".txt"))
        .is_some_and(|d| d.len() == 6 && d.bytes().all(|b| b.is_ascii_digit()));
    bfile || ["report.md", "summary.json", "rows.tsv", "values.tsv"].contains(&name)
}

/// What the analysis already in `dir` was made from, by its `summary.json`:
/// its `N` and whether from a census alone; `None` when there is none (or
/// it cannot be read as one).
fn existing(dir: &Path) -> Option<(u64, bool)> {
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
    // The summary is what `may_write` reads before the next analysis here.
    set.rename_first(&dir.join("summary.json"));
    set.commit()
}
