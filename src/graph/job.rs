//! A graph run as one job for every front end: its sources and options, the
//! checks made before any work (no graphs given, a b-file of sources other
//! than the generator's, a family name that names nothing, outputs that are
//! one file or a file of another kind in the way), ending with each output
//! locked for this process; then the run itself: the graphs read a chunk at
//! a time and solved in parallel with one memo (or each from an empty memo,
//! for its cost), each one's lines written as asked (`output`), the result
//! file written aside and renamed, the memo loaded at the start if its file
//! is there and saved at the end even when the run fails or is stopped, and
//! the b-file. Uses `sources`, `output`, `solve`, `subgraphs`, `outputs` and
//! `base`'s `atomic_write`, `input`, `lock`, `memory`, `stop`.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use super::family::FamilyError;
use super::format;
use super::output::{Cost, Output, Solved, Tally};
use super::same_result::{Same, Tee};
use super::sources::{Inputs, Item, Source, SourceError};
use super::{MemoError, Solver, subgraphs_or_stop};
use crate::base::atomic_write::write_atomically;
use crate::base::lock::{Held, LockError};
use crate::base::path_message::NamesPath;
use crate::base::stop::Stop;
use crate::outputs::{self, Kind, OutputError};

/// Graphs read and solved together (in parallel) before their lines are written.
pub(crate) const CHUNK: usize = 4096;

/// A graph run, as asked.
#[derive(Clone, Debug)]
pub struct Job {
    /// The sources, read in order after the edge lists.
    pub sources: Vec<Source>,
    /// Edge lists (`u v` per line), one graph each, read first.
    pub edges: Vec<PathBuf>,
    /// Each graph replaced by all its subgraphs up to isomorphism.
    pub subgraphs: bool,
    /// What is written per graph.
    pub output: Output,
    /// The result file (written aside, then renamed); `None`: the writer
    /// given to [`Job::run`].
    pub out: Option<PathBuf>,
    /// The b-file of P-positions per number of vertices (a summary of
    /// generator sources only).
    pub bfile: Option<PathBuf>,
    /// Whether a result of another command at `out`, or a b-file of more
    /// terms, may be replaced.
    pub replace: bool,
    /// The memo file: read at the start if it is there, saved at the end.
    pub memo: Option<PathBuf>,
    /// The command as the front end records it, in the first line of `out`
    /// and in the b-file's header.
    pub command: String,
}

/// How a front end names the job's files in its messages.
#[derive(Clone, Copy, Debug)]
pub struct Names {
    /// The result file's.
    pub out: &'static str,
    /// The memo's.
    pub memo: &'static str,
    /// The b-file's.
    pub bfile: &'static str,
}

