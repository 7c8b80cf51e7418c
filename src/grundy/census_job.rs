//! The certified Grundy census ([`super::census`]) as one job for every front
//! end: its files (the census, and in a directory the b-files of the lines'
//! periods and starts and, if asked, of the rectangles `G(n,n,n)`), the
//! checks made before any work (outputs that are one file or a file of
//! another kind in the way, a census or b-files of more lines or terms not
//! asked to be replaced, the machine's memory), each output then locked; and
//! the run: the census, then its file and the b-files written. It keeps no
//! checkpoint. The binary and the Python package both run `grundy-census`
//! through this. Uses `census`, `file`, `sequences`, `outputs`, `stop` and
//! `atomic_write`.

use std::path::{Path, PathBuf};

use super::census::{Census, Progress, census};
use super::job::RECTANGLES;
use super::sequences::{self, LargerBFile, PERIODS, STARTS};
use super::{ProvedLine, file, line};
use crate::base::lock::{Held, LockError};
use crate::base::memory::TooMuch;
use crate::base::stop::Stop;
use crate::outputs::{self, Kind, Output, OutputError};

/// The `p` at which the first pass gives up on the lines not proved, unless
/// told otherwise.
pub const DEFAULT_MAX_P: u32 = 10_000_000;
/// The run's progress is told at every multiple of this `p`.
pub const PROGRESS_EVERY: u32 = 256;

/// A Grundy census of the lines `q <= lines`, as asked.
#[derive(Clone, Debug)]
pub struct Job {
    /// `Q`: every line `(q,r)`, `r <= q <= Q`.
    pub lines: u32,
    /// The first pass gives up on the lines not proved at this `p`.
    pub max_p: u32,
    /// The census file.
    pub out: PathBuf,
    /// The directory of the b-files, if they are written.
    pub bfiles: Option<PathBuf>,
    /// With `bfiles`: the b-file of `G(n,n,n)` for `n` up to this.
    pub rectangles: Option<u32>,
    /// Whether a census or b-files of more lines may be replaced.
    pub replace: bool,
    /// The command recorded in the outputs' headers (the front end's own
    /// words for what was run).
    pub command: String,
}

/// How a front end names the job's files in its messages.
#[derive(Clone, Copy, Debug)]
pub struct Names {
    /// The census's.
    pub out: &'static str,
    /// The b-files' directory's.
    pub bfiles: &'static str,
}

