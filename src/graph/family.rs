//! Named families of graphs, written `name:args` ([`FAMILIES`] lists them: paths,
//! cycles, stars, complete and complete multipartite graphs, wheels `W_n`, the
//! fans `F_n` and `F'_n` of \[OS\], every `F'_n` less two spokes, and `G_{m,k}` of
//! \[KY\]; doc/graphs.md). A number may be a range `a..b` (both ends included):
//! `wheel:3..16` is fourteen wheels. Owns only the constructions; uses `Graph`.

use super::Graph;

/// A family of graphs: its name, its arguments, and what it is.
#[derive(Clone, Copy, Debug)]
pub struct Family {
    /// The name before the colon.
    pub name: &'static str,
    /// Its arguments, as written after the colon.
    pub args: &'static str,
    /// What the graph is.
    pub what: &'static str,
}

/// Every family, the one list that parsing, errors and `chomp3 graph --help` use.
pub const FAMILIES: &[Family] = &[
    Family {
        name: "path",
        args: "n",
        what: "the path on n vertices",
    },
    Family {
        name: "cycle",
        args: "n",
        what: "the cycle on n >= 3 vertices",
    },
    Family {
        name: "star",
        args: "n",
        what: "a centre and n leaves",
    },
    Family {
        name: "complete",
        args: "n",
        what: "K_n",
    },
    Family {
        name: "bipartite",
        args: "a,b",
        what: "K_{a,b}",
    },
    Family {
        name: "multipartite",
        args: "a,b,...",
        what: "the complete multipartite graph",
    },
    Family {
        name: "wheel",
        args: "n",
        what: "W_n: an n-cycle and a hub",
    },
    Family {
        name: "fan",
        args: "n",
        what: "F_n: W_n less one rim edge",
    },
    Family {
        name: "fan2",
        args: "n",
        what: "F'_n: W_n less two adjacent rim edges",
    },
    Family {
        name: "fan2-spokes",
        args: "n",
        what: "every F'_n less two spokes",
    },
    Family {
        name: "gmk",
        args: "m,k[,c]",
        what: "G_{m,k} of [KY] on a c-cycle (c = 3)",
    },
];

/// The families as `name:args` for help texts and errors.
pub fn names() -> String {
    let all: Vec<String> = FAMILIES
        .iter()
        .map(|f| format!("{}:{}", f.name, f.args))
        .collect();
    all.join(", ")
}

/// Why a family spec names no graph.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FamilyError {
    /// No colon: not a family spec at all.
    #[error("{spec:?} is not `name:args` (for example wheel:9)")]
    NotFamily {
        /// What was given.
        spec: String,
    },
    /// A name not in [`FAMILIES`].
    #[error("{spec:?}: unknown family {name:?} (the families: {})", names())]
    Unknown {
        /// What was given.
        spec: String,
        /// The name in it.
        name: String,
    },
    /// Arguments the family does not take.
    #[error("{spec:?}: {what}")]
    Arguments {
        /// What was given.
        spec: String,
        /// What the family takes.
        what: String,
    },
    /// More vertices than a graph holds.
    #[error("{spec:?} has {n} vertices; at most {max} are supported")]
    TooLarge {
        /// What was given.
        spec: String,
        /// Its vertices.
        n: usize,
        /// The most a graph holds.
        max: usize,
    },
}

fn arguments(spec: &str, what: impl Into<String>) -> FamilyError {
    FamilyError::Arguments {
        spec: spec.to_string(),
        what: what.into(),
    }
}

/// The most graphs one spec's ranges may name (they are built before any
/// is solved).
pub const MAX_EXPANDED: u64 = 100_000;

