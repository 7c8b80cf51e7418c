//! A full disk in the middle of writing a set of results leaves the old set
//! whole and nothing beside it: on a small tmpfs (mounted by the test, which
//! needs root, as CI has), the results of a smaller run are written, the disk
//! is filled, and a larger run must fail with every old file as it was.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{chomp3, computed};

/// A tmpfs of `kib` KiB at `.0`, unmounted on drop (before `.1`, the
/// directory it is mounted on, is removed).
struct Tmpfs(PathBuf, #[allow(dead_code)] tempfile::TempDir);

impl Tmpfs {
    /// `None` where this process may not mount (not root).
    fn new(kib: u32) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs"])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(dir.path().to_path_buf(), dir))
    }

    /// Fills what is left but `keep` bytes.
    fn fill(&self, keep: u64) {
        let free = fs_free(&self.0);
        let filler = vec![0u8; free.saturating_sub(keep) as usize];
        let _ = std::fs::write(self.0.join("filler"), filler);
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Free bytes on the file system of `path` (`df`).
fn fs_free(path: &Path) -> u64 {
    let out = Command::new("df")
        .args(["--output=avail", "-B1"])
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .nth(1)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Every file under `dir` with its bytes, names sorted.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

fn mounted(kib: u32) -> Option<Tmpfs> {
    let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    let fs = Tmpfs::new(kib);
    assert!(fs.is_some() || !root, "root could not mount a tmpfs");
    if fs.is_none() {
        eprintln!("not root: the full-disk test needs to mount a tmpfs");
    }
    fs
}

#[test]
fn a_full_disk_leaves_every_old_result_whole() {
    let Some(fs) = mounted(4096) else { return };
    let work = tempfile::tempdir().unwrap();
    let small = computed(work.path(), "small.c3t", 300, &[]);
    let large = computed(work.path(), "large.c3t", 400, &[]);
    let (s, l) = (small.to_str().unwrap(), large.to_str().unwrap());
    let at = |name: &str| fs.0.join(name);
    let ok = |args: &[&str]| {
        let out = chomp3(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    // A Grundy table to `n` at `table` refused for want of disk before any
    // of it is written.
    let no_room_for_grundy = |n: &str, table: &Path| {
        let args = [
            "grundy-table",
            "--quiet",
            "--n",
            n,
            "--table",
            table.to_str().unwrap(),
        ];
        let out = chomp3(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.starts_with("chomp3: error: not enough free disk in ")
                && err.contains(&format!("N = {n} needs")),
            "{err}"
        );
        assert!(!table.exists(), "nothing written");
    };
    std::fs::create_dir(at("c")).unwrap();
    let (plots, analysis, census) = (at("plots"), at("a"), at("c/census.tsv"));
    let (p, a, c) = (
        plots.to_str().unwrap(),
        analysis.to_str().unwrap(),
        census.to_str().unwrap(),
    );
    ok(&["plot", "--table", s, "--out", p, "--row", "20"]);
    ok(&["analyze", "--quiet", "--table", s, "--out", a]);
    ok(&["census", "--quiet", "--rows", "60", "--out", c]);
    // Small tables fit a small disk: the region of block checksums, sized
    // for the default capacity (some 19 MB for an `f` table, 36 MB for a
    // Grundy one), is a hole but for the pages their blocks have written.
    for (command, n, name) in [
        ("compute", "100", "t100.c3t"),
        ("grundy-table", "60", "g60.g3t"),
    ] {
        let path = at(name);
        ok(&[
            command,
            "--quiet",
            "--n",
            n,
            "--table",
            path.to_str().unwrap(),
        ]);
        let meta = std::fs::metadata(&path).unwrap();
        assert!(
            meta.len() > 4096 * 1024,
            "{name}: {} bytes long",
            meta.len()
        );
        std::fs::remove_file(&path).unwrap();
        let _ = std::fs::remove_file(path.with_extension("g3s"));
    }
    // Room for a Grundy table to N = 200 (some 2.3 MB on disk), not for its
    // sweep beside it (1 MB): refused before any of it is written.
    fs.fill(2700 * 1024);
    no_room_for_grundy("200", &at("g200.g3t"));
    // Made with room, its sweep then lost: the same command would find the
    // table whole and sweep its slabs to save the sweep (two of its
    // checkpoints some 200 KB each), without the room for it: refused
    // before that work, the table as it was.
    std::fs::remove_file(fs.0.join("filler")).unwrap();
    let table = at("g100.g3t");
    let t = table.to_str().unwrap();
    let args = ["grundy-table", "--quiet", "--n", "100", "--table", t];
    ok(&args);
    std::fs::remove_file(table.with_extension("g3s")).unwrap();
    let before = std::fs::read(&table).unwrap();
    fs.fill(256 * 1024);
    let out = chomp3(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("N = 100 needs")
            && err.contains("(two sweep checkpoints, each written beside the last)"),
        "{err}"
    );
    assert!(std::fs::read(&table).unwrap() == before);
    assert!(!table.with_extension("g3s").exists());
    ok(&["info", "--verify", "--table", t]);
    std::fs::remove_file(&table).unwrap();
    std::fs::remove_file(fs.0.join("filler")).unwrap();
    let left: Vec<_> = std::fs::read_dir(&fs.0)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        !left.iter().any(|n| n.to_string_lossy().contains("g200")),
        "{left:?}"
    );
    let before = [snapshot(&plots), snapshot(&analysis), snapshot(&at("c"))];
    // Room for one page, not for a whole new set.
    fs.fill(4096);
    for args in [
        vec!["plot", "--table", l, "--out", p, "--row", "20"],
        vec!["analyze", "--quiet", "--table", l, "--out", a],
        vec!["census", "--quiet", "--rows", "80", "--out", c],
    ] {
        let out = chomp3(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("No space left on device"), "{args:?}: {err}");
    }
    let after = [snapshot(&plots), snapshot(&analysis), snapshot(&at("c"))];
    assert!(before == after, "every old file whole, nothing beside it");
    // A table by rows is refused before any of it is written, with what it
    // needs and what there is.
    let rows = at("rows.c3t");
    let out = chomp3(&[
        "transpose",
        "--quiet",
        "--table",
        l,
        "--out",
        rows.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with("chomp3: error: not enough free disk in "),
        "{err}"
    );
    assert!(err.contains("the table by rows needs"), "{err}");
    assert!(!rows.exists(), "nothing written");
    // So is a Grundy table (a table to N = 200 is some 36 MB).
    let grundy = at("g.g3t");
    no_room_for_grundy("200", &grundy);
    // Room for a Grundy table's data but not for the sweep checkpoint saved
    // beside it at the end: refused before any of it is written too.
    let elsewhere = tempfile::tempdir().unwrap();
    let whole = elsewhere.path().join("g.g3t");
    ok(&[
        "grundy-table",
        "--quiet",
        "--n",
        "60",
        "--table",
        whole.to_str().unwrap(),
    ]);
    // (its bytes on disk: a table has holes)
    let table_len =
        std::os::unix::fs::MetadataExt::blocks(&std::fs::metadata(&whole).unwrap()) * 512;
    let sweep_len = std::fs::metadata(whole.with_extension("g3s"))
        .unwrap()
        .len();
    assert!(sweep_len > 3 * 4096, "a sweep of {sweep_len} bytes");
    std::fs::remove_file(fs.0.join("filler")).unwrap();
    fs.fill(table_len.div_ceil(4096) * 4096 + 4096);
    no_room_for_grundy("60", &grundy);
}

/// `/dev/full` open for writing (`None` where there is none) and a table to
/// 200 in a temporary directory.
fn full_device_and_table() -> Option<(std::fs::File, tempfile::TempDir, PathBuf)> {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .ok()?;
    let dir = tempfile::tempdir().unwrap();
    let table = computed(dir.path(), "t.c3t", 200, &[]);
    Some((full, dir, table))
}

/// Standard output on a full device (`/dev/full`): every command that
/// prints says so in one line and exits 1, never a panic; its files are
/// written whole all the same.
#[test]
fn a_full_standard_output_is_an_error_not_a_panic() {
    let Some((full, dir, table)) = full_device_and_table() else {
        return; // no /dev/full on this system
    };
    let d = dir.path();
    let t = table.to_str().unwrap();
    let census = d.join("c.tsv");
    let plots = d.join("plots");
    let runs: Vec<Vec<&str>> = vec![
        vec!["get", "3", "2", "--table", t],
        vec!["info", "--table", t, "--verify"],
        vec!["nim", "20", "3", "2"],
        vec!["position", "20", "3", "2", "--table", t],
        vec!["row", "3", "--table", t],
        vec!["dump", "--table", t],
        vec![
            "census",
            "--quiet",
            "--rows",
            "300",
            "--out",
            census.to_str().unwrap(),
        ],
        vec!["plot", "--table", t, "--out", plots.to_str().unwrap()],
        vec!["graph", "wheel:3..5", "--tsv"],
        vec!["--help"],
        vec!["--version"],
        vec!["help"],
        vec!["census", "--help"],
    ];
    for args in runs {
        let out = Command::new(env!("CARGO_BIN_EXE_chomp3"))
            .current_dir(d)
            .args(&args)
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.starts_with("chomp3: error: standard output: ")
                && err.contains("No space left on device"),
            "{args:?}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
    assert!(
        census.exists() && d.join("c.c3d").exists(),
        "the census was written whole"
    );
}

/// Standard error on a full device: a note or an error that cannot be
/// written is passed over, never a panic; the answer on standard output and
/// the exit status are those of a run with a standard error.
#[test]
fn a_full_standard_error_changes_no_answer_and_no_status() {
    let Some((full, dir, table)) = full_device_and_table() else {
        return; // no /dev/full on this system
    };
    let d = dir.path();
    let t = table.to_str().unwrap();
    let runs: Vec<Vec<&str>> = vec![
        vec!["get", "3", "2", "--table", t],
        vec!["get", "401", "0", "--table", t],
        vec!["get", "x", "3"],
        vec!["graph", "wheel:5", "--stats"],
        vec!["position", "20", "3", "2", "--table", t],
    ];
    for args in runs {
        let run = |stderr: std::process::Stdio| {
            Command::new(env!("CARGO_BIN_EXE_chomp3"))
                .current_dir(d)
                .args(&args)
                .stderr(stderr)
                .output()
                .unwrap()
        };
        let (said, silent) = (
            run(std::process::Stdio::piped()),
            run(full.try_clone().unwrap().into()),
        );
        assert_eq!(silent.status.code(), said.status.code(), "{args:?}");
        assert_ne!(silent.status.code(), Some(101), "{args:?}");
        assert_eq!(silent.stdout, said.stdout, "{args:?}");
    }
}

/// A file grown past the process's size limit (`ulimit -f`): the write's
/// error in one line and exit 1, not a signal that ends the process without
/// a word; the files left are whole (a table keeps its committed part).
#[test]
fn a_file_size_limit_is_an_error_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let table = computed(d, "t.c3t", 300, &[]);
    let t = table.to_str().unwrap();
    let runs: [&[&str]; 3] = [
        &["census", "--quiet", "--rows", "20000", "--out", "c.tsv"],
        &["compute", "--quiet", "--n", "3000", "--table", t],
        &["grundy-table", "--quiet", "--n", "400", "--table", "g.g3t"],
    ];
    for args in runs {
        let out = Command::new("sh")
            .current_dir(d)
            .arg("-c")
            .arg("ulimit -f 100\nexec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_chomp3"))
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.starts_with("chomp3: error: ") && err.contains("File too large"),
            "{args:?}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
    let info = chomp3(&["info", "--table", t, "--verify"]);
    assert!(info.status.success(), "{info:?}");
    assert!(!d.join("c.tsv").exists() && !d.join("c.c3d").exists());
}
