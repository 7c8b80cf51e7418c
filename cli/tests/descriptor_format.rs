//! The census descriptor file against its layout in FORMAT.md, decoded here by
//! hand (not by the library's reader), and the in-process lookup.

use std::path::{Path, PathBuf};

use chomp3::f::census_file::{Descriptors, write_descriptors};
use chomp3::f::facts::ColumnFacts;
use chomp3::f::lookup::{Named, Source, lookup};
use chomp3::f::proof::{Fate, Known, RowStatus};

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Facts of columns 0..=2 (made up: the test checks where they go, not what they are).
fn facts() -> ColumnFacts {
    ColumnFacts {
        n: 2,
        diagonal: vec![1, 3, 4],
        starts: vec![(2, 1)],
        p_count: vec![0, 1, 2],
        value_count: Vec::new(),
        row_min: vec![1, 2, u32::MAX],
        row_min_complete: true,
        diagonal_not_max: None,
    }
}

/// Writes `sample()` with `facts()` after `columns` columns.
fn write(path: &Path, columns: u32) {
    let mut set = chomp3::base::atomic_write::FileSet::new();
    write_descriptors(&mut set, &sample(), &[3], &facts(), columns, path).unwrap();
    set.commit().unwrap();
}

fn sample() -> Vec<Option<RowStatus>> {
    vec![
        Some(RowStatus {
            fate: Fate::Periodic {
                start: 0,
                pattern: vec![1],
            },
            known: Known::Certificate { closed_at: 2 },
        }),
        Some(RowStatus::died(2)),
        None,
        Some(RowStatus {
            fate: Fate::Periodic {
                start: 170,
                pattern: vec![4, 2],
            },
            known: Known::Certificate { closed_at: 2690 },
        }),
    ]
}

#[test]
fn descriptor_bytes_follow_format_md() {
    let format_md = std::fs::read_to_string(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("FORMAT.md"),
    )
    .unwrap();
    // The layout this test decodes by, as FORMAT.md states it.
    for line in [
        "| 0 | 8 | bytes | magic `CHOMP3DS` |",
        "| 8 | 4 | u32 | version, `2` (version `1` is the same without the facts section) |",
        "| 12 | 4 | u32 | `n`, rows described (`0 .. n`) |",
        "| 16 | 8 | u64 | columns the census computed |",
        "| 24 | 8 | u64 | `m`, entries in the pattern pool |",
        "| 32 | 32 `n` | records | one per row, below |",
        "| 32 + 32 `n` | 4 `m` | i32 | the pattern pool: `f(q,r) - q` values |",
        "| 32 + 32 `n` + 4 `m` | 8 + 12 (`N` + 1) | facts | the facts of columns `0 ..= N`, below |",
        "| end - 4 | 4 | u32 | CRC-32 of every byte before it |",
        "Record of row `r` (32 bytes): class `u8` at 0 (0 open, 1 constant, 2 periodic),",
        "a flag `u8` at 1 (1: `start` is only an upper bound for the least start, the",
        "`period` u32 at 4, `start` u64 at 8, pool index u64 at 16, and the",
        "column where the certificate closed, u64 at 24 (0 unless periodic).",
        "| 0 | 4 | u32 | `N` |",
        "| 4 | 4 | u32 | first column `q <= N` whose largest value is not `f(q,q)` (`2^32 - 1`: none) |",
        "| 8 | 4 (`N` + 1) | u32 | `f(i,i)`, the diagonal |",
        "| 8 + 4 (`N` + 1) | 4 (`N` + 1) | u32 | P-positions `[i,q,r]` with `q <= i` (cells with `f(q,r) = i >= q`) |",
        "| 8 + 8 (`N` + 1) | 4 (`N` + 1) | u32 | `min f(q,i)` over all `q > i` (row `i`'s true minimum; `2^32 - 1`: not settled) |",
    ] {
        assert!(format_md.contains(line), "FORMAT.md no longer says: {line}");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.c3d");
    write(&path, 2700);
    let b = std::fs::read(&path).unwrap();
    assert_eq!(&b[..8], b"CHOMP3DS");
    assert_eq!(u32_at(&b, 8), 2);
    let n = u32_at(&b, 12) as usize;
    assert_eq!(n, 4);
    assert_eq!(u64_at(&b, 16), 2700);
    let m = u64_at(&b, 24) as usize;
    assert_eq!(m, 3);
    let big_n = 2;
    assert_eq!(b.len(), 32 + 32 * n + 4 * m + 8 + 12 * (big_n + 1) + 4);
    let body = b.len() - 4;
    assert_eq!(u32_at(&b, body), crc32fast::hash(&b[..body]));
    let record = |r: usize| &b[32 + 32 * r..32 + 32 * (r + 1)];
    let pool = |i: usize| u32_at(&b, 32 + 32 * n + 4 * i) as i32;
    // (class, period, start, closed_at) per row.
    let expect = [
        (2u8, 1u32, 0u64, 2u64),
        (1, 0, 2, 0),
        (0, 0, 0, 0),
        (2, 2, 170, 2690),
    ];
    for (r, &(class, period, start, closed)) in expect.iter().enumerate() {
        let rec = record(r);
        assert_eq!(rec[0], class, "row {r}");
        assert_eq!(rec[1], (r == 3) as u8, "row {r}: start bound flag");
        assert_eq!(&rec[2..4], &[0, 0]);
        assert_eq!(u32_at(rec, 4), period, "row {r}");
        assert_eq!(u64_at(rec, 8), start, "row {r}");
        assert_eq!(u64_at(rec, 24), closed, "row {r}");
    }
    let at = u64_at(record(3), 16) as usize;
    assert_eq!((pool(at), pool(at + 1)), (4, 2));
    assert_eq!(pool(u64_at(record(0), 16) as usize), 1);
    // The facts section.
    let f = 32 + 32 * n + 4 * m;
    assert_eq!(u32_at(&b, f), 2);
    assert_eq!(u32_at(&b, f + 4), u32::MAX);
    let field = |k: usize, i: usize| u32_at(&b, f + 8 + 4 * (k * (big_n + 1) + i));
    assert_eq!((0..3).map(|i| field(0, i)).collect::<Vec<_>>(), [1, 3, 4]);
    assert_eq!((0..3).map(|i| field(1, i)).collect::<Vec<_>>(), [0, 1, 2]);
    assert_eq!(
        (0..3).map(|i| field(2, i)).collect::<Vec<_>>(),
        [1, 2, u32::MAX]
    );
    // And the library reads back what it wrote.
    let d = Descriptors::open(&path).unwrap();
    assert_eq!((0..4).map(|r| d.status(r)).collect::<Vec<_>>(), sample());
    assert_eq!(d.status(4), None);
    assert!(d.start_is_bound(3) && !d.start_is_bound(1));
    let back = d.facts().unwrap();
    assert_eq!(
        (back.diagonal, back.p_count, back.row_min),
        (vec![1, 3, 4], vec![0, 1, 2], vec![1, 2, u32::MAX])
    );
    assert_eq!(
        back.starts,
        vec![(2, 1)],
        "starts come from the constant records"
    );
}

#[test]
fn a_damaged_descriptor_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.c3d");
    write(&path, 2700);
    let mut b = std::fs::read(&path).unwrap();
    b[40] ^= 1;
    std::fs::write(&path, &b).unwrap();
    let err = Descriptors::open(&path).err().unwrap().to_string();
    assert!(err.contains("damaged"), "{err}");
    // A header of no rows (every census has one) is damage, not a cut file,
    // whatever the file's length.
    b[40] ^= 1;
    b[12..16].copy_from_slice(&0u32.to_le_bytes());
    std::fs::write(&path, &b).unwrap();
    let err = Descriptors::open(&path).err().unwrap().to_string();
    assert!(err.starts_with("damaged census descriptor file"), "{err}");
}

