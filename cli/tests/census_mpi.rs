//! The census under `mpirun` (a build with `--features mpi`; `.ci/run` runs this
//! file with Open MPI installed): 1 to 4 ranks, oversubscribed on this machine,
//! write the bytes of the census in one process, and a job killed while it
//! writes checkpoints, or one that loses a rank, continues to the same bytes.
#![cfg(feature = "mpi")]

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
#[path = "common/trace.rs"]
mod trace;
use trace::records;

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

#[test]
fn a_traced_mpi_census_writes_the_same_bytes_and_each_ranks_traffic() {
    let dir = tempfile::tempdir().unwrap();
    let want = single(dir.path(), ROWS);
    let out = dir.path().join("traced.tsv");
    let trace = dir.path().join("t.trace");
    let mut args = census_args(&out, ROWS);
    args.extend(["--trace".to_string(), trace.to_str().unwrap().to_string()]);
    let stdout = ok(mpirun(2).args(&args).output().unwrap(), "mpirun");
    assert!(read(&out) == want, "a trace changed the census");
    let text: Vec<String> = (0..2)
        .map(|k| std::fs::read_to_string(format!("{}.{k}-of-2", trace.display())).unwrap())
        .collect();
    let sum = |t: &str, col: usize| -> u64 {
        records(t, "C")
            .iter()
            .map(|c| c[col].parse::<u64>().unwrap())
            .sum()
    };
    for (k, t) in text.iter().enumerate() {
        assert_eq!(records(t, "H")[0][1..3], [k.to_string(), "2".to_string()]);
        // The last batch's count is what the rank reports; its hand-offs are
        // part of it (the rest are the collectives').
        let total = records(t, "B").last().unwrap()[10].clone();
        assert!(
            stdout.contains(&format!("rank {k}: sent {total} bytes")),
            "{k}: {total}\n{stdout}"
        );
        // Each rank owns a run of chunks, so hand-offs go up: rank 0 hands
        // its run's top on, rank 1 holds the top of the rows.
        let handed = sum(t, 9);
        assert!(handed <= total.parse().unwrap(), "{k}");
        assert_eq!(handed > 0, k == 0, "{k}: {handed} bytes handed on");
        // A hand-off sent is the edge's bytes.
        for c in records(t, "C").iter().filter(|c| c[8] != "-") {
            assert_eq!(c[9], c[10], "{c:?}");
        }
    }
    // What one rank handed on, the other received.
    assert_eq!(sum(&text[0], 9), sum(&text[1], 7));
    assert_eq!(sum(&text[1], 9), sum(&text[0], 7));
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

/// A job of `rows` rows that saves a checkpoint after every batch, in its
/// own directory `work` under `dir`, and the bytes of the census in one
/// process it must end in.
struct Saving {
    dir: tempfile::TempDir,
    want: (Vec<u8>, Vec<u8>),
    work: PathBuf,
    out: PathBuf,
    args: Vec<String>,
}

fn saving(name: &str, rows: &str) -> Saving {
    let dir = tempfile::tempdir().unwrap();
    let want = single(dir.path(), rows);
    let work = dir.path().join(name);
    std::fs::create_dir(&work).unwrap();
    let out = work.join("census.tsv");
    let mut args = census_args(&out, rows);
    args.extend(["--checkpoint-secs".into(), "0".into()]);
    Saving {
        dir,
        want,
        work,
        out,
        args,
    }
}

#[test]
fn a_killed_mpi_census_resumes_to_the_same_bytes() {
    let Saving {
        dir: _dir,
        want,
        work,
        out,
        args,
    } = saving("killed", "30000");
    // Killed twice, each time once checkpoints are being written (a checkpoint
    // after every batch: the kill lands in or between writes). mpirun passes
    // SIGTERM on about a second after it gets it (Open MPI's
    // `odls_base_sigkill_timeout`), so the job is long enough to be still at
    // work then: 30,000 rows, killed at the first checkpoint of each run.
    let mut older = Vec::new();
    for round in 0..2 {
        let mut job = mpirun(3).args(&args).spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(120);
        // A checkpoint past the last one seen.
        let seen = newest_checkpoint(&work);
        while newest_checkpoint(&work) <= seen {
            assert!(Instant::now() < deadline, "round {round}: no checkpoint");
            assert!(
                job.try_wait().unwrap().is_none(),
                "round {round}: the job ended"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        // mpirun passes SIGTERM on to the ranks, which save where they are
        // (as at Ctrl-C) unless mpirun's own kill comes first.
        unsafe_kill(job.id(), "TERM");
        job.wait().unwrap();
        assert!(!out.exists(), "round {round}: finished before the kill");
        // The newest column every rank has (a rank removes its older files
        // only once every rank has written the next).
        let common = *newest_per_rank(&work, 3).iter().min().unwrap();
        let rank_zero = work.join(format!("census.c3k.0-of-3.at-{common}"));
        older.push((common, std::fs::read(&rank_zero).unwrap()));
    }
    // One rank's files damaged (a byte after the end): every rank stops, in
    // one line each, and none waits for the others without end.
    let rank_one: Vec<PathBuf> = std::fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".c3k.1-of-3.at-"))
        .collect();
    assert!(!rank_one.is_empty());
    let kept: Vec<Vec<u8>> = rank_one.iter().map(|p| std::fs::read(p).unwrap()).collect();
    for (p, bytes) in rank_one.iter().zip(&kept) {
        std::fs::write(p, [&bytes[..], b"x"].concat()).unwrap();
    }
    let refused = within(mpirun(3).args(&args), Duration::from_secs(120));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{err}");
    assert!(
        err.contains("rank 1 of 3: ")
            && err.contains("damaged census checkpoint (bytes follow its end")
            && err.contains("nothing more was done"),
        "{err}"
    );
    for (p, bytes) in rank_one.iter().zip(&kept) {
        std::fs::write(p, bytes).unwrap();
    }
    // Rank 0's file of the first round's column under the name of the
    // second's: the ranks would meet at different columns; every rank stops.
    let [(first, first_bytes), (second, second_bytes)] = &older[..] else {
        unreachable!("two rounds")
    };
    assert!(first < second, "{first} {second}");
    let renamed = work.join(format!("census.c3k.0-of-3.at-{second}"));
    std::fs::write(&renamed, first_bytes).unwrap();
    let refused = within(mpirun(3).args(&args), Duration::from_secs(120));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "rank 0 of 3: {}: the checkpoint of column {first}, named for column {second}",
            renamed.display()
        )) && err.contains("nothing more was done"),
        "{err}"
    );
    std::fs::write(&renamed, second_bytes).unwrap();
    // One rank that cannot write its next checkpoint (a directory stands at
    // its name): every rank stops with its refusal, none waits without end.
    let next = work.join(format!(
        "census.c3k.1-of-3.at-{}",
        newest_checkpoint(&work) + 2520
    ));
    std::fs::create_dir(&next).unwrap();
    let refused = within(mpirun(3).args(&args), Duration::from_secs(120));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{err}");
    assert!(
        err.contains("rank 1 of 3: ") && err.contains("nothing more was done"),
        "{err}"
    );
    std::fs::remove_dir(&next).unwrap();
    let stdout = ok(mpirun(3).args(&args).output().unwrap(), "resumed");
    assert!(read(&out) == want, "resumed job: other bytes ({stdout})");
    assert_eq!(checkpoints(&work), 0, "checkpoints left");
}

