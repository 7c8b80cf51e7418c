//! One value `G(p,q,r)` and where it came from: a Grundy table, the b-file
//! of the rectangles `G(n,n,n)`, or a Grundy census, where one covers the
//! position, else the sweep; never silently. Uses the module's
//! [`table`](super::table), [`super::file`], [`super::sequences`] and sweep,
//! and `table`'s errors.
//!
//! The rules: the table is asked first, then (for `p = q = r`) the
//! rectangles' b-file, then the census; a named file that cannot be read is
//! an error, one that does not cover the position is passed over and
//! [`Answer::passed`] says so. Files not named are the committed ones
//! ([`DEFAULT_RECTANGLES`], [`DEFAULT_CENSUS`]), used where they exist. The
//! sweep computes what no file covers (`p < 2^32`), after an estimate of its
//! cost ([`Cost`], from rates measured on this project's machine): a sweep
//! estimated past the caller's budget is refused with the estimate.
//!
//! A census of periods and starts (no patterns) covers `p` past the first
//! period of a line it proved: `G(p) - p = G(p') - p'` for
//! `p' = s + (p - s) mod P` (start `s`, least period `P`), and the sweep
//! computes `G(p')`. Within the first period there is nothing to reduce: it
//! is passed over and the sweep computes `G(p)` itself. `p` may be of any
//! size ([`BigUint`]): only the reduction and the sum see it.

use std::fmt;
use std::path::{Path, PathBuf};

pub use num_bigint::BigUint;

