//! The Grundy sweep against the game's definition: a memoised mex over the
//! moves of doc/chomp.md section 1, written here from the rules alone; and
//! against the P-positions of the reference table.

use crate::common;

use std::collections::HashMap;

use chomp3::grundy::Sweep;

/// `G(p,q,r)` by its definition: the least value no move reaches.
struct Brute {
    memo: HashMap<(u32, u32, u32), u32>,
}

impl Brute {
    fn value(&mut self, p: u32, q: u32, r: u32) -> u32 {
        if let Some(&g) = self.memo.get(&(p, q, r)) {
            return g;
        }
        let mut options = Vec::new();
        for c in 2..=p {
            options.push((c - 1, q.min(c - 1), r.min(c - 1)));
        }
        for c in 1..=q {
            options.push((p, c - 1, r.min(c - 1)));
        }
        for c in 1..=r {
            options.push((p, q, c - 1));
        }
        let values: Vec<u32> = options
            .into_iter()
            .map(|(a, b, c)| self.value(a, b, c))
            .collect();
        let g = (0..).find(|v| !values.contains(v)).unwrap();
        self.memo.insert((p, q, r), g);
        g
    }
}

#[test]
fn every_position_up_to_60_has_the_value_of_its_definition() {
    let top = 60;
    let mut brute = Brute {
        memo: HashMap::new(),
    };
    let mut sweep = Sweep::new(top);
    let mut checked = 0;
    for p in 1..=top {
        sweep.step();
        assert_eq!(sweep.p(), p);
        for q in 0..=p {
            for r in 0..=q {
                assert_eq!(
                    sweep.value(q, r),
                    Some(brute.value(p, q, r)),
                    "G({p},{q},{r})"
                );
                checked += 1;
            }
        }
        assert_eq!(sweep.value(p + 1, 0), None, "a line not started");
    }
    assert_eq!(checked, (1..=61).map(|k| k * (k + 1) / 2).sum::<u32>() - 1);
}

#[test]
fn the_value_is_zero_exactly_at_the_reference_tables_p_positions() {
    // f[r][q] for q, r <= 30; where f(q,r) >= q the P-position of line (q,r)
    // is [f(q,r), q, r], and the line has no other zero (values along a line
    // differ). Where f(q,r) < q the line has no zero at all.
    let f = common::reference_table();
    let mut sweep = Sweep::new(30);
    let mut zeros: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
    for _ in 0..200 {
        sweep.step();
        for q in 0..=30.min(sweep.p()) {
            for r in 0..=q {
                if sweep.value(q, r) == Some(0) {
                    zeros.entry((q, r)).or_default().push(sweep.p());
                }
            }
        }
    }
    for q in 0..=30u32 {
        for r in 0..=q {
            let fq = f[r as usize][q as usize];
            let want = if fq >= q { vec![fq] } else { vec![] };
            assert_eq!(
                zeros.remove(&(q, r)).unwrap_or_default(),
                want,
                "line ({q},{r})"
            );
        }
    }
}

#[test]
fn the_census_fates_hold_over_long_stretches_and_start_exactly_where_they_say() {
    // Every line of q <= 25 (351 lines, periods up to 2304): checked against
    // the plain sweep, itself checked against the brute force above.
    let q_max = 25;
    let c = chomp3::grundy::census::census(
        q_max,
        1_000_000,
        &chomp3::base::stop::Stop::new(),
        &mut |_| {},
    );
    assert_eq!(c.lines.len(), 351, "every line of q <= 25 proved");
    let fates: Vec<Fate> = c
        .lines
        .iter()
        .map(|f| (f.q, f.r, f.start, f.period))
        .collect();
    let history = check_fates(q_max, &fates);
    // The patterns are the values.
    for f in &c.lines {
        let x = &history[&(f.q, f.r)];
        let first = f.q.max(1);
        for p in f.start..f.start + 3 * f.period {
            let g = (p as i64 + x[(p - first) as usize]) as u64;
            assert_eq!(
                f.value(p as u64),
                Some(u128::from(g)),
                "G({p},{},{})",
                f.q,
                f.r
            );
        }
    }
}

#[test]
fn the_census_of_two_sweeps_finds_the_same_starts_and_least_periods() {
    // Lags 2304 (the least that works for q <= 25), 6912 = 3 * 2304 and
    // 36,864 = 16 * 2304 (far longer than the census, so that the leading
    // sweep's small-lag record settles the families of period 2).
    let q_max = 25;
    for lag in [2304, 6912, 36864] {
        let run = chomp3::grundy::lag::run(
            q_max,
            lag,
            1_000_000,
            None,
            &chomp3::base::stop::Stop::new(),
            &mut |_| {},
        )
        .unwrap();
        let fates: Vec<Fate> = run
            .outcome()
            .lines
            .iter()
            .map(|f| {
                let f = f.expect("every line of q <= 25 done");
                (f.q, f.r, f.start, f.period)
            })
            .collect();
        assert_eq!(fates.len(), 351);
        check_fates(q_max, &fates);
    }
}

/// A line's `(q, r, start, least period)`.
type Fate = (u32, u32, u32, u32);

