//! The table file: resuming, surviving SIGKILL, thread-count independence, and
//! every kind of bad input (clear one-line error, non-zero exit, file untouched).

#![allow(clippy::needless_range_loop)] // (q, r) indexing reads like the maths

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::process::Output;
use std::time::{Duration, Instant};

use chomp3::f::table::Table;
use common::{chomp3, chomp3_in, chomp3_ok, computed, read_all};

/// Everything after the header: the block checksums and the data.
const HEADER_LEN: usize = chomp3::f::table::raw::HEADER_LEN as usize;

fn data_bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()[HEADER_LEN..].to_vec()
}

#[test]
fn extending_equals_computing_directly() {
    let dir = tempfile::tempdir().unwrap();
    let direct = computed(dir.path(), "direct.c3t", 700, &[]);
    let grown = computed(dir.path(), "grown.c3t", 300, &[]);
    assert_eq!(Table::open(&grown).unwrap().n(), Some(300));
    computed(dir.path(), "grown.c3t", 700, &[]);
    assert!(
        data_bytes(&grown) == data_bytes(&direct),
        "extended table differs from direct"
    );
    let t = Table::open(&grown).unwrap();
    assert_eq!(t.n(), Some(700));
    t.verify().unwrap();
}

#[test]
fn one_and_two_threads_write_identical_files() {
    let dir = tempfile::tempdir().unwrap();
    let one = computed(dir.path(), "one.c3t", 1500, &["--threads", "1"]);
    let two = computed(dir.path(), "two.c3t", 1500, &["--threads", "2"]);
    assert!(std::fs::read(&one).unwrap() == std::fs::read(&two).unwrap());
}

#[test]
fn survives_sigkill_and_resumes_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let n = 12_000u64;
    let direct = computed(dir.path(), "direct.c3t", n, &["--capacity", "12000"]);
    let path = dir.path().join("killed.c3t");
    // Kill a real child as soon as it has committed something, but before it ends.
    let mut killed_at = None;
    for attempt in 0..5 {
        let _ = std::fs::remove_file(&path);
        let mut child = Command::new(env!("CARGO_BIN_EXE_chomp3"))
            .args([
                "compute",
                "--quiet",
                "--capacity",
                "12000",
                "--commit-secs",
                "0",
            ])
            .args(["--n", &n.to_string(), "--table", path.to_str().unwrap()])
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if Table::open(&path).is_ok_and(|t| t.columns() > 64 * (attempt + 1)) {
                break;
            }
            assert!(Instant::now() < deadline, "child made no progress");
            std::thread::sleep(Duration::from_millis(1));
        }
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        let columns = Table::open(&path).unwrap().columns();
        if !status.success() && columns < n + 1 {
            killed_at = Some(columns);
            break;
        }
    }
    let killed_at = killed_at.expect("the child was killed mid-run");
    // The file opens and reports its safe columns.
    let info = chomp3(&["info", "--verify", "--table", path.to_str().unwrap()]);
    assert!(
        info.status.success(),
        "{}",
        String::from_utf8_lossy(&info.stderr)
    );
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(
        text.contains(&format!("N            {}", killed_at - 1)),
        "{text}"
    );
    // Resuming finishes with the same bytes as the uninterrupted run.
    computed(dir.path(), "killed.c3t", n, &[]);
    assert!(std::fs::read(&path).unwrap().len() == std::fs::read(&direct).unwrap().len());
    assert!(
        data_bytes(&path) == data_bytes(&direct),
        "resumed table differs"
    );
}

/// Runs chomp3 expecting failure; returns stderr, which must be one line naming
/// the problem.
fn fails(args: &[&str], expect: &str) -> String {
    let out = chomp3(args);
    assert!(!out.status.success(), "chomp3 {args:?} should fail");
    assert_eq!(out.status.code(), Some(1), "chomp3 {args:?}");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("chomp3: error: "), "{err}");
    assert!(
        err.contains(expect),
        "chomp3 {args:?}: {err:?} should mention {expect:?}"
    );
    err
}

