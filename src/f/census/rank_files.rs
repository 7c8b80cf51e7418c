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
use super::{CheckpointError, Params, Run};
use crate::base::atomic_write::{left_by_the_dead, write_atomically};
use crate::base::lock::MAX_NAME;
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

/// Removes `path`; one already gone (another process removed it since it was
/// listed) is no error.
fn remove(path: &Path) -> Result<(), DriverError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_error(path)(e)),
        _ => Ok(()),
    }
}

/// Refuses a census in one process whose checkpoint `base` has checkpoints
/// of ranks of an MPI run beside it: continuing without them would start
/// the census again and leave them behind.
pub(crate) fn refuse_rank_files(base: &Path) -> Result<(), DriverError> {
    let files = rank_files(base, false)?;
    let Some(f) = files.first() else {
        // No rank's file: what killed ranks left written aside has nothing
        // to go with, and goes (once their processes have ended).
        for f in rank_files(base, true)? {
            if f.pid.is_some_and(|pid| left_by_the_dead(pid, &f.path)) {
                remove(&f.path)?;
            }
        }
        return Ok(());
    };
    // Only a set with a file for every rank can be continued.
    let whole = (0..f.size).all(|rank| files.iter().any(|g| (g.size, g.rank) == (f.size, rank)));
    let then = match whole {
        true => format!("continue it with mpirun -n {}, or", f.size),
        false => "some of its ranks have no file, so nothing can continue it;".to_string(),
    };
    Err(DriverError::Ranks(format!(
        "{} is the checkpoint of rank {} of a census on {} MPI ranks (column {}); {then} delete the files {}.*-of-{}.at-* to start over",
        f.path.display(),
        f.rank,
        f.size,
        f.column,
        base.display(),
        f.size
    )))
}

/// `<base>.<rank>-of-<size>.at-<column>`.
fn rank_file(base: &Path, size: u32, rank: u32, column: u32) -> PathBuf {
    let mut name = base.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{rank}-of-{size}.at-{column}"));
    base.with_file_name(name)
}

/// Refuses a checkpoint path whose ranks' files would not fit the limit of
/// an output's name ([`MAX_NAME`]: room for `.NAME.new-PID`, which each is
/// written as first), the longest being the last rank's at the last column
/// the census may reach: found at the start, not at a checkpoint that no
/// run could then get past.
fn names_fit(base: &Path, params: Params, size: u32) -> Result<(), DriverError> {
    let last = params.max_columns.saturating_add(params.batch);
    let longest = rank_file(base, size, size.saturating_sub(1), last);
    let bytes = longest.file_name().map_or(0, |n| n.len());
    if bytes <= MAX_NAME {
        return Ok(());
    }
    Err(DriverError::Ranks(format!(
        "{}: its ranks' checkpoints have names of up to {bytes} bytes ({}); a name may have at most {MAX_NAME}, as chomp3 writes .NAME.new-PID beside it and a file name has at most 255; give the checkpoint a shorter name",
        base.display(),
        longest.file_name().unwrap_or_default().to_string_lossy()
    )))
}

/// A number as chomp3 writes it in a file's name: decimal digits, no sign,
/// no leading zero (other names that read as the same number are not its).
fn number(s: &str) -> Option<u32> {
    let plain = s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    plain.then(|| s.parse().ok()).flatten()
}

/// One rank's checkpoint file found on disk.
struct Found {
    size: u32,
    rank: u32,
    column: u32,
    path: PathBuf,
    /// For a file left aside, the process id in its name.
    pid: Option<u32>,
}

/// The checkpoint files of `base` in its directory; with `aside`, instead the
/// partial files that writers left (`atomic_write` writes `.<name>.new-<pid>`
/// first). Names are compared as the bytes they are.
fn rank_files(base: &Path, aside: bool) -> Result<Vec<Found>, DriverError> {
    let dir = crate::f::table::parent_dir(base);
    let mut prefix = base
        .file_name()
        .unwrap_or_default()
        .as_encoded_bytes()
        .to_vec();
    prefix.push(b'.');
    let parse = |name: &[u8]| -> Option<(u32, u32, u32, Option<u32>)> {
        let (name, pid) = match aside {
            false => (name, None),
            true => {
                let inner = name.strip_prefix(b".")?;
                let at = inner.windows(5).rposition(|w| w == b".new-")?;
                let pid = number(std::str::from_utf8(&inner[at + 5..]).ok()?)?;
                (&inner[..at], Some(pid))
            }
        };
        let rest = std::str::from_utf8(name.strip_prefix(&prefix[..])?).ok()?;
        let (rank, rest) = rest.split_once("-of-")?;
        let (size, column) = rest.split_once(".at-")?;
        let (size, rank) = (number(size)?, number(rank)?);
        // No census runs on no rank, nor has a rank past its last.
        (rank < size).then_some(())?;
        Some((size, rank, number(column)?, pid))
    };
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(io_error(&dir))? {
        let path = entry.map_err(io_error(&dir))?.path();
        let name = path.file_name().unwrap_or_default().as_encoded_bytes();
        if let Some((size, rank, column, pid)) = parse(name) {
            found.push(Found {
                size,
                rank,
                column,
                path,
                pid,
            });
        }
    }
    Ok(found)
}