use super::file::{self, Found, ReadError};
use super::table::GrundyTable;
use crate::base::input::InputError;
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
    /// The b-file of the rectangles, `G(n,n,n)` for `n <= n_max`.
    Rectangles {
        /// The b-file.
        path: PathBuf,
        /// Its last term's `n`.
        n_max: u64,
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
    /// `"table"`, `"rectangles"`, `"census"` or `"computed"`.
    pub fn kind(&self) -> &'static str {
        match self {
            Source::Table { .. } => "table",
            Source::Rectangles { .. } => "rectangles",
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
            Source::Rectangles { path, n_max } => write!(
                f,
                "the b-file of the rectangles G(n,n,n), n <= {n_max} (OEIS A069001), {}",
                path.display()
            ),
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
    /// `G(p,q,r)`, of any size (`p` is).
    pub value: BigUint,
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
        p: BigUint,
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
    #[error("{}", error.with_path(path))]
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
        p: BigUint,
        /// The position asked about.
        q: u64,
        /// The position asked about.
        r: u64,
    },
    /// The rectangles' b-file could not be read.
    #[error("{message}")]
    Rectangles {
        /// What is wrong, naming the file.
        message: String,
        /// Whether nothing is there to read: no file, or a link to none.
        missing: bool,
    },
    /// The sweep is estimated to take longer than the caller allows.
    #[error("G({p},{q},{r}) needs {cost}, more than the {budget} s allowed; nothing was computed")]
    TooCostly {
        /// The position asked about.
        p: BigUint,
        /// The position asked about.
        q: u64,
        /// The position asked about.
        r: u64,
        /// The sweep's estimate.
        cost: Cost,
        /// The seconds allowed.
        budget: f64,
    },
    /// The seconds allowed are not a number of seconds.
    #[error("{0} is not a number of seconds to allow")]
    BadBudget(f64),
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
    /// Opening it failed (the message names the file).
    #[error("{0}")]
    Open(#[from] InputError),
    /// Its text is not a Grundy census.
    #[error("{0}")]
    Read(#[from] ReadError),
    /// It is a file of another kind chomp3 writes.
    #[error("this file is {}, not a Grundy census; give the path of the right file", .0.what())]
    OtherKind(crate::outputs::Kind),
}

/// The `Q` and each line's summary of the Grundy census at `path`, of
/// either kind (sealed, checked to its end line).
pub fn census_summaries(path: &Path) -> Result<(u32, Vec<super::ProvedLine>), CensusError> {
    let reader = crate::base::text::open(path, GRUNDY_CENSUS)?;
    file::summaries(reader).map_err(|e| CensusError::reading(path, e))
}

impl CensusError {
    /// `error`, met reading the census at `path`: a file of another kind
    /// chomp3 writes is named by its kind rather than by the line that is
    /// not a census's.
    fn reading(path: &Path, error: ReadError) -> CensusError {
        use crate::outputs::Kind;
        // Its first bytes, decompressed where the name ends in `.xz`.
        let head = crate::base::text::open(path, GRUNDY_CENSUS)
            .ok()
            .and_then(|r| {
                let mut head = Vec::new();
                std::io::Read::read_to_end(&mut std::io::Read::take(r, 64), &mut head).ok()?;
                Some(head)
            });
        match head.as_deref().and_then(crate::outputs::kind_of) {
            Some(k) if !matches!(k, Kind::GrundyCensus | Kind::PeriodsCensus) => {
                CensusError::OtherKind(k)
            }
            _ => CensusError::Read(error),
        }
    }
}

impl CensusError {
    /// Whether the file is not there (or is a link to nothing).
    pub fn not_found(&self) -> bool {
        matches!(self, CensusError::Open(e) if e.is_missing())
    }
}

impl NamesPath for CensusError {
    fn names_path(&self) -> bool {
        matches!(self, CensusError::Open(_))
    }
}

/// What a Grundy census file is, for the message when the path is no file.
const GRUNDY_CENSUS: &str = "a Grundy census";

/// The committed b-file of the rectangles, read when no other is named.
pub const DEFAULT_RECTANGLES: &str = "data/grundy-table-5000/grundy-rectangles.txt";
/// The committed census of periods and starts, read when no census is named.
pub const DEFAULT_CENSUS: &str = "data/grundy-periods-300/grundy-periods-census.tsv";

/// The file named, or else `default` (one of the committed files above)
/// where it exists: the rule every front end follows for [`Files`].
pub fn or_default<'a>(named: Option<&'a Path>, default: &'static str) -> Option<&'a Path> {
    match named {
        Some(path) => Some(path),
        None => Some(Path::new(default)).filter(|p| p.exists()),
    }
}

/// The files a look-up answers from (`None`: there is none).
#[derive(Clone, Copy, Default)]
pub struct Files<'a> {
    /// A Grundy table (`.g3t`).
    pub table: Option<&'a Path>,
    /// The b-file of the rectangles `G(n,n,n)` (`grundy-rectangles.txt`).
    pub rectangles: Option<&'a Path>,
    /// A Grundy census of either kind.
    pub census: Option<Census<'a>>,
}

/// Line steps of the sweep (one line advanced by one `p`) per second of one
/// core, for the lines `q' <= q`: `6.0*10^7 (50 / q)^0.27` for `q >= 50`,
/// fitted to `chomp3 nim P Q Q` timed on this project's machine (2-core
/// Intel Xeon; user CPU): `Q = 50` at `P = 10^5` and `4*10^5` 6.0 and
/// 5.8*10^7, `Q = 100` 4.9*10^7, `Q = 200` at `P = 5*10^4` and `2*10^5`
/// 4.1*10^7, `Q = 400` at `P = 2*10^4` 3.5*10^7 (doc/grundy.md).
fn line_steps_per_second(q: u64) -> f64 {
    6.0e7 * (50.0 / q.max(50) as f64).powf(0.27)
}

/// What a sweep of every line `q' <= q` to `p` is estimated to cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Cost {
    /// The position's `q`: lines `q' <= q` are swept.
    pub q: u64,
    /// The last `p` swept.
    pub p: u64,
    /// Line steps: `p` times the `(q+1)(q+2)/2` lines.
    pub line_steps: u128,
    /// Seconds of one core on the machine the rates were measured on.
    pub seconds: f64,
    /// Bytes of memory, at least.
    pub bytes: u64,
}

impl Cost {
    /// The estimate for the sweep of every line `q' <= q` to `p`.
    pub(crate) fn of_sweep(p: u64, q: u64) -> Cost {
        let lines = u128::from(q + 1) * u128::from(q + 2) / 2;
        let line_steps = lines * u128::from(p);
        Cost {
            q,
            p,
            line_steps,
            seconds: line_steps as f64 / line_steps_per_second(q),
            bytes: super::sweep_memory(u32::try_from(q).unwrap_or(u32::MAX)),
        }
    }
}

impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.seconds;
        let time = if s < 120.0 {
            format!("{s:.1} s")
        } else if s < 7200.0 {
            format!("{:.0} min", s / 60.0)
        } else {
            format!("{:.1} h", s / 3600.0)
        };
        write!(
            f,
            "the Grundy sweep of every line q' <= {} to p = {} ({:.2e} line steps): about {time} of one core at the rates measured on this project's machine, and at least {} MiB",
            self.q,
            self.p,
            self.line_steps as f64,
            self.bytes.div_ceil(1 << 20)
        )
    }
}

