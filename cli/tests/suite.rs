//! The binary's integration tests, as one test program so that they compile
//! and link once: each file of this folder is a module of it (`census_mpi.rs`,
//! which needs a build with `--features mpi`, is a program of its own).
//! `cargo test --test suite MODULE::` runs one file's tests.

mod common;
mod graph_common;

#[path = "analysis.rs"]
mod analysis;
#[path = "by_rows.rs"]
mod by_rows;
#[path = "census.rs"]
mod census;
#[path = "census_ranks.rs"]
mod census_ranks;
#[path = "census_resume.rs"]
mod census_resume;
#[path = "census_sequences.rs"]
mod census_sequences;
#[path = "cli_doc.rs"]
mod cli_doc;
#[path = "descriptor_format.rs"]
mod descriptor_format;
#[path = "edges.rs"]
mod edges;
#[path = "exact_values.rs"]
mod exact_values;
#[path = "file_safety.rs"]
mod file_safety;
#[path = "full_disk.rs"]
mod full_disk;
#[path = "graph.rs"]
mod graph;
#[path = "graph_command.rs"]
mod graph_command;
#[path = "grundy.rs"]
mod grundy;
#[path = "inputs.rs"]
mod inputs;
#[path = "layout.rs"]
mod layout;
#[path = "mutations.rs"]
mod mutations;
#[path = "no_silent_sources.rs"]
mod no_silent_sources;
#[path = "outputs.rs"]
mod outputs;
#[path = "plot_and_position.rs"]
mod plot_and_position;
#[path = "view.rs"]
mod view;
