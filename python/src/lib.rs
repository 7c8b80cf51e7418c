//! The native module `chomp3._chomp3`: thin wrappers over the chomp3 library,
//! no mathematics of its own. The Python package (`pysrc/chomp3/`) builds its
//! public API on these: argument conversion from networkx graphs, numpy
//! structured arrays and progress bars live there.
//!
//! Every entry point runs inside [`guard`], so a panic in the library becomes a
//! `chomp3.Error` instead of crossing into Python. Files that are missing raise
//! `FileNotFoundError`; damaged or foreign files and questions that cannot be
//! answered raise `chomp3.Error` (a `ValueError`), each with the command line's
//! one-line message.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use chomp3::base::path_message::NamesPath;
use chomp3::base::stop::Stop;
use chomp3::f::census_file::{DescriptorError, Descriptors};
use chomp3::f::lookup::{LookupError, Named};
use chomp3::f::proof::{Fate, Known};
use chomp3::f::table::TableError;
use chomp3::graph::{Graph, MAX_VERTICES, MemoError, Move, Multigraph, Solver};
use chomp3::grundy::nim::BigUint;
use numpy::{IntoPyArray, PyArray1};
use pyo3::create_exception;
use pyo3::exceptions::{PyFileNotFoundError, PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

create_exception!(
    chomp3,
    Error,
    PyValueError,
    "A damaged or foreign file, or a question chomp3 cannot answer (the message says which)."
);

use chomp3::f::lookup::{DEFAULT_CENSUS, DEFAULT_TABLE};

fn error(message: impl ToString) -> PyErr {
    Error::new_err(message.to_string())
}

/// Runs `f`; a panic becomes `chomp3.Error`.
fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("unknown");
        Err(error(format!(
            "internal error in chomp3 (please report it): {what}"
        )))
    })
}

fn table_error(path: &Path, e: TableError) -> PyErr {
    let message = e.with_path(path);
    match e {
        TableError::NotFound(..) => PyFileNotFoundError::new_err(message),
        _ => error(message),
    }
}

fn census_error(path: &Path, e: DescriptorError) -> PyErr {
    let message = e.with_path(path);
    match e {
        DescriptorError::NotFound(_) => PyFileNotFoundError::new_err(message),
        _ => error(message),
    }
}

/// A table file (`chomp3 compute`), read with positional reads, or mapped
/// when asked.
#[pyclass(module = "chomp3._chomp3", frozen)]
struct Table {
    inner: chomp3::f::table::Table,
    path: PathBuf,
}

#[pymethods]
impl Table {
    #[new]
    #[pyo3(signature = (path, mapped=false))]
    fn new(path: PathBuf, mapped: bool) -> PyResult<Table> {
        // Read, not mapped, unless asked: a notebook keeps the table open for
        // long, and a file cut meanwhile must give an error, not kill the
        // kernel (SIGBUS); a map reads a row about 20 times as fast.
        guard(|| match chomp3::f::table::Table::open_f(&path, mapped) {
            Ok(inner) => Ok(Table { inner, path }),
            Err(e) => Err(table_error(&path, e)),
        })
    }

    /// Whether the file stores the table by rows (`chomp3 transpose`).
    #[getter]
    fn by_rows(&self) -> bool {
        self.inner.shape() == chomp3::f::table::Shape::Rows
    }

    /// The table's N (None: no column yet).
    #[getter]
    fn n(&self) -> Option<u64> {
        self.inner.n()
    }

    fn __getitem__(&self, key: (u64, u64)) -> PyResult<u32> {
        guard(|| {
            self.inner
                .get(key.0, key.1)
                .map_err(|e| table_error(&self.path, e))
        })
    }

    /// f(q, r) for q in [start, stop) (default: the whole row 0..=N).
    #[pyo3(signature = (r, start=None, stop=None))]
    fn row<'py>(
        &self,
        py: Python<'py>,
        r: u64,
        start: Option<u64>,
        stop: Option<u64>,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        guard(|| {
            let columns = self.inner.columns();
            let stop = stop.unwrap_or(columns);
            let start = start.unwrap_or(0);
            let bad = |e| table_error(&self.path, e);
            self.inner.get(0, r).map_err(bad)?;
            if stop > columns {
                self.inner.get(stop - 1, 0).map_err(bad)?;
            }
            // Both now at most N + 1, which fits u32.
            let narrow = |x: u64| u32::try_from(x.min(columns)).expect("N + 1 fits u32");
            let mut values = Vec::new();
            if start < stop {
                self.inner
                    .read_row(narrow(r), narrow(start)..narrow(stop), &mut values)
                    .map_err(bad)?;
            }
            Ok(values.into_pyarray(py))
        })
    }

    /// f(q, r) for r = 0..=q.
    fn column<'py>(&self, py: Python<'py>, q: u64) -> PyResult<Bound<'py, PyArray1<u32>>> {
        guard(|| {
            self.inner
                .get(q, 0)
                .map_err(|e| table_error(&self.path, e))?;
            let mut out = Vec::with_capacity(q as usize + 1);
            self.inner
                .read_column(q as u32, 0..q as u32 + 1, &mut out)
                .map_err(|e| table_error(&self.path, e))?;
            Ok(out.into_pyarray(py))
        })
    }

    /// Reads every value and checks the data's checksum (`chomp3 info --verify`).
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        guard(|| {
            py.allow_threads(|| self.inner.verify())
                .map_err(|e| table_error(&self.path, e))
        })
    }
}

