//! The least-period search on a proved line (the module comment of `super`,
//! "Least period"): its probe, the states and first values looked at, the
//! divisors refuted, and the full test of a candidate (`Ring`).

use super::*;

/// The least-period work on one line, done on the trailing sweep's thread.
#[derive(Clone, Debug, Default)]
pub(super) enum Probe {
    /// Not proved yet, or done.
    #[default]
    Idle,
    /// Proved at `c`: its states and first values are being looked at.
    Look(Box<Look>),
    /// Least period known: a period of its values is being taken in, to
    /// copy it from (`copies.rs`).
    Fill(Box<Period>),
}

/// See the module's comment ("Least period").
#[derive(Clone, Debug)]
pub(super) struct Look {
    /// The `p` of the proof.
    pub(super) c: u32,
    /// `a`: the state compared with later ones.
    pub(super) snap_at: u32,
    pub(super) snap: Option<Seen>,
    /// `x(c + 1 ..= c + WINDOW)`.
    pub(super) win: Vec<i16>,
    /// First divisor whose window may still be compared.
    pub(super) wlo: usize,
    /// Divisors (by index) with `x(p) != x(p + d)` seen in the window.
    pub(super) refuted: u128,
    /// Divisors compared by state so far (`S(a + d)` met), in order.
    pub(super) checked: usize,
    /// Among them, those with `S(a) = S(a + d)`.
    pub(super) equal: u128,
    /// A full test of a period `e` under way.
    pub(super) ring: Option<Ring>,
    /// The next `p` at which [`Look::observe`] has anything to do (0: the
    /// next step; not kept in a checkpoint).
    pub(super) next: u32,
}

/// The full test of `x(p) = x(p + e)` for `span - e` consecutive `p > from`
/// (`from > c`), `span` a multiple of `e` that is a period of the line from
/// `c + 1` on (`L`, or `P_M` once known): then `e` is one too.
#[derive(Clone, Debug)]
pub(super) struct Ring {
    pub(super) from: u32,
    pub(super) e: u32,
    pub(super) span: u32,
    pub(super) x: Vec<i16>,
    /// `Some(true)`: confirmed; `Some(false)`: refuted.
    pub(super) verdict: Option<bool>,
}

/// Shows a line's `x(p)` and `S(p)` to its probe, if it is looking or
/// filling a period (inline:
/// it runs once per line and step of the trailing sweep, and most probes
/// are idle).
#[inline(always)]
pub(super) fn show(probe: &mut Probe, divs: &[u32], p: u32, x: i32, used: View) {
    match probe {
        Probe::Idle => {}
        Probe::Look(look) if p >= look.next => look.observe(divs, p, narrow::<i16, _>(x), used),
        Probe::Look(_) => {}
        Probe::Fill(period) => period.observe(p, narrow::<i16, _>(x)),
    }
}

impl Look {
    /// Takes in `x(p)` and `S(p)`.
    pub(super) fn observe(&mut self, divs: &[u32], p: u32, x: i16, used: View) {
        let t = (p - self.c) as usize;
        if t <= WINDOW {
            self.win.push(x);
        }
        // Windows: x(c + i) against x(c + i + d), i in 1..=WINDOW.
        while self.wlo < divs.len() && (divs[self.wlo] as usize) + WINDOW < t {
            self.wlo += 1;
        }
        // The divisors whose window holds `t`, less those refuted already
        // (most of them within a few steps of the proof).
        let below = |k: usize| match k {
            128.. => u128::MAX,
            k => (1u128 << k) - 1,
        };
        let hi = divs.partition_point(|&d| (d as usize) < t);
        let mut open = below(hi) & !below(self.wlo) & !self.refuted;
        while open != 0 {
            let i = open.trailing_zeros() as usize;
            if self.win[t - divs[i] as usize - 1] != x {
                self.refuted |= 1 << i;
            }
            open &= open - 1;
        }
        if p == self.snap_at {
            self.snap = Some(used.seen_from(p));
        } else if p > self.snap_at
            && self.checked < divs.len()
            && p == self.snap_at + divs[self.checked]
        {
            if Some(used.seen_from(p)) == self.snap {
                self.equal |= 1 << self.checked;
            }
            self.checked += 1;
        }
        if let Some(ring) = &mut self.ring {
            ring.observe(p, x);
        }
        self.next = self.next_event(divs, p);
    }

    /// The first `p` after `p` at which [`Look::observe`] does more than
    /// move `wlo` on (which [`Look::catch_up`] does for the steps passed
    /// over): a value for the window, a comparison in a divisor's window,
    /// a state to take or compare, a full test under way. Most of the
    /// steps of a line looked at for long have none: from one divisor's
    /// window to the next, nothing.
    fn next_event(&self, divs: &[u32], p: u32) -> u32 {
        let t = (p - self.c) as usize;
        if t < WINDOW || self.ring.as_ref().is_some_and(|r| r.verdict.is_none()) {
            return p + 1;
        }
        // The divisors are ascending, and so is the first step of each
        // window still to come.
        let window = divs[self.wlo..]
            .iter()
            .map(|&d| (d as usize, (d as usize + 1).max(t + 1)))
            .find(|&(d, u)| d + WINDOW >= u)
            .map_or(u32::MAX, |(_, u)| self.c + narrow::<u32, _>(u));
        let state = match self.checked {
            _ if p < self.snap_at => self.snap_at,
            i if i < divs.len() => self.snap_at + divs[i],
            _ => u32::MAX,
        };
        window.min(state)
    }

