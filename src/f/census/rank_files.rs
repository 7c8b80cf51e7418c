//! The checkpoints of a census shared by several ranks (processes of an MPI
//! job): a file per rank and column. Rank `k` of `P` writes
//! `<base>.<k>-of-<P>.at-<column>` (aside, then renamed into place), waits
//! until every rank has written its file for that column, and only then
//! deletes its older ones. Whenever the job is killed, every rank therefore
//! holds a whole file for one common column (the newest such column is where
//! they resume), so a resumed census ends in the same bytes. Uses `Run`'s
//! checkpoint format, the engine's `ranks` for the choices all ranks share,
//! and `atomic_write`.

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use super::driver::{Checkpoints, DriverError, Saved, together};
use super::{Params, Run};
use crate::base::atomic_write::{left_aside, write_atomically};
use crate::f::engine::ranks::{self as share, Ranks};

/// The checkpoints of the ranks of one census: a file per rank and column.
pub struct RankFiles {
    /// The path the files are named after (the one-process checkpoint's path).
    pub base: PathBuf,
}

/// A failed file operation on `path`.
fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> DriverError + '_ {
    move |error| DriverError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Refuses a census in one process whose checkpoint `base` has checkpoints
/// of ranks of an MPI run beside it: continuing without them would start
/// the census again and leave them behind.
pub(crate) fn refuse_rank_files(base: &Path) -> Result<(), DriverError> {
    match rank_files(base, false)?.first() {
        None => Ok(()),
        Some(f) => Err(DriverError::Ranks(format!(
            "{} is the checkpoint of rank {} of a census on {} MPI ranks (column {}); continue it with mpirun -n {}, or delete the files {}.*-of-{}.at-*",
            f.path.display(),
            f.rank,
            f.size,
            f.column,
            f.size,
            base.display(),
            f.size
        ))),
    }
}

/// `<base>.<rank>-of-<size>.at-<column>`.
fn rank_file(base: &Path, size: u32, rank: u32, column: u32) -> PathBuf {
    let mut name = base.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{rank}-of-{size}.at-{column}"));
    base.with_file_name(name)
}

/// One rank's checkpoint file found on disk.
struct Found {
    size: u32,
    rank: u32,
    column: u32,
    path: PathBuf,
}

/// The checkpoint files of `base` in its directory; with `aside`, instead the
/// partial files that killed writers left (`atomic_write` writes
/// `.<name>.new-<pid>` first).
fn rank_files(base: &Path, aside: bool) -> Result<Vec<Found>, DriverError> {
    let dir = crate::f::table::parent_dir(base);
    let prefix = format!(
        "{}.",
        base.file_name().unwrap_or_default().to_string_lossy()
    );
    let parse = |name: &str| -> Option<(u32, u32, u32)> {
        let name = if aside { left_aside(name)? } else { name };
        let (rank, rest) = name.strip_prefix(&prefix)?.split_once("-of-")?;
        let (size, column) = rest.split_once(".at-")?;
        Some((size.parse().ok()?, rank.parse().ok()?, column.parse().ok()?))
    };
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(io_error(&dir))? {
        let path = entry.map_err(io_error(&dir))?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if let Some((size, rank, column)) = parse(&name) {
            found.push(Found {
                size,
                rank,
                column,
                path,
            });
        }
    }
    Ok(found)
}

/// Refuses ranks given different censuses (last row, column limit, batch):
/// their engines would disagree at the first hand-off. Every rank learns
/// rank 0's verdict.
fn same_census(params: Params, ranks: &dyn Ranks) -> Result<(), DriverError> {
    let bytes = |p: Params| -> Vec<u8> {
        [p.last_row, p.max_columns, p.batch]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect()
    };
    let said = |b: &[u8]| -> String {
        let x: Vec<u32> = (b.chunks_exact(4))
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        match x[..] {
            [rows, columns, batch] => {
                format!("rows 0..={rows}, at most {columns} columns, batches of {batch}")
            }
            _ => "a census this build does not know".to_string(),
        }
    };
    let mine = bytes(params);
    let verdict = share::gather(ranks, mine.clone()).map(|all| {
        let other: Vec<String> = (all.iter().enumerate())
            .filter(|(_, b)| **b != mine)
            .map(|(k, b)| format!("rank {k} of {}: {}", ranks.size(), said(b)))
            .collect();
        match other.is_empty() {
            true => Vec::new(),
            false => format!(
                "the ranks were given different censuses (rank 0 of {}: {}; {}); give every rank the same one",
                ranks.size(),
                said(&mine),
                other.join("; ")
            )
            .into_bytes(),
        }
    });
    let verdict = share::broadcast(ranks, 0, verdict.unwrap_or_default());
    match verdict.is_empty() {
        true => Ok(()),
        false => Err(DriverError::Ranks(
            String::from_utf8_lossy(&verdict).into_owned(),
        )),
    }
}

