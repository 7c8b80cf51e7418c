//! One value `f(q,r)` and where it comes from: the table where it reaches, else a
//! census descriptor file (a row's proved fate, or on and above the diagonal
//! the column facts it computed), never silently. Uses `table`, `census_file`, `proof`,
//! `path_message`.
//!
//! The rules: a table that exists is always opened, and if it fails its checks the
//! answer is that error. The census answers only where the table does not reach
//! (`q` or `r` beyond its `N`), or when no table was named and none exists at the
//! default path. A census that was named must exist; the default one is used only
//! if it exists. Every [`Answer`] says its source.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::base::path_message::NamesPath;
use crate::base::stop::Stop;
use crate::f::census_file::{DescriptorError, Descriptors};
use crate::f::proof::{Fate, RowStatus};
use crate::f::table::{Table, TableError};

/// Where the table is when none is named (relative to the repository root,
/// where the commands and the Python package are run from).
pub const DEFAULT_TABLE: &str = "data/table.c3t";

/// The census consulted when none is named: the committed certified census of
/// rows `0..=10^6`, read as committed (decompressed as it is read).
pub const DEFAULT_CENSUS: &str = "data/census-1000000/census.c3d.xz";

/// A path, and whether the user named it (else it is the default).
#[derive(Clone, Debug)]
pub struct Named {
    /// The path.
    pub path: PathBuf,
    /// Given on the command line (`false`: the default path).
    pub named: bool,
}

/// Where an answer came from.
#[derive(Clone, Debug)]
pub enum Source {
    /// The table holds the cell.
    Table {
        /// The table file.
        path: PathBuf,
        /// Its `N`.
        n: u64,
    },
    /// A census proved the row's fate.
    Census {
        /// The descriptor file.
        path: PathBuf,
        /// The row asked about (`min(q, r)`).
        row: u64,
        /// Its proved status.
        status: RowStatus,
        /// Why the table did not answer: `None` when there is no table, else its
        /// `N` (`None` inside: it holds no column yet).
        table_n: Option<Option<u64>>,
        /// The table's path.
        table: PathBuf,
    },
    /// The census computed column `q` whole: `f(q, q)` is in its column
    /// facts (for `r > q`, `f(q, r) = f(q, q)`), beyond its rows' proofs.
    Diagonal {
        /// The descriptor file.
        path: PathBuf,
        /// The column (`q <= r`).
        q: u64,
        /// The last column the census computed whole.
        n: u64,
        /// Why the table did not answer (as in [`Source::Census`]).
        table_n: Option<Option<u64>>,
        /// The table's path.
        table: PathBuf,
    },
}

impl Source {
    /// The kind of source, one word: `"table"` or `"census"` (a row's
    /// proved fate or the census's diagonal).
    pub fn kind(&self) -> &'static str {
        match self {
            Source::Table { .. } => "table",
            Source::Census { .. } | Source::Diagonal { .. } => "census",
        }
    }
}

/// A value and its source.
#[derive(Clone, Debug)]
pub struct Answer {
    /// `f(q, r)`.
    pub value: u128,
    /// Where it came from.
    pub source: Source,
}

/// Why no value could be given.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    /// The table exists (or was named) and fails to open.
    #[error("{}", .error.with_path(.path))]
    Table {
        /// The table file.
        path: PathBuf,
        /// What is wrong with it (its message is this error's whole message).
        error: TableError,
    },
    /// The census is needed and fails to open.
    #[error("{}", .error.with_path(.path))]
    Census {
        /// The descriptor file.
        path: PathBuf,
        /// What is wrong with it (its message is this error's whole message).
        error: DescriptorError,
    },
    /// The table does not reach the cell and the census does not settle it.
    #[error("{table}; {census}")]
    Unanswered {
        /// Why the table did not answer.
        table: String,
        /// Why the census did not answer.
        census: String,
    },
    /// Neither a table nor a census exists at the default paths.
    #[error(
        "no table at {} and no census at {}; name a table or a census, or compute a table",
        .table.display(),
        .census.display()
    )]
    NoSource {
        /// The default table path.
        table: PathBuf,
        /// The default census path.
        census: PathBuf,
    },
}