#[test]
fn records_the_writer_cannot_have_written_are_refused_though_the_checksum_holds() {
    // Each edit is made to the sample's bytes (FORMAT.md's record layout)
    // and the CRC-32 recomputed, as a file made or mended by other means
    // would have it: a period of 0, a period or a pool index that passes the
    // pool, a class of none of the three, padding not zero, a start past a
    // u32, an open row with fields, a pool the patterns do not fill.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.c3d");
    write(&path, 2700);
    let good = std::fs::read(&path).unwrap();
    let record = |r: usize| 32 + 32 * r;
    let put32 =
        |b: &mut Vec<u8>, at: usize, v: u32| b[at..at + 4].copy_from_slice(&v.to_le_bytes());
    let put64 =
        |b: &mut Vec<u8>, at: usize, v: u64| b[at..at + 8].copy_from_slice(&v.to_le_bytes());
    type Edit = Box<dyn Fn(&mut Vec<u8>)>;
    let edits: Vec<(&str, Edit)> = vec![
        ("period 0", Box::new(move |b| put32(b, record(0) + 4, 0))),
        (
            "period past the pool",
            Box::new(move |b| put32(b, record(3) + 4, 3)),
        ),
        (
            "period u32::MAX",
            Box::new(move |b| put32(b, record(0) + 4, u32::MAX)),
        ),
        (
            "pool index past the pool",
            Box::new(move |b| put64(b, record(3) + 16, 3)),
        ),
        (
            "pool index overlapping",
            Box::new(move |b| put64(b, record(3) + 16, 0)),
        ),
        ("class 3", Box::new(move |b| b[record(1)] = 3)),
        ("flag 2", Box::new(move |b| b[record(1) + 1] = 2)),
        ("padding", Box::new(move |b| b[record(1) + 2] = 1)),
        (
            "start past u32",
            Box::new(move |b| put64(b, record(1) + 8, 1 << 32)),
        ),
        (
            "open row with a period",
            Box::new(move |b| put32(b, record(2) + 4, 1)),
        ),
        (
            "constant row with a period",
            Box::new(move |b| put32(b, record(1) + 4, 1)),
        ),
        (
            "pool larger than the patterns",
            Box::new(move |b| put64(b, 24, 4)),
        ),
        // Values the game's bounds rule out (row 1 constant, row 3 periodic,
        // the pool's entries at 160 .. 172, the facts after them).
        (
            "a row dead at its birth",
            Box::new(move |b| put64(b, record(1) + 8, 1)),
        ),
        (
            "a periodic start below its row",
            Box::new(move |b| put64(b, record(3) + 8, 2)),
        ),
        ("a pattern value of 0", Box::new(move |b| put32(b, 164, 0))),
        (
            "a pattern value past r + 1",
            Box::new(move |b| put32(b, 164, 5)),
        ),
        (
            "a negative pattern value",
            Box::new(move |b| put32(b, 168, u32::MAX)),
        ),
        ("f(1,1) = 1", Box::new(move |b| put32(b, 172 + 12, 1))),
        ("f(2,2) = 6", Box::new(move |b| put32(b, 172 + 16, 6))),
        (
            "three P-positions of first row 1",
            Box::new(move |b| put32(b, 172 + 24, 3)),
        ),
        (
            "a row's least value 0",
            Box::new(move |b| put32(b, 172 + 32, 0)),
        ),
        (
            "a first column past the facts",
            Box::new(move |b| put32(b, 172 + 4, 3)),
        ),
        // Values the census's own header rules out (2,700 columns computed;
        // row 3 periodic from 170 with period 2, its certificate closed at
        // 2,690): a death or a certificate at a column not computed, a
        // certificate closed before its start or within a period of it, a
        // start called a bound on a row that is not periodic.
        (
            "a row dead at a column not computed",
            Box::new(move |b| put64(b, record(1) + 8, 2700)),
        ),
        (
            "a row dead at the last column a u32 holds",
            Box::new(move |b| put64(b, record(1) + 8, u64::from(u32::MAX))),
        ),
        (
            "a certificate closed at column 0",
            Box::new(move |b| put64(b, record(3) + 24, 0)),
        ),
        (
            "a certificate closed within a period of its start",
            Box::new(move |b| put64(b, record(3) + 24, 171)),
        ),
        (
            "a certificate closed past the columns computed",
            Box::new(move |b| put64(b, record(3) + 24, 2701)),
        ),
        (
            "a certificate closed at the last column a u64 holds",
            Box::new(move |b| put64(b, record(3) + 24, u64::MAX)),
        ),
        (
            "a bound on a constant row",
            Box::new(move |b| b[record(1) + 1] = 1),
        ),
        (
            "a bound on an open row",
            Box::new(move |b| b[record(2) + 1] = 1),
        ),
    ];
    for (what, edit) in &edits {
        let mut b = good.clone();
        edit(&mut b);
        if u64_at(&b, 24) != u64_at(&good, 24) {
            // A longer pool: the sections after it move, so the file grows.
            b.splice(32 + 32 * 4 + 12..32 + 32 * 4 + 12, [0u8; 4]);
        }
        let body = b.len() - 4;
        let crc = crc32fast::hash(&b[..body]);
        b[body..].copy_from_slice(&crc.to_le_bytes());
        std::fs::write(&path, &b).unwrap();
        let err = Descriptors::open(&path).err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(
                "damaged census descriptor file (its length, checksum or records); make the census again"
            ),
            "{what}"
        );
    }
    // The sample itself reads.
    std::fs::write(&path, &good).unwrap();
    assert!(Descriptors::open(&path).is_ok());
}

