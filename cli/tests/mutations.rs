//! Structured mutations of every file chomp3 reads: each reader is given a
//! valid file cut at many lengths, with bits flipped across it, with bytes
//! appended, and files of the other kinds, and must end in a value or an
//! error, never a panic, in bounded time on every test run.

use crate::common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use chomp3::base::stop::Stop;
use chomp3::f::census::{Params, Run};
use chomp3::f::census_file::Descriptors;
use chomp3::f::table::Table;
use chomp3::grundy::table::GrundyTable;

/// A small deterministic generator (xorshift64*), so a failure repeats.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
    }
}

/// The damaged versions of `seed`: cuts at ~200 lengths (and every one of
/// the last 64), 300 single-bit flips, 8 random 4-byte overwrites, bytes
/// appended, and each of `others` (files of other kinds).
fn mutations(seed: &[u8], others: &[&[u8]]) -> Vec<(String, Vec<u8>)> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ seed.len() as u64);
    let mut out = Vec::new();
    let step = (seed.len() / 200).max(1);
    for cut in (0..seed.len())
        .step_by(step)
        .chain(seed.len().saturating_sub(64)..seed.len())
    {
        out.push((format!("cut at {cut}"), seed[..cut].to_vec()));
    }
    for _ in 0..300 {
        let at = rng.below(seed.len());
        let bit = rng.below(8);
        let mut m = seed.to_vec();
        m[at] ^= 1 << bit;
        out.push((format!("bit {bit} of byte {at}"), m));
    }
    for _ in 0..8 {
        let at = rng.below(seed.len().saturating_sub(4));
        let mut m = seed.to_vec();
        for b in m.iter_mut().skip(at).take(4) {
            *b = rng.below(256) as u8;
        }
        out.push((format!("4 bytes at {at}"), m));
    }
    for extra in [
        &b"\0"[..],
        b"0123456",
        b"\n# end: 1 lines, crc32 00000000\n",
    ] {
        let mut m = seed.to_vec();
        m.extend_from_slice(extra);
        out.push((format!("{} bytes appended", extra.len()), m));
    }
    for (i, other) in others.iter().enumerate() {
        out.push((format!("file of another kind {i}"), other.to_vec()));
    }
    out
}

/// Runs `read` on every mutation of `seed` (written to `path` first) and
/// fails on a panic; returns how many were refused.
fn survive(
    what: &str,
    seed: &[u8],
    others: &[&[u8]],
    path: &Path,
    read: impl Fn(&Path) -> Result<(), String>,
) -> usize {
    // The seed itself reads.
    std::fs::write(path, seed).unwrap();
    read(path).unwrap_or_else(|e| panic!("{what}: the valid file is refused: {e}"));
    let mut refused = 0;
    for (how, bytes) in mutations(seed, others) {
        std::fs::write(path, &bytes).unwrap();
        match catch_unwind(AssertUnwindSafe(|| read(path))) {
            Ok(Ok(())) => {}
            Ok(Err(_)) => refused += 1,
            Err(_) => panic!("{what}, {how}: the reader panicked"),
        }
    }
    assert!(refused > 0, "{what}: no mutation was refused");
    refused
}