/// `f(q, r)` (for `r > q`, `f(q,q)`) from `table`, or from `census` where the rules
/// of this module allow. The census is opened only when the table does not answer.
pub fn lookup(q: u64, r: u64, table: &Named, census: &Named) -> Result<Answer, LookupError> {
    lookup_until(q, r, table, census, &Stop::new())
}

/// [`lookup`], stopping soon after `stop` is requested (reading a large
/// compressed census takes seconds).
pub fn lookup_until(
    q: u64,
    r: u64,
    table: &Named,
    census: &Named,
    stop: &Stop,
) -> Result<Answer, LookupError> {
    Sources::open_for_until(q, r, table, census, stop)?.answer(q, r)
}

/// A table and a census opened once under this module's rules, for many look-ups
/// (the viewer's).
pub struct Sources {
    /// The table, if one was named or exists at the default path.
    pub table: Option<Table>,
    /// The census, if one was named or exists at the default path.
    pub census: Option<Descriptors>,
    /// Where the table is (or would be).
    pub table_path: Named,
    /// Where the census is (or would be).
    pub census_path: Named,
}

impl Sources {
    /// Opens both: a named file must open; a default one is used if it exists.
    pub fn open(table: &Named, census: &Named) -> Result<Sources, LookupError> {
        Ok(Sources {
            table: open_table(table, false)?,
            census: open_census(census, &Stop::new())?,
            table_path: table.clone(),
            census_path: census.clone(),
        })
    }

    /// Opens the table, and the census only if the table does not reach cell
    /// `(q, r)`: enough for every cell in columns `<= q` and rows `<= r`, as
    /// a position's questions need, without reading a census the table makes
    /// unnecessary.
    pub fn open_for(q: u64, r: u64, table: &Named, census: &Named) -> Result<Sources, LookupError> {
        Sources::open_for_with(q, r, table, census, false, &Stop::new())
    }

    /// [`Sources::open_for`], stopping soon after `stop` is requested.
    pub fn open_for_until(
        q: u64,
        r: u64,
        table: &Named,
        census: &Named,
        stop: &Stop,
    ) -> Result<Sources, LookupError> {
        Sources::open_for_with(q, r, table, census, false, stop)
    }

    /// [`Sources::open_for`] with the table mapped: rows read about 20
    /// times as fast, for a process that reads and exits (a file cut while
    /// it is mapped ends the process).
    pub fn open_for_mapped(
        q: u64,
        r: u64,
        table: &Named,
        census: &Named,
    ) -> Result<Sources, LookupError> {
        Sources::open_for_with(q, r, table, census, true, &Stop::new())
    }

    fn open_for_with(
        q: u64,
        r: u64,
        table: &Named,
        census: &Named,
        map: bool,
        stop: &Stop,
    ) -> Result<Sources, LookupError> {
        let opened = open_table(table, map)?;
        let beyond = opened
            .as_ref()
            .is_none_or(|t| matches!(t.get(q, r), Err(e) if past_the_table(&e)));
        let census_file = if beyond {
            open_census(census, stop)?
        } else {
            None
        };
        Ok(Sources {
            table: opened,
            census: census_file,
            table_path: table.clone(),
            census_path: census.clone(),
        })
    }

