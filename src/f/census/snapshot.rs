//! Brent's snapshots, shared between neighbouring rows. Rows that renew their
//! snapshots at the same column mostly do so together, and neighbouring rows'
//! states differ in a few values (doc/algorithm.md section 4), so a snapshot is a
//! state shared with the rows just below it plus the few positions where its
//! own differs: one young row's state in memory where each row held its own.
//! Uses `engine` for the state.

use crate::base::bytes::narrow;
use std::sync::Arc;

use crate::f::engine::{LiveRow, State};

/// More differing positions than this and a snapshot gets a base of its own.
const MAX_PATCH: usize = 64;

/// A row's state at a batch boundary, as a comparison sees it: compared in
/// place, copied only when it becomes the snapshot.
pub(super) trait StateAt {
    /// Whether the state is `s`.
    fn is(&self, s: &State) -> bool;
    /// A copy of the state.
    fn copy(&self) -> State;
}

impl StateAt for State {
    fn is(&self, s: &State) -> bool {
        self == s
    }
    fn copy(&self) -> State {
        self.clone()
    }
}

impl StateAt for LiveRow<'_> {
    fn is(&self, s: &State) -> bool {
        self.state_is(s)
    }
    fn copy(&self) -> State {
        self.state()
    }
}

/// A row's state at its snapshot's column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Snapshot {
    /// A state taken at the same column, maybe another row's.
    base: Arc<State>,
    /// The positions `x` (the value `q + x`) where this state differs from
    /// `base`, increasing.
    patch: Vec<u32>,
}

/// The newest base made at a column, for the next row that renews there.
pub(crate) type LastBase = Option<(u32, Arc<State>)>;

/// The positions where two states at one column differ, increasing; `None`
/// once there are more than `most`.
fn differences(a: &State, b: &State, most: usize) -> Option<Vec<u32>> {
    let (a, b) = (a.words(), b.words());
    let mut out = Vec::new();
    for k in 0..a.len().max(b.len()) {
        let mut x = a.get(k).copied().unwrap_or(0) ^ b.get(k).copied().unwrap_or(0);
        while x != 0 {
            out.push(64 * narrow::<u32, _>(k) + x.trailing_zeros());
            if out.len() > most {
                return None;
            }
            x &= x - 1;
        }
    }
    Some(out)
}

impl Snapshot {
    /// A snapshot holding `state` alone.
    pub(crate) fn alone(state: State) -> Snapshot {
        Snapshot {
            base: Arc::new(state),
            patch: Vec::new(),
        }
    }

    /// The snapshot of `state` at column `q`: as differences from `last` when
    /// that base was made at `q` and is near, else a new base, which `last`
    /// then becomes.
    pub(crate) fn take(state: State, q: u32, last: &mut LastBase) -> Snapshot {
        if let Some((at, base)) = last.as_ref()
            && *at == q
            && let Some(patch) = differences(&state, base, MAX_PATCH)
        {
            return Snapshot {
                base: Arc::clone(base),
                patch,
            };
        }
        let snapshot = Snapshot::alone(state);
        *last = Some((q, Arc::clone(&snapshot.base)));
        snapshot
    }

    /// The state itself.
    pub(crate) fn state(&self) -> State {
        if self.patch.is_empty() {
            return (*self.base).clone();
        }
        let mut words = self.base.words();
        for &x in &self.patch {
            let k = x as usize / 64;
            if k >= words.len() {
                words.resize(k + 1, 0);
            }
            words[k] ^= 1 << (x % 64);
        }
        State::from_words(&words)
    }

    /// Whether `state` (at the snapshot's column plus a period) is this one.
    pub(crate) fn matches(&self, state: &dyn StateAt) -> bool {
        if self.patch.is_empty() {
            return state.is(&self.base);
        }
        differences(&state.copy(), &self.base, self.patch.len()).is_some_and(|d| d == self.patch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(values: &[u32]) -> State {
        State::from_fn(600, |x| values.contains(&x))
    }

    #[test]
    fn a_shared_snapshot_is_its_own_state() {
        let a: Vec<u32> = (0..600).filter(|x| x % 3 != 1).collect();
        let mut b = a.clone();
        b.retain(|&x| x != 200 && x != 5);
        b.push(301);
        let (sa, sb) = (state(&a), state(&b));
        let mut last = None;
        let snap_a = Snapshot::take(sa.clone(), 70, &mut last);
        let snap_b = Snapshot::take(sb.clone(), 70, &mut last);
        assert!(Arc::ptr_eq(&snap_a.base, &snap_b.base), "b shares a's base");
        assert_eq!(snap_b.patch, vec![5, 200, 301]);
        assert_eq!((snap_a.state(), snap_b.state()), (sa.clone(), sb.clone()));
        assert!(snap_b.matches(&sb) && !snap_b.matches(&sa) && snap_a.matches(&sa));
        // Another column, or a state far from the base: a base of its own.
        let snap_c = Snapshot::take(sb.clone(), 71, &mut last);
        assert!(snap_c.patch.is_empty() && !Arc::ptr_eq(&snap_c.base, &snap_a.base));
        let far = state(&(0..600).filter(|x| x % 3 == 1).collect::<Vec<_>>());
        let snap_d = Snapshot::take(far.clone(), 71, &mut last);
        assert!(snap_d.patch.is_empty() && snap_d.state() == far);
        // A state past the base's last word.
        let long = state(&[599]);
        let snap_e = Snapshot::take(long.clone(), 71, &mut last);
        assert_eq!(snap_e.state(), long);
    }
}