/// Checks each fate against the plain sweep: the line repeats with its
/// period over three periods from its start, no proper divisor of the period
/// does, and one step before the start it does not repeat. Returns every
/// line's `G - p` from its first `p`.
fn check_fates(q_max: u32, fates: &[Fate]) -> HashMap<(u32, u32), Vec<i64>> {
    let end = fates.iter().map(|f| f.2 + 4 * f.3).max().unwrap();
    let mut history: HashMap<(u32, u32), Vec<i64>> = HashMap::new();
    let mut sweep = Sweep::new(q_max);
    while sweep.p() < end {
        sweep.step();
        let p = sweep.p();
        for &(q, r, _, _) in fates {
            if let Some(g) = sweep.value(q, r) {
                history.entry((q, r)).or_default().push(g as i64 - p as i64);
            }
        }
    }
    for &(q, r, start, d) in fates {
        let x = &history[&(q, r)];
        let first = q.max(1);
        let at = |p: u32| x[(p - first) as usize];
        for p in start..start + 3 * d {
            assert_eq!(at(p), at(p + d), "line ({q},{r}) at p = {p}");
        }
        // The least period: no proper divisor repeats over two periods.
        for e in (1..d).filter(|e| d % e == 0) {
            assert!(
                (start..start + 2 * d).any(|p| at(p) != at(p + e)),
                "line ({q},{r}) repeats with {e} < {d}"
            );
        }
        // The exact start: one step earlier it does not repeat.
        if start > first {
            assert_ne!(at(start - 1), at(start - 1 + d), "line ({q},{r})");
        }
    }
    history
}

/// The terms `(n, value)` of a b-file.
fn bfile(path: &std::path::Path) -> Vec<(u32, u32)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let (n, v) = l.split_once(' ').unwrap();
            (n.parse().unwrap(), v.parse().unwrap())
        })
        .collect()
}

#[test]
fn nim_answers_from_a_census_as_it_computes_and_refuses_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.tsv");
    let f = file.to_str().unwrap();
    common::chomp3_ok(&["grundy-census", "--quiet", "--lines", "12", "--out", f]);
    let text = std::fs::read_to_string(&file).unwrap();
    let (q_max, lines) = chomp3::grundy::file::read(text.as_bytes()).unwrap();
    assert_eq!((q_max, lines.len()), (12, 91));
    for (p, q, r) in [("50000", "12", "5"), ("3000", "9", "9"), ("777", "4", "0")] {
        let from_census = common::chomp3_ok(&["nim", p, q, r, "--grundy-census", f]);
        let computed = common::chomp3_ok(&["nim", p, q, r]);
        let first = |o: &std::process::Output| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap()
                .to_string()
        };
        assert_eq!(first(&from_census), first(&computed), "[{p},{q},{r}]");
        assert!(String::from_utf8_lossy(&from_census.stdout).contains("g.tsv"));
        assert!(String::from_utf8_lossy(&computed.stdout).contains("computed"));
    }
    // Before a line's start the census does not answer, and says so.
    let early = common::chomp3_ok(&["nim", "13", "12", "5", "--grundy-census", f]);
    assert!(String::from_utf8_lossy(&early.stderr).contains("does not cover"));
    for bad in [
        vec!["nim", "3", "5", "1"],
        vec!["nim", "0", "0", "0"],
        vec![
            "nim",
            "9",
            "5",
            "1",
            "--grundy-census",
            "/nonexistent/g.tsv",
        ],
    ] {
        let o = common::chomp3(&bad);
        assert_ne!(o.status.code(), Some(0), "{bad:?}");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr).trim().lines().count(),
            1,
            "{bad:?}"
        );
    }
    std::fs::write(&file, "# not a census\n").unwrap();
    let o = common::chomp3(&["nim", "9", "5", "1", "--grundy-census", f]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("line 1"));
}

