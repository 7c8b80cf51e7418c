//! `chomp3 graph` as a batch tool: nauty's generator, subgraphs, ranges, the
//! fan family, files written with their command, and threads. Every count and
//! value is checked against the brute-force solver and a brute-force
//! isomorphism test written here (all permutations), not against the solver.

use std::collections::BTreeMap;

use chomp3::graph::Multigraph;

use crate::graph_common;
use graph_common::{Brute, chomp3_with_input};

/// A labelled simple graph as the set of its edges `(u, v)`, `u < v`.
type Edges = Vec<(usize, usize)>;

/// The least edge list over all relabellings of `0..n`: equal exactly for
/// isomorphic graphs.
fn brute_canonical(n: usize, edges: &Edges) -> Edges {
    let mut perm: Vec<usize> = (0..n).collect();
    let mut best: Option<Edges> = None;
    loop {
        let mut e: Edges = edges
            .iter()
            .map(|&(u, v)| (perm[u].min(perm[v]), perm[u].max(perm[v])))
            .collect();
        e.sort();
        if best.as_ref().is_none_or(|b| e < *b) {
            best = Some(e);
        }
        // Next permutation in lexicographic order.
        let Some(i) = (1..n).rev().find(|&i| perm[i - 1] < perm[i]) else {
            break;
        };
        let j = (i..n).rev().find(|&j| perm[j] > perm[i - 1]).unwrap();
        perm.swap(i - 1, j);
        perm[i..].reverse();
    }
    best.unwrap_or_default()
}

/// One graph of each isomorphism class on `n` vertices.
fn classes(n: usize) -> BTreeMap<Edges, ()> {
    let pairs: Edges = (0..n)
        .flat_map(|u| (u + 1..n).map(move |v| (u, v)))
        .collect();
    let mut out = BTreeMap::new();
    for mask in 0u32..1 << pairs.len() {
        let e: Edges = (0..pairs.len())
            .filter(|&i| mask >> i & 1 == 1)
            .map(|i| pairs[i])
            .collect();
        out.insert(brute_canonical(n, &e), ());
    }
    out
}

fn run(args: &[&str]) -> std::process::Output {
    chomp3_with_input(args, "")
}

