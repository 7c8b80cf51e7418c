//! `chomp3 census` as one rank of an MPI job: how the process learns it was
//! started by `mpirun` (or a scheduler's launcher), and the per-rank figures
//! rank 0 prints. The ranks' checkpoint files are the library's
//! (`chomp3::f::census::rank_files`).

use std::sync::Arc;
#[cfg(feature = "mpi")]
use std::time::Duration;

use anyhow::Result;
use chomp3::f::engine::ranks::{self as share, Ranks, Traffic};

use crate::cli::progress::peak_rss_kib;

/// Environment variables that MPI launchers set in every process they start
/// (Open MPI's mpirun; the PMI and PMIx interfaces of Slurm's srun and others).
const LAUNCHED: [&str; 3] = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"];

/// Whether an MPI launcher started this process as one of several (the job's
/// size is not 1, or this is not its first rank).
pub fn one_of_several() -> bool {
    let var = |v: &str| std::env::var(v).ok();
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
        .iter()
        .any(|v| var(v).is_some_and(|n| n != "1"))
        || var("PMIX_RANK").is_some_and(|r| r != "0")
}

/// This process's rank and the job's size as the launcher set them in the
/// environment, for words said before MPI has started.
#[cfg(feature = "mpi")]
fn announced() -> Option<(String, String)> {
    let first = |names: &[&str]| names.iter().find_map(|v| std::env::var(v).ok());
    Some((
        first(&["OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"])?,
        first(&["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"])?,
    ))
}

/// How long the processes of a job have to join the census: every one must
/// have started MPI by then. A process of the job that runs another command
/// (or the same with `--help`) never does, and the ranks that did would
/// wait for it without end.
#[cfg(feature = "mpi")]
const JOIN: Duration = Duration::from_secs(120);

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
        // `Mpi::init` returns once every process of the job has called it
        // (its first call is collective); until then a watch ends this one,
        // saying why, after `JOIN`. Nothing is written before.
        let joined = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watch = Arc::clone(&joined);
        // A small stack; a process without room even for that has none for
        // MPI either, whose start then fails on its own.
        let _ = std::thread::Builder::new()
            .stack_size(64 << 10)
            .spawn(move || {
                std::thread::sleep(JOIN);
                if !watch.load(std::sync::atomic::Ordering::SeqCst) {
                    note!(
                        "chomp3: error: MPI did not start on every process of this job within {} s; every process must run `chomp3 census` with the same arguments, with room for MPI to start (memory, ulimit -v)",
                        JOIN.as_secs()
                    );
                    // SAFETY: `_exit` ends the process at once; it has
                    // written nothing yet.
                    unsafe { libc::_exit(1) }
                }
            });
        let mpi = chomp3::f::cluster::Mpi::init().map_err(|e| match announced() {
            Some((rank, size)) => anyhow::anyhow!("rank {rank} of {size}: {e}"),
            None => anyhow::anyhow!("MPI: {e}"),
        })?;
        joined.store(true, std::sync::atomic::Ordering::SeqCst);
        Ok(Some(Arc::new(mpi)))
    }
    #[cfg(not(feature = "mpi"))]
    {
        if one_of_several() {
            anyhow::bail!(
                "started by an MPI launcher, but this chomp3 was built without MPI; build it with `cargo build --release --features mpi`"
            );
        }
        Ok(None)
    }
}

/// Every rank's traffic and peak memory, as lines for rank 0 to print.
pub fn gather_report(ranks: &dyn Ranks, traffic: Traffic, blocks: u64) -> Option<String> {
    let mine = [
        traffic.bytes,
        traffic.messages,
        peak_rss_kib().unwrap_or(0),
        traffic.waited_ns,
    ];
    let all = share::gather(ranks, mine.iter().flat_map(|x| x.to_le_bytes()).collect())?;
    let mut report = String::new();
    for (k, b) in all.iter().enumerate() {
        let x: Vec<u64> = b
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        report += &format!(
            "rank {k}: sent {} bytes in {} messages ({:.0} bytes per column block, {blocks} blocks), waited {:.1} s for hand-offs (summed over threads), peak RSS {} MiB\n",
            x[0],
            x[1],
            x[0] as f64 / blocks.max(1) as f64,
            x[3] as f64 / 1e9,
            x[2] / 1024
        );
    }
    Some(report)
}