/// Why a graph run may not start.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// No source and no edge list.
    #[error("no graphs given")]
    NoGraphs,
    /// Standard input named more than once (as `-`, a source or an edge list).
    #[error("standard input (-) is given more than once: it can be read once")]
    StdinTwice,
    /// A b-file counts every graph on each `n`: only the generator's sources.
    #[error("{name} counts all graphs on each n: give the graphs as geng:N or geng:A..B only")]
    BFileNotGeng {
        /// How the front end names the b-file.
        name: &'static str,
    },
    /// A b-file is drawn from the summary's counts.
    #[error("{name} holds the summary's P-positions: it is written with the summary only")]
    BFileNotSummary {
        /// How the front end names the b-file.
        name: &'static str,
    },
    /// A b-file's terms are the counts of n = a, a+1, .., b, each once.
    #[error(
        "{name} counts each n once, from one run of n: give geng ranges that neither overlap nor leave a gap, and no subgraphs"
    )]
    BFileRanges {
        /// How the front end names the b-file.
        name: &'static str,
    },
    /// A b-file is there with a term this run does not write.
    #[error(
        "{} holds {held} terms, among them n = {n}, which this run (n = {from}..{to}) does not write; it is kept",
        .path.display()
    )]
    LargerBFile {
        /// The b-file.
        path: PathBuf,
        /// The terms it holds.
        held: u64,
        /// The first of them this run does not write.
        n: u64,
        /// The first term this run writes.
        from: u64,
        /// Its last.
        to: u64,
    },
    /// A cost is that of one graph from an empty memo, written per graph.
    #[error(
        "the cost of a graph is that of its solve alone from an empty memo: not with a memo, subgraphs or moves"
    )]
    Cost,
    /// A family spec names no graph.
    #[error(transparent)]
    Family(#[from] FamilyError),
    /// Two outputs are one file, or one is in the way.
    #[error(transparent)]
    Outputs(#[from] OutputError),
    /// Another process writes one of the files.
    #[error(transparent)]
    Locked(#[from] LockError),
}

/// A job that passed its checks, its outputs locked until dropped.
#[derive(Debug)]
pub struct Checked {
    /// The locks.
    pub held: Vec<Held>,
}

/// Why a run ended without its result.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The memo file is there but cannot be read (it is left as it is).
    #[error("{}", .error.with_path(.path))]
    Memo {
        /// The memo file.
        path: PathBuf,
        /// Why.
        error: MemoError,
    },
    /// A source cannot be read, or a line is no graph (what came before it
    /// is written, but for a result file, which is then not written).
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The result file holds another result (other graphs, or other values):
    /// kept, this run's not written.
    #[error(
        "{} holds another result ({why}); it is kept and this run's result was not written",
        .path.display()
    )]
    OtherResult {
        /// The result file.
        path: PathBuf,
        /// Where the two first differ.
        why: String,
    },
    /// The sources held no graph.
    #[error("no graphs read: the input given ({sources}) holds none")]
    NoGraphsRead {
        /// The sources, as given.
        sources: String,
    },
    /// Stopped by the stop token; the memo, if there is one, is saved.
    #[error(
        "interrupted{}{}",
        .out.as_ref().map(|p| format!(", {} not written", p.display())).unwrap_or_default(),
        memo_saved(.memo, ": the same command continues from it")
    )]
    Interrupted {
        /// The result file, not written.
        out: Option<PathBuf>,
        /// The memo file and the positions it holds.
        memo: Option<(PathBuf, usize)>,
    },
    /// Stopped by the stop token while the memo was read at the start:
    /// nothing solved, the memo file untouched.
    #[error(
        "interrupted{}; the memo in {} was being read, and is as it was",
        .out.as_ref().map(|p| format!(", {} not written", p.display())).unwrap_or_default(),
        .memo.display()
    )]
    InterruptedReadingMemo {
        /// The result file, not written.
        out: Option<PathBuf>,
        /// The memo file.
        memo: PathBuf,
    },
    /// Stopped by the stop token after every graph was solved, while the
    /// results were written: they were written in full first.
    #[error(
        "interrupted as the run ended; every graph was solved and its results are written in full{}{}",
        .out.as_ref().map(|p| format!(" ({})", p.display())).unwrap_or_default(),
        memo_saved(.memo, "")
    )]
    InterruptedAtEnd {
        /// The result file, written.
        out: Option<PathBuf>,
        /// The memo file and the positions it holds.
        memo: Option<(PathBuf, usize)>,
    },
    /// Writing the output the caller gave failed (with `--out`, the
    /// result file's failure is [`RunError::Out`]).
    #[error(transparent)]
    Write(#[from] io::Error),
    /// The result file could not be put in place.
    #[error("{}: {error}", .path.display())]
    Out {
        /// The result file.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// The memo could not be saved.
    #[error("{}: writing the memo: {error}", .path.display())]
    SaveMemo {
        /// The memo file.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
    /// The b-file could not be written.
    #[error("{}: {error}", .path.display())]
    BFile {
        /// The b-file.
        path: PathBuf,
        /// Why.
        error: io::Error,
    },
}

/// "; the memo (N positions) is saved in PATH" and `then`, if there is a memo.
fn memo_saved(memo: &Option<(PathBuf, usize)>, then: &str) -> String {
    memo.as_ref()
        .map(|(p, n)| {
            format!(
                "; the memo ({n} positions) is saved in {}{then}",
                p.display()
            )
        })
        .unwrap_or_default()
}

/// The memo's figures after a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Figures {
    /// Positions loaded from the memo file at the start.
    pub loaded: usize,
    /// Positions the memo holds at the end (saved, if it has a file).
    pub held: usize,
}

/// What a finished run found.
#[derive(Clone, Debug)]
pub struct Done {
    /// Graphs read from the sources (before any expansion into subgraphs).
    pub read: u64,
    /// The counts kept.
    pub tally: Tally,
}

/// How a run ended.
#[derive(Debug)]
pub struct Ran {
    /// The memo's figures, when the memo was read and (if it has a file) saved.
    pub figures: Option<Figures>,
    /// The outcome.
    pub result: Result<Done, RunError>,
}

impl Job {
    /// Every check before work, then the outputs locked.
    pub fn check(&self, names: Names) -> Result<Checked, JobError> {
        if self.sources.is_empty() && self.edges.is_empty() {
            return Err(JobError::NoGraphs);
        }
        let stdin = self
            .sources
            .iter()
            .filter(|s| matches!(s, Source::Stdin))
            .count()
            + self.edges.iter().filter(|e| e.as_os_str() == "-").count();
        if stdin > 1 {
            return Err(JobError::StdinTwice);
        }
        // The terms a b-file asked for would hold: `n` from .. to.
        let mut bfile_terms = None;
        if self.bfile.is_some() {
            if !(self.edges.is_empty() && self.sources.iter().all(Source::is_geng)) {
                return Err(JobError::BFileNotGeng { name: names.bfile });
            }
            if self.output != Output::Summary {
                return Err(JobError::BFileNotSummary { name: names.bfile });
            }
            // Each n counted once (a graph is counted by every source that
            // gives it), and the terms of a b-file consecutive.
            let mut ranges: Vec<(usize, usize)> = (self.sources.iter())
                .filter_map(|s| match s {
                    Source::Geng { from, to } => Some((*from, *to)),
                    _ => None,
                })
                .collect();
            ranges.sort_unstable();
            let joined = ranges.windows(2).all(|w| w[1].0 == w[0].1 + 1);
            if self.subgraphs || !joined {
                return Err(JobError::BFileRanges { name: names.bfile });
            }
            bfile_terms = ranges
                .first()
                .zip(ranges.last())
                .map(|(a, b)| (a.0 as u64, b.1 as u64));
        }
        if let Output::Tsv { moves, cost: true } = self.output
            && (moves || self.memo.is_some() || self.subgraphs)
        {
            return Err(JobError::Cost);
        }
        for s in &self.sources {
            s.check()?;
        }
        let named = [
            (&self.out, Kind::GraphResult, names.out),
            (&self.memo, Kind::GraphMemo, names.memo),
            (&self.bfile, Kind::GraphBFile, names.bfile),
        ];
        let plan: Vec<outputs::Output> = named
            .into_iter()
            .filter_map(|(path, kind, name)| Some(outputs::Output::new(path.as_ref()?, kind, name)))
            .collect();
        outputs::check(&plan)?;
        // After the output check, which refuses a file of another kind there.
        if let (Some(path), Some((from, to))) = (&self.bfile, bfile_terms)
            && !self.replace
            && crate::base::input::is_there(path)
        {
            // The terms are its data lines, `n value`: which `n`, not how
            // many (a run of other sizes writes as many other terms).
            let held: Option<Vec<u64>> =
                crate::base::text::open(path, "a b-file").ok().map(|text| {
                    std::io::BufRead::lines(text)
                        .map_while(Result::ok)
                        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
                        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
                        .collect()
                });
            if let Some(held) = held
                && let Some(&n) = held.iter().find(|&&n| !(from..=to).contains(&n))
            {
                let (path, held) = (path.clone(), held.len() as u64);
                return Err(JobError::LargerBFile {
                    path,
                    held,
                    n,
                    from,
                    to,
                });
            }
        }
        Ok(Checked {
            held: outputs::lock(&plan)?,
        })
    }

    /// The run: every graph solved and written to the result file, or to
    /// `out` if there is none; `stop` ends it early, `pool` solves,
    /// `progress` is told the graphs done so far. The memo is saved whatever
    /// the outcome, but for a memo that could not be read, a run stopped
    /// while it was read, and a memo read from its file that gained no
    /// position, the file as it was (it holds this memo already).
    pub fn run(
        &self,
        _checked: &Checked,
        stop: &Stop,
        pool: &rayon::ThreadPool,
        progress: &mut dyn FnMut(u64),
        out: &mut dyn Write,
    ) -> Ran {
        let read_memo = self
            .memo
            .as_ref()
            .is_some_and(|p| crate::base::input::is_there(p));
        // The memo file as it was before it was read: if it is so at the
        // end and the memo gained nothing, it holds this memo already.
        let file_at_start = self.memo.as_deref().and_then(crate::base::lock::state);
        let solver = match &self.memo {
            Some(path) if read_memo => match Solver::open_until(path, stop) {
                Ok(s) => s,
                Err(MemoError::Stopped) => {
                    let result = Err(RunError::InterruptedReadingMemo {
                        out: self.out.clone(),
                        memo: path.clone(),
                    });
                    return Ran {
                        figures: None,
                        result,
                    };
                }
                Err(error) => {
                    let path = path.clone();
                    let result = Err(RunError::Memo { path, error });
                    return Ran {
                        figures: None,
                        result,
                    };
                }
            },
            _ => Solver::new(),
        }
        .stop_on(stop.clone());
        let loaded = solver.memo_len();
        let mut run = Running {
            job: self,
            solver: &solver,
            stop,
            pool,
            progress,
            tally: Tally::default(),
            done: 0,
            read: 0,
        };
        let result = match &self.out {
            Some(path) => {
                let mut outcome = Ok(());
                // A result there that this run's differs from (past the first
                // line, the command) is another result: kept unless
                // replacing it is asked for. The same result is written again.
                let old = (!self.replace).then(|| Same::against(path)).flatten();
                let written = write_atomically(path, |w| {
                    writeln!(w, "# {}", self.command)?;
                    outcome = match old {
                        Some(mut same) => {
                            let ran = run.all(&mut Tee(w, &mut same));
                            ran.and_then(|()| match same.differs() {
                                None => Ok(()),
                                Some(why) => Err(RunError::OtherResult {
                                    path: path.clone(),
                                    why,
                                }),
                            })
                        }
                        None => run.all(w),
                    };
                    // A failed run leaves no file behind (and the old one intact).
                    match &outcome {
                        Ok(()) => Ok(()),
                        Err(e) => Err(io::Error::other(e.to_string())),
                    }
                });
                match (outcome, written) {
                    // The result file's own write failed: named.
                    (Err(RunError::Write(error)), _) => Err(RunError::Out {
                        path: path.clone(),
                        error,
                    }),
                    (Err(e), _) => Err(e),
                    (Ok(()), Err(error)) => Err(RunError::Out {
                        path: path.clone(),
                        error,
                    }),
                    (Ok(()), Ok(())) => Ok(()),
                }
            }
            None => run.all(out),
        };
        let (tally, read) = (run.tally, run.read);
        // The memo is saved even when a later line is malformed or the run is
        // stopped: nothing is lost. A memo read from its file that gained no
        // position (a memo only grows), the file as it was before it was
        // read, is that file's: not written again.
        let gained = !read_memo
            || solver.memo_len() != loaded
            || file_at_start.is_none()
            || self.memo.as_deref().and_then(crate::base::lock::state) != file_at_start;
        if let Some(path) = &self.memo
            && gained
            && let Err(error) = write_atomically(path, |w| solver.save(w))
        {
            let path = path.clone();
            let result = Err(RunError::SaveMemo { path, error });
            return Ran {
                figures: None,
                result,
            };
        }
        let held = solver.memo_len();
        let result = match result {
            Err(RunError::Interrupted { .. }) => Err(RunError::Interrupted {
                out: self.out.clone(),
                memo: self.memo.clone().map(|p| (p, held)),
            }),
            Err(e) => Err(e),
            Ok(()) => self.write_bfile(&tally).map(|()| Done { read, tally }),
        };
        // A stop that came once every graph was solved is heard here, its
        // files written in full (the memo's save is not cut short: it holds
        // the run's work).
        let result = match result {
            Ok(_) if stop.requested() => Err(RunError::InterruptedAtEnd {
                out: self.out.clone(),
                memo: self.memo.clone().map(|p| (p, held)),
            }),
            result => result,
        };
        Ran {
            figures: Some(Figures { loaded, held }),
            result,
        }
    }

    fn write_bfile(&self, tally: &Tally) -> Result<(), RunError> {
        let Some(path) = &self.bfile else {
            return Ok(());
        };
        write_atomically(path, |w| tally.summary.write_bfile(w, &self.command)).map_err(|error| {
            RunError::BFile {
                path: path.clone(),
                error,
            }
        })
    }
}

/// A run under way.
struct Running<'a> {
    job: &'a Job,
    solver: &'a Solver,
    stop: &'a Stop,
    pool: &'a rayon::ThreadPool,
    progress: &'a mut dyn FnMut(u64),
    tally: Tally,
    /// Graphs solved and written.
    done: u64,
    /// Graphs read from the sources.
    read: u64,
}

