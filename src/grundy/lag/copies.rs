//! The trailing sweep's copies (doc/grundy.md section 4b): a line whose
//! least period `P` is known repeats with `P` from its proof `c` on (the
//! module comment of `super`, "Least period": `x(p) = x(p + P)` for every
//! `p > c`). Once one period of its values after the proof has been taken
//! in, the trailing sweep takes its value at `p` as the one at `p - P`
//! rather than the mex, as the leading sweep copies a proved line from the
//! trailing one. Its used set is then left as it was (nothing asks for it:
//! it is proved and its least period known), and only its value enters the
//! other lines' sets. The periods are held within a budget of values, the
//! lines met first taken first. Part of the census of periods (`super`).

use super::*;

/// Values of the periods kept per line of the census (2 bytes each): a
/// budget that keeps the census within the memory it held before it
/// copied (the values of a chunk are made in the room of the last).
pub(super) const PER_LINE: u64 = 3584;

/// The most values a census keeps (64 MiB): a census of more lines than
/// this holds at [`PER_LINE`] copies none. Measured to gain at `Q = 60` and
/// `100` (doc/grundy.md section 4b); at `Q = 300` copies from far larger
/// rings gained nothing (doc/history.md), and this budget there would be
/// some 330 MB beside a census of about 130 MiB. (Without copies a census
/// writes checkpoints of format 3, byte for byte those of the build
/// before, which is how the committed `Q = 300` run is checked again.)
const MOST: u64 = 1 << 25;

/// The values of periods a census of `lines` lines keeps at most.
pub(super) fn budget(lines: u64) -> u64 {
    match lines.saturating_mul(PER_LINE) {
        room if room <= MOST => room,
        _ => 0,
    }
}

/// One period of a line's values, `x(p)` at slot `p % P`.
#[derive(Clone, Debug)]
pub(super) struct Period {
    /// The least period `P`.
    period: u32,
    /// The values taken in so far (all of a period: the line is copied).
    filled: u32,
    x: Vec<i16>,
}

impl Period {
    /// A period `period` to be filled from the next step on.
    pub(super) fn new(period: u32) -> Period {
        Period {
            period,
            filled: 0,
            x: vec![0; period as usize],
        }
    }

    /// Takes in `x(p)` (steps in order, each after the line's proof).
    #[inline]
    pub(super) fn observe(&mut self, p: u32, x: i16) {
        if self.filled < self.period {
            self.x[(p % self.period) as usize] = x;
            self.filled += 1;
        }
    }

    /// `P`.
    pub(super) fn len(&self) -> u32 {
        self.period
    }

    /// Whether a whole period has been taken in.
    pub(super) fn full(&self) -> bool {
        self.filled == self.period
    }

    pub(super) fn save(&self, w: &mut dyn Write) -> io::Result<()> {
        put32s(w, [self.period, self.filled])?;
        put32s(w, self.x.iter().map(|&x| x.cast_unsigned() as u32))
    }

    /// Reads a period of a census with lag `lag` (a period divides it).
    pub(super) fn load(r: &mut dyn Read, lag: u32) -> io::Result<Period> {
        let (period, filled) = (get32(r)?, get32(r)?);
        if period == 0 || !lag.is_multiple_of(period) || filled > period {
            return Err(damaged("a kept period out of range"));
        }
        let x = (0..period).map(|_| get16(r)).collect::<io::Result<_>>()?;
        Ok(Period { period, filled, x })
    }
}

/// The lines the trailing sweep copies, and the room left for more.
pub(super) struct Copies {
    /// Per line, its period once full.
    lines: Vec<Option<Period>>,
    /// Per line, whether it is copied.
    mask: Vec<bool>,
    /// The copied lines, ascending.
    list: Vec<usize>,
    /// Values that may still be kept (periods filling or full).
    room: u64,
}

impl Copies {
    /// None of `n` lines copied, room for `PER_LINE` values a line (none
    /// if that is more than [`MOST`]).
    pub(super) fn new(n: usize) -> Copies {
        Copies {
            lines: vec![None; n],
            mask: vec![false; n],
            list: Vec::new(),
            room: budget(n as u64),
        }
    }

    /// Whether no line is copied.
    pub(super) fn none(&self) -> bool {
        self.list.is_empty()
    }

