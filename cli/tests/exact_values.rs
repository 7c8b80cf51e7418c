//! Every value the engine stores, checked against sources outside it: a brute-force
//! solver of the game, the reference table, and OEIS terms from doc/chomp.md section 3.

#![allow(clippy::needless_range_loop)] // (q, r) indexing reads like the maths

use crate::common;

use common::{BruteForce, computed, read_all, reference_table};

#[test]
fn brute_force_agrees_on_every_p_position_up_to_40() {
    const MAX_P: usize = 40;
    let bf = BruteForce::solve(MAX_P);
    let dir = tempfile::tempdir().unwrap();
    let f = read_all(&computed(dir.path(), "t.c3t", MAX_P as u64, &[]));

    // Each game P-position [p,q,r] is the table's answer for (q,r).
    let positions = bf.p_positions();
    assert!(positions.len() > 200, "the solver finds P-positions");
    for &(p, q, r) in &positions {
        assert_eq!(
            f[q][r] as usize, p,
            "P-position [{p},{q},{r}] but f({q},{r}) = {}",
            f[q][r]
        );
    }
    // Each table answer with p <= 40 is a P-position of the game.
    for q in 0..=MAX_P {
        for r in 0..=q {
            let p = f[q][r] as usize;
            if p <= MAX_P {
                let (b, c) = (p.min(q), p.min(q).min(r));
                assert!(
                    bf.is_p(p, b, c),
                    "f({q},{r}) = {p} but [{p},{b},{c}] is an N-position"
                );
            }
        }
    }
}

#[test]
fn whole_reference_table_matches() {
    let reference = reference_table();
    let dir = tempfile::tempdir().unwrap();
    let path = computed(dir.path(), "t.c3t", 30, &[]);
    let mapped = chomp3::f::table::Table::open(&path).unwrap();
    for (r, row) in reference.iter().enumerate() {
        for (q, &want) in row.iter().enumerate() {
            // `get` answers above the diagonal too: f(q,r) = f(q,q) for r > q.
            assert_eq!(mapped.get(q as u64, r as u64).unwrap(), want, "f({q},{r})");
        }
    }
    // Whole rows, mapped and read, the same.
    let read = chomp3::f::table::Table::options()
        .mapped(false)
        .open(&path)
        .unwrap();
    for t in [&mapped, &read] {
        for (r, row) in reference.iter().enumerate() {
            let mut got = Vec::new();
            t.read_row(r as u32, 0..31, &mut got).unwrap();
            assert_eq!(&got, row, "row {r}");
            got.clear();
            t.read_row(r as u32, 7..19, &mut got).unwrap();
            assert_eq!(got, row[7..19], "row {r}, q in 7..19");
        }
    }
}

/// The table to N = 2000 read as doc/chomp.md section 3's sequences.
struct Sequences {
    diagonal: Vec<u32>,
    /// (q, r) with f(q,r) = q, ordered by q.
    starts: Vec<(u32, u32)>,
    f: Vec<Vec<u32>>,
}

fn sequences() -> Sequences {
    let dir = tempfile::tempdir().unwrap();
    let f = read_all(&computed(dir.path(), "t.c3t", 2000, &[]));
    let diagonal = (0..f.len()).map(|n| f[n][n]).collect();
    let mut starts = Vec::new();
    for (q, col) in f.iter().enumerate() {
        for (r, &v) in col.iter().enumerate() {
            if v as usize == q {
                starts.push((q as u32, r as u32));
            }
        }
    }
    Sequences {
        diagonal,
        starts,
        f,
    }
}

#[test]
fn oeis_terms_read_off_the_table() {
    let s = sequences();
    // A029900: the diagonal.
    let a029900 = [
        1, 3, 4, 6, 8, 10, 11, 13, 15, 16, 18, 20, 21, 24, 25, 27, 28, 30, 32, 34, 35, 37, 39, 40,
    ];
    assert_eq!(s.diagonal[..24], a029900);
    // A029901 and A029902: starts of constant rows and their rows, by start.
    let a029901 = [
        2, 5, 7, 9, 12, 14, 17, 19, 22, 23, 26, 29, 31, 33, 36, 38, 41, 43, 46, 47, 50, 52, 55, 58,
    ];
    let a029902 = [
        1, 3, 4, 6, 8, 10, 12, 13, 15, 16, 18, 20, 21, 23, 25, 27, 29, 30, 32, 33, 35, 37, 39, 41,
    ];
    let q: Vec<u32> = s.starts.iter().map(|&(q, _)| q).take(24).collect();
    let r: Vec<u32> = s.starts.iter().map(|&(_, r)| r).take(24).collect();
    assert_eq!(q, a029901);
    assert_eq!(r, a029902);
    // A029899: P-positions with p <= n are the cells with q <= f(q,r) <= n.
    let a029899 = [
        0, 1, 3, 5, 7, 10, 13, 17, 20, 25, 29, 33, 39, 44, 51, 56, 62, 70, 76, 85, 92, 100, 110,
        121,
    ];
    for (n, &want) in a029899.iter().enumerate() {
        let count: usize = (0..=n)
            .map(|q| {
                (0..=q)
                    .filter(|&r| (q..=n).contains(&(s.f[q][r] as usize)))
                    .count()
            })
            .sum();
        assert_eq!(count, want, "A029899({n})");
    }
    // A029905: rows whose P-positions end in one family [k+p+q, k+q, r], i.e. rows
    // with f(q,r) - q constant from some column on that never die. Rows up to 45
    // settle long before column 2000 (evidence the test relies on, not a proof).
    let a029905 = [
        0, 2, 5, 7, 9, 11, 14, 17, 19, 22, 24, 26, 28, 31, 34, 36, 38, 40, 42, 45,
    ];
    let n = s.f.len() - 1;
    let family_rows: Vec<u32> = (0..=45u32)
        .filter(|&r| {
            let tail = (n - 500..=n).map(|q| s.f[q][r as usize] as i64 - q as i64);
            let offsets: std::collections::BTreeSet<i64> = tail.collect();
            offsets.len() == 1 && *offsets.first().unwrap() > 0
        })
        .collect();
    assert_eq!(family_rows, a029905);
}

#[test]
fn small_row_facts_of_spec() {
    let s = sequences();
    let f = &s.f;
    let n = f.len() - 1;
    for q in 0..=n {
        assert_eq!(f[q][0] as usize, q + 1, "row 0");
        if q >= 2 {
            assert_eq!(f[q][1], 2, "row 1");
            assert_eq!(f[q][2] as usize, q + 2, "row 2");
        }
        if q >= 7 {
            assert_eq!(f[q][5] as usize, q + 4, "row 5: [a+11, a+7, 5]");
        }
    }
    // Row 120: from q = 170 on, f(q,120) - q alternates 72, 70.
    for q in 170..=n {
        let want = if q % 2 == 0 { 72 } else { 70 };
        assert_eq!(f[q][120] as usize, q + want, "f({q},120)");
    }
    assert_ne!(
        f[169][120] as usize,
        169 + 70,
        "the period starts at 170, not earlier"
    );
    // d_51 = 89, d_52 = 88: the diagonal is not monotone.
    assert_eq!((s.diagonal[51], s.diagonal[52]), (89, 88));
}