/// A census descriptor file (`chomp3 census`).
#[pyclass(module = "chomp3._chomp3", frozen)]
struct Census {
    inner: Descriptors,
    path: PathBuf,
}

#[pymethods]
impl Census {
    #[new]
    fn new(path: PathBuf) -> PyResult<Census> {
        guard(|| match Descriptors::open(&path) {
            Ok(inner) => Ok(Census { inner, path }),
            Err(e) => Err(census_error(&path, e)),
        })
    }

    fn __len__(&self) -> usize {
        self.inner.rows() as usize
    }

    /// Row r's fate as a dict, or None for an open row.
    fn fate<'py>(&self, py: Python<'py>, r: u64) -> PyResult<Option<Bound<'py, PyDict>>> {
        guard(|| {
            if r >= self.inner.rows() as u64 {
                return Err(error(format!(
                    "{}: the census covers rows 0..{} only",
                    self.path.display(),
                    self.inner.rows() as u64 - 1
                )));
            }
            let Some(status) = self.inner.status(r as u32) else {
                return Ok(None);
            };
            let d = PyDict::new(py);
            // A constant row has f(q,r) = start from its start: no period.
            let (class, period, pattern) = match &status.fate {
                Fate::Constant { .. } => ("constant", None, Vec::new()),
                Fate::Periodic { pattern, .. } => {
                    ("periodic", Some(pattern.len() as u64), pattern.clone())
                }
            };
            d.set_item("class", class)?;
            d.set_item("start", status.fate.start())?;
            d.set_item("start_is_bound", self.inner.start_is_bound(r as u32))?;
            d.set_item("period", period)?;
            d.set_item("pattern", pattern)?;
            let known = match status.known {
                Known::Rule => "the row died (constant by the recurrence's rule)".to_string(),
                Known::Census { closed_at: Some(c) } | Known::Certificate { closed_at: c } => {
                    format!("proved periodic by equal states (certificate closed at column {c})")
                }
                Known::Census { closed_at: None } => {
                    "the row died (constant by the recurrence's rule)".to_string()
                }
                Known::Evidence => "evidence only (not a proof)".to_string(),
            };
            d.set_item("known", known)?;
            Ok(Some(d))
        })
    }

    /// f(q, r) from the census alone, by `chomp3 get`'s rule: row min(q, r)'s
    /// proved fate where it starts, else on or above the diagonal the columns
    /// the census computed (any q up to 2^64).
    fn f(&self, q: u64, r: u64) -> PyResult<u128> {
        use chomp3::f::lookup::{InCensus, census_silent, in_census};
        guard(|| match in_census(&self.inner, q, r) {
            InCensus::Row { value, .. } => Ok(value),
            InCensus::Diagonal { value, .. } => Ok(u128::from(value)),
            InCensus::Not(_) => Err(error(format!(
                "the census does not give f({q},{r}): {}",
                census_silent(&self.path, &self.inner, q, r)
            ))),
        })
    }

    #[allow(clippy::type_complexity)]
    /// Columns of the rows table: (class code 0 constant / 1 periodic / 2
    /// open, start, period, start is a bound).
    fn _columns<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(
        Bound<'py, PyArray1<u8>>,
        Bound<'py, PyArray1<u64>>,
        Bound<'py, PyArray1<u64>>,
        Bound<'py, PyArray1<bool>>,
    )> {
        guard(|| {
            let n = self.inner.rows();
            let (mut class, mut start, mut period, mut bound) = (
                Vec::with_capacity(n as usize),
                Vec::with_capacity(n as usize),
                Vec::with_capacity(n as usize),
                Vec::with_capacity(n as usize),
            );
            for r in 0..n {
                let (c, s, p) = match self.inner.status(r).map(|s| s.fate) {
                    Some(Fate::Constant { start }) => (0u8, u64::from(start), 1u64),
                    Some(Fate::Periodic { start, pattern }) => {
                        (1, u64::from(start), pattern.len() as u64)
                    }
                    None => (2, 0, 0),
                };
                class.push(c);
                start.push(s);
                period.push(p);
                bound.push(self.inner.start_is_bound(r));
            }
            Ok((
                class.into_pyarray(py),
                start.into_pyarray(py),
                period.into_pyarray(py),
                bound.into_pyarray(py),
            ))
        })
    }
}