impl RankFiles {
    /// Continues from the newest column for which every rank has a checkpoint,
    /// or starts a new census when no rank has one (every rank calls this).
    /// Files that some ranks have and others not can only be a census's
    /// first checkpoint, stopped before every rank had written its own, or
    /// the last ones, stopped while the ranks removed them after writing the
    /// results: nothing can continue from them, so they are removed and a
    /// new census starts (`true` beside the run says so).
    pub fn resume_or_start(
        &self,
        params: Params,
        ranks: Arc<dyn Ranks>,
    ) -> Result<(Run, bool), DriverError> {
        same_census(params, &*ranks)?;
        let base = &self.base;
        let (size, rank) = (ranks.size(), ranks.rank());
        // Every step that reads the directory can fail on one rank alone (a
        // file appearing between the ranks' looks, a directory unreadable
        // from one node): every rank learns what each found, so that none
        // ends alone while the others wait for it.
        let cleared = match base.exists() {
            true => Err(DriverError::Ranks(format!(
                "{} is the checkpoint of a census in one process; continue it without mpirun, or delete it",
                base.display()
            ))),
            // Partial files of this rank's killed writers.
            false => rank_files(base, true).and_then(|asides| {
                (asides.iter())
                    .filter(|f| (f.size, f.rank) == (size, rank))
                    .try_for_each(|f| std::fs::remove_file(&f.path).map_err(io_error(&f.path)))
            }),
        };
        together(&*ranks, cleared)?;
        let files = rank_files(base, false).and_then(|files| {
            match files.iter().find(|f| f.size != size) {
                Some(f) => Err(DriverError::Ranks(format!(
                    "{} is a checkpoint of a census on {} ranks; continue it on {} ranks, or delete its files to start over",
                    f.path.display(),
                    f.size,
                    f.size
                ))),
                None => Ok(files),
            }
        });
        let files = together(&*ranks, files)?;
        let listed: Vec<u8> = files
            .iter()
            .filter(|f| f.rank == rank)
            .flat_map(|f| f.column.to_le_bytes())
            .collect();
        // Rank 0 finds the newest column every rank has (u64::MAX: nobody
        // has any; u64::MAX - 1: none in common; u64::MAX - 2: some ranks
        // have none).
        let choice = share::gather(&*ranks, listed).map(|all| {
            let lists: Vec<Vec<u32>> = all
                .iter()
                .map(|b| {
                    b.chunks_exact(4)
                        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
                        .collect()
                })
                .collect();
            if lists.iter().all(Vec::is_empty) {
                return u64::MAX;
            }
            if lists.iter().any(Vec::is_empty) {
                return u64::MAX - 2;
            }
            lists[0]
                .iter()
                .filter(|c| lists.iter().all(|l| l.contains(c)))
                .max()
                .map_or(u64::MAX - 1, |&c| u64::from(c))
        });
        let choice = share::broadcast(&*ranks, 0, choice.unwrap_or(0).to_le_bytes().to_vec());
        let choice = u64::from_le_bytes(choice[..8].try_into().expect("8 bytes"));
        if choice == u64::MAX {
            return Ok((Run::shared(params, ranks), false));
        }
        if choice == u64::MAX - 2 {
            // A rank gets its first file at the first save (the others wait
            // for it before removing anything) and loses its last only at
            // the end (`Checkpoints::remove`): see above.
            together(&*ranks, self.remove_older(size, rank, None))?;
            return Ok((Run::shared(params, ranks), true));
        }
        let Ok(column) = u32::try_from(choice) else {
            return Err(DriverError::Ranks(format!(
                "the ranks' checkpoint files {}.*-of-{size}.at-* have no column in common; delete them to start over",
                base.display()
            )));
        };
        let path = rank_file(base, size, rank, column);
        let loaded = crate::base::input::open(&path, super::driver::CHECKPOINT)
            .map_err(DriverError::Input)
            .and_then(|file| {
                let mut read = BufReader::with_capacity(1 << 20, file);
                Run::load_shared(&mut read, params, ranks.clone())
                    .map_err(|error| DriverError::Checkpoint { path, error })
            });
        // Every rank learns what each found (a rank that could not read its
        // file would otherwise end alone, the others waiting for it).
        together(&*ranks, loaded).map(|run| (run, false))
    }

    /// Deletes this rank's checkpoint files but the one for `keep`.
    fn remove_older(&self, size: u32, rank: u32, keep: Option<u32>) -> Result<(), DriverError> {
        for f in rank_files(&self.base, false)? {
            if f.size == size && f.rank == rank && Some(f.column) != keep {
                std::fs::remove_file(&f.path).map_err(io_error(&f.path))?;
            }
        }
        Ok(())
    }
}

impl Checkpoints for RankFiles {
    /// Writes this rank's checkpoint, waits for every rank's, then deletes
    /// this rank's older ones.
    fn save(&self, run: &mut Run) -> Result<Saved, DriverError> {
        let started = Instant::now();
        let (size, rank, column) = (run.ranks().size(), run.ranks().rank(), run.columns());
        let path = rank_file(&self.base, size, rank, column);
        let written = write_atomically(&path, |w| run.save(w)).map_err(io_error(&path));
        // Every rank has a whole file for this column from here on, or every
        // rank stops with the refusals.
        together(run.ranks(), written)?;
        together(run.ranks(), self.remove_older(size, rank, Some(column)))?;
        let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
        Ok(Saved {
            path,
            bytes,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// After rank 0 has written the census files (it calls this then; the
    /// other ranks wait here for it): every rank deletes its checkpoint files.
    fn remove(&self, ranks: &dyn Ranks) -> Result<(), DriverError> {
        share::broadcast(ranks, 0, vec![1]);
        together(ranks, self.remove_older(ranks.size(), ranks.rank(), None))
    }
}