/// Rank 0 alone takes the outputs' locks: when another process holds one,
/// every rank stops with rank 0's refusal instead of waiting for it.
#[test]
fn an_mpi_census_whose_output_is_busy_stops_on_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("census.tsv");
    let held = std::fs::File::create(dir.path().join(".census.tsv.lock")).unwrap();
    held.try_lock().unwrap();
    let refused = within(
        mpirun(2).args(census_args(&out, ROWS)),
        Duration::from_secs(60),
    );
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{err}");
    assert!(
        err.contains("rank 0 of 2: ") && err.contains("is being written by another process"),
        "{err}"
    );
    assert!(!out.exists());
    drop(held);
}

/// A refusal on one rank alone (each rank is given its own arguments, as
/// mpirun's `A : B` allows) stops every rank with it instead of leaving the
/// others waiting: a thread count the machine cannot run, refused only when
/// the rank starts its threads; another checkpoint name on one rank (a
/// census in one process's, beside the others'); and threads that do
/// not fit the rank's address space (`ulimit -v`, under which Open MPI's
/// shared memory fails too, so that the rank cannot hear the others: the
/// refusal is still said, and the job ends; on rank 0 too); and an address
/// space too small for Open MPI's start, refused before it. Ranks given
/// different censuses are refused before they compute.
#[test]
fn a_refusal_on_one_rank_alone_stops_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("census.tsv");
    let lone = dir.path().join("lone.c3k");
    // A checkpoint of a census in one process, interrupted at its first save.
    let mut first = Command::new(env!("CARGO_BIN_EXE_chomp3"));
    first.args(census_args(&dir.path().join("lone.tsv"), "30000"));
    first.args(["--checkpoint-secs", "0"]);
    let mut first = first.stderr(Stdio::null()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !lone.exists() {
        assert!(Instant::now() < deadline, "no checkpoint within 60 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    unsafe_kill(first.id(), "KILL");
    first.wait().unwrap();
    let cases: [(&[&str], &str, &str); 5] = [
        (
            &["--max-columns", "20000"],
            "",
            "the ranks were given different censuses",
        ),
        (&["--threads", "100000"], "", "--threads 100000"),
        (
            &["--checkpoint", lone.to_str().unwrap()],
            "",
            "give every rank the same checkpoint",
        ),
        // Its memory, checked before the threads start.
        (
            &["--threads", "16"],
            "ulimit -v 200000",
            "on 2 MPI ranks needs about",
        ),
        // Room too small for Open MPI's own start (which fails inside
        // MPI_Init there, or never ends), refused before it.
        (
            &["--threads", "1"],
            "ulimit -v 51500",
            "needs at least 128 MiB of address space",
        ),
    ];
    for (odd, limit, said) in cases {
        let mut job = Command::new("mpirun");
        job.args(["--allow-run-as-root", "--oversubscribe", "-n", "1"]);
        job.arg(env!("CARGO_BIN_EXE_chomp3"))
            .args(census_args(&out, ROWS));
        // Rank 1's arguments: the same, but the odd option's value.
        let mut args = census_args(&out, ROWS);
        match args.iter().position(|a| a == odd[0]) {
            Some(at) => args[at + 1] = odd[1].to_string(),
            None => args.extend(odd.iter().map(|a| a.to_string())),
        }
        job.args([":", "-n", "1", "sh", "-c"]);
        job.arg(format!("{limit}\nexec \"$0\" \"$@\""));
        job.arg(env!("CARGO_BIN_EXE_chomp3")).args(args);
        let refused = within(&mut job, Duration::from_secs(60));
        let err = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "{err}");
        assert!(err.contains("rank 1 of 2: ") && err.contains(said), "{err}");
        assert!(!out.exists(), "{err}");
    }
    // The address space held on rank 0, so tightly that Open MPI's shared
    // memory fails there too and rank 0 never hears the others: it says its
    // refusal at once, and leaves after a bound.
    let mut job = Command::new("mpirun");
    job.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "-n",
        "1",
        "sh",
        "-c",
    ]);
    job.arg("ulimit -v 200000\nexec \"$0\" \"$@\"");
    job.arg(env!("CARGO_BIN_EXE_chomp3"))
        .args(census_args(&out, ROWS))
        .args([":", "-n", "1", env!("CARGO_BIN_EXE_chomp3")])
        .args(census_args(&out, ROWS));
    let refused = within(&mut job, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{err}");
    assert!(
        err.contains("rank 0 of 2: a rank of a census")
            && err.contains("this process may map (ulimit -v)"),
        "{err}"
    );
    assert!(!out.exists(), "{err}");
}

