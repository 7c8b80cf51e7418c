//! Writing an [`Analysis`] out, one module per kind of file: OEIS b-files,
//! `rows.tsv` and `values.tsv`, `summary.json`, `report.md`. Every file says what
//! table it came from, the command, and how far each list is complete.

mod bfiles;
mod json;
mod markdown;
mod tsv;

use std::collections::BTreeMap;
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
            crate::base::shell::quote(self.table.as_os_str()),
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
    /// The directory holds an analysis that holds more by one measure:
    /// more rows settled, or more terms of a sequence (one made with a
    /// census, or with a census of more columns).
    #[error(
        "{} holds the analysis of {} to N = {had_n} with {had} {what} (its summary.json); this one, to N = {n}, has {now}, and would replace it",
        .dir.display(),
        source_kind(*.census_only)
    )]
    Fuller {
        /// The directory.
        dir: PathBuf,
        /// The `N` of the analysis there.
        had_n: u64,
        /// The `N` of this one.
        n: u64,
        /// Whether both are of a census alone.
        census_only: bool,
        /// What is counted: `rows settled`, `terms of A029903`.
        what: String,
        /// The count there.
        had: u64,
        /// The count of this one.
        now: u64,
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
    /// A file the analysis writes is there, and the summary beside it does
    /// not list it as its analysis's.
    #[error(
        "{} is not one of the files the analysis there lists in its summary.json: another program's file; it is kept",
        .path.display()
    )]
    NotListed {
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

/// How much an analysis holds, as [`may_write`] compares it with the one
/// in a directory (by its `summary.json`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extent {
    /// The table's or census's `N`.
    pub n: u64,
    /// Whether made from a census alone.
    pub census_only: bool,
    /// Rows whose fate is proved (constant or proved periodic); `None`
    /// before the analysis is done.
    pub settled: Option<u64>,
    /// Terms of each sequence's b-file, by OEIS id (empty before the
    /// analysis is done).
    pub terms: BTreeMap<String, u64>,
    /// The names of the files it writes (empty before the analysis is
    /// done).
    pub files: Vec<String>,
}

impl Extent {
    /// What is known before the work: the `N` and the kind of source.
    pub fn before(n: u64, census_only: bool) -> Extent {
        Extent {
            n,
            census_only,
            ..Extent::default()
        }
    }

    /// How much `a` holds.
    pub fn of(a: &Analysis) -> Extent {
        let counts = RowCounts::of(&a.rows);
        Extent {
            n: a.facts.n.into(),
            census_only: a.census_only,
            settled: Some(counts.constant + counts.proved_periodic()),
            terms: a
                .sequences()
                .iter()
                .map(|s| (s.id.to_string(), s.terms.len() as u64))
                .collect(),
            files: files_of(a),
        }
    }

    /// The first measure by which `had` (of the same `N`, or less) holds
    /// more than `self`: what it counts, its count there and here.
    fn short_of(&self, had: &Extent) -> Option<(String, u64, u64)> {
        if let (Some(now), Some(was)) = (self.settled, had.settled)
            && now < was
        {
            return Some(("rows settled".into(), was, now));
        }
        had.terms.iter().find_map(|(id, &was)| {
            let now = *self.terms.get(id)?;
            (now < was).then(|| (format!("terms of {id}"), was, now))
        })
    }
}

