//! No command replaces what it was not asked to write, and no long run goes
//! on when its work cannot be saved: outputs that coincide, that would
//! replace a file of another kind, or that cannot be written are refused
//! before any work, with the file untouched.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{chomp3, chomp3_in, computed};

/// Runs `args` in `dir` and checks a one-line refusal (exit `code`) that
/// contains `says`.
fn refused(dir: &Path, args: &[&str], code: i32, says: &str) {
    let out = chomp3_in(dir, args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(err.contains(says), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
}

/// Runs `args` in `dir`, which must succeed.
fn succeeds(dir: &Path, args: &[&str]) {
    let out = chomp3_in(dir, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `args` in `dir`, which must be refused (status 1) with a last line
/// that contains `says` and names `--replace`, the `files` (under `dir`)
/// as they were.
fn kept_unless_replace(dir: &Path, args: &[&str], files: &[&str], says: &str) {
    let read = || -> Vec<Vec<u8>> {
        (files.iter())
            .map(|f| std::fs::read(dir.join(f)).unwrap())
            .collect()
    };
    let before = read();
    let o = chomp3_in(dir, args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    let last = err.trim_end().lines().last().unwrap_or("");
    assert!(last.contains(says) && last.contains("--replace"), "{err}");
    assert!(read() == before, "{args:?} changed {files:?}");
}

/// Every file under `dir`, with its bytes, sorted by name.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), bytes)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn an_output_never_replaces_a_file_of_another_kind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    computed(d, "victim.c3t", 100, &[]);
    std::fs::write(d.join("notes.txt"), "my notes\n").unwrap();
    let before = files(d);
    refused(
        d,
        &["graph", "wheel:5", "--out", "victim.c3t"],
        1,
        "--out victim.c3t is an f(q,r) table (.c3t), not a chomp3 graph result",
    );
    refused(
        d,
        &["graph", "wheel:5", "--memo", "victim.c3t"],
        1,
        "is an f(q,r) table (.c3t), not a graph memo",
    );
    refused(
        d,
        &["census", "--rows", "10", "--out", "notes.txt"],
        1,
        "--out notes.txt is a file chomp3 did not write",
    );
    refused(
        d,
        &["grundy-census", "--lines", "3", "--out", "victim.c3t"],
        1,
        "not a Grundy census",
    );
    assert_eq!(files(d), before, "nothing written or removed");
}

#[test]
fn outputs_that_are_one_file_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("b")).unwrap();
    std::fs::create_dir(d.join("dd")).unwrap();
    for (args, says) in [
        (
            vec![
                "census",
                "--rows",
                "10",
                "--out",
                "b.tsv",
                "--checkpoint",
                "b.tsv",
            ],
            "--out and --checkpoint name the same file",
        ),
        (
            vec!["census", "--rows", "10", "--out", "X.c3d"],
            "--out and --descriptors name the same file",
        ),
        (
            vec![
                "grundy-periods",
                "--lines",
                "3",
                "--lag",
                "96",
                "--bfiles",
                "b",
                "--out",
                "X",
                "--checkpoint",
                "./X",
            ],
            "--out and --checkpoint name the same file",
        ),
        (
            vec![
                "grundy-periods",
                "--lines",
                "3",
                "--lag",
                "96",
                "--bfiles",
                "b",
                "--out",
                "b/../b/grundy-periods.txt",
            ],
            "--bfiles and --out name the same file",
        ),
        (
            vec!["graph", "wheel:5", "--out", "F", "--memo", "F"],
            "--out and --memo name the same file",
        ),
        // A file that another output needs as its directory.
        (
            "grundy-census --lines 5 --out x --bfiles x"
                .split(' ')
                .collect(),
            "--bfiles x/grundy-",
        ),
        (
            "grundy-periods --lines 5 --lag 96 --out p --bfiles ./p"
                .split(' ')
                .collect(),
            "is written in --out p, which must then be a directory, not a file",
        ),
        // The same, --out being a directory already: that is what is said.
        (
            "grundy-census --lines 3 --out dd --bfiles dd"
                .split(' ')
                .collect(),
            "--out dd is a directory, not a Grundy census",
        ),
        // A file chomp3 keeps beside another output while writing it, and
        // removes: that output's lock, or the file written aside.
        (
            "census --rows 10 --out c.tsv --descriptors .c.tsv.lock"
                .split(' ')
                .collect(),
            "--descriptors .c.tsv.lock is the name of a file chomp3 keeps beside --out c.tsv",
        ),
        (
            "census --rows 10 --out c.tsv --trace ./.c.c3d.new-77"
                .split(' ')
                .collect(),
            "--trace ./.c.c3d.new-77 is the name of a file chomp3 keeps beside --descriptors c.c3d",
        ),
    ] {
        refused(d, &args, 1, says);
        assert_eq!(files(d), vec![], "{args:?}: nothing written");
        assert!(!d.join("x").exists() && !d.join("p").exists(), "{args:?}");
    }
    // A file at an output's lock name that chomp3 did not write (its locks
    // are empty) is neither taken for a lock nor removed.
    std::fs::write(d.join(".c.tsv.lock"), b"precious").unwrap();
    refused(
        d,
        &["census", "--quiet", "--rows", "10", "--out", "c.tsv"],
        1,
        ".c.tsv.lock: a file chomp3 did not write stands where it keeps the lock of c.tsv",
    );
    assert_eq!(
        files(d),
        vec![(".c.tsv.lock".to_string(), b"precious".to_vec())]
    );
}

/// A bench killed while it computes takes its computation with it, and the
/// next bench into that directory removes the table (and lock) it left.
#[test]
fn a_killed_bench_leaves_nothing_a_later_one_does_not_remove() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut bench = Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args(["bench", "--sizes", "20000", "--threads", "1", "--dir"])
        .arg(d)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let table_size = || -> Option<u64> {
        std::fs::read_dir(d).unwrap().flatten().find_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name.starts_with(".bench-20000-") && name.ends_with(".c3t"))
                .then(|| e.metadata().unwrap().len())
        })
    };
    let started = Instant::now();
    let table_grew = || {
        while table_size().unwrap_or(0) < 1_000_000 {
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "no table grew"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    table_grew();
    bench.kill().unwrap();
    bench.wait().unwrap();
    // Its computation ends with it: the table stops growing.
    std::thread::sleep(Duration::from_millis(500));
    let left = table_size().expect("the table is left");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        table_size(),
        Some(left),
        "the computation ended with the bench"
    );
    let out = chomp3(&["bench", "--sizes", "50", "--dir", &d.to_string_lossy()]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(files(d), vec![], "what the killed bench left is removed");
    assert_eq!(std::fs::read_dir(d).unwrap().count(), 0);
    // Ctrl-C (SIGINT to the process group, as a terminal sends it, or to
    // the bench alone, which passes it on to its computation): the table is
    // removed, and that is what the bench says, with status 130.
    use std::os::unix::process::CommandExt;
    for group in [true, false] {
        let mut bench = Command::new(env!("CARGO_BIN_EXE_chomp3"));
        bench
            .args(["bench", "--sizes", "20000", "--threads", "1", "--dir"])
            .arg(d)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if group {
            bench.process_group(0);
        }
        let bench = bench.spawn().unwrap();
        table_grew();
        let (code, err) = common::ctrl_c(bench, group);
        assert_eq!(code, Some(130), "{err}");
        assert!(
            err.trim_end().lines().count() == 1
                && err.contains("bench interrupted at N = 20000; its temporary table")
                && err.contains("was removed"),
            "{err}"
        );
        assert_eq!(std::fs::read_dir(d).unwrap().count(), 0, "nothing left");
    }
}

/// Ctrl-C ends a command that passes no stop token to the library (here a
/// row of a census a trillion long) at once, status 130.
#[test]
fn ctrl_c_ends_a_long_read_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    succeeds(d, &["census", "--quiet", "--rows", "60", "--out", "c.tsv"]);
    {
        let args = [
            "row",
            "5",
            "--from",
            "7",
            "--to",
            "1000000000000",
            "--census",
            "c.c3d",
        ];
        let child = Command::new(env!("CARGO_BIN_EXE_chomp3"))
            .args(args)
            .current_dir(d)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(500));
        let (code, err) = common::ctrl_c(child, false);
        assert_eq!(code, Some(130), "{args:?}: {err}");
        assert_eq!(
            err.trim_end().lines().last(),
            Some("chomp3: error: interrupted"),
            "{args:?}"
        );
    }
}

