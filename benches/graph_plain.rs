//! chomp3's graph solver against plain exact solvers of the kind people write
//! for graph Chomp: Sprague-Grundy recursion with a memo keyed on a hash of
//! cheap invariants (vertices, edges, sorted degrees) and an exact isomorphism
//! test (backtracking on degrees) inside each bucket; no canonical form, no
//! bipartite rule, no symmetry lemma. Two variants: on whole positions, and (stronger) with xor
//! over connected components, each component memoised.
//!
//! `cargo bench --bench graph_plain` (needs `nauty-geng`, Debian's nauty). Both
//! solvers run on the same workloads in one process, interleaved, each
//! repetition from an empty memo; the medians are printed with the speed-up,
//! and every value of the two solvers is compared. Last, per workload, a floor
//! for any solver that identifies its inputs exactly: chomp3 answering with
//! every answer already in its memo, and how far the plain solver is above it.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::process::Command;
use std::time::Instant;

use chomp3::graph::format::parse_line;
use chomp3::graph::{Graph, Solver, family};
use rayon::prelude::*;

/// A simple graph as adjacency bitsets.
#[derive(Clone, PartialEq, Eq)]
struct Plain {
    adj: Vec<u64>,
}

impl Plain {
    fn from(g: &Graph) -> Plain {
        let mut adj = vec![0u64; g.vertices()];
        for (u, v) in g.edge_list() {
            assert_ne!(u, v, "the plain solver takes simple graphs");
            adj[u] |= 1 << v;
            adj[v] |= 1 << u;
        }
        Plain { adj }
    }

    fn degrees(&self) -> Vec<u32> {
        self.adj.iter().map(|a| a.count_ones()).collect()
    }

    fn induced(&self, keep: u64) -> Plain {
        let vs: Vec<usize> = (0..self.adj.len()).filter(|v| keep >> v & 1 == 1).collect();
        let adj = vs
            .iter()
            .map(|&u| {
                vs.iter()
                    .enumerate()
                    .filter(|&(_, &v)| self.adj[u] >> v & 1 == 1)
                    .fold(0, |a, (j, _)| a | 1 << j)
            })
            .collect();
        Plain { adj }
    }

    fn components(&self) -> Vec<u64> {
        let mut seen = 0u64;
        let mut out = Vec::new();
        for s in 0..self.adj.len() {
            if seen >> s & 1 == 1 {
                continue;
            }
            let (mut comp, mut todo) = (1u64 << s, 1u64 << s);
            while todo != 0 {
                let u = todo.trailing_zeros() as usize;
                todo &= todo - 1;
                let new = self.adj[u] & !comp;
                comp |= new;
                todo |= new;
            }
            seen |= comp;
            out.push(comp);
        }
        out
    }

    fn options(&self) -> Vec<Plain> {
        let n = self.adj.len();
        let mut out = Vec::new();
        for u in 0..n {
            for v in u + 1..n {
                if self.adj[u] >> v & 1 == 1 {
                    let mut g = self.clone();
                    g.adj[u] &= !(1 << v);
                    g.adj[v] &= !(1 << u);
                    out.push(g);
                }
            }
        }
        let all = (1u64 << n) - 1;
        out.extend((0..n).map(|v| self.induced(all & !(1 << v))));
        out
    }

    /// The bucket: vertices, edges and the sorted degree sequence.
    fn invariant_hash(&self) -> u64 {
        let mut d = self.degrees();
        d.sort_unstable();
        let mut h = DefaultHasher::new();
        d.hash(&mut h);
        h.finish()
    }
}

/// Exact isomorphism: map `a`'s vertices in order to unused vertices of `b` of
/// the same degree, keeping adjacency with the vertices mapped so far.
fn isomorphic(a: &Plain, b: &Plain) -> bool {
    let n = a.adj.len();
    if n != b.adj.len() {
        return false;
    }
    let (da, db) = (a.degrees(), b.degrees());
    let mut map = vec![usize::MAX; n];
    fn extend(
        i: usize,
        a: &Plain,
        b: &Plain,
        da: &[u32],
        db: &[u32],
        map: &mut [usize],
        used: u64,
    ) -> bool {
        if i == a.adj.len() {
            return true;
        }
        for c in 0..a.adj.len() {
            if used >> c & 1 == 1 || da[i] != db[c] {
                continue;
            }
            let fits = (0..i).all(|j| (a.adj[i] >> j & 1) == (b.adj[c] >> map[j] & 1));
            if fits {
                map[i] = c;
                if extend(i + 1, a, b, da, db, map, used | 1 << c) {
                    return true;
                }
            }
        }
        false
    }
    extend(0, a, b, &da, &db, &mut map, 0)
}

#[derive(Default)]
struct PlainSolver {
    memo: HashMap<u64, Vec<(Plain, u32)>>,
    /// Split positions into connected components (else memoise whole positions).
    components: bool,
}

impl PlainSolver {
    fn value(&mut self, g: &Plain) -> u32 {
        if !self.components {
            return self.connected(g);
        }
        g.components()
            .into_iter()
            .map(|c| self.connected(&g.induced(c)))
            .fold(0, |a, b| a ^ b)
    }