/// A process of the job that runs another command than the census (mpirun's
/// `A : B`) refuses at once, not zero, so that mpirun ends the job: the
/// census rank does not wait for it without end.
#[test]
fn another_command_in_a_census_job_ends_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("census.tsv");
    let table = dir.path().join("t.c3t");
    ok(
        Command::new(env!("CARGO_BIN_EXE_chomp3"))
            .args(["compute", "--quiet", "--n", "30", "--table"])
            .arg(&table)
            .output()
            .unwrap(),
        "compute",
    );
    for other in [&["get", "5", "5", "--table"][..], &["info", "--table"]] {
        let mut job = mpirun(1);
        job.args(census_args(&out, ROWS))
            .args([":", "-n", "1", env!("CARGO_BIN_EXE_chomp3")])
            .args(other)
            .arg(&table);
        let refused = within(&mut job, Duration::from_secs(60));
        let err = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "{err}");
        assert!(
            err.contains("started by an MPI launcher as one of several processes; only `chomp3 census` runs so"),
            "{err}"
        );
        assert!(!out.exists(), "{err}");
    }
}

/// Each rank's trace file (`FILE.k-of-P`) is checked before any work like
/// every output: a file of another kind or a directory there, or another
/// output of the same name, stops every rank with nothing computed or
/// replaced.
#[test]
fn every_ranks_trace_file_is_checked_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let census = d.join("old.tsv");
    ok(
        Command::new(env!("CARGO_BIN_EXE_chomp3"))
            .args(census_args(&census, "300"))
            .output()
            .unwrap(),
        "a census",
    );
    let kept = std::fs::read(&census).unwrap();
    std::fs::write(d.join("t.0-of-2"), &kept).unwrap();
    std::fs::create_dir(d.join("u.1-of-2")).unwrap();
    let out = d.join("c.tsv");
    let cases: [(&[&str], &Path, &str); 3] = [
        (
            &["--trace", "t"],
            &out,
            "--trace t.0-of-2 is a census table",
        ),
        (&["--trace", "u"], &out, "--trace u.1-of-2 is a directory"),
        (
            &["--trace", "v"],
            &d.join("v.1-of-2"),
            "--out and --trace name the same file",
        ),
    ];
    for (trace, out, said) in cases {
        let mut job = mpirun(2);
        job.current_dir(d)
            .args(census_args(out, "3000"))
            .args(trace);
        let refused = within(&mut job, Duration::from_secs(60));
        let err = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "{err}");
        assert!(err.contains(said), "{err}");
        assert!(!out.exists(), "{err}");
    }
    assert!(std::fs::read(d.join("t.0-of-2")).unwrap() == kept, "kept");
    assert!(d.join("u.1-of-2").is_dir());
}