fn stdout(o: &std::process::Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn every_graph_from_geng_counted_against_brute_force_classes() {
    let dir = tempfile::tempdir().unwrap();
    let (summary, bfile) = (dir.path().join("s.tsv"), dir.path().join("b.txt"));
    let (s, b) = (summary.to_str().unwrap(), bfile.to_str().unwrap());
    let o = run(&[
        "graph",
        "--quiet",
        "geng:1..6",
        "--summary",
        "--out",
        s,
        "--bfile",
        b,
    ]);
    stdout(&o);
    let text = std::fs::read_to_string(&summary).unwrap();
    assert_eq!(
        text.lines().next().unwrap(),
        format!("# chomp3 graph --quiet geng:1..6 --summary --out {s} --bfile {b}")
    );
    let bfile = std::fs::read_to_string(&bfile).unwrap();
    let terms: Vec<&str> = bfile.lines().filter(|l| !l.starts_with('#')).collect();
    // OEIS A000088: graphs on n unlabelled vertices.
    let graphs = [1, 2, 4, 11, 34, 156];
    for n in 1..=6usize {
        let mut p_positions = 0;
        for e in classes(n).keys() {
            let m = Multigraph {
                n,
                edges: e.clone(),
            };
            p_positions += (Brute::new(n).value_of(&m) == 0) as usize;
        }
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("{n}\t")))
            .unwrap();
        let cols: Vec<&str> = row.split('\t').collect();
        assert_eq!(cols[1], graphs[n - 1].to_string(), "graphs on {n}");
        assert_eq!(cols[2], p_positions.to_string(), "P-positions on {n}");
        assert_eq!(terms[n - 1], format!("{n} {p_positions}"));
    }
    // A b-file needs every graph on each n.
    let o = run(&["graph", "wheel:5", "--summary", "--bfile", b]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn subgraphs_are_every_subgraph_once() {
    // W_4: hub 4, rim 0..4.
    let wheel: Edges = vec![
        (0, 1),
        (1, 2),
        (2, 3),
        (0, 3),
        (0, 4),
        (1, 4),
        (2, 4),
        (3, 4),
    ];
    let mut want = std::collections::BTreeSet::new();
    for keep in 0u32..1 << 5 {
        let vs: Vec<usize> = (0..5).filter(|v| keep >> v & 1 == 1).collect();
        let inside: Edges = wheel
            .iter()
            .filter(|(u, v)| vs.contains(u) && vs.contains(v))
            .map(|&(u, v)| {
                let at = |x| vs.iter().position(|&y| y == x).unwrap();
                (at(u), at(v))
            })
            .collect();
        for mask in 0u32..1 << inside.len() {
            let e: Edges = (0..inside.len())
                .filter(|&i| mask >> i & 1 == 1)
                .map(|i| inside[i])
                .collect();
            want.insert((vs.len(), brute_canonical(vs.len(), &e)));
        }
    }
    let out = stdout(&run(&[
        "graph",
        "--quiet",
        "--tsv",
        "wheel:4",
        "--subgraphs",
    ]));
    let mut got = std::collections::BTreeSet::new();
    for line in out.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let m = chomp3::graph::format::parse_line(cols[0]).unwrap();
        let mut e: Edges = m.edges.iter().map(|&(u, v)| (u.min(v), u.max(v))).collect();
        e.sort();
        assert!(got.insert((m.n, brute_canonical(m.n, &e))), "{line} twice");
        assert_eq!(
            cols[3],
            Brute::new(m.n).value_of(&m).to_string(),
            "value of {line}"
        );
    }
    assert_eq!(got, want);
    // --os85 over them: the counts, by brute force on each class.
    let (mut parity_two, mut exceptions) = (0, 0);
    for (n, e) in &want {
        if n % 2 == 0 && e.len() % 2 == 1 {
            parity_two += 1;
            let to_zero = (0..e.len()).any(|i| {
                let mut fewer = e.clone();
                fewer.remove(i);
                Brute::new(*n).value_of(&Multigraph {
                    n: *n,
                    edges: fewer,
                }) == 0
            });
            exceptions += !to_zero as usize;
        }
    }
    let out = stdout(&run(&[
        "graph",
        "--quiet",
        "wheel:4",
        "--subgraphs",
        "--os85",
    ]));
    assert_eq!(
        out.lines().next(),
        Some(
            format!(
                "# wheel:4: {} subgraphs, {parity_two} with p(G) = 2, {exceptions} without an edge deletion to 0",
                want.len()
            )
            .as_str()
        )
    );
}

#[test]
fn one_vertex_and_one_edge_are_counted_in_the_singular() {
    // Values by the rule: a lone vertex has one move, to the empty graph
    // (mex {0} = 1); the path on two vertices is 2 [OS Prop 1.1].
    let out = stdout(&run(&["graph", "--quiet", "path:1", "path:2"]));
    assert_eq!(
        out,
        "path:1: g = 1 (1 vertex, 0 edges)\npath:2: g = 2 (2 vertices, 1 edge)\n"
    );
}

#[test]
fn fan2_less_two_spokes_and_ranges() {
    // F'_5: rim path 0-1-2-3, rim vertex 4 joined only to the hub 5.
    let out = stdout(&run(&["graph", "--quiet", "--tsv", "fan2-spokes:5"]));
    let lines: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(lines.len(), 10);
    let mut k = 0;
    for i in 0..5 {
        for j in i + 1..5 {
            let mut edges = vec![(0, 1), (1, 2), (2, 3)];
            edges.extend((0..5).filter(|&s| s != i && s != j).map(|s| (s, 5)));
            let value = Brute::new(6).value_of(&Multigraph { n: 6, edges });
            assert_eq!(
                lines[k],
                format!("fan2-spokes:5:{i},{j}\t6\t6\t{value}"),
                "spokes {i}, {j}"
            );
            k += 1;
        }
    }
    let out = stdout(&run(&["graph", "--quiet", "--tsv", "cycle:3..5"]));
    let values: Vec<&str> = out
        .lines()
        .skip(1)
        .map(|l| l.rsplit('\t').next().unwrap())
        .collect();
    // doc/graphs.md section 3: every cycle has value 0.
    assert_eq!(values, ["0", "0", "0"]);
    let o = run(&["graph", "cycle:5..3"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("empty"), "{err}");
}

#[test]
fn out_files_reproduce_and_a_bad_batch_keeps_the_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.tsv");
    let p = path.to_str().unwrap();
    let args = [
        "graph",
        "--quiet",
        "wheel:3..7",
        "fan:5",
        "--tsv",
        "--out",
        p,
    ];
    stdout(&run(&args));
    let first = std::fs::read(&path).unwrap();
    stdout(&run(&args));
    assert_eq!(
        std::fs::read(&path).unwrap(),
        first,
        "same command, same bytes"
    );
    let text = String::from_utf8(first.clone()).unwrap();
    assert_eq!(text.lines().count(), 1 + 1 + 6);
    let junk = dir.path().join("junk.g6");
    std::fs::write(&junk, "D?{\n%%%\n").unwrap();
    let o = run(&["graph", "wheel:3", junk.to_str().unwrap(), "--out", p]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("junk.g6:2:"));
    assert_eq!(
        std::fs::read(&path).unwrap(),
        first,
        "the old file is intact"
    );
    let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(leftovers, 2, "nothing written aside is left");
}

