//! `chomp3 census` as one rank of an MPI job: how the process learns it was
//! started by `mpirun` (or a scheduler's launcher), its checkpoint files, and
//! the per-rank figures rank 0 prints.
//!
//! Checkpoints: rank `k` of `P` writes `<checkpoint>.<k>-of-<P>.at-<column>`
//! (aside, then renamed into place), waits until every rank has written its
//! file for that column, and only then deletes its older ones. Whenever the job
//! is killed, every rank therefore holds a whole file for one common column
//! (the newest such column is where they resume), so a resumed census ends in
//! the same bytes.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Result, bail};
use chomp3::base::atomic_write::left_aside;
use chomp3::f::census::driver::{Checkpoints, DriverError, Saved};
use chomp3::f::census::{Params, Run};
use chomp3::f::engine::ranks::{self as share, Ranks, Traffic};

use crate::cli::progress::peak_rss_kib;

/// Environment variables that MPI launchers set in every process they start
/// (Open MPI's mpirun; the PMI and PMIx interfaces of Slurm's srun and others).
const LAUNCHED: [&str; 3] = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"];

/// This process's ranks when an MPI launcher started it; `None` for a plain
/// process. A build without MPI refuses to run as one of several processes
/// (each would compute the whole census and write the same files).
pub fn launch() -> Result<Option<Arc<dyn Ranks>>> {
    let launched = LAUNCHED.iter().any(|v| std::env::var_os(v).is_some());
    if !launched {
        return Ok(None);
    }
    #[cfg(feature = "mpi")]
    {
        let mpi = chomp3::f::cluster::Mpi::init().map_err(|e| anyhow::anyhow!("MPI: {e}"))?;
        Ok(Some(Arc::new(mpi)))
    }
    #[cfg(not(feature = "mpi"))]
    {
        let var = |v: &str| std::env::var(v).ok();
        let several = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
            .iter()
            .any(|v| var(v).is_some_and(|n| n != "1"))
            || var("PMIX_RANK").is_some_and(|r| r != "0");
        if several {
            bail!(
                "started by an MPI launcher, but this chomp3 was built without MPI; build it with `cargo build --release --features mpi`"
            );
        }
        Ok(None)
    }
}

/// `<checkpoint>.<rank>-of-<size>.at-<column>`.
fn rank_file(base: &Path, size: u32, rank: u32, column: u32) -> PathBuf {
    let mut name = base.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{rank}-of-{size}.at-{column}"));
    base.with_file_name(name)
}

/// The checkpoint files of `base` in its directory: `(size, rank, column, path)`;
/// with `aside`, instead the partial files that killed writers left
/// (`atomic_write` writes `.<name>.new-<pid>` first).
fn rank_files(base: &Path, aside: bool) -> Result<Vec<(u32, u32, u32, PathBuf)>> {
    let dir = chomp3::f::table::parent_dir(base);
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
    for entry in std::fs::read_dir(&dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))? {
        let path = entry?.path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if let Some((size, rank, column)) = parse(&name) {
            found.push((size, rank, column, path));
        }
    }
    Ok(found)
}

