//! `summary.json`: the row counts, the sequences' extents, growth and checks.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use super::Provenance;
use crate::base::atomic_write::FileSet;
use crate::f::analysis::Analysis;
use crate::f::analysis::checks::Checks;
use crate::f::analysis::counts::RowCounts;
use crate::f::analysis::growth::Growth;
use crate::f::analysis::sequences::Sequence;

#[derive(Serialize)]
struct Summary<'a> {
    table: String,
    n: u32,
    /// Made from a census alone (no table).
    census_only: bool,
    command: &'a str,
    rows: &'a RowCounts,
    /// [`Analysis::settled_below`], under the key the committed files use.
    #[serde(rename = "resolved_below")]
    settled_below: u32,
    sequences: BTreeMap<&'static str, SequenceInfo<'a>>,
    growth: &'a Growth,
    checks: &'a Checks,
    /// The files the analysis wrote (the next analysis in the directory
    /// removes those it does not write itself).
    files: &'a [String],
    /// Files the analysis this one replaced wrote and this one does not,
    /// there when it was committed: removed just after, and by the next
    /// analysis here if a kill came between.
    replaced: &'a [String],
}

#[derive(Serialize)]
struct SequenceInfo<'a> {
    terms: usize,
    complete: &'a str,
}

/// Writes `summary.json`.
pub(super) fn write(
    set: &mut FileSet,
    a: &Analysis,
    (counts, sequences, files, replaced): (&RowCounts, &[Sequence], &[String], &[String]),
    provenance: &Provenance,
    path: &Path,
) -> io::Result<()> {
    let summary = Summary {
        table: provenance.table.display().to_string(),
        n: a.facts.n,
        census_only: a.census_only,
        command: provenance.command,
        rows: counts,
        settled_below: a.settled_below,
        sequences: sequences
            .iter()
            .map(|s| {
                let info = SequenceInfo {
                    terms: s.terms.len(),
                    complete: &s.complete,
                };
                (s.id, info)
            })
            .collect(),
        growth: &a.growth,
        checks: &a.checks,
        files,
        replaced,
    };
    let json = serde_json::to_string_pretty(&summary).map_err(io::Error::other)?;
    set.write(path, |w| writeln!(w, "{json}"))
}