#[test]
fn bad_files_are_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let good = computed(dir.path(), "good.c3t", 200, &[]);
    let good_bytes = std::fs::read(&good).unwrap();

    let not_table = dir.path().join("notes.c3t");
    std::fs::write(&not_table, "just some text, long enough? no.".repeat(200)).unwrap();
    let truncated = dir.path().join("truncated.c3t");
    std::fs::write(&truncated, &good_bytes[..good_bytes.len() - 100]).unwrap();
    let newer = dir.path().join("newer.c3t");
    let mut bytes = good_bytes.clone();
    bytes[8] = 3; // format version 3
    std::fs::write(&newer, &bytes).unwrap();
    let older = dir.path().join("older.c3t");
    bytes[8] = 1; // format version 1, which had no block checksums
    std::fs::write(&older, &bytes).unwrap();

    for (path, expect) in [
        (&not_table, "not a chomp3 table"),
        (&truncated, "truncated table"),
        (&newer, "format version 3, this chomp3 reads version 2"),
        (
            &older,
            "format version 1, from before tables carried a checksum per block; this chomp3 reads version 2: make a version 2 file of it with `chomp3 upgrade OLD NEW`",
        ),
    ] {
        let before = std::fs::read(path).unwrap();
        let p = path.to_str().unwrap();
        fails(&["info", "--table", p], expect);
        fails(&["get", "1", "1", "--table", p], expect);
        fails(&["compute", "--quiet", "--n", "300", "--table", p], expect);
        assert!(std::fs::read(path).unwrap() == before, "{p} was changed");
    }
}

#[test]
fn bad_requests_are_refused_and_leave_the_table_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = computed(dir.path(), "t.c3t", 200, &["--capacity", "500"]);
    let p = path.to_str().unwrap();
    let before = std::fs::read(&path).unwrap();

    fails(
        &["get", "201", "3", "--table", p],
        "q 201 is beyond the table, which holds N = 200",
    );
    // Above the diagonal f(q,r) = f(q,q): r need not be in the table.
    let above = chomp3_ok(&["get", "3", "201", "--table", p]);
    let diagonal = chomp3_ok(&["get", "3", "3", "--table", p]);
    assert_eq!(above.stdout, diagonal.stdout);
    // Row 201 of a table to 200 is its diagonal, as row 200 is there.
    assert_eq!(
        chomp3_ok(&["row", "201", "--table", p]).stdout,
        chomp3_ok(&["row", "200", "--table", p]).stdout
    );
    // The first column no source holds is named: the first past the table.
    fails(
        &["row", "5", "--to", "300", "--table", p],
        "q 201 is beyond the table",
    );
    fails(
        &["compute", "--quiet", "--n", "501", "--table", p],
        "beyond the table's capacity 500",
    );
    fails(
        &[
            "compute",
            "--quiet",
            "--n",
            "10",
            "--capacity",
            "3000000000",
            "--table",
            &format!("{p}.new"),
        ],
        "capacity of 3000000000 is not possible",
    );
    assert!(std::fs::read(&path).unwrap() == before);

    // Asking for what is already there is a no-op that says so.
    let out = chomp3(&["compute", "--n", "150", "--table", p]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to do"));
    assert!(std::fs::read(&path).unwrap() == before);
}