    /// None of `n` lines copied, and no room for any (for tests).
    #[cfg(test)]
    pub(super) fn without_room(n: usize) -> Copies {
        Copies {
            room: 0,
            ..Copies::new(n)
        }
    }

    /// Whether there is room for any period.
    #[cfg(test)]
    pub(super) fn has_room(&self) -> bool {
        self.room > 0
    }

    /// The lines copied.
    #[cfg(test)]
    pub(super) fn count(&self) -> usize {
        self.list.len()
    }

    /// Whether line `at` is copied.
    pub(super) fn copied(&self, at: usize) -> bool {
        self.mask[at]
    }

    /// Takes `period` values of room for a line, if there is that much.
    pub(super) fn reserve(&mut self, period: u32) -> bool {
        let fits = u64::from(period) <= self.room;
        if fits {
            self.room -= u64::from(period);
        }
        fits
    }

    /// From now on line `at` is copied from its full `period`.
    pub(super) fn insert(&mut self, at: usize, period: Period) {
        assert!(period.full() && !self.mask[at]);
        self.lines[at] = Some(period);
        self.mask[at] = true;
        let i = self.list.partition_point(|&l| l < at);
        self.list.insert(i, at);
    }

    /// Which lines of a sweep of the rows `q <= q_max` a step copies, if
    /// any.
    pub(super) fn plan(&self, q_max: u32) -> Option<Plan> {
        (!self.none()).then(|| Plan::new(q_max, |at| self.mask[at]))
    }

    /// Whether any of the lines `from .. to` is copied.
    pub(super) fn any(&self, from: usize, to: usize) -> bool {
        let lo = self.list.partition_point(|&l| l < from);
        lo < self.list.len() && self.list[lo] < to
    }

    /// The values of the copied lines among `from .. to` at the `steps`
    /// steps from `p1` on, made in the room `x`: line `at`'s at the `i`-th
    /// step at `(at - from) * steps + i` (the entries of the lines not
    /// copied are left as they are). Each line's values are a run of its
    /// period (two where it wraps), copied as such: per value and step it
    /// costs next to nothing, where a pass over the copied lines at every
    /// step cost a twentieth of the sweep.
    pub(super) fn stretch(
        &self,
        mut x: Vec<i16>,
        p1: u32,
        steps: usize,
        from: usize,
        to: usize,
    ) -> Vec<i16> {
        x.resize((to - from) * steps, 0);
        let lo = self.list.partition_point(|&l| l < from);
        let hi = self.list.partition_point(|&l| l < to);
        for &at in &self.list[lo..hi] {
            let period = self.lines[at].as_ref().expect("a copied line's period");
            let run = &mut x[(at - from) * steps..(at - from + 1) * steps];
            let mut slot = (p1 % period.period) as usize;
            let mut done = 0;
            while done < steps {
                let k = (steps - done).min(period.x.len() - slot);
                run[done..done + k].copy_from_slice(&period.x[slot..slot + k]);
                (done, slot) = (done + k, 0);
            }
        }
        x
    }

    pub(super) fn save(&self, w: &mut dyn Write) -> io::Result<()> {
        put32(w, crate::base::bytes::len32(self.list.len())?)?;
        for &at in &self.list {
            put32(w, narrow::<u32, _>(at))?;
            self.lines[at].as_ref().expect("a copied line").save(w)?;
        }
        Ok(())
    }

    /// Reads the copies of `n` lines of a census with lag `lag`, the
    /// periods of the lines filling having taken `filling` values of room.
    pub(super) fn load(r: &mut dyn Read, n: usize, lag: u32, filling: u64) -> io::Result<Copies> {
        let mut copies = Copies::new(n);
        if !copies.reserve_all(filling) {
            return Err(damaged("more kept periods than the census keeps"));
        }
        let k = get32(r)? as usize;
        if k > n {
            return Err(damaged("more copied lines than lines"));
        }
        for _ in 0..k {
            let at = get32(r)? as usize;
            if at >= n || copies.mask[at] {
                return Err(damaged("a copied line out of range"));
            }
            let period = Period::load(r, lag)?;
            if !period.full() || !copies.reserve(period.period) {
                return Err(damaged("a copied line without its period"));
            }
            copies.insert(at, period);
        }
        Ok(copies)
    }

    /// Takes `values` of room, if there is that much.
    fn reserve_all(&mut self, values: u64) -> bool {
        let fits = values <= self.room;
        if fits {
            self.room -= values;
        }
        fits
    }
}
