//! Sprague-Grundy values: `grundy`, `grundy_lookup`, `grundy_line`,
//! `grundy_table`, and the `GrundyCensus` and `GrundyTable` files (the
//! censuses' runs are `grundy_jobs`).

use std::path::PathBuf;
use std::time::Duration;

use chomp3::base::path_message::NamesPath;
use chomp3::base::shell::one_line;
use chomp3::base::stop::Stop;
use chomp3::f::table::TableError;
use chomp3::grundy::nim::BigUint;
use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::{PyFileNotFoundError, PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::{error, guard};
use crate::{
    table::table_error,
    watch::{Watcher, interruptible},
};

/// A Grundy value's error: `FileNotFoundError` for a missing file, else
/// `chomp3.Error`.
pub(crate) fn nim_error(e: chomp3::grundy::nim::NimError) -> PyErr {
    use chomp3::grundy::nim::NimError;
    let missing = match &e {
        NimError::Table { error, .. } => match error {
            TableError::NotFound(..) => true,
            TableError::Input(i) => i.is_missing(),
            _ => false,
        },
        NimError::Census { error, .. } => error.not_found(),
        NimError::Rectangles { missing, .. } => *missing,
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

/// G(p, q, r) of three-rowed Chomp by the Grundy sweep, and every position one
/// move away with its value.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub(crate) fn grundy(
    py: Python<'_>,
    p: u32,
    q: u32,
    r: u32,
    max_seconds: f64,
) -> PyResult<(u32, Py<PyList>)> {
    guard(|| {
        if !(p >= q && q >= r && p >= 1) {
            return Err(error(format!(
                "[{p},{q},{r}] is not a position: it needs p >= q >= r >= 0 and p >= 1"
            )));
        }
        let stop = Stop::new();
        let within = interruptible(py, &stop, || {
            chomp3::grundy::nim::options_within([p, q, r], max_seconds, KEEP, &stop)
        })?;
        let (value, options) = within.map_err(nim_error)?.ok_or_else(|| error("stopped"))?;
        // The list is built here, Ctrl-C heard as it grows (ten million
        // moves take some 40 s), and a failed allocation is Python's
        // MemoryError.
        let list = PyList::empty(py);
        for (i, ([a, b, c], v)) in options.into_iter().enumerate() {
            if i % (1 << 16) == 0 {
                // Other threads run a moment (one may be what sends the
                // signal), then Ctrl-C is heard.
                py.allow_threads(|| ());
                py.check_signals()?;
            }
            list.append(((a, b, c), v))?;
        }
        Ok((value, list.unbind()))
    })
}

/// What a move of [`grundy`]'s list costs Python: its tuples (about 210
/// bytes and 4 microseconds a move, measured at ten million moves).
const KEEP: chomp3::grundy::nim::Keep = chomp3::grundy::nim::Keep {
    bytes: 256,
    seconds: 5e-6,
};

/// G(p, q, r) by `chomp3 nim`'s source rule: (value, source kind, the
/// `source:` line, the named files passed over). `census` is a path or a
/// loaded [`GrundyCensus`].
#[pyfunction]
#[pyo3(signature = (p, q, r, table=None, census=None, census_loaded=None, rectangles=None, max_seconds=60.0, progress=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn grundy_lookup(
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
pub(crate) fn nim_answer(
    py: Python<'_>,
    (p, q, r): (&BigUint, u64, u64),
    files: chomp3::grundy::nim::Files<'_>,
    max_seconds: f64,
    progress: Option<PyObject>,
) -> PyResult<(BigUint, &'static str, String, Vec<String>)> {
    use chomp3::grundy::nim::nim;
    guard(|| {
        // Ctrl-C stops a long sweep (heard every 20 ms).
        let watch = Watcher::new(progress);
        let answer = watch.during(py, || {
            nim(
                p,
                q,
                r,
                files,
                max_seconds,
                &watch.stop,
                &mut |done, total| watch.tick(done, total),
            )
        })?;
        if let Some(e) = watch.raised() {
            return Err(e);
        }
        answer
            .map(|a| {
                (
                    a.value,
                    a.source.kind(),
                    one_line(&a.source.to_string()),
                    a.passed,
                )
            })
            .map_err(nim_error)
    })
}

/// A Grundy census (`chomp3 grundy-census --out` or `chomp3 grundy-periods
/// --out`), read once and checked to its end line.
#[pyclass(module = "chomp3._chomp3", frozen)]
pub(crate) struct GrundyCensus {
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
pub(crate) struct GrundyTable {
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
pub(crate) fn grundy_line<'py>(
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
    chomp3::grundy::check_line_memory(q, stop).map_err(error)?;
    let values = guard(|| {
        let watch = Watcher::new(progress);
        let values = watch.during(py, || {
            chomp3::grundy::line_values(q, r, stop, &watch.stop, &mut |p| {
                watch.tick(u64::from(p), u64::from(stop))
            })
        })?;
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
pub(crate) fn grundy_table(
    py: Python<'_>,
    n: u32,
    path: PathBuf,
    capacity: Option<u64>,
    progress: Option<PyObject>,
) -> PyResult<u64> {
    use chomp3::grundy::job::{Checked, Job, JobError, Names};
    use chomp3::grundy::table::{ExtendError, Extended, extend};
    guard(|| {
        let watch = Watcher::new(progress);
        let job = Job {
            n,
            table: path.clone(),
            capacity,
            checkpoint: None,
            checkpoint_every: Duration::from_secs(DEFAULT_SWEEP_SAVE_SECS),
            bfiles: None,
            replace: false,
        };
        let names = Names {
            table: "path",
            checkpoint: "the sweep beside it",
            bfiles: "bfiles",
        };
        let Checked {
            capacity,
            checkpoint,
            held: _held,
        } = job.check(names).map_err(|e| match e {
            JobError::TooLarge { .. } | JobError::BadCapacity { .. } => {
                PyValueError::new_err(e.to_string())
            }
            e => error(e),
        })?;
        let outcome = watch.during(py, || {
            extend(&path, n, capacity, Some(&checkpoint), &watch.stop, |p| {
                watch.tick(u64::from(p), u64::from(n))
            })
        })?;
        let interrupted = watch.raised();
        let outcome = outcome.map_err(|e| match e {
            // Made again by this call, with its keyword (`table_error`
            // names the call that makes a table of f).
            ExtendError::Table(e @ TableError::BeyondCapacity { .. }) => error(format!(
                "{}; make the table again with a larger capacity=",
                e.with_path(&path)
            )),
            ExtendError::Table(e) => table_error(&path, e),
            e => error(e),
        })?;
        match (outcome, interrupted) {
            (Extended::Stopped(p), Some(e)) if e.is_instance_of::<PyKeyboardInterrupt>(py) => {
                Err(PyKeyboardInterrupt::new_err(format!(
                    "interrupted; {} holds every p <= {p}{}",
                    path.display(),
                    match p >= u64::from(n) {
                        true => ", all that was asked: nothing is left to compute",
                        false => "; call again to continue",
                    }
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
pub(crate) const DEFAULT_SWEEP_SAVE_SECS: u64 = 600;
