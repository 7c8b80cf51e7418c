//! Named families, written `name:args`: `path:n`, `cycle:n`, `star:n` (`n` leaves),
//! `complete:n`, `bipartite:a,b`, `multipartite:a,b,...`, `wheel:n` (`W_n`: an
//! `n`-cycle and a hub), `fan:n` (`F_n`: `W_n` less one rim edge), `fan2:n`
//! (`F'_n`: less two adjacent rim edges), `gmk:m,k[,c]` (`G_{m,k}` of [KY] on a
//! `c`-cycle, `c = 3` by default; doc/graphs.md section 3), and `fan2-spokes:n`
//! (every `F'_n` less two spokes, one graph per pair). A number may be a range
//! `a..b` (both ends included): `wheel:3..16` is fourteen wheels.

use super::Graph;

/// Every graph `spec` names, labelled: ranges expanded in order (the last
/// argument fastest), multi-graph families in their own order.
pub fn expand(spec: &str) -> Result<Vec<(String, Graph)>, String> {
    let (name, args) = spec
        .split_once(':')
        .ok_or_else(|| format!("{spec:?} is not `name:args` (for example wheel:9)"))?;
    let mut specs = vec![String::new()];
    for (i, arg) in args.split(',').enumerate() {
        let values: Vec<String> = match arg.trim().split_once("..") {
            Some((a, b)) => {
                let (a, b) = (whole(spec, a)?, whole(spec, b)?);
                if a > b {
                    return Err(format!("{spec:?}: the range {a}..{b} is empty"));
                }
                (a..=b).map(|v| v.to_string()).collect()
            }
            None => vec![arg.trim().to_string()],
        };
        let sep = if i == 0 { "" } else { "," };
        specs = specs
            .iter()
            .flat_map(|s| values.iter().map(move |v| format!("{s}{sep}{v}")))
            .collect();
    }
    let mut out = Vec::new();
    for args in specs {
        let one = format!("{name}:{args}");
        if name == "fan2-spokes" {
            out.extend(fan2_less_two_spokes(&one)?);
        } else {
            let g = build(&one)?;
            out.push((one, g));
        }
    }
    Ok(out)
}

/// A whole number in `spec`, or the error that names it.
fn whole(spec: &str, a: &str) -> Result<usize, String> {
    a.trim()
        .parse()
        .map_err(|_| format!("{spec:?}: the arguments must be whole numbers or ranges a..b"))
}

/// `F'_n` less the spokes at rim vertices `i < j`, for every pair, labelled
/// `fan2-spokes:n:i,j` (rim `0..n`, the hub `n`; rim vertex `n - 1` is the one
/// whose two rim edges are gone).
fn fan2_less_two_spokes(spec: &str) -> Result<Vec<(String, Graph)>, String> {
    let n = whole(spec, &spec["fan2-spokes:".len()..])?;
    let f = build(&format!("fan2:{n}")).map_err(|e| e.replace("fan2:", "fan2-spokes:"))?;
    let mut out = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let mut g = f.clone();
            g.remove_edge(i, n);
            g.remove_edge(j, n);
            out.push((format!("{spec}:{i},{j}"), g));
        }
    }
    Ok(out)
}

/// Builds the family member `spec`, or says what is wrong with it.
pub fn build(spec: &str) -> Result<Graph, String> {
    let (name, args) = spec
        .split_once(':')
        .ok_or_else(|| format!("{spec:?} is not `name:args` (for example wheel:9)"))?;
    let nums: Vec<usize> = args
        .split(',')
        .map(|a| a.trim().parse::<usize>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("{spec:?}: the arguments must be whole numbers"))?;
    let one = || match nums[..] {
        [n] => Ok(n),
        _ => Err(format!("{spec:?}: {name} takes one number")),
    };
    let fits = |n: usize| {
        if n > super::MAX_VERTICES {
            Err(format!(
                "{spec:?} has {n} vertices; at most {} are supported",
                super::MAX_VERTICES
            ))
        } else {
            Ok(n)
        }
    };
    let cycle_edges = |n: usize| (0..n).map(move |i| (i, (i + 1) % n));
    match name {
        "path" => {
            let n = fits(one()?)?;
            Ok(Graph::from_edges(
                n,
                &(1..n).map(|i| (i - 1, i)).collect::<Vec<_>>(),
            ))
        }
        "cycle" => {
            let n = fits(one()?)?;
            if n < 3 {
                return Err(format!("{spec:?}: a cycle has at least 3 vertices"));
            }
            Ok(Graph::from_edges(n, &cycle_edges(n).collect::<Vec<_>>()))
        }
        "star" => {
            let n = fits(one()? + 1)?;
            Ok(Graph::from_edges(
                n,
                &(1..n).map(|i| (0, i)).collect::<Vec<_>>(),
            ))
        }
        "complete" => multipartite(&vec![1; one()?], spec),
        "bipartite" if nums.len() == 2 => multipartite(&nums, spec),
        "multipartite" => multipartite(&nums, spec),
        "wheel" | "fan" | "fan2" => {
            let n = one()?;
            fits(n + 1)?;
            if n < 3 {
                return Err(format!("{spec:?}: a wheel's rim has at least 3 vertices"));
            }
            let dropped = match name {
                "wheel" => 0,
                "fan" => 1,
                _ => 2,
            };
            // Rim 0..n, hub n; drop rim edges (n-1, 0) and then (n-2, n-1).
            let mut edges: Vec<(usize, usize)> = (0..n).map(|i| (i, n)).collect();
            edges.extend(cycle_edges(n).take(n - dropped));
            Ok(Graph::from_edges(n + 1, &edges))
        }
        "gmk" => {
            let (m, k, c) = match nums[..] {
                [m, k] => (m, k, 3),
                [m, k, c] => (m, k, c),
                _ => return Err(format!("{spec:?}: gmk takes m,k or m,k,c")),
            };
            if c < 3 || c % 2 == 0 {
                return Err(format!("{spec:?}: the cycle length c must be odd and >= 3"));
            }
            let n = fits(c + 1 + m + k)?;
            // Cycle 0..c with A = 0; B = c; paths of m and k vertices hang at B.
            let mut edges: Vec<(usize, usize)> = cycle_edges(c).collect();
            edges.push((0, c));
            let mut next = c + 1;
            for len in [m, k] {
                let mut prev = c;
                for _ in 0..len {
                    edges.push((prev, next));
                    prev = next;
                    next += 1;
                }
            }
            Ok(Graph::from_edges(n, &edges))
        }
        _ => Err(format!(
            "{spec:?}: unknown family {name:?} (path, cycle, star, complete, bipartite, multipartite, wheel, fan, fan2, fan2-spokes, gmk)"
        )),
    }
}

/// The complete multipartite graph with these part sizes.
fn multipartite(parts: &[usize], spec: &str) -> Result<Graph, String> {
    let n: usize = parts.iter().sum();
    if n > super::MAX_VERTICES {
        return Err(format!(
            "{spec:?} has {n} vertices; at most {} are supported",
            super::MAX_VERTICES
        ));
    }
    let part: Vec<usize> = parts
        .iter()
        .enumerate()
        .flat_map(|(i, &s)| std::iter::repeat_n(i, s))
        .collect();
    let mut edges = Vec::new();
    for v in 0..n {
        for u in 0..v {
            if part[u] != part[v] {
                edges.push((u, v));
            }
        }
    }
    Ok(Graph::from_edges(n, &edges))
}
