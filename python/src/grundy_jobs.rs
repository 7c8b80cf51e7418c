//! The Grundy censuses' runs: `grundy_periods` and `grundy_census`, each
//! the library's job with its errors worded as keyword arguments.

use std::path::PathBuf;
use std::time::Duration;

use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;

use crate::watch::{Watcher, interruption};
use crate::{error, guard};

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
        let outcome = watch.during(py, || {
            job.run(checked, &watch.stop, &mut |e| {
                if let Event::At(at) = e {
                    watch.tick(at.done as u64, all)
                }
            })
        })?;
        let raised = watch.raised();
        match outcome.map_err(worded)? {
            // Heard as the files were written, after the job's last look at
            // its stop: they are whole, and the call still ends as asked.
            Outcome::Finished { .. } if raised.is_some() => Err(interruption(
                py,
                raised,
                format!(
                    "interrupted; the b-files in {} are whole: all that was asked, nothing is left to compute",
                    bfiles.display()
                ),
            )),
            Outcome::Finished { lines, swept } => Ok((lines, swept)),
            Outcome::Interrupted { p, kept } => Err(interruption(
                py,
                raised,
                match kept {
                    Some(path) => format!(
                        "interrupted at p = {p}; the run is kept in {}: call grundy_periods again to continue",
                        path.display()
                    ),
                    None => format!("interrupted at p = {p}; no checkpoint given: nothing kept"),
                },
            )),
            Outcome::Unfinished {
                lines,
                done,
                swept,
                partial,
                kept,
            } => {
                let mut written = match partial {
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
                    None => "no result written".to_string(),
                };
                if let Some(path) = kept {
                    written += &format!("; the run is kept in {}", path.display());
                }
                let said = format!(
                    "{} of {lines} lines not done by p = {swept} (a period that does not divide \
                     lag={lag}, or max_p too small); {written}",
                    lines - done
                );
                Err(match raised {
                    Some(e) if !e.is_instance_of::<PyKeyboardInterrupt>(py) => e,
                    Some(_) => PyKeyboardInterrupt::new_err(format!("interrupted; {said}")),
                    None => error(said),
                })
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
        let outcome = watch.during(py, || {
            job.run(checked, &watch.stop, &mut |at| {
                let before = if at.pass == 1 { 0 } else { all };
                watch.tick(before + at.done as u64, 2 * all)
            })
        })?;
        let raised = watch.raised();
        let heard = raised.is_some();
        let interrupted = |said: String| interruption(py, raised, said);
        match outcome.map_err(error)? {
            // Heard as the census was written, after the job's last look at
            // its stop: it is whole, and the call still ends as asked.
            Outcome::Written { .. } if heard => Err(interrupted(format!(
                "interrupted; {} is written: all that was asked, nothing is left to compute",
                out.display()
            ))),
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
pub(crate) fn seconds(name: &str, value: f64) -> PyResult<Duration> {
    chomp3::base::interval::interval(value)
        .map_err(|e| PyValueError::new_err(format!("{name} must be {e}")))
}
