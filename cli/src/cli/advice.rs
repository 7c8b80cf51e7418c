//! What to type next, in the shell's terms: the library's errors say what is
//! wrong and what would mend it in words that fit every front end; this
//! module adds, after the message, the options and commands of this binary
//! that do it. Only advice lives here; no rule of the library is repeated.

use chomp3::f::census::CheckpointError;
use chomp3::f::census::job::JobError as CensusJobError;
use chomp3::f::census_file::{DescriptorError, MayWriteError};
use chomp3::f::compute::ComputeError;
use chomp3::f::lookup::LookupError;
use chomp3::f::table::TableError;
use chomp3::graph::MemoError;
use chomp3::graph::job::JobError as GraphJobError;
use chomp3::grundy::census_job::JobError as GrundyCensusJobError;
use chomp3::grundy::job::JobError as GrundyJobError;
use chomp3::grundy::nim::NimError;
use chomp3::grundy::periods_job::JobError as PeriodsJobError;

/// The shell's advice for the first error in `e`'s chain that has one.
pub fn advice(e: &anyhow::Error) -> Option<String> {
    e.chain().find_map(one)
}

/// The shell's advice for `cause` itself, if it has one.
pub fn one(cause: &(dyn std::error::Error + 'static)) -> Option<String> {
    {
        if let Some(e) = cause.downcast_ref::<TableError>() {
            return table(e);
        }
        if let Some(e) = cause.downcast_ref::<DescriptorError>() {
            return census(e);
        }
        if let Some(e) = cause.downcast_ref::<LookupError>() {
            return match e {
                LookupError::Table { error, .. } => table(error),
                LookupError::Census { error, .. } => census(error),
                LookupError::NoSource { .. } => Some(
                    "compute a table with `chomp3 compute --n N`, or give --table or --census"
                        .into(),
                ),
                _ => None,
            };
        }
        if let Some(e) = cause.downcast_ref::<NimError>() {
            return match e {
                NimError::Table { error, .. } => table(error),
                _ => None,
            };
        }
        if let Some(e) = cause.downcast_ref::<ComputeError>() {
            return match e {
                ComputeError::Table(error) => table(error),
                ComputeError::ReadOnly(_) => Some("give another --table".into()),
                _ => None,
            };
        }
        // The jobs' errors are transparent: their causes are read here.
        if let Some(CensusJobError::Replace(e)) = cause.downcast_ref() {
            return replace(e);
        }
        if let Some(GrundyJobError::Larger(_)) = cause.downcast_ref() {
            return Some(LARGER_BFILE.into());
        }
        match cause.downcast_ref() {
            Some(PeriodsJobError::Larger(_)) => return Some(LARGER_CENSUS.into()),
            Some(PeriodsJobError::LargerBFile(_)) => return Some(LARGER_BFILE.into()),
            Some(PeriodsJobError::MoreLines(_)) => return Some(LARGER_CENSUS.into()),
            _ => {}
        }
        match cause.downcast_ref() {
            Some(GrundyCensusJobError::Larger(_)) => return Some(LARGER_CENSUS.into()),
            Some(GrundyCensusJobError::LargerBFile(_)) => return Some(LARGER_BFILE.into()),
            Some(GrundyCensusJobError::MoreLines(_)) => return Some(LARGER_CENSUS.into()),
            Some(GrundyCensusJobError::NoRectangles) => {
                return Some("give --rectangles N with N >= 1, or leave it out".into());
            }
            _ => {}
        }
        if let Some(e) = cause.downcast_ref::<MayWriteError>() {
            return replace(e);
        }
        if cause
            .downcast_ref::<chomp3::grundy::sequences::LargerBFile>()
            .is_some()
        {
            return Some(LARGER_BFILE.into());
        }
        if cause
            .downcast_ref::<chomp3::grundy::file::Larger>()
            .is_some()
        {
            return Some(LARGER_CENSUS.into());
        }
        if let Some(GraphJobError::LargerBFile { .. }) = cause.downcast_ref() {
            return Some("pass --replace to replace it, or give another --bfile".into());
        }
        if let Some(chomp3::graph::job::RunError::OtherResult { .. }) = cause.downcast_ref() {
            return Some("pass --replace to replace it, or give another --out".into());
        }
        if let Some(GraphJobError::NoGraphs) = cause.downcast_ref() {
            return Some(
                "name a family (wheel:9), geng:N, a graph6 file, - for standard input, or --edges FILE"
                    .into(),
            );
        }
        if let Some(MemoError::NotFound(_)) = cause.downcast_ref() {
            return Some("`chomp3 graph --memo FILE` writes one".into());
        }
        if let Some(CheckpointError::NotThisFile) = cause.downcast_ref() {
            return Some(
                "give --checkpoint a file that `chomp3 census` wrote, or a new path".into(),
            );
        }
        None
    }
}

/// After a b-file of more terms that is kept.
const LARGER_BFILE: &str = "pass --replace to replace it, or give another --bfiles";
/// After a Grundy census of more lines that is kept.
const LARGER_CENSUS: &str = "pass --replace to replace it, or write elsewhere with --out";

fn replace(e: &MayWriteError) -> Option<String> {
    match e {
        MayWriteError::Larger { .. } | MayWriteError::MoreColumns { .. } => {
            Some("pass --replace to replace it, or write elsewhere with --out".into())
        }
        MayWriteError::NotCensus { .. } => Some("pass --replace to replace it".into()),
        _ => None,
    }
}

fn table(e: &TableError) -> Option<String> {
    match e {
        TableError::NotFound(path, shape) => Some(format!(
            "create it with `{} --n N --table {}`",
            shape.command(),
            super::shell::quote(path.as_os_str())
        )),
        TableError::BeyondCapacity { .. } => {
            Some("make the table again with a larger --capacity".into())
        }
        _ => None,
    }
}

fn census(e: &DescriptorError) -> Option<String> {
    match e {
        DescriptorError::NotFound(_) => {
            Some("make one with `chomp3 census --rows R --out FILE`".into())
        }
        DescriptorError::NotThisFile => Some("give --census a .c3d file".into()),
        _ => None,
    }
}