/// Ctrl-C once `run` has computed its table ends the analysis and the
/// figures at once, as `analyze` and `plot` alone: status 130, nothing of
/// them written.
#[test]
fn ctrl_c_ends_run_after_its_table_too() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut child = Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args(["run", "--n", "20000", "--threads", "1"])
        .current_dir(d)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    for line in stdout.lines() {
        if line.unwrap().contains("N = 20000") {
            break;
        }
    }
    std::thread::sleep(Duration::from_millis(300));
    let (code, err) = common::ctrl_c(child, false);
    assert_eq!(code, Some(130), "{err}");
    // Before it, only the table's progress lines (said every few seconds
    // on a slow machine when standard error is no terminal).
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.last(), Some(&"chomp3: error: interrupted"), "{err}");
    assert!(
        lines[..lines.len() - 1]
            .iter()
            .all(|l| l.starts_with("chomp3: ") && l.contains("% ") && l.contains(" cells ")),
        "{err}"
    );
    assert!(d.join("data/table.c3t").exists());
    assert!(!d.join("data/run/summary.json").exists(), "no analysis");
    assert!(!d.join("plots/run").exists(), "no figures");
}

/// The checks that follow a written result (`census --check`,
/// `grundy-table --check-f`) take no stop token: Ctrl-C ends them at once,
/// status 130, the result kept.
#[test]
fn ctrl_c_ends_the_checks_after_a_result() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    succeeds(
        d,
        &["compute", "--quiet", "--n", "20000", "--table", "t.c3t"],
    );
    succeeds(
        d,
        &["grundy-table", "--quiet", "--n", "500", "--table", "g.g3t"],
    );
    let spawn = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_chomp3"))
            .args(args)
            .current_dir(d)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let census = spawn(&[
        "census", "--quiet", "--rows", "20000", "--out", "c.tsv", "--check", "t.c3t",
    ]);
    let started = Instant::now();
    while !d.join("c.tsv").exists() {
        assert!(started.elapsed() < Duration::from_secs(120), "no census");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let (code, err) = common::ctrl_c(census, false);
    assert_eq!(code, Some(130), "{err}");
    assert_eq!(err.trim_end(), "chomp3: error: interrupted");
    assert!(d.join("c.c3d").exists(), "the census is kept");
    let check = spawn(&[
        "grundy-table",
        "--n",
        "500",
        "--table",
        "g.g3t",
        "--check-f",
        "t.c3t",
    ]);
    // Ctrl-C once the check has both tables open (it reads them by slabs,
    // a fraction of a second in all; the f table alone is opened and let
    // go at the start too).
    let fds = format!("/proc/{}/fd", check.id());
    let has_open = |name: &str| {
        std::fs::read_dir(&fds).is_ok_and(|dir| {
            dir.flatten()
                .any(|e| std::fs::read_link(e.path()).is_ok_and(|to| to.ends_with(name)))
        })
    };
    let has_f_open = || has_open("t.c3t") && has_open("g.g3t");
    let started = Instant::now();
    while !has_f_open() {
        assert!(started.elapsed() < Duration::from_secs(120), "no check");
        std::thread::sleep(Duration::from_millis(1));
    }
    let (code, err) = common::ctrl_c(check, false);
    assert_eq!(code, Some(130), "{err}");
    assert_eq!(err.trim_end(), "chomp3: error: interrupted");
}

