//! Figures decode as PNGs of the right size; `position` agrees with the game-rule
//! solver on every position with p <= 30, winning moves included, and past its
//! table with a census agrees with a larger table.

mod common;

use std::collections::BTreeSet;

use chomp3::f::position::{is_p, winning_moves};
use chomp3::f::table::Table;
use common::{BruteForce, census_in, chomp3, chomp3_ok, computed};

#[test]
fn position_agrees_with_brute_force_up_to_30() {
    let bf = BruteForce::solve(30);
    let dir = tempfile::tempdir().unwrap();
    let t = Table::open(&computed(dir.path(), "t.c3t", 30, &[])).unwrap();
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
                let moves = winning_moves(&t, p, q, r).unwrap();
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
    let dir = tempfile::tempdir().unwrap();
    let small = computed(dir.path(), "small.c3t", 60, &[]);
    let large = computed(dir.path(), "large.c3t", 400, &[]);
    let census = census_in(dir.path(), 130);
    let (small, large, census) = (
        small.to_str().unwrap(),
        large.to_str().unwrap(),
        census.to_str().unwrap(),
    );
    let f = Table::open(std::path::Path::new(large)).unwrap();
    let mut n_positions = 0;
    for r in 0..=3u64 {
        for q in [61, 97, 250, 400] {
            let v = u64::from(f.get(q, r).unwrap());
            for p in [q, q + 1, v - 1, v, v + 1, 2 * v] {
                if p < q {
                    continue;
                }
                let (p, q, r) = (p.to_string(), q.to_string(), r.to_string());
                let want = chomp3_ok(&["position", &p, &q, &r, "--table", large]);
                let got =
                    chomp3_ok(&["position", &p, &q, &r, "--table", small, "--census", census]);
                assert_eq!(got.stdout, want.stdout, "[{p},{q},{r}]");
                let note = String::from_utf8_lossy(&got.stderr);
                assert!(
                    note.contains("beyond the table") && note.contains(census),
                    "{note}"
                );
                assert!(want.stderr.is_empty());
                n_positions += 1;
            }
        }
    }
    assert!(n_positions >= 60, "{n_positions}");
    // Row 120 is proved only from its start (past 130): a value neither file
    // gives is an error naming both, not a guess.
    let out = chomp3(&[
        "position", "300", "130", "120", "--table", small, "--census", census,
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("beyond the table") && err.contains("only from q ="),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
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