/// Run from the repository root, `nim` answers from the committed data:
/// the rectangles' b-file (checked here against the sweep), and p of any
/// size on a line of the periods census; a sweep past the time allowed is
/// refused with its estimate before any work.
#[test]
fn nim_answers_from_the_committed_data_and_says_what_a_sweep_would_cost() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = |o: &std::process::Output| String::from_utf8_lossy(&o.stdout).to_string();
    let o = common::chomp3_in(&root, &["nim", "5000", "5000", "5000"]);
    assert!(o.status.success());
    assert!(
        text(&o).starts_with("10787\nsource: the b-file of the rectangles G(n,n,n), n <= 5000"),
        "{}",
        text(&o)
    );
    for n in ["1", "9", "33"] {
        let from_file = common::chomp3_in(&root, &["nim", n, n, n]);
        let computed = common::chomp3_ok(&["nim", n, n, n]);
        assert!(text(&from_file).contains("rectangles") && text(&computed).contains("computed"));
        assert_eq!(
            text(&from_file).lines().next(),
            text(&computed).lines().next(),
            "{n}"
        );
    }
    // Past 2^64 on line (30,20): G - p is that at the small p of the same
    // residue past the line's start (16944, period 4608), swept.
    let far = common::chomp3_in(&root, &["nim", "18446744073709551621", "30", "20"]);
    let small = 16944 + (18446744073709551621u128 - 16944) % 4608 + 4608;
    let near = common::chomp3_ok(&["nim", &small.to_string(), "30", "20"]);
    let value = |o: &std::process::Output| text(o).lines().next().unwrap().parse::<u128>().unwrap();
    assert_eq!(value(&far) - 18446744073709551621, value(&near) - small);
    // The cost is said before any work, and nothing is computed.
    let o = common::chomp3_in(&root, &["nim", "1000000000000000", "300", "300"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("needs the Grundy sweep of every line q' <= 300 to p = "),
        "{err}"
    );
    assert!(
        err.contains(" h of one core") && err.contains("give --max-seconds"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    let o = common::chomp3(&["nim", "9", "5", "1", "--max-seconds", "-1"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn nim_reduces_p_by_a_census_of_periods_and_starts() {
    use chomp3::grundy::file;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.tsv");
    let b = dir.path().join("b");
    common::chomp3_ok(&[
        "grundy-periods",
        "--quiet",
        "--lines",
        "10",
        "--lag",
        "2304",
        "--bfiles",
        b.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let reader = std::io::BufReader::new(std::fs::File::open(&out).unwrap());
    let (q_max, lines) = file::summaries(reader).unwrap();
    assert_eq!((q_max, lines.len()), (10, 66));
    let nim = |p: u64, l: &chomp3::grundy::ProvedLine, census: &std::path::Path| {
        let (p, q, r) = (p.to_string(), l.q.to_string(), l.r.to_string());
        let census = census.to_str().unwrap();
        let o = common::chomp3_ok(&["nim", &p, &q, &r, "--grundy-census", census]);
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        let (value, source) = text.split_once('\n').unwrap();
        (value.parse::<u64>().unwrap(), source.to_string(), o.stderr)
    };
    // Past the first period, against the definition.
    let mut brute = Brute {
        memo: HashMap::new(),
    };
    let mut checked = 0;
    for l in &lines {
        let past = (l.start + l.period) as u64;
        for p in [past, (past + 60) / 2, 60]
            .into_iter()
            .filter(|&p| p >= past && p <= 60)
        {
            let (value, source, _) = nim(p, l, &out);
            assert_eq!(
                value,
                brute.value(p as u32, l.q, l.r) as u64,
                "{l:?} at {p}"
            );
            assert!(source.contains("so G - p is that at p ="), "{source}");
            checked += 1;
        }
    }
    assert!(
        checked >= 40,
        "only {checked} positions past a first period"
    );
    // Far beyond any sweep, against the census with patterns (a census of
    // another kind, made by another method).
    let patterns = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .join("data/grundy-census-40/grundy-census.tsv");
    for (i, l) in lines.iter().enumerate() {
        let p = 1_000_000_000_000_000 + i as u64;
        let (value, source, _) = nim(p, l, &out);
        assert_eq!(value, nim(p, l, &patterns).0, "{l:?} at {p}");
        assert!(
            source.contains(&format!("line ({},{})", l.q, l.r)),
            "{source}"
        );
    }
    // Within the first period there is nothing to reduce: computed, said so.
    let l = lines.iter().find(|l| l.period > 1 && l.start >= 4).unwrap();
    let (value, source, err) = nim(l.start as u64, l, &out);
    assert_eq!(value, brute.value(l.start, l.q, l.r) as u64);
    assert!(source.starts_with("source: computed"), "{source}");
    assert!(String::from_utf8_lossy(&err).contains("nothing to reduce"));
}

#[test]
fn the_bfiles_hold_the_rectangles_and_the_census_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("g.tsv");
    let args = [
        "grundy-census",
        "--quiet",
        "--lines",
        "10",
        "--out",
        out.to_str().unwrap(),
        "--bfiles",
        d.to_str().unwrap(),
        "--rectangles",
        "45",
    ];
    common::chomp3_ok(&args);
    let terms = |name: &str| bfile(&d.join(name));
    let mut brute = Brute {
        memo: HashMap::new(),
    };
    let want: Vec<(u32, u32)> = (1..=45).map(|n| (n, brute.value(n, n, n))).collect();
    assert_eq!(terms("grundy-rectangles.txt"), want);
    let (_, lines) =
        chomp3::grundy::file::read(std::fs::read_to_string(&out).unwrap().as_bytes()).unwrap();
    let periods: Vec<(u32, u32)> = lines
        .iter()
        .enumerate()
        .map(|(i, f)| (i as u32, f.period))
        .collect();
    let starts: Vec<(u32, u32)> = lines
        .iter()
        .enumerate()
        .map(|(i, f)| (i as u32, f.start))
        .collect();
    assert_eq!(periods.len(), 66);
    assert_eq!(terms("grundy-periods.txt"), periods);
    assert_eq!(terms("grundy-starts.txt"), starts);
    // The figure drawn from the b-files is the one drawn from the census.
    let (a, b) = (d.join("from-census"), d.join("from-bfiles"));
    let o = out.to_str().unwrap();
    common::chomp3_ok(&["plot", "--grundy", o, "--out", a.to_str().unwrap()]);
    let bf = d.to_str().unwrap();
    common::chomp3_ok(&["plot", "--grundy-bfiles", bf, "--out", b.to_str().unwrap()]);
    let png = |dir: &std::path::Path| std::fs::read(dir.join("grundy-periods.png")).unwrap();
    assert_eq!(png(&a), png(&b));
    // A gap in a whole file is named by its line; a file cut off, by its end.
    let mut gap = Vec::new();
    let title = b"# Three-rowed Chomp: least p from which G(p,q,r) - p is periodic\n0 1\n2 5\n";
    chomp3::base::seal::write_sealed(&mut gap, |w| w.write_all(title)).unwrap();
    for (text, says) in [
        (gap, "grundy-starts.txt line 3"),
        (title.to_vec(), "grundy-starts.txt: no end line"),
        (
            b"0 1\n1 2\n".to_vec(),
            "grundy-starts.txt: not the b-file wanted",
        ),
    ] {
        std::fs::write(d.join("grundy-starts.txt"), text).unwrap();
        let bad = common::chomp3(&["plot", "--grundy-bfiles", bf, "--out", b.to_str().unwrap()]);
        assert!(!bad.status.success());
        let err = String::from_utf8_lossy(&bad.stderr);
        assert!(err.contains(says), "{err}");
    }
}

#[test]
fn position_nim_lists_every_move_with_the_value_of_its_definition() {
    let mut brute = Brute {
        memo: HashMap::new(),
    };
    for (p, q, r) in [(23u32, 11u32, 5u32), (9, 9, 9), (1, 0, 0), (12, 3, 0)] {
        let o = common::chomp3_ok(&[
            "position",
            &p.to_string(),
            &q.to_string(),
            &r.to_string(),
            "--nim",
        ]);
        let text = String::from_utf8(o.stdout).unwrap();
        let mut lines = text.lines();
        let head = lines.next().unwrap();
        assert!(
            head.contains(&format!("value {} ", brute.value(p, q, r))),
            "{head}"
        );
        let moves: Vec<&str> = lines.collect();
        assert_eq!(moves.len() as u32, p - 1 + q + r, "{text}");
        for m in moves {
            // "  take row 1 (bottom), column 3 -> [2,2,1]: value 0  (winning)"
            let to = m.split("-> [").nth(1).unwrap();
            let (pos, rest) = to.split_once("]: value ").unwrap();
            let v: u32 = rest.split_whitespace().next().unwrap().parse().unwrap();
            let c: Vec<u32> = pos.split(',').map(|x| x.parse().unwrap()).collect();
            assert_eq!(v, brute.value(c[0], c[1], c[2]), "{m}");
            assert_eq!(m.ends_with("(winning)"), v == 0, "{m}");
        }
    }
}

/// A table file's bytes past its header (the commit records differ with the
/// number of commits).
fn data_bytes(path: &std::path::Path) -> Vec<u8> {
    std::fs::read(path).unwrap()[4096..].to_vec()
}

/// A table to `n` made in one run, in `dir`.
fn grundy_fresh(dir: &std::path::Path, n: u32) -> std::path::PathBuf {
    let path = dir.join(format!("fresh-{n}.g3t"));
    assert!(grundy_table(&path, n).status.success());
    path
}

/// Runs `chomp3 grundy-table` to `n` into `path`.
/// `grundy-table --n 300` at `path`, started and held at `p = 200` (the
/// test hook) once it says so; its standard error is returned open, as the
/// run writes there when it ends.
#[cfg(feature = "test-hooks")]
fn held_at_200(
    path: &std::path::Path,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args([
            "grundy-table",
            "--quiet",
            "--n",
            "300",
            "--capacity",
            "5000",
        ])
        .args(["--hold-at", "200", "--table", path.to_str().unwrap()])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    said.read_line(&mut line).unwrap();
    assert!(line.contains("holding at p = 200"), "{line}");
    (child, said)
}

fn grundy_table(path: &std::path::Path, n: u32) -> std::process::Output {
    common::chomp3(&[
        "grundy-table",
        "--quiet",
        "--n",
        &n.to_string(),
        "--capacity",
        "5000",
        "--table",
        path.to_str().unwrap(),
    ])
}

#[test]
fn the_stored_table_holds_the_definitions_values_and_resumes_to_the_same_bytes() {
    use chomp3::grundy::table::GrundyTable;
    let dir = tempfile::tempdir().unwrap();
    let direct = dir.path().join("direct.g3t");
    assert!(grundy_table(&direct, 60).status.success());
    let t = GrundyTable::open(&direct).unwrap();
    assert_eq!(t.n(), Some(60));
    let mut brute = Brute {
        memo: HashMap::new(),
    };
    for p in 1..=60 {
        for q in 0..=p {
            for r in 0..=q {
                assert_eq!(
                    t.get(p, q, r).unwrap(),
                    brute.value(p as u32, q as u32, r as u32)
                );
            }
        }
    }
    assert!(t.get(61, 0, 0).is_err());
    t.verify().unwrap();
    // Extended in two runs: the same bytes. The second starts from the
    // sweep the first saved, sweeping nothing again.
    let twice = dir.path().join("twice.g3t");
    assert!(grundy_table(&twice, 25).status.success());
    let out = grundy_table(&twice, 60);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("from the sweep saved at p = 25, 0 checked again, 35 computed"),
        "{text}"
    );
    assert!(
        data_bytes(&twice) == data_bytes(&direct),
        "resumed table differs"
    );
    // From an older sweep (a run to 10's), the slabs after it are checked
    // again; with none, all of them, and the run says so.
    let older = dir.path().join("older.g3t");
    assert!(grundy_table(&older, 10).status.success());
    std::fs::copy(older.with_extension("g3s"), twice.with_extension("g3s")).unwrap();
    let out = grundy_table(&twice, 70);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("from the sweep saved at p = 10, 50 checked again, 10 computed"),
        "{text}"
    );
    std::fs::remove_file(twice.with_extension("g3s")).unwrap();
    let out = grundy_table(&twice, 75);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("every stored slab swept again, 70 checked again, 5 computed"),
        "{text}"
    );
    assert!(
        data_bytes(&twice)[..] == data_bytes(&grundy_fresh(dir.path(), 75))[..],
        "resumed table differs"
    );
    // G = 0 exactly at the P-positions of an f table made by the other engine.
    let f = common::computed(dir.path(), "f.c3t", 80, &[]);
    let out = common::chomp3_ok(&[
        "grundy-table",
        "--quiet",
        "--n",
        "60",
        "--table",
        direct.to_str().unwrap(),
        "--check-f",
        f.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let all: u64 = (0..=60u64).map(|q| (q + 1) * (60 - q.max(1) + 1)).sum();
    assert!(
        text.contains(&format!(
            "G = 0 exactly at f(q,r) of {} on all {all} positions",
            f.display()
        )),
        "{text}"
    );
    // nim answers from it and says so; get refuses it as an f table.
    let nim = |p: &str| {
        let table = direct.to_str().unwrap();
        common::chomp3_ok(&["nim", p, "20", "7", "--grundy-table", table])
    };
    let out = nim("50");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(&format!("{}\n", brute.value(50, 20, 7))),
        "{text}"
    );
    assert!(text.contains("the Grundy table"), "{text}");
    // Past its N it is passed over, said on stderr; a missing one is named
    // as a Grundy table, with the command that makes it.
    let out = nim("70");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(&format!("{}\nsource: computed", brute.value(70, 20, 7))),
        "{text}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds p <= 60 only"));
    let none = dir.path().join("none.g3t");
    let out = common::chomp3(&[
        "nim",
        "9",
        "5",
        "1",
        "--grundy-table",
        none.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("chomp3 grundy-table --n N"),
        "{err}"
    );
    let out = common::chomp3(&["get", "5", "1", "--table", direct.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Grundy table"));
}

#[test]
#[cfg(feature = "test-hooks")]
fn the_stored_table_survives_sigkill_between_commits() {
    let dir = tempfile::tempdir().unwrap();
    let direct = dir.path().join("direct.g3t");
    assert!(grundy_table(&direct, 300).status.success());
    let path = dir.path().join("killed.g3t");
    // A first run leaves the sweep saved at p = 120.
    assert!(grundy_table(&path, 120).status.success());
    let (mut child, _said) = held_at_200(&path);
    child.kill().unwrap(); // SIGKILL, with slabs written past the last commit
    child.wait().unwrap();
    let held = chomp3::grundy::table::GrundyTable::open(&path).unwrap();
    assert!(
        held.n().unwrap_or(0) < 200,
        "the slabs after the last commit are not in the table"
    );
    held.verify().unwrap();
    // The next run goes on from the saved sweep: only the slabs committed
    // after it are swept again, then the rest computed.
    let out = grundy_table(&path, 300);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let committed = held.n().unwrap();
    let again = format!(
        "from the sweep saved at p = 120, {} checked again, {} computed",
        committed - 120,
        300 - committed
    );
    assert!(text.contains(&again), "{text}");
    assert!(
        data_bytes(&path) == data_bytes(&direct),
        "resumed table differs"
    );
    // A damaged sweep is refused in one line naming it, the table untouched;
    // so is one past the table's last slab (another table's).
    let sweep = path.with_extension("g3s");
    let mut bytes = std::fs::read(&sweep).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 4;
    std::fs::write(&sweep, &bytes).unwrap();
    let before = std::fs::read(&path).unwrap();
    let out = grundy_table(&path, 310);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("killed.g3s") && err.contains("damaged"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    let small = dir.path().join("small.g3t");
    assert!(grundy_table(&small, 50).status.success());
    std::fs::copy(direct.with_extension("g3s"), small.with_extension("g3s")).unwrap();
    let out = grundy_table(&small, 310);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("past the table's last slab 50"), "{err}");
    assert!(std::fs::read(&path).unwrap() == before, "nothing written");
    // The same sweep (p = 300) named as the checkpoint of a new table of
    // fewer lines: whole, so not called damaged, and kept; with a byte of it
    // flipped, damaged.
    let other = |name: &str| {
        common::chomp3(&[
            "grundy-table",
            "--quiet",
            "--n",
            "100",
            "--table",
            dir.path().join(name).to_str().unwrap(),
            "--checkpoint",
            direct.with_extension("g3s").to_str().unwrap(),
        ])
    };
    let kept = std::fs::read(direct.with_extension("g3s")).unwrap();
    let out = other("fewer.g3t");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("the sweep is at p = 300, past this table's lines q <= 100")
            && err.contains("another run's checkpoint, kept")
            && !err.contains("damaged"),
        "{err}"
    );
    assert!(std::fs::read(direct.with_extension("g3s")).unwrap() == kept);
    let mut flipped = kept.clone();
    let at = flipped.len() - 10;
    flipped[at] ^= 1;
    std::fs::write(direct.with_extension("g3s"), &flipped).unwrap();
    let err = String::from_utf8_lossy(&other("fewer.g3t").stderr).into_owned();
    assert!(err.contains("damaged") && err.contains("checksum"), "{err}");
    assert!(!dir.path().join("fewer.g3t").exists(), "{err}");
    std::fs::write(direct.with_extension("g3s"), &kept).unwrap();
}

/// A run killed after its last commit but before its last save leaves the
/// table whole and the sweep behind it (or none); the same command brings the
/// sweep to the table's end, so the files are those of a run never killed.
#[test]
fn a_whole_table_with_its_sweep_behind_gets_the_sweep_brought_up() {
    let dir = tempfile::tempdir().unwrap();
    let direct = dir.path().join("direct.g3t");
    assert!(grundy_table(&direct, 150).status.success());
    let path = dir.path().join("t.g3t");
    let sweep = path.with_extension("g3s");
    assert!(grundy_table(&path, 90).status.success());
    let at_90 = std::fs::read(&sweep).unwrap();
    assert!(grundy_table(&path, 150).status.success());
    for behind in [Some(at_90), None] {
        match &behind {
            Some(bytes) => std::fs::write(&sweep, bytes).unwrap(),
            None => std::fs::remove_file(&sweep).unwrap(),
        }
        let out = grundy_table(&path, 150);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains("already"), "{text}");
        assert!(
            std::fs::read(&sweep).unwrap() == std::fs::read(direct.with_extension("g3s")).unwrap()
        );
        // The commit slots count this table's commits; what follows them
        // is the direct run's byte for byte.
        assert!(data_bytes(&path) == data_bytes(&direct));
    }
}

#[test]
fn a_sweep_brought_up_and_killed_again_and_again_gets_further() {
    // A whole table whose sweep is gone: the run that brings the sweep up
    // saves it as it goes, so runs killed before they end still make
    // progress, and the last one leaves the uninterrupted run's files.
    let dir = tempfile::tempdir().unwrap();
    let direct = dir.path().join("direct.g3t");
    assert!(grundy_table(&direct, 330).status.success());
    let path = dir.path().join("t.g3t");
    std::fs::copy(&direct, &path).unwrap();
    let sweep = path.with_extension("g3s");
    let mut reached = 0;
    for _ in 0..3 {
        let before = std::fs::read(&sweep).ok();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_chomp3"))
            .args([
                "grundy-table",
                "--quiet",
                "--n",
                "330",
                "--checkpoint-secs",
                "0.01",
            ])
            .args(["--table", path.to_str().unwrap()])
            .spawn()
            .unwrap();
        // Killed as soon as it has saved a sweep of its own.
        while std::fs::read(&sweep).ok() == before {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let ended = child.try_wait().unwrap().is_some();
        child.kill().ok();
        child.wait().unwrap();
        if ended {
            break;
        }
        let p = chomp3::grundy::table::load_sweep(&sweep, 330).unwrap().p();
        assert!(
            p > reached && p < 330,
            "the sweep went from {reached} to {p}"
        );
        reached = p;
    }
    assert!(
        reached > 0,
        "no run was killed while it brought the sweep up"
    );
    let out = grundy_table(&path, 330);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read(&sweep).unwrap() == std::fs::read(direct.with_extension("g3s")).unwrap());
    assert!(data_bytes(&path) == data_bytes(&direct));
}

#[test]
#[cfg(feature = "test-hooks")]
fn a_run_of_a_smaller_n_after_a_stopped_one_takes_its_sweep() {
    // A run of N = 300 stopped at p = 200 leaves a sweep of the lines
    // q <= 300; a run of N = 100 then finds the table whole (p <= 200) and
    // narrows the sweep, which is no damage, and N = 300 again ends with the
    // uninterrupted run's sweep.
    let dir = tempfile::tempdir().unwrap();
    let direct = dir.path().join("direct.g3t");
    assert!(grundy_table(&direct, 300).status.success());
    let path = dir.path().join("t.g3t");
    let (mut child, said) = held_at_200(&path);
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    assert_eq!(child.wait().unwrap().code(), Some(130));
    drop(said);
    for n in [100, 300] {
        let out = grundy_table(&path, n);
        assert!(
            out.status.success(),
            "N = {n}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let sweep = |t: &std::path::Path| std::fs::read(t.with_extension("g3s")).unwrap();
    assert!(sweep(&path) == sweep(&direct));
    assert!(data_bytes(&path) == data_bytes(&direct));
}

#[test]
fn the_stored_tables_errors_name_a_grundy_table_and_its_command() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.g3t");
    let table = path.to_str().unwrap();
    let make = |n: &str, table: &str| {
        common::chomp3(&[
            "grundy-table",
            "--quiet",
            "--n",
            n,
            "--capacity",
            "30",
            "--table",
            table,
        ])
    };
    assert!(make("10", table).status.success());
    let before = std::fs::read(&path).unwrap();
    // Past its capacity: said so, with the fix, and the file is untouched.
    let out = common::chomp3(&["grundy-table", "--quiet", "--n", "50", "--table", table]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("N = 50 is beyond the table's capacity 30") && err.contains("larger capacity"),
        "{err}"
    );
    assert!(
        err.contains("larger --capacity") && !err.contains("compute"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(std::fs::read(&path).unwrap() == before, "nothing written");
    // A directory, to either command that reads one, is not a Grundy table.
    let d = dir.path().to_str().unwrap();
    for out in [
        make("10", d),
        common::chomp3(&["nim", "9", "5", "1", "--grundy-table", d]),
    ] {
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("is a directory, not a Grundy table"), "{err}");
        assert!(err.contains(".g3t") && !err.contains(".c3t"), "{err}");
    }
}

#[test]
fn a_damaged_stored_table_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.g3t");
    assert!(grundy_table(&path, 40).status.success());
    // `info` reads a Grundy table too, and checks every block.
    let info = common::chomp3_ok(&["info", "--verify", "--table", path.to_str().unwrap()]);
    let info = String::from_utf8_lossy(&info.stdout);
    assert!(
        info.contains("Grundy table") && info.contains("41 complete slabs"),
        "{info}"
    );
    let mut bytes = std::fs::read(&path).unwrap();
    // The data starts where the header's field at byte 24 says, with the
    // bits per value at byte 12 (FORMAT.md); [18,1,1] is value number
    // 18*19*20/6 + 1*2/2 + 1.
    let offset = u64::from_le_bytes(bytes[24..32].try_into().unwrap());
    let bits = u64::from(u32::from_le_bytes(bytes[12..16].try_into().unwrap()));
    let at = (offset + (1140 + 2) * bits / 8) as usize;
    bytes[at] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let out = grundy_table(&path, 50);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("damaged table"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(std::fs::read(&path).unwrap() == bytes, "nothing written");
    let p = path.to_str().unwrap();
    let info = common::chomp3(&["info", "--verify", "--table", p]);
    assert!(String::from_utf8_lossy(&info.stderr).contains("damaged table"));
    let nim = common::chomp3(&["nim", "18", "1", "1", "--grundy-table", p]);
    let err = String::from_utf8_lossy(&nim.stderr);
    assert_eq!(nim.status.code(), Some(1), "{err}");
    assert!(err.contains("damaged table") && err.contains(p), "{err}");
    // A value in a whole block (bytes past 4096) is given, and is the sweep's.
    let from_table = common::chomp3_ok(&["nim", "40", "40", "40", "--grundy-table", p]);
    let swept = common::chomp3_ok(&["nim", "40", "40", "40"]);
    let first = |o: &std::process::Output| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .next()
            .map(String::from)
    };
    assert_eq!(first(&from_table), first(&swept));
    // Cut short: refused too.
    std::fs::write(&path, &bytes[..bytes.len() - 100]).unwrap();
    let out = grundy_table(&path, 50);
    assert!(String::from_utf8_lossy(&out.stderr).contains("truncated"));
}

#[test]
fn grundy_periods_resumes_to_the_same_bfiles_and_refuses_bad_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (ck, once, twice) = (path("ck"), path("once"), path("twice"));
    let args = |out: &str| -> Vec<String> {
        ["grundy-periods", "--quiet", "--lines", "12", "--lag", "576"]
            .iter()
            .map(|s| s.to_string())
            .chain(["--bfiles".into(), out.into()])
            .collect()
    };
    let run = |extra: &[&str], out: &str| {
        let mut a = args(out);
        a.extend(extra.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = a.iter().map(|s| s.as_str()).collect();
        common::chomp3(&refs)
    };
    assert!(run(&[], &once).status.success());
    // Cut short by --max-p: it says so, writes nothing, keeps the checkpoint.
    let cut = run(&["--checkpoint", &ck, "--max-p", "2000"], &twice);
    assert!(!cut.status.success());
    let err = String::from_utf8_lossy(&cut.stderr);
    assert!(
        err.contains("not done")
            && err.contains(&format!("; no result written; the run is kept in {ck}")),
        "{err}"
    );
    assert!(!std::path::Path::new(&twice).exists());
    let kept = std::fs::read(&ck).unwrap();
    // --partial: the b-files of the lines done so far (checked below), from
    // the checkpoint without sweeping; the run still fails, and is kept.
    // With --out, every line done so far, each as the whole run has it.
    let (part, census) = (path("part"), path("part.tsv"));
    let partial = run(
        &[
            "--checkpoint",
            &ck,
            "--max-p",
            "0",
            "--partial",
            "--out",
            &census,
        ],
        &part,
    );
    assert!(!partial.status.success());
    let err = String::from_utf8_lossy(&partial.stderr);
    assert!(err.contains("hold the first"), "{err}");
    assert!(std::path::Path::new(&ck).exists());
    let text = std::fs::read_to_string(&census).unwrap();
    assert!(text.contains("a run not finished"), "{text}");
    let (_, found) = chomp3::grundy::file::summaries(text.as_bytes()).unwrap();
    let terms = |name: &str| -> HashMap<u32, u32> {
        bfile(&std::path::Path::new(&once).join(name))
            .into_iter()
            .collect()
    };
    let (periods, starts) = (terms("grundy-periods.txt"), terms("grundy-starts.txt"));
    assert!(found.len() > 1 && found.len() < 91, "{} lines", found.len());
    // The count it gives is of the lines not done, not those past the prefix.
    let left = format!("{} of 91 lines not done", 91 - found.len());
    assert!(err.contains(&left), "{err}");
    for l in &found {
        let n = chomp3::grundy::line(l.q, l.r) as u32;
        assert_eq!((l.start, l.period), (starts[&n], periods[&n]), "{l:?}");
    }
    // And by the game's definition where p <= 60 reaches: G - p repeats with
    // the period from the start, and not from the p before it.
    let mut brute = Brute {
        memo: HashMap::new(),
    };
    let mut x = |p: u32, l: &chomp3::grundy::ProvedLine| brute.value(p, l.q, l.r) as i64 - p as i64;
    let mut seen = 0;
    for l in found.iter().filter(|l| l.start + l.period < 60) {
        for p in l.start..=60 - l.period {
            assert_eq!(x(p, l), x(p + l.period, l), "{l:?} at {p}");
        }
        let before = l.start - 1;
        if before >= l.q.max(1) {
            assert_ne!(
                x(before, l),
                x(before + l.period, l),
                "{l:?} starts earlier"
            );
        }
        seen += 1;
    }
    assert!(seen >= 10, "only {seen} lines within p <= 60");
    // A checkpoint of another command is refused and left alone.
    let other = common::chomp3(&[
        "grundy-periods",
        "--quiet",
        "--lines",
        "11",
        "--lag",
        "576",
        "--bfiles",
        &twice,
        "--checkpoint",
        &ck,
    ]);
    assert!(!other.status.success());
    assert!(String::from_utf8_lossy(&other.stderr).contains("not of this command"));
    // A damaged one too.
    let mut bad = kept.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0x40;
    std::fs::write(&ck, &bad).unwrap();
    let damaged = run(&["--checkpoint", &ck], &twice);
    assert!(!damaged.status.success());
    let err = String::from_utf8_lossy(&damaged.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert_eq!(
        std::fs::read(&ck).unwrap(),
        bad,
        "the damaged file is left as it was"
    );
    // One marked as format 3 is then cut short of what format 5 adds (the
    // trailing sweep's periods): it is called damaged, in one line, and
    // left alone. (Format 3 itself is read: the library's tests.)
    assert_eq!(&kept[..8], b"C3GLAG05");
    let mut three = kept.clone();
    three[..8].copy_from_slice(b"C3GLAG03");
    std::fs::write(&ck, &three).unwrap();
    let relabelled = run(&["--checkpoint", &ck], &path("thrice"));
    assert!(!relabelled.status.success());
    let err = String::from_utf8_lossy(&relabelled.stderr);
    assert!(err.contains("damaged"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert_eq!(std::fs::read(&ck).unwrap(), three);
    // The good one continues to the same b-files, and is then removed.
    std::fs::write(&ck, &kept).unwrap();
    assert!(run(&["--checkpoint", &ck], &twice).status.success());
    assert!(!std::path::Path::new(&ck).exists());
    for name in ["grundy-periods.txt", "grundy-starts.txt"] {
        // The terms; the headers name the directory given.
        let terms = |d: &str| {
            let text = std::fs::read_to_string(dir.path().join(d).join(name)).unwrap();
            text.lines()
                .filter(|l| !l.starts_with('#'))
                .map(String::from)
                .collect::<Vec<_>>()
        };
        assert_eq!(terms("once").len(), 91);
        assert_eq!(terms("once"), terms("twice"), "{name}");
        let part = terms("part");
        assert!(!part.is_empty() && part.len() < 91, "{}", part.len());
        assert_eq!(part[..], terms("once")[..part.len()], "{name}");
    }
    // A lag below 2Q + 2, and one that a period does not divide.
    let odd = common::chomp3(&[
        "grundy-periods",
        "--lines",
        "12",
        "--lag",
        "20",
        "--bfiles",
        &twice,
    ]);
    assert!(!odd.status.success());
    assert!(String::from_utf8_lossy(&odd.stderr).contains("below 2Q + 2"));
    let short = common::chomp3(&[
        "grundy-periods",
        "--quiet",
        "--lines",
        "12",
        "--lag",
        "256",
        "--max-p",
        "20000",
        "--bfiles",
        &path("short"),
    ]);
    assert!(!short.status.success());
    assert!(String::from_utf8_lossy(&short.stderr).contains("does not divide --lag 256"));
}

#[test]
fn a_table_gives_the_rectangles_and_slab_counts_of_the_brute_force() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.g3t");
    let p = path.to_str().unwrap();
    assert!(grundy_table(&path, 24).status.success());
    let b = dir.path().join("b");
    // Held already: nothing swept, the files read from the table.
    let out = common::chomp3_ok(&[
        "grundy-table",
        "--n",
        "24",
        "--table",
        p,
        "--bfiles",
        b.to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(said.contains("nothing computed\n"), "{said}");
    // Its sweep checkpoint removed: brought through the stored slabs again
    // and saved, and said so; the table as it was.
    let sweep = path.with_extension("g3s");
    let (table, saved) = (
        std::fs::read(&path).unwrap(),
        std::fs::read(&sweep).unwrap(),
    );
    std::fs::remove_file(&sweep).unwrap();
    let out = common::chomp3_ok(&["grundy-table", "--n", "24", "--table", p]);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        said.contains("nothing computed (its sweep, missing or behind, brought to p = 24"),
        "{said}"
    );
    assert!(std::fs::read(&path).unwrap() == table);
    assert!(
        std::fs::read(&sweep).unwrap() == saved,
        "the sweep an unbroken run leaves"
    );
    let mut brute = Brute {
        memo: HashMap::new(),
    };
    let want: Vec<(u32, u32)> = (1..=24).map(|n| (n, brute.value(n, n, n))).collect();
    assert_eq!(bfile(&b.join("grundy-rectangles.txt")), want);
    let text = std::fs::read_to_string(b.join("grundy-slab-counts.tsv")).unwrap();
    assert!(text.contains("OEIS") || text.starts_with("# Grundy table"));
    let rows: Vec<Vec<u64>> = text
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| l.split('\t').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 24);
    for row in &rows {
        let p = row[0] as u32;
        let mut want = vec![u64::from(p), 0, 0, 0, 0, 0];
        for q in 0..=p {
            for r in 0..=q {
                want[1] += 1;
                let g = brute.value(p, q, r) as usize;
                if g < 4 {
                    want[2 + g] += 1;
                }
            }
        }
        assert_eq!(row, &want, "slab {p}");
    }
}

#[test]
fn the_committed_periods_of_two_methods_agree() {
    // data/grundy-census-160 came from the census with patterns, and
    // data/grundy-periods-300 from the census of two sweeps: every line
    // q <= 160 has the same start and least period in both.
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../data"));
    for file in ["grundy-periods.txt", "grundy-starts.txt"] {
        let terms = |dir: &str| -> Vec<String> {
            std::fs::read_to_string(root.join(dir).join(file))
                .unwrap()
                .lines()
                .filter(|l| !l.starts_with('#') && !l.is_empty())
                .map(str::to_string)
                .collect()
        };
        let (small, large) = (terms("grundy-census-160"), terms("grundy-periods-300"));
        assert_eq!(small.len(), 13041, "{file}: lines q <= 160");
        assert_eq!(large.len(), 45451, "{file}: lines q <= 300");
        assert_eq!(small[..], large[..small.len()], "{file}");
    }
}

/// A run stopped late, where the periods the trailing sweep keeps fill its
/// budget (a whole period gives back half the room it took while filling,
/// and a period filling since took that room), continues from its
/// checkpoint to the starts and periods of the committed census of lines
/// q <= 300: its first 1,326 lines are those q <= 50.
#[test]
fn grundy_periods_stopped_with_its_budget_of_periods_full_continues() {
    let dir = tempfile::tempdir().unwrap();
    let (ck, out) = (dir.path().join("ck"), dir.path().join("b"));
    let run = |extra: &[&str]| {
        let mut args = vec![
            "grundy-periods",
            "--quiet",
            "--lines",
            "50",
            "--lag",
            "18432",
            "--bfiles",
            out.to_str().unwrap(),
            "--checkpoint",
            ck.to_str().unwrap(),
        ];
        args.extend(extra);
        common::chomp3(&args)
    };
    let cut = run(&["--max-p", "100000"]);
    assert!(!cut.status.success());
    assert!(String::from_utf8_lossy(&cut.stderr).contains("not done"));
    assert!(ck.exists());
    let rest = run(&[]);
    let err = String::from_utf8_lossy(&rest.stderr);
    assert!(rest.status.success(), "{err}");
    assert!(err.contains("continuing from"), "{err}");
    let committed = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/grundy-periods-300"
    ));
    for file in ["grundy-periods.txt", "grundy-starts.txt"] {
        let got = bfile(&out.join(file));
        assert_eq!(got.len(), 1326, "{file}");
        assert_eq!(got[..], bfile(&committed.join(file))[..1326], "{file}");
    }
}

/// A checkpoint of another table given to a run that would make a new one
/// is refused in one line before the new table is made: nothing is left.
#[test]
fn another_tables_checkpoint_is_refused_before_a_new_table_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let first = grundy_fresh(dir.path(), 30);
    let checkpoint = first.with_extension("g3s");
    assert!(checkpoint.exists());
    let new = dir.path().join("new.g3t");
    let out = common::chomp3(&[
        "grundy-table",
        "--quiet",
        "--n",
        "40",
        "--table",
        new.to_str().unwrap(),
        "--checkpoint",
        checkpoint.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("not this table's"), "{err}");
    assert!(!new.exists(), "the refused run made a table");
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["fresh-30.g3s", "fresh-30.g3t"]);
}

/// SIGBUS (what reading a mapped file that another program cut short
/// raises) ends a command with one line and status 1, not a silent death,
/// and the table it was writing is whole.
#[test]
#[cfg(feature = "test-hooks")]
fn a_sigbus_ends_a_command_in_one_line() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bus.g3t");
    let (mut child, mut said) = held_at_200(&path);
    let sent = std::process::Command::new("kill")
        .args(["-BUS", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    let mut err = String::new();
    said.read_to_string(&mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.starts_with("chomp3: error: ") && err.contains("cut short by another program"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    chomp3::grundy::table::GrundyTable::open(&path)
        .unwrap()
        .verify()
        .unwrap();
}