fn named(path: PathBuf, named: bool) -> Named {
    Named { path, named }
}

#[test]
fn lookup_uses_the_census_only_where_the_rules_allow() {
    let dir = tempfile::tempdir().unwrap();
    let census = dir.path().join("c.c3d");
    write(&census, 2700);
    let absent_table = dir.path().join("absent.c3t");
    // No table named and none at the path: the census answers, and says why.
    let a = lookup(
        1000,
        3,
        &named(absent_table.clone(), false),
        &named(census.clone(), false),
    )
    .unwrap();
    assert_eq!(a.value, 1004); // row 3 repeats [4, 2] from 170; 1000 - 170 is even
    assert!(matches!(a.source, Source::Census { table_n: None, .. }));
    // A named table that does not exist is an error, census or not.
    assert!(
        lookup(
            1000,
            3,
            &named(absent_table.clone(), true),
            &named(census.clone(), true)
        )
        .is_err()
    );
    // A row the census leaves open, or a q before its start: no answer.
    assert!(
        lookup(
            1000,
            2,
            &named(absent_table.clone(), false),
            &named(census.clone(), true)
        )
        .is_err()
    );
    assert!(
        lookup(
            100,
            3,
            &named(absent_table.clone(), false),
            &named(census.clone(), true)
        )
        .is_err()
    );
    // Neither source: one error naming both.
    let none = lookup(
        5,
        1,
        &named(absent_table, false),
        &named(dir.path().join("no.c3d"), false),
    );
    let err = none.err().unwrap().to_string();
    assert!(
        err.contains("no table at") && err.contains("no census at"),
        "{err}"
    );
}
