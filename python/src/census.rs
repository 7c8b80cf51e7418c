//! `Census` and `census`: a census descriptor file read, and the census run.

use std::path::{Path, PathBuf};

use chomp3::base::path_message::NamesPath;
use chomp3::f::census_file::{DescriptorError, Descriptors};
use chomp3::f::proof::{Fate, Known};
use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::watch::{Watcher, interruptible, interruption};
use crate::{error, guard};
use chomp3::base::stop::Stop;

pub(crate) fn census_error(path: &Path, e: DescriptorError) -> PyErr {
    let message = e.with_path(path);
    match e {
        DescriptorError::NotFound(_) => {
            PyFileNotFoundError::new_err(format!("{message}; chomp3.census(rows, out) makes one"))
        }
        // A link to nothing: no file there either.
        DescriptorError::Input(i) if i.is_missing() => PyFileNotFoundError::new_err(message),
        _ => error(message),
    }
}

/// A census descriptor file (`chomp3 census`).
#[pyclass(module = "chomp3._chomp3", frozen)]
pub(crate) struct Census {
    inner: Descriptors,
    path: PathBuf,
}

#[pymethods]
impl Census {
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Census> {
        guard(|| {
            // A large compressed census takes seconds: Ctrl-C is heard, and
            // other threads run meanwhile.
            let stop = Stop::new();
            match interruptible(py, &stop, || Descriptors::open_until(&path, &stop))? {
                Ok(inner) => Ok(Census { inner, path }),
                Err(e) => Err(census_error(&path, e)),
            }
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

/// Proves the fate of rows `0 ..= rows` without a table and writes `out`
/// (census.tsv) and its descriptors (default: beside `out`, as .c3d), never over
/// a census of more rows, or computed to more columns, unless `replace`. A checkpoint (default: beside `out`,
/// as .c3k) is saved every `checkpoint_secs` and on KeyboardInterrupt, and the
/// same call continues from it. `progress(columns, expected)` after each batch.
/// Returns (constant rows, periodic rows, open rows, columns).
#[pyfunction]
#[pyo3(signature = (rows, out, descriptors=None, checkpoint=None, checkpoint_secs=300.0, threads=None, replace=false, progress=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn census(
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
    use chomp3::f::census::driver::{self, Drive, Ended};
    use chomp3::f::census::job::{Job, JobError, Names};
    use chomp3::f::census::one_file::OneFile;
    use chomp3::f::census::{self as c, Run};
    use chomp3::f::census_file::MayWriteError;
    guard(|| {
        let every = crate::grundy_jobs::seconds("checkpoint_secs", checkpoint_secs)?;
        let job = Job {
            rows,
            out: out.clone(),
            descriptors,
            checkpoint,
            max_columns: None,
            replace,
            trace: None,
        };
        let names = Names {
            out: "out",
            descriptors: "descriptors",
            checkpoint: "checkpoint",
            trace: "trace",
        };
        let _held = job.check(names, (0, 1, 1)).map_err(|e| match e {
            JobError::Replace(MayWriteError::NoDirectory(_)) => error(e),
            JobError::Replace(_) => error(format!("{e}; pass replace=True to replace it")),
            e => error(e),
        })?;
        let (descriptors, params) = (job.descriptors(), job.params());
        let checkpoint = OneFile {
            path: job.checkpoint(),
        };
        let run = checkpoint.resume(params).map_err(error)?;
        let run = run.unwrap_or_else(|| Run::new(params));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(
                chomp3::base::threads::check(threads.unwrap_or(0)).map_err(|e| {
                    match e.from_env {
                        true => PyValueError::new_err(e.to_string()),
                        false => {
                            PyValueError::new_err(format!("threads={}: {e}", threads.unwrap_or(0)))
                        }
                    }
                })?,
            )
            .build()
            .map_err(error)?;
        let watch = Watcher::new(progress);
        let expected = c::expected_columns(rows);
        let ended = watch.during(py, || {
            let d = Drive {
                pool: &pool,
                stop: &watch.stop,
                every,
                checkpoints: &checkpoint,
                trace: None,
            };
            let command = format!("chomp3.census({rows}) from Python");
            let outputs = (out.as_path(), descriptors.as_path(), command.as_str());
            driver::drive_and_write(run, d, outputs, &mut |b| {
                watch.tick(b.columns as u64, expected)
            })
        })?;
        let (result, _) = match ended.map_err(error)? {
            Ended::Stopped { columns, saved } => {
                return Err(interruption(
                    py,
                    watch.raised(),
                    format!(
                        "interrupted; the census is saved in {} at column {columns}; call census again to continue",
                        saved.path.display()
                    ),
                ));
            }
            Ended::Finished { census, traffic } => (census.expect("one process"), traffic),
        };
        // Heard as the files were written, after the job's last look at its
        // stop: the census is whole, and the call still ends as asked.
        if let Some(e) = watch.raised() {
            return Err(interruption(
                py,
                Some(e),
                format!(
                    "interrupted; the census is whole in {}: all that was asked, nothing is left to compute",
                    out.display()
                ),
            ));
        }
        let counts = chomp3::f::proof::Counts::of(&result.rows);
        Ok((
            counts.constant,
            counts.periodic,
            counts.open,
            result.columns,
        ))
    })
}
