//! The certified census against the dense table, which it never reads: every value
//! a proved fate gives for q <= N, row 120, and the constant-row starts of OEIS.

use crate::common;

use crate::common::trace::records;
use chomp3::f::analysis::crosscheck::check_against;
use chomp3::f::census::{BATCH_COLS, Params, census};
#[cfg(feature = "test-hooks")]
use chomp3::f::census::{Weaken, census_weakened};
use chomp3::f::proof::{Fate, RowStatus};
use chomp3::f::table::Table;
use common::{chomp3, chomp3_ok, computed};

/// How a census runs: as shipped, or with a test hook (feature `test-hooks`).
#[derive(Clone, Copy, PartialEq)]
#[cfg_attr(not(feature = "test-hooks"), allow(dead_code))]
enum Hook {
    None,
    /// A deliberately wrong state comparison.
    IgnoreState,
    /// The engine's wide-window way in every block.
    WideWindows,
}

/// Each row's fate, `None` if open.
fn fates(rows: &[Option<RowStatus>]) -> Vec<Option<Fate>> {
    rows.iter()
        .map(|s| s.as_ref().map(|s| s.fate.clone()))
        .collect()
}

/// Rows 0..=rows by census; each proved fate checked against the dense table to n.
/// Returns the fates and how many values disagree.
fn census_against_table(
    rows: u32,
    n: u64,
    batch: u32,
    hook: Hook,
) -> (Vec<Option<RowStatus>>, usize) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let params = Params {
        last_row: rows,
        max_columns: (n as u32).min(4 * rows + 6000),
        batch,
    };
    #[cfg(feature = "test-hooks")]
    let result = match hook {
        Hook::None => census(params, &pool, &mut |_, _| {}),
        hook => {
            let weaken = Weaken {
                ignore_state: hook == Hook::IgnoreState,
                wide_windows: hook == Hook::WideWindows,
            };
            census_weakened(params, &pool, weaken, &mut |_, _| {})
        }
    };
    #[cfg(not(feature = "test-hooks"))]
    let result = {
        assert!(
            hook == Hook::None,
            "a test hook needs the feature test-hooks"
        );
        census(params, &pool, &mut |_, _| {})
    };
    let columns = result.columns;
    assert!(
        columns as u64 <= n + 1,
        "the table must cover the census ({columns} columns)"
    );
    let dir = tempfile::tempdir().unwrap();
    let t = Table::open(computed(dir.path(), "t.c3t", n, &[])).unwrap();
    let mut wrong = 0;
    for (r, fate) in fates(&result.rows).iter().enumerate() {
        let r = r as u32;
        let Some(fate) = fate else { continue };
        let start = fate.start();
        for q in start..=n as u32 {
            wrong += (fate.value(q as u64) != Some(u128::from(t.value(q, r).unwrap()))) as usize;
        }
        // The start is the least one.
        if start > r {
            let before = start - 1;
            let agrees = match fate {
                Fate::Constant { .. } => t.value(before, r).unwrap() == before,
                Fate::Periodic { pattern, .. } => {
                    let p = pattern.len() as u32;
                    t.value(before, r).unwrap() as i64 - before as i64
                        == t.value(before + p, r).unwrap() as i64 - (before + p) as i64
                }
            };
            wrong += agrees as usize;
        }
    }
    // The library's own cross-check must reach the same verdict.
    let report = check_against(&result.rows, &t).unwrap();
    assert_eq!(
        report.first_mismatch.is_some(),
        wrong > 0,
        "check_against and the test disagree"
    );
    (result.rows, wrong)
}

#[test]
fn census_agrees_with_the_dense_table() {
    let (rows, wrong) = census_against_table(1500, 8000, BATCH_COLS, Hook::None);
    assert_eq!(wrong, 0);
    // Comparing states every 72 columns proves the same fates.
    let (often, wrong) = census_against_table(1500, 8000, 72, Hook::None);
    assert_eq!(wrong, 0);
    assert!(
        fates(&often) == fates(&rows),
        "fates depend on the batch size"
    );
    // Every 50 columns: the periods below (3, 4, ...) do not divide it, so rows
    // are proved only through comparisons at multiples of lcm(K, L).
    let (odd, wrong) = census_against_table(1500, 8000, 50, Hook::None);
    assert_eq!(wrong, 0);
    assert!(fates(&odd) == fates(&rows), "batch 50 proves other fates");
    let fates = fates(&rows);
    let open = fates.iter().filter(|f| f.is_none()).count();
    assert_eq!(open, 0, "every row up to 1500 is settled");
    match &fates[120] {
        Some(Fate::Periodic { start, pattern }) => {
            assert_eq!((*start, pattern.as_slice()), (170, &[72, 70][..]))
        }
        other => panic!("row 120: {other:?}"),
    }
    // Constant rows ordered by start: A029901 (starts) and A029902 (rows).
    let mut starts: Vec<(u32, usize)> = fates
        .iter()
        .enumerate()
        .filter_map(|(r, f)| match f {
            Some(Fate::Constant { start }) => Some((*start, r)),
            _ => None,
        })
        .collect();
    starts.sort();
    let q: Vec<u32> = starts.iter().take(24).map(|s| s.0).collect();
    let r: Vec<usize> = starts.iter().take(24).map(|s| s.1).collect();
    assert_eq!(
        q,
        [
            2, 5, 7, 9, 12, 14, 17, 19, 22, 23, 26, 29, 31, 33, 36, 38, 41, 43, 46, 47, 50, 52, 55,
            58
        ]
    );
    assert_eq!(
        r,
        [
            1, 3, 4, 6, 8, 10, 12, 13, 15, 16, 18, 20, 21, 23, 25, 27, 29, 30, 32, 33, 35, 37, 39,
            41
        ]
    );
}

