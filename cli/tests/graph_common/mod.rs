//! Shared by the graph tests: a brute-force solver written from the game's rules
//! (labelled multigraphs, no canonical forms, no reductions), the binary with
//! piped input, and a reproducible random generator.
#![allow(dead_code)]

use std::collections::HashMap;

use chomp3::graph::Multigraph;

/// Brute force: a position is the set of vertices left and the multiplicity of
/// every pair `(u, v)`, `u <= v` (loops included). Its value is the mex over
/// deleting one copy of one edge, or one vertex with every edge at it.
pub struct Brute {
    n: usize,
    memo: HashMap<(u64, Vec<u8>), u32>,
}

impl Brute {
    pub fn new(n: usize) -> Brute {
        Brute {
            n,
            memo: HashMap::new(),
        }
    }

    fn pairs(&self) -> Vec<(usize, usize)> {
        let n = self.n;
        (0..n).flat_map(|u| (u..n).map(move |v| (u, v))).collect()
    }

    pub fn value_of(&mut self, m: &Multigraph) -> u32 {
        let pairs = self.pairs();
        let mut count = vec![0u8; pairs.len()];
        for &(u, v) in &m.edges {
            let key = (u.min(v), u.max(v));
            count[pairs.iter().position(|&p| p == key).unwrap()] += 1;
        }
        self.value((1u64 << m.n) - 1, count)
    }

    fn value(&mut self, alive: u64, count: Vec<u8>) -> u32 {
        if let Some(&v) = self.memo.get(&(alive, count.clone())) {
            return v;
        }
        let pairs = self.pairs();
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..count.len() {
            if count[i] > 0 {
                let mut c = count.clone();
                c[i] -= 1;
                seen.insert(self.value(alive, c));
            }
        }
        for v in 0..self.n {
            if alive >> v & 1 == 1 {
                let mut c = count.clone();
                for (i, &(a, b)) in pairs.iter().enumerate() {
                    if a == v || b == v {
                        c[i] = 0;
                    }
                }
                seen.insert(self.value(alive & !(1 << v), c));
            }
        }
        let mex = (0..).find(|x| !seen.contains(x)).unwrap();
        self.memo.insert((alive, count), mex);
        mex
    }
}

/// Runs `chomp3 args` with `input` on standard input.
pub fn chomp3_with_input(args: &[&str], input: impl AsRef<[u8]>) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command refused before it reads its input may have ended already.
    match child.stdin.take().unwrap().write_all(input.as_ref()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        written => written.unwrap(),
    }
    child.wait_with_output().unwrap()
}

/// A small deterministic generator (xorshift), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}
