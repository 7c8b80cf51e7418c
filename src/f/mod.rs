//! Three-rowed Chomp's P-positions: the table `f(q,r)` and the census that
//! proves each row's fate. The engine computes columns; a table file stores
//! them or the census proves rows without one; analysis, lookups and single
//! positions read the results. Uses `base` only.

pub mod analysis;
pub mod census;
pub mod census_file;
#[cfg(feature = "mpi")]
pub mod cluster;
pub mod compute;
pub mod engine;
pub mod facts;
pub mod lookup;
pub mod position;
pub mod proof;
pub mod table;