    fn connected(&mut self, g: &Plain) -> u32 {
        let h = g.invariant_hash();
        if let Some(bucket) = self.memo.get(&h)
            && let Some((_, v)) = bucket.iter().find(|(k, _)| isomorphic(k, g))
        {
            return *v;
        }
        let mut seen: Vec<u32> = g.options().iter().map(|o| self.value(o)).collect();
        seen.sort_unstable();
        seen.dedup();
        let mex = seen
            .iter()
            .enumerate()
            .find(|&(i, &v)| i as u32 != v)
            .map_or(seen.len(), |(i, _)| i) as u32;
        self.memo.entry(h).or_default().push((g.clone(), mex));
        mex
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Times `f` (from scratch each time) `reps` times, interleaved by the caller.
fn time<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let t = Instant::now();
    let out = f();
    (t.elapsed().as_secs_f64(), out)
}

fn main() {
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let geng = Command::new("nauty-geng")
        .args(["-q", "7"])
        .output()
        .expect("nauty-geng (Debian's nauty) is needed for the 7-vertex workload");
    let seven: Vec<Graph> = String::from_utf8(geng.stdout)
        .unwrap()
        .lines()
        .map(|l| Graph::from_multigraph(&parse_line(l).unwrap()))
        .collect();
    assert_eq!(seven.len(), 1044, "all graphs on 7 vertices");
    let wheel = |n: usize| family::build(&format!("wheel:{n}")).unwrap();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();

    println!("workload\tsolver\tmedian_s\truns_s");
    // The two target workloads, then odd wheels: an even wheel is solved at
    // once by the symmetry lemma, an odd one has no mirror and is searched.
    let workloads = [
        ("W_8", vec![wheel(8)]),
        ("all 1044 graphs on 7 vertices", seven),
        ("W_9", vec![wheel(9)]),
        ("W_11", vec![wheel(11)]),
    ];
    for (name, graphs) in workloads {
        // The whole-position variant only on the two target workloads.
        let whole = name == "W_8" || name.starts_with("all");
        let plains: Vec<Plain> = graphs.iter().map(Plain::from).collect();
        let (mut whole_t, mut plain_t, mut one_t, mut two_t) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..reps {
            let plain = |components: bool| {
                let mut s = PlainSolver {
                    components,
                    ..PlainSolver::default()
                };
                plains.iter().map(|g| s.value(g)).collect::<Vec<u32>>()
            };
            // Every one-thread run, plain or chomp3, in the same one-thread
            // pool: the same thread on the same core (a thread woken after
            // the others' milliseconds of work starts with cold caches).
            let (t, plain_values) = time(|| one.install(|| plain(true)));
            plain_t.push(t);
            if whole {
                let (t, values) = time(|| one.install(|| plain(false)));
                whole_t.push(t);
                assert!(
                    values == plain_values,
                    "{name}: the plain variants disagree"
                );
            }
            // chomp3 on a pool of one thread, then of two (same code path).
            for (pool, times) in [(&one, &mut one_t), (&two, &mut two_t)] {
                let (t, values) = time(|| {
                    pool.install(|| {
                        let s = Solver::new();
                        graphs.par_iter().map(|g| s.value(g)).collect::<Vec<u32>>()
                    })
                });
                times.push(t);
                assert!(values == plain_values, "{name}: the solvers disagree");
            }
        }
        // A floor for chomp3's way of identifying its inputs (a canonical form
        // per component; on up to 7 vertices, a class from its table): answering the same graphs with every answer already
        // in its memo (loaded afresh each time, untimed; no other cache is
        // warm).
        let mut memo = Vec::new();
        let s = Solver::new();
        let expected: Vec<u32> = one.install(|| graphs.iter().map(|g| s.value(g)).collect());
        s.save(&mut memo).unwrap();
        let known = s.memo_len();
        let mut lookup_t = Vec::new();
        for _ in 0..reps {
            let s = Solver::load(&mut &memo[..]).unwrap();
            let (t, values) = time(|| {
                one.install(|| graphs.par_iter().map(|g| s.value(g)).collect::<Vec<u32>>())
            });
            lookup_t.push(t);
            assert_eq!(s.memo_len(), known, "{name}: nothing new solved");
            assert!(values == expected, "{name}: the memo answers differently");
        }
        let show = |xs: &[f64]| {
            xs.iter()
                .map(|x| format!("{x:.6}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        let (p, o, w) = (
            median(plain_t.clone()),
            median(one_t.clone()),
            median(two_t.clone()),
        );
        if whole {
            let x = median(whole_t.clone());
            println!("{name}\tplain, whole positions\t{x:.6}\t{}", show(&whole_t));
            println!(
                "{name}\tspeed-up over plain, whole positions\t{:.1}x (1 thread), {:.1}x (2 threads)",
                x / o,
                x / w
            );
        }
        println!("{name}\tplain, by components\t{p:.6}\t{}", show(&plain_t));
        println!("{name}\tchomp3, 1 thread\t{o:.6}\t{}", show(&one_t));
        println!("{name}\tchomp3, 2 threads\t{w:.6}\t{}", show(&two_t));
        println!(
            "{name}\tspeed-up over plain, by components\t{:.1}x (1 thread), {:.1}x (2 threads)",
            p / o,
            p / w
        );
        let l = median(lookup_t.clone());
        println!(
            "{name}\tchomp3, 1 thread, every answer already in the memo\t{l:.6}\t{}",
            show(&lookup_t)
        );
        println!(
            "{name}\tplain, by components, over that floor\t{:.1}x",
            p / l
        );
    }
}
