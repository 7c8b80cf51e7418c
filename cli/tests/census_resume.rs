//! The census survives `kill -9` and Ctrl-C: a real child killed twice, then run
//! again, writes the same bytes as a run that was never interrupted.

use crate::common;

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant, SystemTime};

use common::chomp3_ok;

const ROWS: &str = "20000";

fn start(out: &Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args([
            "census",
            "--quiet",
            "--rows",
            ROWS,
            "--checkpoint-secs",
            "0",
        ])
        .args(extra)
        .arg("--out")
        .arg(out)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Waits until `path` is written after `since` (or first appears).
fn wait_for_checkpoint(path: &Path, since: Option<SystemTime>) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while modified(path) == since || modified(path).is_none() {
        assert!(Instant::now() < deadline, "no checkpoint written");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_census_killed_twice_resumes_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let direct = dir.path().join("direct.tsv");
    chomp3_ok(&[
        "census",
        "--quiet",
        "--rows",
        ROWS,
        "--out",
        direct.to_str().unwrap(),
    ]);
    let out = dir.path().join("killed.tsv");
    let checkpoint = dir.path().join("killed.c3k");
    let mut since = None;
    for kill in 0..2 {
        let mut child = start(&out, &[]);
        wait_for_checkpoint(&checkpoint, since);
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        assert!(
            !status.success(),
            "kill {kill}: the child had already finished"
        );
        assert!(!out.exists(), "kill {kill}: no result before the end");
        since = modified(&checkpoint);
    }
    let child = start(&out, &[]);
    let done = child.wait_with_output().unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    for ext in ["tsv", "c3d"] {
        let a = std::fs::read(direct.with_extension(ext)).unwrap();
        let b = std::fs::read(out.with_extension(ext)).unwrap();
        assert!(a == b, "{ext}: the resumed census differs");
    }
    assert!(
        !checkpoint.exists(),
        "the checkpoint is removed once the census is written"
    );
}

#[test]
#[cfg(feature = "test-hooks")]
fn ctrl_c_saves_the_census_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.tsv");
    let checkpoint = dir.path().join("c.c3k");
    // The child waits for the signal after its first checkpoint (`--hold`),
    // so the signal always lands in a running census.
    let child = start(&out, &["--hold"]);
    wait_for_checkpoint(&checkpoint, None);
    // A second census into the same files, meanwhile, is refused in one
    // line and touches nothing (the first holds their locks).
    let before = std::fs::read(&checkpoint).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args(["census", "--quiet", "--rows", "20000", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("being written by another process"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(std::fs::read(&checkpoint).unwrap() == before);
    let (code, err) = common::ctrl_c(child, false);
    assert_eq!(code, Some(130), "{err}");
    assert!(err.contains("run the same command again"), "{err}");
    assert!(checkpoint.exists());
    // A census with other parameters refuses the checkpoint and says what to do.
    let o = Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args(["census", "--quiet", "--rows", "19999", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("rows 0..=20000") && err.contains("delete it"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
fn a_checkpoint_of_an_earlier_version_is_refused_and_kept() {
    // Version 3 stored states as R + 2 bits and offsets from 1.3 r, version 4
    // every state whole: this chomp3 continues neither, and says so in one
    // line without touching the file.
    for version in [3u32, 4] {
        let dir = tempfile::tempdir().unwrap();
        let checkpoint = dir.path().join("census.c3k");
        let mut old = b"CHOMP3CK".to_vec();
        old.extend(version.to_le_bytes());
        old.extend([0u8; 64]);
        std::fs::write(&checkpoint, &old).unwrap();
        let (out, err) = census_of_100_refused(dir.path());
        let want = format!("census checkpoint version {version}, this chomp3 reads 5 to 7");
        assert!(err.contains(&want), "{err}");
        assert_eq!(
            std::fs::read(&checkpoint).unwrap(),
            old,
            "the checkpoint is kept"
        );
        assert!(!out.exists(), "no census written");
    }
}

/// A census in one process whose checkpoint has an MPI run's rank files
/// beside it is refused, not started again beside them; the message says
/// to continue them under mpirun only when every rank has a file.
#[test]
fn a_census_in_one_process_refuses_beside_an_mpi_runs_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let rank_file = |rank: u32| dir.path().join(format!("census.c3k.{rank}-of-3.at-2520"));
    std::fs::write(rank_file(1), b"a rank's checkpoint").unwrap();
    let (out, err) = census_of_100_refused(dir.path());
    assert!(!out.exists(), "no census written");
    assert!(
        err.contains("is the checkpoint of rank 1 of a census on 3 MPI ranks (column 2520)")
            && err.contains("nothing can continue it")
            && !err.contains("mpirun -n 3"),
        "{err}"
    );
    for rank in [0, 2] {
        std::fs::write(rank_file(rank), b"a rank's checkpoint").unwrap();
    }
    let (out, err) = census_of_100_refused(dir.path());
    assert!(
        err.contains("of a census on 3 MPI ranks (column 2520)") && err.contains("mpirun -n 3"),
        "{err}"
    );
    assert!(!out.exists(), "no census written");
    for rank in 0..3 {
        assert_eq!(
            std::fs::read(rank_file(rank)).unwrap(),
            b"a rank's checkpoint"
        );
    }
}

/// `census --rows 100 --out DIR/census.tsv`, which must fail in one line:
/// the output's path and the line.
fn census_of_100_refused(dir: &std::path::Path) -> (std::path::PathBuf, String) {
    let out = dir.join("census.tsv");
    let output = common::chomp3(&[
        "census",
        "--quiet",
        "--rows",
        "100",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    (out, err)
}