    /// `f(q, r)` and its source: the table where it reaches, else the census.
    pub fn answer(&self, q: u64, r: u64) -> Result<Answer, LookupError> {
        let (table, census) = (&self.table_path, &self.census_path);
        let beyond = match &self.table {
            Some(t) => match t.get(q, r) {
                Ok(v) => {
                    return Ok(Answer {
                        value: u128::from(v),
                        source: Source::Table {
                            path: table.path.clone(),
                            n: t.columns() - 1,
                        },
                    });
                }
                Err(e) if past_the_table(&e) => Some((e, t.n())),
                Err(error) => {
                    return Err(LookupError::Table {
                        path: table.path.clone(),
                        error,
                    });
                }
            },
            None => None,
        };
        let no_table = || match &beyond {
            Some((e, _)) => e.with_path(&table.path),
            None => format!("no table at {}", table.path.display()),
        };
        let Some(d) = &self.census else {
            return Err(match beyond {
                Some(_) => LookupError::Unanswered {
                    table: no_table(),
                    census: format!("no census at {} to answer beyond it", census.path.display()),
                },
                None => LookupError::NoSource {
                    table: table.path.clone(),
                    census: census.path.clone(),
                },
            });
        };
        let table_n = beyond.as_ref().map(|(_, n)| *n);
        let (value, source) = match in_census(d, q, r) {
            InCensus::Row { status, value } => (
                value,
                Source::Census {
                    path: census.path.clone(),
                    row: r.min(q),
                    status,
                    table_n,
                    table: table.path.clone(),
                },
            ),
            InCensus::Diagonal { value, n } => (
                u128::from(value),
                Source::Diagonal {
                    path: census.path.clone(),
                    q,
                    n,
                    table_n,
                    table: table.path.clone(),
                },
            ),
            InCensus::Not(status) => {
                return Err(LookupError::Unanswered {
                    table: no_table(),
                    census: census_gap(&census.path, d, r.min(q), status.as_ref()),
                });
            }
        };
        Ok(Answer { value, source })
    }
}

impl Sources {
    /// The first column `q` in `from ..= to` whose `f(q, r)` neither the
    /// table nor the census gives ([`Sources::answer`] says why), if any.
    /// Exact without asking every column: the table holds `q <= N`; past
    /// it, on or above the diagonal (`q <= r`) the census's columns hold
    /// `q <= N'` and row `q`'s proof holds it from its start; below the
    /// diagonal row `r`'s proof holds every `q` from its start.
    pub fn first_unanswered(&self, r: u64, from: u64, to: u64) -> Option<u64> {
        let past_table = self.table.as_ref().and_then(|t| t.n()).map_or(0, |n| n + 1);
        let mut q = from.max(past_table);
        if q > to {
            return None;
        }
        let Some(d) = &self.census else {
            return Some(q);
        };
        let columns = d.facts_n().map(u64::from);
        while q <= to.min(r) {
            let covered_to = match columns {
                // Every column up to the census's last is whole.
                Some(n) if q <= n => n.min(to).min(r),
                _ if matches!(in_census(d, q, r), InCensus::Not(_)) => return Some(q),
                _ => q,
            };
            q = covered_to.checked_add(1)?;
        }
        if q > to {
            return None;
        }
        match in_census(d, q, r) {
            // Row r's proof holds from its start on, so from q to `to`.
            InCensus::Row { .. } => None,
            _ => Some(q),
        }
    }
}

/// What a census alone says of `f(q, r)`.
pub enum InCensus {
    /// Row `min(q, r)`'s proved fate gives it.
    Row {
        /// The row's fate.
        status: RowStatus,
        /// `f(q, r)`.
        value: u128,
    },
    /// On or above the diagonal (`q <= r`): `f(q, q)` from the columns the
    /// census computed whole, `0 ..= n`.
    Diagonal {
        /// `f(q, q)`.
        value: u32,
        /// The last column computed whole.
        n: u64,
    },
    /// Neither; the row's fate, if it has one (then `q` is before its start).
    Not(Option<RowStatus>),
}

/// `f(q, r)` from the census `d` alone: the row's proved fate where it
/// starts, else on or above the diagonal its column facts (it computed every
/// column `q <= N` whole before proving its rows).
pub fn in_census(d: &Descriptors, q: u64, r: u64) -> InCensus {
    let row = r.min(q);
    let status = u32::try_from(row).ok().and_then(|row| d.status(row));
    if let Some(value) = status.as_ref().and_then(|s| s.proved_value(q)) {
        let status = status.expect("a value comes from a status");
        return InCensus::Row { status, value };
    }
    match (q <= r).then(|| d.diagonal(q)).flatten() {
        Some(value) => InCensus::Diagonal {
            value,
            n: u64::from(d.facts_n().unwrap_or(0)),
        },
        None => InCensus::Not(status),
    }
}