fn named(path: Option<PathBuf>, default: &str) -> Named {
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
fn lookup(
    q: u64,
    r: u64,
    table: Option<PathBuf>,
    census: Option<PathBuf>,
) -> PyResult<(u128, &'static str, String)> {
    guard(|| {
        let table = named(table, DEFAULT_TABLE);
        let census = named(census, DEFAULT_CENSUS);
        match chomp3::f::lookup::lookup(q, r, &table, &census) {
            Ok(a) => Ok((a.value, a.source.kind(), a.source.to_string())),
            Err(e) => Err(lookup_error(e)),
        }
    })
}

/// A look-up's error: `FileNotFoundError` for a missing file, else `chomp3.Error`.
fn lookup_error(e: LookupError) -> PyErr {
    let missing = matches!(
        &e,
        LookupError::Table {
            error: TableError::NotFound(..),
            ..
        } | LookupError::Census {
            error: DescriptorError::NotFound(_),
            ..
        } | LookupError::NoSource { .. }
    );
    match missing {
        true => PyFileNotFoundError::new_err(e.to_string()),
        false => error(e),
    }
}

/// A Grundy value's error: `FileNotFoundError` for a missing file, else
/// `chomp3.Error`.
fn nim_error(e: chomp3::grundy::nim::NimError) -> PyErr {
    use chomp3::grundy::nim::NimError;
    let missing = match &e {
        NimError::Table { error, .. } => matches!(error, TableError::NotFound(..)),
        NimError::Census { error, .. } => error.not_found(),
        _ => false,
    };
    if let NimError::BadBudget(s) = &e {
        return PyValueError::new_err(format!("max_seconds must be a number of seconds, got {s}"));
    }
    if let NimError::TooCostly { cost, .. } = &e {
        let ask = (cost.seconds * 1.2).ceil();
        return error(format!("{e}; pass max_seconds={ask} to compute it"));
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
fn position(
    p: u64,
    q: u64,
    r: u64,
    table: Option<PathBuf>,
    census: Option<PathBuf>,
) -> PyResult<(bool, Vec<(&'static str, u64, (u64, u64, u64))>)> {
    use chomp3::f::lookup::Sources;
    use chomp3::f::position::{PositionError, Row, is_p, winning_moves};
    guard(|| {
        let (table, census) = (named(table, DEFAULT_TABLE), named(census, DEFAULT_CENSUS));
        let sources = Sources::open_for(q, r, &table, &census).map_err(lookup_error)?;
        let bad = |e: PositionError| match e {
            PositionError::Lookup(e) => lookup_error(e),
            e => error(e),
        };
        let lost = is_p(&sources, p, q, r).map_err(bad)?;
        let moves = winning_moves(&sources, p, q, r).map_err(bad)?;
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
        Ok((lost, moves))
    })
}

/// G(p, q, r) of three-rowed Chomp by the Grundy sweep, and every position one
/// move away with its value.
#[pyfunction]
#[allow(clippy::type_complexity)]
fn grundy(py: Python<'_>, p: u32, q: u32, r: u32) -> PyResult<(u32, Vec<((u32, u32, u32), u32)>)> {
    guard(|| {
        if !(p >= q && q >= r && p >= 1) {
            return Err(error(format!(
                "[{p},{q},{r}] is not a position: it needs p >= q >= r >= 0 and p >= 1"
            )));
        }
        let stop = Stop::new();
        let (value, options) = py
            .allow_threads(|| chomp3::grundy::options(p, q, r, &stop))
            .ok_or_else(|| error("stopped"))?;
        let options = options
            .into_iter()
            .map(|([a, b, c], v)| ((a, b, c), v))
            .collect();
        Ok((value, options))
    })
}

/// G(p, q, r) by `chomp3 nim`'s source rule: (value, source kind, the
/// `source:` line, the named files passed over). `census` is a path or a
/// loaded [`GrundyCensus`].
#[pyfunction]
#[pyo3(signature = (p, q, r, table=None, census=None, census_loaded=None, rectangles=None, max_seconds=60.0, progress=None))]
#[allow(clippy::too_many_arguments)]
fn grundy_lookup(
    py: Python<'_>,
    p: BigUint,
    q: u64,
    r: u64,
    table: Option<PathBuf>,
    census: Option<PathBuf>,
    census_loaded: Option<&GrundyCensus>,
    rectangles: Option<PathBuf>,
    max_seconds: f64,
    progress: Option<PyObject>,
) -> PyResult<(BigUint, &'static str, String, Vec<String>)> {
    use chomp3::grundy::nim::{Census, DEFAULT_CENSUS, DEFAULT_RECTANGLES, Files, or_default};
    let census = match census_loaded {
        Some(c) => Some(Census::Loaded(&c.inner)),
        None => or_default(census.as_deref(), DEFAULT_CENSUS).map(Census::File),
    };
    let files = Files {
        table: table.as_deref(),
        rectangles: or_default(rectangles.as_deref(), DEFAULT_RECTANGLES),
        census,
    };
    nim_answer(py, (&p, q, r), files, max_seconds, progress)
}

/// [`grundy_lookup`]'s answer, Ctrl-C stopping a long sweep.
fn nim_answer(
    py: Python<'_>,
    (p, q, r): (&BigUint, u64, u64),
    files: chomp3::grundy::nim::Files<'_>,
    max_seconds: f64,
    progress: Option<PyObject>,
) -> PyResult<(BigUint, &'static str, String, Vec<String>)> {
    use chomp3::grundy::nim::nim;
    guard(|| {
        // Ctrl-C stops a long sweep (checked every 4,096 steps).
        let watch = Watcher::new(progress);
        let answer = py.allow_threads(|| {
            nim(
                p,
                q,
                r,
                files,
                max_seconds,
                &watch.stop,
                &mut |done, total| watch.tick(done, total),
            )
        });
        if let Some(e) = watch.raised() {
            return Err(e);
        }
        answer
            .map(|a| (a.value, a.source.kind(), a.source.to_string(), a.passed))
            .map_err(nim_error)
    })
}

/// A Grundy census (`chomp3 grundy-census --out` or `chomp3 grundy-periods
/// --out`), read once and checked to its end line.
#[pyclass(module = "chomp3._chomp3", frozen)]
struct GrundyCensus {
    inner: chomp3::grundy::nim::LoadedCensus,
}

#[pymethods]
impl GrundyCensus {
    #[new]
    fn new(path: PathBuf) -> PyResult<GrundyCensus> {
        guard(|| {
            chomp3::grundy::nim::LoadedCensus::open(&path)
                .map(|inner| GrundyCensus { inner })
                .map_err(nim_error)
        })
    }

    /// The file's path.
    #[getter]
    fn path(&self) -> PathBuf {
        self.inner.path().to_path_buf()
    }

    /// Its Q: the lines (q, r), r <= q <= Q.
    #[getter]
    fn q_max(&self) -> u32 {
        self.inner.q_max()
    }

    /// Whether the lines carry their patterns (a census of periods and starts
    /// does not).
    #[getter]
    fn patterns(&self) -> bool {
        use chomp3::grundy::file::Found;
        self.inner.lines().any(|f| matches!(f, Found::Pattern(_)))
    }

    fn __len__(&self) -> usize {
        self.inner.lines().count()
    }

    /// Every proved line as four uint32 arrays: q, r, start, period.
    #[allow(clippy::type_complexity)]
    fn columns<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, PyArray1<u32>>,
        Bound<'py, PyArray1<u32>>,
        Bound<'py, PyArray1<u32>>,
        Bound<'py, PyArray1<u32>>,
    ) {
        let (mut q, mut r, mut start, mut period) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for f in self.inner.lines() {
            let l = f.proved();
            q.push(l.q);
            r.push(l.r);
            start.push(l.start);
            period.push(l.period);
        }
        (
            q.into_pyarray(py),
            r.into_pyarray(py),
            start.into_pyarray(py),
            period.into_pyarray(py),
        )
    }

    /// G(p, q, r) with its source: from the census where it covers the
    /// position (p of any size on a proved line), else by the sweep (p <
    /// 2^32) within `max_seconds`.
    #[pyo3(signature = (p, q, r, max_seconds=60.0))]
    fn lookup(
        &self,
        py: Python<'_>,
        p: BigUint,
        q: u64,
        r: u64,
        max_seconds: f64,
    ) -> PyResult<(BigUint, &'static str, String, Vec<String>)> {
        use chomp3::grundy::nim::{Census, Files};
        let files = Files {
            census: Some(Census::Loaded(&self.inner)),
            ..Files::default()
        };
        nim_answer(py, (&p, q, r), files, max_seconds, None)
    }
}

/// A Grundy table (`chomp3 grundy-table`, a .g3t file): G(p, q, r) for every
/// position with p <= N, read with positional reads.
#[pyclass(module = "chomp3._chomp3", frozen)]
struct GrundyTable {
    inner: chomp3::grundy::table::GrundyTable,
    path: PathBuf,
}

#[pymethods]
impl GrundyTable {
    #[new]
    fn new(path: PathBuf) -> PyResult<GrundyTable> {
        // Read, not mapped, as Table: a cut file gives an error, not SIGBUS.
        guard(
            || match chomp3::grundy::table::GrundyTable::open_reading(&path) {
                Ok(inner) => Ok(GrundyTable { inner, path }),
                Err(e) => Err(table_error(&path, e)),
            },
        )
    }

    /// The table's N (None: no slab yet).
    #[getter]
    fn n(&self) -> Option<u64> {
        self.inner.n()
    }

    /// G(p, q, r), p >= q >= r, p <= N.
    fn get(&self, p: u64, q: u64, r: u64) -> PyResult<u32> {
        guard(|| {
            self.inner
                .get(p, q, r)
                .map_err(|e| table_error(&self.path, e))
        })
    }

    /// G(p, q, r) for p in [start, stop) (each p >= max(q, 1), p <= N).
    fn line<'py>(
        &self,
        py: Python<'py>,
        q: u64,
        r: u64,
        start: u64,
        stop: u64,
    ) -> PyResult<Bound<'py, PyArray1<u32>>> {
        let values = guard(|| {
            (start..stop)
                .map(|p| {
                    self.inner
                        .get(p, q, r)
                        .map_err(|e| table_error(&self.path, e))
                })
                .collect::<PyResult<Vec<u32>>>()
        })?;
        Ok(values.into_pyarray(py))
    }

    /// Reads every block and checks its checksum.
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        let result = py.allow_threads(|| self.inner.verify());
        result.map_err(|e| table_error(&self.path, e))
    }
}

