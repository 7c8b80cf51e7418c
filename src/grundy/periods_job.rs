//! The census of periods and starts ([`super::lag`]) as one job for every
//! front end: its files (the two b-files, the census of periods and starts,
//! the checkpoint), the checks made before any work (outputs that are one
//! file or a file of another kind in the way, a census or b-files of more
//! lines not asked to be replaced), each output then locked; and the run: the
//! resume rule (a checkpoint there is continued, one of other lines or
//! another lag refused), checkpoints at a set rhythm (a save that fails stops
//! the run, the last good checkpoint kept), the state saved when the run is
//! stopped or ends unfinished, the outputs of a run not finished (the b-files
//! of the prefix done, a census of every line done, each saying so), the
//! outputs of a finished run, and its checkpoint removed. The binary and the
//! Python package both run `grundy-periods` through this. Uses `lag`,
//! `file`, `sequences`, `outputs`, `stop` and `atomic_write`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::checkpoint::CheckpointError;
use super::lag::{self, LagError};
use super::sequences::{self, LargerBFile, PERIODS, STARTS};
use super::{ProvedLine, file, line};
use crate::base::lock::{Held, LockError};
use crate::base::path_message::NamesPath;
use crate::base::stop::Stop;
use crate::outputs::{self, Kind, Output, OutputError};

/// The trailing sweep's `p` at which a run gives up, unless told otherwise.
pub const DEFAULT_MAX_P: u32 = 1_000_000_000;
/// Time between checkpoints, unless told otherwise.
pub const DEFAULT_CHECKPOINT_EVERY: Duration = Duration::from_secs(600);

/// A census of periods and starts of the lines `q <= lines`, as asked.
#[derive(Clone, Debug)]
pub struct Job {
    /// `Q`: every line `(q,r)`, `r <= q <= Q`.
    pub lines: u32,
    /// `L`, the lag between the two sweeps.
    pub lag: u32,
    /// The trailing sweep gives up once it reaches this `p`.
    pub max_p: u32,
    /// The directory of the b-files.
    pub bfiles: PathBuf,
    /// The census of periods and starts, if one is written.
    pub out: Option<PathBuf>,
    /// The checkpoint, if the run is kept.
    pub checkpoint: Option<PathBuf>,
    /// Time between checkpoints.
    pub checkpoint_every: Duration,
    /// Whether a run not finished writes what it has done.
    pub partial: bool,
    /// Whether a census or b-files of more lines may be replaced.
    pub replace: bool,
    /// The command recorded in the outputs' headers (the front end's own
    /// words for what was run).
    pub command: String,
}

/// How a front end names the job's files in its messages.
#[derive(Clone, Copy, Debug)]
pub struct Names {
    /// The b-files' directory's.
    pub bfiles: &'static str,
    /// The census's.
    pub out: &'static str,
    /// The checkpoint's.
    pub checkpoint: &'static str,
}

