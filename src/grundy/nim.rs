//! One value `G(p,q,r)` and where it came from: a Grundy table or a Grundy
//! census that the caller named, where it covers the position, else the
//! sweep; never silently. Uses the module's [`table`](super::table),
//! [`super::file`] and sweep, and `table`'s errors.
//!
//! The rules: the table is asked first, then the census; a named file that
//! cannot be read is an error, one that does not cover the position is
//! passed over and [`Answer::passed`] says so; the sweep computes what no
//! named file covers (`p < 2^32`).
//!
//! A census of periods and starts (no patterns) covers `p` past the first
//! period of a line it proved: `G(p) - p = G(p') - p'` for
//! `p' = s + (p - s) mod P` (start `s`, least period `P`), and the sweep
//! computes `G(p')`. Within the first period there is nothing to reduce: it
//! is passed over and the sweep computes `G(p)` itself.

use std::fmt;
use std::path::{Path, PathBuf};

use super::file::{self, Found, ReadError};
use super::table::GrundyTable;
use crate::base::path_message::NamesPath;
use crate::base::stop::Stop;
use crate::f::table::TableError;

/// Where a value came from.
#[derive(Clone, Debug)]
pub enum Source {
    /// A Grundy table holding every position with `p <= n`.
    Table {
        /// The table file.
        path: PathBuf,
        /// Its `N`.
        n: u64,
    },
    /// A Grundy census that proved the line periodic.
    Census {
        /// The census file.
        path: PathBuf,
        /// The line.
        q: u64,
        /// The line.
        r: u64,
        /// The least `p` from which `G - p` repeats.
        start: u64,
        /// Its least period.
        period: u64,
    },
    /// A census of periods and starts that proved the line periodic, and
    /// the sweep at the `p` it reduces to.
    Reduced {
        /// The census file.
        path: PathBuf,
        /// The line.
        q: u64,
        /// The line.
        r: u64,
        /// The least `p` from which `G - p` repeats.
        start: u64,
        /// Its least period.
        period: u64,
        /// The `p` in `start .. start + period` computed.
        at: u64,
    },
    /// The sweep of every line `q' <= q` up to `p`.
    Computed {
        /// The position's `q`.
        q: u64,
        /// The position's `p`.
        p: u64,
    },
}

impl Source {
    /// `"table"`, `"census"` or `"computed"`.
    pub fn kind(&self) -> &'static str {
        match self {
            Source::Table { .. } => "table",
            Source::Census { .. } | Source::Reduced { .. } => "census",
            Source::Computed { .. } => "computed",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Table { path, n } => {
                write!(f, "the Grundy table {} (every p <= {n})", path.display())
            }
            Source::Census {
                path,
                q,
                r,
                start,
                period,
            } => write!(
                f,
                "{}, line ({q},{r}): G - p repeats from p = {start} with period {period}",
                path.display()
            ),
            Source::Reduced {
                path,
                q,
                r,
                start,
                period,
                at,
            } => write!(
                f,
                "{}, line ({q},{r}): G - p repeats from p = {start} with period {period}, so G - p is that at p = {at}, computed by the Grundy sweep (every line q' <= {q})",
                path.display()
            ),
            Source::Computed { q, p } => {
                write!(
                    f,
                    "computed by the Grundy sweep (every line q' <= {q} to p = {p})"
                )
            }
        }
    }
}

/// A value and its source.
#[derive(Clone, Debug)]
pub struct Answer {
    /// `G(p,q,r)`: a `u128`, as it passes `2^64` for `p` near it.
    pub value: u128,
    /// Where it came from.
    pub source: Source,
    /// The named files that did not cover the position, a sentence each.
    pub passed: Vec<String>,
}

