//! The viewer's HTTP: a listener, and each connection's one request read and
//! answered here. Hand-made rather than a crate's server so that every
//! request, whatever its bytes (a bad request line, binary noise, a head
//! without end), gets a status and one line of text: a malformed one a 400,
//! a head too long a 431, a method other than `GET` or `HEAD` a 405. One
//! request per connection (`Connection: close`); what a route answers is
//! the caller's (`handle`). Uses `stop`.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::Reply;
use crate::base::stop::Stop;

/// The longest request head read (request line and headers).
const MAX_HEAD: usize = 16 * 1024;
/// How long a client may take to send its whole request head.
const HEAD_DEADLINE: Duration = Duration::from_secs(5);
/// Connections served at once, each on a thread of its own that waits on
/// its client [`HEAD_DEADLINE`] at most: slow or silent clients delay no
/// other, up to this many.
pub(crate) const CONNECTIONS: usize = 512;

/// A listening socket.
pub struct Server {
    listener: TcpListener,
}

/// Listens on `addr`.
pub fn bind(addr: SocketAddr) -> Result<Server, String> {
    let listener = TcpListener::bind(addr).map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    // Polled, so that a stop request is seen within a tenth of a second.
    listener
        .set_nonblocking(true)
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    Ok(Server { listener })
}

impl Server {
    /// The address it listens on (the port chosen, where 0 was asked).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

/// Whether a request only reads its answer's head (`HEAD`) or all of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// `GET`: the answer whole.
    Get,
    /// `HEAD`: its head only.
    Head,
}

/// Accepts connections until `stop` is requested, each answered on a thread
/// of its own with `handle(method, target)`; past `most` at once, a new
/// connection gets a 503 at once. A client that sends nothing holds its
/// thread for [`HEAD_DEADLINE`] at most and keeps no other waiting.
pub(crate) fn serve(
    server: &Server,
    most: usize,
    stop: &Stop,
    handle: &(dyn Fn(Method, &str) -> Reply + Sync),
) -> io::Result<()> {
    let live = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        while !stop.requested() {
            match server.listener.accept() {
                Ok((mut stream, _)) => {
                    if live.load(Ordering::Acquire) >= most {
                        let busy =
                            Reply::error(503, format!("{most} connections are open; try again"));
                        let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
                        let _ = write_reply(&mut stream, &busy, false);
                        continue;
                    }
                    live.fetch_add(1, Ordering::AcqRel);
                    let live = &live;
                    let spawned = std::thread::Builder::new()
                        .stack_size(1 << 20)
                        .spawn_scoped(scope, move || {
                            // A client that went away is no concern of the server's.
                            let _ = answer(stream, handle);
                            live.fetch_sub(1, Ordering::AcqRel);
                        });
                    if spawned.is_err() {
                        // No thread to be had: the connection is dropped.
                        live.fetch_sub(1, Ordering::AcqRel);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                // A connection reset before it was taken, or out of file
                // descriptors for a moment: the server goes on.
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
        Ok(())
    })
}

/// Reads one request from `stream` and writes its answer.
fn answer(mut stream: TcpStream, handle: &dyn Fn(Method, &str) -> Reply) -> io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_write_timeout(Some(Duration::from_secs(30)))?;
    let (head_only, reply) = match read_head(&mut stream)? {
        None => return Ok(()),
        Some(Err(reply)) => (false, reply),
        Some(Ok(head)) => match parse(&head) {
            Ok((method, target)) => (method == Method::Head, handle(method, &target)),
            Err(reply) => (false, reply),
        },
    };
    write_reply(&mut stream, &reply, head_only)?;
    // Whatever else the client sent is read and dropped before the close,
    // so that the kernel does not reset the connection under the answer.
    // A second at most, and a mebibyte: no client holds the thread here.
    stream.shutdown(std::net::Shutdown::Write)?;
    let until = std::time::Instant::now() + Duration::from_secs(1);
    let (mut buf, mut read) = ([0u8; 4096], 0);
    while read < 1 << 20 {
        let left = until.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            break;
        }
        stream.set_read_timeout(Some(left))?;
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => read += n,
        }
    }
    Ok(())
}

/// The request head up to its blank line; `None` for a connection closed
/// before it sent a byte; a reply for a head too long or never ended.
fn read_head(stream: &mut TcpStream) -> io::Result<Option<Result<Vec<u8>, Reply>>> {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = std::time::Instant::now() + HEAD_DEADLINE;
    loop {
        let end = end_of_head(&head);
        if end.unwrap_or(head.len()) > MAX_HEAD {
            return Ok(Some(Err(Reply::error(
                431,
                format!("the request head is longer than {MAX_HEAD} bytes"),
            ))));
        }
        if let Some(end) = end {
            head.truncate(end);
            return Ok(Some(Ok(head)));
        }
        // The deadline is the whole head's, however the bytes trickle in.
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Ok(Some(Err(Reply::error(
                408,
                format!(
                    "the request head took longer than {} s",
                    HEAD_DEADLINE.as_secs()
                ),
            ))));
        }
        stream.set_read_timeout(Some(left))?;
        let n = match stream.read(&mut buf) {
            Ok(n) => n,
            // Out of time: the deadline's answer, at the loop's top.
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) =>
            {
                continue;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            if head.is_empty() {
                return Ok(None);
            }
            return Ok(Some(Err(Reply::error(
                400,
                "the request ended before its blank line".to_string(),
            ))));
        }
        head.extend_from_slice(&buf[..n]);
    }
}