/// Whether an analysis holding `this` may be written into `dir` without
/// replacing what is asked to be kept: nothing there of the names an
/// analysis writes, or a finished analysis (its `summary.json`) of the same
/// kind, of an `N` no larger, and holding no more by any measure both know
/// (rows settled, each b-file's terms): a table analysed without the census
/// that settled its rows does not replace the analysis made with it. A file
/// of those names without a summary is kept, as is everything beside a
/// summary that cannot be read: nothing tells chomp3's files from another
/// program's there.
pub fn may_write(dir: &Path, this: &Extent) -> Result<(), Kept> {
    let summary = dir.join("summary.json");
    if std::fs::symlink_metadata(&summary).is_ok() {
        let Some(had) = existing(dir) else {
            return Err(Kept::Unreadable { path: summary });
        };
        if had.n > this.n || had.census_only != this.census_only {
            return Err(Kept::Larger {
                dir: dir.to_path_buf(),
                had: had.n,
                had_census_only: had.census_only,
                n: this.n,
                census_only: this.census_only,
            });
        }
        return match this.short_of(&had) {
            Some((what, was, now)) => Err(Kept::Fuller {
                dir: dir.to_path_buf(),
                had_n: had.n,
                n: this.n,
                census_only: this.census_only,
                what,
                had: was,
                now,
            }),
            None => Ok(()),
        }
        .and_then(|()| unaccounted(dir, &this.files));
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

/// The first of `names` (the files an analysis is to write into `dir`) that
/// is there but not one the summary there lists as its analysis's (or as
/// one it replaced), which is then kept. A summary of an older chomp3 lists none: the names an analysis
/// writes are taken as its.
fn unaccounted(dir: &Path, names: &[String]) -> Result<(), Kept> {
    // With the files it replaced and had still to remove: they are an
    // analysis's too.
    let listed = files_listed(dir).map(|mut listed| {
        listed.extend(files_replaced(dir));
        listed
    });
    let found = names.iter().map(|name| dir.join(name)).find(|path| {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let ours = name.is_some_and(|name| match &listed {
            Some(listed) => listed.contains(&name) || name == "summary.json",
            None => written_here(&name),
        });
        !ours && std::fs::symlink_metadata(path).is_ok()
    });
    match found {
        Some(path) => Err(Kept::NotListed { path }),
        None => Ok(()),
    }
}

/// The name of the file of the rows [`write_all`] writes for `a`:
/// `rows.tsv`, or `rows.tsv.xz` for more than 300,001 rows.
pub fn rows_file(a: &Analysis) -> &'static str {
    tsv::rows_file_name(a.rows.len())
}

/// The names of the files [`write_all`] writes for `a`, sorted.
pub fn files_of(a: &Analysis) -> Vec<String> {
    let large = a.rows.len() > tsv::PLAIN_ROWS;
    let mut files = vec![
        "report.md".to_string(),
        "summary.json".to_string(),
        tsv::rows_file_name(a.rows.len()).to_string(),
    ];
    for s in a.sequences() {
        if bfiles::split(&s, large) {
            files.push(format!("{}.xz", s.file_name()));
        }
        files.push(s.file_name());
    }
    if !a.facts.value_count.is_empty() {
        files.push("values.tsv".to_string());
    }
    files.sort();
    files
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

/// What the analysis already in `dir` holds, by its `summary.json`; `None`
/// when there is none (or it cannot be read as one). Its rows settled and
/// terms are read where it has them.
fn existing(dir: &Path) -> Option<Extent> {
    let v = summary(dir)?;
    let n = v.get("n")?.as_u64()?;
    // Said by the summary; one written before it said so records the
    // command, where the option is a word of its own.
    let census_only = match v.get("census_only") {
        Some(said) => said.as_bool()?,
        None => (v.get("command")?.as_str()?.split_whitespace()).any(|w| w == "--census-only"),
    };
    let rows = v.get("rows");
    let count = |key: &str| rows?.get(key)?.as_u64();
    let proved = rows
        .and_then(|r| r.get("proved")?.as_object())
        .map(|by| by.values().filter_map(|c| c.as_u64()).sum::<u64>());
    let settled = count("constant").zip(proved).map(|(c, p)| c + p);
    let terms = v
        .get("sequences")
        .and_then(|s| s.as_object())
        .map(|by| {
            by.iter()
                .filter_map(|(id, s)| Some((id.clone(), s.get("terms")?.as_u64()?)))
                .collect()
        })
        .unwrap_or_default();
    Some(Extent {
        n,
        census_only,
        settled,
        terms,
        files: Vec::new(),
    })
}

/// The `summary.json` in `dir`, read as JSON (`None`: none, or not JSON).
fn summary(dir: &Path) -> Option<serde_json::Value> {
    let text = crate::base::text::read_to_string(&dir.join("summary.json"), "a summary").ok()?;
    serde_json::from_str(&text).ok()
}

/// The files the analysis in `dir` wrote, as its `summary.json` lists them
/// (`None` for a summary of an older chomp3, which did not).
fn files_listed(dir: &Path) -> Option<Vec<String>> {
    names_under(dir, "files")
}

/// The files the summary in `dir` says its analysis replaced and had still
/// to remove when it was committed (none from a summary without the list).
///
/// Only those still there that were last changed before the summary: a
/// file of such a name made after it (a user's own `rows.tsv`, made once the
/// old one was gone, with `xz -dk` from the analysis's `rows.tsv.xz` say,
/// which keeps the time it was modified but not the time its inode changed)
/// is not one the replaced analysis left, and is not taken for one.
fn files_replaced(dir: &Path) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let changed = |m: std::fs::Metadata| (m.ctime(), m.ctime_nsec());
    let Ok(summary) = std::fs::symlink_metadata(dir.join("summary.json")).map(changed) else {
        return Vec::new();
    };
    let mut names = names_under(dir, "replaced").unwrap_or_default();
    names.retain(|name| {
        std::fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.is_file() && changed(m) < summary)
    });
    names
}

