//! `chomp3 view` through its process and plain HTTP: tiles against the table's
//! values (and the paper's reference table), the census list against
//! census.tsv, cells against the reference, and every bad request refused with
//! a 4xx and one line. The page in a real browser is tests/browser/.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common::{chomp3_ok, computed, read_all, reference_table};

/// A running `chomp3 view`, killed when dropped.
struct Viewer {
    child: Child,
    addr: String,
}

impl Viewer {
    fn start(args: &[&str]) -> Viewer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_chomp3"))
            .current_dir(std::env::temp_dir())
            .arg("view")
            .args(args)
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|s| s.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        Viewer { child, addr }
    }

    /// Sends `request` as it is and returns (status, body).
    fn raw(&self, request: &str) -> (u16, Vec<u8>) {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut bytes = Vec::new();
        s.read_to_end(&mut bytes).unwrap();
        let split = bytes
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a header");
        let head = String::from_utf8_lossy(&bytes[..split]).to_string();
        let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
        (status, bytes[split + 4..].to_vec())
    }

    fn get(&self, path: &str) -> (u16, Vec<u8>) {
        self.raw(&format!(
            "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        ))
    }

    fn json(&self, path: &str) -> serde_json::Value {
        let (status, body) = self.get(path);
        assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
        serde_json::from_slice(&body).unwrap()
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A table to `N = 100` (`t.c3t`) and a census of rows `0..=400`
/// (`census.tsv`, `census.c3d`) in `dir`, served: the census's descriptor
/// file, its table and the viewer.
fn table_and_census_served(dir: &Path) -> (PathBuf, PathBuf, Viewer) {
    let table = computed(dir, "t.c3t", 100, &[]);
    let tsv = dir.join("census.tsv");
    chomp3_ok(&[
        "census",
        "--quiet",
        "--rows",
        "400",
        "--out",
        tsv.to_str().unwrap(),
    ]);
    let c3d = dir.join("census.c3d");
    let v = Viewer::start(&[
        "--table",
        table.to_str().unwrap(),
        "--census",
        c3d.to_str().unwrap(),
    ]);
    (c3d, tsv, v)
}

/// The sampled cell of pixel (i, j) of tile (x, y) at `scale` (FORMAT of the
/// viewer, doc/viewer.md): the centre of the pixel's block.
fn sampled(scale: u64, x: u64, y: u64, i: u64, j: u64) -> (u64, u64) {
    let half = (1u64 << scale) >> 1;
    (
        ((x * 256 + i) << scale) + half,
        ((y * 256 + j) << scale) + half,
    )
}

#[test]
fn tiles_are_the_tables_values() {
    let dir = tempfile::tempdir().unwrap();
    let table = computed(dir.path(), "t.c3t", 700, &[]);
    let f = read_all(&table);
    let reference = reference_table();
    let v = Viewer::start(&["--table", table.to_str().unwrap()]);
    assert!(v.addr.starts_with("127.0.0.1:"), "bound to {}", v.addr);
    for (scale, x, y) in [
        (0, 0, 0),
        (0, 2, 1),
        (0, 2, 2),
        (1, 1, 0),
        (2, 0, 0),
        (5, 0, 0),
    ] {
        let (status, body) = v.get(&format!(
            "/api/tile?scale={scale}&x={x}&y={y}&format=values"
        ));
        assert_eq!(status, 200);
        assert_eq!(body.len(), 4 * 256 * 256);
        for j in 0..256 {
            for i in 0..256 {
                let at = 4 * (j * 256 + i) as usize;
                let got = u32::from_le_bytes(body[at..at + 4].try_into().unwrap());
                let (q, r) = sampled(scale, x, y, i, j);
                let want = if r <= q && q <= 700 {
                    f[q as usize][r as usize]
                } else {
                    u32::MAX
                };
                assert_eq!(got, want, "scale {scale} tile ({x},{y}) pixel ({i},{j})");
                if q <= 30 && r <= q {
                    assert_eq!(
                        got, reference[r as usize][q as usize],
                        "reference at ({q},{r})"
                    );
                }
            }
        }
    }
}

/// A table cut in place by another program while served: every tile gets
/// a 500 and one line naming the file, those it served before too (no
/// answer from a file that is not whole), and the server lives on (no
/// SIGBUS).
#[test]
fn a_table_cut_while_served_gets_a_500_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let table = computed(dir.path(), "t.c3t", 700, &[]);
    let mut v = Viewer::start(&["--table", table.to_str().unwrap()]);
    let tile = |x: u64, y: u64| format!("/api/tile?scale=0&x={x}&y={y}&format=values");
    let (status, before) = v.get(&tile(0, 0));
    assert_eq!(status, 200);
    let len = std::fs::metadata(&table).unwrap().len();
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&table)
        .unwrap();
    file.set_len(len - 200_000).unwrap();
    drop(file);
    for format in ["values", "png"] {
        let (status, body) = v.get(&format!("/api/tile?scale=0&x=2&y=2&format={format}"));
        let text = String::from_utf8_lossy(&body);
        assert_eq!(status, 500, "{text}");
        assert!(text.contains("t.c3t") && text.contains("shorter"), "{text}");
        assert_eq!(text.trim_end().lines().count(), 1, "{text}");
    }
    let (status, body) = v.get(&tile(0, 0));
    assert_eq!(status, 500, "{}", String::from_utf8_lossy(&body));
    assert_ne!(body, before);
    assert_eq!(v.get("/api/info").0, 200);
    assert!(v.child.try_wait().unwrap().is_none(), "the viewer died");
}

/// A table written over in place while served (another table of another
/// width copied onto it, then bytes zeroed): no cell read before is served
/// again from the new bytes; each answer is the right value or a refusal
/// that says why, and the server lives on.
#[test]
fn a_table_written_over_while_served_is_never_read_with_the_old_layout() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let table = computed(d, "t.c3t", 700, &[]);
    let other = computed(d, "o.c3t", 700, &["--capacity", "600000"]);
    let again = computed(d, "again.c3t", 700, &[]);
    let f = read_all(&table);
    let mut v = Viewer::start(&["--table", table.to_str().unwrap()]);
    let cell = |q: usize, r: usize| {
        let (status, body) = v.get(&format!("/api/cell?q={q}&r={r}"));
        assert_eq!(status, 200);
        String::from_utf8(body).unwrap()
    };
    let cells = [(600, 18), (123, 45), (700, 699)];
    for &(q, r) in &cells {
        assert!(cell(q, r).contains(&format!("\"f\":{},", f[q][r])));
    }
    std::fs::copy(&other, &table).unwrap();
    for &(q, r) in &cells {
        let answer = cell(q, r);
        assert!(
            answer.contains("\"f\":null") && answer.contains("changed while it was open"),
            "{answer}"
        );
    }
    let (status, body) = v.get("/api/tile?scale=0&x=0&y=0&format=values");
    let text = String::from_utf8_lossy(&body);
    assert_eq!(status, 500, "{text}");
    assert!(text.contains("changed while it was open"), "{text}");
    // The same table again, then damage to its data: found where read.
    std::fs::copy(&again, &table).unwrap();
    assert!(cell(600, 18).contains(&format!("\"f\":{},", f[600][18])));
    let len = std::fs::metadata(&table).unwrap().len();
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&table)
        .unwrap();
    std::os::unix::fs::FileExt::write_all_at(&file, &vec![0u8; 200_000], len - 200_000).unwrap();
    drop(file);
    let (status, body) = v.get("/api/row?r=600&from=690&to=700");
    let text = String::from_utf8_lossy(&body);
    assert_eq!(status, 200, "{text}");
    assert!(
        text.contains("\"source\":\"none\"") && text.contains("damaged table"),
        "{text}"
    );
    assert!(v.child.try_wait().unwrap().is_none(), "the viewer died");
}