/// What a caller spends to keep each move [`options_within`] gives it (a
/// Python tuple of tuples, say), beyond the library's own copy: counted in
/// the estimates before the work.
#[derive(Clone, Copy, Debug, Default)]
pub struct Keep {
    /// Bytes of memory a move.
    pub bytes: u64,
    /// Seconds of one core a move.
    pub seconds: f64,
}

/// `G(p,q,r)` and every move from `[p,q,r]` with the value of the position
/// it leaves, by the sweep ([`super::options`]), refused before any work
/// when the sweep and the caller's keeping of the moves (`keep`) are
/// estimated past `budget` seconds or past the machine's memory. `None` if
/// `stop` was set before the end.
pub fn options_within(
    [p, q, r]: [u32; 3],
    budget: f64,
    keep: Keep,
    stop: &Stop,
) -> Result<Option<super::Options>, NimError> {
    if budget.is_nan() || budget < 0.0 {
        return Err(NimError::BadBudget(budget));
    }
    super::check_options_memory(p, q, r, keep.bytes).map_err(NimError::Memory)?;
    let mut cost = Cost::of_sweep(u64::from(p), u64::from(q));
    let moves = u64::from(p) + u64::from(q) + u64::from(r);
    cost.seconds += moves as f64 * keep.seconds;
    if cost.seconds > budget {
        return Err(NimError::TooCostly {
            p: BigUint::from(p),
            q: u64::from(q),
            r: u64::from(r),
            cost,
            budget,
        });
    }
    Ok(super::options(p, q, r, stop))
}