#[test]
fn bad_places_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    // Too little disk: N = 3,000,000 needs terabytes; nothing may be created.
    let huge = dir.path().join("huge.c3t");
    fails(
        &[
            "compute",
            "--quiet",
            "--n",
            "3000000",
            "--capacity",
            "3000000",
            "--table",
            huge.to_str().unwrap(),
        ],
        "not enough free disk",
    );
    assert!(!huge.exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing written"
    );

    let missing = dir.path().join("no/such/dir/t.c3t");
    fails(
        &[
            "compute",
            "--quiet",
            "--n",
            "10",
            "--table",
            missing.to_str().unwrap(),
        ],
        "does not exist",
    );

    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let mut perms = std::fs::metadata(&ro).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&ro, perms).unwrap();
    let t = ro.join("t.c3t");
    let args = [
        "compute",
        "--quiet",
        "--n",
        "10",
        "--table",
        t.to_str().unwrap(),
    ];
    // Root may write there whatever the bits say (and is not told it may
    // not); anyone else is refused before the table is made, or its lock.
    let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    let refused = |out: Output| {
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("read-only for this process"), "{err}");
        assert_eq!(std::fs::read_dir(&ro).unwrap().count(), 0, "nothing made");
    };
    match root {
        true => {
            chomp3_ok(&args);
            assert!(t.exists());
            std::fs::remove_file(&t).unwrap();
            // Root run as another user (`setpriv`, where there is one) is
            // refused as anyone else is.
            let others = std::fs::Permissions::from_mode(0o755);
            std::fs::set_permissions(dir.path(), others).unwrap();
            let as_nobody = |args: &[&str]| {
                Command::new("setpriv")
                    .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                    .arg(env!("CARGO_BIN_EXE_chomp3"))
                    .args(args)
                    .current_dir("/")
                    .output()
            };
            if let Ok(out) = as_nobody(&args) {
                refused(out);
                // A table of its own there, with its lock file, is
                // extended in place all the same.
                let own = dir.path().join("own");
                std::fs::create_dir(&own).unwrap();
                let t = own.join("t.c3t");
                chomp3_ok(&[
                    "compute",
                    "--quiet",
                    "--n",
                    "20",
                    "--table",
                    t.to_str().unwrap(),
                ]);
                let lock = own.join(".t.c3t.lock");
                std::fs::write(&lock, b"").unwrap();
                for f in [&t, &lock] {
                    std::os::unix::fs::chown(f, Some(65534), Some(65534)).unwrap();
                }
                std::fs::set_permissions(&own, std::fs::Permissions::from_mode(0o555)).unwrap();
                let out = as_nobody(&[
                    "compute",
                    "--quiet",
                    "--n",
                    "30",
                    "--table",
                    t.to_str().unwrap(),
                ])
                .unwrap();
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(out.status.success(), "{err}");
                let info = chomp3_ok(&["info", "--table", t.to_str().unwrap()]);
                assert!(String::from_utf8_lossy(&info.stdout).contains("N            30 "));
            }
        }
        false => refused(chomp3(&args)),
    }

    let absent = dir.path().join("absent.c3t");
    fails(
        &["info", "--table", absent.to_str().unwrap()],
        "no such table",
    );
}

#[test]
fn row_and_dump_print_what_the_table_holds() {
    let dir = tempfile::tempdir().unwrap();
    let path = computed(dir.path(), "t.c3t", 40, &[]);
    let p = path.to_str().unwrap();
    let f = read_all(&path);
    let out = chomp3(&["row", "5", "--from", "3", "--to", "9", "--table", p]);
    let text = String::from_utf8_lossy(&out.stdout);
    let expect: String = (3..=9usize)
        .map(|q| format!("{q} {}\n", f[q][5.min(q)]))
        .collect();
    assert_eq!(text, expect);
    let out = chomp3(&["dump", "--table", p]);
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), 41 * 42 / 2);
    assert_eq!(lines[0], "0 0 1");
    assert_eq!(lines.last().unwrap(), &format!("40 40 {}", f[40][40]));
}

/// `compute --n 20000` (with `extra`) at `path`, once it has written
/// columns and waits for Ctrl-C (`--hold`); its standard error piped.
#[cfg(feature = "test-hooks")]
fn held_compute(path: &std::path::Path, extra: &[&str]) -> std::process::Child {
    let child = Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args(["compute", "--quiet", "--hold", "--n", "20000"])
        .args(extra)
        .arg("--table")
        .arg(path)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !path.exists() {
        assert!(Instant::now() < deadline, "child made no progress");
        std::thread::sleep(Duration::from_millis(1));
    }
    std::thread::sleep(Duration::from_millis(50));
    child
}

#[test]
#[cfg(feature = "test-hooks")]
fn ctrl_c_commits_and_says_how_to_continue() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.c3t");
    let child = held_compute(&path, &["--capacity", "20000"]);
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // With `--hold` the child waits for the signal once it has written columns,
    // so it cannot finish before the signal lands.
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted; the table is safe"), "{err}");
    let t = Table::open(&path).unwrap();
    t.verify().unwrap();
    computed(dir.path(), "t.c3t", 20_000, &[]);
    let direct = computed(dir.path(), "direct.c3t", 20_000, &["--capacity", "20000"]);
    assert!(
        data_bytes(&path) == data_bytes(&direct),
        "resumed table differs"
    );
}