#[test]
#[cfg(feature = "test-hooks")]
fn wide_windows_give_the_same_census() {
    // Rows to 1500 have windows of a few dozen words, which the engine copies
    // whole; flipped value by value instead (as rows past 65,000 are), every
    // block must give the same proved fates and values.
    let (narrow, _) = census_against_table(1500, 8000, 50, Hook::None);
    let (wide, wrong) = census_against_table(1500, 8000, 50, Hook::WideWindows);
    assert_eq!(wrong, 0);
    assert!(
        fates(&wide) == fates(&narrow),
        "the two ways prove other fates"
    );
    assert!(
        fates(&wide).iter().all(|f| f.is_some()),
        "every row settled"
    );
}

#[test]
#[cfg(feature = "test-hooks")]
fn a_wrong_state_comparison_is_caught() {
    // Dropping the values from the state makes every comparison succeed, so rows
    // are "proved" as soon as the rows below settle: the table refutes some.
    let (_, wrong) = census_against_table(1500, 8000, 1, Hook::IgnoreState);
    assert!(
        wrong > 0,
        "a weakened certificate must produce values the table refutes"
    );
}

#[test]
fn census_command_writes_descriptors_that_get_uses_beyond_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let table = computed(dir.path(), "t.c3t", 200, &[]);
    let (tsv, c3d) = (dir.path().join("census.tsv"), dir.path().join("census.c3d"));
    let (t, c, d) = (
        table.to_str().unwrap(),
        tsv.to_str().unwrap(),
        c3d.to_str().unwrap(),
    );
    chomp3_ok(&[
        "census",
        "--quiet",
        "--rows",
        "300",
        "--out",
        c,
        "--descriptors",
        d,
        "--check",
        t,
    ]);
    let text = std::fs::read_to_string(&tsv).unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with("120\tperiodic\t170\t2\t72,70\t")),
        "{text}"
    );
    // Inside the table the table answers; beyond it, the census (2^63 included).
    let get = |q: &str, r: &str| {
        let out = chomp3_ok(&["get", q, r, "--table", t, "--census", d, "--explain"]);
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    assert!(get("171", "120").starts_with("241\nfrom the table"));
    assert!(get("1000000000001", "120").starts_with("1000000000071\nfrom "));
    assert!(get("9223372036854775808", "5").starts_with("9223372036854775812\n"));
    assert!(get("5000", "3").starts_with("5\n"), "row 3 is constant 5");
    // A row the census does not cover, or a q before its start: the table's error.
    let out = chomp3(&["get", "5000", "301", "--table", t, "--census", d]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("beyond the table"));
}

/// Independent of the engine: every P-position the game-rule solver finds with
/// p <= 90, in a row the census has settled and a column at or after its start,
/// is the one the census predicts, and every census value p <= 90 there is a
/// P-position of the game.
#[test]
fn census_agrees_with_the_game_rules() {
    const MAX_P: usize = 90;
    let bf = common::BruteForce::solve(MAX_P);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let params = Params {
        last_row: MAX_P as u32,
        max_columns: 4000,
        batch: 72,
    };
    let result = census(params, &pool, &mut |_, _| {});
    let fates = fates(&result.rows);
    let start = |r: usize| fates[r].as_ref().map_or(usize::MAX, |f| f.start() as usize);
    let mut checked = 0;
    for (p, q, r) in bf.p_positions() {
        // [p,q,r] with p > q is the answer for (q,r); [p,p,r] is the start of row r.
        if q >= start(r) {
            let f = fates[r].as_ref().unwrap();
            assert_eq!(f.value(q as u64), Some(p as u128), "[{p},{q},{r}]");
            checked += 1;
        }
    }
    for (r, fate) in fates.iter().enumerate() {
        let Some(fate) = fate else { continue };
        for q in start(r).max(r)..=MAX_P {
            match fate.value(q as u64) {
                Some(p) if (p as usize) <= MAX_P => {
                    let p = p as usize;
                    assert!(
                        bf.is_p(p, q.min(p), r.min(q).min(p)),
                        "row {r}: f({q},{r}) = {p}"
                    );
                }
                _ => {}
            }
        }
    }
    assert!(checked > 100, "{checked} P-positions checked");
    assert!(fates.iter().all(Option::is_some));
}