#[test]
fn threads_give_the_same_output_and_memo() {
    let dir = tempfile::tempdir().unwrap();
    let mut outputs = Vec::new();
    for t in ["1", "2"] {
        let memo = dir.path().join(format!("m{t}"));
        let m = memo.to_str().unwrap();
        let out = stdout(&run(&[
            "graph",
            "--quiet",
            "--tsv",
            "--threads",
            t,
            "--memo",
            m,
            "wheel:9",
            "fan:8",
            "complete:7",
            "gmk:4,5",
        ]));
        outputs.push((out, std::fs::read(&memo).unwrap()));
    }
    assert!(outputs[0] == outputs[1]);
}

#[test]
fn a_memo_of_another_version_or_damaged_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let memo = dir.path().join("w.memo");
    let m = memo.to_str().unwrap();
    assert!(
        run(&["graph", "--quiet", "--memo", m, "wheel:11"])
            .status
            .success()
    );
    let good = std::fs::read(&memo).unwrap();
    assert_eq!(&good[..12], b"CHOMP3GM\x04\0\0\0", "magic, version 4");
    // Version 3 had this layout but keys of an earlier canonical form
    // (FORMAT.md): a memo whose version field says 3, with a valid checksum.
    let mut version3 = good.clone();
    version3[8] = 3;
    let body = good.len() - 4;
    let crc = crc32fast::hash(&version3[..body]).to_le_bytes();
    version3[body..].copy_from_slice(&crc);
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 0x10;
    let mut longer = good.clone();
    longer.push(0);
    let cases = [
        ("version 3", version3, "version 3"),
        ("a flipped bit", flipped, "checksum"),
        ("cut short", good[..good.len() - 7].to_vec(), "truncated"),
        ("cut in the header", good[..10].to_vec(), "truncated"),
        ("a byte too many", longer, "checksum"),
        ("not a memo", b"hello".to_vec(), "not a graph memo"),
    ];
    for (what, bytes, says) in cases {
        std::fs::write(&memo, &bytes).unwrap();
        let o = run(&["graph", "--quiet", "--memo", m, "wheel:11"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{what}: {err}");
        assert_eq!(err.lines().count(), 1, "{what}: {err}");
        assert!(err.contains(says) && err.contains(m), "{what}: {err}");
        assert!(o.stdout.is_empty(), "{what}: no value from a refused memo");
        assert_eq!(
            std::fs::read(&memo).unwrap(),
            bytes,
            "{what}: the file is kept"
        );
    }
}

#[test]
fn graph_figures_are_drawn_from_the_files_the_command_writes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let summary = d.join("small-graphs.tsv");
    let cost = d.join("wheel-cost.tsv");
    stdout(&run(&[
        "graph",
        "--quiet",
        "geng:1..5",
        "--summary",
        "--out",
        summary.to_str().unwrap(),
    ]));
    stdout(&run(&[
        "graph",
        "--quiet",
        "wheel:3..7",
        "--tsv",
        "--cost",
        "--out",
        cost.to_str().unwrap(),
    ]));
    let out = d.join("plots");
    let plot = || {
        let (d, o) = (d.to_str().unwrap(), out.to_str().unwrap());
        run(&["plot", "--graphs", d, "--out", o])
    };
    stdout(&plot());
    for name in ["graph-values.png", "wheels.png"] {
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(out.join(name)).unwrap(),
        ));
        let info = decoder.read_info().unwrap();
        assert_eq!(
            (info.info().width, info.info().height),
            (1200, 900),
            "{name}"
        );
    }
    // A file that is not a summary is named, with its line.
    let good_summary = std::fs::read(&summary).unwrap();
    std::fs::write(&summary, "vertices\tgraphs\n3\tx\n").unwrap();
    let o = plot();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    assert!(err.contains("small-graphs.tsv: line 2"), "{err}");
    // A single wheel's cost file is read too (a bad one is named).
    std::fs::write(&summary, good_summary).unwrap();
    std::fs::write(d.join("wheel-9-cost.tsv"), "source\tvertices\nwheel:9\tx\n").unwrap();
    let o = plot();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    assert!(err.contains("wheel-9-cost.tsv: line 2"), "{err}");
}

