//! chomp3: exact three-rowed Chomp.
//!
//! The [`engine`] computes the table `f(q,r)` of P-positions (SPEC section 2), the
//! [`table`] module stores it in a memory-mapped file, and [`compute`] connects the
//! two. [`analysis`] reads a table into sequences, a row census and checks;
//! [`plot`] draws them; [`position`] answers single positions; [`census`] proves
//! each row's fate without a table, and [`census_file`] stores those proofs. Data
//! flows one way: engine, then table (or census), then whatever reads them.
//!
//! ```no_run
//! use std::path::Path;
//! use chomp3::table::Table;
//! // after `chomp3 compute --n 1000`:
//! let t = Table::open(Path::new("data/table.c3t")).unwrap();
//! assert_eq!(t.get(5, 3).unwrap(), 5); // [5,5,3] is a P-position
//! ```

#![warn(missing_docs)]

pub mod analysis;
pub mod census;
pub mod census_file;
pub mod compute;
pub mod engine;
pub mod plot;
pub mod position;
pub mod table;