/// A checkpoint name whose ranks' files (`NAME.K-of-P.at-COLUMN`, written
/// aside as `.NAME....new-PID`) would pass the system's limit of a name is
/// refused before any work, not at a checkpoint no rerun could get past.
#[test]
fn a_checkpoint_name_too_long_for_its_ranks_files_is_refused_first() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("c.tsv");
    let name = format!("{}.c3k", "k".repeat(225));
    let mut job = mpirun(2);
    job.current_dir(d).args(census_args(&out, "3000")).args([
        "--checkpoint-secs",
        "0",
        "--checkpoint",
        &name,
    ]);
    let refused = within(&mut job, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{err}");
    assert!(
        err.contains("checkpoints have names of up to") && err.contains("at most 240"),
        "{err}"
    );
    assert!(!out.exists(), "{err}");
    assert_eq!(std::fs::read_dir(d).unwrap().count(), 0, "nothing made");
}

/// A census no rank of which this machine can hold is refused by every
/// rank before any work, as in one process, not ended by the kernel.
#[test]
fn an_mpi_census_beyond_the_machine_is_refused_by_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.tsv");
    let mut job = mpirun(2);
    job.args(census_args(&out, "4000000000"));
    let refused = within(&mut job, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{err}");
    // (The ranks' lines may be interleaved.)
    assert!(
        err.contains("a rank of a census of rows 0..=4000000000 on 2 MPI ranks needs about")
            && err.contains("nothing was computed"),
        "{err}"
    );
    assert!(!out.exists(), "{err}");
}

