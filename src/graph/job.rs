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
use super::format::to_graph6;
use super::output::{Cost, Output, Solved, Tally};
use super::sources::{Inputs, Item, Source, SourceError};
use super::{MemoError, Solver, subgraphs_or_stop};
use crate::base::atomic_write::write_atomically;
use crate::base::lock::{Held, LockError};
use crate::base::path_message::NamesPath;
use crate::base::stop::Stop;
use crate::outputs::{self, Kind, OutputError};

/// Graphs read and solved together (in parallel) before their lines are written.
pub const CHUNK: usize = 4096;

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
        .memo.as_ref().map(|(p, n)| format!(
            "; the memo ({n} positions) is saved in {}: the same command continues from it",
            p.display()
        )).unwrap_or_default()
    )]
    Interrupted {
        /// The result file, not written.
        out: Option<PathBuf>,
        /// The memo file and the positions it holds.
        memo: Option<(PathBuf, usize)>,
    },
    /// Writing the output failed.
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
        if self.bfile.is_some() {
            if !(self.edges.is_empty() && self.sources.iter().all(Source::is_geng)) {
                return Err(JobError::BFileNotGeng { name: names.bfile });
            }
            if self.output != Output::Summary {
                return Err(JobError::BFileNotSummary { name: names.bfile });
            }
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
        Ok(Checked {
            held: outputs::lock(&plan)?,
        })
    }

    /// The run: every graph solved and written to the result file, or to
    /// `out` if there is none; `stop` ends it early, `pool` solves,
    /// `progress` is told the graphs done so far. The memo is saved whatever
    /// the outcome (but for a memo that could not be read).
    pub fn run(
        &self,
        _checked: &Checked,
        stop: &Stop,
        pool: &rayon::ThreadPool,
        progress: &mut dyn FnMut(u64),
        out: &mut dyn Write,
    ) -> Ran {
        let solver = match &self.memo {
            Some(path) if crate::base::input::is_there(path) => match Solver::open(path) {
                Ok(s) => s,
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
                let written = write_atomically(path, |w| {
                    writeln!(w, "# {}", self.command)?;
                    outcome = run.all(w);
                    // A failed run leaves no file behind (and the old one intact).
                    match &outcome {
                        Ok(()) => Ok(()),
                        Err(e) => Err(io::Error::other(e.to_string())),
                    }
                });
                match (outcome, written) {
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
        // stopped: nothing is lost.
        if let Some(path) = &self.memo
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
    /// [OS] 8.5 check) its counts.
    fn each_subgraph(
        &mut self,
        label: &str,
        g: &super::Graph,
        out: &mut dyn Write,
    ) -> Result<(), RunError> {
        let before = self.tally.os85;
        let stop = self.stop;
        let all = (self.pool.install(|| subgraphs_or_stop(g, stop))).ok_or_else(stopped)?;
        let mut all = all.into_iter().map(|h| (to_graph6(&h), h, None)).peekable();
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
                    let value = (self.pool.install(|| solver.try_value(&graph)))
                        .ok_or_else(stopped)?;
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
        let results = (self.pool.install(|| self.solver.try_batch(&batch, want)))
            .ok_or_else(stopped)?;
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