/// Continues from the newest column for which every rank has a checkpoint, or
/// starts a new census when no rank has one.
pub fn resume_or_start(
    base: &Path,
    params: Params,
    ranks: Arc<dyn Ranks>,
    quiet: bool,
) -> Result<Run> {
    let (size, rank) = (ranks.size(), ranks.rank());
    if base.exists() {
        bail!(
            "{} is the checkpoint of a census in one process; continue it without mpirun, or delete it",
            base.display()
        );
    }
    // Partial files of this rank's killed writers.
    for (s, r, _, path) in rank_files(base, true)? {
        if (s, r) == (size, rank) {
            std::fs::remove_file(&path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        }
    }
    let files = rank_files(base, false)?;
    if let Some((other, _, _, path)) = files.iter().find(|f| f.0 != size) {
        bail!(
            "{} is a checkpoint of a census on {other} ranks; continue it on {other} ranks, or delete its files to start over",
            path.display()
        );
    }
    let mine: Vec<u32> = files.iter().filter(|f| f.1 == rank).map(|f| f.2).collect();
    let listed: Vec<u8> = mine.iter().flat_map(|c| c.to_le_bytes()).collect();
    // Rank 0 finds the newest column every rank has (u64::MAX: nobody has any).
    let choice = share::gather(&*ranks, listed).map(|all| {
        let lists: Vec<Vec<u32>> = all
            .iter()
            .map(|b| {
                b.chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                    .collect()
            })
            .collect();
        if lists.iter().all(|l| l.is_empty()) {
            return u64::MAX;
        }
        lists[0]
            .iter()
            .filter(|c| lists.iter().all(|l| l.contains(c)))
            .max()
            .map_or(u64::MAX - 1, |&c| c as u64)
    });
    let choice = share::broadcast(&*ranks, 0, choice.unwrap_or(0).to_le_bytes().to_vec());
    let choice = u64::from_le_bytes(choice[..8].try_into().unwrap());
    if choice == u64::MAX {
        return Ok(Run::shared(params, ranks));
    }
    if choice == u64::MAX - 1 {
        bail!(
            "the ranks' checkpoint files {}.*-of-{size}.at-* have no column in common; delete them to start over",
            base.display()
        );
    }
    let path = rank_file(base, size, rank, choice as u32);
    let file =
        std::fs::File::open(&path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let run = Run::load_shared(&mut reader, params, ranks)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    if !quiet {
        eprintln!(
            "chomp3: resuming from {}.*-of-{size}.at-{choice}: column {}, rows 0..{} settled",
            base.display(),
            run.columns(),
            run.settled_rows()
        );
    }
    Ok(run)
}

/// The checkpoints of the ranks of one census: a file per rank and column.
pub struct RankFiles {
    /// The `--checkpoint` path the files are named after.
    pub base: PathBuf,
}

impl Checkpoints for RankFiles {
    fn save(&self, run: &mut Run) -> Result<Saved, DriverError> {
        save(run, &self.base).map_err(|e| DriverError::Ranks(e.to_string()))
    }

    fn remove(&self, ranks: &dyn Ranks) -> Result<(), DriverError> {
        written(ranks, &self.base).map_err(|e| DriverError::Ranks(e.to_string()))
    }
}

/// Writes this rank's checkpoint, waits for every rank's, then deletes this
/// rank's older ones.
fn save(run: &mut Run, base: &Path) -> Result<Saved> {
    let started = Instant::now();
    let (size, rank, column) = (run.ranks().size(), run.ranks().rank(), run.columns());
    let path = rank_file(base, size, rank, column);
    chomp3::base::atomic_write::write_atomically(&path, |w| run.save(w))
        .map_err(|e| anyhow::anyhow!("{}: writing the checkpoint: {e}", path.display()))?;
    // Every rank has a whole file for this column from here on.
    share::any(run.ranks(), false);
    remove_older(base, size, rank, Some(column))?;
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    Ok(Saved {
        path,
        bytes,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Deletes this rank's checkpoint files but the one for `keep`.
fn remove_older(base: &Path, size: u32, rank: u32, keep: Option<u32>) -> Result<()> {
    for (s, r, column, path) in rank_files(base, false)? {
        if s == size && r == rank && Some(column) != keep {
            std::fs::remove_file(&path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// After rank 0 has written the census files (it calls this then; the other
/// ranks wait here for it): every rank deletes its checkpoint files.
fn written(ranks: &dyn Ranks, base: &Path) -> Result<()> {
    share::broadcast(ranks, 0, vec![1]);
    remove_older(base, ranks.size(), ranks.rank(), None)
}

/// Every rank's traffic and peak memory, as lines for rank 0 to print.
pub fn gather_report(ranks: &dyn Ranks, traffic: Traffic, blocks: u64) -> Option<String> {
    let mine = [traffic.bytes, traffic.messages, peak_rss_kib().unwrap_or(0)];
    let all = share::gather(ranks, mine.iter().flat_map(|x| x.to_le_bytes()).collect())?;
    let mut report = String::new();
    for (k, b) in all.iter().enumerate() {
        let x: Vec<u64> = b
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        report += &format!(
            "rank {k}: sent {} bytes in {} messages ({:.0} bytes per column block, {blocks} blocks), peak RSS {} MiB\n",
            x[0],
            x[1],
            x[0] as f64 / blocks.max(1) as f64,
            x[2] / 1024
        );
    }
    Some(report)
}