#[test]
fn every_binary_reader_survives_damage() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Seeds, each small: capacities close to N keep the checksums' region small.
    let c3t = common::computed(d, "t.c3t", 60, &["--capacity", "60"]);
    let g3t = d.join("g.g3t");
    common::chomp3_ok(&[
        "grundy-table",
        "--quiet",
        "--n",
        "12",
        "--capacity",
        "12",
        "--table",
        g3t.to_str().unwrap(),
        "--checkpoint",
        d.join("g.g3s").to_str().unwrap(),
    ]);
    let g3s = std::fs::read(d.join("g.g3s")).unwrap();
    let census = d.join("c.tsv");
    common::chomp3_ok(&[
        "census",
        "--quiet",
        "--rows",
        "40",
        "--out",
        census.to_str().unwrap(),
    ]);
    let c3d = std::fs::read(d.join("c.c3d")).unwrap();
    let params = Params {
        last_row: 40,
        max_columns: 5000,
        batch: chomp3::f::census::BATCH_COLS,
    };
    let mut ck = Vec::new();
    Run::new(params).save(&mut ck).unwrap();
    let lag = {
        // Stopped at p = 300, before every line of q <= 5 is done (lag 144,
        // a multiple of every period there: 1, 2, 4, 6, 12, 24, 36, 72).
        let run = chomp3::grundy::lag::run(5, 144, 300, None, &Stop::new(), &mut |_| {}).unwrap();
        let path = d.join("lag.ck");
        chomp3::grundy::lag::save(&run, &path).unwrap();
        std::fs::read(&path).unwrap()
    };
    let memo = {
        let solver = chomp3::graph::Solver::new();
        solver.value(&chomp3::graph::family::build("wheel:6").unwrap());
        let mut b = Vec::new();
        solver.save(&mut b).unwrap();
        b
    };
    let (c3t, g3t) = (std::fs::read(&c3t).unwrap(), std::fs::read(&g3t).unwrap());
    let all: [&[u8]; 7] = [&c3t, &g3t, &g3s, &c3d, &ck, &lag, &memo];
    let f = d.join("mutated");

    survive("a .c3t", &c3t, &all, &f, |p| {
        let t = Table::open(p).map_err(|e| e.to_string())?;
        for q in 0..t.columns() {
            t.get(q, q / 2).map_err(|e| e.to_string())?;
        }
        t.verify().map_err(|e| e.to_string())
    });
    survive("a .g3t", &g3t, &all, &f, |p| {
        let t = GrundyTable::open(p).map_err(|e| e.to_string())?;
        for p in 1..=t.n().unwrap_or(0) {
            t.get(p, p / 2, p / 3).map_err(|e| e.to_string())?;
        }
        t.verify().map_err(|e| e.to_string())
    });
    survive("a .g3s sweep checkpoint", &g3s, &all, &f, |p| {
        chomp3::grundy::table::load_sweep(p, 12)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
    survive("a .c3d", &c3d, &all, &f, |p| {
        let c = Descriptors::open(p).map_err(|e| e.to_string())?;
        for r in 0..c.rows() {
            let _ = c.status(r);
        }
        Ok(())
    });
    survive("a census checkpoint", &ck, &all, &f, |p| {
        let mut r = std::fs::File::open(p).unwrap();
        Run::load(&mut r, params)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
    survive("a grundy-periods checkpoint", &lag, &all, &f, |p| {
        chomp3::grundy::lag::load(p)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
    survive("a graph memo", &memo, &all, &f, |p| {
        chomp3::graph::Solver::open(p)
            .map(|_| ())
            .map_err(|e| e.to_string())
    });
}

#[test]
fn every_text_reader_survives_damage() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("g.tsv");
    let b = d.join("b");
    common::chomp3_ok(&[
        "grundy-census",
        "--quiet",
        "--lines",
        "5",
        "--out",
        out.to_str().unwrap(),
        "--bfiles",
        b.to_str().unwrap(),
        "--rectangles",
        "20",
    ]);
    let periods = d.join("p.tsv");
    common::chomp3_ok(&[
        "grundy-periods",
        "--quiet",
        "--lines",
        "5",
        "--lag",
        "144",
        "--bfiles",
        d.join("pb").to_str().unwrap(),
        "--out",
        periods.to_str().unwrap(),
    ]);
    let census = std::fs::read(&out).unwrap();
    let periods = std::fs::read(&periods).unwrap();
    let bfile = std::fs::read(b.join("grundy-periods.txt")).unwrap();
    let starts = std::fs::read(b.join("grundy-starts.txt")).unwrap();
    let all: [&[u8]; 3] = [&census, &periods, &bfile];
    let f = d.join("mutated");
    let census_reader = |p: &Path| {
        let bytes = std::fs::read(p).unwrap();
        use chomp3::grundy::file;
        file::summaries(&bytes[..]).map_err(|e| e.to_string())?;
        file::find(&bytes[..], 4, 2).map_err(|e| e.to_string())?;
        Ok(())
    };
    survive("a Grundy census", &census, &all, &f, census_reader);
    survive("a census of periods", &periods, &all, &f, census_reader);
    let record =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../plots/figures.tsv")).unwrap();
    survive("a figure record", &record, &all, &f, |p| {
        let bytes = std::fs::read(p).unwrap();
        chomp3::plot::record::read(&bytes[..]).map(|_| ())
    });
    survive("a b-file", &bfile, &all, &f, |p| {
        let bytes = std::fs::read(p).unwrap();
        chomp3::grundy::sequences::read_lines(&bytes[..], &starts[..]).map(|_| ())
    });
}

#[test]
fn graph_inputs_and_viewer_queries_survive_damage() {
    use chomp3::graph::format::{parse_edge_list, parse_line};
    let mut rng = Rng(7);
    let seeds = ["Bw", "DQc", ":Fa@x^", "GCrb`o", "0 1\n1 2\n2 0\n"];
    let alphabet = b"?@ABw~:`^x01 2\n#-9";
    for seed in seeds {
        for _ in 0..500 {
            let mut s = seed.as_bytes().to_vec();
            let at = rng.below(s.len());
            match rng.below(3) {
                0 => s[at] = alphabet[rng.below(alphabet.len())],
                1 => s.truncate(at),
                _ => s.insert(at, alphabet[rng.below(alphabet.len())]),
            }
            let text = String::from_utf8_lossy(&s).into_owned();
            let outcome = catch_unwind(|| {
                let _ = parse_line(&text).map(|m| chomp3::graph::Graph::from_multigraph(&m));
                let _ = parse_edge_list(&text).map(|m| chomp3::graph::Graph::from_multigraph(&m));
            });
            assert!(outcome.is_ok(), "{text:?}: a graph reader panicked");
        }
    }
    let allowed = ["scale", "x", "y", "r", "from", "to"];
    for seed in ["scale=3&x=1&y=2", "r=5&from=0&to=100", ""] {
        for _ in 0..500 {
            let mut s = seed.as_bytes().to_vec();
            let at = rng.below(s.len() + 1);
            let junk = b"=&%x9-+\xff";
            s.insert(at.min(s.len()), junk[rng.below(junk.len())]);
            let text = String::from_utf8_lossy(&s).into_owned();
            let outcome = catch_unwind(|| {
                if let Ok(q) = chomp3::view::query::Query::parse(&text, &allowed) {
                    let _ = q.number("x", 1 << 20);
                }
            });
            assert!(outcome.is_ok(), "{text:?}: the query parser panicked");
        }
    }
    // Found by the fuzz target `viewer`: a path with a newline was echoed
    // into the 404's line. Every refusal is one line.
    let none = |name: &str| chomp3::f::lookup::Named {
        path: std::path::PathBuf::from(format!("/nonexistent/{name}")),
        named: false,
    };
    let s = chomp3::f::lookup::Sources::open(&none("t.c3t"), &none("c.c3d")).unwrap();
    for url in [
        "/\0\0\0\n\tS\0/o",
        "/api/cell?q=1&r=\n2",
        "/api/tile?scale=\r\n",
    ] {
        let reply = chomp3::view::respond(&s, url);
        let body = String::from_utf8_lossy(&reply.body);
        assert!(reply.status >= 400, "{url:?}");
        assert_eq!(body.trim_end().lines().count(), 1, "{url:?}: {body}");
    }
}

/// Inputs the fuzz targets found (fuzz/): each must be refused in one line,
/// without its allocation (periods checkpoints whose headers asked for 2 and
/// 4 GB).
#[test]
fn inputs_found_by_fuzzing_are_refused() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/fuzz");
    let path = Path::new(dir).join("periods-checkpoint-2gb");
    let e = chomp3::grundy::lag::load(&path).err().expect("refused");
    assert!(
        e.to_string().contains("more lines than the file can hold"),
        "{e}"
    );
}