/// `G(p,q,r)` by the rules of the module's comment. A sweep estimated past
/// `budget` seconds is refused ([`NimError::TooCostly`]); if one runs,
/// `progress(reached, target)` hears how far it is every 4,096 steps.
pub fn nim(
    p: &BigUint,
    q: u64,
    r: u64,
    files: Files<'_>,
    budget: f64,
    stop: &Stop,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Answer, NimError> {
    if budget.is_nan() || budget < 0.0 {
        return Err(NimError::BadBudget(budget));
    }
    if !(*p >= BigUint::from(q) && q >= r && *p >= BigUint::from(1u8)) {
        return Err(NimError::NotAPosition { p: p.clone(), q, r });
    }
    let mut passed = Vec::new();
    let answer = |value, source, passed| {
        Ok(Answer {
            value,
            source,
            passed,
        })
    };
    let small = u64::try_from(p).ok();
    if let Some(path) = files.table {
        let bad = |error| NimError::Table {
            path: path.to_path_buf(),
            error,
        };
        let t = GrundyTable::open(path).map_err(bad)?;
        let n = t.n().unwrap_or(0);
        match small.map(|p| t.get(p, q, r)) {
            Some(Ok(value)) => {
                let source = Source::Table {
                    path: path.to_path_buf(),
                    n,
                };
                return answer(BigUint::from(value), source, passed);
            }
            None | Some(Err(TableError::OutOfRange { .. })) => {
                passed.push(format!("{} holds p <= {n} only", path.display()))
            }
            Some(Err(e)) => return Err(bad(e)),
        }
    }
    let rectangles_error = |path: &Path, e: String, missing: bool| NimError::Rectangles {
        message: match e.starts_with(&path.display().to_string()) {
            true => e,
            false => format!("{}: {e}", path.display()),
        },
        missing,
    };
    let input_error = |path: &Path, e: crate::base::input::InputError| {
        rectangles_error(path, e.to_string(), e.is_missing())
    };
    if let Some(path) = files.rectangles {
        let what = "a b-file of the rectangles";
        if small != Some(q) || q != r {
            // Not read for a position that is no rectangle; but a file named
            // that is not there, or no regular file, is an error all the same.
            crate::base::input::open(path, what).map_err(|e| input_error(path, e))?;
        } else {
            let file = crate::base::text::open(path, what).map_err(|e| input_error(path, e))?;
            let values = super::sequences::read_rectangles(file, &path.display().to_string())
                .map_err(|e| rectangles_error(path, e, false))?;
            let n_max = values.len() as u64;
            match usize::try_from(q)
                .ok()
                .and_then(|n| values.get(n.wrapping_sub(1)))
            {
                Some(&value) => {
                    let source = Source::Rectangles {
                        path: path.to_path_buf(),
                        n_max,
                    };
                    return answer(BigUint::from(value), source, passed);
                }
                None => passed.push(format!(
                    "{} holds G(n,n,n) for n <= {n_max} only",
                    path.display()
                )),
            }
        }
    }
    if let Some(census) = files.census {
        let (path, fate) = match census {
            Census::File(path) => {
                let bad = |error: CensusError| NimError::Census {
                    path: path.to_path_buf(),
                    error,
                };
                let reader =
                    crate::base::text::open(path, GRUNDY_CENSUS).map_err(|e| bad(e.into()))?;
                // Streamed: a census of a large Q is gigabytes, and one line is wanted.
                let fate = match (u32::try_from(q), u32::try_from(r)) {
                    (Ok(q), Ok(r)) => file::find(reader, q, r).map(|(_, fate)| fate),
                    _ => file::summaries(reader).map(|_| None),
                }
                .map_err(|e| bad(CensusError::reading(path, e)))?;
                (path, fate)
            }
            Census::Loaded(c) => (c.path(), c.line(q, r).cloned()),
        };
        let at = [q, r];
        let found = from_line(
            path,
            fate.as_ref(),
            p,
            at,
            &mut passed,
            budget,
            stop,
            progress,
        )?;
        if let Some((value, source)) = found {
            return answer(value, source, passed);
        }
    }
    let Some(p64) = small else {
        return Err(NimError::TooLarge { p: p.clone(), q, r });
    };
    let value = sweep(p64, q, r, p, budget, stop, progress)?;
    answer(BigUint::from(value), Source::Computed { q, p: p64 }, passed)
}

/// The value `fate` (the census `path`'s line `(q,r)`, if it has it) gives
/// at `p`, with its source; `None`, with the reason in `passed`, if it gives
/// none.
#[allow(clippy::too_many_arguments)]
fn from_line(
    path: &Path,
    fate: Option<&Found>,
    p: &BigUint,
    [q, r]: [u64; 2],
    passed: &mut Vec<String>,
    budget: f64,
    stop: &Stop,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Option<(BigUint, Source)>, NimError> {
    let start = fate.map(|f| u64::from(f.proved().start));
    let period = fate.map(|f| u64::from(f.proved().period));
    match (fate, start, period) {
        (Some(Found::Pattern(f)), Some(start), Some(period)) if *p >= BigUint::from(start) => {
            // G(p) - p repeats with the period from the start: the pattern's
            // entry at (p - start) mod period, added to p.
            let k = (p - start) % period;
            let offset = f.pattern[usize::try_from(k).expect("below the period")];
            let value = match offset >= 0 {
                true => p + offset.unsigned_abs(),
                false => p - offset.unsigned_abs(),
            };
            let source = Source::Census {
                path: path.to_path_buf(),
                q,
                r,
                start,
                period,
            };
            Ok(Some((value, source)))
        }
        (Some(Found::Period(_)), Some(start), Some(period))
            if *p >= BigUint::from(start + period) =>
        {
            let reduced = (p - start) % period;
            let at = start + u64::try_from(reduced).expect("below the period");
            let g = sweep(at, q, r, p, budget, stop, progress)?;
            let source = Source::Reduced {
                path: path.to_path_buf(),
                q,
                r,
                start,
                period,
                at,
            };
            // `p - at` is a multiple of the period; `G(p) = G(at) + (p - at)`.
            Ok(Some(((p - at) + g, source)))
        }
        (Some(Found::Period(_)), Some(start), Some(period)) if *p >= BigUint::from(start) => {
            passed.push(format!(
                "{}: p is within the first period of line ({q},{r}) (from {start} with period {period}), nothing to reduce",
                path.display(),
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
        let reader = crate::base::text::open(path, GRUNDY_CENSUS).map_err(|e| bad(e.into()))?;
        let (q_max, found) =
            file::read_lines(reader).map_err(|e| bad(CensusError::reading(path, e)))?;
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

/// `G(p,q,r)` by the sweep, if `p` fits it and its estimated cost is within
/// `budget` seconds.
/// `asked` is the `p` asked about, which a census reduced to `p`.
fn sweep(
    p: u64,
    q: u64,
    r: u64,
    asked: &BigUint,
    budget: f64,
    stop: &Stop,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<u32, NimError> {
    let (Ok(p32), Ok(q32), Ok(r32)) = (u32::try_from(p), u32::try_from(q), u32::try_from(r)) else {
        return Err(NimError::TooLarge {
            p: asked.clone(),
            q,
            r,
        });
    };
    // What the machine cannot hold is refused as such, whatever the time.
    super::check_memory(q32).map_err(NimError::Memory)?;
    let cost = Cost::of_sweep(p, q);
    if cost.seconds > budget {
        return Err(NimError::TooCostly {
            p: asked.clone(),
            q,
            r,
            cost,
            budget,
        });
    }
    super::value(p32, q32, r32, stop, &mut |at| progress(at as u64, p)).ok_or(NimError::Stopped)
}
