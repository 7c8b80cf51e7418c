//! Graph Chomp against sources outside the solver: a brute-force solver written
//! from the game's rules (labelled multigraphs, no canonical forms, no
//! reductions), and the results of doc/graphs.md section 3.

use chomp3::graph::family::build;
use chomp3::graph::{Graph, Multigraph, Solver};

use crate::graph_common;
use graph_common::{Brute, Rng, chomp3_with_input};

#[test]
fn every_graph_on_up_to_6_vertices_agrees_with_brute_force() {
    let solver = Solver::new();
    for n in 0..=6usize {
        let mut brute = Brute::new(n);
        let pairs: Vec<(usize, usize)> = (0..n)
            .flat_map(|u| (u + 1..n).map(move |v| (u, v)))
            .collect();
        for mask in 0u32..1 << pairs.len() {
            let edges: Vec<(usize, usize)> = (0..pairs.len())
                .filter(|&i| mask >> i & 1 == 1)
                .map(|i| pairs[i])
                .collect();
            let m = Multigraph { n, edges };
            let want = brute.value_of(&m);
            assert_eq!(solver.value(&Graph::from_multigraph(&m)), want, "{m:?}");
        }
    }
}

#[test]
fn random_graphs_on_7_vertices_agree_with_brute_force() {
    // Graphs on 7 vertices go through the solver's table of classes.
    let mut rng = Rng(0x5851f42d4c957f2d);
    let solver = Solver::new();
    let mut brute = Brute::new(7);
    let pairs: Vec<(usize, usize)> = (0..7)
        .flat_map(|u| (u + 1..7).map(move |v| (u, v)))
        .collect();
    for _ in 0..40 {
        // Six to twelve edges: brute force is exponential in them.
        let e = 6 + (rng.next() % 7) as usize;
        let mut edges = pairs.clone();
        for i in 0..e {
            let j = i + (rng.next() % (edges.len() - i) as u64) as usize;
            edges.swap(i, j);
        }
        edges.truncate(e);
        let m = Multigraph { n: 7, edges };
        let want = brute.value_of(&m);
        assert_eq!(solver.value(&Graph::from_multigraph(&m)), want, "{m:?}");
    }
}

#[test]
fn random_multigraphs_with_loops_agree_with_brute_force() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let solver = Solver::new();
    for _ in 0..60 {
        let n = 1 + (rng.next() % 5) as usize;
        let e = (rng.next() % 7) as usize;
        let edges: Vec<(usize, usize)> = (0..e)
            .map(|_| {
                (
                    (rng.next() % n as u64) as usize,
                    (rng.next() % n as u64) as usize,
                )
            })
            .collect();
        let m = Multigraph { n, edges };
        let want = Brute::new(n).value_of(&m);
        assert_eq!(solver.value(&Graph::from_multigraph(&m)), want, "{m:?}");
    }
}

#[test]
fn bipartite_graphs_and_forests_have_the_parity_value_by_brute_force() {
    // The solver uses this theorem, so it is checked here by brute force only.
    let mut rng = Rng(12345);
    for _ in 0..40 {
        let (a, b) = (1 + (rng.next() % 4) as usize, 1 + (rng.next() % 4) as usize);
        let n = a + b;
        let edges: Vec<(usize, usize)> = (0..a)
            .flat_map(|u| (a..n).map(move |v| (u, v)))
            .filter(|_| rng.next().is_multiple_of(3))
            .collect();
        let m = Multigraph { n, edges };
        let g = Graph::from_multigraph(&m);
        assert_eq!(Brute::new(n).value_of(&m), g.parity_value(), "{m:?}");
    }
    // Forests [KY Table 1]: (even v, even trees) 0, (even, odd) 2, (odd, even) 3,
    // (odd, odd) 1. Two paths on 2 and 3 vertices: v = 5, two trees: 3.
    let forest = Multigraph {
        n: 5,
        edges: vec![(0, 1), (2, 3), (3, 4)],
    };
    assert_eq!(Brute::new(5).value_of(&forest), 3);
    let one_tree = Multigraph {
        n: 4,
        edges: vec![(0, 1), (1, 2), (1, 3)],
    };
    assert_eq!(Brute::new(4).value_of(&one_tree), 2);
}