/// G(p, q, r) for p in [max(q, 1), stop), by one sweep of the lines q' <= q;
/// `progress(p, stop)` every 4,096 steps; Ctrl-C raises KeyboardInterrupt.
#[pyfunction]
#[pyo3(signature = (q, r, stop, progress=None))]
fn grundy_line<'py>(
    py: Python<'py>,
    q: u32,
    r: u32,
    stop: u32,
    progress: Option<PyObject>,
) -> PyResult<Bound<'py, PyArray1<u32>>> {
    if r > q {
        return Err(PyValueError::new_err(format!(
            "r = {r} is above q = {q}: a line needs r <= q"
        )));
    }
    chomp3::grundy::check_memory(q).map_err(error)?;
    let values = guard(|| {
        let watch = Watcher::new(progress);
        let values = py.allow_threads(|| {
            chomp3::grundy::line_values(q, r, stop, &watch.stop, &mut |p| {
                watch.tick(u64::from(p), u64::from(stop))
            })
        });
        if let Some(e) = watch.raised() {
            return Err(e);
        }
        values.ok_or_else(|| error("interrupted"))
    })?;
    Ok(values.into_pyarray(py))
}

/// Creates the Grundy table at `path` or extends it to `n`, saving its sweep
/// beside it (`.g3s`) so that a later call goes on from it; Ctrl-C
/// (KeyboardInterrupt) keeps every slab committed. `progress(p, n)` after each
/// slab. Returns the table's N.
#[pyfunction]
#[pyo3(signature = (n, path, capacity=None, progress=None))]
fn grundy_table(
    py: Python<'_>,
    n: u32,
    path: PathBuf,
    capacity: Option<u64>,
    progress: Option<PyObject>,
) -> PyResult<u64> {
    use chomp3::f::table::Shape;
    use chomp3::grundy::table::{Checkpoint, ExtendError, Extended, extend};
    let max = Shape::Tetrahedron.max_capacity();
    let capacity = capacity.unwrap_or(u64::from(n).max(5000));
    if u64::from(n) > max {
        return Err(PyValueError::new_err(format!(
            "n = {n} is beyond the largest Grundy table the format holds (n <= {max})"
        )));
    }
    if capacity < u64::from(n) || capacity > max {
        return Err(PyValueError::new_err(format!(
            "capacity = {capacity} is not possible: give at least n and at most {max}"
        )));
    }
    chomp3::grundy::check_memory(n).map_err(error)?;
    guard(|| {
        let watch = Watcher::new(progress);
        let checkpoint = Checkpoint {
            path: path.with_extension("g3s"),
            every: Duration::from_secs(DEFAULT_SWEEP_SAVE_SECS),
        };
        let outcome = py.allow_threads(|| {
            extend(&path, n, capacity, Some(&checkpoint), &watch.stop, |p| {
                watch.tick(u64::from(p), u64::from(n))
            })
        });
        let interrupted = watch.raised();
        let outcome = outcome.map_err(|e| match e {
            ExtendError::Table(e) => table_error(&path, e),
            e => error(e),
        })?;
        match (outcome, interrupted) {
            (Extended::Stopped(p), Some(e)) if e.is_instance_of::<PyKeyboardInterrupt>(py) => {
                Err(PyKeyboardInterrupt::new_err(format!(
                    "interrupted; {} holds every p <= {p}; call again to continue",
                    path.display()
                )))
            }
            (_, Some(e)) => Err(e),
            (Extended::Stopped(p), None) => Err(error(format!("stopped at p = {p}"))),
            _ => {
                let t = chomp3::grundy::table::GrundyTable::open(&path)
                    .map_err(|e| table_error(&path, e))?;
                Ok(t.n().unwrap_or(0))
            }
        }
    })
}

