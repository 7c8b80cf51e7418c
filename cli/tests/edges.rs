//! Numbers at the edges: values near and past `2^64` are given exactly or
//! refused with the cause named, never wrapped. Each expected value comes from
//! another source than the one under test: a value past `2^64` is reduced by
//! the line's period to a small `p` (or `q`), which the sweep (or a table)
//! computes on its own.

use crate::common;

use std::path::PathBuf;

use common::{census_in, chomp3, chomp3_ok, chomp3_within, computed};

fn repo(path: &str) -> String {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .join(path)
        .display()
        .to_string()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// The first line of stdout: the value, before any note on its source.
fn value(o: &std::process::Output) -> String {
    stdout(o).lines().next().unwrap_or("").to_string()
}

/// `(start, period)` of line `(q, r)` in a Grundy census file (either kind).
fn start_period(census: &str, q: u32, r: u32) -> (u128, u128) {
    let text = std::fs::read_to_string(census).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{q}\t{r}\t")))
        .expect("line in the census");
    let f: Vec<&str> = line.split('\t').collect();
    (f[2].parse().unwrap(), f[3].parse().unwrap())
}

#[test]
fn nim_near_two_to_the_64_is_exact() {
    for (census, q, r) in [
        ("data/grundy-census-40/grundy-census.tsv", 30, 20),
        ("data/grundy-census-40/grundy-census.tsv", 4, 4),
        ("data/grundy-periods-300/grundy-periods-census.tsv", 4, 4),
    ] {
        let census = repo(census);
        let (start, period) = start_period(&census, q, r);
        for p in [u64::MAX, u64::MAX - 2] {
            // G(p) - p repeats with the period: G(p) = p - p' + G(p'), with
            // G(p') from the sweep alone (no census named).
            let small = start + (u128::from(p) - start) % period;
            let g_small: u128 = value(&chomp3_ok(&[
                "nim",
                &small.to_string(),
                &q.to_string(),
                &r.to_string(),
            ]))
            .parse()
            .unwrap();
            let want = u128::from(p) - small + g_small;
            let out = chomp3_ok(&[
                "nim",
                &p.to_string(),
                &q.to_string(),
                &r.to_string(),
                "--grundy-census",
                &census,
            ]);
            assert_eq!(
                value(&out),
                want.to_string(),
                "G({p},{q},{r}) from {census}"
            );
        }
    }
}

#[test]
fn get_near_two_to_the_64_is_exact() {
    // Row 120 is periodic (period 2) from q = 170; a census of 130 rows proves
    // it. f(q,120) - q at q = 2^64 - 1 equals that at a q' <= 400 past the
    // start with the same residue modulo the period, read from a table.
    let dir = tempfile::tempdir().unwrap();
    let table = computed(dir.path(), "t.c3t", 400, &[]);
    let c3d = census_in(dir.path(), 130);
    let explain = stdout(&chomp3_ok(&[
        "get",
        "1000",
        "120",
        "--census",
        c3d.to_str().unwrap(),
        "--explain",
    ]));
    // "... f(q,5) - q repeats [a,b,..] from q = s"
    let pattern = explain
        .split('[')
        .nth(1)
        .unwrap()
        .split(']')
        .next()
        .unwrap();
    let period = pattern.split(',').count() as u128;
    let start: u128 = explain
        .rsplit("from q = ")
        .next()
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let q = u128::from(u64::MAX);
    let small = start + (q - start) % period + period; // inside the table, past the start
    assert!(period > 1 && small <= 400);
    let f_small: u128 = value(&chomp3_ok(&[
        "get",
        &small.to_string(),
        "120",
        "--table",
        table.to_str().unwrap(),
    ]))
    .parse()
    .unwrap();
    let want = q + f_small - small;
    assert!(want > u128::from(u64::MAX), "the case passes 2^64");
    // No table at the default path of `dir`: the census answers.
    let got = common::chomp3_in(
        dir.path(),
        &["get", &q.to_string(), "120", "--census", "c.c3d"],
    );
    assert!(
        got.status.success(),
        "{}",
        String::from_utf8_lossy(&got.stderr)
    );
    assert_eq!(value(&got), want.to_string());
}

#[test]
fn graph_sizes_past_the_limit_are_refused_not_wrapped() {
    for spec in [
        "star:18446744073709551615",
        "wheel:18446744073709551615",
        "fan:18446744073709551615",
        "complete:18446744073709551615",
        "bipartite:18446744073709551615,1",
        "multipartite:1,18446744073709551615",
        "gmk:18446744073709551615,1",
        "wheel:3..18446744073709551615",
        "path:99999999999999999999999",
        // Ranges whose product would be built whole: refused by their count.
        "multipartite:0..64,0..64,0..64,0..64,0..64",
    ] {
        let out = chomp3(&["graph", spec]);
        let err = String::from_utf8_lossy(&out.stderr);
        // A family that names no graph it can hold is an argument error.
        assert_eq!(out.status.code(), Some(2), "{spec}: {err}");
        assert!(
            err.contains("at most 64") || err.contains("may name at most 100000"),
            "{spec}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{spec}: {err}");
        assert!(out.stdout.is_empty(), "{spec}");
    }
    let dir = tempfile::tempdir().unwrap();
    for edge in [
        "18446744073709551615 18446744073709551615",
        "0 18446744073709551615",
        "0 64",
        "0 99999999999999999999999",
    ] {
        let path = dir.path().join("e.txt");
        std::fs::write(&path, format!("0 1\n{edge}\n")).unwrap();
        let out = chomp3(&["graph", "--edges", path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{edge}: {err}");
        assert!(
            err.contains(":2: vertex") && err.contains("beyond the largest, 63"),
            "{edge}: {err}"
        );
    }
}

#[test]
fn a_cut_or_edited_grundy_census_is_refused() {
    let census = std::fs::read(repo("data/grundy-periods-300/grundy-periods-census.tsv")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("periods.tsv");
    let p = path.to_str().unwrap();
    // The sweep alone, no census: the value to agree with.
    let want = value(&chomp3_ok(&["nim", "100000", "8", "4"]));
    std::fs::write(&path, &census).unwrap();
    assert_eq!(
        value(&chomp3_ok(&[
            "nim",
            "100000",
            "8",
            "4",
            "--grundy-census",
            p
        ])),
        want
    );
    // Cut inside the line of (8,4) ("8\t4\t281\t576"), just after its "5".
    let line = b"\n8\t4\t281\t5";
    let at = census.windows(line.len()).position(|w| w == line).unwrap() + line.len();
    let text = String::from_utf8(census.clone()).unwrap();
    let edited = text.replacen("\n8\t4\t281\t576\n", "\n8\t4\t281\t288\n", 1);
    assert_ne!(edited, text);
    for bad in [
        &census[..at],
        &census[..census.len() - 1],
        edited.as_bytes(),
    ] {
        std::fs::write(&path, bad).unwrap();
        let out = chomp3(&["nim", "100000", "8", "4", "--grundy-census", p]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(out.stdout.is_empty());
        assert!(err.contains(p) && err.contains("end line"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

#[test]
fn a_reader_that_closes_the_pipe_early_gets_no_panic() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let table = computed(dir.path(), "t.c3t", 300, &[]);
    let t = table.to_str().unwrap();
    for args in [
        vec!["dump", "--table", t],
        vec!["info", "--verify", "--table", t],
        vec!["position", "20", "20", "20", "--table", t],
        vec!["row", "3", "--table", t],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_chomp3"))
            .current_dir(dir.path())
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Like `| head -1`: one line read, then the pipe closed.
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(!first.is_empty(), "{args:?}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_ne!(status.code(), Some(101), "{args:?}");
    }
}

#[test]
fn jobs_beyond_the_machine_are_refused_before_they_allocate() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let g3t = format!("{d}/x.g3t");
    let census = format!("{d}/c.tsv");
    let g = format!("{d}/g.tsv");
    let b = format!("{d}/b");
    for (args, says) in [
        (
            vec!["census", "--rows", "1000000000", "--out", &census],
            "a census of rows",
        ),
        (
            vec!["nim", "100000", "100000", "100000"],
            "the Grundy sweep of every line q <= 100000",
        ),
        (
            vec!["position", "100000", "100000", "100000", "--nim"],
            "the value of every move from [100000,100000,100000]",
        ),
        (
            vec![
                "grundy-census",
                "--lines",
                "10",
                "--out",
                &g,
                "--bfiles",
                &b,
                "--rectangles",
                "100000",
            ],
            "the Grundy sweep",
        ),
        (
            vec!["grundy-table", "--n", "100000", "--table", &g3t],
            "beyond the largest Grundy table",
        ),
    ] {
        let out = chomp3(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
    assert_eq!(std::fs::read_dir(d).unwrap().count(), 0, "nothing written");
}

#[test]
fn a_census_beyond_the_machine_is_refused_before_any_work() {
    // 4*10^9 rows: terabytes by any account of the census (doc/scaling.md),
    // whatever the machine running the test has.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.tsv");
    let o = chomp3(&[
        "census",
        "--rows",
        "4000000000",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("needs about") && err.contains("nothing was computed"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// A thread count the machine should not run is refused before any thread
/// starts or any file is written.
#[test]
fn too_many_worker_threads_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.c3t");
    let o = chomp3(&[
        "compute",
        "--n",
        "50",
        "--threads",
        "1000000",
        "--table",
        t.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--threads 1000000: 1000000 worker threads is more than"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!t.exists());
}

#[test]
fn an_interval_refused_is_quoted_as_given() {
    // Twenty digits are past an f64's precision: the refusal quotes them,
    // not the float nearest to them.
    let dir = tempfile::tempdir().unwrap();
    let (out, table) = (dir.path().join("c.tsv"), dir.path().join("t.c3t"));
    let (out, table) = (out.to_str().unwrap(), table.to_str().unwrap());
    let given = "12345678901234567891";
    for args in [
        [
            "census",
            "--rows",
            "10",
            "--out",
            out,
            "--checkpoint-secs",
            given,
        ],
        [
            "compute",
            "--n",
            "10",
            "--table",
            table,
            "--commit-secs",
            given,
        ],
    ] {
        let o = chomp3(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        let want =
            format!("give a number of seconds from 0 to 10000000 (about 116 days), not {given}");
        assert!(err.trim_end().ends_with(&want), "{err}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// Runs `chomp3 args` under an address-space limit of `kib` KiB
/// (`ulimit -v`), for at most two minutes: its exit code and standard error.
fn chomp3_limited(dir: &std::path::Path, kib: u64, args: &str) -> (Option<i32>, String) {
    chomp3_limited_with(dir, kib, args, 0)
}

/// [`chomp3_limited`] with rayon's global pool of `threads` threads (0: one
/// per core).
fn chomp3_limited_with(
    dir: &std::path::Path,
    kib: u64,
    args: &str,
    threads: usize,
) -> (Option<i32>, String) {
    let mut command = std::process::Command::new("sh");
    if threads > 0 {
        command.env("RAYON_NUM_THREADS", threads.to_string());
    }
    let out = command
        .current_dir(dir)
        .arg("-c")
        .arg(format!(
            "ulimit -v {kib} && exec timeout 120 '{}' {args}",
            env!("CARGO_BIN_EXE_chomp3")
        ))
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A census of periods that cannot fit under the process's limit is refused
/// before it starts, and nothing is written.
#[test]
fn a_census_of_periods_past_the_process_limit_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let (code, err) = chomp3_limited(
        dir.path(),
        100_000,
        "grundy-periods --lines 300 --lag 1000 --bfiles D --quiet",
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with(
            "chomp3: error: a census of the periods of every line q <= 300 needs about"
        ) && err.contains("this process may map (ulimit -v) 98 MiB; nothing was computed"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // The same census with room runs.
    let (code, err) = chomp3_limited(
        dir.path(),
        4_000_000,
        "grundy-periods --lines 12 --lag 576 --bfiles D --quiet",
    );
    assert_eq!(code, Some(0), "{err}");
}

/// `get 7 5` from the committed census `data/NAME` under a limit of `kib`
/// KiB, which must fail: its standard error.
fn committed_census_under(name: &str, kib: u64) -> String {
    let census = format!(
        "{}/../data/{name}/census.c3d.xz",
        env!("CARGO_MANIFEST_DIR")
    );
    let dir = tempfile::tempdir().unwrap();
    let (code, err) = chomp3_limited(dir.path(), kib, &format!("get 7 5 --census '{census}'"));
    assert_eq!(code, Some(1), "{err}");
    err
}

/// Where memory runs out (the committed census to 10^6, read whole, under
/// a limit), the process ends in one line with status 1, not an abort, and
/// says what it could not have: the room for the file's bytes, or, where
/// another allocation fails first, the allocator's own line.
#[test]
fn memory_running_out_ends_in_one_line_not_an_abort() {
    let err = committed_census_under("census-1000000", 100_000);
    let room = "census.c3d.xz: not enough memory to decompress it; run it again with more memory";
    let allocator = "(this process may map 97.7 MiB: ulimit -v 100000)";
    assert!(
        err.starts_with("chomp3: error: ")
            && (err.contains(room) || err.contains(allocator))
            && err.contains("run it again with more memory"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// Where the worker threads cannot all be started (many asked of a small
/// address space), a job on rayon's global pool ends in one line, never a
/// panic or an abort, whether the threads or an allocation fail first.
#[test]
fn worker_threads_that_cannot_start_end_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for _ in 0..4 {
        // The job's estimate fits, but 200 threads' stacks alone (2 MiB
        // each) pass the limit.
        let (code, err) = chomp3_limited_with(
            dir.path(),
            250_000,
            "grundy-periods --lines 20 --lag 2304 --bfiles D --quiet",
            200,
        );
        assert_eq!(code, Some(1), "{err}");
        assert!(
            err.starts_with("chomp3: error: ") && err.trim_end().lines().count() == 1,
            "{err}"
        );
        assert!(
            err.contains("cannot start the worker threads") || err.contains("out of memory"),
            "{err}"
        );
    }
    // `compute` says so before it makes its table: no file is left.
    let (code, err) = chomp3_limited(
        dir.path(),
        40_000,
        "compute --n 1000 --threads 8 --table t.c3t",
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("cannot start 8 worker threads"), "{err}");
    assert!(!dir.path().join("t.c3t").exists(), "{err}");
}

/// `RAYON_NUM_THREADS`, which rayon reads for a pool of one thread per core,
/// is held to the bound `--threads` is held to: a count past it is refused
/// at once in one line, with nothing written, by every command that would
/// start that many; `--threads` given wins over it.
#[test]
fn a_thread_count_from_the_environment_is_held_to_the_same_bound() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_chomp3"))
            .current_dir(d)
            .env("RAYON_NUM_THREADS", "1000000")
            .args(args)
            .output()
            .unwrap()
    };
    for args in [
        &["compute", "--n", "300", "--table", "t.c3t", "--quiet"][..],
        &[
            "grundy-periods",
            "--lines",
            "8",
            "--lag",
            "576",
            "--bfiles",
            "b",
            "--quiet",
        ],
        &["graph", "wheel:8"],
        &["census", "--rows", "100", "--out", "c.tsv", "--quiet"],
    ] {
        let started = std::time::Instant::now();
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.starts_with("chomp3: error: ")
                && err.trim_end().lines().count() == 1
                && err.contains("RAYON_NUM_THREADS"),
            "{args:?}: {err}"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{args:?}"
        );
        assert_eq!(
            std::fs::read_dir(d).unwrap().count(),
            0,
            "{args:?}: nothing written"
        );
    }
    let out = run(&["graph", "wheel:5", "--threads", "2"]);
    assert!(out.status.success(), "{out:?}");
}

/// The committed census read under a small limit is not called damaged:
/// the decoder's want of memory is said as such.
#[test]
fn a_census_read_without_memory_enough_is_not_called_damaged() {
    let err = committed_census_under("census-500000", 40_000);
    assert!(
        !err.contains("not a whole") && !err.contains("damaged"),
        "{err}"
    );
    assert!(
        err.contains("not enough memory to decompress it") || err.contains("out of memory"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// A file named for a source is an error where it is not there, even for a
/// question it would not have answered.
#[test]
fn a_named_rectangles_file_that_is_not_there_is_an_error_for_any_position() {
    let dir = tempfile::tempdir().unwrap();
    for position in [["5", "3", "2"], ["5", "5", "5"]] {
        let (code, err) = chomp3_within(
            dir.path(),
            &[
                "nim",
                position[0],
                position[1],
                position[2],
                "--rectangles",
                "none.txt",
            ],
            std::time::Duration::from_secs(60),
        );
        assert_eq!(code, Some(1), "{position:?}: {err}");
        assert!(err.contains("none.txt: no such file"), "{err}");
    }
}

/// A family's refusal names the family it refuses.
#[test]
fn a_fan_too_small_is_called_a_fan() {
    for (spec, says) in [
        ("fan:2", "a fan's path has at least 3 vertices"),
        ("fan2:1", "a fan's path has at least 3 vertices"),
        ("wheel:2", "a wheel's rim has at least 3 vertices"),
    ] {
        let out = chomp3(&["graph", spec]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{spec}: {err}");
        assert!(err.contains(says), "{spec}: {err}");
    }
}

/// A census descriptor file is read no further than its header says it
/// holds, and the header's lengths are checked against each other and
/// against the file before any room is taken: a table given as a census, a
/// census with 64 GiB after it (sparse, so the test writes nothing), and a
/// compressed census whose facts or columns contradict its header are each
/// refused at once in one true line, also under a limit far below what
/// reading them whole would take (`ulimit -v`).
#[test]
fn a_census_file_is_read_no_further_than_its_header_says() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("c.tsv");
    chomp3_ok(&[
        "census",
        "--quiet",
        "--rows",
        "1000",
        "--out",
        out.to_str().unwrap(),
    ]);
    let census = std::fs::read(d.join("c.c3d")).unwrap();
    let table = computed(d, "t.c3t", 100, &[]);
    let sparse = |name: &str, bytes: &[u8]| {
        let f = std::fs::File::create(d.join(name)).unwrap();
        (&f).write_all(bytes).unwrap();
        f.set_len(64 << 30).unwrap();
    };
    sparse("long.c3d", &census);
    sparse("table.c3d", &std::fs::read(&table).unwrap());
    let pack = |name: &str, bytes: &[u8]| {
        let mut xz = xz2::write::XzEncoder::new(std::fs::File::create(d.join(name)).unwrap(), 6);
        xz.write_all(bytes).unwrap();
        xz.finish().unwrap();
    };
    // The facts' last column (at the facts section, 32 + 32 * 1001 rows +
    // 4 * pool) made 250 million, where 1001 rows allow 1000: 3 GB claimed.
    let pool = u64::from_le_bytes(census[24..32].try_into().unwrap()) as usize;
    let facts_at = 32 + 32 * 1001 + 4 * pool;
    let mut facts = census.clone();
    facts[facts_at..facts_at + 4].copy_from_slice(&250_000_000u32.to_le_bytes());
    pack("facts.c3d.xz", &facts);
    // The columns (bytes 16..24) made 200 million: the facts' length the
    // header allows grows, the file's does not.
    let mut columns = census.clone();
    columns[16..24].copy_from_slice(&200_000_000u64.to_le_bytes());
    pack("columns.c3d.xz", &columns);
    let table_arg = table.to_str().unwrap();
    for (file, says) in [
        ("long.c3d", "long.c3d: damaged census descriptor file"),
        (
            "table.c3d",
            "table.c3d: this file is an f(q,r) table (.c3t), not a census",
        ),
        (
            "facts.c3d.xz",
            "facts.c3d.xz: damaged census descriptor file",
        ),
        (
            "columns.c3d.xz",
            "columns.c3d.xz: damaged census descriptor file",
        ),
    ] {
        let args = format!("get 3000 500 --table '{table_arg}' --census {file}");
        for kib in [0, 200_000] {
            let (code, err) = match kib {
                0 => chomp3_within(
                    d,
                    &["get", "3000", "500", "--table", table_arg, "--census", file],
                    std::time::Duration::from_secs(120),
                ),
                _ => chomp3_limited(d, kib, &args),
            };
            assert_eq!(code, Some(1), "{file}, limit {kib} KiB: {err}");
            assert!(err.contains(says), "{file}, limit {kib} KiB: {err}");
            assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        }
    }
}
