//! Graph Chomp: `Memo`, `parse_graph6`, `nim_values`, `moves`, and `os85` over
//! the library's graph job.

use std::path::PathBuf;

use chomp3::base::path_message::NamesPath;
use chomp3::graph::{Graph, MAX_VERTICES, MemoError, Move, Multigraph, Solver};
use pyo3::exceptions::PyFileNotFoundError;
use pyo3::prelude::*;

use crate::watch::{Watcher, interruptible};
use crate::{error, guard};
use chomp3::base::stop::Stop;

/// A memo of solved graph Chomp positions, shared by the calls given it.
#[pyclass(module = "chomp3._chomp3", frozen)]
pub(crate) struct Memo {
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
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Memo> {
        // Other Python threads run meanwhile, and Ctrl-C is heard.
        let stop = Stop::new();
        guard(
            || match interruptible(py, &stop, || Solver::open_until(&path, &stop))? {
                Ok(solver) => Ok(Memo { solver }),
                // No file there, or a link to none.
                Err(e @ MemoError::NotFound(_)) => Err(PyFileNotFoundError::new_err(e.to_string())),
                Err(MemoError::Input(i)) if i.is_missing() => {
                    Err(PyFileNotFoundError::new_err(i.to_string()))
                }
                Err(e) => Err(error(e.with_path(&path))),
            },
        )
    }

    /// Writes the memo to `path` (aside, then renamed into place). A file of
    /// another kind there is refused, as `chomp3 graph --memo` refuses it,
    /// and a memo holding positions this one lacks unless `replace`.
    #[pyo3(signature = (path, replace=false))]
    fn save(&self, py: Python<'_>, path: PathBuf, replace: bool) -> PyResult<()> {
        use chomp3::graph::memo_file::{SaveError, save};
        // Other Python threads run meanwhile, and Ctrl-C is heard.
        let (solver, stop) = (&self.solver, Stop::new());
        guard(
            || match interruptible(py, &stop, || save(solver, &path, "path", replace, &stop))? {
                Ok(()) => Ok(()),
                Err(e @ (SaveError::HoldsMore(_) | SaveError::Unreadable { .. })) => {
                    Err(error(format!("{e} (pass replace=True)")))
                }
                Err(e) => Err(error(e)),
            },
        )
    }

    fn __len__(&self) -> usize {
        self.solver.memo_len()
    }
}

/// A graph from a vertex count and edges (loops and parallel edges allowed).
pub(crate) fn graph(n: usize, edges: &[(usize, usize)]) -> PyResult<Graph> {
    Ok(Graph::from_multigraph(&multigraph(n, edges)?))
}

/// The multigraph of a vertex count and edges, as given.
fn multigraph(n: usize, edges: &[(usize, usize)]) -> PyResult<Multigraph> {
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
    Ok(Multigraph {
        n,
        edges: edges.to_vec(),
    })
}

/// A graph6 or sparse6 line as (vertex count, edges).
#[pyfunction]
pub(crate) fn parse_graph6(line: &str) -> PyResult<(usize, Vec<(usize, usize)>)> {
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
pub(crate) fn nim_values(
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
        // Ctrl-C stops the solves; the memo keeps what was solved to the end.
        let stop = Stop::new();
        let solver = solver.stopping(stop.clone());
        let solved = interruptible(py, &stop, || solver.try_batch(&batch, false))?;
        let solved = solved.ok_or_else(|| error("stopped"))?;
        Ok(solved.into_iter().map(|s| s.value).collect())
    })
}

/// Every move of a graph and the value of the position it leaves:
/// (("vertex", v, v) or ("edge", u, v), value).
#[pyfunction]
#[pyo3(signature = (n, edges, memo=None))]
#[allow(clippy::type_complexity)]
pub(crate) fn moves(
    py: Python<'_>,
    n: usize,
    edges: Vec<(usize, usize)>,
    memo: Option<&Memo>,
) -> PyResult<Vec<((&'static str, usize, usize), u32)>> {
    guard(|| {
        // Deleting one of parallel edges is a move, as in `chomp3 graph`.
        let g = multigraph(n, &edges)?;
        let fresh = Solver::new();
        let solver = memo.map_or(&fresh, |m| &m.solver);
        let stop = Stop::new();
        let solver = solver.stopping(stop.clone());
        let list = interruptible(py, &stop, || solver.try_moves_as_given(&g))?;
        let list = list.ok_or_else(|| error("stopped"))?;
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

/// What [`os85`] gives: each exception (graph6, label, value), then the
/// counts (graphs checked, those with p(G) = 2, the exceptions).
type Os85 = (Vec<(String, String, u32)>, (u64, u64, u64));

/// The check of [OS Conj. 8.5] over graph sources as `chomp3 graph
/// --os85` names them (families, `geng:N`, graph6/sparse6 files), through
/// the library's graph job: the exceptions, and the counts.
#[pyfunction]
#[pyo3(signature = (sources, subgraphs=false, memo=None, threads=0, progress=None))]
pub(crate) fn os85(
    py: Python<'_>,
    sources: Vec<String>,
    subgraphs: bool,
    memo: Option<PathBuf>,
    threads: usize,
    progress: Option<PyObject>,
) -> PyResult<Os85> {
    use chomp3::graph::job::{Job, JobError, Names, RunError};
    use chomp3::graph::output::Output;
    use chomp3::graph::sources::Source;
    guard(|| {
        let sources = (sources.iter())
            .map(|s| Source::parse(s))
            .collect::<Result<Vec<_>, _>>()
            .map_err(error)?;
        let threads = chomp3::base::threads::check(threads).map_err(error)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(error)?;
        let job = Job {
            sources,
            edges: Vec::new(),
            subgraphs,
            output: Output::Os85,
            out: None,
            bfile: None,
            replace: false,
            memo,
            command: "chomp3.os85".into(),
        };
        let names = Names {
            out: "out",
            memo: "memo",
            bfile: "bfile",
        };
        let checked = job.check(names).map_err(|e| match e {
            JobError::NoGraphs => error(format!("{e}; pass at least one source")),
            e => error(e),
        })?;
        let watch = Watcher::new(progress);
        // Ctrl-C is heard every 20 ms, not only at the ticks (a chunk of a
        // few large graphs takes long between them).
        let ran = interruptible(py, &watch.stop, || {
            let mut tick = |done| watch.tick(done, 0);
            job.run(
                &checked,
                &watch.stop,
                &pool,
                &mut tick,
                &mut std::io::sink(),
            )
        })?;
        match ran.result {
            Ok(done) => {
                let found = (done.tally.exceptions.into_iter())
                    .map(|x| (x.graph6, x.label, x.value))
                    .collect();
                let c = done.tally.os85;
                Ok((found, (c.graphs, c.parity_two, c.exceptions)))
            }
            Err(
                e @ (RunError::Interrupted { .. }
                | RunError::InterruptedReadingMemo { .. }
                | RunError::InterruptedAtEnd { .. }),
            ) => Err(watch.raised().unwrap_or(error(e))),
            Err(e) => Err(error(e)),
        }
    })
}