/// Seconds between saves of a Grundy table's sweep (as `chomp3 grundy-table`).
const DEFAULT_SWEEP_SAVE_SECS: u64 = 600;

/// What a long call does between its steps: runs Python's signal handlers
/// (Ctrl-C raises KeyboardInterrupt there) and the progress callback; the
/// first error requests the stop and is kept for the caller to raise.
struct Watcher {
    progress: Option<PyObject>,
    stop: Stop,
    raised: Mutex<Option<PyErr>>,
}

impl Watcher {
    fn new(progress: Option<PyObject>) -> Watcher {
        Watcher {
            progress,
            stop: Stop::new(),
            raised: Mutex::new(None),
        }
    }

    /// Called without the GIL, on the thread that released it.
    fn tick(&self, done: u64, total: u64) {
        Python::with_gil(|py| {
            let outcome = py.check_signals().and_then(|()| match &self.progress {
                Some(f) => f.call1(py, (done, total)).map(|_| ()),
                None => Ok(()),
            });
            if let Err(e) = outcome {
                self.stop.request();
                self.raised.lock().unwrap().get_or_insert(e);
            }
        })
    }

    /// The error that stopped the call, if one did.
    fn raised(&self) -> Option<PyErr> {
        self.raised.lock().unwrap().take()
    }
}

