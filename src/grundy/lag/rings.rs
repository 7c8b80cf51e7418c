//! The lines whose last `L` values are kept (doc/grundy.md section 4b,
//! "Lines kept `L` values deep"): for such a line the leading sweep, which
//! computes `x(p + L)`, keeps each value it computes at slot `(p + L) % L`,
//! and the trailing sweep at `p` takes `x(p)` from slot `p % L` rather than
//! computing it again (the leading sweep computed it `L` steps before). The
//! trailing sweep so never computes such a line; its proof and least period
//! come from the values (the module comment of `super`, "Kept lines"). A
//! value is kept in a byte, `x + 256 - 2Q` (`x <= 2Q - 1` always); one
//! below `2Q - 255` (a rare value such as `-f(q,r)` of a P-position far
//! out) is kept aside, its byte 0. Part of the census of periods (`super`).

use super::*;
use std::collections::BTreeMap;

/// Bytes of rings a census keeps at most (the lines from the last back, as
/// many as fit): at `Q = 60` (`L = 18432`) the upper 910 of the 1,891
/// lines, whose proofs come last and which the trailing sweep would
/// otherwise compute longest. Measured at
/// `Q = 60` (doc/grundy.md section 4b): 8 MiB took about 0.77 of the CPU
/// time without rings, 16 MiB 0.64, and 20, 28 and 40 MiB about as much
/// as 16 with more memory.
pub(super) const ROOM: u64 = 16 << 20;

/// The most rows of a census that keeps lines: a byte then holds every
/// `x >= 2Q - 255` (-127 at `Q = 64`, -135 at 60), and the values kept
/// aside are few (at `Q = 60` the least `x` is -104, `-f(q,r)` of a
/// P-position). At `Q = 100` a byte holds only `x >= -55`, and a census
/// keeping 113 lines took 154 s of CPU and 187 MiB against 114 s and 73
/// MiB keeping none, the values aside costing more than the lines kept
/// saved.
pub(super) const MOST_Q: u32 = 64;

/// Steps of a chunk at most: the trailing sweep takes `x(p)` for the `p`
/// of a chunk from the rings before the leading sweep's values of the
/// chunk are put in, so the lag must be at least this.
pub(super) const LONGEST: u32 = LONG;

/// The kept lines `first ..` and their values.
#[derive(Clone, Debug, Default)]
pub(super) struct Rings {
    lag: u32,
    /// The first line kept (the line count if none).
    first: usize,
    /// `x = byte - shift` (a byte 1 to 255).
    shift: i16,
    /// Line `at`'s `x(p)` at `(at - first) * lag + p % lag`.
    x: Vec<u8>,
    /// The values a byte cannot hold, by their place in `x` (whose byte
    /// is 0).
    aside: BTreeMap<usize, i16>,
}

/// How many of the last lines a census of the lines `q <= q_max` with lag
/// `lag` keeps: as many as [`ROOM`] holds; none if the lag is shorter than
/// a chunk, `Q > MOST_Q`, or `L > Q^3`. The latest starts are about `Q^3`
/// (0.77 `Q^3` at `Q = 20`, 0.92 at 60); with a longer lag every line is
/// proved soon after the leading sweep's head start, which the trailing
/// sweep does not repeat, and keeping lines only costs (at `Q = 20`, `L =
/// 147456`, 113 lines kept took 0.55 to 0.60 s and 24 MB against 0.50 to
/// 0.53 s and 7 MB).
fn kept_lines(q_max: u32, lag: u32) -> usize {
    let n = super::super::line(q_max, q_max) + 1;
    if lag < LONGEST || q_max > MOST_Q || u64::from(lag) > u64::from(q_max).pow(3) {
        return 0;
    }
    usize::try_from(ROOM / u64::from(lag)).map_or(n, |k| k.min(n))
}