/// A table another program removes or writes over while `compute` extends
/// it is said to be so, in one line, not reported safe or computed.
#[test]
#[cfg(feature = "test-hooks")]
fn a_table_taken_while_compute_writes_it_is_said() {
    for (what, said) in [
        (
            "removed",
            "this file is no longer there: another program removed or moved it",
        ),
        (
            "written over",
            "another program wrote over this file in place while this run wrote it",
        ),
        (
            "changed in place",
            "data of this table changed while this run wrote it (block ",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.c3t");
        // Changed in place: bytes of committed columns, those of a table
        // the run extends (some 4 MB of data before `len`), once the run has
        // checked it and appended to it.
        let len = match what {
            "changed in place" => {
                computed(dir.path(), "t.c3t", 2000, &[]);
                std::fs::metadata(&path).unwrap().len()
            }
            _ => 0,
        };
        let child = held_compute(&path, &[]);
        let deadline = Instant::now() + Duration::from_secs(60);
        while std::fs::metadata(&path).unwrap().len() <= len {
            assert!(Instant::now() < deadline, "child appended nothing");
            std::thread::sleep(Duration::from_millis(1));
        }
        match what {
            "removed" => std::fs::remove_file(&path).unwrap(),
            "written over" => std::fs::write(&path, "my notes\n").unwrap(),
            // Header and commits left as they are: only the data's checks
            // tell.
            _ => {
                use std::os::unix::fs::FileExt;
                let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                file.write_all_at(&[0x55; 16], len - 100_000).unwrap();
            }
        }
        let sent = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
        assert!(
            err.starts_with("chomp3: error: ") && err.contains(said),
            "{what}: {err}"
        );
        assert!(!err.contains("safe"), "{what}: {err}");
        assert!(!err.contains("damaged table"), "{what}: {err}");
    }
}

/// The data byte offset and bits per value of a table file, from its header
/// (FORMAT.md: bits at byte 12, data offset at byte 24).
fn layout(bytes: &[u8]) -> (usize, u64) {
    let bits = u32::from_le_bytes(bytes[12..16].try_into().unwrap());
    let offset = u64::from_le_bytes(bytes[24..32].try_into().unwrap());
    (offset as usize, u64::from(bits))
}

#[test]
fn damaged_data_is_refused_where_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = computed(dir.path(), "t.c3t", 500, &[]);
    let p = path.to_str().unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    let (offset, bits) = layout(&bytes);
    // Four bytes overwritten where cell (300, 150) is stored.
    let cell = 300 * 301 / 2 + 150;
    let at = offset + (cell * bits / 8) as usize;
    for b in &mut bytes[at..at + 4] {
        *b ^= 0x5a;
    }
    std::fs::write(&path, &bytes).unwrap();
    let damaged = |args: &[&str]| {
        let out = chomp3(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains(p) && err.contains("damaged table") && err.contains("CRC-32"),
            "{args:?}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    };
    damaged(&["get", "300", "150", "--table", p]);
    damaged(&["position", "400", "300", "150", "--table", p]);
    damaged(&["row", "150", "--table", p]);
    damaged(&["dump", "--table", p]);
    damaged(&["info", "--verify", "--table", p]);
    let out = dir.path().join("a");
    damaged(&[
        "analyze",
        "--quiet",
        "--table",
        p,
        "--out",
        out.to_str().unwrap(),
    ]);
    damaged(&["compute", "--quiet", "--n", "600", "--table", p]);
    assert!(std::fs::read(&path).unwrap() == bytes, "not extended");
    // A cell in a block that is whole still answers, and rightly: the
    // reference table (the game's rules, elsewhere) has f(5,3) = 5.
    assert_eq!(
        String::from_utf8_lossy(&chomp3_ok(&["get", "5", "3", "--table", p]).stdout).trim(),
        "5"
    );
}

/// A commit slot that fails its checksum (FORMAT.md: slots at bytes 64 and
/// 128, sequence number first) is ignored by readers, who take the other
/// slot's older commit; `info` says so, and what lies past that commit is
/// refused, not answered.
#[test]
fn a_commit_slot_failing_its_checksum_is_noted() {
    let dir = tempfile::tempdir().unwrap();
    let path = computed(dir.path(), "t.c3t", 40, &[]);
    let p = path.to_str().unwrap();
    let info = |p: &str| {
        String::from_utf8_lossy(&chomp3_ok(&["info", "--verify", "--table", p]).stdout).into_owned()
    };
    assert!(!info(p).contains("note"), "{}", info(p));
    // Extended by one column: the newest commit is in the other slot.
    chomp3_ok(&["compute", "--quiet", "--n", "41", "--table", p]);
    let mut bytes = std::fs::read(&path).unwrap();
    let seq = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    let newest = if seq(64) > seq(128) { 64 } else { 128 };
    bytes[newest + 9] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let shown = info(p);
    let slot = (newest - 64) / 64;
    assert!(
        shown.contains(&format!(
            "note         commit slot {slot} fails its checksum"
        )),
        "{shown}"
    );
    assert!(shown.contains("N            40 "), "{shown}");
    chomp3_ok(&["get", "40", "3", "--table", p]);
    let out = chomp3(&["get", "41", "3", "--table", p]);
    assert_eq!(out.status.code(), Some(1));
    // A table by rows whose newest slot fails is read at an older commit,
    // before its rows were all written: not finished, and a slot may be why.
    let rows = dir.path().join("rows.c3t");
    let r = rows.to_str().unwrap();
    chomp3_ok(&["transpose", "--quiet", "--table", p, "--out", r]);
    let mut bytes = std::fs::read(&rows).unwrap();
    let seq = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    let newest = if seq(64) > seq(128) { 64 } else { 128 };
    bytes[newest + 9] ^= 0x10;
    std::fs::write(&rows, &bytes).unwrap();
    let out = chomp3(&["info", "--table", r]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "not finished (its chomp3 transpose was stopped, or a commit slot fails its checksum)"
        ),
        "{err}"
    );
}

/// A version 1 file of the same table, as that format laid it out: the
/// header with version 1 and data offset 4096, a commit slot without the
/// block CRC, the data right after the header (FORMAT.md, both versions).
fn as_version_1(v2: &[u8]) -> Vec<u8> {
    let (offset, _) = layout(v2);
    let mut v1 = v2[..4096].to_vec();
    v1[8..12].copy_from_slice(&1u32.to_le_bytes());
    v1[24..32].copy_from_slice(&4096u64.to_le_bytes());
    let crc = crc32fast::hash(&v1[0..32]);
    v1[32..36].copy_from_slice(&crc.to_le_bytes());
    for slot in [64usize, 128] {
        let s = &mut v1[slot..slot + 64];
        if s[..8] == [0; 8] {
            continue;
        }
        s[21..25].fill(0);
        let crc = crc32fast::hash(&s[0..60]);
        s[60..64].copy_from_slice(&crc.to_le_bytes());
    }
    v1.extend_from_slice(&v2[offset..]);
    v1
}

#[test]
fn a_version_1_table_is_upgraded_exactly_and_a_damaged_one_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let good = computed(dir.path(), "good.c3t", 300, &[]);
    let v1 = dir.path().join("old.c3t");
    std::fs::write(&v1, as_version_1(&std::fs::read(&good).unwrap())).unwrap();
    let new = dir.path().join("new.c3t");
    let (o, n) = (v1.to_str().unwrap(), new.to_str().unwrap());
    chomp3_ok(&["upgrade", o, n]);
    assert!(
        data_bytes(&new) == data_bytes(&good),
        "the same checksums and data"
    );
    chomp3_ok(&["info", "--verify", "--table", n]);
    // Not over a file that exists; not from a damaged old file.
    assert!(!chomp3(&["upgrade", o, n]).status.success());
    let mut bytes = std::fs::read(&v1).unwrap();
    let last = bytes.len() - 10;
    bytes[last] ^= 1;
    std::fs::write(&v1, &bytes).unwrap();
    let newer = dir.path().join("newer.c3t");
    let out = chomp3(&["upgrade", o, newer.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("checksum"));
    assert!(!newer.exists());
}

#[test]
fn a_killed_upgrade_leaves_no_table_and_the_same_command_makes_it() {
    let dir = tempfile::tempdir().unwrap();
    let good = computed(dir.path(), "good.c3t", 3000, &[]);
    let v1 = dir.path().join("old.c3t");
    std::fs::write(&v1, as_version_1(&std::fs::read(&good).unwrap())).unwrap();
    let new = dir.path().join("new.c3t");
    let names = || -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let mut killed = false;
    for _ in 0..20 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_chomp3"))
            .args(["upgrade", "--quiet"])
            .args([&v1, &new])
            .spawn()
            .unwrap();
        // Killed once it has begun writing (its file aside is there).
        while child.try_wait().unwrap().is_none()
            && !names().iter().any(|n| n.starts_with(".new.c3t.new-"))
        {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let ended = child.try_wait().unwrap().is_some();
        child.kill().ok();
        child.wait().unwrap();
        if !ended {
            killed = true;
            assert!(!new.exists(), "no table at the name until it is whole");
            break;
        }
        std::fs::remove_file(&new).unwrap();
    }
    assert!(killed, "no run was killed while it wrote");
    chomp3_ok(&[
        "upgrade",
        "--quiet",
        v1.to_str().unwrap(),
        new.to_str().unwrap(),
    ]);
    assert!(data_bytes(&new) == data_bytes(&good));
    assert_eq!(
        names(),
        ["good.c3t", "new.c3t", "old.c3t"],
        "nothing left aside"
    );
}

/// The new table's path is checked as every output's is, each refusal in one
/// line naming it (not a file of chomp3's own beside it), with nothing left
/// behind; and what a killed upgrade to that path left beside it (its table
/// aside, or a second name of the table it placed, and the header an older
/// chomp3 wrote aside of that) is removed by the next upgrade there.
#[test]
fn an_upgrades_new_path_is_checked_and_what_a_killed_one_left_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = computed(d, "good.c3t", 300, &[]);
    std::fs::write(
        d.join("old.c3t"),
        as_version_1(&std::fs::read(&good).unwrap()),
    )
    .unwrap();
    std::fs::create_dir(d.join("dir")).unwrap();
    std::fs::write(d.join("file"), b"x").unwrap();
    let long = "a".repeat(250);
    let refused = |new: &str, shell: &str, says: &str| {
        let before = names(d);
        let out = Command::new("sh")
            .current_dir(d)
            .arg("-c")
            .arg(format!("{shell} \"$0\" upgrade --quiet old.c3t \"$1\""))
            .arg(env!("CARGO_BIN_EXE_chomp3"))
            .arg(new)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{new}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        // No file aside (`.NAME.new-PID`) named.
        let aside = err
            .split(".new-")
            .skip(1)
            .any(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
        assert!(err.contains(says) && !aside, "{new}: {err}");
        assert_eq!(names(d), before, "{new}: something left");
    };
    refused("dir", "", "NEW dir is a directory, not an f(q,r) table");
    refused("file/new.c3t", "", "file is a file, not a directory");
    refused(&long, "", "its name has 250 bytes");
    refused("good.c3t", "", "good.c3t: exists");
    refused("big.c3t", "ulimit -f 8;", "big.c3t: File too large");
    // A directory to make: made, as for every output.
    let out = chomp3_in(d, &["upgrade", "--quiet", "old.c3t", "sub/new.c3t"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(data_bytes(&d.join("sub/new.c3t")) == data_bytes(&good));
    // Left by a process that has ended (its id taken from one just run).
    let mut gone = Command::new("true").spawn().unwrap();
    let pid = gone.id();
    gone.wait().unwrap();
    std::fs::hard_link(
        d.join("sub/new.c3t"),
        d.join(format!("sub/.new.c3t.new-{pid}")),
    )
    .unwrap();
    std::fs::write(
        d.join(format!("sub/..new.c3t.new-{pid}.new-{pid}")),
        b"header",
    )
    .unwrap();
    // Not a name chomp3 writes: kept.
    std::fs::write(d.join(format!("sub/..new.c3t.new-{pid}.new-1")), b"other").unwrap();
    let out = chomp3_in(d, &["upgrade", "--quiet", "old.c3t", "sub/new.c3t"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("exists"));
    assert_eq!(
        names(&d.join("sub")),
        [format!("..new.c3t.new-{pid}.new-1"), "new.c3t".to_string()]
    );
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn two_runs_creating_one_table_leave_one_whole_table() {
    // Whatever the interleaving, one run writes the table; the other ends it
    // too (after) or says in one line that another process is writing it.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("same.c3t");
    for round in 0..3 {
        let _ = std::fs::remove_file(&path);
        let spawn = || {
            Command::new(env!("CARGO_BIN_EXE_chomp3"))
                .args(["compute", "--quiet", "--n", "3000", "--table"])
                .arg(&path)
                .output()
                .unwrap()
        };
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(spawn);
            let b = s.spawn(spawn);
            (a.join().unwrap(), b.join().unwrap())
        });
        assert!(a.status.success() || b.status.success(), "round {round}");
        for out in [&a, &b] {
            if !out.status.success() {
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(err.contains("another process"), "{err}");
                assert!(!err.contains("File exists"), "{err}");
                assert_eq!(err.trim_end().lines().count(), 1, "{err}");
            }
        }
        let t = Table::open(&path).unwrap();
        assert_eq!(t.columns(), 3001);
        t.verify().unwrap();
    }
}