#[test]
fn ctrl_c_keeps_the_memo_and_the_same_command_continues() {
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let (memo, out) = (dir.path().join("w.memo"), dir.path().join("w.tsv"));
    let (m, o) = (memo.to_str().unwrap(), out.to_str().unwrap());
    let args = [
        "graph", "--quiet", "--tsv", "--memo", m, "--out", o, "wheel:15",
    ];
    // W_15 takes seconds: stop it after one.
    let child = Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    ctrl_c_after_a_second(child.id());
    let done = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert_eq!(
        done.status.code(),
        Some(130),
        "finished before the signal? {err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("not written") && err.contains("continues"),
        "{err}"
    );
    assert!(!out.exists(), "no output file from a stopped run");
    let saved: usize = err
        .split("the memo (")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of saved positions in {err}"));
    assert!(saved > 0, "{err}");
    // The same command again loads every saved position and ends with what a
    // run from an empty memo writes.
    let again = Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args(args)
        .arg("--stats")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{err}");
    assert!(err.contains(&format!("({saved} loaded)")), "{err}");
    let resumed = std::fs::read_to_string(&out).unwrap();
    let fresh = stdout(&run(&["graph", "--quiet", "--tsv", "wheel:15"]));
    assert_eq!(
        resumed.lines().skip(1).collect::<Vec<_>>(),
        fresh.lines().collect::<Vec<_>>()
    );
}