#[test]
fn the_dead_measure_splits_cells_by_f_at_most_q() {
    let dir = tempfile::tempdir().unwrap();
    let table = computed(dir.path(), "t.c3t", 300, &[]);
    let f = read_all(&table);
    let v = Viewer::start(&["--table", table.to_str().unwrap()]);
    let (status, body) = v.get("/api/tile?measure=dead&scale=0&x=0&y=0");
    assert_eq!(status, 200);
    let mut reader = png::Decoder::new(std::io::Cursor::new(body))
        .read_info()
        .unwrap();
    let mut rgba = vec![0; reader.output_buffer_size().unwrap()];
    reader.next_frame(&mut rgba).unwrap();
    let (mut dead, mut live) = (None, None);
    for r in 0..256usize {
        for q in 0..256usize {
            let px = &rgba[4 * (r * 256 + q)..4 * (r * 256 + q) + 4];
            if r > q || q > 300 {
                assert_eq!(px[3], 0, "({q},{r}) has no cell: transparent");
                continue;
            }
            let slot = if f[q][r] as usize <= q {
                &mut dead
            } else {
                &mut live
            };
            assert_eq!(*slot.get_or_insert(px.to_vec()), px, "({q},{r})");
        }
    }
    assert_ne!(dead, live, "two colours");
    assert!(dead.is_some() && live.is_some());
}