/// The rings of a census of the lines `q <= q_max` with lag `lag`
/// ([`kept_lines`]).
pub(super) fn rings(q_max: u32, lag: u32) -> Rings {
    let n = super::super::line(q_max, q_max) + 1;
    match kept_lines(q_max, lag) {
        0 => Rings::none(n),
        kept => Rings::new(q_max, lag, n, kept),
    }
}

/// The bytes the kept lines of a census of the lines `q <= q_max` with lag
/// `lag` hold: their rings, a chunk of their values ([`Fresh`]) and a ring
/// read out whole at a proof ([`Rings::least_period`]).
pub(crate) fn rings_memory(q_max: u32, lag: u32) -> u64 {
    let kept = kept_lines(q_max, lag) as u64;
    match kept {
        0 => 0,
        _ => kept * (u64::from(lag) + 2 * u64::from(LONGEST)) + 2 * u64::from(lag),
    }
}

impl Rings {
    /// The last `kept` of `n` lines kept, every value 0.
    pub(super) fn new(q_max: u32, lag: u32, n: usize, kept: usize) -> Rings {
        assert!(kept == 0 || (lag >= LONGEST && q_max <= MOST_Q && kept <= n));
        let shift = narrow::<i16, _>(256 - 2 * i64::from(q_max));
        Rings {
            lag,
            first: n - kept,
            shift,
            x: vec![narrow::<u8, _>(shift); kept * lag as usize],
            aside: BTreeMap::new(),
        }
    }

    /// None of `n` lines kept.
    pub(super) fn none(n: usize) -> Rings {
        Rings {
            first: n,
            ..Rings::default()
        }
    }

    /// Whether any line is kept.
    pub(super) fn any(&self) -> bool {
        !self.x.is_empty()
    }

    /// The first line kept (the line count if none).
    pub(super) fn first(&self) -> usize {
        self.first
    }

    /// Whether line `at` is kept.
    pub(super) fn kept(&self, at: usize) -> bool {
        at >= self.first && self.any()
    }

    /// `x(p)` of line `at` for `out.len()` steps from `p1` on.
    ///
    /// Hand-made in runs of slots: the trailing sweep takes every kept
    /// line's value at every step from here, so the bytes are turned into
    /// values by a loop the compiler makes into vector code, and only a run
    /// holding a value kept aside is looked at again.
    pub(super) fn read(&self, at: usize, p1: u32, out: &mut [i16]) {
        let l = self.lag as usize;
        let from = (at - self.first) * l;
        let ring = &self.x[from..from + l];
        for (slot, done, k) in slot_runs(p1, out.len(), l) {
            let (bytes, run) = (&ring[slot..slot + k], &mut out[done..done + k]);
            for (o, &b) in run.iter_mut().zip(bytes) {
                *o = i16::from(b) - self.shift;
            }
            if bytes.contains(&0) {
                for (i, o) in run.iter_mut().enumerate() {
                    if bytes[i] == 0 {
                        *o = self.aside[&(from + slot + i)];
                    }
                }
            }
        }
    }

    /// Keeps `x` at place `i` of `x`.
    fn put_at(&mut self, i: usize, x: i16) {
        let old = self.x[i];
        match u8::try_from(i32::from(x) + i32::from(self.shift)) {
            Ok(b) if b > 0 => {
                self.x[i] = b;
                if old == 0 {
                    self.aside.remove(&i);
                }
            }
            _ => {
                self.x[i] = 0;
                self.aside.insert(i, x);
            }
        }
    }

    /// Keeps `x` as line `at`'s value at `p`.
    #[cfg(test)]
    pub(super) fn put(&mut self, at: usize, p: u32, x: i16) {
        let i = (at - self.first) * self.lag as usize + (p % self.lag) as usize;
        self.put_at(i, x);
    }

