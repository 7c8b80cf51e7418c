//! `Table`, `compute` and `transpose`: a table file read through a memory map,
//! made and extended, and written again by rows.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chomp3::base::path_message::NamesPath;
use chomp3::f::table::TableError;
use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::{PyFileNotFoundError, PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;

use crate::watch::Watcher;
use crate::{error, guard};

/// A table's error in Python's terms: the library's message, and where it
/// names a remedy, the call that does it.
pub(crate) fn table_error(path: &Path, e: TableError) -> PyErr {
    let message = e.with_path(path);
    match e {
        TableError::NotFound(_, chomp3::f::table::Shape::Tetrahedron) => {
            PyFileNotFoundError::new_err(format!(
                "{message}; chomp3.grundy_table(n, path) creates a Grundy table"
            ))
        }
        TableError::NotFound(..) => PyFileNotFoundError::new_err(format!(
            "{message}; chomp3.compute(n, path) creates a table of f"
        )),
        // A link to nothing: no file there either.
        TableError::Input(i) if i.is_missing() => PyFileNotFoundError::new_err(message),
        TableError::BeyondCapacity { .. } => {
            error(format!("{message}; chomp3.compute makes a new one"))
        }
        // A table that could not be mapped for want of address space.
        TableError::Io { error: e, .. } if e.kind() == std::io::ErrorKind::OutOfMemory => {
            pyo3::exceptions::PyMemoryError::new_err(message)
        }
        _ => error(message),
    }
}

/// A table file (`chomp3 compute`), read with positional reads, or mapped
/// when asked.
#[pyclass(module = "chomp3._chomp3", frozen)]
pub(crate) struct Table {
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
        // kernel (SIGBUS); a map reads a row of a table by columns faster
        // (its copies need no system call).
        guard(|| {
            match chomp3::f::table::Table::options()
                .either_f()
                .mapped(mapped)
                .open(&path)
            {
                Ok(inner) => Ok(Table { inner, path }),
                Err(e) => Err(table_error(&path, e)),
            }
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

/// Creates the table at `path` or extends it to `n`; calls `progress(done,
/// total)` about five times a second; Ctrl-C (KeyboardInterrupt) commits the
/// columns done and raises. Returns (N before, N after, cells, seconds, bytes)
/// or None when the table already held `n`.
#[pyfunction]
#[pyo3(signature = (n, path, threads=None, progress=None))]
#[allow(clippy::type_complexity)]
pub(crate) fn compute(
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
        let result = watch.during(py, || {
            let mut last = Instant::now() - Duration::from_secs(1);
            chomp3::f::compute::compute(&req, &mut |done, total| {
                if last.elapsed() >= Duration::from_millis(200) || done >= total {
                    last = Instant::now();
                    watch.tick(done, total);
                }
            })
        })?;
        if let Some(e) = watch.raised() {
            return Err(match result {
                Err(ComputeError::Interrupted { n, reached })
                    if e.is_instance_of::<PyKeyboardInterrupt>(py) =>
                {
                    PyKeyboardInterrupt::new_err(format!(
                        "interrupted; the table is safe and holds {}{}",
                        chomp3::f::table::holds(n),
                        match reached {
                            true => ", all that was asked: nothing is left to compute",
                            false => "; compute again to continue",
                        }
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
pub(crate) fn transpose(
    py: Python<'_>,
    path: PathBuf,
    out: PathBuf,
    progress: Option<PyObject>,
) -> PyResult<u64> {
    guard(|| {
        let source = chomp3::f::table::Table::open(&path).map_err(|e| table_error(&path, e))?;
        let watch = Watcher::new(progress);
        let result = watch.during(py, || {
            chomp3::f::table::transpose(&source, &out, &watch.stop, &mut |done, all| {
                watch.tick(done, all)
            })
        })?;
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