/// Every graph `spec` names, labelled: ranges expanded in order (the last
/// argument fastest), multi-graph families in their own order.
pub(crate) fn expand(spec: &str) -> Result<Vec<(String, Graph)>, FamilyError> {
    let (name, args) = split(spec)?;
    // The product of the ranges' lengths, counted before any is expanded.
    let mut count: u128 = 1;
    for arg in args.split(',') {
        if let Some((a, b)) = arg.trim().split_once("..") {
            let (a, b) = (whole(spec, a)?, whole(spec, b)?);
            count = count.saturating_mul((b.saturating_sub(a) + 1) as u128);
        }
    }
    if count > MAX_EXPANDED as u128 {
        return Err(arguments(
            spec,
            format!(
                "its ranges name {count} graphs; one spec may name at most {MAX_EXPANDED}: split it"
            ),
        ));
    }
    let mut specs = vec![String::new()];
    for (i, arg) in args.split(',').enumerate() {
        let values: Vec<String> = match arg.trim().split_once("..") {
            Some((a, b)) => {
                let (a, b) = (whole(spec, a)?, whole(spec, b)?);
                if a > b {
                    return Err(arguments(spec, format!("the range {a}..{b} is empty")));
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

/// `name` and `args` of `name:args`, the name a known family.
fn split(spec: &str) -> Result<(&str, &str), FamilyError> {
    let (name, args) = spec.split_once(':').ok_or_else(|| FamilyError::NotFamily {
        spec: spec.to_string(),
    })?;
    if !FAMILIES.iter().any(|f| f.name == name) {
        return Err(FamilyError::Unknown {
            spec: spec.to_string(),
            name: name.to_string(),
        });
    }
    Ok((name, args))
}

/// A whole number in `spec`, or the error that names it. Every argument of a
/// family counts vertices, so one beyond [`super::MAX_VERTICES`] is refused
/// here, before any sum of arguments could pass `usize`.
fn whole(spec: &str, a: &str) -> Result<usize, FamilyError> {
    let a = a.trim();
    match a.parse::<usize>() {
        Ok(n) if n > super::MAX_VERTICES => Err(arguments(
            spec,
            format!(
                "{n} is more vertices than a graph holds (at most {})",
                super::MAX_VERTICES
            ),
        )),
        Ok(n) => Ok(n),
        Err(_) if !a.is_empty() && a.bytes().all(|b| b.is_ascii_digit()) => Err(arguments(
            spec,
            format!(
                "{a} is more vertices than a graph holds (at most {})",
                super::MAX_VERTICES
            ),
        )),
        Err(_) => Err(arguments(
            spec,
            "the arguments must be whole numbers or ranges a..b",
        )),
    }
}

/// `F'_n` less the spokes at rim vertices `i < j`, for every pair, labelled
/// `fan2-spokes:n:i,j` (rim `0..n`, the hub `n`; rim vertex `n - 1` is the one
/// whose two rim edges are gone).
fn fan2_less_two_spokes(spec: &str) -> Result<Vec<(String, Graph)>, FamilyError> {
    let n = whole(spec, &spec["fan2-spokes:".len()..])?;
    let f = wheel_less(spec, n, 2)?;
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
pub fn build(spec: &str) -> Result<Graph, FamilyError> {
    let (name, args) = split(spec)?;
    let nums: Vec<usize> = args
        .split(',')
        .map(|a| whole(spec, a))
        .collect::<Result<_, _>>()?;
    let one = || match nums[..] {
        [n] => Ok(n),
        _ => Err(arguments(spec, format!("{name} takes one number"))),
    };
    let cycle_edges = |n: usize| (0..n).map(move |i| (i, (i + 1) % n));
    match name {
        "path" => {
            let n = fits(spec, one()?)?;
            Ok(Graph::from_edges(
                n,
                &(1..n).map(|i| (i - 1, i)).collect::<Vec<_>>(),
            ))
        }
        "cycle" => {
            let n = fits(spec, one()?)?;
            if n < 3 {
                return Err(arguments(spec, "a cycle has at least 3 vertices"));
            }
            Ok(Graph::from_edges(n, &cycle_edges(n).collect::<Vec<_>>()))
        }
        "star" => {
            let n = fits(spec, one()? + 1)?;
            Ok(Graph::from_edges(
                n,
                &(1..n).map(|i| (0, i)).collect::<Vec<_>>(),
            ))
        }
        "complete" => multipartite(&vec![1; one()?], spec),
        "bipartite" => match nums[..] {
            [_, _] => multipartite(&nums, spec),
            _ => Err(arguments(spec, "bipartite takes two numbers a,b")),
        },
        "multipartite" => multipartite(&nums, spec),
        "wheel" => wheel_less(spec, one()?, 0),
        "fan" => wheel_less(spec, one()?, 1),
        "fan2" => wheel_less(spec, one()?, 2),
        "fan2-spokes" => Err(arguments(spec, "fan2-spokes names several graphs")),
        "gmk" => {
            let (m, k, c) = match nums[..] {
                [m, k] => (m, k, 3),
                [m, k, c] => (m, k, c),
                _ => return Err(arguments(spec, "gmk takes m,k or m,k,c")),
            };
            if c < 3 || c % 2 == 0 {
                return Err(arguments(spec, "the cycle length c must be odd and >= 3"));
            }
            let n = fits(spec, c + 1 + m + k)?;
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
        _ => unreachable!("split() accepts only the names of FAMILIES"),
    }
}

/// `n` if a graph on `n` vertices can be held.
fn fits(spec: &str, n: usize) -> Result<usize, FamilyError> {
    if n > super::MAX_VERTICES {
        return Err(FamilyError::TooLarge {
            spec: spec.to_string(),
            n,
            max: super::MAX_VERTICES,
        });
    }
    Ok(n)
}

/// `W_n` less its last `dropped` rim edges: rim `0..n`, hub `n`; the rim edges
/// dropped are `(n-1, 0)` and then `(n-2, n-1)`.
fn wheel_less(spec: &str, n: usize, dropped: usize) -> Result<Graph, FamilyError> {
    fits(spec, n + 1)?;
    if n < 3 {
        return Err(arguments(
            spec,
            match dropped {
                0 => "a wheel's rim has at least 3 vertices",
                _ => "a fan's path has at least 3 vertices",
            },
        ));
    }
    let mut edges: Vec<(usize, usize)> = (0..n).map(|i| (i, n)).collect();
    edges.extend((0..n).map(|i| (i, (i + 1) % n)).take(n - dropped));
    Ok(Graph::from_edges(n + 1, &edges))
}

/// The complete multipartite graph with these part sizes.
fn multipartite(parts: &[usize], spec: &str) -> Result<Graph, FamilyError> {
    let n = fits(spec, parts.iter().sum())?;
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