#[test]
fn an_output_that_cannot_be_written_is_refused_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("file"), "x").unwrap();
    refused(
        d,
        &["census", "--rows", "10", "--out", "file/census.tsv"],
        1,
        "file is a file, not a directory",
    );
    // compute names the same causes as the others: a file where a directory
    // of the path must be, a path that goes up from a missing directory.
    for (table, says) in [
        ("file/t.c3t", "file is a file, not a directory"),
        ("file/sub/t.c3t", "file is a file, not a directory"),
        (
            "nx/../t.c3t",
            "the path goes up (..) from nx, which does not exist",
        ),
        ("file/", "names a directory, not a file"),
        ("file/.", "names a directory, not a file"),
    ] {
        refused(d, &["compute", "--n", "10", "--table", table], 1, says);
    }

    assert!(!d.join("nx").exists() && !d.join("t.c3t").exists());
    // A file given where a directory of outputs goes is named as the cause.
    let table = computed(d, "t.c3t", 60, &[]);
    let t = table.to_str().unwrap();
    refused(
        d,
        &["transpose", "--table", t, "--out", "file/"],
        1,
        "names a directory, not a file",
    );
    for (args, says) in [
        (
            vec!["analyze", "--table", t, "--out", "file"],
            "file is a file, not a directory, so file/summary.json cannot be written there",
        ),
        (
            vec!["plot", "--table", t, "--out", "file"],
            "file is a file, not a directory, so file/figures.tsv cannot be written there",
        ),
        (
            vec!["bench", "--dir", "file"],
            "--dir file: not a directory",
        ),
        (
            vec!["plot", "--table", t, "--out", "gone"],
            "gone is a symbolic link to nothing (nowhere), so gone/figures.tsv cannot be written there",
        ),
    ] {
        std::os::unix::fs::symlink("nowhere", d.join("gone")).ok();
        refused(d, &args, 1, says);
    }
    assert_eq!(std::fs::read(d.join("file")).unwrap(), b"x");
    let fifo = d.join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    std::fs::create_dir(d.join(".held.tsv.lock")).unwrap();
    let long = format!("{}.tsv", "g".repeat(246));
    // `grundy-census --lines 3 --out OUT`, then the rest.
    let census = |out: &str, rest: &[&str]| -> Vec<String> {
        ["grundy-census", "--lines", "3", "--out", out]
            .iter()
            .chain(rest)
            .map(|a| a.to_string())
            .collect()
    };
    for (args, code, says) in [
        // Something else where a directory must be is named for what it is.
        (
            census("g.tsv", &["--bfiles", "/dev/null"]),
            1,
            "/dev/null is a character device, not a directory",
        ),
        (
            census("g.tsv", &["--bfiles", "fifo"]),
            1,
            "fifo is a FIFO (named pipe), not a directory",
        ),
        // A b-file of no term is not written.
        (
            census("g.tsv", &["--bfiles", "b", "--rectangles", "0"]),
            2,
            "ask for at least 1",
        ),
        // A path that names a directory, not a file.
        (census("sub/", &[]), 1, "names a directory, not a file"),
        (census("sub/..", &[]), 1, "names a directory, not a file"),
        (census(".", &[]), 1, "names a directory, not a file"),
        // A name with no room for the files beside it, and a directory
        // where the lock goes.
        (
            census(&long, &[]),
            1,
            "its name has 250 bytes; an output's may have at most 240",
        ),
        (
            census("held.tsv", &[]),
            1,
            "a directory stands where the lock file of held.tsv goes",
        ),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(d, &args, code, says);
    }
    assert!(!d.join("b").exists() && !d.join("g.tsv").exists());
    // A directory of b-files may have a name of any length: its locks and
    // files aside go inside it, nothing beside it.
    let dir = "b".repeat(255);
    let before: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let out = common::chomp3_in(
        d,
        &[
            "grundy-periods",
            "--quiet",
            "--lines",
            "2",
            "--lag",
            "12",
            "--bfiles",
            &dir,
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(d.join(&dir).join("grundy-periods.txt").is_file());
    let after: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(after.len(), before.len() + 1, "{after:?}");
    refused(
        d,
        &["bench", "--sizes", "10", "--dir", "nowhere"],
        1,
        "--dir nowhere: no such directory; create it first",
    );
    // A directory no process can create a file in, even as root.
    refused(
        d,
        &[
            "grundy-census",
            "--lines",
            "3",
            "--out",
            "/proc/chomp3-test/g.tsv",
        ],
        1,
        "cannot write in /proc/chomp3-test",
    );
}

#[test]
fn a_census_over_its_own_census_continues_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |rows: &str| {
        let out = chomp3_in(
            d,
            &["census", "--quiet", "--rows", rows, "--out", "c/census.tsv"],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    std::fs::create_dir(d.join("c")).unwrap();
    run("60");
    let first = std::fs::read(d.join("c/census.c3d")).unwrap();
    run("60");
    assert_eq!(std::fs::read(d.join("c/census.c3d")).unwrap(), first);
    run("80");
    let rows = std::fs::read_to_string(d.join("c/census.tsv")).unwrap();
    assert!(rows.starts_with("# Certified census of three-rowed Chomp, rows 0..80\n"));
}

/// A census of the same rows that may compute fewer columns (and so prove
/// fewer rows) than the one in its place keeps it unless `--replace`.
#[test]
fn a_census_of_fewer_columns_keeps_the_one_there_unless_replace_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let full = chomp3_in(d, &["census", "--quiet", "--rows", "80", "--out", "c.tsv"]);
    assert!(full.status.success(), "{full:?}");
    let before = files(d);
    let columns = std::fs::read_to_string(d.join("c.tsv")).unwrap();
    let columns: u64 = columns
        .lines()
        .nth(1)
        .unwrap()
        .rsplit_once("; ")
        .unwrap()
        .1
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(columns > 400, "{columns}");
    let census = |most: &str| -> Vec<String> {
        let args = "census --quiet --rows 80 --out c.tsv --max-columns";
        args.split(' ').chain([most]).map(String::from).collect()
    };
    let fewer = census("400");
    let fewer: Vec<&str> = fewer.iter().map(String::as_str).collect();
    refused(
        d,
        &fewer,
        1,
        &format!(
            "c.tsv holds a census computed to {columns} columns, more than the 400 this run may compute"
        ),
    );
    assert!(files(d) == before, "nothing replaced");
    let said = String::from_utf8_lossy(&chomp3_in(d, &fewer).stderr).into_owned();
    assert!(said.contains("--replace"), "{said}");
    // As many columns as it computed: the same census, written again.
    let same = census(&columns.to_string());
    let again = chomp3_in(d, &same.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(again.status.success(), "{again:?}");
    let c3d = |files: &[(String, Vec<u8>)]| files.iter().find(|f| f.0 == "c.c3d").cloned();
    assert!(c3d(&files(d)) == c3d(&before), "the same census");
    let replaced = chomp3_in(d, &[&fewer[..], &["--replace"]].concat());
    assert!(replaced.status.success(), "{replaced:?}");
    assert!(files(d) != before);
}

#[test]
fn seconds_must_be_a_finite_number() {
    for bad in ["inf", "NaN", "-1", "1e300"] {
        let out = chomp3(&[
            "census",
            "--rows",
            "10",
            "--out",
            "/nonexistent/x.tsv",
            &format!("--checkpoint-secs={bad}"),
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("--checkpoint-secs"), "{bad}: {err}");
    }
}

#[test]
fn a_long_run_stops_at_once_when_its_checkpoint_cannot_be_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A lag that no period of q <= 40 divides runs to --max-p: a long run.
    let mut child = Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .current_dir(d)
        .args([
            "grundy-periods",
            "--lines",
            "40",
            "--lag",
            "2305",
            "--bfiles",
            "b",
            "--checkpoint",
            "ck",
            "--checkpoint-secs",
            "0.2",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = err.next().unwrap().unwrap();
    assert!(first.contains("checkpoint ck at p ="), "{first}");
    // The checkpoint's place becomes a directory: the next write fails.
    std::fs::rename(d.join("ck"), d.join("ck.good")).unwrap();
    std::fs::create_dir(d.join("ck")).unwrap();
    let t = Instant::now();
    let rest: Vec<String> = err.map(|l| l.unwrap()).collect();
    let status = child.wait().unwrap();
    assert!(t.elapsed() < Duration::from_secs(30), "it stopped");
    assert_eq!(status.code(), Some(1), "{rest:?}");
    let last = rest.last().unwrap();
    assert!(
        last.contains("ck") && last.contains("the run stopped there"),
        "{last}"
    );
    assert!(
        !d.join("b").exists(),
        "no b-files from a run that did not end"
    );
}

#[test]
fn analyze_never_replaces_a_larger_analysis_unasked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    computed(d, "big.c3t", 300, &[]);
    computed(d, "small.c3t", 200, &[]);
    let analyze = |table: &str, extra: &[&str]| {
        let mut args = vec!["analyze", "--quiet", "--table", table, "--out", "a"];
        args.extend_from_slice(extra);
        chomp3_in(d, &args)
    };
    assert!(analyze("big.c3t", &[]).status.success());
    let before = files(&d.join("a"));
    refused(
        d,
        &["analyze", "--quiet", "--table", "small.c3t", "--out", "a"],
        1,
        "a holds the analysis of a table to N = 300",
    );
    assert_eq!(files(&d.join("a")), before);
    // The same N again, or told to: written.
    assert!(analyze("big.c3t", &[]).status.success());
    assert_eq!(files(&d.join("a")), before, "the same bytes again");
    assert!(analyze("small.c3t", &["--replace"]).status.success());
    assert_ne!(files(&d.join("a")), before);
}

/// Files of the names an analysis writes, with no summary that accounts for
/// them (another program's, or an analysis that did not finish), and a
/// summary that cannot be read, are kept unless `--replace` is given, as every
/// other writer keeps a file it did not write.
#[test]
fn analyze_keeps_files_it_cannot_account_for_unless_told() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    computed(d, "big.c3t", 300, &[]);
    computed(d, "small.c3t", 200, &[]);
    let a = d.join("a");
    for name in ["report.md", "summary.json", "b029899.txt", "rows.tsv.xz"] {
        std::fs::create_dir_all(&a).unwrap();
        std::fs::write(a.join(name), b"my notes\n").unwrap();
        let before = files(&a);
        let says = if name == "summary.json" {
            "a/summary.json is not a summary chomp3 can read"
        } else {
            "is not part of a finished analysis (the directory has no summary.json)"
        };
        refused(
            d,
            &["analyze", "--quiet", "--table", "big.c3t", "--out", "a"],
            1,
            says,
        );
        assert_eq!(files(&a), before, "{name} kept");
        let out = chomp3_in(
            d,
            &[
                "analyze",
                "--quiet",
                "--table",
                "big.c3t",
                "--out",
                "a",
                "--replace",
            ],
        );
        assert!(out.status.success(), "{name}: {out:?}");
        std::fs::remove_dir_all(&a).unwrap();
    }
    // A summary damaged after a larger analysis: the smaller one is refused.
    let out = chomp3_in(
        d,
        &["analyze", "--quiet", "--table", "big.c3t", "--out", "a"],
    );
    assert!(out.status.success());
    let mut summary = std::fs::read(a.join("summary.json")).unwrap();
    summary[0] = b'X';
    std::fs::write(a.join("summary.json"), &summary).unwrap();
    let before = files(&a);
    refused(
        d,
        &["analyze", "--quiet", "--table", "small.c3t", "--out", "a"],
        1,
        "give another --out, or pass --replace",
    );
    assert_eq!(files(&a), before);
    // Files of other names beside an analysis are none of its business.
    std::fs::remove_dir_all(&a).unwrap();
    std::fs::create_dir_all(&a).unwrap();
    std::fs::write(a.join("notes.txt"), b"mine\n").unwrap();
    let out = chomp3_in(
        d,
        &["analyze", "--quiet", "--table", "big.c3t", "--out", "a"],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read(a.join("notes.txt")).unwrap(), b"mine\n");
}

/// `plot` keeps a record of what each figure was drawn from (figures.tsv)
/// and, unless told `--replace`, draws over no figure from a larger table,
/// another kind of source, another row, or an image it has no record of.
#[test]
fn plot_never_replaces_figures_of_a_larger_or_other_source_unasked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    computed(d, "big.c3t", 300, &[]);
    computed(d, "small.c3t", 200, &[]);
    let census = chomp3_in(d, &["census", "--quiet", "--rows", "60", "--out", "c.tsv"]);
    assert!(census.status.success());
    let plot = |extra: &[&str]| {
        let mut args = vec!["plot", "--out", "p"];
        args.extend_from_slice(extra);
        chomp3_in(d, &args)
    };
    assert!(plot(&["--table", "big.c3t"]).status.success());
    let record = std::fs::read_to_string(d.join("p/figures.tsv")).unwrap();
    assert!(
        record.contains("table.png\ttable\t300;rows settled=")
            && record.contains("\tchomp3 plot --table big.c3t --out p\n")
            && record.contains("row.png\ttable row 120\t300;"),
        "{record}"
    );
    let before = files(&d.join("p"));
    for (args, says) in [
        (
            &["--table", "small.c3t"][..],
            "drawn from the table to n = 300",
        ),
        (
            &["--table", "big.c3t", "--row", "7"],
            "drawn from the table row 120",
        ),
        (
            &["--census-only", "--census", "c.c3d"],
            "this one, from the census",
        ),
    ] {
        let out = plot(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        let last = err.trim_end().lines().last().unwrap_or("");
        assert!(last.contains(says) && last.contains("--replace"), "{err}");
        assert_eq!(files(&d.join("p")), before, "{args:?} changed the figures");
    }
    // The same table again is allowed; told to, a smaller one replaces it.
    assert!(plot(&["--table", "big.c3t"]).status.success());
    assert!(
        plot(&["--table", "small.c3t", "--replace"])
            .status
            .success()
    );
    assert_ne!(files(&d.join("p")), before);
    // An image with no record is not drawn over.
    std::fs::create_dir(d.join("q")).unwrap();
    std::fs::write(d.join("q/growth.png"), b"someone's figure").unwrap();
    let out = chomp3_in(d, &["plot", "--table", "big.c3t", "--out", "q"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not say what it was drawn from"), "{err}");
    assert_eq!(
        std::fs::read(d.join("q/growth.png")).unwrap(),
        b"someone's figure"
    );
}

/// An analysis or figures made with a census (which settles rows the table
/// cannot) are not replaced by ones of the same table made without it, or
/// with a census of fewer columns, nor a Grundy figure by one from a census
/// that stopped part way, nor a wheels figure by one of fewer wheels: the
/// source holds less though its `N` is the same. Refused with the files
/// as they were, unless `--replace`.
#[test]
fn analyses_and_figures_from_a_fuller_source_are_kept_unless_replace_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    computed(d, "t.c3t", 300, &[]);
    let run = |args: &[&str]| succeeds(d, args);
    // Refused in one line (after a line naming the census used), nothing changed.
    let kept = |args: &[&str], out: &str, says: &str| {
        let before = files(&d.join(out));
        kept_unless_replace(d, args, &[], says);
        assert_eq!(files(&d.join(out)), before, "{args:?} changed {out}");
    };
    run(&["census", "--quiet", "--rows", "300", "--out", "c.tsv"]);
    // 2521 columns prove fewer rows (doc/chomp.md: periods up to 2520).
    run(&[
        "census",
        "--quiet",
        "--rows",
        "300",
        "--max-columns",
        "2521",
        "--out",
        "d.tsv",
    ]);
    let with = ["--table", "t.c3t", "--census", "c.c3d"];
    run(&[&["analyze", "--quiet", "--out", "a"], &with[..]].concat());
    let summary = std::fs::read_to_string(d.join("a/summary.json")).unwrap();
    assert!(summary.contains("\"open\": 0"), "{summary}");
    kept(
        &["analyze", "--quiet", "--table", "t.c3t", "--out", "a"],
        "a",
        "a holds the analysis of a table to N = 300 with 301 rows settled",
    );
    kept(
        &[
            "analyze", "--quiet", "--table", "t.c3t", "--census", "d.c3d", "--out", "a",
        ],
        "a",
        "with 301 rows settled",
    );
    run(&[&["analyze", "--quiet", "--out", "a"], &with[..]].concat());
    run(&[
        "analyze",
        "--quiet",
        "--census-only",
        "--census",
        "c.c3d",
        "--out",
        "o",
    ]);
    kept(
        &[
            "analyze",
            "--quiet",
            "--census-only",
            "--census",
            "d.c3d",
            "--out",
            "o",
        ],
        "o",
        "o holds the analysis of the census alone to N = 300 with 301 rows settled",
    );
    run(&[
        "analyze",
        "--quiet",
        "--table",
        "t.c3t",
        "--out",
        "a",
        "--replace",
    ]);
    // The figures the same way.
    run(&[&["plot", "--out", "p"], &with[..]].concat());
    kept(
        &["plot", "--table", "t.c3t", "--out", "p"],
        "p",
        "from the table to n = 300 with 301 rows settled (figures.tsv)",
    );
    run(&["plot", "--table", "t.c3t", "--out", "p", "--replace"]);
    // A Grundy census that stopped part way, of the same largest q.
    let periods = [
        "grundy-periods",
        "--quiet",
        "--lines",
        "30",
        "--lag",
        "4608",
    ];
    run(&[&periods[..], &["--out", "g.tsv", "--bfiles", "gb"]].concat());
    let partial = [
        "--out",
        "h.tsv",
        "--bfiles",
        "hb",
        "--max-p",
        "2000",
        "--partial",
    ];
    let _ = chomp3_in(d, &[&periods[..], &partial[..]].concat());
    run(&["plot", "--grundy", "g.tsv", "--out", "gp"]);
    kept(
        &["plot", "--grundy", "h.tsv", "--out", "gp"],
        "gp",
        "496 lines in order (figures.tsv)",
    );
    // Fewer wheels beside the same small graphs.
    for (at, wheels) in [("w1", "wheel:3..8"), ("w2", "wheel:3..6")] {
        let cost = format!("{at}/wheel-cost.tsv");
        run(&["graph", wheels, "--tsv", "--cost", "--out", &cost]);
        let small = format!("{at}/small-graphs.tsv");
        run(&["graph", "geng:1..4", "--summary", "--out", &small]);
    }
    run(&["plot", "--graphs", "w1", "--out", "wp"]);
    kept(
        &["plot", "--graphs", "w2", "--out", "wp"],
        "wp",
        "wheels.png was drawn from the graphs to n = 8 with wheel set {3,4,5,6,7,8}, 6 wheels",
    );
}

/// The guards compare which lines, terms, sizes and slabs a result holds,
/// not how many: a larger run that stopped early, a b-file of another range,
/// a summary listing one size twice, fewer slabs: each kept unless
/// `--replace`, its bytes as they were.
#[test]
fn guards_compare_which_lines_and_terms_not_how_many() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |args: &[&str]| succeeds(d, args);
    let kept =
        |args: &[&str], files: &[&str], says: &str| kept_unless_replace(d, args, files, says);
    // A Grundy census of 20 lines whole, then one of 30 stopped by --max-p:
    // more lines in all (276 > 231), but not (17,17) .. (20,20).
    run(&[
        "grundy-census",
        "--quiet",
        "--lines",
        "20",
        "--out",
        "g.tsv",
        "--bfiles",
        "b",
    ]);
    let cut = [
        "grundy-census",
        "--quiet",
        "--lines",
        "30",
        "--max-p",
        "8000",
    ];
    kept(
        &[&cut[..], &["--out", "g.tsv"]].concat(),
        &["g.tsv"],
        "among them (17,17), which this run of 276 lines did not prove",
    );
    kept(
        &[&cut[..], &["--out", "h.tsv", "--bfiles", "b"]].concat(),
        &["b/grundy-periods.txt", "b/grundy-starts.txt"],
        "holds 231 terms, more than the 170 this run writes",
    );
    let _ = chomp3_in(d, &[&cut[..], &["--out", "h.tsv"]].concat());
    run(&["plot", "--grundy", "g.tsv", "--out", "p"]);
    kept(
        &["plot", "--grundy", "h.tsv", "--out", "p"],
        &["p/grundy-periods.png", "p/figures.tsv"],
        "231 lines in order",
    );
    // A graph b-file of n = 3..7, then one of n = 1..5.
    run(&["graph", "geng:3..7", "--summary", "--bfile", "bf.txt"]);
    kept(
        &["graph", "geng:1..5", "--summary", "--bfile", "bf.txt"],
        &["bf.txt"],
        "among them n = 6, which this run (n = 1..5) does not write",
    );
    // Graphs of n = 1..6, then of n = 6 listed twice (more graphs, one size).
    std::fs::create_dir(d.join("a")).unwrap();
    std::fs::create_dir(d.join("c")).unwrap();
    run(&[
        "graph",
        "geng:1..6",
        "--summary",
        "--out",
        "a/small-graphs.tsv",
    ]);
    run(&[
        "graph",
        "geng:6",
        "geng:6",
        "--summary",
        "--out",
        "c/small-graphs.tsv",
    ]);
    for at in ["a", "c"] {
        let cost = format!("{at}/wheel-cost.tsv");
        run(&["graph", "wheel:3..5", "--tsv", "--cost", "--out", &cost]);
    }
    run(&["plot", "--graphs", "a", "--out", "gp"]);
    kept(
        &["plot", "--graphs", "c", "--out", "gp"],
        &["gp/graph-values.png", "gp/figures.tsv"],
        "with 208 graphs, size set {1,2,3,4,5,6}, 6 sizes",
    );
    // As many sizes, but not n = 1: which sizes, not how many.
    std::fs::create_dir(d.join("e")).unwrap();
    run(&[
        "graph",
        "geng:2..7",
        "--summary",
        "--out",
        "e/small-graphs.tsv",
    ]);
    run(&[
        "graph",
        "wheel:3..5",
        "--tsv",
        "--cost",
        "--out",
        "e/wheel-cost.tsv",
    ]);
    kept(
        &["plot", "--graphs", "e", "--out", "gp"],
        &["gp/graph-values.png", "gp/figures.tsv"],
        "size set {2,3,4,5,6,7}, 6 sizes, would replace it",
    );
    // More graphs and as many sizes, one of 64 vertices, but not n = 1.
    std::fs::create_dir(d.join("f")).unwrap();
    run(&[
        "graph",
        "geng:2..6",
        "path:64",
        "star:63",
        "--summary",
        "--out",
        "f/small-graphs.tsv",
    ]);
    std::fs::copy(d.join("e/wheel-cost.tsv"), d.join("f/wheel-cost.tsv")).unwrap();
    kept(
        &["plot", "--graphs", "f", "--out", "gp"],
        &["gp/graph-values.png", "gp/figures.tsv"],
        "size set {2,3,4,5,6}, size set high {64}, 6 sizes, would replace it",
    );
    // Slab counts of a table to 100, then of one to 60.
    run(&[
        "grundy-table",
        "--quiet",
        "--n",
        "100",
        "--table",
        "a.g3t",
        "--bfiles",
        "s",
    ]);
    std::fs::remove_file(d.join("s/grundy-rectangles.txt")).unwrap();
    kept(
        &[
            "grundy-table",
            "--quiet",
            "--n",
            "60",
            "--table",
            "b.g3t",
            "--bfiles",
            "s",
        ],
        &["s/grundy-slab-counts.tsv"],
        "grundy-slab-counts.tsv holds 100 terms, more than the 60",
    );
}

/// An analysis that replaces another leaves none of the other's files
/// beside its own (a table's values.tsv beside an analysis of a census
/// alone), and says in its summary which kind of source it was made from,
/// whatever the paths are called.
#[test]
fn an_analysis_replaces_the_whole_set_and_says_its_kind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    computed(d, "x--census-only.c3t", 200, &[]);
    let run = |args: &[&str]| succeeds(d, args);
    run(&["census", "--quiet", "--rows", "60", "--out", "c.tsv"]);
    let table = [
        "analyze",
        "--quiet",
        "--table",
        "x--census-only.c3t",
        "--out",
        "a--census-only",
    ];
    run(&table);
    let summary = std::fs::read_to_string(d.join("a--census-only/summary.json")).unwrap();
    assert!(summary.contains("\"census_only\": false"), "{summary}");
    // A user's files of an analysis's names beside it, which its summary
    // does not list: kept by every analysis written there.
    let mine = ["b000045.txt", "b029899.txt.xz", "rows.tsv.xz"];
    for name in mine {
        std::fs::write(d.join("a--census-only").join(name), b"mine").unwrap();
    }
    // The same analysis again: the same kind, written again.
    run(&table);
    assert!(d.join("a--census-only/values.tsv").exists());
    let census_only = [
        "analyze",
        "--quiet",
        "--census-only",
        "--census",
        "c.c3d",
        "--out",
        "a--census-only",
    ];
    run(&[&census_only[..], &["--replace"]].concat());
    assert!(
        !d.join("a--census-only/values.tsv").exists(),
        "the table's values.tsv is gone"
    );
    let mine_kept = || {
        for name in mine {
            assert_eq!(
                std::fs::read(d.join("a--census-only").join(name)).unwrap(),
                b"mine"
            );
        }
    };
    mine_kept();
    let summary = std::fs::read_to_string(d.join("a--census-only/summary.json")).unwrap();
    assert!(summary.contains("\"census_only\": true"), "{summary}");
    // Once the files are gone the summary names none as replaced.
    assert!(summary.contains("\"replaced\": []"), "{summary}");
    // A kill between the commit and the removal leaves the replaced
    // analysis's values.tsv, older than the summary, which names it: the
    // next analysis there removes it. (The state is made here by writing
    // the summary with the list after the file; the clock's tick may be
    // coarse.)
    let (values, summary_path) = (
        d.join("a--census-only/values.tsv"),
        d.join("a--census-only/summary.json"),
    );
    let tick = || std::thread::sleep(std::time::Duration::from_millis(30));
    std::fs::write(&values, b"a table's values").unwrap();
    tick();
    let killed = summary.replace("\"replaced\": []", "\"replaced\": [\"values.tsv\"]");
    std::fs::write(&summary_path, &killed).unwrap();
    run(&census_only);
    assert!(!values.exists(), "the values.tsv left by a kill is gone");
    // A file of that name made after the summary is not the replaced
    // analysis's (a user's own): kept, and by the analyses after.
    // Even a summary that still names it (a kill again) keeps it.
    tick();
    std::fs::write(&values, b"mine").unwrap();
    tick();
    std::fs::write(&summary_path, &killed).unwrap();
    tick();
    std::fs::write(&values, b"mine").unwrap();
    run(&census_only);
    run(&census_only);
    assert_eq!(std::fs::read(&values).unwrap(), b"mine");
    mine_kept();
}

/// A file of a name the new analysis writes, which the summary there does
/// not list as its analysis's (a larger analysis writes `rows.tsv.xz`
/// where a smaller one wrote `rows.tsv`): kept unless `--replace`.
#[test]
fn a_file_the_summary_does_not_list_is_not_written_over() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    computed(d, "t.c3t", 200, &[]);
    let analyze = ["analyze", "--quiet", "--table", "t.c3t", "--out", "a"];
    succeeds(d, &analyze);
    // The summary as that of an analysis that wrote no values.tsv, and a
    // user's own file of that name beside it.
    let path = d.join("a/summary.json");
    let summary = std::fs::read_to_string(&path).unwrap();
    let unlisted = summary.replace("\"values.tsv\"", "\"report.md\"");
    assert_ne!(summary, unlisted, "the summary lists values.tsv: {summary}");
    std::fs::write(&path, unlisted).unwrap();
    std::fs::write(d.join("a/values.tsv"), b"mine").unwrap();
    kept_unless_replace(
        d,
        &analyze,
        &["a/values.tsv"],
        "a/values.tsv is not one of the files the analysis there lists in its summary.json",
    );
}

