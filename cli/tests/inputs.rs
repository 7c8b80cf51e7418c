//! Bad inputs through the command line, messages read as a user reads them:
//! every command that reads a file it is given refuses a directory, a FIFO
//! (at once: no reader waits for a writer), a symbolic link to nothing, an
//! empty file, a cut-off file and a chomp3 file of another kind, each in one
//! line that says which it is, with exit status 1. A decompression bomb is
//! refused quickly and in bounded memory; a Grundy census or b-file with a
//! key repeated or out of order is refused with its line. Everything runs in
//! temporary directories.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Longest a refusal may take: a reader that waited for a FIFO's writer
/// would wait forever.
const PATIENCE: Duration = Duration::from_secs(60);

/// Runs chomp3 with `args` in `dir`, within [`PATIENCE`].
fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    common::chomp3_within(dir, args, PATIENCE)
}

/// What a bad input is, and so what its message must and must not say.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Bad {
    Directory,
    Fifo,
    Dangling,
    Empty,
    Truncated,
    /// A chomp3 file of another kind, of the present format version.
    OtherKind,
}

/// Words a message about `bad` must not contain: a directory is not
/// missing, nothing that is merely not this file is damaged or fails a
/// checksum, and a link to nothing is not held by another process.
fn untrue(bad: Bad) -> &'static [&'static str] {
    match bad {
        Bad::Directory | Bad::Fifo => &["no such", "damaged", "checksum", "another process"],
        Bad::Dangling => &["damaged", "checksum", "another process", "is a directory"],
        Bad::Empty | Bad::OtherKind => &["damaged", "checksum", "no such", "another process"],
        Bad::Truncated => &["checksum", "no such", "another process"],
    }
}

