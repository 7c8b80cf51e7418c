//! Argument groups shared by several commands, declared once and flattened into
//! each, with the helpers that turn them into opened files.

use super::Shown;
use std::path::{Path, PathBuf};

use anyhow::Result;
use chomp3::base::path_message::NamesPath;
use chomp3::f::census_file::Descriptors;
use chomp3::f::lookup::Named;
use chomp3::f::table::Table;

pub use chomp3::f::lookup::{DEFAULT_CENSUS, DEFAULT_TABLE};

/// `--table PATH`.
#[derive(clap::Args, Clone, Debug)]
pub struct TableArg {
    /// Table file [default: data/table.c3t]
    #[arg(long = "table", value_name = "PATH")]
    table: Option<PathBuf>,
}

impl TableArg {
    /// The path, given or default.
    pub fn path(&self) -> PathBuf {
        self.table
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_TABLE))
    }

    /// The path and whether it was given.
    pub fn named(&self) -> Named {
        Named {
            path: self.path(),
            named: self.table.is_some(),
        }
    }

    /// Opens the table; the error names the file once.
    pub fn open(&self) -> Result<Table> {
        open_table(&self.path())
    }

    /// Opens the table stored by columns or by rows (`chomp3 transpose`),
    /// for the commands that read cells and rows; the error names the file once.
    pub fn open_f(&self) -> Result<Table> {
        let path = self.path();
        Table::options()
            .either_f()
            .mapped(true)
            .open(&path)
            .map_err(|e| file_error(&path, e))
    }
}

/// Opens a table; the error names the file once.
pub fn open_table(path: &Path) -> Result<Table> {
    Table::open(path).map_err(|e| file_error(path, e))
}

/// A table's or a census file's error as one sentence that names the file once.
pub fn file_error(path: &Path, e: impl NamesPath + std::error::Error + 'static) -> anyhow::Error {
    let message = e.with_path(path);
    match super::advice::one(&e) {
        Some(advice) => anyhow::anyhow!("{message}; {advice}"),
        None => anyhow::anyhow!(message),
    }
}

/// What a census is used for beside a table.
pub const TABLE_GAPS: &str = "for rows the table cannot settle";

/// `--census PATH`, census descriptors for rows the table cannot settle.
#[derive(clap::Args, Clone, Debug)]
pub struct CensusArg {
    /// Census descriptor file for rows the table cannot settle; the default one is
    /// used only if it exists, and then said so [default:
    /// data/census-1000000/census.c3d.xz]
    #[arg(long = "census", value_name = "PATH")]
    census: Option<PathBuf>,
}

impl CensusArg {
    /// The path and whether it was given.
    pub fn named(&self) -> Named {
        Named {
            path: self
                .census
                .clone()
                .unwrap_or_else(|| PathBuf::from(DEFAULT_CENSUS)),
            named: self.census.is_some(),
        }
    }

    /// The note for a command that found no census to use beside its table.
    pub fn say_none(&self) {
        note!(
            "chomp3: no census at {}: rows the table cannot settle are left open (give --census PATH to use one)",
            self.named().path.shown()
        );
    }

    /// The path given with `--census`, if one was.
    pub fn given(&self) -> Option<&Path> {
        self.census.as_deref()
    }

    /// The descriptors to use: the named file (which must open), or the default
    /// one if it exists. Says on stderr which census is used, and `what` for.
    pub fn open(&self, what: &str) -> Result<Option<Descriptors>> {
        let Named { path, named } = self.named();
        if !named && !path.exists() {
            return Ok(None);
        }
        let d = Descriptors::open(&path).map_err(|e| file_error(&path, e))?;
        note!(
            "chomp3: using the census {} (rows 0..{}) {what}",
            path.shown(),
            d.rows() as u64 - 1
        );
        Ok(Some(d))
    }
}

/// `--threads T`.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct ThreadsArg {
    /// Worker threads; 0 is one per core [default: one per core]
    #[arg(long = "threads", value_name = "T")]
    threads: Option<usize>,
}

impl ThreadsArg {
    /// The count for rayon (0: one per core), if the machine should run it.
    pub fn get(&self) -> Result<usize> {
        let asked = self.threads.unwrap_or(0);
        chomp3::base::threads::check(asked).map_err(|e| match e.from_env {
            true => anyhow::anyhow!("{e}; give --threads, or a smaller RAYON_NUM_THREADS"),
            false => anyhow::anyhow!("--threads {asked}: {e}"),
        })
    }

    /// A thread pool of that size.
    pub fn pool(&self) -> Result<rayon::ThreadPool> {
        let n = self.get()?;
        chomp3::base::threads::room_for(n)
            .map_err(|e| anyhow::anyhow!("{e}; give fewer with --threads"))?;
        // Worded here: rayon's error repeats its cause in its source.
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .map_err(|e| {
                anyhow::anyhow!("cannot start {n} worker threads: {e}; give fewer with --threads")
            })
    }
}

/// A number of seconds (`--checkpoint-secs`, `--commit-secs`), as the
/// library takes one.
pub fn seconds(s: &str) -> Result<std::time::Duration, String> {
    chomp3::base::interval::parse(s).map_err(|e| format!("give {e}"))
}

/// `--lines Q` of the Grundy censuses: a `u32` of at most 1000 (the relative
/// sets hold 128 words).
pub fn grundy_lines(s: &str) -> Result<u32, String> {
    let q: u32 = s.parse().map_err(|e| format!("{e}"))?;
    if q > 1000 {
        return Err("more than the Grundy censuses handle (at most 1000)".into());
    }
    Ok(q)
}

/// `--quiet`.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct QuietArg {
    /// No progress bar
    #[arg(long = "quiet")]
    pub quiet: bool,
}
