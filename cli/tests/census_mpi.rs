//! The census under `mpirun` (a build with `--features mpi`; `.ci/run` runs this
//! file with Open MPI installed): 1 to 4 ranks, oversubscribed on this machine,
//! write the bytes of the census in one process, and a job killed while it
//! writes checkpoints continues to the same bytes.
#![cfg(feature = "mpi")]

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const ROWS: &str = "6000";

fn mpirun(ranks: u32) -> Command {
    let mut c = Command::new("mpirun");
    // CI runs as root; Open MPI refuses root without the flag.
    c.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "-n",
        &ranks.to_string(),
    ]);
    c.arg(env!("CARGO_BIN_EXE_chomp3"));
    c
}

fn census_args(out: &Path, rows: &str) -> Vec<String> {
    [
        "census",
        "--quiet",
        "--threads",
        "1",
        "--rows",
        rows,
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([out.to_str().unwrap().to_string()])
    .collect()
}

fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The census of one process (no launcher): table and descriptors.
fn single(dir: &Path, rows: &str) -> (Vec<u8>, Vec<u8>) {
    let out = dir.join(format!("single-{rows}.tsv"));
    let got = Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args(census_args(&out, rows))
        .output()
        .unwrap();
    ok(got, "single process");
    read(&out)
}

fn read(tsv: &Path) -> (Vec<u8>, Vec<u8>) {
    (
        std::fs::read(tsv).unwrap(),
        std::fs::read(tsv.with_extension("c3d")).unwrap(),
    )
}

#[test]
fn one_to_four_mpi_ranks_write_the_census_of_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let want = single(dir.path(), ROWS);
    for ranks in 1..=4 {
        let out = dir.path().join(format!("mpi-{ranks}.tsv"));
        let stdout = ok(
            mpirun(ranks)
                .args(census_args(&out, ROWS))
                .output()
                .unwrap(),
            "mpirun",
        );
        assert!(read(&out) == want, "{ranks} ranks: other bytes");
        // Rank 0 reports every rank's traffic; the checkpoints are gone.
        for k in 0..ranks {
            assert!(stdout.contains(&format!("rank {k}: sent ")), "{stdout}");
        }
        assert_eq!(
            checkpoints(dir.path()),
            0,
            "{ranks} ranks: checkpoints left"
        );
    }
}

/// The checkpoint files in `dir` (partial ones included).
fn checkpoints(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains(".at-")
        })
        .count()
}

/// The newest column of a whole checkpoint file in `dir` (0: none).
fn newest_checkpoint(dir: &Path) -> u32 {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            let (_, column) = name.strip_prefix("census.c3k.")?.split_once(".at-")?;
            column.parse().ok()
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn a_killed_mpi_census_resumes_to_the_same_bytes() {
    let rows = "20000";
    let dir = tempfile::tempdir().unwrap();
    let want = single(dir.path(), rows);
    let work = dir.path().join("killed");
    std::fs::create_dir(&work).unwrap();
    let out = work.join("census.tsv");
    let mut args = census_args(&out, rows);
    args.extend(["--checkpoint-secs".into(), "0".into()]);
    // Killed twice, each time once checkpoints are being written (a checkpoint
    // after every batch: the kill lands in or between writes).
    for round in 0..2 {
        let mut job = mpirun(3).args(&args).spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(120);
        // Two checkpoints past the last one seen.
        let seen = newest_checkpoint(&work);
        while newest_checkpoint(&work) <= seen + 2 * 2520 {
            assert!(Instant::now() < deadline, "round {round}: no checkpoint");
            assert!(
                job.try_wait().unwrap().is_none(),
                "round {round}: the job ended"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        // mpirun passes SIGTERM on to the ranks, which die where they are.
        unsafe_kill(job.id(), "TERM");
        job.wait().unwrap();
        assert!(!out.exists(), "round {round}: finished before the kill");
    }
    let stdout = ok(mpirun(3).args(&args).output().unwrap(), "resumed");
    assert!(read(&out) == want, "resumed job: other bytes ({stdout})");
    assert_eq!(checkpoints(&work), 0, "checkpoints left");
}

/// Sends a signal with kill(1), so that the test needs no libc binding.
fn unsafe_kill(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .args([format!("-{signal}"), pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}
