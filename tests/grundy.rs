//! The Grundy sweep against the game's definition: a memoised mex over the
//! moves of doc/chomp.md section 1, written here from the rules alone; and
//! against the P-positions of the reference table.

mod common;

use std::collections::HashMap;

use chomp3::grundy::Sweep;

/// `G(p,q,r)` by its definition: the least value no move reaches.
struct Brute {
    memo: HashMap<(u32, u32, u32), u32>,
}

impl Brute {
    fn value(&mut self, p: u32, q: u32, r: u32) -> u32 {
        if let Some(&g) = self.memo.get(&(p, q, r)) {
            return g;
        }
        let mut options = Vec::new();
        for c in 2..=p {
            options.push((c - 1, q.min(c - 1), r.min(c - 1)));
        }
        for c in 1..=q {
            options.push((p, c - 1, r.min(c - 1)));
        }
        for c in 1..=r {
            options.push((p, q, c - 1));
        }
        let values: Vec<u32> = options
            .into_iter()
            .map(|(a, b, c)| self.value(a, b, c))
            .collect();
        let g = (0..).find(|v| !values.contains(v)).unwrap();
        self.memo.insert((p, q, r), g);
        g
    }
}

#[test]
fn every_position_up_to_60_has_the_value_of_its_definition() {
    let top = 60;
    let mut brute = Brute {
        memo: HashMap::new(),
    };
    let mut sweep = Sweep::new(top);
    let mut checked = 0;
    for p in 1..=top {
        sweep.step();
        assert_eq!(sweep.p(), p);
        for q in 0..=p {
            for r in 0..=q {
                assert_eq!(
                    sweep.value(q, r),
                    Some(brute.value(p, q, r)),
                    "G({p},{q},{r})"
                );
                checked += 1;
            }
        }
        assert_eq!(sweep.value(p + 1, 0), None, "a line not started");
    }
    assert_eq!(checked, (1..=61).map(|k| k * (k + 1) / 2).sum::<u32>() - 1);
}

#[test]
fn the_value_is_zero_exactly_at_the_reference_tables_p_positions() {
    // f[r][q] for q, r <= 30; where f(q,r) >= q the P-position of line (q,r)
    // is [f(q,r), q, r], and the line has no other zero (values along a line
    // differ). Where f(q,r) < q the line has no zero at all.
    let f = common::reference_table();
    let mut sweep = Sweep::new(30);
    let mut zeros: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
    for _ in 0..200 {
        sweep.step();
        for q in 0..=30.min(sweep.p()) {
            for r in 0..=q {
                if sweep.value(q, r) == Some(0) {
                    zeros.entry((q, r)).or_default().push(sweep.p());
                }
            }
        }
    }
    for q in 0..=30u32 {
        for r in 0..=q {
            let fq = f[r as usize][q as usize];
            let want = if fq >= q { vec![fq] } else { vec![] };
            assert_eq!(
                zeros.remove(&(q, r)).unwrap_or_default(),
                want,
                "line ({q},{r})"
            );
        }
    }
}
