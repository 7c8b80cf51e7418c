//! Figures decode as PNGs of the right size; `position` agrees with the game-rule
//! solver on every position with p <= 30, winning moves included, from a table
//! and past it from a census.

use crate::common;

use std::collections::BTreeSet;

use chomp3::f::position::{is_p, winning_moves};
use chomp3::f::table::Table;
use common::{BruteForce, census_in, chomp3, chomp3_ok, computed};

#[test]
fn position_agrees_with_brute_force_up_to_30() {
    let bf = BruteForce::solve(30);
    let dir = tempfile::tempdir().unwrap();
    let t = Table::open(computed(dir.path(), "t.c3t", 30, &[])).unwrap();
    let mut checked = 0;
    for p in 1..=30u64 {
        for q in 0..=p {
            for r in 0..=q {
                let (pu, qu, ru) = (p as usize, q as usize, r as usize);
                assert_eq!(
                    is_p(&t, p, q, r).unwrap(),
                    bf.is_p(pu, qu, ru),
                    "[{p},{q},{r}]"
                );
                let by_rules: BTreeSet<[u64; 3]> = bf
                    .moves(pu, qu, ru)
                    .into_iter()
                    .filter(|&(a, b, c)| bf.is_p(a, b, c))
                    .map(|(a, b, c)| [a as u64, b as u64, c as u64])
                    .collect();
                let moves = winning_moves(&t, p, q, r, &chomp3::Stop::new()).unwrap();
                let found: BTreeSet<[u64; 3]> = moves.iter().map(|m| m.to).collect();
                assert_eq!(
                    found.len(),
                    moves.len(),
                    "[{p},{q},{r}]: a move listed twice"
                );
                assert_eq!(found, by_rules, "winning moves from [{p},{q},{r}]");
                checked += 1;
            }
        }
    }
    assert_eq!(
        checked,
        (1..=30).map(|p| (p + 1) * (p + 2) / 2).sum::<usize>()
    );
}

