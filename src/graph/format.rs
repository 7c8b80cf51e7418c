//! Reading graphs: graph6 and sparse6 (nauty's formats, one graph per line;
//! sparse6 starts with `:` and carries loops and parallel edges) and edge lists
//! (`u v` per line). Errors say what is wrong; the caller names the line.

use super::{MAX_VERTICES, Multigraph};
use crate::base::bytes::narrow;

/// Why a line is not a graph.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// A character outside graph6's range `?` .. `~`.
    #[error("character {0:?} is not graph6/sparse6 (allowed: '?' to '~')")]
    BadChar(char),
    /// The line ends before the graph does.
    #[error("the line ends too early for a graph on {0} vertices")]
    Short(usize),
    /// More characters than the graph needs (graph6).
    #[error("{0} characters more than a graph6 graph on {1} vertices has")]
    Long(usize, usize),
    /// Too many vertices for this solver.
    #[error("{0} vertices; at most {MAX_VERTICES} are supported")]
    TooBig(usize),
    /// An edge-list vertex number beyond what a graph holds.
    #[error("vertex {0} is beyond the largest, {last}", last = MAX_VERTICES - 1)]
    VertexTooLarge(String),
    /// An edge-list line that is not two vertex numbers.
    #[error("{0:?} is not an edge `u v` (two vertex numbers)")]
    NotAnEdge(String),
    /// An empty line.
    #[error("empty line")]
    Empty,
}

/// The 6-bit values of a graph6/sparse6 body.
fn sixes(s: &str) -> Result<Vec<u8>, FormatError> {
    s.chars()
        .map(|c| {
            if ('?'..='~').contains(&c) {
                Ok(c as u8 - 63)
            } else {
                Err(FormatError::BadChar(c))
            }
        })
        .collect()
}

/// `n` and the rest of the 6-bit values.
fn size(x: &[u8]) -> Result<(usize, &[u8]), FormatError> {
    match x {
        [63, 63, rest @ ..] if rest.len() >= 6 => {
            let n = rest[..6].iter().fold(0usize, |a, &b| a << 6 | b as usize);
            Ok((n, &rest[6..]))
        }
        [63, rest @ ..] if rest.len() >= 3 => {
            let n = rest[..3].iter().fold(0usize, |a, &b| a << 6 | b as usize);
            Ok((n, &rest[3..]))
        }
        [63, ..] => Err(FormatError::Short(0)),
        [n, rest @ ..] => Ok((*n as usize, rest)),
        [] => Err(FormatError::Empty),
    }
}

/// The bits of 6-bit values, most significant first.
fn bits(x: &[u8]) -> impl Iterator<Item = bool> + '_ {
    x.iter()
        .flat_map(|&b| (0..6).rev().map(move |i| b >> i & 1 == 1))
}

/// One graph6 or sparse6 line (no newline).
pub fn parse_line(line: &str) -> Result<Multigraph, FormatError> {
    let line = line.trim_end_matches(['\r', '\n']);
    // nauty's optional headers.
    let line = (line.strip_prefix(">>graph6<<"))
        .or_else(|| line.strip_prefix(">>sparse6<<"))
        .unwrap_or(line);
    if let Some(body) = line.strip_prefix(':') {
        return sparse6(body);
    }
    let x = sixes(line)?;
    let (n, rest) = size(&x)?;
    if n > MAX_VERTICES {
        return Err(FormatError::TooBig(n));
    }
    let pairs = n * n.saturating_sub(1) / 2;
    let chars = pairs.div_ceil(6);
    if rest.len() < chars {
        return Err(FormatError::Short(n));
    }
    if rest.len() > chars {
        return Err(FormatError::Long(rest.len() - chars, n));
    }
    let mut edges = Vec::new();
    let mut b = bits(rest);
    for v in 1..n {
        for u in 0..v {
            if b.next() == Some(true) {
                edges.push((u, v));
            }
        }
    }
    Ok(Multigraph { n, edges })
}