/// Why a census of periods and starts may not start, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// Two outputs are one file, or one is in the way.
    #[error(transparent)]
    Outputs(#[from] OutputError),
    /// A Grundy census of more lines is at the census's path.
    #[error(transparent)]
    Larger(#[from] file::Larger),
    /// A b-file of more terms is there.
    #[error(transparent)]
    LargerBFile(#[from] LargerBFile),
    /// A census of more lines is there (a run not finished).
    #[error(transparent)]
    MoreLines(#[from] file::MoreLines),
    /// Another process writes one of the files.
    #[error(transparent)]
    Locked(#[from] LockError),
    /// The lag does not fit these lines.
    #[error(transparent)]
    Lag(#[from] LagError),
    /// More memory than the machine has (or this process may take).
    #[error(transparent)]
    Memory(#[from] crate::base::memory::TooMuch),
    /// The two sweeps' threads could not be started.
    #[error(transparent)]
    Threads(#[from] crate::base::threads::CannotStart),
    /// The checkpoint to continue from could not be read.
    #[error("{}", .error.with_path(.path))]
    Checkpoint {
        /// The checkpoint.
        path: PathBuf,
        /// What is wrong with it.
        error: CheckpointError,
    },
    /// The checkpoint is of other lines or another lag (it is left alone).
    #[error(
        "{}: a checkpoint of the lines q <= {lines} with lag {lag}, not of this run",
        .path.display()
    )]
    OtherShape {
        /// The checkpoint.
        path: PathBuf,
        /// Its `Q`.
        lines: u32,
        /// Its lag.
        lag: u32,
    },
    /// A checkpoint during the run could not be written: the run stopped
    /// there (the last checkpoint written is kept).
    #[error(
        "{}: {error}; the run stopped there, as its work could not be saved (the last checkpoint written is kept)",
        .path.display()
    )]
    Save {
        /// The checkpoint.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A file of a set could not be written (the message names it).
    #[error(transparent)]
    Write(std::io::Error),
    /// A file could not be written.
    #[error("{}: {error}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
}

/// A job that passed its checks, its outputs locked until dropped.
#[derive(Debug)]
pub struct Checked {
    /// The locks.
    pub held: Vec<Held>,
}

/// What the run tells its front end as it goes.
#[derive(Debug)]
pub enum Event<'a> {
    /// Continuing from the checkpoint, the trailing sweep at `p`.
    Resumed {
        /// The checkpoint.
        path: &'a Path,
        /// Where it was.
        p: u32,
    },
    /// A value `G - p = x` fell below the window: the run started again from
    /// `p = 1` with room down to `G - p = -room` (said once per window).
    Restarted {
        /// The value.
        x: i32,
        /// The new window's room.
        room: u32,
    },
    /// Where the run is, after every chunk of steps.
    At(lag::Progress),
    /// A checkpoint was written.
    Saved {
        /// The checkpoint.
        path: &'a Path,
        /// The trailing sweep's `p`.
        p: u32,
        /// Seconds the save took.
        seconds: f64,
    },
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every line done: the outputs are written and the checkpoint removed.
    Finished {
        /// The lines.
        lines: usize,
        /// The trailing sweep's last `p`.
        swept: u32,
    },
    /// The trailing sweep reached the last `p` asked before every line was
    /// done (a period that does not divide the lag, or too few steps); the
    /// checkpoint, if any, keeps the run.
    Unfinished {
        /// The lines.
        lines: usize,
        /// Those done (in order or not).
        done: usize,
        /// The trailing sweep's last `p`.
        swept: u32,
        /// What was written of a run not finished, if anything.
        partial: Option<Partial>,
        /// The checkpoint that keeps the run, if there is one.
        kept: Option<PathBuf>,
    },
    /// Stopped on request; the run is kept in the checkpoint, if there is one.
    Interrupted {
        /// The trailing sweep's `p`.
        p: u32,
        /// The checkpoint written.
        kept: Option<PathBuf>,
    },
}

/// The outputs of a run not finished.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partial {
    /// The b-files hold the first this many lines (every one before done).
    pub prefix: usize,
    /// The census of every line done, if one was written.
    pub census: Option<PathBuf>,
}

impl Job {
    /// The outputs, named as `names` says.
    fn plan(&self, names: Names) -> Vec<Output> {
        let mut plan: Vec<Output> = [PERIODS, STARTS]
            .iter()
            .map(|name| Output::new(self.bfiles.join(name), Kind::GrundyBFile, names.bfiles))
            .collect();
        if let Some(out) = &self.out {
            plan.push(Output::new(out, Kind::PeriodsCensus, names.out));
        }
        if let Some(checkpoint) = &self.checkpoint {
            plan.push(Output::new(
                checkpoint,
                Kind::PeriodsCheckpoint,
                names.checkpoint,
            ));
        }
        plan
    }

    /// The number of lines.
    fn all(&self) -> usize {
        line(self.lines, self.lines) + 1
    }

    /// Every check before work, then the outputs locked.
    pub fn check(&self, names: Names) -> Result<Checked, JobError> {
        lag::check_shape(self.lines, self.lag)?;
        crate::base::memory::check(
            format!("a census of the periods of every line q <= {}", self.lines),
            lag::memory(self.lines, self.lag),
        )?;
        // The sweeps run on rayon's global pool.
        crate::base::threads::global()?;
        let plan = self.plan(names);
        outputs::check_dir_name(&self.bfiles)?;
        outputs::check(&plan)?;
        if let Some(out) = &self.out {
            file::may_write(out, self.lines, self.replace)?;
        }
        for name in [PERIODS, STARTS] {
            let path = self.bfiles.join(name);
            sequences::may_write_bfile(&path, self.all() as u64, self.replace)?;
        }
        let held = outputs::lock(&plan)?;
        Ok(Checked { held })
    }

    /// The run kept in the checkpoint, if the file is there (it must be of
    /// these lines and this lag); else checks that the lag fits the lines.
    fn resume(&self, on: &mut dyn FnMut(Event)) -> Result<Option<lag::Run>, JobError> {
        match &self.checkpoint {
            Some(path) if crate::base::input::is_there(path) => {
                let run = lag::load(path).map_err(|error| JobError::Checkpoint {
                    path: path.clone(),
                    error,
                })?;
                let (lines, lag) = run.shape();
                if (lines, lag) != (self.lines, self.lag) {
                    return Err(JobError::OtherShape {
                        path: path.clone(),
                        lines,
                        lag,
                    });
                }
                on(Event::Resumed {
                    path,
                    p: run.progress().p,
                });
                Ok(Some(run))
            }
            _ => {
                lag::Run::new(self.lines, self.lag, 0)?;
                Ok(None)
            }
        }
    }

    /// Runs the census (from the checkpoint, if there is one) until every
    /// line is done, the trailing sweep reaches `max_p`, or `stop` is
    /// requested; `on` hears of it as it goes. `checked` is this job's
    /// [`check`](Job::check), its locks held until the run ends.
    pub fn run(
        &self,
        checked: Checked,
        stop: &Stop,
        on: &mut dyn FnMut(Event),
    ) -> Result<Outcome, JobError> {
        let _held = checked.held;
        let resume = self.resume(on)?;
        // The sweep's own token: the caller's request, or a save that failed.
        let halt = Stop::new();
        if stop.requested() {
            halt.request();
        }
        let mut saved = Instant::now();
        let mut save_error = None;
        let mut restart_said = None;
        let mut show = |run: &lag::Run| {
            if let Some((x, room)) = run.restarted()
                && restart_said != Some(room)
            {
                restart_said = Some(room);
                on(Event::Restarted { x, room });
            }
            on(Event::At(run.progress()));
            if let Some(path) = &self.checkpoint
                && saved.elapsed() >= self.checkpoint_every
                && save_error.is_none()
            {
                // A run that cannot save its work stops at once; the last
                // good checkpoint stays (it is replaced only by a whole new one).
                let t = Instant::now();
                match lag::save(run, path) {
                    Ok(()) => on(Event::Saved {
                        path,
                        p: run.progress().p,
                        seconds: t.elapsed().as_secs_f64(),
                    }),
                    Err(e) => {
                        save_error = Some(e);
                        halt.request();
                    }
                }
                saved = Instant::now();
            }
            if stop.requested() {
                halt.request();
            }
        };
        let run = lag::run(self.lines, self.lag, self.max_p, resume, &halt, &mut show)?;
        if let (Some(error), Some(path)) = (save_error, &self.checkpoint) {
            let path = path.clone();
            return Err(JobError::Save { path, error });
        }
        let stopped = stop.requested();
        if let Some(path) = &self.checkpoint
            && (stopped || !run.finished())
        {
            lag::save(&run, path).map_err(io(path))?;
        }
        if stopped {
            return Ok(Outcome::Interrupted {
                p: run.progress().p,
                kept: self.checkpoint.clone(),
            });
        }
        self.finish(&run)
    }

    /// After the run: the outputs if every line is done (then the
    /// checkpoint goes), else those of a run not finished if asked.
    fn finish(&self, run: &lag::Run) -> Result<Outcome, JobError> {
        let all = self.all();
        let outcome = run.outcome();
        let done: Vec<ProvedLine> = outcome.lines.iter().map_while(|f| *f).collect();
        // Every line done, in order but not a prefix: for a partial census.
        let found: Vec<ProvedLine> = outcome.lines.iter().flatten().copied().collect();
        let command = &self.command;
        if done.len() < all {
            let partial = match self.partial && !done.is_empty() {
                true => {
                    // A run not finished replaces no result of more lines.
                    for name in [PERIODS, STARTS] {
                        let path = self.bfiles.join(name);
                        sequences::may_write_bfile(&path, done.len() as u64, self.replace)?;
                    }
                    if let Some(out) = &self.out {
                        let keys: Vec<(u32, u32)> = found.iter().map(|l| (l.q, l.r)).collect();
                        file::may_write_lines(out, &keys, self.replace)?;
                    }
                    let note = format!(
                        "{command}, a run not finished: its first {} lines, those done by p = {}",
                        done.len(),
                        outcome.swept
                    );
                    self.write_bfiles(&done, &note)?;
                    let census = match &self.out {
                        Some(out) => {
                            let note = format!(
                                "{command}, a run not finished: the {} of {all} lines done by p = {} only",
                                found.len(),
                                outcome.swept
                            );
                            write_census(out, self.lines, &found, &note)?;
                            Some(out.clone())
                        }
                        None => None,
                    };
                    Some(Partial {
                        prefix: done.len(),
                        census,
                    })
                }
                false => None,
            };
            return Ok(Outcome::Unfinished {
                lines: all,
                done: found.len(),
                swept: outcome.swept,
                partial,
                kept: self.checkpoint.clone(),
            });
        }
        self.write_bfiles(&done, command)?;
        if let Some(out) = &self.out {
            write_census(out, self.lines, &done, command)?;
        }
        if let Some(path) = &self.checkpoint {
            // With what killed writers of it left aside.
            crate::base::atomic_write::remove_left_aside(path);
            // Not a file another program put there meanwhile.
            let _ = crate::base::lock::remove_own(path);
        }
        Ok(Outcome::Finished {
            lines: all,
            swept: outcome.swept,
        })
    }

    /// The b-files of `done` (the lines done, a prefix in order).
    fn write_bfiles(&self, done: &[ProvedLine], command: &str) -> Result<(), JobError> {
        let dir = &self.bfiles;
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        sequences::write_line_pair(dir, done, command).map_err(JobError::Write)
    }
}

/// An error of the file or directory `path`.
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> JobError + '_ {
    move |error| JobError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// The census of periods and starts of `lines` (in order) at `path`.
fn write_census(
    path: &Path,
    q_max: u32,
    lines: &[ProvedLine],
    command: &str,
) -> Result<(), JobError> {
    crate::base::atomic_write::write_atomically(path, |w| {
        file::write_periods(q_max, lines, command, w)
    })
    .map_err(io(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: Names = Names {
        bfiles: "bfiles",
        out: "out",
        checkpoint: "checkpoint",
    };

    /// Lines `q <= 12`, lag 576 (every least period divides it).
    fn job(dir: &Path, name: &str) -> Job {
        Job {
            lines: 12,
            lag: 576,
            max_p: DEFAULT_MAX_P,
            bfiles: dir.join(name),
            out: Some(dir.join(format!("{name}.tsv"))),
            checkpoint: None,
            checkpoint_every: DEFAULT_CHECKPOINT_EVERY,
            partial: false,
            replace: false,
            command: "the same command".into(),
        }
    }

    fn run(job: &Job, stop: &Stop) -> Result<Outcome, JobError> {
        job.run(job.check(NAMES)?, stop, &mut |_| {})
    }

    /// The data lines of a b-file, `(n, a(n))`.
    fn terms(path: &Path) -> Vec<(usize, u32)> {
        let text = std::fs::read_to_string(path).unwrap();
        (text.lines())
            .filter(|l| !l.starts_with('#'))
            .map(|l| {
                let (n, v) = l.split_once(' ').unwrap();
                (n.parse().unwrap(), v.parse().unwrap())
            })
            .collect()
    }

    /// Every line's start and least period by the census that keeps the
    /// patterns (`grundy::census`, another algorithm), in the sweep's order.
    fn by_patterns(q_max: u32) -> Vec<ProvedLine> {
        let c = super::super::census::census(q_max, 1 << 20, &Stop::new(), &mut |_| {});
        c.lines.iter().map(ProvedLine::from).collect()
    }

    #[test]
    fn a_run_gives_the_starts_and_periods_of_the_census_with_patterns() {
        let dir = tempfile::tempdir().unwrap();
        let job = job(dir.path(), "b");
        let outcome = run(&job, &Stop::new()).unwrap();
        let want = by_patterns(12);
        assert_eq!(want.len(), 91);
        let swept = match outcome {
            Outcome::Finished { lines: 91, swept } => swept,
            other => panic!("{other:?}"),
        };
        assert!(swept > 0);
        let starts: Vec<(usize, u32)> = want.iter().map(|l| l.start).enumerate().collect();
        let periods: Vec<(usize, u32)> = want.iter().map(|l| l.period).enumerate().collect();
        assert_eq!(terms(&dir.path().join("b").join(STARTS)), starts);
        assert_eq!(terms(&dir.path().join("b").join(PERIODS)), periods);
        let text = std::fs::read(dir.path().join("b.tsv")).unwrap();
        let (q, lines) = file::summaries(&text[..]).unwrap();
        assert_eq!((q, lines), (12, want));
        assert!(String::from_utf8_lossy(&text).contains("the same command"));
    }

    #[test]
    fn a_run_stopped_and_continued_writes_the_bytes_of_one_run() {
        let dir = tempfile::tempdir().unwrap();
        let whole = job(dir.path(), "whole");
        assert!(matches!(
            run(&whole, &Stop::new()),
            Ok(Outcome::Finished { .. })
        ));
        let ck = dir.path().join("ck");
        let cut = Job {
            checkpoint: Some(ck.clone()),
            checkpoint_every: Duration::ZERO,
            ..job(dir.path(), "cut")
        };
        // Stopped once the trailing sweep is under way, checkpoints saved
        // after every chunk till then.
        let stop = Stop::new();
        let (mut saves, mut at) = (0, 0);
        let outcome = cut.run(cut.check(NAMES).unwrap(), &stop, &mut |e| match e {
            Event::At(p) if p.p > 1000 => {
                at = p.p;
                stop.request();
            }
            Event::Saved { path, .. } => {
                assert_eq!(path, ck);
                saves += 1;
            }
            _ => {}
        });
        assert_eq!(
            outcome.unwrap(),
            Outcome::Interrupted {
                p: at,
                kept: Some(ck.clone())
            }
        );
        assert!(saves > 1 && ck.exists());
        assert!(!dir.path().join("cut").exists() && !dir.path().join("cut.tsv").exists());
        // Continued from there, to the same bytes; the checkpoint then goes.
        let mut resumed = None;
        let outcome = cut.run(cut.check(NAMES).unwrap(), &Stop::new(), &mut |e| {
            if let Event::Resumed { p, .. } = e {
                resumed = Some(p);
            }
        });
        assert!(matches!(outcome, Ok(Outcome::Finished { lines: 91, .. })));
        assert_eq!(resumed, Some(at));
        assert!(!ck.exists());
        let bytes = |p: PathBuf| std::fs::read(p).unwrap();
        for name in [PERIODS, STARTS] {
            let (a, b) = (dir.path().join("whole"), dir.path().join("cut"));
            assert_eq!(bytes(a.join(name)), bytes(b.join(name)), "{name}");
        }
        assert_eq!(
            bytes(dir.path().join("whole.tsv")),
            bytes(dir.path().join("cut.tsv"))
        );
    }

    #[test]
    fn a_run_not_finished_writes_only_what_is_asked_and_keeps_its_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let want = by_patterns(12);
        let ck = dir.path().join("ck");
        let short = Job {
            max_p: 2000,
            checkpoint: Some(ck.clone()),
            ..job(dir.path(), "short")
        };
        let Outcome::Unfinished {
            lines: 91,
            done,
            swept,
            partial: None,
            kept: Some(kept),
        } = run(&short, &Stop::new()).unwrap()
        else {
            panic!("a run to p = 2000 does not finish")
        };
        assert!(done > 1 && done < 91 && swept >= 2000, "{done} {swept}");
        assert!(!dir.path().join("short").exists() && !dir.path().join("short.tsv").exists());
        assert!(ck.exists() && kept == ck);
        // From the checkpoint without sweeping: the prefix done in the
        // b-files, every line done in the census, each saying so.
        let partial = Job {
            max_p: 0,
            partial: true,
            ..short.clone()
        };
        let outcome = run(&partial, &Stop::new()).unwrap();
        let Outcome::Unfinished {
            done: again,
            partial: Some(Partial { prefix, census }),
            ..
        } = outcome
        else {
            panic!("{outcome:?}")
        };
        assert_eq!(again, done);
        assert!(ck.exists());
        assert_eq!(census, Some(dir.path().join("short.tsv")));
        assert!(prefix > 0 && prefix <= done);
        let periods = terms(&dir.path().join("short").join(PERIODS));
        let starts = terms(&dir.path().join("short").join(STARTS));
        assert_eq!(periods.len(), prefix);
        for (i, l) in want.iter().take(prefix).enumerate() {
            assert_eq!((periods[i], starts[i]), ((i, l.period), (i, l.start)));
        }
        let text = std::fs::read_to_string(dir.path().join("short.tsv")).unwrap();
        assert!(text.contains("a run not finished"), "{text}");
        let (_, found) = file::summaries(text.as_bytes()).unwrap();
        assert_eq!(found.len(), done);
        assert!(found.iter().all(|l| want.contains(l)));
    }

    #[test]
    fn checks_refuse_before_any_work() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        // The census and the checkpoint named alike: one file.
        let same = Job {
            checkpoint: Some(d.join("b.tsv")),
            ..job(d, "b")
        };
        assert!(matches!(same.check(NAMES), Err(JobError::Outputs(_))));
        // A lag below 2Q + 2.
        let low = Job {
            lag: 20,
            ..job(d, "b")
        };
        assert!(matches!(run(&low, &Stop::new()), Err(JobError::Lag(_))));
        assert!(!d.join("b").exists());
        // Outputs of more lines are kept unless replaced.
        run(&job(d, "b"), &Stop::new()).unwrap();
        let fewer = Job {
            lines: 6,
            lag: 576,
            ..job(d, "b")
        };
        assert!(matches!(fewer.check(NAMES), Err(JobError::Larger(_))));
        let bfiles_only = Job {
            out: None,
            ..fewer.clone()
        };
        let err = bfiles_only.check(NAMES).unwrap_err();
        assert!(matches!(err, JobError::LargerBFile(_)), "{err}");
        assert!(!err.to_string().contains("--"), "{err}");
        let replace = Job {
            replace: true,
            ..fewer.clone()
        };
        drop(replace.check(NAMES).unwrap());
        // Another process writing the b-files holds their lock.
        std::fs::create_dir_all(d.join("c")).unwrap();
        let other = std::fs::File::create(crate::base::lock::lock_path(&d.join("c").join(PERIODS)))
            .unwrap();
        other.try_lock().unwrap();
        let err = job(d, "c").check(NAMES).unwrap_err();
        assert!(matches!(err, JobError::Locked(_)), "{err}");
        drop(other);
        // A checkpoint of other lines is refused and left as it was.
        let ck = d.join("ck");
        let short = Job {
            max_p: 1000,
            checkpoint: Some(ck.clone()),
            ..job(d, "s")
        };
        run(&short, &Stop::new()).unwrap();
        let kept = std::fs::read(&ck).unwrap();
        let other = Job {
            lines: 11,
            ..short.clone()
        };
        let err = run(&other, &Stop::new()).unwrap_err();
        let JobError::OtherShape { lines, lag, .. } = err else {
            panic!("{err}")
        };
        assert_eq!((lines, lag), (12, 576));
        assert_eq!(std::fs::read(&ck).unwrap(), kept);
        assert!(!d.join("s").exists());
    }

    #[test]
    fn a_checkpoint_that_cannot_be_saved_stops_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("gone");
        std::fs::create_dir(&gone).unwrap();
        let job = Job {
            checkpoint: Some(gone.join("ck")),
            checkpoint_every: Duration::ZERO,
            ..job(dir.path(), "b")
        };
        let checked = job.check(NAMES).unwrap();
        std::fs::remove_dir_all(&gone).unwrap();
        let err = job.run(checked, &Stop::new(), &mut |_| {}).unwrap_err();
        assert!(matches!(err, JobError::Save { .. }), "{err}");
        assert!(!dir.path().join("b").exists());
    }
}
