//! A table stored by rows (`chomp3 transpose`) holds the same values as the
//! table it was made from, checked against the reference table of
//! doc/chomp.md and cell by cell against the source, in bands of any height;
//! its blocks are checked on read, and the commands that need a table by
//! columns refuse it in one line.

use crate::common;

use std::path::Path;

use chomp3::base::stop::Stop;
use chomp3::f::table::{Shape, Table, transpose_in_bands};
use common::{chomp3_in, computed, read_all, reference_table};

fn by_rows(source: &Path, out: &Path, band: u64) -> Table {
    let t = Table::open(source).unwrap();
    transpose_in_bands(&t, out, band, &Stop::new(), &mut |_, _| {}).unwrap();
    let rows = Table::options().either_f().mapped(true).open(out).unwrap();
    assert_eq!(rows.shape(), Shape::Rows);
    rows
}

#[test]
fn the_reference_table_by_rows_in_bands_of_any_height() {
    let dir = tempfile::tempdir().unwrap();
    let reference = reference_table(); // f[r][q], q, r <= 30
    let source = computed(dir.path(), "t.c3t", 30, &[]);
    for band in [1, 2, 7, 30, 31, 1000] {
        let out = dir.path().join(format!("rows-{band}.c3t"));
        let t = by_rows(&source, &out, band);
        assert_eq!(t.n(), Some(30));
        for r in 0..=31u32 {
            let mut row = Vec::new();
            t.read_row(r, 0..31, &mut row).unwrap();
            let want: Vec<u32> = (0..31u32)
                .map(|q| reference[r.min(q) as usize][q as usize])
                .collect();
            assert_eq!(row, want, "band {band}, row {r}");
            // Any part of it.
            let mut part = Vec::new();
            t.read_row(r, 5..19, &mut part).unwrap();
            assert_eq!(part, want[5..19], "band {band}, row {r}, columns 5..19");
        }
        for q in 0..=30u32 {
            let mut column = Vec::new();
            t.read_column(q, 0..q + 1, &mut column).unwrap();
            let want: Vec<u32> = (0..=q).map(|r| reference[r as usize][q as usize]).collect();
            assert_eq!(column, want, "band {band}, column {q}");
        }
    }
}

#[test]
fn a_larger_table_by_rows_equals_its_source_cell_for_cell() {
    let dir = tempfile::tempdir().unwrap();
    let source = computed(dir.path(), "t.c3t", 700, &[]);
    let want = read_all(&source);
    let out = dir.path().join("rows.c3t");
    for opened in [true, false] {
        let _ = std::fs::remove_file(&out);
        by_rows(&source, &out, 64);
        let t = Table::options()
            .either_f()
            .mapped(opened)
            .open(&out)
            .unwrap();
        t.verify().unwrap();
        for (q, column) in want.iter().enumerate() {
            for (r, &f) in column.iter().enumerate() {
                assert_eq!(t.value(q as u32, r as u32).unwrap(), f, "f({q},{r})");
            }
        }
        for r in [0u32, 1, 63, 64, 65, 350, 699, 700, 701] {
            let mut row = Vec::new();
            t.read_row(r, 0..701, &mut row).unwrap();
            let expect: Vec<u32> = (0..701).map(|q| want[q][(r as usize).min(q)]).collect();
            assert_eq!(row, expect, "row {r}");
        }
    }
}

#[test]
fn commands_read_a_table_by_rows_or_refuse_it_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    computed(d, "t.c3t", 400, &[]);
    let run = |args: &[&str]| chomp3_in(d, args);
    let text = |o: &std::process::Output| String::from_utf8_lossy(&o.stdout).to_string();
    let err = |o: &std::process::Output| String::from_utf8_lossy(&o.stderr).to_string();
    let o = run(&["transpose", "--quiet", "--table", "t.c3t", "--out", "r.c3t"]);
    assert!(o.status.success(), "{}", err(&o));
    for args in [
        vec!["row", "120"],
        vec!["row", "7", "--from", "3", "--to", "390"],
        vec!["get", "399", "250"],
        vec!["position", "330", "300", "120"],
        vec!["position", "372", "300", "120"], // f(300,120): a P-position
        vec!["dump"],
    ] {
        let mut by_columns = args.clone();
        by_columns.extend(["--table", "t.c3t"]);
        let mut by_rows = args.clone();
        by_rows.extend(["--table", "r.c3t"]);
        let (a, b) = (run(&by_columns), run(&by_rows));
        assert!(b.status.success(), "{args:?}: {}", err(&b));
        assert_eq!(text(&a), text(&b), "{args:?}");
    }
    let o = run(&["info", "--table", "r.c3t", "--verify"]);
    assert!(text(&o).contains("table by rows"), "{}", text(&o));
    // Past the table: the advice is what can be done to such a file.
    let o = run(&["get", "401", "3", "--table", "r.c3t"]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(
        err(&o).contains("extend the table it was made from to N = 401, then transpose that again"),
        "{}",
        err(&o)
    );
    // Never over an existing file: the whole table by rows of the same table
    // is checked and kept (the same command, run again, succeeds), any other
    // file refused.
    let before = std::fs::read(d.join("r.c3t")).unwrap();
    let o = run(&["transpose", "--quiet", "--table", "t.c3t", "--out", "r.c3t"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        text(&o).contains("by rows already; every block checked, nothing written"),
        "{}",
        text(&o)
    );
    assert_eq!(std::fs::read(d.join("r.c3t")).unwrap(), before);
    computed(d, "small.c3t", 100, &[]);
    for (out, says) in [
        (
            "r.c3t",
            "r.c3t: a table by rows of a table with N = 400, not 100",
        ),
        ("t.c3t", "t.c3t: exists and is an f(q,r) table (.c3t)"),
    ] {
        let o = run(&["transpose", "--quiet", "--table", "small.c3t", "--out", out]);
        assert_eq!(o.status.code(), Some(1));
        assert!(err(&o).contains(says), "{}", err(&o));
    }
    assert_eq!(std::fs::read(d.join("r.c3t")).unwrap(), before);
    // Commands that read a table by columns say what the file is.
    for args in [
        vec!["analyze", "--quiet", "--table", "r.c3t", "--out", "a"],
        vec!["compute", "--quiet", "--n", "500", "--table", "r.c3t"],
        vec![
            "transpose",
            "--quiet",
            "--table",
            "r.c3t",
            "--out",
            "r2.c3t",
        ],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(err(&o).trim_end().lines().count(), 1, "{}", err(&o));
        assert!(err(&o).contains("stored by rows"), "{args:?}: {}", err(&o));
    }
    // A damaged block is noticed where it is read.
    let mut bytes = before.clone();
    let at = bytes.len() - 30_000;
    bytes[at] ^= 0x10;
    std::fs::write(d.join("bad.c3t"), &bytes).unwrap();
    let o = run(&["dump", "--table", "bad.c3t"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("damaged table"), "{}", err(&o));
    let o = run(&["row", "180", "--table", "bad.c3t"]); // its run holds the byte
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("damaged table"), "{}", err(&o));
    assert!(text(&o).is_empty());
}
