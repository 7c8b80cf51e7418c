//! Helpers shared by the integration tests: the `chomp3` binary, tables made with
//! it, the reference data, and a brute-force solver written from the game's rules.
#![allow(dead_code)]

pub mod trace;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use chomp3::f::table::Table;

/// The `chomp3` binary built for these tests, run outside the repository so that
/// no default path (`data/...`) finds the repository's own files.
pub fn chomp3(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .current_dir(std::env::temp_dir())
        .args(args)
        .output()
        .expect("run chomp3")
}

/// The `chomp3` binary run in `dir`, so that its default paths (`data/...`) are
/// the ones a test laid out there.
pub fn chomp3_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run chomp3")
}

/// Runs `chomp3` and asserts that it succeeded.
pub fn chomp3_ok(args: &[&str]) -> Output {
    let out = chomp3(args);
    assert!(
        out.status.success(),
        "chomp3 {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs `chomp3 compute` into `dir/name` and returns the table path.
pub fn computed(dir: &Path, name: &str, n: u64, extra: &[&str]) -> PathBuf {
    let path = dir.join(name);
    let mut args = vec!["compute", "--quiet", "--n"];
    let n = n.to_string();
    args.push(&n);
    args.push("--table");
    let p = path.to_str().unwrap();
    args.push(p);
    args.extend_from_slice(extra);
    let out = chomp3(&args);
    assert!(
        out.status.success(),
        "compute failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

/// Runs `chomp3 census --rows ROWS` into `dir/c.tsv` and returns the census
/// descriptor file beside it, `dir/c.c3d`.
pub fn census_in(dir: &Path, rows: u64) -> PathBuf {
    let out = dir.join("c.tsv");
    let rows = rows.to_string();
    chomp3_ok(&[
        "census",
        "--quiet",
        "--rows",
        &rows,
        "--out",
        out.to_str().unwrap(),
    ]);
    dir.join("c.c3d")
}

/// Runs chomp3 with `args` in `dir`, killed (and the test failed) if it has
/// not ended within `limit` (a reader waiting on a FIFO, a drawing that spins);
/// its exit code and standard error.
pub fn chomp3_within(
    dir: &Path,
    args: &[&str],
    limit: std::time::Duration,
) -> (Option<i32>, String) {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("chomp3 {args:?} did not end within {limit:?}: it hangs");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code(), err)
}

/// Opens a table and reads `f(q, r)` for all `r <= q <= N` as `f[q][r]`.
pub fn read_all(path: &Path) -> Vec<Vec<u32>> {
    let t = Table::open(path).unwrap();
    (0..t.columns() as u32)
        .map(|q| (0..=q).map(|r| t.value(q, r).unwrap()).collect())
        .collect()
}

/// The reference table of doc/chomp.md section 2, `f[r][q]` for `q, r <= 30`. Read from
/// `../shared/reference/` when it is there, else from the copy in `tests/data/`.
pub fn reference_table() -> Vec<Vec<u32>> {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let shared = root.join("../shared/reference/f_table_30.txt");
    let path = if shared.exists() {
        shared
    } else {
        root.join("tests/data/f_table_30.txt")
    };
    let text = std::fs::read_to_string(path).unwrap();
    let mut rows = vec![Vec::new(); 31];
    for line in text.lines() {
        let Some((label, values)) = line.split_once('|') else {
            continue;
        };
        let Ok(r) = label.trim().parse::<usize>() else {
            continue;
        };
        rows[r] = values
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect();
    }
    assert!(
        rows.iter().all(|row| row.len() == 31),
        "reference table is 31 x 31"
    );
    rows
}

/// P/N status of every position `[p,q,r]` with `p >= q >= r >= 0` and
/// `1 <= p <= max_p`, from doc/chomp.md section 1 alone: a position is P exactly when no
/// move leads to a P-position, and `[1,0,0]` (only the poison left) is P.
pub struct BruteForce {
    max_p: usize,
    p_position: Vec<bool>,
}

impl BruteForce {
    pub fn solve(max_p: usize) -> BruteForce {
        let side = max_p + 1;
        let mut bf = BruteForce {
            max_p,
            p_position: vec![false; side * side * side],
        };
        // Every move removes squares, so increasing p + q + r is a valid order.
        for total in 1..=3 * max_p {
            for p in 1..=max_p {
                for q in 0..=p {
                    if total < p + q || total - p - q > q {
                        continue;
                    }
                    let r = total - p - q;
                    let lost = bf.moves(p, q, r).iter().all(|&(a, b, c)| !bf.is_p(a, b, c));
                    bf.p_position[(p * side + q) * side + r] = lost;
                }
            }
        }
        bf
    }

    /// Every position one move away from `[p,q,r]` (taking the poison is no move).
    pub fn moves(&self, p: usize, q: usize, r: usize) -> Vec<(usize, usize, usize)> {
        let mut m = Vec::new();
        for c in 2..=p {
            m.push((c - 1, q.min(c - 1), r.min(c - 1))); // bottom row, column c
        }
        for c in 1..=q {
            m.push((p, c - 1, r.min(c - 1))); // middle row
        }
        for c in 1..=r {
            m.push((p, q, c - 1)); // top row
        }
        m
    }

    pub fn is_p(&self, p: usize, q: usize, r: usize) -> bool {
        assert!(p >= q && q >= r && p >= 1 && p <= self.max_p);
        let side = self.max_p + 1;
        self.p_position[(p * side + q) * side + r]
    }

    /// All P-positions, `p` ascending.
    pub fn p_positions(&self) -> Vec<(usize, usize, usize)> {
        let mut v = Vec::new();
        for p in 1..=self.max_p {
            for q in 0..=p {
                for r in 0..=q {
                    if self.is_p(p, q, r) {
                        v.push((p, q, r));
                    }
                }
            }
        }
        v
    }
}

/// Sends SIGINT (Ctrl-C) to `child`, or to its process group when `group`
/// (as a terminal does), waits for it, and returns its status code and
/// standard error.
pub fn ctrl_c(child: std::process::Child, group: bool) -> (Option<i32>, String) {
    let target = match group {
        true => format!("-{}", child.id()),
        false => child.id().to_string(),
    };
    let sent = std::process::Command::new("kill")
        .args(["-INT", "--", &target])
        .status()
        .unwrap();
    assert!(sent.success());
    let done = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr).into_owned();
    (done.status.code(), err)
}