/// Why the census `d` (at `path`) does not give `f(q, r)`, one clause.
pub fn census_silent(path: &Path, d: &Descriptors, q: u64, r: u64) -> String {
    let row = r.min(q);
    let status = u32::try_from(row).ok().and_then(|row| d.status(row));
    census_gap(path, d, row, status.as_ref())
}

/// Whether a table's error is a question past the table as it was opened
/// (the census answers there): past its `N`, or past the `N` it had when
/// opened, where it has grown since (`compute` extending it while a viewer
/// holds it open).
fn past_the_table(e: &TableError) -> bool {
    matches!(e, TableError::OutOfRange { .. } | TableError::Grew { .. })
}

/// The table if it was named or exists at the default path.
fn open_table(table: &Named, map: bool) -> Result<Option<Table>, LookupError> {
    open_if_there(
        table,
        |p| Table::options().either_f().mapped(map).open(p),
        |path, error| LookupError::Table { path, error },
    )
}

/// The census if it was named or exists at the default path.
fn open_census(census: &Named, stop: &Stop) -> Result<Option<Descriptors>, LookupError> {
    open_if_there(
        census,
        |p| Descriptors::open_until(p, stop),
        |path, error| LookupError::Census { path, error },
    )
}

/// Opens a named file (which must open) or a default one that exists.
fn open_if_there<T, E>(
    file: &Named,
    open: impl Fn(&Path) -> Result<T, E>,
    error: impl Fn(PathBuf, E) -> LookupError,
) -> Result<Option<T>, LookupError> {
    if !file.named && !file.path.exists() {
        return Ok(None);
    }
    open(&file.path)
        .map(Some)
        .map_err(|e| error(file.path.clone(), e))
}

/// Why the census cannot answer for `row`.
fn census_gap(path: &Path, d: &Descriptors, row: u64, status: Option<&RowStatus>) -> String {
    let p = path.display();
    match status {
        _ if row >= d.rows() as u64 => {
            format!("the census {p} covers rows 0..{} only", d.rows() as u64 - 1)
        }
        None => format!("row {row} is open in the census {p}"),
        Some(s) => format!(
            "the census {p} gives row {row} only from q = {}",
            s.fate.start()
        ),
    }
}

impl fmt::Display for Source {
    /// The `--explain` line.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Source::Table { path, n } => {
                write!(f, "from the table {} (N = {n})", path.display())
            }
            Source::Census {
                path,
                row: r,
                status,
                table_n,
                table,
            } => {
                write!(f, "from {}: row {r} is ", path.display())?;
                match &status.fate {
                    Fate::Constant { start } => {
                        write!(f, "constant, f(q,{r}) = {start} for q >= {start}")?
                    }
                    Fate::Periodic { start, pattern } => {
                        let pattern: Vec<String> = pattern.iter().map(i32::to_string).collect();
                        write!(
                            f,
                            "proved periodic, f(q,{r}) - q repeats [{}] from q = {start}",
                            pattern.join(",")
                        )?
                    }
                }
                beyond_table(f, table_n, table)
            }
            Source::Diagonal {
                path,
                q,
                n,
                table_n,
                table,
            } => {
                write!(
                    f,
                    "from {}: the diagonal f(n,n) of the columns it computed, n <= {n}, at n = {q}",
                    path.display()
                )?;
                beyond_table(f, table_n, table)
            }
        }
    }
}

/// Why a census answered: the table did not reach the cell, or there is none.
fn beyond_table(
    f: &mut fmt::Formatter,
    table_n: &Option<Option<u64>>,
    table: &Path,
) -> fmt::Result {
    match table_n {
        Some(n) => write!(
            f,
            " (beyond the table {}, {})",
            table.display(),
            crate::f::table::holds(*n)
        ),
        None => write!(f, " (no table at {})", table.display()),
    }
}