#[test]
fn ctrl_c_stops_the_subgraph_enumeration_too() {
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.tsv");
    // Listing W_16's subgraphs alone takes many minutes.
    let mut child = Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args([
            "graph",
            "--quiet",
            "wheel:16",
            "--subgraphs",
            "--os85",
            "--out",
        ])
        .arg(&out)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    ctrl_c_after_a_second(child.id());
    // Not a timing test: a generous bound, so that a run that ignores the
    // signal fails instead of hanging the suite.
    let waited = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if waited.elapsed().as_secs() > 120 {
            child.kill().unwrap();
            panic!("Ctrl-C was ignored while listing subgraphs");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let done = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(!out.exists());
}

/// Sends SIGINT (Ctrl-C) to `pid` one second from now.
fn ctrl_c_after_a_second(pid: u32) {
    std::thread::sleep(std::time::Duration::from_secs(1));
    let sent = std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

#[test]
fn a_bad_family_is_refused_in_one_line_naming_what_it_takes() {
    // Bug found in review: bipartite with three parts fell through to "unknown
    // family" while the message listed bipartite among the known ones.
    let cases = [
        ("bipartite:1,2,3", "bipartite takes two numbers a,b"),
        ("wheel:2", "a wheel's rim has at least 3 vertices"),
        ("gmk:1", "gmk takes m,k or m,k,c"),
        ("foo:3", "unknown family \"foo\""),
        ("wheel:5..3", "the range 5..3 is empty"),
    ];
    for (spec, want) in cases {
        let o = run(&["graph", spec]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{spec}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{spec}: {err}");
        assert!(err.contains(want), "{spec}: {err}");
        assert!(o.stdout.is_empty(), "{spec}");
    }
    // The unknown-family message, the command's help and its section of
    // doc/cli.md name every family (one list in the code:
    // graph::family::FAMILIES).
    let err = String::from_utf8_lossy(&run(&["graph", "foo:3"]).stderr).to_string();
    let help = stdout(&run(&["graph", "--help"]));
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../doc/cli.md")).unwrap();
    let section = doc
        .split("\n## chomp3 graph\n")
        .nth(1)
        .expect("doc/cli.md has a section `## chomp3 graph`");
    let section = section.split("\n## ").next().unwrap();
    for f in chomp3::graph::family::FAMILIES {
        let spec = format!("{}:{}", f.name, f.args);
        assert!(err.contains(&spec), "error lacks {spec}");
        assert!(help.replace('\n', " ").contains(&spec), "help lacks {spec}");
        assert!(
            section.contains(&format!("`{spec}`")),
            "doc/cli.md's section on chomp3 graph lacks `{spec}`"
        );
        // And each family builds (small members).
        let small = spec
            .replace("m,k[,c]", "1,2")
            .replace("a,b,...", "1,2,3")
            .replace("a,b", "2,3")
            .replace(":n", ":5");
        let o = run(&["graph", &small]);
        assert!(
            o.status.success(),
            "{small}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn a_multigraph_is_answered_as_given_with_every_move() {
    // Edge lists with parallel edges and loops listed more than once: the
    // counts are the list's, and every move (one copy of an edge or loop, or
    // a vertex) is listed with the brute-force value of what it leaves.
    let dir = tempfile::tempdir().unwrap();
    let mut rng = graph_common::Rng(0x51ed_2701);
    for case in 0..40 {
        let n = 2 + (rng.next() % 3) as usize;
        let mut edges: Vec<(usize, usize)> = vec![(0, 0), (0, 1), (0, 1)];
        if case > 0 {
            edges = (0..2 + rng.next() % 5)
                .map(|_| {
                    (
                        (rng.next() % n as u64) as usize,
                        (rng.next() % n as u64) as usize,
                    )
                })
                .collect();
            edges.push(edges[0]);
        }
        let n = if case == 0 { 2 } else { n };
        let file = dir.path().join(format!("m{case}.txt"));
        let text: String = edges.iter().map(|(u, v)| format!("{u} {v}\n")).collect();
        // An edge list names its vertices by the edges: give the last one an edge.
        let text = format!("{text}{} {}\n", n - 1, n - 1);
        edges.push((n - 1, n - 1));
        std::fs::write(&file, &text).unwrap();
        let m = Multigraph {
            n,
            edges: edges.clone(),
        };
        let mut brute = Brute::new(n);
        let out = stdout(&run(&[
            "graph",
            "--edges",
            file.to_str().unwrap(),
            "--moves",
        ]));
        let mut lines = out.lines();
        let head = lines.next().unwrap();
        let want = format!(
            "g = {} ({n} vertices, {} edges",
            brute.value_of(&m),
            edges.len()
        );
        assert!(head.contains(&want), "{text}: {head}");
        let mut distinct: Vec<(usize, usize)> =
            edges.iter().map(|&(u, v)| (u.min(v), u.max(v))).collect();
        distinct.sort();
        distinct.dedup();
        let moves: Vec<&str> = lines.collect();
        assert_eq!(moves.len(), distinct.len() + n, "{text}: {out}");
        for (u, v) in distinct {
            let mut left = m.clone();
            let at = left
                .edges
                .iter()
                .position(|&(a, b)| (a.min(b), a.max(b)) == (u, v))
                .unwrap();
            left.edges.remove(at);
            let name = match u == v {
                true => format!("delete the loop at {u} -> {}", brute.value_of(&left)),
                false => format!("delete edge {u}-{v} -> {}", brute.value_of(&left)),
            };
            assert!(
                moves.iter().any(|l| l.contains(&name)),
                "{text}: {name} in {out}"
            );
        }
        for x in 0..n {
            let left = Multigraph {
                n: n - 1,
                edges: edges
                    .iter()
                    .filter(|&&(u, v)| u != x && v != x)
                    .map(|&(u, v)| (u - usize::from(u > x), v - usize::from(v > x)))
                    .collect(),
            };
            let name = format!("delete vertex {x} -> {}", brute.value_of(&left));
            assert!(
                moves.iter().any(|l| l.contains(&name)),
                "{text}: {name} in {out}"
            );
        }
    }
}

/// A b-file output at a file of another kind is refused as that kind, not
/// as a b-file of more terms that `--replace` would replace.
#[test]
fn a_bfile_output_at_another_kind_of_file_is_named_for_its_kind() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("gc.tsv");
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../data/grundy-census-40/grundy-census.tsv"
        ),
        &other,
    )
    .unwrap();
    let before = std::fs::read(&other).unwrap();
    let b = other.to_str().unwrap();
    for replace in [false, true] {
        let mut args = vec!["graph", "--quiet", "geng:4", "--summary", "--bfile", b];
        if replace {
            args.push("--replace");
        }
        let o = run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains("is a Grundy census with patterns, not a graph Chomp b-file"),
            "{err}"
        );
        assert!(!err.contains("terms"), "{err}");
    }
    assert_eq!(std::fs::read(&other).unwrap(), before);
}

/// The complete graph `K_n` has nim-value `n mod 3` (doc/graphs.md section 3,
/// [FS91; KY]); every one up to the 64 vertices chomp3 takes answers at
/// once (its every labelling is the same graph: no canonical search).
#[test]
fn complete_graphs_have_value_n_mod_3_up_to_64_vertices() {
    let started = std::time::Instant::now();
    let names: Vec<String> = (1..=64).map(|n| format!("complete:{n}")).collect();
    let mut args = vec!["graph"];
    args.extend(names.iter().map(String::as_str));
    let out = run(&args);
    let said = stdout(&out);
    assert!(out.status.success(), "{said}");
    for n in 1..=64 {
        let line = format!("complete:{n}: g = {} (", n % 3);
        assert!(said.contains(&line), "K_{n}: {said}");
    }
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}

/// A dense graph on 64 vertices, whose solve goes some thousand moves deep
/// at once, once overflowed the stack of the thread solving it (an abort):
/// it now runs until stopped, and Ctrl-C ends it with the usual line.
#[test]
fn a_solve_a_thousand_moves_deep_runs_until_it_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dense.txt");
    // 1,200 distinct edges on 64 vertices, by a fixed linear congruence.
    let mut seen = std::collections::BTreeSet::new();
    let mut x: u64 = 12345;
    while seen.len() < 1200 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let (u, v) = ((x >> 33) % 64, (x >> 13) % 64);
        if u != v {
            seen.insert((u.min(v), u.max(v)));
        }
    }
    let text: String = seen.iter().map(|(u, v)| format!("{u} {v}\n")).collect();
    std::fs::write(&path, text).unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args(["graph", "--edges", path.to_str().unwrap()])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    let pid = child.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
}