/// The body of a sparse6 line (after `:`).
fn sparse6(body: &str) -> Result<Multigraph, FormatError> {
    let x = sixes(body)?;
    let (n, rest) = size(&x)?;
    if n > MAX_VERTICES {
        return Err(FormatError::TooBig(n));
    }
    // k bits hold a vertex number below n (none for n = 1, as nauty reads it).
    let k = bits_for(n);
    let all: Vec<bool> = bits(rest).collect();
    let mut edges = Vec::new();
    let (mut v, mut i) = (0usize, 0usize);
    while i + 1 + k <= all.len() {
        let b = all[i];
        let x = all[i + 1..i + 1 + k]
            .iter()
            .fold(0usize, |a, &bit| a << 1 | bit as usize);
        i += 1 + k;
        if b {
            v += 1;
        }
        if v >= n {
            break;
        }
        if x > v {
            v = x;
        } else {
            edges.push((x, v));
        }
    }
    Ok(Multigraph { n, edges })
}

/// An edge list: `u v` per line (vertex numbers from 0; blank lines and lines
/// starting with `#` skipped). `n` is one more than the largest vertex.
pub fn parse_edge_list(text: &str) -> Result<Multigraph, (usize, FormatError)> {
    let mut edges = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || (i + 1, FormatError::NotAnEdge(line.to_string()));
        let words: Vec<&str> = line.split_whitespace().collect();
        let [u, v] = words[..] else {
            return Err(bad());
        };
        // Digits only (no sign): a number too large for `usize` is still a
        // vertex number, named as too large rather than as not a number.
        let vertex = |w: &str| match w.parse::<usize>() {
            Ok(x) if x < MAX_VERTICES => Ok(x),
            _ if !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) => {
                Err((i + 1, FormatError::VertexTooLarge(w.to_string())))
            }
            _ => Err(bad()),
        };
        edges.push((vertex(u)?, vertex(v)?));
    }
    let n = edges.iter().map(|&(u, v)| u.max(v) + 1).max().unwrap_or(0);
    if n > MAX_VERTICES {
        return Err((0, FormatError::TooBig(n)));
    }
    Ok(Multigraph { n, edges })
}

/// The bits that hold a vertex number below `n` (sparse6's `k`).
fn bits_for(n: usize) -> usize {
    (usize::BITS - n.saturating_sub(1).leading_zeros()) as usize
}

/// A graph's label in the output: its graph6 line, or its sparse6 line if it
/// has a loop (graph6 has none, so the label reads back as the graph).
pub(crate) fn label(g: &super::Graph) -> String {
    if g.edge_list().iter().any(|&(u, v)| u == v) {
        to_sparse6(g)
    } else {
        to_graph6(g)
    }
}

/// The sparse6 line of a graph (nauty's formats.txt): its edges `(u, v)`,
/// `u <= v`, by `v` then `u`, each as a bit (1: `v` is one past the last)
/// and `u`, with `v` set first where it is further on; padded with ones,
/// or with a zero then ones where ones alone would read as one more loop.
pub(crate) fn to_sparse6(g: &super::Graph) -> String {
    let n = g.vertices();
    let k = bits_for(n);
    let mut edges = g.edge_list();
    edges.sort_by_key(|&(u, v)| (v, u));
    let mut bits: Vec<bool> = Vec::new();
    let put = |b: bool, x: usize, bits: &mut Vec<bool>| {
        bits.push(b);
        bits.extend((0..k).rev().map(|i| x >> i & 1 == 1));
    };
    let mut last = 0;
    for (u, v) in edges {
        if v == last {
            put(false, u, &mut bits);
        } else if v == last + 1 {
            put(true, u, &mut bits);
        } else {
            put(true, v, &mut bits);
            put(false, u, &mut bits);
        }
        last = v;
    }
    let pad = (6 - bits.len() % 6) % 6;
    if k < 6 && n == 1 << k && pad > k && last + 2 == n {
        bits.push(false);
    }
    while !bits.len().is_multiple_of(6) {
        bits.push(true);
    }
    let mut out = vec![b':', narrow::<u8, _>(n) + 63];
    for six in bits.chunks(6) {
        out.push(six.iter().fold(0u8, |a, &b| a << 1 | b as u8) + 63);
    }
    String::from_utf8(out).expect("ASCII")
}

