//! The browser viewer behind `chomp3 view`: a small HTTP server on 127.0.0.1
//! that serves one page (its HTML, JavaScript and CSS are compiled into the
//! binary from `src/view/page/`) and answers the page's requests from the
//! table and census it was started with. Owns the routes, the tiles and the
//! JSON answers; uses `lookup` (the source rule of `get`), `table`,
//! `census_file`, `proof`, `stop` and `bytes`, and `http` (its own) to
//! read requests and write answers.
//!
//! It answers `GET` (and `HEAD`) on its own routes only, never a file by path:
//! anything else is a 404, a bad parameter or a malformed request a 400, another
//! method a 405, and a table that fails a read (damaged, or cut while served)
//! a 500, each with one line of text.

pub(crate) mod api;
pub mod http;
pub mod query;
pub(crate) mod tile;

use crate::base::bytes::narrow;
use std::io;
use std::net::SocketAddr;

use crate::base::path_message::NamesPath;
use crate::base::stop::Stop;
use crate::f::lookup::Sources;
use query::Query;
use tile::{Measure, TileAt};

/// The page and its script and style, served as they are in the repository.
const PAGE: [(&str, &str, &str); 3] = [
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("page/index.html"),
    ),
    (
        "/viewer.js",
        "text/javascript; charset=utf-8",
        include_str!("page/viewer.js"),
    ),
    (
        "/viewer.css",
        "text/css; charset=utf-8",
        include_str!("page/viewer.css"),
    ),
];

/// The largest tile coordinate a request may name (larger is a 400).
pub(crate) const MAX_COORD: u64 = u32::MAX as u64;
/// The largest `q` or `r` a cell or row request may name, as `chomp3 get`
/// takes (larger is a 400).
pub(crate) const MAX_CELL: u64 = i64::MAX as u64;

/// One answer: status, content type, body.
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Reply {
    fn ok(content_type: &'static str, body: Vec<u8>) -> Reply {
        Reply {
            status: 200,
            content_type,
            body,
        }
    }

    fn json(v: serde_json::Value) -> Reply {
        Reply::ok("application/json", v.to_string().into_bytes())
    }

    /// An error: one line of text.
    fn error(status: u16, line: String) -> Reply {
        Reply {
            status,
            content_type: "text/plain; charset=utf-8",
            body: format!("{line}\n").into_bytes(),
        }
    }
}

/// Answers one `GET` for `url` (path and query).
pub fn respond(s: &Sources, url: &str) -> Reply {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    if let Some((_, kind, body)) = PAGE.iter().find(|(p, ..)| *p == path) {
        return Reply::ok(kind, body.as_bytes().to_vec());
    }
    let answer = match path {
        "/api/info" => Query::parse(query, &[]).map(|_| Reply::json(api::info(s))),
        "/api/cell" => cell(s, query),
        "/api/row" => row(s, query),
        "/api/census" => census(s, query),
        "/api/tile" => tile(s, query),
        "/api/legend" => Query::parse(query, &[])
            .map(|_| Reply::ok("image/png", tile::png(&tile::legend(), 256))),
        _ => return Reply::error(404, format!("no such page: {}", query::clip(path, 60))),
    };
    answer.unwrap_or_else(|why| Reply::error(400, why))
}

fn cell(s: &Sources, query: &str) -> Result<Reply, String> {
    let q = Query::parse(query, &["q", "r"])?;
    let (col, row) = (q.number("q", MAX_CELL)?, q.number("r", MAX_CELL)?);
    Ok(Reply::json(api::cell(s, col, row)))
}

fn row(s: &Sources, query: &str) -> Result<Reply, String> {
    let q = Query::parse(query, &["r", "from", "to"])?;
    let r = q.number("r", MAX_CELL)?;
    let from = q.optional_number("from", MAX_CELL)?.unwrap_or(r);
    // The default stays within the bound a given `to` is held to.
    let to = q
        .optional_number("to", MAX_CELL)?
        .unwrap_or(from.saturating_add(199).min(MAX_CELL));
    Ok(Reply::json(api::row(s, r, from, to)?))
}

fn census(s: &Sources, query: &str) -> Result<Reply, String> {
    Query::parse(query, &[])?;
    let d = s
        .census
        .as_ref()
        .ok_or("no census: the viewer was started without one")?;
    Ok(Reply::json(api::census(d)))
}

fn tile(s: &Sources, query: &str) -> Result<Reply, String> {
    let q = Query::parse(query, &["measure", "scale", "x", "y", "format"])?;
    let measure = Measure::from_name(q.word("measure", &Measure::NAMES)?).expect("a listed name");
    let format = q.word("format", &["png", "values"])?;
    let at = TileAt {
        scale: q.number("scale", tile::MAX_SCALE)?,
        x: q.number("x", MAX_COORD)?,
        y: q.number("y", MAX_COORD)?,
    };
    let t = s
        .table
        .as_ref()
        .ok_or("no table: the viewer was started without one")?;
    at.check(t.columns())?;
    if measure == Measure::Settle && s.census.is_none() {
        return Err(
            "the settle measure needs a census, and the viewer was started without one".into(),
        );
    }
    Ok(match format {
        "values" => {
            let values = match tile::values(t, at) {
                Ok(values) => values,
                Err(e) => return Ok(file_error(s, e)),
            };
            let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            Reply::ok("application/octet-stream", bytes)
        }
        _ => {
            let rgba = match tile::pixels(t, s.census.as_ref(), at, measure) {
                Ok(rgba) => rgba,
                Err(e) => return Ok(file_error(s, e)),
            };
            Reply::ok("image/png", tile::png(&rgba, narrow::<u32, _>(tile::TILE)))
        }
    })
}

/// A table that fails a read (damaged, or cut by another program while
/// served): the request was good, so a 500, with the file's message.
fn file_error(s: &Sources, e: crate::f::table::TableError) -> Reply {
    Reply::error(500, e.with_path(&s.table_path.path))
}

/// Serves on `server` until `stop` is requested (Ctrl-C). Each request is
/// answered on one of a few threads; tiles read the table through
/// positional reads (`Table::options().mapped(false)`), so a file cut
/// meanwhile gives a 500.
pub fn serve(s: &Sources, server: &http::Server, stop: &Stop) -> io::Result<()> {
    http::serve(server, http::CONNECTIONS, stop, &|_, target| {
        respond(s, target)
    })
}

/// Listens on `addr`.
pub fn bind(addr: SocketAddr) -> Result<http::Server, String> {
    http::bind(addr)
}