/// An output named `*.xz` would be written plain and then read as
/// compressed (and refused as not whole): refused before any work.
#[test]
fn an_output_named_as_compressed_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for args in [
        &["census", "--quiet", "--rows", "10", "--out", "c.tsv.xz"][..],
        &[
            "census",
            "--quiet",
            "--rows",
            "10",
            "--out",
            "c.tsv",
            "--descriptors",
            "d.c3d.xz",
        ],
        &[
            "grundy-census",
            "--quiet",
            "--lines",
            "3",
            "--out",
            "g.tsv.xz",
        ],
        &["graph", "wheel:4", "--out", "h.txt.xz"],
    ] {
        refused(d, args, 1, "chomp3 writes this file plain");
    }
    assert_eq!(std::fs::read_dir(d).unwrap().count(), 0, "nothing written");
}

/// An output named as chomp3 names its files aside (`.NAME.new-PID`) would
/// be removed by the next run writing `NAME`, and one named as a lock
/// (`.NAME.lock`) would stop every writer of `NAME`: refused before any work.
#[test]
fn an_output_named_as_a_file_aside_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for args in [
        &["graph", "wheel:4", "--out", ".h.txt.new-30001"][..],
        &["compute", "--quiet", "--n", "10", "--table", ".t.c3t.new-5"],
        &["census", "--quiet", "--rows", "10", "--out", ".c.tsv.new-7"],
        &["census", "--quiet", "--rows", "10", "--out", ".c.tsv.lock"],
    ] {
        refused(
            d,
            args,
            1,
            "chomp3 names the files it keeps beside an output so",
        );
    }
    assert_eq!(std::fs::read_dir(d).unwrap().count(), 0, "nothing written");
}

