//! Sprague-Grundy values: `grundy`, `grundy_lookup`, `grundy_line`,
//! `grundy_table`, `grundy_periods`, `grundy_census`, and the `GrundyCensus`
//! and `GrundyTable` files.

use std::path::PathBuf;
use std::time::Duration;

use chomp3::base::stop::Stop;
use chomp3::f::table::TableError;
use chomp3::grundy::nim::BigUint;
use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::{PyFileNotFoundError, PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;

use crate::{error, guard};
use crate::{table::table_error, watch::Watcher};

/// A Grundy value's error: `FileNotFoundError` for a missing file, else
/// `chomp3.Error`.
pub(crate) fn nim_error(e: chomp3::grundy::nim::NimError) -> PyErr {
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

/// G(p, q, r) of three-rowed Chomp by the Grundy sweep, and every position one
/// move away with its value.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub(crate) fn grundy(
    py: Python<'_>,
    p: u32,
    q: u32,
    r: u32,
) -> PyResult<(u32, Vec<((u32, u32, u32), u32)>)> {
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
pub(crate) const DEFAULT_SWEEP_SAVE_SECS: u64 = 600;

/// The census of periods and starts of the lines `q <= lines` by two sweeps
/// `lag` apart (`chomp3 grundy-periods`): writes the b-files into `bfiles`
/// and, with `out`, the census; with `checkpoint` the run is kept there
/// (every `checkpoint_secs` and on KeyboardInterrupt) and the same call
/// continues from it. `progress(lines done, lines)` after every chunk.
/// Returns (lines, the trailing sweep's last p).
#[pyfunction]
#[pyo3(signature = (lines, lag, bfiles, out=None, checkpoint=None, checkpoint_secs=chomp3::grundy::periods_job::DEFAULT_CHECKPOINT_EVERY.as_secs_f64(), max_p=chomp3::grundy::periods_job::DEFAULT_MAX_P, partial=false, replace=false, progress=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn grundy_periods(
    py: Python<'_>,
    lines: u32,
    lag: u32,
    bfiles: PathBuf,
    out: Option<PathBuf>,
    checkpoint: Option<PathBuf>,
    checkpoint_secs: f64,
    max_p: u32,
    partial: bool,
    replace: bool,
    progress: Option<PyObject>,
) -> PyResult<(usize, u32)> {
    use chomp3::grundy::periods_job::{Event, Job, JobError, Names, Outcome, Partial};
    guard(|| {
        let job = Job {
            lines,
            lag,
            max_p,
            bfiles: bfiles.clone(),
            out,
            checkpoint,
            checkpoint_every: seconds("checkpoint_secs", checkpoint_secs)?,
            partial,
            replace,
            command: format!("chomp3.grundy_periods({lines}, {lag}) from Python"),
        };
        let names = Names {
            bfiles: "bfiles",
            out: "out",
            checkpoint: "checkpoint",
        };
        let worded = |e: JobError| match e {
            JobError::Larger(_) | JobError::LargerBFile(_) | JobError::MoreLines(_) => {
                error(format!("{e}; pass replace=True to replace it"))
            }
            JobError::Lag(_) => PyValueError::new_err(e.to_string()),
            JobError::OtherShape { path, lines, lag } => error(format!(
                "{}: a checkpoint of lines={lines}, lag={lag}, not of this call",
                path.display()
            )),
            e => error(e),
        };
        let checked = job.check(names).map_err(worded)?;
        let watch = Watcher::new(progress);
        let all = chomp3::grundy::line(lines, lines) as u64 + 1;
        let outcome = py.allow_threads(|| {
            job.run(checked, &watch.stop, &mut |e| {
                if let Event::At(at) = e {
                    watch.tick(at.done as u64, all)
                }
            })
        });
        let raised = watch.raised();
        match outcome.map_err(worded)? {
            Outcome::Finished { lines, swept } => Ok((lines, swept)),
            Outcome::Interrupted { p, kept } => Err(match raised {
                Some(e) if !e.is_instance_of::<PyKeyboardInterrupt>(py) => e,
                _ => PyKeyboardInterrupt::new_err(match kept {
                    Some(path) => format!(
                        "interrupted at p = {p}; the run is kept in {}: call grundy_periods again to continue",
                        path.display()
                    ),
                    None => format!("interrupted at p = {p}; no checkpoint given: nothing kept"),
                }),
            }),
            Outcome::Unfinished {
                lines,
                done,
                swept,
                partial,
            } => {
                let written = match partial {
                    Some(Partial { prefix, census }) => {
                        let mut said = format!(
                            "the b-files in {} hold the first {prefix}",
                            bfiles.display()
                        );
                        if let Some(out) = census {
                            said += &format!(", {} the {done} lines done", out.display());
                        }
                        said + " (partial=True)"
                    }
                    None => "nothing written".to_string(),
                };
                Err(error(format!(
                    "{} of {lines} lines not done by p = {swept} (a period that does not divide \
                     lag={lag}, or max_p too small); {written}",
                    lines - done
                )))
            }
        }
    })
}

/// The certified Grundy census of the lines `q <= lines` (`chomp3
/// grundy-census`): writes the census `out` and, with `bfiles`, the b-files
/// of the lines' periods and starts and, with `rectangles`, of G(n,n,n).
/// `progress(done, 2 * lines)`: the lines proved, then those given their
/// exact start. Returns (lines, the first pass's last p).
#[pyfunction]
#[pyo3(signature = (lines, out, bfiles=None, rectangles=None, max_p=chomp3::grundy::census_job::DEFAULT_MAX_P, replace=false, progress=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn grundy_census(
    py: Python<'_>,
    lines: u32,
    out: PathBuf,
    bfiles: Option<PathBuf>,
    rectangles: Option<u32>,
    max_p: u32,
    replace: bool,
    progress: Option<PyObject>,
) -> PyResult<(usize, u32)> {
    use chomp3::grundy::census_job::{Job, JobError, Names, Outcome};
    guard(|| {
        let job = Job {
            lines,
            max_p,
            out: out.clone(),
            bfiles,
            rectangles,
            replace,
            command: format!("chomp3.grundy_census({lines}) from Python"),
        };
        let names = Names {
            out: "out",
            bfiles: "bfiles",
        };
        let checked = job.check(names).map_err(|e| match e {
            JobError::Larger(_) | JobError::LargerBFile(_) | JobError::MoreLines(_) => {
                error(format!("{e}; pass replace=True to replace it"))
            }
            JobError::RectanglesWithoutBFiles => {
                PyValueError::new_err("rectangles= needs bfiles=, the directory of its b-file")
            }
            JobError::NoRectangles => {
                PyValueError::new_err("rectangles=0 asks for a b-file of no term; give 1 or more")
            }
            e => error(e),
        })?;
        let watch = Watcher::new(progress);
        let all = chomp3::grundy::line(lines, lines) as u64 + 1;
        let outcome = py.allow_threads(|| {
            job.run(checked, &watch.stop, &mut |at| {
                let before = if at.pass == 1 { 0 } else { all };
                watch.tick(before + at.done as u64, 2 * all)
            })
        });
        let raised = watch.raised();
        let interrupted = |said: String| match raised {
            Some(e) if !e.is_instance_of::<PyKeyboardInterrupt>(py) => e,
            _ => PyKeyboardInterrupt::new_err(said),
        };
        match outcome.map_err(error)? {
            Outcome::Written {
                lines,
                proved,
                swept,
            } if proved == lines => Ok((lines, swept)),
            Outcome::Written { lines, proved, .. } => Err(error(format!(
                "{} lines not proved by p = {max_p}; raise max_p ({} holds the lines proved)",
                lines - proved,
                out.display()
            ))),
            Outcome::Interrupted => Err(interrupted(format!(
                "interrupted; {} not written (the Grundy census keeps no checkpoint: call grundy_census again)",
                out.display()
            ))),
            Outcome::InterruptedInRectangles => Err(interrupted(
                "interrupted; grundy-rectangles.txt not written".to_string(),
            )),
        }
    })
}

/// `value` seconds as a duration, or ValueError naming `name`.
fn seconds(name: &str, value: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(value).map_err(|_| {
        PyValueError::new_err(format!(
            "{name} must be a number of seconds >= 0, got {value}"
        ))
    })
}