/// A file of graph6 lines compressed with xz is read as every text input
/// is: decompressed under a name ending in `.xz`, named as compressed under
/// another.
#[test]
fn a_compressed_graph_file_is_read_by_its_name() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let lines = b"Bw\nCF\nC~\n";
    let plain = dir.path().join("g.txt");
    std::fs::write(&plain, lines).unwrap();
    let mut packed = Vec::new();
    let mut xz = xz2::write::XzEncoder::new(&mut packed, 1);
    xz.write_all(lines).unwrap();
    xz.finish().unwrap();
    let (named, unnamed) = (dir.path().join("g.txt.xz"), dir.path().join("h.txt"));
    std::fs::write(&named, &packed).unwrap();
    std::fs::write(&unnamed, &packed).unwrap();
    let want = stdout(&run(&["graph", plain.to_str().unwrap()]));
    assert_eq!(want.lines().count(), 3, "{want}");
    assert_eq!(stdout(&run(&["graph", named.to_str().unwrap()])), want);
    let out = run(&["graph", unnamed.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("h.txt: this file is compressed with xz, but its name does not end in .xz"),
        "{err}"
    );
    // On standard input, as graph6 lines or an edge list, it is named as
    // compressed too (a pipe has no name to read it by), in one line.
    let mut edges = Vec::new();
    let mut xz = xz2::write::XzEncoder::new(&mut edges, 1);
    xz.write_all(b"0 1\n1 2\n").unwrap();
    xz.finish().unwrap();
    for (args, input) in [
        (vec!["graph", "-"], &packed),
        (vec!["graph", "--edges", "-"], &edges),
    ] {
        let out = chomp3_with_input(&args, input);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(
            err,
            "chomp3: error: standard input is compressed with xz: pipe it through xz -dc, or give the file by its name ending in .xz\n",
            "{args:?}"
        );
    }
    // Fewer bytes than the mark of xz are read as they are.
    let out = chomp3_with_input(&["graph", "-"], "Bw");
    assert_eq!(
        stdout(&out),
        stdout(&run(&["graph", plain.to_str().unwrap()]))
            .lines()
            .next()
            .unwrap()
            .to_string()
            + "\n"
    );
}