/// `run` keeps an analysis and figures made with a census (or files it did
/// not write) in data/run/ and plots/run/ unless `--replace`, as `analyze`
/// and `plot` keep theirs; the same run again writes them again.
#[test]
fn run_keeps_results_that_hold_more_unless_replace_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |args: &[&str]| succeeds(d, args);
    run(&["census", "--quiet", "--rows", "300", "--out", "c.tsv"]);
    let with = ["run", "--n", "300", "--threads", "1", "--census", "c.c3d"];
    run(&with);
    run(&with);
    let both = || [files(&d.join("data/run")), files(&d.join("plots/run"))];
    let before = both();
    let o = chomp3_in(d, &["run", "--n", "300", "--threads", "1"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let last = err.trim_end().lines().last().unwrap_or("");
    assert!(
        last.contains("data/run holds the analysis of a table to N = 300 with 301 rows settled")
            && last.contains("--replace"),
        "{err}"
    );
    assert!(both() == before, "nothing replaced");
    run(&["run", "--n", "300", "--threads", "1", "--replace"]);
    assert!(both() != before);
}

#[test]
fn analyze_says_when_it_has_no_census_and_records_the_one_it_was_given() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    computed(d, "t.c3t", 200, &[]);
    let out = chomp3_in(d, &["analyze", "--quiet", "--table", "t.c3t", "--out", "a"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no census at data/census-1000000/census.c3d.xz"),
        "{err}"
    );
    let census = chomp3_in(d, &["census", "--quiet", "--rows", "60", "--out", "c.tsv"]);
    assert!(census.status.success());
    let out = chomp3_in(
        d,
        &[
            "analyze", "--quiet", "--table", "t.c3t", "--census", "c.c3d", "--out", "b",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = std::fs::read_to_string(d.join("b/report.md")).unwrap();
    assert!(
        report.contains("chomp3 analyze --table t.c3t --census c.c3d --out b"),
        "the report records the command as given"
    );
}

#[test]
fn graph_says_when_its_input_holds_no_graph() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args(["graph", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"").unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no graphs read"), "{err}");
    assert!(out.stdout.is_empty());
}

/// `grundy-census --out` and `grundy-periods --out` keep a census of more
/// lines at their output unless given `--replace`, as `census` does.
#[test]
fn an_output_that_is_a_link_is_refused_and_nothing_is_replaced() {
    // A result is never written through a symbolic link: a link to another
    // output of the same command, to nothing, or to a file elsewhere is
    // refused, and every file stays as it was.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let census = [
        "grundy-census",
        "--quiet",
        "--lines",
        "4",
        "--out",
        "g.tsv",
        "--bfiles",
        "b",
    ];
    assert!(chomp3_in(d, &census).status.success());
    let link = |to: &str, at: &str| std::os::unix::fs::symlink(to, d.join(at)).unwrap();
    link("g.tsv", "alias.tsv");
    link("../g.tsv", "b/p.txt");
    link("nowhere.tsv", "dangling.tsv");
    let before = files(d);
    for args in [
        &["grundy-census", "--lines", "4", "--out", "alias.tsv"][..],
        &["grundy-census", "--lines", "4", "--out", "dangling.tsv"],
        &[
            "census",
            "--rows",
            "5",
            "--out",
            "c.tsv",
            "--descriptors",
            "dangling.tsv",
        ],
        &[
            "graph",
            "geng:1..3",
            "--summary",
            "--out",
            "r.txt",
            "--bfile",
            "dangling.tsv",
        ],
    ] {
        refused(d, args, 1, "is a symbolic link");
    }
    assert!(files(d) == before, "nothing written or replaced");
    assert!(!d.join("nowhere.tsv").exists() && !d.join("c.tsv").exists());
    // A set written by analyze: one member a link, and the old set stays whole.
    let t40 = computed(d, "t40.c3t", 40, &[]);
    let t60 = computed(d, "t60.c3t", 60, &[]);
    let analyze = |t: &Path| {
        chomp3_in(
            d,
            &["analyze", "--table", t.to_str().unwrap(), "--out", "a"],
        )
    };
    assert!(analyze(&t40).status.success());
    std::fs::remove_file(d.join("a/rows.tsv")).unwrap();
    std::os::unix::fs::symlink("summary.json", d.join("a/rows.tsv")).unwrap();
    let set = files(&d.join("a"));
    let out = analyze(&t60);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("is a symbolic link"), "{err}");
    assert!(files(&d.join("a")) == set, "the old analysis whole");
    let names: Vec<String> = std::fs::read_dir(d.join("a"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains(".new-")), "{names:?}");
}

#[test]
fn a_larger_grundy_census_is_kept_unless_replace_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |args: &[&str]| common::chomp3_in(d, args);
    let census = |q: &'static str| vec!["grundy-census", "--quiet", "--lines", q, "--out", "g.tsv"];
    let periods = |q: &'static str| {
        let lag = ["--lag", "4608", "--bfiles", "b", "--out", "p.tsv"];
        let mut args = vec!["grundy-periods", "--quiet", "--lines", q];
        args.extend(lag);
        args
    };
    for (big, small) in [(census("14"), census("9")), (periods("12"), periods("8"))] {
        assert!(run(&big).status.success());
        let out = big[big.len() - 1];
        let before = std::fs::read(d.join(out)).unwrap();
        let o = run(&small);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains("more than this run's q <=") && err.contains("pass --replace"),
            "{err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert_eq!(std::fs::read(d.join(out)).unwrap(), before, "kept");
        let mut replace = small.clone();
        replace.push("--replace");
        assert!(run(&replace).status.success());
        assert_ne!(
            std::fs::read(d.join(out)).unwrap(),
            before,
            "replaced when asked"
        );
        // The same run again is the same result made again: no --replace needed.
        assert!(run(&small).status.success());
    }
}