/// Creates the table at `path` or extends it to `n`; calls `progress(done,
/// total)` about five times a second; Ctrl-C (KeyboardInterrupt) commits the
/// columns done and raises. Returns (N before, N after, cells, seconds, bytes)
/// or None when the table already held `n`.
#[pyfunction]
#[pyo3(signature = (n, path, threads=None, progress=None))]
#[allow(clippy::type_complexity)]
fn compute(
    py: Python<'_>,
    n: u64,
    path: PathBuf,
    threads: Option<usize>,
    progress: Option<PyObject>,
) -> PyResult<Option<(Option<u64>, u64, u64, f64, u64)>> {
    use chomp3::f::compute::{ComputeError, DEFAULT_COMMIT_EVERY, Request};
    guard(|| {
        let watch = Watcher::new(progress);
        let req = Request {
            path: path.clone(),
            n,
            capacity: None,
            threads: chomp3::base::threads::check(threads.unwrap_or(0)).map_err(|e| {
                PyValueError::new_err(format!("threads={}: {e}", threads.unwrap_or(0)))
            })?,
            commit_every: DEFAULT_COMMIT_EVERY,
            stop: watch.stop.clone(),
        };
        let result = py.allow_threads(|| {
            let mut last = Instant::now() - Duration::from_secs(1);
            chomp3::f::compute::compute(&req, &mut |done, total| {
                if last.elapsed() >= Duration::from_millis(200) || done >= total {
                    last = Instant::now();
                    watch.tick(done, total);
                }
            })
        });
        if let Some(e) = watch.raised() {
            return Err(match result {
                Err(ComputeError::Interrupted { n })
                    if e.is_instance_of::<PyKeyboardInterrupt>(py) =>
                {
                    PyKeyboardInterrupt::new_err(format!(
                        "interrupted; the table is safe and holds {}; compute again to continue",
                        chomp3::f::table::holds(n)
                    ))
                }
                _ => e,
            });
        }
        match result {
            Ok(o) => Ok(o.map(|o| (o.from_n, o.n, o.cells, o.elapsed.as_secs_f64(), o.file_len))),
            Err(ComputeError::Table(e)) => Err(table_error(&path, e)),
            Err(e) => Err(error(e.with_path(&path))),
        }
    })
}

/// Writes the table `path` again stored by rows at `out` (a new file, or the
/// unfinished one a stopped call left, continued; one already whole is
/// checked and kept), so that a row is read in one run; `progress(rows,
/// all)` after each band; KeyboardInterrupt keeps the rows written. Returns
/// the table's N.
#[pyfunction]
#[pyo3(signature = (path, out, progress=None))]
fn transpose(
    py: Python<'_>,
    path: PathBuf,
    out: PathBuf,
    progress: Option<PyObject>,
) -> PyResult<u64> {
    guard(|| {
        let source = chomp3::f::table::Table::open(&path).map_err(|e| table_error(&path, e))?;
        let watch = Watcher::new(progress);
        let result = py.allow_threads(|| {
            chomp3::f::table::transpose(&source, &out, &watch.stop, &mut |done, all| {
                watch.tick(done, all)
            })
        });
        if let Some(e) = watch.raised() {
            return Err(match result {
                Err(stopped @ chomp3::f::table::TransposeError::Stopped { .. })
                    if e.is_instance_of::<PyKeyboardInterrupt>(py) =>
                {
                    PyKeyboardInterrupt::new_err(stopped.to_string())
                }
                _ => e,
            });
        }
        result.map(|done| done.n()).map_err(|e| match e {
            chomp3::f::table::TransposeError::Source(p, e) => table_error(&p, e),
            chomp3::f::table::TransposeError::Out(p, e) => table_error(&p, e),
            e => error(e),
        })
    })
}