    /// Moves `wlo` on as [`Look::observe`] would have at `p`, for the steps
    /// it passed over (so that the look is that of a step at every `p`).
    pub(super) fn catch_up(&mut self, divs: &[u32], p: u32) {
        let t = (p - self.c) as usize;
        while self.wlo < divs.len() && (divs[self.wlo] as usize) + WINDOW < t {
            self.wlo += 1;
        }
    }

    pub(super) fn save(&self, w: &mut dyn Write) -> io::Result<()> {
        put32s(
            w,
            [
                self.c,
                self.snap_at,
                narrow::<u32, _>(self.wlo),
                narrow::<u32, _>(self.checked),
            ],
        )?;
        // The masks' low and high halves (a lag has up to 128 divisors).
        put64(w, narrow::<u64, _>(self.refuted & u128::from(u64::MAX)))?;
        put64(w, (self.refuted >> 64) as u64)?;
        put64(w, narrow::<u64, _>(self.equal & u128::from(u64::MAX)))?;
        put64(w, (self.equal >> 64) as u64)?;
        match &self.snap {
            None => put32(w, 0)?,
            Some(s) => {
                put32(w, 1)?;
                s.save(w)?;
            }
        }
        put32(w, crate::base::bytes::len32(self.win.len())?)?;
        put32s(w, self.win.iter().map(|&x| x.cast_unsigned() as u32))?;
        match &self.ring {
            None => put32(w, 0),
            Some(ring) => {
                put32(w, 1)?;
                let verdict = match ring.verdict {
                    None => 0,
                    Some(false) => 1,
                    Some(true) => 2,
                };
                put32s(w, [ring.from, ring.e, verdict])?;
                put32s(w, ring.x.iter().map(|&x| x.cast_unsigned() as u32))
            }
        }
    }

    /// Reads a probe of a census with lag `lag`.
    pub(super) fn load(r: &mut dyn Read, lag: u32) -> io::Result<Look> {
        let (c, snap_at, wlo, checked) = (get32(r)?, get32(r)?, get32(r)?, get32(r)?);
        let wide = |r: &mut dyn Read| -> io::Result<u128> {
            let lo = get64(r)? as u128;
            Ok(lo | (get64(r)? as u128) << 64)
        };
        let refuted = wide(r)?;
        let equal = wide(r)?;
        let snap = match get32(r)? {
            0 => None,
            _ => Some(Seen::load(r)?),
        };
        let values = |r: &mut dyn Read, k: usize| -> io::Result<Vec<i16>> {
            (0..k).map(|_| get16(r)).collect()
        };
        let k = get32(r)? as usize;
        if k > WINDOW || wlo > 128 || checked > 128 {
            return Err(damaged("a probe out of range"));
        }
        let win = values(r, k)?;
        let ring = match get32(r)? {
            0 => None,
            _ => {
                let (from, e, v) = (get32(r)?, get32(r)?, get32(r)?);
                if e > 1 << 28 {
                    return Err(damaged("a test period out of range"));
                }
                // The span is not kept: `L` until the next look narrows it.
                Some(Ring {
                    from,
                    e,
                    span: lag,
                    x: values(r, e as usize)?,
                    verdict: [None, Some(false), Some(true)][v.min(2) as usize],
                })
            }
        };
        Ok(Look {
            c,
            snap_at,
            snap,
            win,
            wlo: wlo as usize,
            refuted,
            checked: checked as usize,
            equal,
            ring,
            next: 0,
        })
    }
}

impl Ring {
    /// The test of `e` on the values after `from` within the period `span`.
    pub(super) fn new(from: u32, e: u32, span: u32) -> Ring {
        Ring {
            from,
            e,
            span,
            x: vec![0; e as usize],
            verdict: None,
        }
    }

    /// The test within `span` (a period from `c + 1` on that `e` divides),
    /// if shorter, the values up to `p` having been taken in: `span - e`
    /// equal pairs may already be there.
    pub(super) fn narrow(&mut self, span: u32, p: u32) {
        if span < self.span {
            self.span = span;
            if self.verdict.is_none() && p >= self.from + span {
                self.verdict = Some(true);
            }
        }
    }

    /// Takes in `x(p)`.
    pub(super) fn observe(&mut self, p: u32, x: i16) {
        if self.verdict.is_some() || p <= self.from {
            return;
        }
        let t = p - self.from;
        let slot = ((t - 1) % self.e) as usize;
        if t > self.e && self.x[slot] != x {
            self.verdict = Some(false);
            return;
        }
        self.x[slot] = x;
        if t >= self.span {
            self.verdict = Some(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A probe of a lag of more than 64 divisors (10,080 has 72) with
    /// divisors past the 64th refuted and equal is saved and read back
    /// whole (the masks are 128 bits).
    #[test]
    fn a_probe_with_divisors_past_the_64th_saves_and_loads() {
        let look = Look {
            c: 7,
            snap_at: 9,
            snap: None,
            win: vec![3, -1, 4],
            wlo: 70,
            refuted: (1 << 71) | (1 << 64) | 5,
            checked: 72,
            equal: (1 << 65) | 2,
            ring: None,
            next: 0,
        };
        let mut bytes = Vec::new();
        look.save(&mut bytes).unwrap();
        let back = Look::load(&mut bytes.as_slice(), 10_080).unwrap();
        assert_eq!(
            (
                back.c,
                back.snap_at,
                back.wlo,
                back.checked,
                back.refuted,
                back.equal
            ),
            (7, 9, 70, 72, look.refuted, look.equal)
        );
        assert_eq!(back.win, look.win);
    }
}