/// Refuses ranks that do not see the checkpoints' directory as one
/// directory (each started in its own, or one on a file system the others
/// do not share), or that were given other checkpoint names: their
/// checkpoints would be split, and each place would seem to hold files of
/// some ranks only. Rank 0 makes a file of a name never used before beside
/// its checkpoint, every rank looks for it beside its own, and rank 0
/// removes it. (A new name is looked up afresh even on file
/// systems that cache what they have seen.)
fn same_directory(base: &Path, ranks: &dyn Ranks) -> Result<(), DriverError> {
    let dir = crate::f::table::parent_dir(base);
    let mut stem = std::ffi::OsString::from(".");
    stem.push(base.file_name().unwrap_or_default());
    stem.push(".ranks-");
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let suffix = format!("{}-{nanos}", std::process::id());
    let probe = (ranks.rank() == 0).then(|| {
        let mut name = stem.clone();
        name.push(&suffix);
        let path = dir.join(&name);
        remove_dead_probes(base);
        std::fs::File::create(&path).map(|_| path)
    });
    // Each rank looks for the name its own checkpoint's path gives, so that
    // ranks given other names in one directory are refused too.
    let named = match &probe {
        Some(Ok(_)) => suffix.into_bytes(),
        _ => Vec::new(),
    };
    let named = share::broadcast(ranks, 0, named);
    let made: Option<PathBuf> = probe.as_ref().and_then(|p| p.as_ref().ok().cloned());
    let seen = match probe {
        Some(made) => made.map(|_| ()).map_err(io_error(&dir)),
        // Rank 0 could not make it: its error is the one said.
        None if named.is_empty() => Ok(()),
        None => {
            let mut name = stem.clone();
            name.push(String::from_utf8_lossy(&named).as_ref());
            match dir.join(name).exists() {
                true => Ok(()),
                false => Err(DriverError::Ranks(format!(
                    "{}: a file rank 0 made beside its checkpoint is not beside this rank's; give every rank the same checkpoint, in the same directory, on a file system they all share",
                    base.display()
                ))),
            }
        }
    };
    let seen = together(ranks, seen);
    if let Some(path) = made {
        let _ = std::fs::remove_file(path);
    }
    seen
}