/// The graph6 line of a simple graph (loops and parallel edges are not in graph6).
pub(crate) fn to_graph6(g: &super::Graph) -> String {
    let n = g.vertices();
    let mut out = vec![narrow::<u8, _>(n) + 63];
    let mut acc = 0u8;
    let mut k = 0;
    for v in 1..n {
        for u in 0..v {
            acc = acc << 1 | g.has_edge(u, v) as u8;
            k += 1;
            if k == 6 {
                out.push(acc + 63);
                (acc, k) = (0, 0);
            }
        }
    }
    if k > 0 {
        out.push((acc << (6 - k)) + 63);
    }
    String::from_utf8(out).expect("ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graph6_of_nautys_examples() {
        // nauty's formats.txt: the graph on 5 vertices with edges 0-2 0-4 1-3 3-4.
        let g = parse_line("DQc").unwrap();
        assert_eq!(g.n, 5);
        let mut e = g.edges.clone();
        e.sort();
        assert_eq!(e, [(0, 2), (0, 4), (1, 3), (3, 4)]);
        assert_eq!(to_graph6(&super::super::Graph::from_multigraph(&g)), "DQc");
        assert_eq!(
            parse_line("@").unwrap(),
            Multigraph {
                n: 1,
                edges: vec![]
            }
        );
        assert!(matches!(parse_line("D Q"), Err(FormatError::BadChar(' '))));
        assert!(matches!(parse_line("DQ"), Err(FormatError::Short(5))));
        assert!(matches!(parse_line("DQcc"), Err(FormatError::Long(1, 5))));
    }

    #[test]
    fn sparse6_of_nautys_example() {
        // nauty's formats.txt: ":Fa@x^" is the graph on 7 vertices with edges
        // 0-1 0-2 1-2 5-6.
        let g = parse_line(":Fa@x^").unwrap();
        assert_eq!(parse_line(">>sparse6<<:Fa@x^").unwrap(), g);
        assert_eq!(g.n, 7);
        let mut e = g.edges.clone();
        e.sort();
        assert_eq!(e, [(0, 1), (0, 2), (1, 2), (5, 6)]);
    }

    #[test]
    fn a_looped_graph_is_labelled_in_sparse6_and_reads_back() {
        use super::super::Graph;
        // nauty's formats.txt example, encoded here and read back.
        let g = Graph::from_edges(7, &[(0, 1), (0, 2), (1, 2), (5, 6)]);
        assert_eq!(to_sparse6(&g), ":Fa@x^");
        // Graphs with loops on 1 to 9 vertices, every fifth subset of a few
        // edges and loops: the label reads back as the same graph.
        for n in 1..=9usize {
            let slots: Vec<(usize, usize)> = (0..n)
                .flat_map(|v| (0..=v).map(move |u| (u, v)))
                .take(12)
                .collect();
            for mask in (0u32..1 << slots.len()).step_by(5) {
                let mut edges: Vec<(usize, usize)> = (0..slots.len())
                    .filter(|i| mask >> i & 1 == 1)
                    .map(|i| slots[i])
                    .collect();
                edges.push((n - 1, n - 1));
                let g = Graph::from_edges(n, &edges);
                let back = Graph::from_multigraph(&parse_line(&label(&g)).unwrap());
                assert_eq!(back.edge_list(), g.edge_list(), "n = {n}, {edges:?}");
                assert_eq!(back.vertices(), n);
            }
        }
    }

    #[test]
    fn edge_lists_name_the_bad_line() {
        let g = parse_edge_list("# a triangle\n0 1\n1 2\n\n2 0\n").unwrap();
        assert_eq!((g.n, g.edges.len()), (3, 3));
        assert_eq!(parse_edge_list("0 1\n1 x\n").unwrap_err().0, 2);
    }
}