    /// Line `at`'s values `x(p)`, for the steps from `p1` on, taken in from
    /// `fresh` (`x(p1 + i)` at `fresh[i]`): in runs of slots, each stored
    /// by a plain loop unless a value of it, or one it replaces, is kept
    /// aside (as [`Rings::read`], for the same reason).
    pub(super) fn put_all(&mut self, at: usize, p1: u32, fresh: &[i16]) {
        let l = self.lag as usize;
        let from = (at - self.first) * l;
        for (slot, done, k) in slot_runs(p1, fresh.len(), l) {
            let values = &fresh[done..done + k];
            let shift = self.shift;
            let fits = values.iter().fold(true, |ok, &x| {
                ok & (1..=255).contains(&(i32::from(x) + i32::from(shift)))
            });
            let bytes = &mut self.x[from + slot..from + slot + k];
            if fits && !bytes.contains(&0) {
                // (Each fits, as tested above: the low byte is the value.)
                for (b, &x) in bytes.iter_mut().zip(values) {
                    *b = (i32::from(x) + i32::from(shift)).to_le_bytes()[0];
                }
            } else {
                for (i, &x) in values.iter().enumerate() {
                    self.put_at(from + slot + i, x);
                }
            }
        }
    }

    /// The least period of the kept line `at` proved at `c` (the leading
    /// sweep at `c + L`, so that the ring holds `x(c + 1 ..= c + L)`, one
    /// period `L` of a line that repeats with `L` from `c + 1` on): the
    /// least divisor `d` of `L` with the ring equal to itself turned by `d`.
    /// A line repeating with `L` from `c + 1` on repeats with `d` from there
    /// iff its ring does so turned, and its least period from `c + 1` on is
    /// its least period (`c + 1` is at or past its start).
    pub(super) fn least_period(&self, at: usize, divs: &[u32]) -> u32 {
        let mut ring = vec![0; self.lag as usize];
        self.read(at, 0, &mut ring);
        let l = ring.len();
        divs.iter()
            .copied()
            .find(|&d| {
                let d = d as usize;
                ring[d..] == ring[..l - d] && ring[..d] == ring[l - d..]
            })
            .unwrap_or(self.lag)
    }

    /// Writes the rings: their first line, every byte, the count of values
    /// kept aside and each as its place and value.
    pub(super) fn save(&self, w: &mut dyn Write) -> io::Result<()> {
        put32(w, narrow::<u32, _>(self.first))?;
        w.write_all(&self.x)?;
        put32(w, crate::base::bytes::len32(self.aside.len())?)?;
        for (&i, &x) in &self.aside {
            put32s(w, [narrow::<u32, _>(i), u32::from(x.cast_unsigned())])?;
        }
        Ok(())
    }

    /// Reads the rings of a census of `n` lines `q <= q_max` with lag `lag`
    /// written by [`Rings::save`].
    pub(super) fn load(r: &mut dyn Read, q_max: u32, lag: u32, n: usize) -> io::Result<Rings> {
        let first = get32(r)? as usize;
        let kept = n.checked_sub(first).filter(|&k| k > 0);
        let Some(kept) = kept else {
            return Err(damaged("kept lines out of range"));
        };
        if lag < LONGEST || q_max > MOST_Q || kept as u64 * u64::from(lag) > ROOM {
            return Err(damaged("kept lines a census does not keep"));
        }
        let mut rings = Rings::new(q_max, lag, n, kept);
        r.read_exact(&mut rings.x)?;
        let aside = get32(r)? as usize;
        if aside > rings.x.len() {
            return Err(damaged("more values kept aside than kept"));
        }
        for _ in 0..aside {
            let i = get32(r)? as usize;
            let x = get16(r)?;
            if i >= rings.x.len() || rings.x[i] != 0 || rings.aside.insert(i, x).is_some() {
                return Err(damaged("a value kept aside out of place"));
            }
        }
        if rings.x.iter().filter(|&&b| b == 0).count() != rings.aside.len() {
            return Err(damaged("a kept value missing"));
        }
        Ok(rings)
    }
}