/// The error of a run stopped by the token ([`Job::run`] says what is kept).
fn stopped() -> RunError {
    RunError::Interrupted {
        out: None,
        memo: None,
    }
}

impl Running<'_> {
    /// Solves every graph in order, [`CHUNK`] at a time, and writes what was
    /// asked; at a malformed line, writes what came before it and stops with
    /// its error.
    fn all(&mut self, out: &mut dyn Write) -> Result<(), RunError> {
        let mut out = BufWriter::new(out);
        let output = self.job.output;
        output.write_header(&mut out)?;
        let mut items = Inputs::new(&self.job.sources, &self.job.edges);
        loop {
            let mut chunk = Vec::with_capacity(CHUNK);
            let mut error = None;
            while chunk.len() < CHUNK {
                match items.next() {
                    None => break,
                    Some(Err(e)) => {
                        error = Some(e);
                        break;
                    }
                    Some(Ok(item)) => chunk.push(item),
                }
            }
            let done = chunk.len() < CHUNK;
            self.read += chunk.len() as u64;
            if self.job.subgraphs {
                for (label, g, _) in chunk {
                    self.each_subgraph(&label, &g, &mut out)?;
                }
            } else {
                self.solve(chunk, &mut out)?;
            }
            if let Some(e) = error {
                out.flush()?;
                return Err(e.into());
            }
            if done {
                break;
            }
        }
        if self.read == 0 {
            let sources: Vec<String> = self.job.sources.iter().map(Source::to_string).collect();
            return Err(RunError::NoGraphsRead {
                sources: sources.join(" "),
            });
        }
        output.write_end(&self.tally, &mut out)?;
        out.flush()?;
        Ok(())
    }

    /// Solves a chunk and writes (or counts) its graphs.
    fn solve(&mut self, chunk: Vec<Item>, out: &mut dyn Write) -> Result<(), RunError> {
        for s in self.solve_chunk(chunk)? {
            self.done += 1;
            (self.progress)(self.done);
            self.job.output.write_one(&mut self.tally, &s, out)?;
        }
        Ok(())
    }

    /// Every subgraph of `g` solved, [`CHUNK`] at a time, then (for the
    /// [OS Conj. 8.5] check) its counts.
    fn each_subgraph(
        &mut self,
        label: &str,
        g: &super::Graph,
        out: &mut dyn Write,
    ) -> Result<(), RunError> {
        let before = self.tally.os85;
        let stop = self.stop;
        let all = (self.pool.install(|| subgraphs_or_stop(g, stop))).ok_or_else(stopped)?;
        let mut all = all
            .into_iter()
            .map(|h| (format::label(&h), h, None))
            .peekable();
        while all.peek().is_some() {
            self.solve(all.by_ref().take(CHUNK).collect(), out)?;
        }
        if self.job.output == Output::Os85 {
            self.tally.os85.since(before).write_subgraphs(label, out)?;
        }
        Ok(())
    }

    /// Solves one chunk: in parallel with one shared memo, or, for a cost,
    /// one graph at a time from an empty memo.
    fn solve_chunk(&self, chunk: Vec<Item>) -> Result<Vec<Solved>, RunError> {
        let output = self.job.output;
        if output.cost() {
            return chunk
                .into_iter()
                .map(|(label, graph, given)| {
                    let solver = Solver::new().stop_on(self.stop.clone());
                    let t = Instant::now();
                    let value =
                        (self.pool.install(|| solver.try_value(&graph))).ok_or_else(stopped)?;
                    let cost = Cost {
                        seconds: t.elapsed().as_secs_f64(),
                        peak_rss_mib: crate::base::memory::peak_rss_kib().unwrap_or(0) / 1024,
                        memo: solver.memo_len(),
                    };
                    Ok(Solved {
                        label,
                        graph,
                        given,
                        value,
                        moves: None,
                        cost: Some(cost),
                    })
                })
                .collect();
        }
        let batch: Vec<_> = chunk.iter().map(|(_, g, m)| (g, m.as_ref())).collect();
        let want = output.wants_moves();
        let results =
            (self.pool.install(|| self.solver.try_batch(&batch, want))).ok_or_else(stopped)?;
        Ok(chunk
            .into_iter()
            .zip(results)
            .map(
                |((label, graph, given), super::Solved { value, moves })| Solved {
                    label,
                    graph,
                    given,
                    value,
                    moves,
                    cost: None,
                },
            )
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeSet, HashMap};

    const NAMES: Names = Names {
        out: "out",
        memo: "memo",
        bfile: "bfile",
    };

    fn job(sources: &[&str]) -> Job {
        Job {
            sources: sources.iter().map(|s| Source::parse(s).unwrap()).collect(),
            edges: Vec::new(),
            subgraphs: false,
            output: Output::Lines { moves: false },
            out: None,
            bfile: None,
            replace: false,
            memo: None,
            command: "test".into(),
        }
    }

    fn pool() -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
    }

    /// The job run to its end on a fresh stop token: its outcome and what
    /// it wrote.
    fn run(job: &Job) -> (Ran, String) {
        let checked = job.check(NAMES).unwrap();
        let mut out = Vec::new();
        let ran = job.run(&checked, &Stop::new(), &pool(), &mut |_| {}, &mut out);
        (ran, String::from_utf8(out).unwrap())
    }

    /// Brute force from the rules, on at most 6 labelled vertices: a position
    /// is the vertices left and the edges left (bit `PAIR[u][v]`); its value
    /// is the mex over deleting one edge, or one vertex with its edges.
    struct Brute {
        memo: HashMap<(u8, u16), u32>,
    }

    /// The bit of the pair `u < v` of 6 vertices.
    fn pair(u: usize, v: usize) -> usize {
        let (u, v) = (u.min(v), u.max(v));
        (0..u).map(|a| 5 - a).sum::<usize>() + (v - u - 1)
    }

    impl Brute {
        fn value(&mut self, alive: u8, edges: u16) -> u32 {
            if let Some(&v) = self.memo.get(&(alive, edges)) {
                return v;
            }
            let mut seen = BTreeSet::new();
            for e in 0..15 {
                if edges >> e & 1 == 1 {
                    seen.insert(self.value(alive, edges & !(1 << e)));
                }
            }
            for x in 0..6 {
                if alive >> x & 1 == 1 {
                    let at: u16 = (0..6).filter(|&y| y != x).map(|y| 1 << pair(x, y)).sum();
                    seen.insert(self.value(alive & !(1 << x), edges & !at));
                }
            }
            let mex = (0..).find(|v| !seen.contains(v)).unwrap();
            self.memo.insert((alive, edges), mex);
            mex
        }
    }

    /// The edges of a graph on `n <= 6` vertices as bits.
    fn bits(edges: &[(usize, usize)]) -> u16 {
        edges.iter().map(|&(u, v)| 1 << pair(u, v)).sum()
    }

    /// The least relabelling of `edges` on vertices `0..n` (one per class).
    fn canonical(n: usize, edges: u16) -> u16 {
        let mut perm: Vec<usize> = (0..n).collect();
        let mut best = u16::MAX;
        loop {
            let mut image = 0u16;
            for u in 0..n {
                for v in u + 1..n {
                    if edges >> pair(u, v) & 1 == 1 {
                        image |= 1 << pair(perm[u], perm[v]);
                    }
                }
            }
            best = best.min(image);
            // The next permutation in lexicographic order.
            let Some(i) = (1..n).rev().find(|&i| perm[i - 1] < perm[i]) else {
                return best;
            };
            let j = (i..n).rev().find(|&j| perm[j] > perm[i - 1]).unwrap();
            perm.swap(i - 1, j);
            perm[i..].reverse();
        }
    }

    #[test]
    fn values_and_moves_are_those_of_the_rules() {
        // Every graph of these families has at most 6 vertices.
        let mut j = job(&["complete:1..6", "wheel:3..5", "path:1..6", "cycle:3..6"]);
        j.output = Output::Lines { moves: true };
        let (ran, text) = run(&j);
        let done = ran.result.unwrap();
        assert_eq!(done.read, 6 + 3 + 6 + 4);
        let mut brute = Brute {
            memo: HashMap::new(),
        };
        let mut lines = text.lines().peekable();
        for spec in ["complete:1..6", "wheel:3..5", "path:1..6", "cycle:3..6"] {
            for (label, g) in crate::graph::family::expand(spec).unwrap() {
                let alive = u8::try_from((1u16 << g.vertices()) - 1).unwrap();
                let edges = bits(&g.edge_list());
                let value = brute.value(alive, edges);
                let line = lines.next().unwrap();
                assert!(
                    line.starts_with(&format!("{label}: g = {value} (")),
                    "{line}"
                );
                // A move per edge and per vertex, each to its option's value.
                let mut seen = BTreeSet::new();
                let mut moves = 0;
                while lines.peek().is_some_and(|l| l.starts_with("  ")) {
                    let m = lines.next().unwrap();
                    let (_, v) = m.trim().split_once(" -> ").unwrap();
                    let v: u32 = v.split(' ').next().unwrap().parse().unwrap();
                    assert_eq!(m.ends_with("(winning)"), v == 0, "{label}: {m}");
                    seen.insert(v);
                    moves += 1;
                }
                assert_eq!(moves, g.edges() + g.vertices(), "{label}");
                assert_eq!((0..).find(|v| !seen.contains(v)), Some(value), "{label}");
            }
        }
        assert_eq!(lines.next(), None);
    }

    #[test]
    fn the_os85_exceptions_on_six_vertices_are_those_of_a_brute_force() {
        // Every subgraph of K_6: every graph on at most 6 vertices, once.
        let mut j = job(&["complete:6"]);
        j.subgraphs = true;
        j.output = Output::Os85;
        let (ran, text) = run(&j);
        ran.result.unwrap();
        // By brute force: every class, those with p(G) = 2 (even vertices,
        // odd edges), and those of them with no edge deletion to value 0.
        let mut brute = Brute {
            memo: HashMap::new(),
        };
        let (mut classes, mut parity_two, mut exceptions) =
            (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
        for n in 0..=6usize {
            let within: u16 = (0..n)
                .flat_map(|u| (u + 1..n).map(move |v| 1 << pair(u, v)))
                .sum();
            let alive = u8::try_from((1u16 << n) - 1).unwrap();
            for edges in 0..=u16::MAX >> 1 {
                if edges & !within != 0 {
                    continue;
                }
                let class = (n, canonical(n, edges));
                classes.insert(class);
                if n % 2 == 0 && edges.count_ones() % 2 == 1 {
                    parity_two.insert(class);
                    let to_zero = (0..15)
                        .any(|e| edges >> e & 1 == 1 && brute.value(alive, edges & !(1 << e)) == 0);
                    if !to_zero {
                        exceptions.insert(class);
                    }
                }
            }
        }
        assert_eq!(classes.len(), 1 + 1 + 2 + 4 + 11 + 34 + 156);
        // The three of doc/graphs.md.
        assert_eq!(exceptions.len(), 3);
        let printed: BTreeSet<(usize, u16)> = (text.lines())
            .filter(|l| !l.starts_with('#'))
            .map(|l| {
                let g6 = l.split('\t').next().unwrap();
                let m = crate::graph::format::parse_line(g6).unwrap();
                (m.n, canonical(m.n, bits(&m.edges)))
            })
            .collect();
        assert_eq!(printed, exceptions);
        let counts = format!(
            "{} subgraphs, {} with p(G) = 2, {} without an edge deletion to 0",
            classes.len(),
            parity_two.len(),
            exceptions.len()
        );
        let mut last = text.lines().rev();
        assert_eq!(
            last.next().unwrap(),
            format!(
                "# {} graphs checked, {}",
                classes.len(),
                &counts[counts.find(',').unwrap() + 2..]
            )
        );
        assert_eq!(last.next().unwrap(), format!("# complete:6: {counts}"));
    }

    #[test]
    fn refusals_come_before_any_work() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.txt");
        let with = |f: &dyn Fn(&mut Job)| {
            let mut j = job(&["wheel:5"]);
            j.out = Some(out.clone());
            f(&mut j);
            j.check(NAMES)
        };
        let refused = [
            with(&|j| j.sources.clear()),
            with(&|j| {
                j.output = Output::Summary;
                j.bfile = Some(dir.path().join("b.txt"));
            }),
            with(&|j| {
                j.sources = vec![Source::Geng { from: 1, to: 4 }];
                j.bfile = Some(dir.path().join("b.txt"));
            }),
            with(&|j| {
                j.output = Output::Tsv {
                    moves: false,
                    cost: true,
                };
                j.memo = Some(dir.path().join("m"));
            }),
            with(&|j| j.sources.push(Source::Family("wheel:2".into()))),
            with(&|j| j.memo = j.out.clone()),
        ];
        let refused: Vec<JobError> = refused.into_iter().map(|r| r.unwrap_err()).collect();
        assert!(matches!(refused[0], JobError::NoGraphs));
        assert!(matches!(
            refused[1],
            JobError::BFileNotGeng { name: "bfile" }
        ));
        assert!(matches!(refused[2], JobError::BFileNotSummary { .. }));
        assert!(matches!(refused[3], JobError::Cost));
        assert!(matches!(refused[4], JobError::Family(_)));
        assert!(matches!(refused[5], JobError::Outputs(_)));
        for e in &refused {
            assert!(!e.to_string().contains("--"), "{e}");
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        // Another process writing the result file holds its lock.
        let other = std::fs::File::create(crate::base::lock::lock_path(&out)).unwrap();
        other.try_lock().unwrap();
        assert!(matches!(with(&|_| {}), Err(JobError::Locked(_))));
    }

    #[test]
    fn a_run_stopped_while_its_memo_is_read_leaves_it_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let memo = dir.path().join("memo");
        let out = dir.path().join("out.txt");
        let mut j = job(&["wheel:8"]);
        j.memo = Some(memo.clone());
        run(&j).0.result.unwrap();
        let before = std::fs::read(&memo).unwrap();
        j.out = Some(out.clone());
        let checked = j.check(NAMES).unwrap();
        let stop = Stop::new();
        stop.request();
        let ran = j.run(&checked, &stop, &pool(), &mut |_| {}, &mut io::sink());
        let Err(e @ RunError::InterruptedReadingMemo { .. }) = ran.result else {
            panic!("{:?}", ran.result);
        };
        assert_eq!(
            e.to_string(),
            format!(
                "interrupted, {} not written; the memo in {} was being read, and is as it was",
                out.display(),
                memo.display()
            )
        );
        assert_eq!(std::fs::read(&memo).unwrap(), before);
        assert!(!out.exists());
    }

    #[test]
    fn a_stop_after_the_last_graph_is_heard_with_every_file_written() {
        let dir = tempfile::tempdir().unwrap();
        let memo = dir.path().join("memo");
        let out = dir.path().join("out.txt");
        let mut j = job(&["wheel:8"]);
        j.memo = Some(memo.clone());
        j.out = Some(out.clone());
        let checked = j.check(NAMES).unwrap();
        let stop = Stop::new();
        // Stopped as the one graph is done: nothing is left to solve.
        let ran = j.run(
            &checked,
            &stop,
            &pool(),
            &mut |done| {
                assert_eq!(done, 1);
                stop.request()
            },
            &mut io::sink(),
        );
        drop(checked);
        let held = ran.figures.unwrap().held;
        let Err(e @ RunError::InterruptedAtEnd { .. }) = ran.result else {
            panic!("{:?}", ran.result);
        };
        assert_eq!(
            e.to_string(),
            format!(
                "interrupted as the run ended; every graph was solved and its results are written in full ({}); the memo ({held} positions) is saved in {}",
                out.display(),
                memo.display()
            )
        );
        assert_eq!(Solver::open(&memo).unwrap().memo_len(), held);
        // The file is the result an uninterrupted run writes.
        let written = std::fs::read_to_string(&out).unwrap();
        std::fs::remove_file(&out).unwrap();
        run(&j).0.result.unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), written);
    }

    #[test]
    fn the_memo_is_saved_when_the_run_is_interrupted_or_a_line_is_malformed() {
        let dir = tempfile::tempdir().unwrap();
        let memo = dir.path().join("memo");
        let out = dir.path().join("out.txt");
        // W_7's subgraphs, then W_8's: interrupted once the first graph is done.
        let mut j = job(&["wheel:7", "wheel:8"]);
        j.subgraphs = true;
        j.output = Output::Summary;
        j.memo = Some(memo.clone());
        j.out = Some(out.clone());
        let checked = j.check(NAMES).unwrap();
        let stop = Stop::new();
        let ran = j.run(
            &checked,
            &stop,
            &pool(),
            &mut |_| stop.request(),
            &mut io::sink(),
        );
        drop(checked);
        let held = ran.figures.unwrap().held;
        assert!(held > 0);
        let Err(e @ RunError::Interrupted { .. }) = ran.result else {
            panic!("{:?}", ran.result);
        };
        assert_eq!(
            e.to_string(),
            format!(
                "interrupted, {} not written; the memo ({held} positions) is saved in {}: the same command continues from it",
                out.display(),
                memo.display()
            )
        );
        assert!(!out.exists());
        assert_eq!(Solver::open(&memo).unwrap().memo_len(), held);
        // The same job continues from the memo.
        let (again, _) = run(&j);
        assert_eq!(again.figures.unwrap().loaded, held);
        let done = again.result.unwrap();
        assert_eq!(done.read, 2);
        assert!(out.exists());
        // Once more: the memo holds every position, and is not written again.
        use std::os::unix::fs::MetadataExt;
        let stamp = |m: std::fs::Metadata| (m.ino(), m.mtime(), m.mtime_nsec());
        let before = stamp(std::fs::metadata(&memo).unwrap());
        j.out = None;
        let (same, _) = run(&j);
        assert_eq!(same.figures.unwrap().loaded, same.figures.unwrap().held);
        same.result.unwrap();
        assert_eq!(stamp(std::fs::metadata(&memo).unwrap()), before);
        // A graph (W_9) solved, then a line that is none: the memo keeps it.
        std::fs::remove_file(&memo).unwrap();
        let g6 = dir.path().join("g.g6");
        let w9 = crate::graph::family::build("wheel:9").unwrap();
        std::fs::write(
            &g6,
            format!("{}\n!!\n", crate::graph::format::to_graph6(&w9)),
        )
        .unwrap();
        let mut j = job(&[g6.to_str().unwrap()]);
        j.memo = Some(memo.clone());
        let (ran, text) = run(&j);
        assert!(matches!(
            ran.result,
            Err(RunError::Source(SourceError::Line { line: 2, .. }))
        ));
        assert!(
            text.ends_with(": g = 1 (10 vertices, 18 edges)\n"),
            "{text}"
        );
        let held = ran.figures.unwrap().held;
        assert!(held > 0);
        assert_eq!(Solver::open(&memo).unwrap().memo_len(), held);
    }
}
