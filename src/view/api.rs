//! The viewer's JSON answers: what it was started with, one cell, one row over a
//! range, and the census's list of rows. Every value comes through
//! [`Sources`], so the page follows the same source rule as `chomp3 get`.

use crate::base::bytes::narrow;
use serde_json::{Value, json};

use crate::f::census_file::Descriptors;
use crate::f::lookup::Sources;
use crate::f::proof::{Fate, RowStatus};

/// The most values one row request returns (a larger range is refused, not cut).
pub(crate) const MAX_ROW_VALUES: u64 = 1 << 16;

/// The files the viewer reads and their sizes.
pub fn info(s: &Sources) -> Value {
    json!({
        "table": s.table.as_ref().map(|t| json!({
            "path": s.table_path.path.display().to_string(),
            "columns": t.columns(),
        })),
        "census": s.census.as_ref().map(|d| json!({
            "path": s.census_path.path.display().to_string(),
            "rows": d.rows(),
        })),
    })
}

/// One cell: `f(q,r)`, the P-position it stands for, the row's fate, the source.
pub fn cell(s: &Sources, q: u64, r: u64) -> Value {
    // The cell is in row r, whatever column: its row's fate, not that of
    // the row its value is read from when r > q (f(q,r) = f(q,q)).
    let fate = row_fate(s.census.as_ref(), r);
    match s.answer(q, r) {
        Ok(a) => json!({
            "q": q, "r": r, "f": a.value,
            "position": position(a.value, q, r),
            "source": a.source.kind(),
            "explain": a.source.to_string(),
            "fate": fate,
        }),
        Err(e) => json!({ "q": q, "r": r, "f": null, "why": e.to_string(), "fate": fate }),
    }
}

/// Row `r`'s values for `q` in `from ..= to` (`null` where no source answers),
/// the columns each source gave, and the row's fate.
pub fn row(s: &Sources, r: u64, from: u64, to: u64) -> Result<Value, String> {
    if to < from {
        return Err(format!("empty range: from={from} is after to={to}"));
    }
    if to - from >= MAX_ROW_VALUES {
        return Err(format!(
            "range {from}..={to} has {} columns; at most {MAX_ROW_VALUES} per request",
            to - from + 1
        ));
    }
    let mut values = Vec::with_capacity(narrow::<usize, _>(to - from + 1));
    // Each run of columns from one source; a run no source answers says
    // why (its first column's reason: beyond every source, a damaged table).
    let mut segments: Vec<(u64, u64, &str, Option<String>)> = Vec::new();
    for q in from..=to {
        let a = s.answer(q, r);
        values.push(a.as_ref().ok().map(|a| a.value));
        let word = a.as_ref().map_or("none", |a| a.source.kind());
        match segments.last_mut() {
            Some((_, end, w, _)) if *w == word => *end = q,
            _ => segments.push((q, q, word, a.err().map(|e| e.to_string()))),
        }
    }
    let sources: Vec<Value> = segments
        .iter()
        .map(|(a, b, w, why)| match why {
            Some(why) => json!({"from": a, "to": b, "source": w, "why": why}),
            None => json!({"from": a, "to": b, "source": w}),
        })
        .collect();
    Ok(json!({
        "r": r, "from": from, "to": to,
        "values": values,
        "sources": sources,
        "fate": row_fate(s.census.as_ref(), r),
    }))
}

/// Every row of the census: class letters (`c` constant, `p` periodic, `o`
/// open), starts, periods (0 where a row has none: constant and open rows,
/// as in the census's `rows.tsv`, `-` there) and the rows whose start is only a
/// bound. Columns rather than records keep 3*10^5 rows near 3 MB.
pub fn census(d: &Descriptors) -> Value {
    let n = d.rows() as usize;
    let (mut class, mut start, mut period) =
        (String::with_capacity(n), vec![0u32; n], vec![0u32; n]);
    let mut bound = Vec::new();
    for r in 0..d.rows() {
        let i = r as usize;
        match d.status(r).map(|s| s.fate) {
            None => class.push('o'),
            Some(Fate::Constant { start: s }) => {
                class.push('c');
                start[i] = s;
            }
            Some(Fate::Periodic { start: s, pattern }) => {
                class.push('p');
                (start[i], period[i]) = (s, narrow::<u32, _>(pattern.len()));
            }
        }
        if d.start_is_bound(r) {
            bound.push(r);
        }
    }
    json!({ "rows": n, "class": class, "start": start, "period": period, "bound": bound })
}

/// The P-position `f(q,r) = p` stands for: `[p, min(p,q), min(p,q,r)]`.
fn position(p: u128, q: u64, r: u64) -> [u128; 3] {
    let (q, r) = (u128::from(q), u128::from(r));
    [p, p.min(q), p.min(q).min(r)]
}

/// A row's fate from the census, if it settles the row.
fn row_fate(census: Option<&Descriptors>, r: u64) -> Value {
    let Some(d) = census else {
        return json!({"known": false, "why": "no census was given"});
    };
    let status = u32::try_from(r).ok().and_then(|r| d.status(r));
    match status {
        None if r >= d.rows() as u64 => {
            json!({"known": false, "why": format!("the census covers rows 0..{}", d.rows() - 1)})
        }
        None => json!({"known": false, "why": format!("row {r} is open in the census")}),
        Some(s) => fate_json(&s, d.start_is_bound(narrow::<u32, _>(r))),
    }
}

fn fate_json(s: &RowStatus, bound: bool) -> Value {
    let closed = s.known.closed_at();
    match &s.fate {
        Fate::Constant { start } => json!({
            "known": true, "class": "constant", "start": start, "period": null,
            "pattern": [], "start_is_bound": bound, "closed_at": closed,
        }),
        Fate::Periodic { start, pattern } => json!({
            "known": true, "class": "periodic", "start": start, "period": pattern.len(),
            "pattern": pattern, "start_is_bound": bound, "closed_at": closed,
        }),
    }
}