/// The runs of slots that `steps` steps from `p1` on take in a ring of
/// `len` slots (slot `p % len`): `(first slot, steps before it, length)`,
/// one run, or more where the steps pass the ring's end.
pub(super) fn slot_runs(
    p1: u32,
    steps: usize,
    len: usize,
) -> impl Iterator<Item = (usize, usize, usize)> {
    let mut slot = p1 as usize % len;
    let mut done = 0;
    std::iter::from_fn(move || {
        (done < steps).then(|| {
            let run = (slot, done, (steps - done).min(len - slot));
            (done, slot) = (done + run.2, 0);
            run
        })
    })
}

/// The kept lines' values of a stretch of the leading sweep, made while
/// the trailing sweep reads the rings and put in after ([`Rings::take_in`]).
#[derive(Default)]
pub(super) struct Fresh {
    first: usize,
    /// The first `p` and the steps.
    p1: u32,
    steps: usize,
    /// Line `at`'s `x(p1 + i)` at `(at - first) * steps + i`.
    x: Vec<i16>,
}

impl Fresh {
    /// Made empty for the kept lines of `rings`, `steps` steps from `p1`
    /// on (its room used again).
    pub(super) fn start(&mut self, rings: &Rings, p1: u32, steps: usize) {
        let kept = rings.x.len() / (rings.lag.max(1) as usize);
        (self.first, self.p1, self.steps) = (rings.first, p1, steps);
        self.x.clear();
        self.x.resize(kept * steps, 0);
    }

    /// The room of the lines below `nlow` and of those from `nlow` on, each
    /// to be written by one task.
    pub(super) fn split(&mut self, nlow: usize) -> (FreshHalf<'_>, FreshHalf<'_>) {
        let kept = self.x.len() / self.steps.max(1);
        let cut = nlow.saturating_sub(self.first).min(kept);
        let (lo, hi) = self.x.split_at_mut(cut * self.steps);
        let half = |first, x| FreshHalf {
            first,
            p1: self.p1,
            steps: self.steps,
            x,
        };
        (half(self.first, lo), half(self.first + cut, hi))
    }
}

/// Some kept lines' room in a [`Fresh`].
pub(super) struct FreshHalf<'a> {
    first: usize,
    p1: u32,
    steps: usize,
    x: &'a mut [i16],
}

impl FreshHalf<'_> {
    /// `x` as line `at`'s value at `p`, if line `at` is one of these.
    #[inline]
    pub(super) fn put(&mut self, at: usize, p: u32, x: i32) {
        if let Some(k) = at.checked_sub(self.first)
            && let Some(v) = self.x.get_mut(k * self.steps + (p - self.p1) as usize)
        {
            *v = narrow::<i16, _>(x);
        }
    }
}

impl Rings {
    /// Puts in the values of `fresh` of each kept line with `computed(at)`
    /// (those the leading sweep computed at every step of it).
    pub(super) fn take_in(&mut self, fresh: &Fresh, computed: impl Fn(usize) -> bool) {
        if fresh.steps == 0 {
            return;
        }
        for (k, x) in fresh.x.chunks_exact(fresh.steps).enumerate() {
            let at = fresh.first + k;
            if computed(at) {
                self.put_all(at, fresh.p1, x);
            }
        }
    }

    /// Puts in the values of the leading sweep's `k` steps from `p1` on,
    /// `x(p1 + i)` of line `at` at `x[i * n + at]` ([`ABSENT`] where a line
    /// has not started).
    pub(super) fn take_steps(&mut self, x: &[i16], n: usize, p1: u32) {
        if !self.any() {
            return;
        }
        let l = self.lag as usize;
        for (i, row) in x.chunks_exact(n).enumerate() {
            let slot = ((p1 + narrow::<u32, _>(i)) % self.lag) as usize;
            for (k, &v) in row[self.first..].iter().enumerate() {
                if v != ABSENT {
                    self.put_at(k * l + slot, v);
                }
            }
        }
    }
}