/// Why there is no value.
#[derive(Debug, thiserror::Error)]
pub enum NimError {
    /// Not `p >= q >= r >= 0`, `p >= 1`.
    #[error("[{p},{q},{r}] is not a position: it needs P >= Q >= R >= 0 and P >= 1")]
    NotAPosition {
        /// The position asked about.
        p: u64,
        /// The position asked about.
        q: u64,
        /// The position asked about.
        r: u64,
    },
    /// The named table could not be read.
    #[error("{}", error.with_path(path))]
    Table {
        /// The table file.
        path: PathBuf,
        /// What went wrong.
        error: TableError,
    },
    /// The named census could not be read.
    #[error("{}: {error}", .path.display())]
    Census {
        /// The census file.
        path: PathBuf,
        /// What went wrong.
        error: CensusError,
    },
    /// No named file covers the position, and it is too large for the sweep.
    #[error(
        "[{p},{q},{r}] is too large to compute (P < 2^32) and no file named covers it; name a Grundy census that does"
    )]
    TooLarge {
        /// The position asked about.
        p: u64,
        /// The position asked about.
        q: u64,
        /// The position asked about.
        r: u64,
    },
    /// The sweep would need more memory than the machine has.
    #[error("{0}")]
    Memory(crate::base::memory::TooMuch),
    /// The sweep was stopped.
    #[error("interrupted; nothing computed")]
    Stopped,
}