/// Ranks that do not see the same directory (each started in its own, the
/// paths relative) are refused before any work, whether the directories
/// are empty (their checkpoints would be split between them) or one holds
/// a checkpoint, which is kept: taken for a file the other ranks lack, it
/// would have been removed.
#[test]
fn ranks_that_see_different_directories_are_refused_and_nothing_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (shared, local) = (dir.path().join("shared"), dir.path().join("local"));
    std::fs::create_dir(&shared).unwrap();
    std::fs::create_dir(&local).unwrap();
    let kept = shared.join("census.c3k.0-of-2.at-2520");
    let args = census_args(Path::new("census.tsv"), ROWS);
    for holding in [false, true] {
        if holding {
            std::fs::write(&kept, b"rank 0's state").unwrap();
        }
        let mut job = Command::new("mpirun");
        job.args(["--allow-run-as-root", "--oversubscribe", "-n", "1", "-wdir"]);
        job.arg(&shared)
            .arg(env!("CARGO_BIN_EXE_chomp3"))
            .args(&args);
        job.args([":", "-n", "1", "-wdir"]).arg(&local);
        job.arg(env!("CARGO_BIN_EXE_chomp3")).args(&args);
        let refused = within(&mut job, Duration::from_secs(60));
        let err = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "{err}");
        assert!(
            err.contains("rank 1 of 2: ") && err.contains("in the same directory"),
            "{err}"
        );
        let left = |d: &Path| -> Vec<String> {
            (std::fs::read_dir(d).unwrap())
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| !n.ends_with(".lock"))
                .collect()
        };
        assert!(left(&local).is_empty(), "{:?}", left(&local));
        let want: Vec<String> = match holding {
            true => vec!["census.c3k.0-of-2.at-2520".into()],
            false => vec![],
        };
        assert_eq!(left(&shared), want);
    }
    assert_eq!(std::fs::read(&kept).unwrap(), b"rank 0's state");
}

/// A file of another program under one rank's checkpoint name (the other
/// rank having none) is no census stopped at its first checkpoint: the job
/// is refused on every rank and the file kept, not removed as a leftover.
#[test]
fn a_file_not_chomp3s_at_a_rank_checkpoints_name_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("census.c3k.0-of-2.at-5040");
    std::fs::write(&notes, b"notes\n").unwrap();
    let out = dir.path().join("census.tsv");
    let mut job = mpirun(2);
    job.args(census_args(&out, ROWS));
    let refused = within(&mut job, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{err}");
    assert!(
        err.contains("is named as a rank's census checkpoint but is not one"),
        "{err}"
    );
    assert_eq!(std::fs::read(&notes).unwrap(), b"notes\n");
    assert!(!out.exists());
}

/// Runs `job` (standard error kept), killing it and failing if it is not
/// done within `limit`: a job that waits without end is a defect.
fn within(job: &mut Command, limit: Duration) -> Output {
    let mut job = job
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + limit;
    while job.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            unsafe_kill(job.id(), "KILL");
            panic!("the job still waits after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    job.wait_with_output().unwrap()
}

/// The newest column of each rank's whole checkpoint files in `dir` (0: none),
/// for a job of `size` ranks.
fn newest_per_rank(dir: &Path, size: u32) -> Vec<u32> {
    let mut newest = vec![0; size as usize];
    for e in std::fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        let Some((rank, rest)) = name
            .strip_prefix("census.c3k.")
            .and_then(|n| n.split_once("-of-"))
        else {
            continue;
        };
        let Some((of, column)) = rest.split_once(".at-") else {
            continue;
        };
        let (Ok(rank), Ok(column)) = (rank.parse::<usize>(), column.parse::<u32>()) else {
            continue;
        };
        if of == size.to_string() && rank < newest.len() {
            newest[rank] = newest[rank].max(column);
        }
    }
    newest
}