#[cfg(test)]
// Test data: small numbers made by the tests themselves.
#[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
mod tests {
    use super::*;

    /// Values a byte holds and values far below (kept aside) come back as
    /// they were put, across the end of the ring, one at a time or in runs;
    /// a value aside replaced by one in a byte is gone from aside; the
    /// rings are read back from what they write, and refused with a value
    /// aside missing.
    #[test]
    fn values_in_bytes_and_aside_come_back_as_put() {
        let (q_max, lag, n) = (10, LONGEST, 5);
        let mut rings = Rings::new(q_max, lag, n, 2);
        assert!(!rings.kept(2) && rings.kept(3) && rings.kept(4));
        // x from 2Q - 1 = 19 down to -300 (a byte holds x >= -235).
        let x = |p: u32, at: usize| 19 - ((p * 7 + at as u32 * 13) % 320) as i16;
        let p1 = 3 * lag - 100;
        for at in [3, 4] {
            let fresh: Vec<i16> = (0..300).map(|i| x(p1 + i, at)).collect();
            match at {
                3 => rings.put_all(at, p1, &fresh),
                _ => (0..300).for_each(|i| rings.put(at, p1 + i, fresh[i as usize])),
            }
        }
        assert!(!rings.aside.is_empty());
        for at in [3, 4] {
            let mut out = vec![0; 300];
            rings.read(at, p1, &mut out);
            assert!(
                out.iter().zip(0..).all(|(&v, i)| v == x(p1 + i, at)),
                "line {at}"
            );
        }
        let mut bytes = Vec::new();
        rings.save(&mut bytes).unwrap();
        let back = Rings::load(&mut bytes.as_slice(), q_max, lag, n).unwrap();
        assert_eq!(
            (back.x.clone(), back.aside.clone()),
            (rings.x.clone(), rings.aside.clone())
        );
        // One step later every value is one that a byte holds.
        let aside = rings.aside.len();
        rings.put_all(3, p1 + lag, &[5; 300]);
        rings.put_all(4, p1 + lag, &[5; 300]);
        assert!(rings.aside.is_empty() && aside > 0);
        let mut out = vec![0; 300];
        rings.read(4, p1, &mut out);
        assert_eq!(out, vec![5; 300]);
        // A value aside left out of the file.
        let k = bytes.len() - 8 * aside - 4;
        bytes[k..k + 4].copy_from_slice(&(aside as u32 - 1).to_le_bytes());
        bytes.truncate(bytes.len() - 8);
        assert!(Rings::load(&mut bytes.as_slice(), q_max, lag, n).is_err());
    }

    /// The least period read off a ring is the least divisor of `L` by
    /// which the values repeat, wherever the ring's slot 0 falls in them.
    #[test]
    fn the_least_period_is_read_off_the_ring() {
        let lag = 2304; // 2^8 * 3^2
        let divs: Vec<u32> = divisors(u64::from(lag)).iter().map(|&d| d as u32).collect();
        for (period, offset) in [(1, 0), (2, 1), (9, 5), (768, 100), (1152, 7), (2304, 0)] {
            let mut rings = Rings::new(20, lag, 1, 1);
            let pattern: Vec<i16> = (0..period).map(|i| (i * 31 % 17) as i16 - 8).collect();
            // (A period of 9 with 9 values of 17 apart: its least is 9.)
            let fresh: Vec<i16> = (0..lag)
                .map(|p| pattern[((p + offset) % period) as usize])
                .collect();
            rings.put_all(0, 0, &fresh);
            let want = (1..=period)
                .find(|&d| {
                    period % d == 0
                        && (0..period)
                            .all(|i| pattern[i as usize] == pattern[((i + d) % period) as usize])
                })
                .unwrap();
            assert_eq!(rings.least_period(0, &divs), want, "period {period}");
        }
    }
}