/// A census file that could not be opened or read.
#[derive(Debug, thiserror::Error)]
pub enum CensusError {
    /// Opening it failed.
    #[error("{0}")]
    Open(#[from] std::io::Error),
    /// Its text is not a Grundy census.
    #[error("{0}")]
    Read(#[from] ReadError),
}

impl CensusError {
    /// Whether the file is not there.
    pub fn not_found(&self) -> bool {
        matches!(self, CensusError::Open(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

/// `G(p,q,r)` by the rules of the module's comment. If the sweep runs,
/// `progress(reached, target)` hears how far it is every 4,096 steps.
pub fn nim(
    [p, q, r]: [u64; 3],
    table: Option<&Path>,
    census: Option<Census<'_>>,
    stop: &Stop,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Answer, NimError> {
    if !(p >= q && q >= r && p >= 1) {
        return Err(NimError::NotAPosition { p, q, r });
    }
    let mut passed = Vec::new();
    let answer = |value, source, passed| {
        Ok(Answer {
            value,
            source,
            passed,
        })
    };
    if let Some(path) = table {
        let bad = |error| NimError::Table {
            path: path.to_path_buf(),
            error,
        };
        let t = GrundyTable::open(path).map_err(bad)?;
        let n = t.n().unwrap_or(0);
        match t.get(p, q, r) {
            Ok(value) => {
                let source = Source::Table {
                    path: path.to_path_buf(),
                    n,
                };
                return answer(u128::from(value), source, passed);
            }
            Err(TableError::OutOfRange { .. }) => passed.push(format!(
                "{} holds p <= {n} only (extend it with `chomp3 grundy-table --n {p} --table {}`)",
                path.display(),
                path.display()
            )),
            Err(e) => return Err(bad(e)),
        }
    }
    if let Some(census) = census {
        let (path, fate) = match census {
            Census::File(path) => {
                let bad = |error: CensusError| NimError::Census {
                    path: path.to_path_buf(),
                    error,
                };
                let reader = crate::base::text::open(path).map_err(|e| bad(e.into()))?;
                // Streamed: a census of a large Q is gigabytes, and one line is wanted.
                let fate = match (u32::try_from(q), u32::try_from(r)) {
                    (Ok(q), Ok(r)) => file::find(reader, q, r).map(|(_, fate)| fate),
                    _ => file::summaries(reader).map(|_| None),
                }
                .map_err(|e| bad(e.into()))?;
                (path, fate)
            }
            Census::Loaded(c) => (c.path(), c.line(q, r).cloned()),
        };
        if let Some(a) = from_line(path, fate.as_ref(), [p, q, r], &mut passed, stop, progress)? {
            return answer(a.0, a.1, passed);
        }
    }
    let value = sweep(p, q, r, stop, progress)?;
    answer(value, Source::Computed { q, p }, passed)
}

/// The value `fate` (the census `path`'s line `(q,r)`, if it has it) gives
/// at `p`, with its source; `None`, with the reason in `passed`, if it gives
/// none.
fn from_line(
    path: &Path,
    fate: Option<&Found>,
    [p, q, r]: [u64; 3],
    passed: &mut Vec<String>,
    stop: &Stop,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Option<(u128, Source)>, NimError> {
    match fate {
        Some(Found::Pattern(f)) if p >= u64::from(f.start) => {
            let value = f.value(p).expect("p from the start on");
            let source = Source::Census {
                path: path.to_path_buf(),
                q,
                r,
                start: u64::from(f.start),
                period: u64::from(f.period),
            };
            Ok(Some((value, source)))
        }
        Some(Found::Period(f)) if p >= u64::from(f.start) + u64::from(f.period) => {
            let (start, period) = (u64::from(f.start), u64::from(f.period));
            let at = start + (p - start) % period;
            let g = sweep(at, q, r, stop, progress)?;
            let source = Source::Reduced {
                path: path.to_path_buf(),
                q,
                r,
                start,
                period,
                at,
            };
            // `p - at` is a multiple of the period; `G(p) = G(at) + (p - at)`.
            Ok(Some((u128::from(p - at) + g, source)))
        }
        Some(Found::Period(f)) if p >= u64::from(f.start) => {
            passed.push(format!(
                "{}: p is within the first period of line ({q},{r}) (from {} with period {}), nothing to reduce",
                path.display(),
                f.start,
                f.period
            ));
            Ok(None)
        }
        _ => {
            passed.push(format!(
                "{} does not cover [{p},{q},{r}] (line not proved, or p before its start)",
                path.display()
            ));
            Ok(None)
        }
    }
}

/// A Grundy census to answer from: a file read for the one line wanted, or
/// one read whole once ([`LoadedCensus`]) for many questions.
#[derive(Clone, Copy)]
pub enum Census<'a> {
    /// The file, streamed to the line wanted.
    File(&'a Path),
    /// A census in memory.
    Loaded(&'a LoadedCensus),
}

/// A Grundy census of either kind read whole, its lines by `(q, r)`.
#[derive(Clone, Debug)]
pub struct LoadedCensus {
    path: PathBuf,
    q_max: u32,
    /// The proved lines by `(q, r)` (a map, not a vector by line number: a
    /// file's `Q` alone must not decide an allocation).
    lines: std::collections::BTreeMap<(u32, u32), Found>,
}

impl LoadedCensus {
    /// Reads the census at `path` (sealed, checked to its end line).
    pub fn open(path: &Path) -> Result<LoadedCensus, NimError> {
        let bad = |error: CensusError| NimError::Census {
            path: path.to_path_buf(),
            error,
        };
        let reader = crate::base::text::open(path).map_err(|e| bad(e.into()))?;
        let (q_max, found) = file::read_lines(reader).map_err(|e| bad(e.into()))?;
        let lines = found
            .into_iter()
            .map(|f| {
                let l = f.proved();
                ((l.q, l.r), f)
            })
            .collect();
        Ok(LoadedCensus {
            path: path.to_path_buf(),
            q_max,
            lines,
        })
    }

    /// The file it was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its `Q`: it holds lines `(q, r)`, `r <= q <= Q`.
    pub fn q_max(&self) -> u32 {
        self.q_max
    }

    /// The proved line `(q, r)`, if the census has it.
    pub fn line(&self, q: u64, r: u64) -> Option<&Found> {
        self.lines
            .get(&(u32::try_from(q).ok()?, u32::try_from(r).ok()?))
    }

    /// Every proved line, in the order `(q, r)` by `q` then `r`.
    pub fn lines(&self) -> impl Iterator<Item = &Found> {
        self.lines.values()
    }
}

/// `G(p,q,r)` by the sweep, if `p` fits it.
fn sweep(
    p: u64,
    q: u64,
    r: u64,
    stop: &Stop,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<u128, NimError> {
    let (Ok(p32), Ok(q32), Ok(r32)) = (u32::try_from(p), u32::try_from(q), u32::try_from(r)) else {
        return Err(NimError::TooLarge { p, q, r });
    };
    super::check_memory(q32).map_err(NimError::Memory)?;
    let value = super::value(p32, q32, r32, stop, &mut |at| progress(at as u64, p))
        .ok_or(NimError::Stopped)?;
    Ok(u128::from(value))
}