/// The processes below `root` (children, their children, ...), from /proc.
fn descendants(root: u32) -> Vec<u32> {
    let mut parent_of = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        // The parent is the 2nd field after the command name (in parentheses).
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some(ppid) = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        parent_of.push((pid, ppid));
    }
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let p = found[i];
        found.extend(
            parent_of
                .iter()
                .filter(|&&(_, pp)| pp == p)
                .map(|&(c, _)| c),
        );
        i += 1;
    }
    found.remove(0);
    found
}

/// The rank processes of the job `mpirun` started: (rank, pid), the pids
/// below it that run the chomp3 binary, each with the rank Open MPI gave it.
fn rank_processes(mpirun: u32) -> Vec<(u32, u32)> {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_chomp3"))
        .canonicalize()
        .unwrap();
    let mut ranks: Vec<(u32, u32)> = descendants(mpirun)
        .into_iter()
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == binary))
        .filter_map(|pid| {
            let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
            let rank = environ
                .split(|&b| b == 0)
                .find_map(|v| v.strip_prefix(b"OMPI_COMM_WORLD_RANK="))?;
            Some((std::str::from_utf8(rank).ok()?.parse().ok()?, pid))
        })
        .collect();
    ranks.sort();
    ranks
}

/// Whether process `pid` runs (exists and is not a zombie).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z")
    })
}

/// An `mpirun` in its own process group, killed with everything below it
/// if the test ends (or fails) before the job does: no rank outlives a test.
struct Job {
    child: Child,
}

impl Job {
    fn start(ranks: u32, args: &[String]) -> Job {
        Job::start_to(ranks, args, Stdio::null())
    }

    /// As `start`, standard error to `stderr`.
    fn start_to(ranks: u32, args: &[String], stderr: Stdio) -> Job {
        let child = mpirun(ranks)
            .args(args)
            .stdout(Stdio::null())
            .stderr(stderr)
            .process_group(0)
            .spawn()
            .unwrap();
        Job { child }
    }

    /// The job's exit status, once it has ended within `secs` seconds.
    fn wait(&mut self, secs: u64, what: &str) -> std::process::ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "{what}: still running after {secs} s"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        if self.child.try_wait().unwrap().is_some() {
            return;
        }
        let below = descendants(self.child.id());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .status();
        for pid in below {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
        let _ = self.child.wait();
    }
}

