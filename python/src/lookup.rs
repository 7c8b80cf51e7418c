//! `lookup` and `position`: f(q, r) by the library's source rule, and a
//! position's outcome and winning moves.

use std::path::PathBuf;

use chomp3::base::shell::one_line;
use chomp3::f::census_file::DescriptorError;
use chomp3::f::lookup::{LookupError, Named};
use chomp3::f::table::TableError;
use pyo3::exceptions::PyFileNotFoundError;
use pyo3::prelude::*;

use crate::watch::interruptible;
use crate::{error, guard};
use chomp3::base::stop::Stop;
use chomp3::f::lookup::{DEFAULT_CENSUS, DEFAULT_TABLE};

pub(crate) fn named(path: Option<PathBuf>, default: &str) -> Named {
    match path {
        Some(path) => Named { path, named: true },
        None => Named {
            path: PathBuf::from(default),
            named: false,
        },
    }
}

/// f(q, r) by `chomp3 get`'s source rule: (value, source kind, the
/// `--explain` line).
#[pyfunction]
#[pyo3(signature = (q, r, table=None, census=None))]
pub(crate) fn lookup(
    py: Python<'_>,
    q: u64,
    r: u64,
    table: Option<PathBuf>,
    census: Option<PathBuf>,
) -> PyResult<(u128, &'static str, String)> {
    guard(|| {
        let table = named(table, DEFAULT_TABLE);
        let census = named(census, DEFAULT_CENSUS);
        // Reading a large compressed census takes seconds: Ctrl-C is heard.
        let stop = Stop::new();
        let answer = interruptible(py, &stop, || {
            chomp3::f::lookup::lookup_until(q, r, &table, &census, &stop)
        })?;
        match answer {
            Ok(a) => Ok((a.value, a.source.kind(), one_line(&a.source.to_string()))),
            Err(e) => Err(lookup_error(e)),
        }
    })
}

/// A look-up's error: `FileNotFoundError` for a missing file, else `chomp3.Error`.
pub(crate) fn lookup_error(e: LookupError) -> PyErr {
    // No file there, or a link to none.
    let missing = match &e {
        LookupError::Table { error, .. } => match error {
            TableError::NotFound(..) => true,
            TableError::Input(i) => i.is_missing(),
            _ => false,
        },
        LookupError::Census { error, .. } => match error {
            DescriptorError::NotFound(_) => true,
            DescriptorError::Input(i) => i.is_missing(),
            _ => false,
        },
        LookupError::NoSource { .. } => true,
        _ => false,
    };
    if let LookupError::NoSource { .. } = e {
        return PyFileNotFoundError::new_err(format!(
            "{e}; pass table= or census=, or make a table with chomp3.compute"
        ));
    }
    match missing {
        true => PyFileNotFoundError::new_err(e.to_string()),
        false => error(e),
    }
}

/// Whether [p,q,r] is lost for the player to move, and its winning moves as
/// (row, column, (p, q, r) after the move), every value of f by `chomp3
/// get`'s source rule: the table where it reaches, else the census.
#[pyfunction]
#[pyo3(signature = (p, q, r, table=None, census=None))]
#[allow(clippy::type_complexity)]
pub(crate) fn position(
    py: Python<'_>,
    p: u64,
    q: u64,
    r: u64,
    table: Option<PathBuf>,
    census: Option<PathBuf>,
) -> PyResult<(bool, Option<Vec<(&'static str, u64, (u64, u64, u64))>>)> {
    use chomp3::f::lookup::Sources;
    use chomp3::f::position::{PositionError, Row, is_p, winning_moves};
    guard(|| {
        let (table, census) = (named(table, DEFAULT_TABLE), named(census, DEFAULT_CENSUS));
        let stop = Stop::new();
        let sources = interruptible(py, &stop, || {
            Sources::open_for_until(q, r, &table, &census, &stop)
        })?
        .map_err(lookup_error)?;
        let bad = |e: PositionError| match e {
            PositionError::Lookup(e) => lookup_error(e),
            e => error(e),
        };
        let lost = is_p(&sources, p, q, r).map_err(bad)?;
        // Won or lost for every position; the moves where the library lists
        // them (Q <= MAX_MIDDLE), as the command does.
        let moves = match lost {
            true => Vec::new(),
            // Up to ten million values read: Ctrl-C is heard meanwhile.
            false => match interruptible(py, &stop, || winning_moves(&sources, p, q, r, &stop))? {
                Err(PositionError::TooLong(..)) => return Ok((lost, None)),
                moves => moves.map_err(bad)?,
            },
        };
        let moves = moves
            .into_iter()
            .map(|m| {
                let row = match m.row {
                    Row::Bottom => "bottom",
                    Row::Middle => "middle",
                    Row::Top => "top",
                };
                (row, m.column, (m.to[0], m.to[1], m.to[2]))
            })
            .collect();
        Ok((lost, Some(moves)))
    })
}
