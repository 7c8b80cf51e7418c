//! `chomp3 analyze`: its b-files and row census against sources outside the code:
//! doc/chomp.md section 3, the reference table, the brute-force solver, and OEIS A147983.

#![allow(clippy::needless_range_loop)] // (q, r) indexing reads like the maths

use crate::common;

use std::path::Path;

use chomp3::f::analysis::period::periodic_tail;
use chomp3::f::proof::{Below, certify};
use chomp3::f::table::Table;
use common::{BruteForce, chomp3_ok, computed, reference_table};

/// Terms of a b-file (skipping `#` lines), checking the index runs 0, 1, 2, ...
fn b_file(dir: &Path, name: &str) -> Vec<u64> {
    let text = std::fs::read_to_string(dir.join(name)).unwrap();
    let mut terms = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (i, v) = line.split_once(' ').unwrap();
        assert_eq!(i.parse::<usize>().unwrap(), terms.len(), "{name} index");
        terms.push(v.parse().unwrap());
    }
    terms
}

/// Rows of rows.tsv as string fields.
fn rows_tsv(dir: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("rows.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("r\t"))
        .map(|l| l.split('\t').map(String::from).collect())
        .collect()
}

fn analysed(n: u64) -> (tempfile::TempDir, std::path::PathBuf) {
    analysed_as("t.c3t", n)
}

/// [`analysed`], the table named `name`.
fn analysed_as(name: &str, n: u64) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let table = computed(dir.path(), name, n, &[]);
    let out = dir.path().join("out");
    chomp3_ok(&[
        "analyze",
        "--quiet",
        "--table",
        table.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    (dir, out)
}

#[test]
fn b_files_match_spec_reference_and_brute_force() {
    let (_dir, out) = analysed(2000);
    let first = |name: &str, k: usize| b_file(&out, name)[..k].to_vec();
    assert_eq!(
        first("b029900.txt", 24),
        [
            1, 3, 4, 6, 8, 10, 11, 13, 15, 16, 18, 20, 21, 24, 25, 27, 28, 30, 32, 34, 35, 37, 39,
            40
        ]
    );
    assert_eq!(
        first("b029901.txt", 24),
        [
            2, 5, 7, 9, 12, 14, 17, 19, 22, 23, 26, 29, 31, 33, 36, 38, 41, 43, 46, 47, 50, 52, 55,
            58
        ]
    );
    assert_eq!(
        first("b029902.txt", 24),
        [
            1, 3, 4, 6, 8, 10, 12, 13, 15, 16, 18, 20, 21, 23, 25, 27, 29, 30, 32, 33, 35, 37, 39,
            41
        ]
    );
    assert_eq!(
        first("b029899.txt", 24),
        [
            0, 1, 3, 5, 7, 10, 13, 17, 20, 25, 29, 33, 39, 44, 51, 56, 62, 70, 76, 85, 92, 100,
            110, 121
        ]
    );
    assert_eq!(
        first("b029905.txt", 20),
        [
            0, 2, 5, 7, 9, 11, 14, 17, 19, 22, 24, 26, 28, 31, 34, 36, 38, 40, 42, 45
        ]
    );
    // Families of doc/chomp.md section 2: row 0 is [k+1, k, 0], row 2 [k+4, k+2, 2],
    // row 5 [a+11, a+7, 5]: (p, q) = (1, 0), (2, 2), (4, 7).
    let (p, q) = (b_file(&out, "b029903.txt"), b_file(&out, "b029904.txt"));
    assert_eq!((p[0], q[0]), (1, 0));
    assert_eq!((p[1], q[1]), (2, 2));
    assert_eq!((p[2], q[2]), (4, 7));

    // The diagonal against the reference table.
    let reference = reference_table();
    let d = b_file(&out, "b029900.txt");
    for n in 0..=30 {
        assert_eq!(d[n], reference[n][n] as u64, "d_{n}");
    }
    // A029899 against P-positions counted by the game-rule solver.
    let bf = BruteForce::solve(40);
    let counts = b_file(&out, "b029899.txt");
    for n in 0..=40 {
        let by_rules = bf.p_positions().iter().filter(|&&(p, _, _)| p <= n).count();
        assert_eq!(counts[n], by_rules as u64, "A029899({n})");
    }
}

#[test]
fn row_census_proves_row_120_and_finds_the_rows_of_a147983() {
    let (_dir, out) = analysed(5000);
    let rows = rows_tsv(&out);
    assert_eq!(rows.len(), 5001);
    let row120 = &rows[120];
    assert_eq!(
        row120[..6],
        ["120", "periodic", "certificate", "170", "2", "72,70"]
    );
    // Row 1 dies at q = 2, row 3 at 5 (doc/chomp.md section 2).
    assert_eq!(rows[1][1..4], ["constant", "rule", "2"]);
    assert_eq!(rows[3][1..4], ["constant", "rule", "5"]);
    // OEIS A147983: the rows r <= 2010 whose P-positions have a pattern (neither
    // die nor end in one family).
    let a147983 = [
        120, 400, 402, 422, 424, 513, 576, 583, 585, 593, 605, 610, 861, 888, 890, 892, 904, 1013,
        1015, 1059, 1129, 1141, 1143, 1163, 1216, 1281, 1291, 1293, 1295, 1419, 1448, 1508, 1523,
        1525, 1537, 1561, 1723, 1747, 1824, 1868, 1870, 1875, 1889, 2003, 2010,
    ];
    let patterned: Vec<u32> = rows[..=2010]
        .iter()
        .filter(|f| f[1] == "periodic" && f[4] != "1")
        .map(|f| f[0].parse().unwrap())
        .collect();
    assert_eq!(patterned, a147983);
    // Every row up to 2010 is settled with a proof at N = 5000.
    assert!(
        rows[..=2010]
            .iter()
            .all(|f| f[2] == "rule" || f[2] == "certificate")
    );
    // And every row is accounted for in one class.
    assert!(
        rows.iter()
            .all(|f| ["constant", "periodic", "open"].contains(&f[1].as_str()))
    );
}

#[test]
fn summary_and_report_state_the_checks() {
    let (_dir, out) = analysed(1000);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(json["n"], 1000);
    assert_eq!(json["checks"]["complementary"]["holds"]["upto"], 1000);
    assert_eq!(json["checks"]["unique_winning_move"]["holds"]["upto"], 1000);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("holds for all values <= 1000"), "{report}");
}

/// A certificate must be refused when the data it compares is wrong: take row 120,
/// change one value inside the window the certificate compares, and it fails.
#[test]
fn a_certificate_notices_a_wrong_state() {
    let dir = tempfile::tempdir().unwrap();
    let t = Table::open(computed(dir.path(), "t.c3t", 1000, &[])).unwrap();
    let diagonal: Vec<u32> = (0..=1000).map(|q| t.value(q, q).unwrap()).collect();
    let mut below = Below::none();
    for r in 0..120 {
        let mut row = Vec::new();
        for q in r..=1000 {
            t.read_column(q, r..r + 1, &mut row).unwrap();
        }
        let offsets: Vec<i64> = (r..).zip(&row).map(|(q, &v)| v as i64 - q as i64).collect();
        match periodic_tail(&offsets) {
            _ if *row.last().unwrap() <= 1000 => below.add_dead(*row.last().unwrap() as u64),
            Some(tail) => {
                let seen = (r as usize + tail.start) as u64;
                let c = certify(r as u64, &row, &diagonal, below, seen, tail.period as u64)
                    .expect("rows below 120 settle");
                below.add_periodic(c.start, c.period);
            }
            None => panic!("row {r} open"),
        }
    }
    let mut row = Vec::new();
    for q in 120..=1000u32 {
        t.read_column(q, 120..121, &mut row).unwrap();
    }
    let offsets: Vec<i64> = (120..)
        .zip(&row)
        .map(|(q, &v)| v as i64 - q as i64)
        .collect();
    let tail = periodic_tail(&offsets).unwrap();
    let (seen, period) = (120 + tail.start as u64, tail.period as u64);
    let good = certify(120, &row, &diagonal, below, seen, period).unwrap();
    assert_eq!((good.start, good.period), (170, 2));
    // Drop one value from the second compared state: the certificate is refused.
    let mut bad = row.clone();
    let i = (good.closed_at - 1 - 120) as usize;
    bad[i] += 2;
    assert_eq!(certify(120, &bad, &diagonal, below, seen, period), None);
    // If the rows below settled only at the table's end, there is no data to close it.
    let late = Below {
        settled_from: 1000,
        ..below
    };
    assert_eq!(certify(120, &row, &diagonal, late, seen, period), None);
}

#[test]
fn analyze_takes_proved_fates_from_a_census() {
    let dir = tempfile::tempdir().unwrap();
    let table = computed(dir.path(), "t.c3t", 1000, &[]);
    let (t, c3d, tsv) = (
        table.to_str().unwrap(),
        dir.path().join("c.c3d"),
        dir.path().join("c.tsv"),
    );
    chomp3_ok(&[
        "census",
        "--quiet",
        "--rows",
        "1000",
        "--out",
        tsv.to_str().unwrap(),
        "--descriptors",
        c3d.to_str().unwrap(),
    ]);
    let out = dir.path().join("out");
    let o = out.to_str().unwrap();
    chomp3_ok(&[
        "analyze",
        "--quiet",
        "--table",
        t,
        "--out",
        o,
        "--census",
        c3d.to_str().unwrap(),
    ]);
    let rows = rows_tsv(&out);
    // The table alone settles rows up to about N / sqrt 2; the census settles all.
    assert!(
        rows.iter()
            .all(|f| ["rule", "certificate", "census"].contains(&f[2].as_str()))
    );
    let from_census: Vec<&Vec<String>> = rows.iter().filter(|f| f[2] == "census").collect();
    assert!(
        from_census.len() > 100,
        "{} rows from the census",
        from_census.len()
    );
    // Where the table shows a census row's repetition, it agrees with the table.
    let tbl = Table::open(&table).unwrap();
    for f in from_census.iter().filter(|f| f[1] == "periodic") {
        let (r, start): (u32, u32) = (f[0].parse().unwrap(), f[3].parse().unwrap());
        let pattern: Vec<i64> = f[5].split(',').map(|x| x.parse().unwrap()).collect();
        for q in start..=1000 {
            let want = pattern[((q - start) as usize) % pattern.len()];
            assert_eq!(
                tbl.value(q, r).unwrap() as i64 - q as i64,
                want,
                "row {r} at {q}"
            );
        }
    }
    let summary = std::fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(summary.contains("\"resolved_below\": 1001"), "{summary}");
}

/// A census of more than 300,001 rows: `rows.tsv` and the long b-files are
/// written compressed (the b-files' first 10,000 terms plain beside them), the
/// report links the files written, and they hold the committed rows and terms
/// of `data/census-500000/` (made again, not copied).
#[test]
fn a_large_census_writes_its_rows_compressed_and_links_them() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let census = root.join("data/census-500000/census.c3d.xz");
    let out = dir.path().join("out");
    chomp3_ok(&[
        "analyze",
        "--census-only",
        "--census",
        census.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!out.join("rows.tsv").exists());
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("[rows.tsv.xz](rows.tsv.xz)"), "{report}");
    let text = |path: &Path| {
        let mut s = String::new();
        xz2::read::XzDecoder::new(std::fs::File::open(path).unwrap())
            .read_to_string(&mut s)
            .unwrap();
        s
    };
    let (made, committed) = (
        text(&out.join("rows.tsv.xz")),
        text(&root.join("data/census-500000/rows.tsv.xz")),
    );
    // The header names the census file given; the rows are the same.
    let rows = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with('#'))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(rows(&made).len(), 500_001 + 1);
    assert!(
        rows(&made) == rows(&committed),
        "rows differ from the committed census"
    );
    // The b-files: whole in .xz (the committed terms), the first 10,000 plain.
    for id in [
        "029899", "029900", "029901", "029902", "029903", "029904", "029905",
    ] {
        let whole = text(&out.join(format!("b{id}.txt.xz")));
        let committed = text(&root.join(format!("data/census-500000/b{id}.txt.xz")));
        assert!(rows(&whole) == rows(&committed), "b{id}: other terms");
        let plain = std::fs::read_to_string(out.join(format!("b{id}.txt"))).unwrap();
        assert_eq!(
            rows(&plain)[..],
            rows(&whole)[..10_000],
            "b{id}: not its first terms"
        );
        assert!(plain.contains(&format!("(all of them in b{id}.txt.xz)")));
        assert!(report.contains(&format!("[b{id}.txt.xz](b{id}.txt.xz)")));
    }
    // A147983 has fewer than 10,000 terms here: one plain file.
    assert!(!out.join("b147983.txt.xz").exists());
}

#[test]
fn a_table_path_with_a_newline_keeps_every_b_file_line_a_comment_or_a_term() {
    // The header names the table quoted as the shell reads it back, so that
    // a newline in the path breaks no line of a b-file or of rows.tsv.
    let (_dir, out) = analysed_as("t\nx.c3t", 40);
    assert!(b_file(&out, "b029900.txt").len() == 41);
    let rows = std::fs::read_to_string(out.join("rows.tsv")).unwrap();
    assert!(
        rows.lines()
            .any(|l| l.starts_with("# from chomp3 on ") && l.contains("t\\nx.c3t'")),
        "{rows}"
    );
    assert_eq!(rows_tsv(&out).len(), 41, "one line a row, no stray one");
}