#[test]
fn a_census_that_computed_no_column_gives_no_value() {
    // Stopped before its first column, a census proves nothing and knows no
    // diagonal: f(0,0) = 1 (the position [1,0,0] is lost) is not answered
    // from it, and never as anything else.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r0.tsv");
    let out = out.to_str().unwrap();
    common::chomp3_ok(&[
        "census",
        "--quiet",
        "--rows",
        "10",
        "--out",
        out,
        "--max-columns",
        "0",
    ]);
    let c3d = dir.path().join("r0.c3d");
    let o = common::chomp3(&["get", "0", "0", "--census", c3d.to_str().unwrap()]);
    let (text, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(1), "{text}{err}");
    assert!(text.is_empty(), "{text}");
    // With its columns, the same census gives f(0,0) = 1.
    common::chomp3_ok(&[
        "census",
        "--quiet",
        "--rows",
        "10",
        "--out",
        out,
        "--replace",
    ]);
    let o = common::chomp3_ok(&["get", "0", "0", "--census", c3d.to_str().unwrap()]);
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "1");
}

#[test]
fn a_traced_census_writes_the_same_bytes_and_a_trace_of_every_block_and_chunk() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (plain, traced, trace) = (path("plain.tsv"), path("traced.tsv"), path("t.trace"));
    let rows = "3000";
    let common = ["census", "--quiet", "--threads", "2", "--rows", rows];
    chomp3_ok(&[&common[..], &["--out", &plain]].concat());
    chomp3_ok(&[&common[..], &["--out", &traced, "--trace", &trace]].concat());
    let tsv = |p: &str| std::fs::read(p).unwrap();
    let c3d = |p: &str| std::fs::read(std::path::Path::new(p).with_extension("c3d")).unwrap();
    assert!(
        tsv(&plain) == tsv(&traced),
        "census.tsv differs with a trace"
    );
    assert!(
        c3d(&plain) == c3d(&traced),
        "descriptors differ with a trace"
    );
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(
        text.starts_with("# chomp3 census trace, format 2\n"),
        "{text}"
    );
    let h = &records(&text, "H")[0];
    assert_eq!(h[1..], ["0", "1", "2", rows, "2520", "64", "1024"]);
    // Every batch, block and chunk of rows once; blocks of 64 columns, and
    // every chunk of rows below the block's last column.
    let batches = records(&text, "B");
    let columns: u32 = batches.iter().map(|b| b[2].parse::<u32>().unwrap()).sum();
    let out = String::from_utf8(tsv(&traced)).unwrap();
    assert!(
        out.contains(&format!("; {columns} columns computed")),
        "{out}"
    );
    let blocks = records(&text, "K");
    let per_batch = 2520u32.div_ceil(64);
    assert_eq!(blocks.len() as u32, per_batch * batches.len() as u32);
    let chunks = records(&text, "C");
    let mut want = 0;
    for k in &blocks {
        let q0: u32 = k[1].parse().unwrap();
        let here: Vec<_> = chunks.iter().filter(|c| c[1] == k[1]).collect();
        let cols: u32 = here[0][2].parse().unwrap();
        let top = (q0 + cols).min(3001);
        want += top.div_ceil(1024);
        assert_eq!(here.len() as u32, top.div_ceil(1024), "block {q0}");
        // One process sends nothing; the edges below the top have their bytes.
        for c in here {
            assert_eq!(c[6..10], ["-", "0", "-", "0"], "{c:?}");
            let top_chunk = c[3].parse::<u32>().unwrap() + 1 == top.div_ceil(1024);
            assert_eq!(c[10] == "0", top_chunk, "{c:?}");
        }
    }
    assert_eq!(chunks.len() as u32, want);
    // The rows settled grow to all of them; nothing was sent.
    assert_eq!(batches.last().unwrap()[9], "3001");
    assert!(batches.iter().all(|b| b[10] == "0" && b[11] == "0"));
    // A trace is an output of its own kind: not over the census table.
    let refused = chomp3(&[&common[..], &["--out", &traced, "--trace", &traced]].concat());
    assert!(!refused.status.success());
}
