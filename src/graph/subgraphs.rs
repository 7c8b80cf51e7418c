//! Every subgraph of a graph, up to isomorphism: the positions a game from it can
//! reach (delete edges and vertices in any order), each once, in canonical form.

use std::collections::HashSet;

use rayon::prelude::*;

use super::Graph;
use super::canon::canonical;
use crate::base::stop::Stop;

/// Every subgraph of `g` up to isomorphism (`g` itself and the empty graph
/// included), each in canonical form, ordered by vertices, then edges (both
/// descending), then by its canonical form, so the order does not depend on how
/// `g` was labelled.
///
/// Breadth first from `g`: a subgraph `H != G` arises from some subgraph with one
/// more vertex (delete a vertex of `H`'s complement together with its edges) or
/// one more edge, so every subgraph is reached.
pub fn subgraphs(g: &Graph) -> Vec<Graph> {
    subgraphs_or_stop(g, &Stop::new()).expect("never stopped")
}

/// [`subgraphs`], or `None` if `stop` is set before the end (checked between
/// levels).
pub(crate) fn subgraphs_or_stop(g: &Graph, stop: &Stop) -> Option<Vec<Graph>> {
    let start = canonical(g);
    let mut seen: HashSet<Graph> = HashSet::from([start.clone()]);
    let mut level = vec![start];
    while !level.is_empty() {
        if stop.requested() {
            return None;
        }
        let found: Vec<Graph> = level
            .par_iter()
            .flat_map_iter(|h| h.options().into_iter().map(|(_, o)| canonical(&o)))
            .collect();
        level = found
            .into_iter()
            .filter(|h| seen.insert(h.clone()))
            .collect();
    }
    let mut all: Vec<Graph> = seen.into_iter().collect();
    all.sort_by(|a, b| {
        (b.n, b.edges())
            .cmp(&(a.n, a.edges()))
            .then_with(|| (a.loops, &a.adj).cmp(&(b.loops, &b.adj)))
    });
    Some(all)
}
