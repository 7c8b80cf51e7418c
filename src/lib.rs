//! chomp3: exact three-rowed Chomp.
//!
//! Three trees, one per game, over shared plumbing; the figures and the viewer
//! read what the games make. An arrow points at what a module uses; there is no
//! cycle, and data flows one way: engine, then table or census, then what reads
//! them.
//!
//! ```text
//! base              the plumbing; knows no game                   uses nothing outside base
//!   bytes           little-endian helpers of the file formats,
//!                   checked integer narrowing (bytes::narrow)
//!   atomic_write    files written aside, synced and renamed into place
//!   lock            one writer per output: a lock file beside it
//!   stop            the stop token long runs look at (Ctrl-C)
//!   path_message    errors that name their file once (NamesPath)
//!   seal            the end line (count, CRC-32) of text results read back
//!   memory          the machine's memory; a job's estimate refused past it
//!   huge            the binary's allocator: huge pages for large blocks
//!   numeric         divisors and lcm of periods
//!   lines           data lines of text results, BadLine
//!
//! f                 three-rowed Chomp's P-positions f(q,r)        -> base
//!   proof           row fates, how they are known, the certificate
//!   facts           what columns 0..=N say (diagonal, counts, minima)
//!   engine          the recurrence, column blocks, its state (chain of
//!                   windows), engine::ranks: rows shared among processes
//!   table           the .c3t file: format, block-checked reader, crash-safe
//!                   writer, the upgrade of format 1, the table by rows
//!                   (transpose) (also the .g3t container)
//!   compute         create or extend a table                  -> engine, table
//!   census          prove each row's fate without a table, the -> engine, proof, facts, census_file
//!                   job with its checkpoints (one file, or one
//!                   per rank)
//!   cluster         the census's ranks over MPI (feature `mpi`) -> engine
//!   census_file     census.tsv and the .c3d descriptor file   -> proof, facts
//!   analysis        sequences, rows, checks, reports          -> table, proof, facts, census_file
//!   lookup          one f(q,r) and its source                 -> table, census_file, proof
//!   position        single positions: won or lost, winning moves -> table, lookup
//!
//! grundy            Sprague-Grundy values G(p,q,r): the sweep,    -> base, f::table (the .g3t
//!                   its census, the census of two sweeps           container), outputs (the
//!                   (grundy::lag), its file, the stored table,     jobs' checks)
//!                   the jobs every front end runs
//!
//! graph             graph Chomp: nim-values of graphs, the        -> base
//!                   summary table (graph::summary)
//!
//! outputs           every kind of file chomp3 writes, and a       -> base (atomic_write)
//!                   command's outputs checked before work
//!
//! plot              the figures of all three, and the record of   -> f, grundy, graph::summary, base
//!                   what each was drawn from (plot::record)
//! view              the browser viewer's server                   -> f (lookup, table, census_file,
//!                                                                    proof), base
//! ```
//!
//! The `chomp3` binary (the crate in `cli/`, one module per command) parses
//! arguments and calls these; it holds no mathematics of its own, and this
//! library depends on nothing of the command line.
//!
//! ```
//! use chomp3::f::compute::DEFAULT_COMMIT_EVERY;
//! use chomp3::{Request, Stop, Table, compute, is_p, winning_moves};
//!
//! // The table of f(q, r) for 0 <= r <= q <= 100, made and read back.
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("t.c3t");
//! let request = Request {
//!     path: path.clone(),
//!     n: 100,
//!     capacity: None,
//!     threads: 1,
//!     commit_every: DEFAULT_COMMIT_EVERY,
//!     stop: Stop::new(),
//! };
//! compute(&request, &mut |_, _| {})?;
//! let t = Table::open(&path)?;
//! // Two rows: [q + 1, q] is the P-position, so f(q, 0) = q + 1.
//! assert_eq!(t.get(7, 0)?, 8);
//! assert!(is_p(&t, 8, 7, 0)? && !is_p(&t, 9, 7, 0)?);
//! // From [9, 7, 0] the one winning move is to [8, 7, 0].
//! assert_eq!(winning_moves(&t, 9, 7, 0, &Stop::new())?[0].to, [8, 7, 0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]
// Casts that could drop bits or a sign are refused; each that remains is
// allowed where it stands, with the reason it cannot.
#![warn(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]

pub mod base;
pub mod f;
pub mod graph;
pub mod grundy;
pub mod outputs;
#[cfg(feature = "plot")]
pub mod plot;
#[cfg(feature = "view")]
pub mod view;

// The front door: what a user of the library reaches for first. A table of
// f(q,r) made and read, one f(q,r) from whatever source holds it, positions,
// Sprague-Grundy values and graph Chomp; the rest is in the modules.
pub use base::stop::Stop;
pub use f::compute::{Request, compute};
pub use f::lookup::{Sources, lookup};
pub use f::position::{is_p, winning_moves};
pub use f::table::Table;
pub use graph::{Graph, Solver};
pub use grundy::nim::nim;
pub use grundy::table::GrundyTable;