/// Proves the fate of rows `0 ..= rows` without a table and writes `out`
/// (census.tsv) and its descriptors (default: beside `out`, as .c3d), never over
/// a census of more rows unless `replace`. A checkpoint (default: beside `out`,
/// as .c3k) is saved every `checkpoint_secs` and on KeyboardInterrupt, and the
/// same call continues from it. `progress(columns, expected)` after each batch.
/// Returns (constant rows, periodic rows, open rows, columns).
#[pyfunction]
#[pyo3(signature = (rows, out, descriptors=None, checkpoint=None, checkpoint_secs=300.0, threads=None, replace=false, progress=None))]
#[allow(clippy::too_many_arguments)]
fn census(
    py: Python<'_>,
    rows: u32,
    out: PathBuf,
    descriptors: Option<PathBuf>,
    checkpoint: Option<PathBuf>,
    checkpoint_secs: f64,
    threads: Option<usize>,
    replace: bool,
    progress: Option<PyObject>,
) -> PyResult<(u64, u64, u64, u32)> {
    use chomp3::f::census::driver::{self, Drive, Ended, OneFile};
    use chomp3::f::census::{self as c, BATCH_COLS, Params, Run};
    use chomp3::f::census_file;
    guard(|| {
        let descriptors = descriptors.unwrap_or_else(|| out.with_extension("c3d"));
        let checkpoint = OneFile {
            path: checkpoint.unwrap_or_else(|| out.with_extension("c3k")),
        };
        for path in [&out, &descriptors] {
            census_file::may_write(path, rows, replace).map_err(error)?;
        }
        let params = Params {
            last_row: rows,
            max_columns: c::default_max_columns(rows),
            batch: BATCH_COLS,
        };
        let run = checkpoint.resume(params).map_err(error)?;
        let run = run.unwrap_or_else(|| Run::new(params));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(
                chomp3::base::threads::check(threads.unwrap_or(0)).map_err(|e| {
                    PyValueError::new_err(format!("threads={}: {e}", threads.unwrap_or(0)))
                })?,
            )
            .build()
            .map_err(error)?;
        let watch = Watcher::new(progress);
        let expected = c::expected_columns(rows);
        let ended = py.allow_threads(|| {
            let d = Drive {
                pool: &pool,
                stop: &watch.stop,
                every: Duration::from_secs_f64(checkpoint_secs.max(0.0)),
                checkpoints: &checkpoint,
            };
            let command = format!("chomp3.census({rows}) from Python");
            let outputs = (out.as_path(), descriptors.as_path(), command.as_str());
            driver::drive_and_write(run, d, outputs, &mut |b| {
                watch.tick(b.columns as u64, expected)
            })
        });
        let (result, _) = match ended.map_err(error)? {
            Ended::Stopped { columns, saved } => {
                return Err(match watch.raised() {
                    Some(e) if !e.is_instance_of::<PyKeyboardInterrupt>(py) => e,
                    _ => PyKeyboardInterrupt::new_err(format!(
                        "interrupted; the census is saved in {} at column {columns}; call census again to continue",
                        saved.path.display()
                    )),
                });
            }
            Ended::Finished { census, traffic } => (census.expect("one process"), traffic),
        };
        let counts = chomp3::f::proof::Counts::of(&result.rows);
        Ok((
            counts.constant,
            counts.periodic,
            counts.open,
            result.columns,
        ))
    })
}

/// A memo of solved graph Chomp positions, shared by the calls given it.
#[pyclass(module = "chomp3._chomp3", frozen)]
struct Memo {
    solver: Solver,
}

#[pymethods]
impl Memo {
    #[new]
    fn new() -> Memo {
        Memo {
            solver: Solver::new(),
        }
    }

    /// Reads a memo file (`chomp3 graph --memo FILE`).
    #[staticmethod]
    fn load(path: PathBuf) -> PyResult<Memo> {
        guard(|| match Solver::open(&path) {
            Ok(solver) => Ok(Memo { solver }),
            Err(MemoError::NotFound(p)) => Err(PyFileNotFoundError::new_err(
                MemoError::NotFound(p).to_string(),
            )),
            Err(e) => Err(error(format!("{}: {e}", path.display()))),
        })
    }

    /// Writes the memo to `path` (aside, then renamed into place).
    fn save(&self, path: PathBuf) -> PyResult<()> {
        guard(|| {
            chomp3::base::atomic_write::write_atomically(&path, |w| self.solver.save(w))
                .map_err(|e| error(format!("{}: {e}", path.display())))
        })
    }

    fn __len__(&self) -> usize {
        self.solver.memo_len()
    }
}