/// Where the head's blank line starts (`\r\n\r\n`, or `\n\n`).
fn end_of_head(bytes: &[u8]) -> Option<usize> {
    let crlf = bytes.windows(4).position(|w| w == b"\r\n\r\n");
    let lf = bytes.windows(2).position(|w| w == b"\n\n");
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The method and target of a request head (its bytes before the blank
/// line), or the reply that refuses it: a 400 or a 405, with one line.
pub fn parse(head: &[u8]) -> Result<(Method, String), Reply> {
    let bad = |why: &str| Reply::error(400, format!("malformed request: {why}"));
    let text = std::str::from_utf8(head).map_err(|_| bad("the head is not text"))?;
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let first = lines.next().unwrap_or("");
    let parts: Vec<&str> = first.split(' ').collect();
    let [method, target, version] = parts[..] else {
        return Err(bad("the first line is not METHOD TARGET HTTP/1.x"));
    };
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
    };
    if !token(method) {
        return Err(bad("the method is not a name"));
    }
    if !target.starts_with('/') || !target.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(bad("the target is not a path"));
    }
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return Err(bad("the version is not HTTP/1.0 or HTTP/1.1"));
    }
    let mut hosts = 0;
    let mut length: Option<&str> = None;
    for l in lines {
        let Some((name, value)) = l.split_once(':').filter(|(name, _)| token(name)) else {
            return Err(bad("a header line is not NAME: VALUE"));
        };
        let value = value.trim_matches([' ', '\t']);
        if value.bytes().any(|b| b.is_ascii_control() && b != b'\t') {
            return Err(bad("a header value holds a control character"));
        }
        match name.to_ascii_lowercase().as_str() {
            "host" => hosts += 1,
            // The viewer reads no body: a request that says it sends one
            // in a way not plainly counted is refused, not guessed at.
            "transfer-encoding" => return Err(bad("a body in Transfer-Encoding is not read here")),
            "content-length" => {
                if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad("Content-Length is not a number"));
                }
                if length.is_some_and(|l| l != value) {
                    return Err(bad("two Content-Lengths disagree"));
                }
                length = Some(value);
            }
            _ => {}
        }
    }
    if hosts > 1 || (hosts == 0 && version == "HTTP/1.1") {
        return Err(bad("an HTTP/1.1 request has one Host header"));
    }
    let method = match method {
        "GET" => Method::Get,
        "HEAD" => Method::Head,
        m => {
            return Err(Reply::error(
                405,
                format!("method {m} is not allowed: the viewer only reads"),
            ));
        }
    };
    Ok((method, target.to_string()))
}

/// Writes `reply` with its length, and its body unless `head_only`.
fn write_reply(stream: &mut TcpStream, reply: &Reply, head_only: bool) -> io::Result<()> {
    let reason = match reply.status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        500 => "Internal Server Error",
        _ => "",
    };
    let mut out = format!(
        "HTTP/1.1 {} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n",
        reply.status,
        reply.content_type,
        reply.body.len()
    )
    .into_bytes();
    if !head_only {
        out.extend_from_slice(&reply.body);
    }
    stream.write_all(&out)?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_line_is_read_and_anything_else_is_refused() {
        let ok = |h: &str| parse(h.as_bytes()).map_err(|r| r.status);
        assert_eq!(
            ok("GET /api/cell?q=1&r=0 HTTP/1.1\r\nHost: x"),
            Ok((Method::Get, "/api/cell?q=1&r=0".to_string()))
        );
        assert_eq!(ok("HEAD / HTTP/1.0"), Ok((Method::Head, "/".to_string())));
        assert_eq!(ok("POST / HTTP/1.1\r\nHost: x"), Err(405));
        for bad in [
            "",
            "NONSENSE",
            "GET /",
            "GET  / HTTP/1.1",
            "GET / HTTP/2.0",
            "GET http://x/ HTTP/1.1",
            "G\u{1}T / HTTP/1.1",
            "GET / HTTP/1.1\r\nno colon",
            "GET / HTTP/1.1\r\n: empty name",
            "GET / HTTP/1.1",
            "GET / HTTP/1.1\r\nHost: x\r\nHost: y",
            "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc",
            "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1",
            "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2",
            "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked",
            "GET / HTTP/1.1\r\nHost: x\0y",
            "GET / HTTP/1.1\r\nHost: x\ry",
        ] {
            assert_eq!(ok(bad), Err(400), "{bad:?}");
        }
        assert_eq!(parse(b"GET /\xff HTTP/1.1").map_err(|r| r.status), Err(400));
        assert_eq!(end_of_head(b"GET / HTTP/1.1\r\nA: b\r\n\r\nrest"), Some(20));
        assert_eq!(end_of_head(b"GET / HTTP/1.1\n\n"), Some(14));
        assert_eq!(end_of_head(b"GET / HTTP/1.1\r\n"), None);
    }
}