/// Why a Grundy census may not start, or could not write its files.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// The rectangles asked for without a directory for their b-file.
    #[error("the rectangles' b-file needs a directory for the b-files")]
    RectanglesWithoutBFiles,
    /// The rectangles asked for, 0 of them: a b-file holds at least a term.
    #[error("a b-file of 0 rectangles would hold no term: ask for at least 1")]
    NoRectangles,
    /// Two outputs are one file, or one is in the way.
    #[error(transparent)]
    Outputs(#[from] OutputError),
    /// A Grundy census of more lines is at the census's path.
    #[error(transparent)]
    Larger(#[from] file::Larger),
    /// A b-file of more terms is there.
    #[error(transparent)]
    LargerBFile(#[from] LargerBFile),
    /// A census of more lines is there (a run that did not prove every line).
    #[error(transparent)]
    MoreLines(#[from] file::MoreLines),
    /// More memory than the machine has.
    #[error(transparent)]
    Memory(#[from] TooMuch),
    /// Another process writes one of the files.
    #[error(transparent)]
    Locked(#[from] LockError),
    /// A file could not be written.
    #[error("{}: {error}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A file of a set could not be written (the message names it).
    #[error(transparent)]
    Write(std::io::Error),
}

/// A job that passed its checks, its outputs locked until dropped.
#[derive(Debug)]
pub struct Checked {
    /// The locks.
    pub held: Vec<Held>,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The census and the b-files are written: `proved` of the `lines`
    /// lines (the file holds those; the others were not proved by `max_p`).
    Written {
        /// The lines asked.
        lines: usize,
        /// The lines proved.
        proved: usize,
        /// The last `p` of the first pass.
        swept: u32,
    },
    /// Stopped on request before the census was written: nothing written.
    Interrupted,
    /// Stopped on request while the rectangles were computed: the census
    /// and the lines' b-files are written, the rectangles' b-file not.
    InterruptedInRectangles,
}

impl Job {
    /// The outputs, named as `names` says.
    fn plan(&self, names: Names) -> Vec<Output> {
        let mut plan = vec![Output::new(&self.out, Kind::GrundyCensus, names.out)];
        if let Some(dir) = &self.bfiles {
            let mut files = vec![PERIODS, STARTS];
            if self.rectangles.is_some() {
                files.push(RECTANGLES);
            }
            for name in files {
                plan.push(Output::new(dir.join(name), Kind::GrundyBFile, names.bfiles));
            }
        }
        plan
    }

    /// Every check before work, then the outputs locked.
    pub fn check(&self, names: Names) -> Result<Checked, JobError> {
        if self.rectangles.is_some() && self.bfiles.is_none() {
            return Err(JobError::RectanglesWithoutBFiles);
        }
        if self.rectangles == Some(0) {
            return Err(JobError::NoRectangles);
        }
        let plan = self.plan(names);
        if let Some(dir) = &self.bfiles {
            outputs::check_dir_name(dir)?;
        }
        outputs::check(&plan)?;
        file::may_write(&self.out, self.lines, self.replace)?;
        if let Some(dir) = &self.bfiles {
            let lines = line(self.lines, self.lines) as u64 + 1;
            for name in [PERIODS, STARTS] {
                sequences::may_write_bfile(&dir.join(name), lines, self.replace)?;
            }
            if let Some(n) = self.rectangles {
                let path = dir.join(RECTANGLES);
                sequences::may_write_bfile(&path, n.into(), self.replace)?;
            }
        }
        super::check_memory(self.lines.max(self.rectangles.unwrap_or(0)))?;
        let held = outputs::lock(&plan)?;
        Ok(Checked { held })
    }

    /// Runs the census to its end (or until `stop` is requested) and writes
    /// its files; `on` hears where it is at every [`PROGRESS_EVERY`]-th `p`
    /// of either pass. `checked` is this job's [`check`](Job::check), its
    /// locks held until the run ends.
    pub fn run(
        &self,
        checked: Checked,
        stop: &Stop,
        on: &mut dyn FnMut(Progress),
    ) -> Result<Outcome, JobError> {
        let _held = checked.held;
        let c = census(self.lines, self.max_p, stop, &mut |at| {
            if at.p.is_multiple_of(PROGRESS_EVERY) {
                on(at);
            }
        });
        if stop.requested() {
            return Ok(Outcome::Interrupted);
        }
        let command = &self.command;
        if c.lines.len() < line(self.lines, self.lines) + 1 {
            // A census that did not prove every line replaces no result
            // holding a line it lacks, nor b-files of more terms than the
            // prefix of lines it writes.
            let keys: Vec<(u32, u32)> = c.lines.iter().map(|l| (l.q, l.r)).collect();
            file::may_write_lines(&self.out, &keys, self.replace)?;
            if let Some(dir) = &self.bfiles {
                let rows: Vec<ProvedLine> = c.lines.iter().map(ProvedLine::from).collect();
                let terms = sequences::prefix_terms(&rows);
                for name in [PERIODS, STARTS] {
                    sequences::may_write_bfile(&dir.join(name), terms, self.replace)?;
                }
            }
        }
        crate::base::atomic_write::write_atomically(&self.out, |w| file::write(&c, command, w))
            .map_err(io(&self.out))?;
        if let Some(dir) = &self.bfiles
            && !self.write_bfiles(dir, &c, stop)?
        {
            return Ok(Outcome::InterruptedInRectangles);
        }
        Ok(Outcome::Written {
            lines: line(self.lines, self.lines) + 1,
            proved: c.lines.len(),
            swept: c.swept,
        })
    }

    /// The b-files in `dir`; false if stopped before the rectangles'.
    fn write_bfiles(&self, dir: &Path, c: &Census, stop: &Stop) -> Result<bool, JobError> {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let write = |name: &str, f: &dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()>| {
            let path = dir.join(name);
            crate::base::atomic_write::write_atomically(&path, |w| f(w)).map_err(io(&path))
        };
        let command = self.command.as_str();
        let rows: Vec<ProvedLine> = c.lines.iter().map(ProvedLine::from).collect();
        sequences::write_line_pair(dir, &rows, command).map_err(JobError::Write)?;
        if let Some(n) = self.rectangles {
            let Some(values) = sequences::rectangles(n, stop) else {
                return Ok(false);
            };
            write(RECTANGLES, &|w| {
                sequences::write_rectangles(&values, command, w)
            })?;
        }
        Ok(true)
    }
}

/// An error of the file or directory `path`.
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> JobError + '_ {
    move |error| JobError::Io {
        path: path.to_path_buf(),
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const NAMES: Names = Names {
        out: "out",
        bfiles: "bfiles",
    };

    fn job(dir: &Path, name: &str) -> Job {
        Job {
            lines: 12,
            max_p: DEFAULT_MAX_P,
            out: dir.join(format!("{name}.tsv")),
            bfiles: Some(dir.join(name)),
            rectangles: Some(30),
            replace: false,
            command: "the command".into(),
        }
    }

    fn run(job: &Job, stop: &Stop) -> Result<Outcome, JobError> {
        job.run(job.check(NAMES)?, stop, &mut |_| {})
    }

    /// `G(p,q,r)` by the definition, `p <= p_max`, `q <= q_max`: the least
    /// value no move reaches.
    fn brute(p_max: u32, q_max: u32) -> HashMap<(u32, u32, u32), u32> {
        let mut g = HashMap::new();
        for p in 1..=p_max {
            for q in 0..=p.min(q_max) {
                for r in 0..=q {
                    let mut seen = vec![false; (p + q + r) as usize];
                    let options = ((1..p).map(|j| (j, q.min(j), r.min(j))))
                        .chain((0..q).map(|j| (p, j, r.min(j))))
                        .chain((0..r).map(|j| (p, q, j)));
                    for o in options {
                        seen[g[&o] as usize] = true;
                    }
                    let mex = seen.iter().position(|s| !s).unwrap_or(seen.len());
                    g.insert((p, q, r), u32::try_from(mex).unwrap());
                }
            }
        }
        g
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

    #[test]
    fn the_files_agree_with_the_definition() {
        let dir = tempfile::tempdir().unwrap();
        let job = job(dir.path(), "b");
        let outcome = run(&job, &Stop::new()).unwrap();
        let Outcome::Written {
            lines: 91,
            proved: 91,
            swept,
        } = outcome
        else {
            panic!("{outcome:?}")
        };
        assert!(swept > 0);
        let square = brute(30, 30);
        let b = dir.path().join("b");
        let want: Vec<(usize, u32)> = (1..=30).map(|n| (n as usize, square[&(n, n, n)])).collect();
        let p_max = 600;
        let g = brute(p_max, 12);
        assert_eq!(terms(&b.join(RECTANGLES)), want);
        // Each line's start and period: G - p repeats with the period from
        // the start on (as far as the brute force reaches), not from the p
        // before it, and with no smaller period.
        let (starts, periods) = (terms(&b.join(STARTS)), terms(&b.join(PERIODS)));
        assert_eq!(starts.len(), 91);
        let x = |p: u32, q: u32, r: u32| i64::from(g[&(p, q, r)]) - i64::from(p);
        let mut checked = 0;
        for q in 0..=12 {
            for r in 0..=q {
                let n = line(q, r);
                let (start, period) = (starts[n].1, periods[n].1);
                assert_eq!((starts[n].0, periods[n].0), (n, n));
                if start + 2 * period > p_max {
                    continue;
                }
                checked += 1;
                for p in start..=p_max - period {
                    assert_eq!(x(p, q, r), x(p + period, q, r), "({q},{r}) at {p}");
                }
                if start > q.max(1) {
                    let b = start - 1;
                    assert_ne!(x(b, q, r), x(b + period, q, r), "({q},{r}) starts earlier");
                }
                for d in (1..period).filter(|d| period % d == 0) {
                    let repeats = (start..=p_max - d).all(|p| x(p, q, r) == x(p + d, q, r));
                    assert!(!repeats, "({q},{r}) repeats with {d} < {period}");
                }
            }
        }
        assert!(checked > 50, "only {checked} lines within p <= {p_max}");
        let text = std::fs::read(&job.out).unwrap();
        let (q, lines) = file::summaries(&text[..]).unwrap();
        assert_eq!(q, 12);
        let from_file: Vec<(u32, u32)> = lines.iter().map(|l| (l.start, l.period)).collect();
        let from_bfiles: Vec<(u32, u32)> = (starts.iter().zip(&periods))
            .map(|(s, p)| (s.1, p.1))
            .collect();
        assert_eq!(from_file, from_bfiles);
    }

    #[test]
    fn a_stopped_run_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let job = job(dir.path(), "b");
        let stop = Stop::new();
        let outcome = job.run(job.check(NAMES).unwrap(), &stop, &mut |at| {
            assert!(at.p.is_multiple_of(PROGRESS_EVERY));
            stop.request();
        });
        assert_eq!(outcome.unwrap(), Outcome::Interrupted);
        assert!(!job.out.exists() && !dir.path().join("b").exists());
    }

    #[test]
    fn checks_refuse_before_any_work() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let no_dir = Job {
            bfiles: None,
            ..job(d, "b")
        };
        assert!(matches!(
            no_dir.check(NAMES),
            Err(JobError::RectanglesWithoutBFiles)
        ));
        let same = Job {
            bfiles: Some(d.join("b")),
            out: d.join("b").join(PERIODS),
            ..job(d, "b")
        };
        assert!(matches!(same.check(NAMES), Err(JobError::Outputs(_))));
        run(&job(d, "b"), &Stop::new()).unwrap();
        // A census of more lines, b-files of more terms: kept unless replaced.
        let fewer = Job {
            lines: 6,
            ..job(d, "b")
        };
        assert!(matches!(fewer.check(NAMES), Err(JobError::Larger(_))));
        let elsewhere = Job {
            out: d.join("other.tsv"),
            ..fewer.clone()
        };
        let err = elsewhere.check(NAMES).unwrap_err();
        assert!(matches!(err, JobError::LargerBFile(_)), "{err}");
        assert!(!err.to_string().contains("--"), "{err}");
        // Only the rectangles' b-file of more terms.
        let rectangles = Job {
            rectangles: Some(20),
            out: d.join("other.tsv"),
            ..job(d, "b")
        };
        let err = rectangles.check(NAMES).unwrap_err();
        assert!(matches!(err, JobError::LargerBFile(_)), "{err}");
        let replace = Job {
            replace: true,
            ..fewer.clone()
        };
        drop(replace.check(NAMES).unwrap());
        // Another process writing the census holds its lock.
        let other = std::fs::File::create(crate::base::lock::lock_path(&d.join("c.tsv"))).unwrap();
        other.try_lock().unwrap();
        let err = job(d, "c").check(NAMES).unwrap_err();
        assert!(matches!(err, JobError::Locked(_)), "{err}");
        assert!(!d.join("c").exists());
    }
}