/// The file names (without a `/`) of the list `key` of the summary in
/// `dir`; `None` without a summary or the list.
fn names_under(dir: &Path, key: &str) -> Option<Vec<String>> {
    let v = summary(dir);
    (v.as_ref().and_then(|v| v.get(key)?.as_array())).map(|files| {
        (files.iter())
            .filter_map(|f| Some(f.as_str()?.to_string()))
            .filter(|f| !f.contains('/'))
            .collect()
    })
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
    // Every file of the set, by name, for the analysis that replaces this
    // one: the names the guard checks (`files_of`), which are those written.
    let files = files_of(a);
    debug_assert!(
        (set.paths()).all(|p| files.iter().any(|f| p.file_name() == Some(f.as_ref()))),
        "a file written that the summary would not list"
    );
    // What the analysis replaced wrote and this one does not (its rows.tsv
    // beside this one's rows.tsv.xz, a table's values.tsv beside an analysis
    // of a census alone), by its summary, read before the new one is in
    // place: with what it had itself still to remove. They go once this one
    // is committed, so that the directory holds one analysis; the new
    // summary names them, so that a kill between the commit and their
    // removal leaves them to the next analysis here. Nothing else is
    // touched: only what a summary lists, and only regular files.
    let replaced: Vec<String> = (files_listed(dir).unwrap_or_default().into_iter())
        .chain(files_replaced(dir))
        .filter(|name| written_here(name) && !files.contains(name))
        .filter(|name| std::fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.is_file()))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let summary = |set: &mut FileSet, replaced: &[String]| {
        let parts = (&counts, &sequences[..], &files[..], replaced);
        json::write(set, a, parts, &provenance, &dir.join("summary.json"))
    };
    summary(&mut set, &replaced)?;
    let report = markdown::report(a, &counts, (&sequences, &split), &provenance, rows_name);
    set.write(&dir.join("report.md"), |w| w.write_all(report.as_bytes()))?;
    // The summary is what `may_write` reads before the next analysis here.
    set.rename_first(&dir.join("summary.json"));
    set.commit()?;
    // The new analysis is in place whatever happens here: a file that
    // cannot be removed (a read-only or immutable one) is left to the next
    // analysis, its summary naming it.
    if replaced.is_empty() {
        return Ok(());
    }
    let left: Vec<String> = (replaced.into_iter())
        .filter(|name| {
            let path = dir.join(name);
            std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file())
                && std::fs::remove_file(&path).is_err()
        })
        .collect();
    // The summary again, naming only what is left: a summary names no file
    // as replaced once it is gone, so that nothing made later under its name
    // (a user's own, a copy of the directory) is taken for it.
    let mut again = FileSet::new();
    summary(&mut again, &left)?;
    again.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory with a summary of the shape `summary.json` has.
    fn with_summary(json: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("summary.json"), json).unwrap();
        dir
    }

    const SUMMARY: &str = r#"{"table": "t.c3t", "n": 300,
        "command": "chomp3 analyze --table t.c3t --census c.c3d --out a",
        "rows": {"constant": 176, "proved": {"1": 100, "2": 25}, "evidence": {}, "open": 0},
        "sequences": {"A029899": {"terms": 301}, "A029903": {"terms": 124}}}"#;

    fn extent(n: u64, settled: u64, a029903: u64) -> Extent {
        Extent {
            n,
            census_only: false,
            settled: Some(settled),
            terms: [("A029899", n + 1), ("A029903", a029903)]
                .into_iter()
                .map(|(id, t)| (id.to_string(), t))
                .collect(),
            files: Vec::new(),
        }
    }

    #[test]
    fn a_file_the_summary_does_not_list_is_kept() {
        let listed = SUMMARY.replace(
            r#""n": 300,"#,
            r#""n": 300, "files": ["report.md", "rows.tsv", "summary.json", "values.tsv"],"#,
        );
        for (summary, name, kept) in [
            // Listed by the summary: its analysis's.
            (listed.as_str(), "rows.tsv", false),
            (listed.as_str(), "values.tsv", false),
            // Written by a larger analysis, not listed: someone else's.
            (listed.as_str(), "rows.tsv.xz", true),
            (listed.as_str(), "b029899.txt.xz", true),
            // A summary of an older chomp3 lists nothing: the names an
            // analysis writes are taken as its.
            (SUMMARY, "rows.tsv.xz", false),
        ] {
            let dir = with_summary(summary);
            let d = dir.path();
            std::fs::write(d.join(name), "a user's own file").unwrap();
            let mut this = extent(400, 400, 300);
            this.files = vec![name.to_string(), "summary.json".to_string()];
            match may_write(d, &this) {
                Err(Kept::NotListed { path }) => {
                    assert!(kept, "{name} refused under {summary}");
                    assert_eq!(path, d.join(name));
                }
                Err(e) => panic!("{name}: {e}"),
                Ok(()) => assert!(!kept, "{name} would be written over under {summary}"),
            }
            // Absent, nothing to keep.
            std::fs::remove_file(d.join(name)).unwrap();
            assert!(may_write(d, &this).is_ok(), "{name} absent");
        }
    }

    /// An analysis that holds less by any measure the summary has is kept,
    /// whatever its `N`; one that holds as much or more, or whose measures
    /// are not known yet, may be written; the message gives both `N`.
    #[test]
    fn an_analysis_holding_more_is_kept() {
        let dir = with_summary(SUMMARY);
        let d = dir.path();
        for ok in [
            Extent::before(300, false),
            Extent::before(400, false),
            extent(300, 301, 124),
            extent(400, 350, 130),
        ] {
            assert!(may_write(d, &ok).is_ok(), "{ok:?}");
        }
        let e = may_write(d, &extent(400, 300, 200))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("to N = 300 with 301 rows settled")
                && e.contains("this one, to N = 400, has 300"),
            "{e}"
        );
        let e = may_write(d, &extent(300, 301, 123))
            .unwrap_err()
            .to_string();
        assert!(e.contains("with 124 terms of A029903"), "{e}");
        assert!(may_write(d, &Extent::before(299, false)).is_err());
        assert!(may_write(d, &Extent::before(300, true)).is_err());
    }

    /// A summary of an older chomp3 without rows or sequences is compared by
    /// `N` and kind alone.
    #[test]
    fn a_summary_without_measures_is_compared_by_n() {
        let dir = with_summary(r#"{"n": 300, "command": "chomp3 analyze --out a"}"#);
        assert!(may_write(dir.path(), &extent(300, 1, 1)).is_ok());
        assert!(may_write(dir.path(), &extent(299, 1000, 1000)).is_err());
    }
}