/// A graph from a vertex count and edges (loops and parallel edges allowed).
fn graph(n: usize, edges: &[(usize, usize)]) -> PyResult<Graph> {
    if n > MAX_VERTICES {
        return Err(error(format!(
            "a graph of {n} vertices; chomp3 takes at most {MAX_VERTICES}"
        )));
    }
    if let Some(&(u, v)) = edges.iter().find(|&&(u, v)| u >= n || v >= n) {
        return Err(error(format!(
            "edge ({u}, {v}) names a vertex outside 0..{n}"
        )));
    }
    Ok(Graph::from_multigraph(&Multigraph {
        n,
        edges: edges.to_vec(),
    }))
}

/// A graph6 or sparse6 line as (vertex count, edges).
#[pyfunction]
fn parse_graph6(line: &str) -> PyResult<(usize, Vec<(usize, usize)>)> {
    guard(|| {
        let m = chomp3::graph::format::parse_line(line.trim())
            .map_err(|e| error(format!("{line:?}: {e}")))?;
        Ok((m.n, m.edges))
    })
}

/// The nim-value of each graph, given as a graph6/sparse6 string or as
/// (vertex count, edges), solved in parallel with one memo (the one given,
/// else a new one).
#[pyfunction]
#[pyo3(signature = (graphs, memo=None))]
fn nim_values(
    py: Python<'_>,
    graphs: Vec<Bound<'_, PyAny>>,
    memo: Option<&Memo>,
) -> PyResult<Vec<u32>> {
    guard(|| {
        let graphs = graphs
            .iter()
            .map(|item| match item.extract::<String>() {
                Ok(line) => {
                    let m = chomp3::graph::format::parse_line(line.trim())
                        .map_err(|e| error(format!("{line:?}: {e}")))?;
                    graph(m.n, &m.edges)
                }
                Err(_) => {
                    let (n, edges): (usize, Vec<(usize, usize)>) = item.extract()?;
                    graph(n, &edges)
                }
            })
            .collect::<PyResult<Vec<_>>>()?;
        let fresh;
        let solver = match memo {
            Some(m) => &m.solver,
            None => {
                fresh = Solver::new();
                &fresh
            }
        };
        let batch: Vec<_> = graphs.iter().map(|g| (g, None)).collect();
        let solved = py.allow_threads(|| solver.try_batch(&batch, false));
        let solved = solved.expect("a solver without a stop flag finishes");
        Ok(solved.into_iter().map(|s| s.value).collect())
    })
}

/// Every move of a graph and the value of the position it leaves:
/// (("vertex", v, v) or ("edge", u, v), value).
#[pyfunction]
#[pyo3(signature = (n, edges, memo=None))]
#[allow(clippy::type_complexity)]
fn moves(
    py: Python<'_>,
    n: usize,
    edges: Vec<(usize, usize)>,
    memo: Option<&Memo>,
) -> PyResult<Vec<((&'static str, usize, usize), u32)>> {
    guard(|| {
        let g = graph(n, &edges)?;
        let fresh = Solver::new();
        let solver = memo.map_or(&fresh, |m| &m.solver);
        let list = py.allow_threads(|| solver.moves(&g));
        Ok(list
            .into_iter()
            .map(|(m, v)| {
                let m = match m {
                    Move::Vertex(x) => ("vertex", x, x),
                    Move::Edge(u, w) => ("edge", u, w),
                };
                (m, v)
            })
            .collect())
    })
}

/// Panics inside the library on purpose, for the test that a panic becomes
/// `chomp3.Error`.
#[pyfunction]
fn _panic_for_test() -> PyResult<()> {
    guard(|| {
        Graph::empty(MAX_VERTICES + 1); // the library asserts its vertex limit
        Ok(())
    })
}

#[pymodule]
fn _chomp3(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add_class::<Table>()?;
    m.add_class::<Census>()?;
    m.add_class::<Memo>()?;
    m.add_class::<GrundyCensus>()?;
    m.add_class::<GrundyTable>()?;
    m.add_function(wrap_pyfunction!(lookup, m)?)?;
    m.add_function(wrap_pyfunction!(position, m)?)?;
    m.add_function(wrap_pyfunction!(grundy, m)?)?;
    m.add_function(wrap_pyfunction!(grundy_lookup, m)?)?;
    m.add_function(wrap_pyfunction!(grundy_line, m)?)?;
    m.add_function(wrap_pyfunction!(grundy_table, m)?)?;
    m.add_function(wrap_pyfunction!(compute, m)?)?;
    m.add_function(wrap_pyfunction!(transpose, m)?)?;
    m.add_function(wrap_pyfunction!(census, m)?)?;
    m.add_function(wrap_pyfunction!(parse_graph6, m)?)?;
    m.add_function(wrap_pyfunction!(nim_values, m)?)?;
    m.add_function(wrap_pyfunction!(moves, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    Ok(())
}
