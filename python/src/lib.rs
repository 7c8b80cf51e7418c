//! The native module `chomp3._chomp3`: thin wrappers over the chomp3 library,
//! no mathematics of its own. The Python package (`pysrc/chomp3/`) builds its
//! public API on these: argument conversion from networkx graphs, numpy
//! structured arrays and progress bars live there.
//!
//! Every entry point runs inside [`guard`], so a panic in the library becomes a
//! `chomp3.Error` instead of crossing into Python. Files that are missing raise
//! `FileNotFoundError`; damaged or foreign files and questions that cannot be
//! answered raise `chomp3.Error` (a `ValueError`), each with the command line's
//! one-line message.

mod census;
mod graph;
mod grundy;
mod grundy_jobs;
mod lookup;
mod oom;
mod table;
mod watch;

use std::panic::{AssertUnwindSafe, catch_unwind};

use chomp3::graph::{Graph, MAX_VERTICES};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    chomp3,
    Error,
    PyValueError,
    "A damaged or foreign file, or a question chomp3 cannot answer (the message says which)."
);

fn error(message: impl ToString) -> PyErr {
    Error::new_err(message.to_string())
}

/// Runs `f`; a panic becomes `chomp3.Error`.
fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("unknown");
        Err(error(format!(
            "internal error in chomp3 (please report it): {what}"
        )))
    })
}

/// Panics inside the library on purpose, for the test that a panic becomes
/// `chomp3.Error`.
#[pyfunction]
fn _panic_for_test() -> PyResult<()> {
    guard(|| {
        Graph::empty(MAX_VERTICES + 1); // the library asserts its vertex limit
        Ok(())
    })
}

#[global_allocator]
static ALLOCATOR: oom::Reserved = oom::Reserved;

#[pymodule]
fn _chomp3(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // rayon's pool (the graph solves) started now, while there is room, and
    // not by the first call that needs it, which may run under a process
    // limit that leaves none (its panic there would end the call). A pool
    // that cannot start now is tried again by that call, as before.
    let _ = chomp3::base::threads::global();
    m.add("Error", m.py().get_type::<Error>())?;
    m.add_class::<table::Table>()?;
    m.add_class::<census::Census>()?;
    m.add_class::<graph::Memo>()?;
    m.add_class::<grundy::GrundyCensus>()?;
    m.add_class::<grundy::GrundyTable>()?;
    m.add_function(wrap_pyfunction!(lookup::lookup, m)?)?;
    m.add_function(wrap_pyfunction!(lookup::position, m)?)?;
    m.add_function(wrap_pyfunction!(grundy::grundy, m)?)?;
    m.add_function(wrap_pyfunction!(grundy::grundy_lookup, m)?)?;
    m.add_function(wrap_pyfunction!(grundy::grundy_line, m)?)?;
    m.add_function(wrap_pyfunction!(grundy::grundy_table, m)?)?;
    m.add_function(wrap_pyfunction!(grundy_jobs::grundy_periods, m)?)?;
    m.add_function(wrap_pyfunction!(grundy_jobs::grundy_census, m)?)?;
    m.add_function(wrap_pyfunction!(table::compute, m)?)?;
    m.add_function(wrap_pyfunction!(table::transpose, m)?)?;
    m.add_function(wrap_pyfunction!(census::census, m)?)?;
    m.add_function(wrap_pyfunction!(graph::parse_graph6, m)?)?;
    m.add_function(wrap_pyfunction!(graph::nim_values, m)?)?;
    m.add_function(wrap_pyfunction!(graph::moves, m)?)?;
    m.add_function(wrap_pyfunction!(graph::os85, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    Ok(())
}