/// Runs `args` in `dir` and checks a one-line refusal, exit status 1, that
/// says `says` and nothing untrue of `bad`.
fn refused(dir: &Path, args: &[&str], bad: Bad, says: &str) {
    let (code, err) = run(dir, args);
    assert_eq!(code, Some(1), "chomp3 {args:?} ({bad:?}): {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("chomp3: error: "), "{err}");
    assert!(
        err.contains(says),
        "chomp3 {args:?} ({bad:?}): {err:?} should say {says:?}"
    );
    for word in untrue(bad) {
        assert!(
            !err.contains(word),
            "chomp3 {args:?} ({bad:?}): {err:?} should not say {word:?}"
        );
    }
}

/// A temporary directory with the bad paths every test uses: `dir/`, the
/// FIFO `fifo`, the link `dangling` to `gone`, the `empty` file.
struct Place {
    dir: tempfile::TempDir,
}

impl Place {
    fn new() -> Place {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("dir")).unwrap();
        let fifo = std::ffi::CString::new(d.join("fifo").to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        std::os::unix::fs::symlink("gone", d.join("dangling")).unwrap();
        std::fs::write(d.join("empty"), b"").unwrap();
        Place { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `name` in the place, written with `bytes`.
    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// Runs chomp3 in the place and asserts it succeeded.
    fn ok(&self, args: &[&str]) {
        let (code, err) = run(self.path(), args);
        assert_eq!(code, Some(0), "chomp3 {args:?}: {err}");
    }

    /// The four bad kinds every reader meets the same way: `(name, kind,
    /// what the message says)`, for a file that should be `what`.
    fn kinds(&self, what: &str) -> Vec<(String, Bad, String)> {
        vec![
            ("dir".into(), Bad::Directory, "dir is a directory".into()),
            (
                "fifo".into(),
                Bad::Fifo,
                format!("fifo is a FIFO (named pipe), not {what}"),
            ),
            (
                "dangling".into(),
                Bad::Dangling,
                "dangling is a symbolic link to gone, which does not exist".into(),
            ),
        ]
    }
}

/// Refuses each of `cases` in `args` (where `{}` stands for the file).
fn each(place: &Place, args: &[&str], cases: &[(String, Bad, String)]) {
    for (name, bad, says) in cases {
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == "{}" { name.as_str() } else { a })
            .collect();
        refused(place.path(), &args, *bad, says);
    }
}

#[test]
fn table_readers_name_what_they_were_given() {
    let place = Place::new();
    place.ok(&["compute", "--quiet", "--n", "40", "--table", "t.c3t"]);
    place.ok(&["census", "--quiet", "--rows", "12", "--out", "c.tsv"]);
    let table = std::fs::read(place.path().join("t.c3t")).unwrap();
    place.file("cut.c3t", &table[..2000]);
    let mut cases = place.kinds("an f(q,r) table (.c3t)");
    cases[0].2 = "dir is a directory, not a table file".into();
    cases.extend([
        (
            "empty".to_string(),
            Bad::Empty,
            "empty: the file is empty, not a chomp3 table".to_string(),
        ),
        (
            "cut.c3t".into(),
            Bad::Truncated,
            "cut.c3t: truncated table: the file has 2000 bytes, fewer than its 4096-byte header"
                .into(),
        ),
        (
            "c.c3d".into(),
            Bad::OtherKind,
            "c.c3d: this file is a census descriptor file (.c3d), not a chomp3 table".into(),
        ),
    ]);
    for args in [
        &["get", "5", "3", "--table", "{}"][..],
        &["info", "--table", "{}"],
        &["row", "3", "--to", "5", "--table", "{}"],
        &["transpose", "--quiet", "--table", "{}", "--out", "rows.c3t"],
        &["plot", "--table", "{}", "--out", "figures"],
    ] {
        each(&place, args, &cases);
    }
    assert!(!place.path().join("rows.c3t").exists());
    assert!(!place.path().join("figures").exists());
}

#[test]
fn census_readers_name_what_they_were_given() {
    let place = Place::new();
    place.ok(&["compute", "--quiet", "--n", "40", "--table", "t.c3t"]);
    place.ok(&["census", "--quiet", "--rows", "12", "--out", "c.tsv"]);
    let census = std::fs::read(place.path().join("c.c3d")).unwrap();
    place.file("cut.c3d", &census[..100]);
    place.file("long.c3d", &census[..census.len() - 10]);
    let mut cases = place.kinds("a census descriptor file (.c3d)");
    cases[0].2 = "dir is a directory, not a census descriptor file (.c3d)".into();
    cases.extend([
        (
            "empty".to_string(),
            Bad::Empty,
            "empty: the file is empty, not a census descriptor file".to_string(),
        ),
        (
            "cut.c3d".into(),
            Bad::Truncated,
            "cut.c3d: truncated census descriptor file: 100 bytes, where its header asks for at least"
                .into(),
        ),
        (
            "long.c3d".into(),
            Bad::Truncated,
            format!(
                "long.c3d: truncated census descriptor file: {} bytes, where its header asks for at least {}",
                census.len() - 10,
                census.len()
            ),
        ),
        (
            "t.c3t".into(),
            Bad::OtherKind,
            "t.c3t: this file is an f(q,r) table (.c3t), not a census descriptor file".into(),
        ),
        (
            "c.tsv".into(),
            Bad::OtherKind,
            "c.tsv: this file is a census table (census.tsv), not a census descriptor file"
                .into(),
        ),
    ]);
    // No table in the place by the default name: the census answers.
    for args in [
        &["get", "50", "3", "--census", "{}"][..],
        &["row", "3", "--from", "50", "--to", "52", "--census", "{}"],
        &[
            "plot",
            "--census-only",
            "--census",
            "{}",
            "--out",
            "figures",
        ],
    ] {
        each(&place, args, &cases);
    }
}

#[test]
fn grundy_readers_name_what_they_were_given() {
    let place = Place::new();
    place.ok(&["grundy-census", "--quiet", "--lines", "6", "--out", "g.tsv"]);
    place.ok(&["census", "--quiet", "--rows", "12", "--out", "c.tsv"]);
    place.ok(&[
        "grundy-table",
        "--quiet",
        "--n",
        "12",
        "--table",
        "g.g3t",
        "--bfiles",
        "b",
    ]);
    let census = std::fs::read(place.path().join("g.tsv")).unwrap();
    place.file("cut.tsv", &census[..census.len() / 2]);
    let descriptors = std::fs::read(place.path().join("c.c3d")).unwrap();
    let mut xz = xz2::write::XzEncoder::new(Vec::new(), 1);
    std::io::Write::write_all(&mut xz, &descriptors).unwrap();
    place.file("c.c3d.xz", &xz.finish().unwrap());
    let rectangles = std::fs::read(place.path().join("b/grundy-rectangles.txt")).unwrap();
    place.file("cut.txt", &rectangles[..rectangles.len() / 2]);
    let empty = "empty: the file is empty, where a chomp3 result has at least its end line";
    let cut = "no end line (`# end: N lines, crc32 X`): the file was cut off";
    let mut census_cases = place.kinds("a Grundy census");
    census_cases.extend([
        ("empty".to_string(), Bad::Empty, empty.to_string()),
        ("cut.tsv".into(), Bad::Truncated, format!("cut.tsv: {cut}")),
        (
            "c.tsv".into(),
            Bad::OtherKind,
            "c.tsv: this file is a census table (census.tsv), not a Grundy census".into(),
        ),
        (
            "c.c3d".into(),
            Bad::OtherKind,
            "c.c3d: this file is a census descriptor file (.c3d), not a Grundy census".into(),
        ),
        (
            "c.c3d.xz".into(),
            Bad::OtherKind,
            "c.c3d.xz: this file is a census descriptor file (.c3d), not a Grundy census".into(),
        ),
    ]);
    for args in [
        &["nim", "30", "5", "3", "--grundy-census", "{}"][..],
        &["plot", "--grundy", "{}", "--out", "figures"],
    ] {
        each(&place, args, &census_cases);
    }
    let mut rectangle_cases = place.kinds("a b-file of the rectangles");
    rectangle_cases.extend([
        ("empty".to_string(), Bad::Empty, empty.to_string()),
        ("cut.txt".into(), Bad::Truncated, format!("cut.txt: {cut}")),
        (
            "g.tsv".into(),
            Bad::OtherKind,
            "g.tsv: not the b-file wanted".into(),
        ),
    ]);
    each(
        &place,
        &["nim", "9", "9", "9", "--rectangles", "{}"],
        &rectangle_cases,
    );
    let mut table_cases = place.kinds("a Grundy table G(p,q,r) (.g3t)");
    table_cases[0].2 = "dir is a directory, not a Grundy table file".into();
    table_cases.extend([
        (
            "empty".to_string(),
            Bad::Empty,
            "empty: the file is empty, not a chomp3 table".to_string(),
        ),
        (
            "g.tsv".into(),
            Bad::OtherKind,
            "g.tsv: this file is a Grundy census with patterns, not a chomp3 table".into(),
        ),
    ]);
    each(
        &place,
        &["nim", "9", "5", "3", "--grundy-table", "{}"],
        &table_cases,
    );
    assert!(!place.path().join("figures").exists());
}

#[test]
fn graph_readers_name_what_they_were_given() {
    let place = Place::new();
    place.ok(&["compute", "--quiet", "--n", "10", "--table", "t.c3t"]);
    place.file("cut.memo", b"CHOMP3GM\x04\x00");
    let mut sources = place.kinds("a file of graphs (graph6 or sparse6 lines)");
    sources[0].2 = "dir is a directory, not a file of graphs".into();
    sources.push((
        "t.c3t".into(),
        Bad::OtherKind,
        "t.c3t: line 1 is not text (UTF-8)".into(),
    ));
    each(&place, &["graph", "{}"], &sources);
    let mut edges = place.kinds("an edge list");
    edges[0].2 = "dir is a directory, not an edge list".into();
    each(&place, &["graph", "--edges", "{}"], &edges);
    // The memo is read if it is there and written at the end: what cannot be
    // a memo is refused before any work.
    let memo = vec![
        (
            "dir".to_string(),
            Bad::Directory,
            "--memo dir is a directory, not a graph memo".to_string(),
        ),
        (
            "fifo".into(),
            Bad::Fifo,
            "--memo fifo is a FIFO (named pipe), not a graph memo".into(),
        ),
        (
            "dangling".into(),
            Bad::Dangling,
            // Written at the end, so refused as an output at a link.
            "--memo dangling is a symbolic link (to gone)".into(),
        ),
        (
            "empty".into(),
            Bad::Empty,
            "empty: the file is empty, not a graph memo".into(),
        ),
        (
            "cut.memo".into(),
            Bad::Truncated,
            "cut.memo: damaged graph memo (truncated)".into(),
        ),
        (
            "t.c3t".into(),
            Bad::OtherKind,
            "--memo t.c3t is an f(q,r) table (.c3t), not a graph memo".into(),
        ),
    ];
    each(&place, &["graph", "wheel:4", "--memo", "{}"], &memo);
    assert!(
        std::fs::symlink_metadata(place.path().join("dangling"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link is not written over"
    );
    // A directory of graph tables that is none.
    refused(
        place.path(),
        &["plot", "--graphs", "fifo", "--out", "figures"],
        Bad::Fifo,
        "--graphs fifo is not a directory",
    );
    std::fs::create_dir(place.path().join("graphs")).unwrap();
    std::os::unix::fs::symlink("gone", place.path().join("graphs/small-graphs.tsv")).unwrap();
    refused(
        place.path(),
        &["plot", "--graphs", "graphs", "--out", "figures"],
        Bad::Dangling,
        "graphs/small-graphs.tsv is a symbolic link to gone, which does not exist",
    );
}

#[test]
fn checkpoints_name_what_they_were_given() {
    let place = Place::new();
    place.ok(&["compute", "--quiet", "--n", "10", "--table", "t.c3t"]);
    place.file("cut.c3k", b"CHOMP3CK\x05\x00\x00\x00\x2c\x01");
    let cases = vec![
        (
            "dir".to_string(),
            Bad::Directory,
            "--checkpoint dir is a directory, not a census checkpoint".to_string(),
        ),
        (
            "fifo".into(),
            Bad::Fifo,
            "--checkpoint fifo is a FIFO (named pipe), not a census checkpoint".into(),
        ),
        (
            "dangling".into(),
            Bad::Dangling,
            // Written as the run goes, so refused as an output at a link.
            "--checkpoint dangling is a symbolic link (to gone)".into(),
        ),
        (
            "empty".into(),
            Bad::Empty,
            "empty: the file is empty, not a census checkpoint".into(),
        ),
        (
            "cut.c3k".into(),
            Bad::Truncated,
            "cut.c3k: damaged census checkpoint (cut off, or a count in it damaged)".into(),
        ),
        (
            "t.c3t".into(),
            Bad::OtherKind,
            "--checkpoint t.c3t is an f(q,r) table (.c3t), not a census checkpoint".into(),
        ),
    ];
    each(
        &place,
        &[
            "census",
            "--quiet",
            "--rows",
            "40",
            "--out",
            "c.tsv",
            "--checkpoint",
            "{}",
        ],
        &cases,
    );
    assert!(!place.path().join("c.tsv").exists());
    // grundy-periods' checkpoint, read when it is there.
    let cases = vec![
        (
            "dangling".to_string(),
            Bad::Dangling,
            "--checkpoint dangling is a symbolic link (to gone)".to_string(),
        ),
        (
            "empty".into(),
            Bad::Empty,
            "empty: the file is empty, not a grundy-periods checkpoint".into(),
        ),
    ];
    each(
        &place,
        &[
            "grundy-periods",
            "--quiet",
            "--lines",
            "4",
            "--lag",
            "10",
            "--bfiles",
            "b",
            "--checkpoint",
            "{}",
        ],
        &cases,
    );
}

#[test]
fn writers_and_upgrade_say_what_is_there() {
    let place = Place::new();
    // A table is not created through a link to nothing (once taken for a
    // table another process was making).
    refused(
        place.path(),
        &["compute", "--quiet", "--n", "10", "--table", "dangling"],
        Bad::Dangling,
        "dangling is a symbolic link to gone, which does not exist",
    );
    // A table of the present version is not called damaged by upgrade.
    place.ok(&["compute", "--quiet", "--n", "10", "--table", "t.c3t"]);
    let (code, err) = run(place.path(), &["upgrade", "t.c3t", "new.c3t"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("t.c3t: already a table of format version 2") && !err.contains("checksum"),
        "{err}"
    );
    assert!(!place.path().join("new.c3t").exists());
    // The table compressed with xz, where transpose would continue a table
    // by rows and where upgrade reads one; a census table where transpose
    // writes: each named, and kept.
    let table = std::fs::read(place.path().join("t.c3t")).unwrap();
    let mut packed = Vec::new();
    let mut xz = xz2::write::XzEncoder::new(&mut packed, 1);
    xz.write_all(&table).unwrap();
    xz.finish().unwrap();
    place.file("z.c3t", &packed);
    place.ok(&["census", "--quiet", "--rows", "10", "--out", "c.tsv"]);
    let census = std::fs::read(place.path().join("c.tsv")).unwrap();
    for (args, said) in [
        (
            &["transpose", "--quiet", "--table", "t.c3t", "--out", "z.c3t"][..],
            "z.c3t: exists and is a file compressed with xz; decompress it (xz -d) if it is the table you meant, or name a new file for the table by rows",
        ),
        (
            &["transpose", "--quiet", "--table", "t.c3t", "--out", "c.tsv"],
            "c.tsv: exists and is a census table (census.tsv); name a new file for the table by rows",
        ),
        (
            &["upgrade", "z.c3t", "new.c3t"],
            "z.c3t: this file is compressed with xz (decompress it first), not a chomp3 table",
        ),
    ] {
        let (code, err) = run(place.path(), args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read(place.path().join("z.c3t")).unwrap(), packed);
    assert_eq!(std::fs::read(place.path().join("c.tsv")).unwrap(), census);
    assert!(!place.path().join("new.c3t").exists());
}

/// Runs the command of its arguments, its standard output discarded, and
/// prints its peak memory in KiB; exits with the command's status.
const PEAK: &str = "import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(r.returncode)";

/// Two GiB of zeros without a line end, packed as `.xz` (a few hundred KB):
/// refused at the 64 MiB line limit, in seconds, by a process whose peak
/// memory stays far below what the line would need.
#[test]
fn a_decompression_bomb_is_refused_quickly_in_bounded_memory() {
    let place = Place::new();
    let mut one = Vec::new();
    let mut xz = xz2::write::XzEncoder::new(&mut one, 1);
    xz.write_all(&vec![0u8; 1 << 20]).unwrap();
    xz.finish().unwrap();
    place.file("bomb.tsv.xz", &one.repeat(2048));
    for args in [
        &["nim", "30", "5", "3", "--grundy-census", "bomb.tsv.xz"][..],
        &["plot", "--grundy", "bomb.tsv.xz", "--out", "figures"],
    ] {
        let started = Instant::now();
        // The peak memory of the command alone, as a small process that
        // started it reports: a child started from this test program would
        // carry the program's own peak (Linux keeps the high-water mark of
        // the memory a process replaces at exec, and the tests beside this
        // one use much).
        let out = Command::new("python3")
            .current_dir(place.path())
            .args(["-c", PEAK, env!("CARGO_BIN_EXE_chomp3")])
            .args(args)
            .output()
            .expect("python3 runs");
        let seconds = started.elapsed().as_secs_f64();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.contains(
                "bomb.tsv.xz: line 1 is longer than 64 MiB, longer than any line of a file chomp3 reads"
            ),
            "{err}"
        );
        let peak_kib: u64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
        let peak_mib = peak_kib / 1024;
        assert!(peak_mib < 512, "{args:?}: peak {peak_mib} MiB");
        assert!(seconds < 60.0, "{args:?}: {seconds:.1} s");
    }
}

/// `text` with its end line made again, as if it had been written so.
fn resealed(text: &str) -> Vec<u8> {
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with("# end: "))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut out = Vec::new();
    chomp3::base::seal::write_sealed(&mut out, |w| w.write_all(body.as_bytes())).unwrap();
    out
}

#[test]
fn a_key_repeated_or_out_of_order_is_refused_with_its_line() {
    let place = Place::new();
    place.ok(&["grundy-census", "--quiet", "--lines", "6", "--out", "g.tsv"]);
    place.ok(&[
        "grundy-table",
        "--quiet",
        "--n",
        "12",
        "--table",
        "g.g3t",
        "--bfiles",
        "b",
    ]);
    let text = std::fs::read_to_string(place.path().join("g.tsv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The data lines start after the header; (0,0), (1,0), (1,1), ..
    let first = lines.iter().position(|l| l.starts_with("q\tr\t")).unwrap() + 1;
    assert!(lines[first + 1].starts_with("1\t0\t"), "{text}");
    let mut repeated = lines.clone();
    repeated.insert(first + 2, lines[first + 1]);
    place.file("repeated.tsv", &resealed(&repeated.join("\n")));
    let mut swapped = lines.clone();
    swapped.swap(first + 1, first + 2);
    place.file("swapped.tsv", &resealed(&swapped.join("\n")));
    for (file, says) in [
        (
            "repeated.tsv",
            format!(
                "repeated.tsv: line {}: the line (1,0) after (1,0)",
                first + 3
            ),
        ),
        (
            "swapped.tsv",
            format!(
                "swapped.tsv: line {}: the line (1,0) after (1,1)",
                first + 3
            ),
        ),
    ] {
        for args in [
            &["nim", "30", "5", "3", "--grundy-census", file][..],
            &["nim", "30", "0", "0", "--grundy-census", file],
            &["plot", "--grundy", file, "--out", "figures"],
        ] {
            refused(place.path(), args, Bad::OtherKind, &says);
        }
    }
    let rectangles = std::fs::read_to_string(place.path().join("b/grundy-rectangles.txt")).unwrap();
    let doubled = rectangles.replace("\n3 ", "\n2 ");
    assert_ne!(doubled, rectangles);
    place.file("doubled.txt", &resealed(&doubled));
    refused(
        place.path(),
        &["nim", "9", "9", "9", "--rectangles", "doubled.txt"],
        Bad::OtherKind,
        "doubled.txt line 6: n = 2 after n = 2; a b-file lists each n once, in order",
    );
}

/// A table that holds no column yet (a `compute` killed before its first
/// commit, which the same command continues): checked against as a table
/// of nothing, and named as such, never a panic.
#[test]
fn a_table_with_no_column_yet_is_checked_against_as_holding_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // No commit for an hour but the last: killed once the file is there.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .current_dir(d)
        .args(["compute", "--quiet", "--n", "60000", "--table", "e.c3t"])
        .args(["--threads", "1", "--commit-secs", "3600"])
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while !d.join("e.c3t").exists() && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    child.kill().unwrap();
    child.wait().unwrap();
    let info = common::chomp3_in(d, &["info", "--table", "e.c3t"]);
    let said = String::from_utf8_lossy(&info.stdout);
    assert!(said.contains("none (0 complete columns"), "{said}");
    let out = common::chomp3_in(
        d,
        &[
            "census", "--rows", "10", "--out", "c.tsv", "--check", "e.c3t",
        ],
    );
    let said = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("all 0 proved values agree"), "{said}");
    let out = common::chomp3_in(
        d,
        &[
            "grundy-table",
            "--quiet",
            "--n",
            "10",
            "--table",
            "g.g3t",
            "--check-f",
            "e.c3t",
        ],
    );
    let said = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("on all 0 positions compared"), "{said}");
    let out = common::chomp3_in(d, &["row", "0", "--table", "e.c3t"]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("e.c3t holds no column yet"), "{said}");
}