#[test]
fn position_command_prints_moves_and_refuses_bad_triples() {
    let dir = tempfile::tempdir().unwrap();
    let path = computed(dir.path(), "t.c3t", 40, &[]);
    let p = path.to_str().unwrap();
    let out = chomp3(&["position", "11", "7", "5", "--table", p]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "[11,7,5] is a P-position: the player to move loses"
    );
    // Every move of a position this long listed with its value would not
    // fit in memory: refused before the sweep, in one line.
    let out = chomp3(&["position", "4000000000", "3", "3", "--nim"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("4000000006 moves) needs about"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    // Under a process limit (ulimit -v), that limit is the bound.
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 3000000 && exec '{}' position 200000000 1 1 --nim",
            env!("CARGO_BIN_EXE_chomp3")
        ))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("this process may map (ulimit -v) 2.9 GiB"),
        "{err}"
    );
    let out = chomp3(&["position", "3", "3", "3", "--table", p]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("N-position") && text.contains("-> [3,1,1]"),
        "{text}"
    );
    // A triple that is no position is bad usage (2); a cell beyond the table
    // is an error (1).
    for (args, expect, code) in [
        (["position", "3", "5", "1"], "is not a position", 2),
        (["position", "0", "0", "0"], "is not a position", 2),
        (["position", "90", "50", "2"], "q 50 is beyond the table", 1),
    ] {
        let out = chomp3(&[&args[..], &["--table", p]].concat());
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(expect));
    }
    // `--nim` computes by the sweep: a table or census beside it would not be read.
    let out = chomp3(&["position", "3", "2", "1", "--nim", "--table", p]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with '--table"));
    let out = chomp3(&["nim", "3", "5", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a position"));
}

#[test]
fn position_past_the_table_reads_the_census_and_says_so() {
    // A table to N = 10 and a census of 130 rows, whose rows 0..=6 are proved
    // from columns <= 9: every value of a position with r <= 6 is known, and
    // past the table it comes from the census. Checked by the game's rules.
    let bf = BruteForce::solve(30);
    let dir = tempfile::tempdir().unwrap();
    let table = computed(dir.path(), "t.c3t", 10, &[]);
    let census = census_in(dir.path(), 130);
    let (table, census) = (table.to_str().unwrap(), census.to_str().unwrap());
    let mut checked = 0;
    for p in 11..=30usize {
        for q in [11, 17, 24, 30].into_iter().filter(|&q| q <= p) {
            for r in 0..=6usize {
                let (ps, qs, rs) = (p.to_string(), q.to_string(), r.to_string());
                let out = chomp3_ok(&[
                    "position", &ps, &qs, &rs, "--table", table, "--census", census,
                ]);
                let text = String::from_utf8_lossy(&out.stdout);
                let lost = text.starts_with(&format!("[{p},{q},{r}] is a P-position"));
                assert_eq!(lost, bf.is_p(p, q, r), "{text}");
                let found: BTreeSet<Vec<usize>> = text
                    .lines()
                    .filter_map(|l| l.split("-> [").nth(1))
                    .map(|to| {
                        to.trim_end_matches(']')
                            .split(',')
                            .map(|x| x.parse().unwrap())
                            .collect()
                    })
                    .collect();
                let by_rules: BTreeSet<Vec<usize>> = bf
                    .moves(p, q, r)
                    .into_iter()
                    .filter(|&(a, b, c)| bf.is_p(a, b, c))
                    .map(|(a, b, c)| vec![a, b, c])
                    .collect();
                assert_eq!(found, by_rules, "winning moves from [{p},{q},{r}]");
                let note = String::from_utf8_lossy(&out.stderr);
                assert!(
                    note.contains("beyond the table") && note.contains(census),
                    "{note}"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 7 * (20 + 14 + 7 + 1));
    // At the top of u64, by two-rowed Chomp's rule f(q,0) = q + 1 (the only
    // P-positions [p,q,0] have p = q + 1): [M,M-1,0] is P, and [M,M,0] is N,
    // (its moves are too many to list there). f(M,0) = 2^64 is no row
    // length, and is not taken for one.
    let m = u64::MAX;
    let ask = |p: u64, q: u64| {
        let (p, q) = (p.to_string(), q.to_string());
        chomp3(&[
            "position", &p, &q, "0", "--table", table, "--census", census,
        ])
    };
    let lost = ask(m, m - 1);
    let text = String::from_utf8_lossy(&lost.stdout);
    assert!(
        lost.status.success() && text.contains("is a P-position"),
        "{text}"
    );
    let won = ask(m, m);
    let (text, err) = (
        String::from_utf8_lossy(&won.stdout),
        String::from_utf8_lossy(&won.stderr),
    );
    assert!(
        won.status.success() && text.contains("is an N-position"),
        "{text}"
    );
    assert!(
        err.contains("not listed") && err.contains("10000000"),
        "{err}"
    );
    // Row 120 is proved only from its start (past 130): a value neither file
    // gives is an error naming both, not a guess.
    let out = chomp3(&[
        "position", "300", "130", "120", "--table", table, "--census", census,
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("beyond the table") && err.contains("only from q ="),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// Ctrl-C while the moves of a long position are listed (ten million values
/// of f read) stops the listing: status 130, one line.
#[test]
fn ctrl_c_stops_the_listing_of_a_long_positions_moves() {
    let dir = tempfile::tempdir().unwrap();
    let table = computed(dir.path(), "t.c3t", 10, &[]);
    let census = census_in(dir.path(), 4);
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args(["position", "10000005", "10000000", "3", "--table"])
        .arg(&table)
        .arg("--census")
        .arg(&census)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    let (code, err) = common::ctrl_c(child, false);
    assert_eq!(code, Some(130), "{err}");
    assert_eq!(
        err.trim_end(),
        "chomp3: error: interrupted; no moves listed"
    );
}

#[test]
fn plot_writes_decodable_figures_of_the_expected_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = computed(dir.path(), "t.c3t", 600, &[]);
    let out = dir.path().join("plots");
    chomp3_ok(&[
        "plot",
        "--table",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    for name in ["table", "growth", "census", "row", "differences"] {
        let file = std::fs::File::open(out.join(format!("{name}.png"))).unwrap();
        let mut reader = png::Decoder::new(std::io::BufReader::new(file))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (1200, 900), "{name}");
        // Not blank: a figure has many colours.
        let pixels: BTreeSet<&[u8]> = buf[..info.buffer_size()].chunks(3).collect();
        assert!(pixels.len() > 20, "{name} has {} colours", pixels.len());
    }
    let res = chomp3(&[
        "plot",
        "--svg",
        "--table",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(res.status.success());
    let svg = std::fs::read_to_string(out.join("row.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("Row r = 120"));
}

#[test]
fn plot_draws_a_census_of_a_row_or_two_and_ends() {
    // Axes of one value (a census of rows 0..=0 or 0..=1, or of one column)
    // once sent the drawing's search for tick marks round for ever.
    let dir = tempfile::tempdir().unwrap();
    for (rows, extra) in [("0", &[][..]), ("1", &[]), ("10", &["--max-columns", "1"])] {
        let out = dir.path().join(format!("c{rows}.tsv"));
        let mut args = vec![
            "census",
            "--quiet",
            "--rows",
            rows,
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        chomp3_ok(&args);
        let census = out.with_extension("c3d");
        let figures = dir.path().join(format!("p{rows}"));
        let args = [
            "plot",
            "--census-only",
            "--census",
            census.to_str().unwrap(),
            "--out",
            figures.to_str().unwrap(),
        ];
        let (code, err) =
            common::chomp3_within(dir.path(), &args, std::time::Duration::from_secs(60));
        assert_eq!(code, Some(0), "rows 0..={rows}: {err}");
        assert!(figures.join("periodicity.png").exists());
    }
}

/// With `--census-only`, `row.png` is drawn when `--row` is given, whatever
/// the row, the default's number included; not when it is not given.
#[test]
fn plot_of_a_census_draws_the_row_asked_for_even_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let census = census_in(dir.path(), 200);
    for (figures, row) in [("given", Some("120")), ("other", Some("7")), ("none", None)] {
        let out = dir.path().join(figures);
        let mut args = vec![
            "plot",
            "--census-only",
            "--census",
            census.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend(row.iter().flat_map(|r| ["--row", *r]));
        chomp3_ok(&args);
        assert!(out.join("periodicity.png").exists(), "{figures}");
        assert_eq!(out.join("row.png").exists(), row.is_some(), "{figures}");
    }
}