#[test]
fn an_mpi_census_that_loses_a_rank_continues_to_the_same_bytes() {
    let Saving {
        dir: _dir,
        want,
        work,
        out,
        args,
    } = saving("lost", "20000");
    // Three jobs of three ranks, each losing one rank to SIGKILL once every
    // rank has written a checkpoint past the last common one: rank 1, then
    // rank 0 (the one that writes the census), then rank 2. mpirun ends the
    // others; the same command then continues.
    for (round, victim) in [1, 0, 2].into_iter().enumerate() {
        let mut job = Job::start(3, &args);
        let deadline = Instant::now() + Duration::from_secs(120);
        let seen = newest_per_rank(&work, 3).into_iter().max().unwrap();
        while newest_per_rank(&work, 3).into_iter().min().unwrap() <= seen {
            assert!(Instant::now() < deadline, "round {round}: no checkpoint");
            assert!(
                job.child.try_wait().unwrap().is_none(),
                "round {round}: the job ended"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let ranks = rank_processes(job.child.id());
        let ids: Vec<u32> = ranks.iter().map(|&(r, _)| r).collect();
        assert_eq!(ids, [0, 1, 2], "round {round}: the rank processes");
        unsafe_kill(ranks[victim].1, "KILL");
        let status = job.wait(60, &format!("round {round}: the job without rank {victim}"));
        assert!(!status.success(), "round {round}: the job succeeded");
        assert!(!out.exists(), "round {round}: finished before the kill");
        // mpirun's end is the others' too, though a rank may take a moment
        // to see it (it polls for messages) on a loaded machine.
        let gone = Instant::now() + Duration::from_secs(20);
        for &(rank, pid) in &ranks {
            while running(pid) {
                assert!(
                    Instant::now() < gone,
                    "round {round}: rank {rank} still runs"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
    // Every rank has a checkpoint for a column the next job continues from.
    assert!(newest_per_rank(&work, 3).into_iter().min().unwrap() > 0);
    let mut job = Job::start(3, &args);
    let status = job.wait(300, "the continued job");
    assert!(status.success(), "the continued job failed: {status}");
    assert!(read(&out) == want, "continued job: other bytes");
    assert_eq!(checkpoints(&work), 0, "checkpoints left");
}

/// Ctrl-C sent to one rank alone, or SIGTERM to every rank (what `mpirun`
/// passes on at Ctrl-C): every rank saves at one column, and the job
/// continues from there to the same bytes; no lock is left. Ctrl-C at the
/// terminal, to `mpirun` itself: the job ends, and continues to the same
/// bytes. (mpirun sends SIGKILL a second after its SIGTERM, which on a
/// loaded machine can land before a rank has saved or removed its locks:
/// what is promised then is only that the job continues from the last
/// column every rank saved, and that a killed rank's lock is taken over.)
#[test]
fn ctrl_c_to_one_rank_or_to_mpirun_saves_every_rank_and_the_job_continues() {
    for to in ["rank 1", "every rank", "mpirun"] {
        let Saving {
            dir,
            want,
            work,
            out,
            args,
        } = saving("interrupted", "20000");
        let log = dir.path().join("stderr.log");
        let mut job = Job::start_to(2, &args, std::fs::File::create(&log).unwrap().into());
        let deadline = Instant::now() + Duration::from_secs(120);
        while newest_per_rank(&work, 2).into_iter().min().unwrap() == 0 {
            assert!(Instant::now() < deadline, "{to}: no checkpoint");
            assert!(
                job.child.try_wait().unwrap().is_none(),
                "{to}: the job ended"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let ranks = rank_processes(job.child.id());
        assert_eq!(ranks.len(), 2, "{to}: the rank processes");
        match to {
            "mpirun" => unsafe_kill(job.child.id(), "INT"),
            "every rank" => ranks.iter().for_each(|r| unsafe_kill(r.1, "TERM")),
            _ => unsafe_kill(ranks[1].1, "INT"),
        }
        let status = job.wait(60, "the job after Ctrl-C");
        let err = std::fs::read_to_string(&log).unwrap();
        assert!(!status.success(), "{to}: {err}");
        if to == "mpirun" {
            let mut job = Job::start(2, &args);
            let status = job.wait(300, "the continued job");
            assert!(status.success(), "{to}: the continued job failed: {status}");
            assert!(read(&out) == want, "{to}: continued job: other bytes");
            assert_eq!(checkpoints(&work), 0, "{to}: checkpoints left");
            continue;
        }
        let said = format!(
            "interrupted; the census is saved in {}.*-of-2.at-",
            work.join("census.c3k").display()
        );
        let at = err.find(&said).unwrap_or_else(|| panic!("{to}: {err}"));
        let column: String = err[at + said.len()..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        for rank in 0..2 {
            let file = work.join(format!("census.c3k.{rank}-of-2.at-{column}"));
            assert!(
                file.exists(),
                "{to}: {} is not there: {err}",
                file.display()
            );
        }
        let locks: Vec<_> = std::fs::read_dir(&work)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".lock"))
            .collect();
        assert!(locks.is_empty(), "{to}: locks left: {locks:?}");
        let mut job = Job::start(2, &args);
        let status = job.wait(300, "the continued job");
        assert!(status.success(), "{to}: the continued job failed: {status}");
        assert!(read(&out) == want, "{to}: continued job: other bytes");
        assert_eq!(checkpoints(&work), 0, "{to}: checkpoints left");
    }
}

/// Sends a signal with kill(1), so that the test needs no libc binding.
fn unsafe_kill(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .args([format!("-{signal}"), pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}