#[test]
fn cells_rows_and_the_census_list_follow_their_sources() {
    let dir = tempfile::tempdir().unwrap();
    let (_, tsv, v) = table_and_census_served(dir.path());
    let reference = reference_table();
    // Inside the table: its value, from the table, with the P-position.
    let cell = v.json("/api/cell?q=30&r=7");
    let f = reference[7][30] as u64;
    assert_eq!(cell["f"], f);
    assert_eq!(cell["source"], "table");
    let p = serde_json::json!([f, f.min(30), f.min(30).min(7)]);
    assert_eq!(cell["position"], p);
    // Beyond it: from the census, which says so; it equals the fate in census.tsv.
    let text = std::fs::read_to_string(&tsv).unwrap();
    let lines: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("r\t"))
        .map(|l| l.split('\t').collect())
        .collect();
    let row5 = &lines[5];
    let cell = v.json("/api/cell?q=5000&r=5");
    assert_eq!(cell["source"], "census");
    assert_eq!(cell["fate"]["class"], row5[1]);
    // A cell above the diagonal (r > q) is in its own row: row 7's fate,
    // with the value f(3,3); and cells reach q = 2^62 as `get` does.
    let cell = v.json("/api/cell?q=3&r=7");
    assert_eq!(cell["fate"]["class"], lines[7][1]);
    assert_eq!(cell["fate"]["start"], lines[7][2].parse::<u64>().unwrap());
    assert_eq!(cell["f"], reference[3][3] as u64);
    let far = v.json("/api/cell?q=4611686018427387904&r=5");
    assert_eq!(far["source"], "census", "{far}");
    // A row over a range: the table's values, then the census's.
    let row = v.json("/api/row?r=7&from=95&to=105");
    let sources = row["sources"].as_array().unwrap();
    assert_eq!(sources[0]["source"], "table");
    assert_eq!(sources[0]["to"], 100);
    assert_eq!(sources[1]["source"], "census");
    // The census list is census.tsv, row for row.
    let list = v.json("/api/census");
    assert_eq!(list["rows"], lines.len());
    let class = list["class"].as_str().unwrap().as_bytes();
    for (r, l) in lines.iter().enumerate() {
        let letter = match l[1] {
            "constant" => b'c',
            "periodic" => b'p',
            _ => b'o',
        };
        assert_eq!(class[r], letter, "row {r}");
        if letter != b'o' {
            assert_eq!(list["start"][r].to_string(), l[2], "row {r} start");
        }
        if letter == b'p' {
            assert_eq!(list["period"][r].to_string(), l[3], "row {r} period");
        } else {
            // Only a periodic row has a period: 0 here, as `-` in census.tsv.
            assert_eq!(list["period"][r], 0, "row {r} period");
        }
    }
    // A constant row's fate has no period either.
    let constant = class
        .iter()
        .position(|&c| c == b'c')
        .expect("a constant row");
    let fate = &v.json(&format!(
        "/api/row?r={constant}&from={constant}&to={constant}"
    ))["fate"];
    assert_eq!(fate["class"], "constant");
    assert!(fate["period"].is_null(), "{fate}");
}