#[test]
fn complete_and_complete_multipartite_graphs() {
    let s = Solver::new();
    for n in 1..=8 {
        assert_eq!(
            s.value(&build(&format!("complete:{n}")).unwrap()),
            n as u32 % 3,
            "K_{n}"
        );
    }
    for parts in [
        vec![1, 2],
        vec![1, 2, 3],
        vec![3, 3, 1],
        vec![2, 2, 2],
        vec![1, 1, 3, 2],
        vec![3, 1, 1, 1],
    ] {
        let spec = format!(
            "multipartite:{}",
            parts
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        let odd = parts.iter().filter(|&&p| p % 2 == 1).count() as u32;
        assert_eq!(s.value(&build(&spec).unwrap()), odd % 3, "{spec}");
    }
}

#[test]
fn cycles_loops_parallel_edges_and_pendant_odd_cycles() {
    let s = Solver::new();
    for n in 3..=12 {
        assert_eq!(s.value(&build(&format!("cycle:{n}")).unwrap()), 0, "C_{n}");
    }
    // The triangle has two options up to isomorphism, with values 1 and 2.
    let mut values: Vec<u32> = s
        .moves(&build("cycle:3").unwrap())
        .iter()
        .map(|m| m.1)
        .collect();
    values.sort();
    values.dedup();
    assert_eq!(values, [1, 2]);
    let loop_vertex = Multigraph {
        n: 1,
        edges: vec![(0, 0)],
    };
    assert_eq!(s.value(&Graph::from_multigraph(&loop_vertex)), 2);
    for m in 1..=5 {
        let parallel = Multigraph {
            n: 2,
            edges: vec![(0, 1); m],
        };
        let want = if m % 2 == 1 { 2 } else { 0 }; // one edge (P_2) or none (two vertices)
        assert_eq!(
            s.value(&Graph::from_multigraph(&parallel)),
            want,
            "{m} parallel edges"
        );
        assert_eq!(Brute::new(2).value_of(&parallel), want);
    }
    // An odd cycle with one pendant vertex has value 4 [KY; OS Fig. 5].
    for c in [3usize, 5, 7, 9] {
        let mut edges: Vec<(usize, usize)> = (0..c).map(|i| (i, (i + 1) % c)).collect();
        edges.push((0, c));
        assert_eq!(
            s.value(&Graph::from_edges(c + 1, &edges)),
            4,
            "{c}-cycle with a pendant"
        );
    }
}

#[test]
fn the_k2_plus_k1_trap() {
    // Swapping the edge's ends fixes the edge but not its ends: a symmetry
    // reduction that ignored the condition would answer g(K_1) = 1.
    let g = Multigraph {
        n: 3,
        edges: vec![(0, 1)],
    };
    assert_eq!(Brute::new(3).value_of(&g), 3);
    assert_eq!(Solver::new().value(&Graph::from_multigraph(&g)), 3);
    // The same trap inside one component: in the paw (a triangle 0 1 2 with 3
    // hanging at 0) swapping 1 and 2 is an involutive automorphism, but the
    // edge 1-2 joins them; ignoring that would answer g(K_2) = 2.
    let paw = Multigraph {
        n: 4,
        edges: vec![(0, 1), (1, 2), (2, 0), (0, 3)],
    };
    assert_eq!(Brute::new(4).value_of(&paw), 4);
    assert_eq!(Solver::new().value(&Graph::from_multigraph(&paw)), 4);
}

#[test]
fn the_symmetry_lemma_where_it_applies() {
    // Two triangles sharing vertex 0, and the same with a pendant at 0 or a
    // pendant at each of 1 and 3: each has a mirror (swap the triangles) whose
    // fixed part is vertex 0 (and its pendant). The solver reduces by the lemma
    // [KY Thm 1; OS Lemma 2.1]; the brute force plays every move.
    let bowtie = vec![(0, 1), (1, 2), (2, 0), (0, 3), (3, 4), (4, 0)];
    let cases = [
        (5, bowtie.clone()),
        (6, [bowtie.clone(), vec![(0, 5)]].concat()),
        (7, [bowtie, vec![(1, 5), (3, 6)]].concat()),
    ];
    let s = Solver::new();
    for (n, edges) in cases {
        let m = Multigraph { n, edges };
        let want = Brute::new(n).value_of(&m);
        assert_eq!(s.value(&Graph::from_multigraph(&m)), want, "{m:?}");
    }
}

/// doc/graphs.md section 3: g(G_{m,k}) for 1 <= m, k <= 12, the same for every odd cycle.
const GMK: [[u32; 12]; 12] = [
    [4, 6, 4, 8, 10, 8, 12, 14, 12, 16, 18, 16],
    [6, 4, 6, 10, 8, 10, 14, 12, 14, 18, 16, 18],
    [4, 6, 4, 8, 10, 8, 12, 14, 12, 16, 18, 16],
    [8, 10, 8, 4, 6, 4, 16, 18, 16, 12, 14, 12],
    [10, 8, 10, 6, 4, 6, 18, 16, 18, 14, 12, 14],
    [8, 10, 8, 4, 6, 4, 16, 18, 16, 12, 14, 12],
    [12, 14, 12, 16, 18, 16, 4, 6, 4, 8, 10, 8],
    [14, 12, 14, 18, 16, 18, 6, 4, 6, 10, 8, 10],
    [12, 14, 12, 16, 18, 16, 4, 6, 4, 8, 10, 8],
    [16, 18, 16, 12, 14, 12, 8, 10, 8, 4, 6, 4],
    [18, 16, 18, 14, 12, 14, 10, 8, 10, 6, 4, 6],
    [16, 18, 16, 12, 14, 12, 8, 10, 8, 4, 6, 4],
];

#[test]
fn the_whole_g_mk_table_for_two_cycle_lengths() {
    let s = Solver::new();
    for c in [3, 5] {
        for m in 1..=12 {
            for k in 1..=12 {
                let g = build(&format!("gmk:{m},{k},{c}")).unwrap();
                assert_eq!(
                    s.value(&g),
                    GMK[m - 1][k - 1],
                    "G_{{{m},{k}}} on a {c}-cycle"
                );
            }
        }
    }
}

#[test]
fn small_wheels_have_value_1() {
    // [KY Conj. 3]: g(W_n) = 1; by hand to W_7 [KY].
    let s = Solver::new();
    for n in 3..=7 {
        assert_eq!(s.value(&build(&format!("wheel:{n}")).unwrap()), 1, "W_{n}");
    }
}

#[test]
fn even_wheels_fall_to_the_symmetry_lemma() {
    // g(W_n) = 1 for even n is a theorem ([KY], doc/graphs.md section 4: the
    // half-turn of the rim is a mirror fixing the hub alone). The solver finds
    // a mirror at the first position (for W_4, two false twins), so even W_30
    // costs at most one memo entry.
    for n in [4, 10, 20, 30] {
        let s = Solver::new();
        assert_eq!(s.value(&build(&format!("wheel:{n}")).unwrap()), 1, "W_{n}");
        assert!(s.memo_len() <= 1, "W_{n} was searched, not reduced");
    }
}

#[test]
fn the_graph_command_reads_families_and_graph6_and_names_a_bad_line() {
    // A 5-vertex path, a triangle with an edge and two isolated vertices, then junk.
    let out = chomp3_with_input(
        &["graph", "--quiet", "--tsv", "wheel:4", "-"],
        "DQc\n:Fa@x^\nD Q\n",
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout,
        "source\tvertices\tedges\tvalue\nwheel:4\t5\t8\t1\nDQc\t5\t4\t1\n:Fa@x^\t7\t4\t2\n"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(err.starts_with("chomp3: error: stdin:3: "), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// A newline or tab in an edge list's file name splits no record: the label
/// is the path quoted as the shell reads it back, and names the file.
#[test]
fn an_edge_list_named_with_a_newline_is_one_record() {
    let dir = tempfile::tempdir().unwrap();
    let name = "p\n3\t.txt";
    std::fs::write(dir.path().join(name), "0 1\n1 2\n").unwrap();
    let out = crate::common::chomp3_in(dir.path(), &["graph", "--quiet", "--tsv", "--edges", name]);
    assert!(out.status.success(), "{out:?}");
    // The path on 3 vertices: 1, as every path on an odd number [OS Prop 1.1].
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "source\tvertices\tedges\tvalue\n$'p\\n3\\t.txt'\t3\t2\t1\n"
    );
}

#[test]
fn an_edge_list_on_standard_input_is_read_once() {
    // The path on 3 vertices: 1, as every path on an odd number [OS Prop 1.1].
    let out = chomp3_with_input(&["graph", "--quiet", "--tsv", "--edges", "-"], "0 1\n1 2\n");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "source\tvertices\tedges\tvalue\nstdin\t3\t2\t1\n"
    );
    assert!(out.status.success());
    for args in [
        &["graph", "--edges", "-", "-"][..],
        &["graph", "--edges", "-", "--edges", "-"],
    ] {
        let out = chomp3_with_input(args, "0 1\n");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("standard input (-) is given more than once"),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn subgraph_labels_read_back_as_the_graphs_they_name() {
    // A looped subgraph is labelled in sparse6 (graph6 has no loops): every
    // label, read back, has the value printed beside it.
    let tsv = |args: &[&str], input: &str| -> Vec<(String, String)> {
        let out = chomp3_with_input(args, input);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                (f[0].to_string(), f[3].to_string())
            })
            .collect()
    };
    let subs = tsv(
        &["graph", "--quiet", "--tsv", "--subgraphs", "--edges", "-"],
        "0 1\n1 1\n1 2\n2 2\n",
    );
    assert!(subs.iter().any(|(l, _)| l.starts_with(':')), "{subs:?}");
    let labels: String = subs.iter().map(|(l, _)| format!("{l}\n")).collect();
    let again = tsv(&["graph", "--quiet", "--tsv", "-"], &labels);
    assert_eq!(again, subs);
}

#[test]
fn a_saved_memo_reloads_to_the_same_values_and_bytes() {
    let s = Solver::new();
    for spec in ["wheel:7", "gmk:3,4", "complete:6", "fan:6"] {
        s.value(&build(spec).unwrap());
    }
    let mut bytes = Vec::new();
    s.save(&mut bytes).unwrap();
    let again = Solver::load(&mut bytes.as_slice()).unwrap();
    assert_eq!(again.memo_len(), s.memo_len());
    let mut bytes2 = Vec::new();
    again.save(&mut bytes2).unwrap();
    assert!(bytes == bytes2, "the same memo gives the same bytes");
    // Reloaded values answer without new work, and equal a fresh solver's.
    let before = again.memo_len();
    assert_eq!(again.value(&build("wheel:7").unwrap()), 1);
    assert_eq!(again.value(&build("complete:6").unwrap()), 0);
    assert_eq!(again.memo_len(), before);
    assert_eq!(again.value(&build("gmk:3,4").unwrap()), GMK[2][3]);
    let mut bad = bytes.clone();
    bad[30] ^= 1;
    assert!(
        Solver::load(&mut bad.as_slice()).is_err(),
        "damage is refused"
    );
}

#[test]
fn memo_keys_keep_loops_and_edges_apart() {
    // Graphs with loops, saved and reloaded: the reloaded memo answers them
    // without new work, and answers the same graphs without their loops (not
    // in the memo) as the brute force does: a key that lost its loops would
    // give the looped value.
    let mut rng = Rng(0x5eed);
    let looped: Vec<Multigraph> = (0..40)
        .map(|_| {
            let n = 3 + (rng.next() % 4) as usize;
            let mut edges: Vec<(usize, usize)> = (0..n)
                .flat_map(|u| (u + 1..n).map(move |v| (u, v)))
                .filter(|_| !rng.next().is_multiple_of(3))
                .collect();
            edges.push((0, 0));
            edges.extend(
                (1..n)
                    .filter(|_| rng.next().is_multiple_of(2))
                    .map(|v| (v, v)),
            );
            Multigraph { n, edges }
        })
        .collect();
    let s = Solver::new();
    let values: Vec<u32> = looped
        .iter()
        .map(|m| s.value(&Graph::from_multigraph(m)))
        .collect();
    for (m, &v) in looped.iter().zip(&values) {
        assert_eq!(v, Brute::new(m.n).value_of(m), "{m:?}");
    }
    let mut bytes = Vec::new();
    s.save(&mut bytes).unwrap();
    let again = Solver::load(&mut bytes.as_slice()).unwrap();
    let before = again.memo_len();
    for (m, &v) in looped.iter().zip(&values) {
        assert_eq!(again.value(&Graph::from_multigraph(m)), v, "{m:?}");
    }
    assert_eq!(again.memo_len(), before, "reloaded keys are found again");
    for m in &looped {
        let plain = Multigraph {
            n: m.n,
            edges: m.edges.iter().copied().filter(|(u, v)| u != v).collect(),
        };
        let want = Brute::new(plain.n).value_of(&plain);
        assert_eq!(
            again.value(&Graph::from_multigraph(&plain)),
            want,
            "{plain:?}"
        );
    }
}

#[test]
fn the_summary_counts_by_number_of_vertices() {
    // The four graphs on 3 vertices: empty (1 xor 1 xor 1 = 1), an edge and a
    // vertex (2 xor 1 = 3), the path (bipartite, p = 1), the triangle (0).
    let out = chomp3_with_input(
        &["graph", "--quiet", "--summary", "-"],
        "B?\nB_\nBg\nBw\n@\n",
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "vertices\tgraphs\tP-positions\tnon-bipartite\tnon-bipartite with g != p(G)\tvalue:count\n\
         1\t1\t0\t0\t0\t1:1\n\
         3\t4\t1\t1\t1\t0:1,1:2,3:1\n"
    );
}

#[test]
fn the_three_small_exceptions_to_os_conjecture_8_5() {
    // Each has p(G) = 2 and, by brute force, no edge deletion to value 0.
    let exceptions = ["EQjw", "ETnw", "E~~w"];
    for g6 in exceptions {
        let m = chomp3::graph::format::parse_line(g6).unwrap();
        let g = Graph::from_multigraph(&m);
        assert_eq!(g.parity_value(), 2, "{g6}");
        for i in 0..m.edges.len() {
            let mut fewer = m.clone();
            fewer.edges.remove(i);
            assert_ne!(Brute::new(m.n).value_of(&fewer), 0, "{g6} less edge {i}");
        }
    }
    // The command prints exactly those, not EhKG (a triangle with two pendant
    // paths: 6 edges, so p = 0).
    let input = format!("{}\nEhKG\n{}\nE~~w\n", exceptions[0], exceptions[1]);
    let out = chomp3_with_input(&["graph", "--quiet", "--os85", "-"], &input);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let printed: Vec<&str> = stdout
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(printed, exceptions);
    assert_eq!(
        stdout.lines().last(),
        Some("# 4 graphs checked, 3 with p(G) = 2, 3 without an edge deletion to 0")
    );
}

#[test]
fn a_batch_solved_in_parallel_agrees_with_brute_force() {
    // The batch job of `chomp3 graph` and Python's `nim_values`: each value
    // is the brute force's, and with moves the value is the mex of the
    // options' values, each the brute force's value of that option.
    let mut rng = Rng(0x2545f4914f6cdd1d);
    let graphs: Vec<Multigraph> = (0..40)
        .map(|_| {
            let n = 1 + (rng.next() % 5) as usize;
            let e = (rng.next() % 7) as usize;
            let edges = (0..e)
                .map(|_| {
                    let u = (rng.next() % n as u64) as usize;
                    (u, (rng.next() % n as u64) as usize)
                })
                .collect();
            Multigraph { n, edges }
        })
        .collect();
    let simple: Vec<Graph> = graphs.iter().map(Graph::from_multigraph).collect();
    let batch: Vec<_> = simple
        .iter()
        .zip(&graphs)
        .map(|(g, m)| (g, Some(m)))
        .collect();
    let solver = Solver::new();
    let solved = solver.try_batch(&batch, true).unwrap();
    assert_eq!(solved.len(), graphs.len());
    for (m, s) in graphs.iter().zip(&solved) {
        let mut brute = Brute::new(m.n);
        assert_eq!(s.value, brute.value_of(m), "{m:?}");
        let moves = s.moves.as_ref().unwrap();
        let option_values: Vec<u32> = m.options().iter().map(|(_, h)| brute.value_of(h)).collect();
        let got: Vec<u32> = moves.iter().map(|&(_, v)| v).collect();
        assert_eq!(got, option_values, "{m:?}");
        let mex = (0..).find(|v| !got.contains(v)).unwrap();
        assert_eq!(s.value, mex, "{m:?}");
    }
    let values = solver.try_batch(&batch[..5], false).unwrap();
    assert!(values.iter().all(|s| s.moves.is_none()));
}
