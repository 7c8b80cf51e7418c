//! chomp3: exact three-rowed Chomp.
//!
//! The modules and what each uses (an arrow points at what a module uses; there
//! is no cycle, and data flows one way: engine, then table or census, then what
//! reads them):
//!
//! ```text
//! bytes        little-endian helpers of the file formats, checked uses nothing
//!              integer narrowing (bytes::narrow)
//! atomic_write files written aside, synced and renamed into place  uses nothing
//! stop         the stop token long runs look at (Ctrl-C)           uses nothing
//! path_message errors that name their file once (NamesPath)         uses nothing
//! seal         the end line (count, CRC-32) of text results read back uses nothing
//! outputs      a command's outputs checked before work: kinds, clashes -> atomic_write
//! memory       the machine's memory; a job's estimate refused past it uses nothing
//! proof        row fates, how they are known, the certificate     -> bytes
//! facts        what columns 0..=N say (diagonal, counts, minima)  -> bytes
//! engine       the recurrence for f(q,r), column blocks, its state -> bytes
//!              (engine::ranks: rows shared among processes)
//! table        the .c3t file: format, block-checked reader,        -> bytes, atomic_write, path_message, stop
//!              crash-safe writer, the upgrade of format 1
//! compute      create or extend a table (engine meets table)      -> engine, table, stop, path_message, bytes
//! census       prove each row's fate without a table, checkpoints, -> engine, proof, facts, bytes, census_file,
//!              the driver that runs one to its end (census::driver)   stop, atomic_write, huge
//! cluster      the census's ranks over MPI (feature `mpi`)         -> engine
//! census_file  census.tsv and the .c3d descriptor file            -> bytes, proof, facts, atomic_write,
//!                                                                    path_message
//! analysis     sequences, rows, checks from a table or a census   -> table, proof, facts, census_file,
//!                                                                    atomic_write, bytes
//! lookup       one f(q,r) and its source (table or census)        -> table, census_file, proof, path_message
//! position     single positions: won or lost, winning moves       -> table
//! plot         the figures (graph Chomp's from `chomp3 graph` files, -> table, analysis, proof, atomic_write,
//!              the Grundy census's from its file), the record of     graph::summary, grundy, seal, bytes
//!              what each was drawn from (plot::record)
//! graph        graph Chomp: nim-values of graphs (its own game),  -> bytes, stop
//!              the --summary table (graph::summary)
//! grundy       Sprague-Grundy values G(p,q,r): the sweep in p,     -> stop, table, proof, graph::summary,
//!              its census (retired lines, periodic tables), the      bytes, atomic_write, path_message,
//!              census of two sweeps (grundy::lag, no patterns), its  seal, memory
//!              file, and the stored table (grundy::table)
//! view         the browser viewer's server: page, tiles, JSON       -> lookup, table, census_file, proof, stop, bytes
//! huge         the binary's allocator: huge pages for large blocks uses nothing
//! ```
//!
//! The `chomp3` binary (the crate in `cli/`, one module per command) parses
//! arguments and calls these; it holds no mathematics of its own, and this
//! library depends on nothing of the command line.
//!
//! ```no_run
//! use std::path::Path;
//! use chomp3::table::Table;
//! // after `chomp3 compute --n 1000`:
//! let t = Table::open(Path::new("data/table.c3t")).unwrap();
//! assert_eq!(t.get(5, 3).unwrap(), 5); // [5,5,3] is a P-position
//! ```

#![warn(missing_docs)]
// Casts that could drop bits or a sign are refused; each that remains is
// allowed where it stands, with the reason it cannot.
#![warn(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]

pub mod atomic_write;
mod bytes;

pub mod analysis;
pub mod census;
pub mod census_file;
#[cfg(feature = "mpi")]
pub mod cluster;
pub mod compute;
pub mod engine;
pub mod facts;
pub mod graph;
pub mod grundy;
pub mod huge;
pub mod lookup;
pub mod memory;
pub mod outputs;
pub mod path_message;
pub mod plot;
pub mod position;
pub mod proof;
pub mod seal;
pub mod stop;
pub mod table;
#[cfg(test)]
mod test_rng;
pub mod view;
