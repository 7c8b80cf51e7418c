//! chomp3's Grundy sweep against the plain exact program people write for
//! `G(p,q,r)`: a recursion over the moves with a hash-map memo and a mex over
//! the options' values (the definition, as the test suite's brute force).
//!
//! `cargo bench --bench grundy_plain`: for each `N`, both compute `G` for every
//! position with `p <= N`, interleaved, three repetitions each from nothing;
//! the medians are printed with the speed-up, and every value is compared.

use std::collections::HashMap;
use std::time::Instant;

use chomp3::grundy::Sweep;

/// `G` by its definition, memoised.
struct Plain {
    memo: HashMap<(u32, u32, u32), u32>,
}

impl Plain {
    fn value(&mut self, p: u32, q: u32, r: u32) -> u32 {
        if let Some(&g) = self.memo.get(&(p, q, r)) {
            return g;
        }
        let mut seen = vec![false; (p + q + r) as usize + 1];
        let moves = (2..=p)
            .map(|c| (c - 1, q.min(c - 1), r.min(c - 1)))
            .chain((1..=q).map(|c| (p, c - 1, r.min(c - 1))))
            .chain((1..=r).map(|c| (p, q, c - 1)));
        for (a, b, c) in moves.collect::<Vec<_>>() {
            let v = self.value(a, b, c) as usize;
            if v < seen.len() {
                seen[v] = true;
            }
        }
        let g = seen.iter().position(|s| !s).unwrap() as u32;
        self.memo.insert((p, q, r), g);
        g
    }
}

/// Every `G(p,q,r)`, `p <= n`, in slab order.
fn plain(n: u32) -> Vec<u32> {
    let mut solver = Plain {
        memo: HashMap::new(),
    };
    let mut out = Vec::new();
    for p in 1..=n {
        for q in 0..=p {
            for r in 0..=q {
                out.push(solver.value(p, q, r));
            }
        }
    }
    out
}

fn swept(n: u32) -> Vec<u32> {
    let mut sweep = Sweep::new(n);
    let mut out = Vec::new();
    for _ in 1..=n {
        sweep.step();
        out.extend_from_slice(sweep.slab());
    }
    out
}

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn main() {
    println!("N     positions     plain (median of 3)   sweep (median of 3)   speed-up");
    for n in [20, 40, 80, 120] {
        let (mut tp, mut ts) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            let t = Instant::now();
            let a = plain(n);
            tp.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let b = swept(n);
            ts.push(t.elapsed().as_secs_f64());
            assert!(a == b, "the two disagree at N = {n}");
        }
        let (p, s) = (median(tp), median(ts));
        let positions: u64 = (1..=n as u64).map(|p| (p + 1) * (p + 2) / 2).sum();
        println!(
            "{n:<5} {positions:<13} {:>12.4} s        {:>12.6} s        {:>8.0}x",
            p,
            s,
            p / s
        );
    }
}