#[test]
fn a_recorded_command_quotes_its_paths_and_reads_back_as_given() {
    // A path with a space, a quote, a dollar and a newline: the file's first
    // line stays one line, and the shell reads its arguments back as given.
    let d = tempfile::tempdir().unwrap();
    let name = "it's a $HOME\nfile.txt";
    let out = d.path().join(name);
    let o = chomp3(&["graph", "wheel:5", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    let first = text.lines().next().unwrap();
    let recorded = first
        .strip_prefix("# chomp3 ")
        .expect("the command line first");
    assert!(
        !text.lines().nth(1).unwrap().starts_with("file.txt"),
        "{text}"
    );
    let back = Command::new("bash")
        .args(["-c", &format!("printf '%s\\0' {recorded}")])
        .output()
        .unwrap();
    let args: Vec<String> = String::from_utf8(back.stdout)
        .unwrap()
        .split_terminator('\0')
        .map(String::from)
        .collect();
    assert_eq!(
        args,
        ["graph", "wheel:5", "--out", out.to_str().unwrap()],
        "{first}"
    );
}

#[test]
fn larger_b_files_are_kept_unless_replace_is_given() {
    // A run of fewer lines into b-files of more is refused before any work,
    // and the b-files stay as they were; with --replace it writes them.
    let d = tempfile::tempdir().unwrap();
    let b = d.path().join("b");
    let b = b.to_str().unwrap();
    let periods = |lines: &str, extra: &[&str]| {
        let mut args = vec![
            "grundy-periods",
            "--quiet",
            "--lines",
            lines,
            "--lag",
            "18432",
        ];
        args.extend(["--bfiles", b]);
        args.extend(extra);
        chomp3(&args)
    };
    assert!(periods("6", &[]).status.success());
    let file = d.path().join("b/grundy-periods.txt");
    let before = std::fs::read(&file).unwrap();
    let o = periods("3", &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("holds 28 terms, more than the 10") && err.contains("--replace"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(std::fs::read(&file).unwrap() == before);
    // The Grundy census's b-files alike.
    let out = d.path().join("g.tsv");
    let o = chomp3(&[
        "grundy-census",
        "--quiet",
        "--lines",
        "2",
        "--bfiles",
        b,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(std::fs::read(&file).unwrap() == before);
    assert!(periods("3", &["--replace"]).status.success());
    assert!(std::fs::read(&file).unwrap() != before);
}

#[test]
fn compute_and_transpose_wait_for_no_other_writer_of_their_path() {
    // Another process (here this test) writes a file at the path, holding its
    // lock (a census's checkpoint, a graph's memo): the table is not made
    // there, and nothing is written.
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("x.c3k");
    let lock = std::fs::File::create(d.path().join(".x.c3k.lock")).unwrap();
    lock.try_lock().unwrap();
    let o = chomp3(&[
        "compute",
        "--quiet",
        "--n",
        "5",
        "--table",
        path.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("being written by another process"), "{err}");
    assert!(!path.exists());
    let t = computed(d.path(), "t.c3t", 20, &[]);
    let o = chomp3(&[
        "transpose",
        "--table",
        t.to_str().unwrap(),
        "--out",
        path.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("being written by another process"), "{err}");
    assert!(!path.exists());
    drop(lock);
    let o = chomp3(&[
        "compute",
        "--quiet",
        "--n",
        "5",
        "--table",
        path.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn grundy_table_keeps_longer_b_files_unless_replace_is_given() {
    let d = tempfile::tempdir().unwrap();
    let b = d.path().join("b");
    let (b, gc) = (b.to_str().unwrap(), d.path().join("gc.tsv"));
    let o = chomp3(&[
        "grundy-census",
        "--quiet",
        "--lines",
        "4",
        "--out",
        gc.to_str().unwrap(),
        "--bfiles",
        b,
        "--rectangles",
        "60",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let file = d.path().join("b/grundy-rectangles.txt");
    let before = std::fs::read(&file).unwrap();
    let g = d.path().join("g.g3t");
    let table = |extra: &[&str]| {
        let mut args = vec![
            "grundy-table",
            "--quiet",
            "--n",
            "20",
            "--table",
            g.to_str().unwrap(),
        ];
        args.extend(["--bfiles", b]);
        args.extend(extra);
        chomp3(&args)
    };
    let o = table(&[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("holds 60 terms, more than the 20") && err.contains("--replace"),
        "{err}"
    );
    assert!(!g.exists(), "nothing computed");
    assert!(std::fs::read(&file).unwrap() == before);
    assert!(table(&["--replace"]).status.success());
    assert!(std::fs::read(&file).unwrap() != before);
}

/// A run that did not prove every line (`grundy-periods --partial`, a
/// `grundy-census` cut short by `--max-p`) keeps a result of more lines or
/// terms at its outputs, as a run of fewer lines does; and a census of no
/// line but (0,0) by two sweeps is refused in one line.
#[test]
fn a_run_not_finished_keeps_a_result_of_more_lines() {
    let d = tempfile::tempdir().unwrap();
    let at = |name: &str| d.path().join(name).to_str().unwrap().to_string();
    let (b, p) = (at("b"), at("p.tsv"));
    let files = |names: &[String]| -> Vec<Vec<u8>> {
        names.iter().map(|n| std::fs::read(n).unwrap()).collect()
    };
    let refused = |o: std::process::Output| {
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        err
    };
    let periods = [
        "grundy-periods",
        "--quiet",
        "--lines",
        "30",
        "--lag",
        "4608",
    ];
    let whole = [&periods[..], &["--bfiles", &b, "--out", &p]].concat();
    assert!(chomp3(&whole).status.success());
    let kept = [
        p.clone(),
        format!("{b}/grundy-periods.txt"),
        format!("{b}/grundy-starts.txt"),
    ];
    let before = files(&kept);
    let err = refused(chomp3(
        &[&whole[..], &["--max-p", "2000", "--partial"]].concat(),
    ));
    assert!(
        err.contains("more than") && err.contains("--replace"),
        "{err}"
    );
    assert!(files(&kept) == before);
    let (b2, c) = (at("b2"), at("c.tsv"));
    let census = [
        "grundy-census",
        "--quiet",
        "--lines",
        "20",
        "--bfiles",
        &b2,
        "--out",
        &c,
    ];
    assert!(chomp3(&census).status.success());
    let kept = [
        c.clone(),
        format!("{b2}/grundy-periods.txt"),
        format!("{b2}/grundy-starts.txt"),
    ];
    let before = files(&kept);
    let err = refused(chomp3(&[&census[..], &["--max-p", "3000"]].concat()));
    assert!(
        err.contains("231 lines, among them (") && err.contains("--replace"),
        "{err}"
    );
    assert!(files(&kept) == before);
    // No lines: an argument error (exit 2), not a panic.
    let o = chomp3(&[
        "grundy-periods",
        "--quiet",
        "--lines",
        "0",
        "--lag",
        "100",
        "--bfiles",
        &at("b0"),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("Q >= 1") && !err.contains("panicked"), "{err}");
}

/// A graph b-file counts each n once, from one run of n: repeated or
/// overlapping geng ranges, a gap, or subgraphs are refused before any work.
#[test]
fn a_graph_b_file_counts_each_n_once() {
    let d = tempfile::tempdir().unwrap();
    let bfile = d.path().join("b.txt");
    let bfile = bfile.to_str().unwrap();
    for sources in [
        &["geng:4", "geng:4"][..],
        &["geng:2..3", "geng:3..4"],
        &["geng:3", "geng:5"],
        &["geng:4", "--subgraphs"],
    ] {
        let args = [
            &["graph", "--quiet", "--summary", "--bfile", bfile][..],
            sources,
        ]
        .concat();
        let o = chomp3(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{sources:?}: {err}");
        assert!(err.contains("counts each n once"), "{sources:?}: {err}");
        assert!(!Path::new(bfile).exists());
    }
    let o = chomp3(&[
        "graph",
        "--quiet",
        "--summary",
        "--bfile",
        bfile,
        "geng:3..4",
        "geng:1..2",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A graph b-file of more terms is kept unless `--replace` is given.
#[test]
fn a_graph_b_file_of_more_terms_is_kept() {
    let d = tempfile::tempdir().unwrap();
    let bfile = d.path().join("b.txt");
    let bfile = bfile.to_str().unwrap();
    let run = |range: &str, extra: &[&str]| {
        let args = [
            &["graph", "--quiet", "--summary", "--bfile", bfile, range][..],
            extra,
        ]
        .concat();
        chomp3(&args)
    };
    assert!(run("geng:1..5", &[]).status.success());
    let before = std::fs::read(bfile).unwrap();
    let o = run("geng:1..3", &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("holds 5 terms, among them n = 4, which this run (n = 1..3)")
            && err.contains("--replace"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(std::fs::read(bfile).unwrap() == before);
    assert!(run("geng:1..3", &["--replace"]).status.success());
    assert!(std::fs::read(bfile).unwrap() != before);
}

/// A graph result that this run's differs from (other graphs, or other
/// values) is kept unless `--replace` is given; the same result, whatever the
/// command's options, is written again.
#[test]
fn a_graph_result_of_other_graphs_is_kept_unless_replace_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let first = ["graph", "wheel:5..9", "--out", "g.txt"];
    assert!(chomp3_in(d, &first).status.success());
    let before = files(d);
    refused(
        d,
        &["graph", "path:3", "--out", "g.txt"],
        1,
        "g.txt holds another result (line 2 differs); it is kept and this run's result was not written; pass --replace",
    );
    assert!(files(d) == before, "kept");
    // Other graphs under the same command line: from standard input.
    let piped = |input: &str, extra: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_chomp3"));
        c.current_dir(d)
            .args(["graph", "-", "--out", "s.txt"])
            .args(extra);
        let mut child = c
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write as _;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    assert!(piped("D?{\n", &[]).status.success());
    let kept = std::fs::read(d.join("s.txt")).unwrap();
    let other = piped("Bw\n", &[]);
    assert_eq!(other.status.code(), Some(1), "{other:?}");
    assert!(std::fs::read(d.join("s.txt")).unwrap() == kept);
    // The same result by other options: written again.
    let threads = ["graph", "wheel:5..9", "--out", "./g.txt", "--threads", "2"];
    assert!(chomp3_in(d, &threads).status.success());
    let again = std::fs::read_to_string(d.join("g.txt")).unwrap();
    let old = String::from_utf8(before[0].1.clone()).unwrap();
    assert_eq!(
        again.split_once('\n').unwrap().1,
        old.split_once('\n').unwrap().1
    );
    let replaced = chomp3_in(d, &["graph", "path:3", "--out", "g.txt", "--replace"]);
    assert!(replaced.status.success(), "{replaced:?}");
    let text = std::fs::read_to_string(d.join("g.txt")).unwrap();
    assert!(
        text.contains("path:3: g = ") && !text.contains("wheel"),
        "{text}"
    );
}

/// A checkpoint a killed writer left aside (`.NAME.new-PID`, its process
/// gone) is removed by the run that finishes the job, even one that ends
/// before its first save.
#[test]
fn a_finished_run_removes_the_checkpoint_a_killed_one_left_aside() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut gone = Command::new("true").spawn().unwrap();
    let pid = gone.id();
    gone.wait().unwrap();
    for (aside, args) in [
        (
            format!(".c.c3k.new-{pid}"),
            "census --quiet --rows 300 --out c.tsv",
        ),
        (
            format!(".p.ck.new-{pid}"),
            "grundy-periods --quiet --lines 4 --lag 18432 --bfiles b --checkpoint p.ck",
        ),
    ] {
        std::fs::write(d.join(&aside), b"a partial checkpoint").unwrap();
        let args: Vec<&str> = args.split(' ').collect();
        let out = chomp3_in(d, &args);
        assert!(out.status.success(), "{out:?}");
        assert!(!d.join(&aside).exists(), "{aside} left");
    }
}

/// Two Grundy censuses that stopped with as many lines but other ones: the
/// figure of one is kept from the other (which lines, not how many); a
/// whole census of as large a `Q` holds every line, and replaces either.
#[test]
fn a_grundy_figure_is_kept_from_a_census_of_other_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let stopped = chomp3_in(
        d,
        &[
            "grundy-census",
            "--quiet",
            "--lines",
            "24",
            "--max-p",
            "3000",
            "--out",
            "a.tsv",
        ],
    );
    assert_eq!(
        stopped.status.code(),
        Some(1),
        "stopped with the lines proved"
    );
    let stopped = chomp3_in(
        d,
        &[
            "grundy-periods",
            "--quiet",
            "--lines",
            "24",
            "--lag",
            "9216",
            "--bfiles",
            "pb",
            "--out",
            "b.tsv",
            "--max-p",
            "500",
            "--partial",
        ],
    );
    assert_eq!(
        stopped.status.code(),
        Some(1),
        "stopped with the lines done"
    );
    let lines = |f: &str| -> std::collections::BTreeSet<(u32, u32)> {
        (std::fs::read_to_string(d.join(f)).unwrap().lines())
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| {
                let mut w = l.split_whitespace().map(|x| x.parse::<u32>());
                Some((w.next()?.ok()?, w.next()?.ok()?))
            })
            .collect()
    };
    let (a, b) = (lines("a.tsv"), lines("b.tsv"));
    assert_eq!(a.len(), b.len(), "as many lines");
    assert!(!a.is_subset(&b), "lines of a.tsv that b.tsv lacks");
    succeeds(d, &["plot", "--grundy", "a.tsv", "--out", "p"]);
    kept_unless_replace(
        d,
        &["plot", "--grundy", "b.tsv", "--out", "p"],
        &["p/grundy-periods.png", "p/figures.tsv"],
        "would replace it",
    );
    succeeds(
        d,
        &[
            "grundy-census",
            "--quiet",
            "--lines",
            "24",
            "--out",
            "whole.tsv",
        ],
    );
    succeeds(d, &["plot", "--grundy", "whole.tsv", "--out", "p"]);
    kept_unless_replace(
        d,
        &["plot", "--grundy", "a.tsv", "--out", "p"],
        &["p/grundy-periods.png", "p/figures.tsv"],
        "would replace it",
    );
}

/// An output named as another run's lock (an empty file, as a lock is) is
/// refused for its name, before anything there is looked at: never offered
/// `--replace`, which would replace a live lock; and the lock stays.
#[test]
fn an_output_named_as_a_lock_is_refused_for_its_name_first() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join(".c.tsv.lock"), b"").unwrap();
    std::fs::write(d.join(".t.c3t.lock"), b"").unwrap();
    let name = "chomp3 names the files it keeps beside an output so";
    for args in [
        vec!["census", "--quiet", "--rows", "10", "--out", ".c.tsv.lock"],
        vec![
            "census",
            "--quiet",
            "--rows",
            "10",
            "--out",
            ".c.tsv.lock",
            "--replace",
        ],
        vec!["compute", "--quiet", "--n", "10", "--table", ".t.c3t.lock"],
    ] {
        refused(d, &args, 1, name);
    }
    assert_eq!(std::fs::read(d.join(".c.tsv.lock")).unwrap(), b"");
    // The outputs that are directories: a directory of that name would
    // stand where the writer of `c.tsv` takes its lock.
    succeeds(d, &["compute", "--quiet", "--n", "60", "--table", "t.c3t"]);
    for out in [".c.tsv.lock", ".c.tsv.new-12"] {
        refused(
            d,
            &["analyze", "--quiet", "--table", "t.c3t", "--out", out],
            1,
            name,
        );
        refused(d, &["plot", "--table", "t.c3t", "--out", out], 1, name);
        refused(
            d,
            &[
                "grundy-table",
                "--quiet",
                "--n",
                "8",
                "--table",
                "g.g3t",
                "--bfiles",
                out,
            ],
            1,
            name,
        );
        refused(
            d,
            &[
                "grundy-census",
                "--quiet",
                "--lines",
                "4",
                "--out",
                "gc.tsv",
                "--bfiles",
                out,
            ],
            1,
            name,
        );
        refused(
            d,
            &[
                "grundy-periods",
                "--quiet",
                "--lines",
                "4",
                "--lag",
                "576",
                "--bfiles",
                out,
            ],
            1,
            name,
        );
        assert!(!d.join(out).is_dir(), "{out}");
    }
}

/// A note on standard error that names a path holding a newline stays one
/// line, the newline escaped as in an error.
#[test]
fn a_note_naming_a_path_with_a_newline_is_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    succeeds(
        d,
        &["census", "--quiet", "--rows", "300", "--out", "n\nl.tsv"],
    );
    let out = chomp3_in(d, &["get", "1000", "100", "--census", "n\nl.c3d"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.starts_with("chomp3: from n\\nl.c3d: row 100"), "{err}");
}