#[test]
fn bad_requests_get_a_4xx_and_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let table = computed(dir.path(), "t.c3t", 50, &[]);
    std::fs::write(dir.path().join("secret.txt"), "do not serve").unwrap();
    let v = Viewer::start(&["--table", table.to_str().unwrap()]);
    let bad = [
        "/../../etc/passwd",
        "/etc/passwd",
        "/secret.txt",
        "/%2e%2e/secret.txt",
        "/api/tile?scale=99&x=0&y=0",
        "/api/tile?scale=0&x=-1&y=0",
        "/api/tile?scale=0&x=abc&y=0",
        "/api/tile?scale=0&x=1&y=0",
        "/api/tile?scale=0&x=0&y=99999999999999999999999",
        "/api/tile?scale=0&x=0",
        "/api/tile?scale=0&x=0&y=0&x=0",
        "/api/tile?measure=gold&scale=0&x=0&y=0",
        "/api/tile?measure=settle&scale=0&x=0&y=0",
        "/api/tile?scale=0&x=0&y=0&format=jpeg",
        "/api/cell?q=1",
        "/api/cell?q=1&r=2&z=3",
        "/api/cell?q=1.5&r=2",
        "/api/row?r=5&from=10&to=1",
        "/api/row?r=5&from=0&to=100000",
        "/api/census",
        "/api/info?x=1",
    ];
    for path in bad {
        let (status, body) = v.get(path);
        let text = String::from_utf8_lossy(&body);
        assert!((400..500).contains(&status), "{path}: {status} {text}");
        assert_eq!(text.trim_end().lines().count(), 1, "{path}: {text:?}");
        assert!(!text.contains("do not serve") && !text.contains("root:"));
    }
    // The default end of a row stays within the bound a given one is held to.
    let row = v.json("/api/row?r=5&from=9223372036854775800");
    assert_eq!(
        row["to"],
        serde_json::json!(9223372036854775807u64),
        "{row}"
    );
    assert_eq!(row["values"].as_array().map(Vec::len), Some(8), "{row}");
    let (status, _) = v.raw("POST /api/cell?q=1&r=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 405);
    // Malformed requests of every sort get a 4xx and one line, and the
    // server goes on answering.
    let long_head = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(20_000));
    let cases: [(&[u8], u16); 7] = [
        (b"NONSENSE\r\n\r\n", 400),
        (b"GET / HTTP/9.9\r\n\r\n", 400),
        (b"GET /\xff\xfe HTTP/1.1\r\n\r\n", 400),
        (b"\x00\x01\x02\xff binary noise\n\n", 400),
        (b"GET / HTTP/1.1\r\nno colon here\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nHost: x\r\n", 400),
        (long_head.as_bytes(), 431),
    ];
    for (request, want) in cases {
        let mut s = TcpStream::connect(&v.addr).unwrap();
        s.write_all(request).unwrap();
        // The client sends no more: a head without its blank line ends here.
        s.shutdown(std::net::Shutdown::Write).unwrap();
        let mut bytes = Vec::new();
        s.read_to_end(&mut bytes).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let (head, body) = text.split_once("\r\n\r\n").expect("a head");
        let shown = String::from_utf8_lossy(&request[..request.len().min(40)]);
        assert!(
            head.starts_with(&format!("HTTP/1.1 {want} ")),
            "{shown:?}: {head}"
        );
        assert_eq!(body.trim_end().lines().count(), 1, "{shown:?}: {body:?}");
    }
    assert_eq!(v.json("/api/cell?q=1&r=0")["f"], 2);
}