/// Removes the probe files of [`same_directory`] that killed rank 0s left
/// beside `base` (not those of a process that may still run: a killed one
/// not yet reaped when a census starts again is removed at its end).
fn remove_dead_probes(base: &Path) {
    let dir = crate::f::table::parent_dir(base);
    let mut stem = std::ffi::OsString::from(".");
    stem.push(base.file_name().unwrap_or_default());
    stem.push(".ranks-");
    let prefix = stem.to_string_lossy().into_owned();
    crate::base::atomic_write::remove_left_by_the_dead(&dir, |file| {
        file.strip_prefix(&prefix)?.split_once('-')?.0.parse().ok()
    });
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

/// How the ranks begin, as rank 0 decides it from the checkpoint files it
/// sees (every rank sees the same: `same_directory`).
#[derive(Debug, PartialEq, Eq)]
enum Begin {
    /// No rank has a file: a new census.
    New,
    /// Some ranks have files, others none: removed, and a new census.
    LeftOver,
    /// Every rank continues from its file for this column.
    At(u32),
    /// Nothing can begin (why).
    Refused(String),
}

impl Begin {
    /// From the `(rank, column)` of every checkpoint file of a census on
    /// `size` ranks whose files are named after `base`.
    fn decide(pairs: &[(u32, u32)], size: u32, base: &str) -> Begin {
        if pairs.is_empty() {
            return Begin::New;
        }
        let columns = |rank: u32| pairs.iter().filter(move |p| p.0 == rank).map(|p| p.1);
        if (0..size).any(|rank| columns(rank).next().is_none()) {
            return Begin::LeftOver;
        }
        // The newest column every rank has.
        match columns(0)
            .filter(|&c| (1..size).all(|rank| columns(rank).any(|x| x == c)))
            .max()
        {
            Some(c) => Begin::At(c),
            None => Begin::Refused(format!(
                "the ranks' checkpoint files {base}.*-of-{size}.at-* have no column in common; delete them to start over"
            )),
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        match self {
            Begin::New => vec![0],
            Begin::LeftOver => vec![1],
            Begin::At(c) => [&[2][..], &c.to_le_bytes()].concat(),
            Begin::Refused(said) => [&[3][..], said.as_bytes()].concat(),
        }
    }

    fn from_bytes(b: &[u8]) -> Begin {
        match b.split_first() {
            Some((0, _)) => Begin::New,
            Some((1, _)) => Begin::LeftOver,
            Some((2, c)) => Begin::At(u32::from_le_bytes(c.try_into().expect("4 bytes"))),
            Some((_, said)) => Begin::Refused(String::from_utf8_lossy(said).into_owned()),
            None => Begin::Refused("rank 0 said nothing".to_string()),
        }
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
        together(&*ranks, names_fit(&self.base, params, ranks.size()))?;
        same_directory(&self.base, &*ranks)?;
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
            // Partial files this rank's killed writers left (not those of
            // a process that runs); and, by rank 0, those of a census on
            // another number of ranks of which no file is left (started
            // over), as in one process (`refuse_rank_files`).
            false => rank_files(base, true).and_then(|asides| {
                let whole = rank_files(base, false)?;
                let others_gone = |f: &Found| {
                    rank == 0 && f.size != size && !whole.iter().any(|g| g.size == f.size)
                };
                (asides.iter())
                    .filter(|f| (f.size, f.rank) == (size, rank) || others_gone(f))
                    .filter(|f| f.pid.is_some_and(|pid| left_by_the_dead(pid, &f.path)))
                    .try_for_each(|f| remove(&f.path))
            }),
        };
        together(&*ranks, cleared)?;
        let files = rank_files(base, false).and_then(|files| {
            // A file of another program under a rank checkpoint's name is
            // no checkpoint: kept, never removed as a census's leftover.
            let foreign = files.iter().find(|f| {
                !matches!(
                    crate::outputs::found(&f.path),
                    Ok(crate::outputs::Found::Kind(crate::outputs::Kind::CensusCheckpoint))
                )
            });
            if let Some(f) = foreign {
                return Err(DriverError::Ranks(format!(
                    "{} is named as a rank's census checkpoint but is not one (another program's file, or one damaged); it is kept: move it away to run this census",
                    f.path.display()
                )));
            }
            // Told by its name, which is what the ranks go by (a file
            // copied to another name is refused when read).
            match files.iter().find(|f| f.size != size) {
                Some(f) => Err(DriverError::Ranks(format!(
                    "{} is named as a checkpoint of a census on {} ranks; continue it on {} ranks, or delete its files to start over",
                    f.path.display(),
                    f.size,
                    f.size
                ))),
                None => Ok(files),
            }
        });
        let files = together(&*ranks, files)?;
        // Every rank sees this directory as rank 0 does (`same_directory`),
        // and no other census writes in it (rank 0 holds its lock): rank 0
        // decides from the files it sees and tells every rank.
        let verdict = (rank == 0).then(|| {
            let seen: Vec<(u32, u32)> = (files.iter())
                .filter(|f| f.rank < size)
                .map(|f| (f.rank, f.column))
                .collect();
            Begin::decide(&seen, size, &base.display().to_string()).to_bytes()
        });
        let verdict = share::broadcast(&*ranks, 0, verdict.unwrap_or_default());
        let column = match Begin::from_bytes(&verdict) {
            Begin::New => return Ok((Run::shared(params, ranks), false)),
            Begin::LeftOver => {
                // A rank gets its first file at the first save (the others
                // wait for it before removing anything) and loses its last
                // only at the end (`Checkpoints::remove`): see above.
                together(&*ranks, self.remove_older(size, rank, None))?;
                return Ok((Run::shared(params, ranks), true));
            }
            Begin::Refused(said) => return Err(DriverError::Ranks(said)),
            Begin::At(column) => column,
        };
        let path = rank_file(base, size, rank, column);
        let loaded = crate::base::input::open(&path, super::driver::CHECKPOINT)
            .map_err(DriverError::Input)
            .and_then(|file| {
                let mut read = BufReader::with_capacity(1 << 20, file);
                let run = Run::load_shared(&mut read, params, ranks.clone());
                // A file renamed by hand: the ranks would meet at different
                // columns and wait for each other without end.
                let run = run.and_then(|run| match run.columns() {
                    found if found == column => Ok(run),
                    found => Err(CheckpointError::OtherColumn {
                        found,
                        named: column,
                    }),
                });
                run.map_err(|error| DriverError::Checkpoint { path, error })
            });
        // Every rank learns what each found (a rank that could not read its
        // file would otherwise end alone, the others waiting for it).
        let run = together(&*ranks, loaded)?;
        // Files of later columns are of a run killed while its ranks saved
        // (not every rank has one, or the census would resume there). Where
        // the chunks move between ranks depends on the work's timing, so
        // this run may save other files at those columns: left, some of
        // them could later make a whole set with files of this run, which
        // would not fit together.
        together(&*ranks, self.remove_newer(size, rank, column))?;
        Ok((run, false))
    }

    /// Deletes this rank's checkpoint files of columns after `column`.
    fn remove_newer(&self, size: u32, rank: u32, column: u32) -> Result<(), DriverError> {
        for f in rank_files(&self.base, false)? {
            if f.size == size && f.rank == rank && f.column > column {
                remove(&f.path)?;
            }
        }
        Ok(())
    }

    /// Deletes this rank's checkpoint files but the one for `keep`, and
    /// those of its checkpoints that a killed process of it left written
    /// aside (`.NAME.new-PID`, of a column no later run saves at, and so
    /// removes, again).
    fn remove_older(&self, size: u32, rank: u32, keep: Option<u32>) -> Result<(), DriverError> {
        for f in rank_files(&self.base, false)? {
            if f.size == size && f.rank == rank && Some(f.column) != keep {
                remove(&f.path)?;
            }
        }
        // (At the start too, but a killed process not yet reaped then
        // still runs.)
        for f in rank_files(&self.base, true)? {
            let dead = f.pid.is_some_and(|pid| left_by_the_dead(pid, &f.path));
            if (f.size, f.rank) == (size, rank) && dead {
                remove(&f.path)?;
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
        if ranks.rank() == 0 {
            remove_dead_probes(&self.base);
        }
        together(ranks, self.remove_older(ranks.size(), ranks.rank(), None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The id of a process that has ended (and been waited for).
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        child.wait().unwrap();
        child.id()
    }

    /// A rank's checkpoint written aside by a killed process of it (not yet
    /// reaped when the next run began) goes when that rank next saves or
    /// ends, or a census starts afresh there; a running process's stays.
    #[test]
    fn a_ranks_checkpoint_left_aside_by_a_dead_process_is_removed_later() {
        let dir = tempfile::tempdir().unwrap();
        let files = RankFiles {
            base: dir.path().join("c.c3k"),
        };
        let (dead, live) = (dead_pid(), std::process::id());
        let aside = |rank: u32, pid: u32| {
            let path = dir
                .path()
                .join(format!(".c.c3k.{rank}-of-2.at-20160.new-{pid}"));
            std::fs::write(&path, b"part of a checkpoint").unwrap();
            path
        };
        let (gone, other_rank, running) = (aside(1, dead), aside(0, dead), aside(1, live));
        files.remove_older(2, 1, None).unwrap();
        assert!(!gone.exists());
        assert!(other_rank.exists() && running.exists());
        // A census started afresh in one process, no rank's file left: the
        // dead one's aside goes too.
        refuse_rank_files(&files.base).unwrap();
        assert!(!other_rank.exists() && running.exists());
    }

    /// The probe file a killed rank 0 left (its process not yet reaped when
    /// the census started again) goes at the end of the census.
    #[test]
    fn a_dead_rank_0s_probe_goes_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("c.c3k");
        let probe = dir
            .path()
            .join(format!(".c.c3k.ranks-{}-12345", dead_pid()));
        std::fs::write(&probe, b"").unwrap();
        std::thread::scope(|s| {
            for rank in crate::f::engine::ranks::Local::group(2) {
                let files = RankFiles { base: base.clone() };
                s.spawn(move || files.remove(&rank).unwrap());
            }
        });
        assert!(!probe.exists());
    }

    /// A census started over on two ranks, where one on three was killed
    /// and its files removed, removes what its dead processes left aside;
    /// while a file of the three ranks is left, nothing of theirs goes.
    #[test]
    fn asides_of_a_census_on_other_ranks_go_once_its_files_are_gone() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("c.c3k");
        let aside = dir
            .path()
            .join(format!(".c.c3k.2-of-3.at-5040.new-{}", dead_pid()));
        std::fs::write(&aside, b"part of a checkpoint").unwrap();
        let params = Params {
            last_row: 100,
            max_columns: 5040,
            batch: 2520,
        };
        let start = || {
            std::thread::scope(|s| {
                let runs: Vec<_> = crate::f::engine::ranks::Local::group(2)
                    .into_iter()
                    .map(|rank| {
                        let files = RankFiles { base: base.clone() };
                        s.spawn(move || files.resume_or_start(params, Arc::new(rank)).map(|_| ()))
                    })
                    .collect();
                runs.into_iter()
                    .map(|r| r.join().unwrap())
                    .collect::<Vec<_>>()
            })
        };
        let kept = dir.path().join("c.c3k.0-of-3.at-2520");
        std::fs::write(&kept, b"a rank's file").unwrap();
        assert!(start().iter().all(|r| r.is_err()), "refused");
        assert!(aside.exists() && kept.exists());
        std::fs::remove_file(&kept).unwrap();
        assert!(start().iter().all(|r| r.is_ok()));
        assert!(!aside.exists(), "the dead process's aside is removed");
    }

    #[test]
    fn the_ranks_begin_as_the_files_they_all_see_allow() {
        let decide = |pairs: &[(u32, u32)]| Begin::decide(pairs, 2, "c.c3k");
        assert_eq!(
            decide(&[(0, 2520), (0, 5040), (1, 2520), (1, 5040)]),
            Begin::At(5040)
        );
        // Mid-save: rank 0 has written the newer column, rank 1 not yet.
        assert_eq!(decide(&[(0, 2520), (0, 5040), (1, 2520)]), Begin::At(2520));
        assert_eq!(decide(&[]), Begin::New);
        // The first save, stopped before rank 1 wrote its file.
        assert_eq!(decide(&[(0, 2520)]), Begin::LeftOver);
        let Begin::Refused(said) = decide(&[(0, 2520), (1, 5040)]) else {
            panic!("files of no common column are refused");
        };
        assert!(said.contains("no column in common"), "{said}");
        for verdict in [
            Begin::New,
            Begin::LeftOver,
            Begin::At(7),
            Begin::Refused("x".into()),
        ] {
            assert_eq!(Begin::from_bytes(&verdict.to_bytes()), verdict);
        }
    }

    #[test]
    fn only_the_names_chomp3_writes_are_checkpoints_of_ranks() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("c.c3k");
        for name in [
            "c.c3k.0-of-2.at-017640",
            "c.c3k.+0-of-+2.at-+17640",
            "c.c3k.00-of-2.at-0",
            "c.c3k.0-of-2.at-",
            "c.c3k.0-of-2.at-1x",
            // No census has these ranks.
            "c.c3k.0-of-0.at-5",
            "c.c3k.3-of-2.at-5040",
            "c.c3k.2-of-2.at-5040",
        ] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        assert!(rank_files(&base, false).unwrap().is_empty());
        std::fs::write(dir.path().join("c.c3k.0-of-2.at-0"), b"").unwrap();
        let found = rank_files(&base, false).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].size, found[0].rank, found[0].column), (2, 0, 0));
        // Names that are not text: compared as bytes, not as their printed
        // forms (which are alike).
        use std::os::unix::ffi::OsStrExt as _;
        let named = |b: &[u8]| dir.path().join(std::ffi::OsStr::from_bytes(b));
        std::fs::write(named(b"c\xff.c3k.0-of-2.at-15120"), b"").unwrap();
        assert!(rank_files(&named(b"c\xfe.c3k"), false).unwrap().is_empty());
        std::fs::write(named(b"c\xfe.c3k.1-of-2.at-15120"), b"").unwrap();
        let found = rank_files(&named(b"c\xfe.c3k"), false).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, named(b"c\xfe.c3k.1-of-2.at-15120"));
        // Files left aside, with the process id in their names.
        std::fs::write(dir.path().join(".c.c3k.1-of-2.at-360.new-1"), b"").unwrap();
        let aside = rank_files(&base, true).unwrap();
        assert_eq!(aside.len(), 1);
        assert_eq!(
            (aside[0].rank, aside[0].column, aside[0].pid),
            (1, 360, Some(1))
        );
    }
}
