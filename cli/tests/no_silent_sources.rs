//! Answers come only from the sources the user named (or the defaults, said so),
//! census files are never replaced by smaller ones, and errors are one sentence
//! that names the file once and says what to do.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{chomp3, chomp3_in, chomp3_ok, computed};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// A failed run with one error line that mentions `expect`.
fn fails_with(o: &Output, expect: &str) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "should fail: {err}");
    assert_eq!(err.matches(expect).count(), 1, "said once: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(expect), "{err:?} should mention {expect:?}");
    err
}

/// `dir/data/census.{tsv,c3d}` for rows 0..=300, made by the census command in `dir`.
fn census_in(dir: &Path) {
    std::fs::create_dir(dir.join("data")).unwrap();
    let o = chomp3_in(
        dir,
        &[
            "census",
            "--quiet",
            "--rows",
            "300",
            "--out",
            "data/census.tsv",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(dir.join("data/census.c3d").exists());
}

#[test]
fn a_broken_or_missing_table_is_an_error_even_with_a_census_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    census_in(dir.path());
    let good = computed(dir.path(), "good.c3t", 2000, &[]);
    let bytes = std::fs::read(&good).unwrap();
    std::fs::write(dir.path().join("broken.c3t"), &bytes[..bytes.len() / 2]).unwrap();
    let o = chomp3_in(dir.path(), &["get", "1999", "5", "--table", "broken.c3t"]);
    fails_with(&o, "truncated table");
    assert!(stdout(&o).is_empty(), "no value printed");
    let o = chomp3_in(dir.path(), &["get", "1999", "5", "--table", "nope.c3t"]);
    fails_with(&o, "nope.c3t: no such table");
    // The census answers beyond a good table, and --explain says so.
    let o = chomp3_in(
        dir.path(),
        &[
            "get",
            "5000",
            "120",
            "--table",
            "good.c3t",
            "--census",
            "data/census.c3d",
            "--explain",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("5072\nfrom data/census.c3d: row 120"),
        "{out}"
    );
    assert!(out.contains("beyond the table good.c3t, N = 2000"), "{out}");
}

/// The committed census, at its default path under `dir`.
fn committed_census_in(dir: &Path) {
    let to = dir.join("data/census-1000000");
    std::fs::create_dir_all(&to).unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/census-1000000/census.c3d.xz");
    std::fs::copy(from, to.join("census.c3d.xz")).unwrap();
}

#[test]
fn with_no_table_named_or_present_the_census_answers_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing at the default paths: no answer, and the error says what is missing.
    let o = chomp3_in(dir.path(), &["get", "400", "120"]);
    fails_with(&o, "no census at data/census-1000000/census.c3d.xz");
    committed_census_in(dir.path());
    let o = chomp3_in(dir.path(), &["get", "400", "120", "--explain"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("472\nfrom data/census-1000000/census.c3d.xz"),
        "{out}"
    );
    assert!(out.contains("no table at data/table.c3t"), "{out}");
    // Without --explain the value is printed and the source is said on stderr.
    let o = chomp3_in(dir.path(), &["get", "400", "120"]);
    assert_eq!(stdout(&o), "472\n");
    assert!(
        stderr(&o).contains("from data/census-1000000/census.c3d.xz"),
        "{}",
        stderr(&o)
    );
    // A census that was named must exist.
    let o = chomp3_in(dir.path(), &["get", "400", "120", "--census", "other.c3d"]);
    fails_with(&o, "other.c3d: no such census file");
}

#[test]
fn census_writes_its_descriptors_beside_out_and_never_over_a_larger_census() {
    let dir = tempfile::tempdir().unwrap();
    census_in(dir.path());
    let committed = std::fs::read(dir.path().join("data/census.c3d")).unwrap();
    let committed_tsv = std::fs::read(dir.path().join("data/census.tsv")).unwrap();
    // --out elsewhere: the descriptors go beside it, the default ones stay.
    let o = chomp3_in(
        dir.path(),
        &["census", "--quiet", "--rows", "100", "--out", "small.tsv"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("small.c3d"), "{}", stdout(&o));
    assert!(dir.path().join("small.c3d").exists());
    assert!(std::fs::read(dir.path().join("data/census.c3d")).unwrap() == committed);
    // Over a census of more rows: refused before any work, nothing changed.
    let smaller = [
        "census",
        "--quiet",
        "--rows",
        "100",
        "--out",
        "data/census.tsv",
    ];
    let o = chomp3_in(dir.path(), &smaller);
    fails_with(&o, "rows 0..300");
    assert!(std::fs::read(dir.path().join("data/census.c3d")).unwrap() == committed);
    assert!(std::fs::read(dir.path().join("data/census.tsv")).unwrap() == committed_tsv);
    // Told to, it replaces them.
    let o = chomp3_in(dir.path(), &[&smaller[..], &["--replace"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read(dir.path().join("data/census.c3d")).unwrap() != committed);
    // Something that is not a census is not overwritten either.
    std::fs::write(dir.path().join("notes.tsv"), "my notes\n").unwrap();
    let o = chomp3_in(
        dir.path(),
        &["census", "--quiet", "--rows", "10", "--out", "notes.tsv"],
    );
    fails_with(&o, "is a file chomp3 did not write, not a census table");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes.tsv")).unwrap(),
        "my notes\n"
    );
}

#[test]
fn plot_and_analyze_take_the_census_they_are_given() {
    let dir = tempfile::tempdir().unwrap();
    let t = computed(dir.path(), "t.c3t", 300, &[]);
    let (c, out) = (dir.path().join("c.tsv"), dir.path().join("figs"));
    let o = chomp3(&[
        "census",
        "--quiet",
        "--rows",
        "300",
        "--out",
        c.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let d = dir.path().join("c.c3d");
    let plot = |census: &Path| {
        chomp3(&[
            "plot",
            "--table",
            t.to_str().unwrap(),
            "--census",
            census.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let o = plot(&d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("using the census"), "{}", stderr(&o));
    assert!(out.join("census.png").exists());
    fails_with(&plot(&dir.path().join("absent.c3d")), "no such census file");
    let o = chomp3(&[
        "analyze",
        "--quiet",
        "--table",
        t.to_str().unwrap(),
        "--census",
        dir.path().join("absent.c3d").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    fails_with(&o, "no such census file");
}

#[test]
fn threads_help_shows_one_default() {
    for cmd in ["compute", "analyze", "census", "plot", "run", "bench"] {
        let help = stdout(&chomp3(&[cmd, "--help"]));
        let line = help.lines().find(|l| l.contains("--threads")).unwrap();
        assert_eq!(line.matches("[default").count(), 1, "{cmd}: {line}");
        assert!(line.contains("one per core"), "{cmd}: {line}");
    }
    let help = stdout(&chomp3(&["census", "--help"]));
    assert!(
        help.contains("3R + 10080"),
        "the default is derived: {help}"
    );
}

#[test]
fn errors_name_the_file_once_and_blame_what_was_given() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nonexist.c3t");
    let m = missing.to_str().unwrap();
    let err = fails_with(&chomp3(&["row", "5", "--table", m]), "no such table");
    assert_eq!(
        err.matches(m).count(),
        2,
        "the path, and the command to make it: {err}"
    );
    assert!(err.contains("chomp3 compute"), "says what to do: {err}");
    let d = dir.path().to_str().unwrap();
    fails_with(&chomp3(&["row", "5", "--table", d]), "is a directory");
    fails_with(&chomp3(&["info", "--table", d]), "is a directory");
    let t = dir.path().join("t.c3t");
    let err = fails_with(
        &chomp3(&[
            "compute",
            "--quiet",
            "--n",
            "99999999999",
            "--table",
            t.to_str().unwrap(),
        ]),
        "N = 99999999999",
    );
    assert!(
        !err.contains("--capacity"),
        "blames a flag not given: {err}"
    );
    assert!(!t.exists());
}

/// A committed census is read as it is committed, compressed: `.c3d.xz` is
/// decompressed as it is read (the value checked
/// against the decompressed file); a cut `.xz` is refused in one line.
#[test]
fn a_compressed_census_answers_as_committed() {
    let committed = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/census-500000/census.c3d.xz"
    );
    let out = chomp3(&["get", "10000000", "432746", "--census", committed]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "10253498");
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.c3d.xz");
    let bytes = std::fs::read(committed).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = chomp3(&["get", "10", "5", "--census", cut.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cut.c3d.xz") && err.contains(".xz"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// A census that leaves most rows open compresses by thousands, and its
/// `.xz` answers as the plain file does; the length its header gives is what
/// is read, so a header that gives more than the machine holds is refused
/// in one line before anything is allocated.
#[test]
fn a_census_of_open_rows_compressed_answers_as_the_plain_one() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.tsv");
    chomp3_ok(&[
        "census",
        "--quiet",
        "--rows",
        "300000",
        "--max-columns",
        "5000",
        "--out",
        out.to_str().unwrap(),
    ]);
    let plain = dir.path().join("o.c3d");
    let bytes = std::fs::read(&plain).unwrap();
    let pack = |name: &str, bytes: &[u8]| {
        let packed = dir.path().join(name);
        let mut xz = xz2::write::XzEncoder::new(std::fs::File::create(&packed).unwrap(), 6);
        xz.write_all(bytes).unwrap();
        xz.finish().unwrap();
        packed
    };
    let packed = pack("o.c3d.xz", &bytes);
    let ratio = bytes.len() as u64 / std::fs::metadata(&packed).unwrap().len();
    assert!(ratio > 256, "compresses by {ratio} only");
    for (q, r) in [("10", "3"), ("1500", "1500"), ("100000", "3")] {
        let want = chomp3_ok(&["get", q, r, "--census", plain.to_str().unwrap()]).stdout;
        let got = chomp3_ok(&["get", q, r, "--census", packed.to_str().unwrap()]).stdout;
        assert_eq!(got, want, "f({q},{r})");
    }
    // The pool's length (bytes 24..32) made 2^40 entries: 4 TiB.
    let mut head = bytes[..1 << 20].to_vec();
    head[24..32].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let bomb = pack("bomb.c3d.xz", &head);
    let out = chomp3(&["get", "10", "3", "--census", bomb.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("bomb.c3d.xz: its header gives it 4398")
            && err.contains("the header is damaged, or the census is too large to read here"),
        "{err}"
    );
}

/// A Grundy census compressed with xz answers as the plain file does, and a
/// cut one is refused in one line naming it.
#[test]
fn a_compressed_grundy_census_answers_as_the_plain_one() {
    use std::io::Write;
    let plain = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/grundy-census-40/grundy-census.tsv"
    );
    let dir = tempfile::tempdir().unwrap();
    let packed = dir.path().join("g.tsv.xz");
    let mut xz = xz2::write::XzEncoder::new(std::fs::File::create(&packed).unwrap(), 6);
    xz.write_all(&std::fs::read(plain).unwrap()).unwrap();
    xz.finish().unwrap();
    let (p, q, r) = ("100000000000", "39", "17");
    let want = chomp3_ok(&["nim", p, q, r, "--grundy-census", plain]).stdout;
    let got = chomp3_ok(&["nim", p, q, r, "--grundy-census", packed.to_str().unwrap()]);
    let (want, got) = (
        String::from_utf8_lossy(&want),
        String::from_utf8_lossy(&got.stdout),
    );
    // The same value, from the line the census proves (the source names the file).
    assert_eq!(want.lines().next(), got.lines().next());
    assert!(got.contains("g.tsv.xz, line (39,17)"), "{got}");
    let cut = dir.path().join("cut.tsv.xz");
    let bytes = std::fs::read(&packed).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = chomp3(&["nim", p, q, r, "--grundy-census", cut.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cut.tsv.xz"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    // Compressed under a name without `.xz` (a Grundy census, and a census's
    // descriptors): named so, not called another file.
    let unnamed = dir.path().join("g.tsv");
    std::fs::write(&unnamed, &bytes).unwrap();
    census_in(dir.path());
    let c3d = std::fs::read(dir.path().join("data/census.c3d")).unwrap();
    let descriptors = dir.path().join("c.c3d");
    let mut xz = xz2::write::XzEncoder::new(std::fs::File::create(&descriptors).unwrap(), 1);
    xz.write_all(&c3d).unwrap();
    xz.finish().unwrap();
    for (args, path) in [
        (
            vec!["nim", p, q, r, "--grundy-census", unnamed.to_str().unwrap()],
            &unnamed,
        ),
        (
            vec!["get", "10", "3", "--census", descriptors.to_str().unwrap()],
            &descriptors,
        ),
    ] {
        let out = chomp3(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        let said = format!(
            "{}: this file is compressed with xz, but its name does not end in .xz; name it so to have it read decompressed, or decompress it (xz -d)",
            path.display()
        );
        assert!(err.contains(&said), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

/// On and above the diagonal, the census answers from the columns it
/// computed whole, where its rows' proofs start later: every such value
/// equals the dense table's, and the source says which.
#[test]
fn the_census_answers_the_diagonal_from_its_columns() {
    let dir = tempfile::tempdir().unwrap();
    census_in(dir.path());
    let table = computed(dir.path(), "dense.c3t", 300, &[]);
    let mut from_diagonal = 0;
    for q in (0..=300u64).step_by(7) {
        let (qs, above) = (q.to_string(), (q + 5).to_string());
        let dense = chomp3_ok(&["get", &qs, &qs, "--table", table.to_str().unwrap()]);
        for r in [&qs, &above] {
            // No table in the directory: the census is the default source.
            let args = ["get", &qs, r, "--census", "data/census.c3d", "--explain"];
            let o = chomp3_in(dir.path(), &args);
            assert!(o.status.success(), "{q} {r}: {}", stderr(&o));
            let out = stdout(&o);
            assert_eq!(
                out.lines().next(),
                stdout(&dense).lines().next(),
                "f({q},{r})"
            );
            if out.contains("the diagonal f(n,n) of the columns it computed, n <= 300") {
                from_diagonal += 1;
            }
        }
    }
    assert!(from_diagonal > 40, "{from_diagonal}");
}

/// `row` past the table answers from the census by `get`'s rule: the same
/// values as a larger dense table, the source said once per kind; a column
/// neither holds stops it before anything is printed.
#[test]
fn a_row_past_the_table_comes_from_the_census() {
    let dir = tempfile::tempdir().unwrap();
    census_in(dir.path());
    computed(dir.path(), "small.c3t", 200, &[]);
    computed(dir.path(), "large.c3t", 700, &[]);
    let run = |args: &[&str]| chomp3_in(dir.path(), args);
    for (r, from, to) in [
        ("120", "150", "700"),
        ("250", "180", "250"),
        ("3", "0", "700"),
    ] {
        let dense = run(&["row", r, "--from", from, "--to", to, "--table", "large.c3t"]);
        let mixed = run(&[
            "row",
            r,
            "--from",
            from,
            "--to",
            to,
            "--table",
            "small.c3t",
            "--census",
            "data/census.c3d",
        ]);
        assert!(mixed.status.success(), "{r}: {}", stderr(&mixed));
        assert_eq!(stdout(&mixed), stdout(&dense), "row {r}");
        assert!(
            stderr(&mixed).contains("from data/census.c3d"),
            "{}",
            stderr(&mixed)
        );
    }
    // Row 280 past the table, before its proof starts and below the
    // diagonal: neither source holds it; nothing is printed.
    let gap = run(&[
        "row",
        "280",
        "--from",
        "100",
        "--to",
        "400",
        "--table",
        "small.c3t",
        "--census",
        "data/census.c3d",
    ]);
    let err = fails_with(&gap, "gives row 280 only from q =");
    assert!(stdout(&gap).is_empty(), "{err}");
    let o = run(&[
        "row",
        "120",
        "--from",
        "173",
        "--to",
        "170",
        "--table",
        "small.c3t",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--from 173 is past --to 170"),
        "{}",
        stderr(&o)
    );
}