#[test]
fn slow_and_silent_clients_do_not_stop_it_answering() {
    // Two hundred clients that send nothing and two that send a header line
    // now and then: each is answered (408) when its head's 5 s are up, and a
    // plain request is answered meanwhile, before any of them is (each waits
    // on its own thread).
    let dir = tempfile::tempdir().unwrap();
    let table = computed(dir.path(), "t.c3t", 20, &[]);
    let v = Viewer::start(&["--table", table.to_str().unwrap()]);
    let silent: Vec<TcpStream> = (0..200)
        .map(|_| TcpStream::connect(&v.addr).unwrap())
        .collect();
    let drip = std::thread::spawn({
        let addr = v.addr.clone();
        move || {
            let mut streams: Vec<TcpStream> =
                (0..2).map(|_| TcpStream::connect(&addr).unwrap()).collect();
            for s in &mut streams {
                s.write_all(b"GET / HTTP/1.1\r\n").unwrap();
            }
            for _ in 0..4 {
                std::thread::sleep(std::time::Duration::from_secs(2));
                for s in &mut streams {
                    let _ = s.write_all(b"X-Drip: 1\r\n");
                }
            }
            streams
                .into_iter()
                .map(|mut s| {
                    let mut bytes = Vec::new();
                    let _ = s.read_to_end(&mut bytes);
                    String::from_utf8_lossy(&bytes).into_owned()
                })
                .collect::<Vec<_>>()
        }
    });
    let started = std::time::Instant::now();
    assert_eq!(v.json("/api/cell?q=1&r=0")["f"], 2);
    assert!(
        started.elapsed() < std::time::Duration::from_millis(4500),
        "{:?}",
        started.elapsed()
    );
    for answer in drip.join().unwrap() {
        assert!(answer.starts_with("HTTP/1.1 408 "), "{answer}");
    }
    drop(silent);
}

#[test]
fn ctrl_c_stops_the_server_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let table = computed(dir.path(), "t.c3t", 20, &[]);
    let mut v = Viewer::start(&["--table", table.to_str().unwrap()]);
    assert_eq!(v.get("/").0, 200);
    let pid = v.child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = v.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

#[test]
fn with_neither_file_it_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .current_dir(dir.path())
        .args(["view", "--port", "0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nothing to view"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1);
    let missing = Path::new("no/such.c3t");
    let out = Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .current_dir(dir.path())
        .args(["view", "--port", "0", "--table", missing.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
}

/// A table that grows while it is served (`compute` extending it in place)
/// is read as before: the cells it held when opened from the table, those
/// past them from the census, the same values as before it grew; a row over
/// the old end, likewise.
#[test]
fn a_table_that_grows_while_served_is_read_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let (c3d, _, v) = table_and_census_served(dir.path());
    let asked = [
        "/api/cell?q=150&r=5",
        "/api/cell?q=100000&r=5",
        "/api/row?r=7&from=95&to=205",
    ];
    let before: Vec<serde_json::Value> = asked.iter().map(|a| v.json(a)).collect();
    assert_eq!(before[0]["source"], "census", "{}", before[0]);
    computed(dir.path(), "t.c3t", 300, &[]);
    for (a, was) in asked.iter().zip(&before) {
        assert_eq!(&v.json(a), was, "{a} after the table grew");
    }
    // The value `get` gives from the census alone.
    let got = chomp3_ok(&["get", "150", "5", "--census", c3d.to_str().unwrap()]).stdout;
    let want: u64 = String::from_utf8_lossy(&got).trim().parse().unwrap();
    assert_eq!(before[0]["f"], want);
}
