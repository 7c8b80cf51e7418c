//! The trailing sweep's copies (doc/grundy.md section 4b): a line whose
//! least period `P` is known repeats with `P` from its proof `c` on (the
//! module comment of `super`, "Least period": `x(p) = x(p + P)` for every
//! `p > c`). Once one period of its values after the proof has been taken
//! in, the trailing sweep takes its value at `p` as the one at `p - P`
//! rather than the mex, as the leading sweep copies a proved line from the
//! trailing one. Its used set is then left as it was (nothing asks for it:
//! it is proved and its least period known), and only its value enters the
//! other lines' sets. The periods are held within a budget of bytes, the
//! lines met first taken first, a whole period a byte a value where its
//! values span at most 256 ([`Kept`]). The lines whose last `L` values the
//! leading sweep keeps (`rings.rs`) are copied too, from the first step.
//! Part of the census of periods (`super`).

use super::*;

/// Bytes of the periods kept per line of the census: a budget that keeps
/// the census within the memory it held before it copied (the values of a
/// chunk are made in the room of the last). A period being taken in holds
/// 2 bytes a value; a whole one 1 where its values span at most 256 (all
/// at `Q <= 100`), else 2.
pub(super) const PER_LINE: u64 = 7168;

/// The most bytes a census keeps (64 MiB): a census of more lines than
/// this holds at [`PER_LINE`] copies none. Measured to gain at `Q = 60` and
/// `100` (doc/grundy.md section 4b); at `Q = 300` copies from far larger
/// rings gained nothing (doc/history.md), and this budget there would be
/// some 330 MB beside a census of about 130 MiB. (Without copies a census
/// writes checkpoints of format 3, byte for byte those of the build
/// before, which is how the committed `Q = 300` run is checked again.)
const MOST: u64 = 1 << 26;

/// The bytes of periods a census of `lines` lines keeps at most.
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

/// A whole period as the copies keep it: a byte a value, from the least,
/// where the values span at most 256 (half the memory, so twice the lines
/// copied in the same room), else as taken in.
#[derive(Clone, Debug)]
enum Kept {
    Narrow { least: i16, x: Vec<u8> },
    Wide(Vec<i16>),
}

impl Kept {
    /// A whole period as kept.
    fn new(period: Period) -> Kept {
        assert!(period.full());
        let least = period.x.iter().copied().min().unwrap_or(0);
        let most = period.x.iter().copied().max().unwrap_or(0);
        match u8::try_from(i32::from(most) - i32::from(least)) {
            Ok(_) => Kept::Narrow {
                least,
                x: period
                    .x
                    .iter()
                    .map(|&x| narrow::<u8, _>(i32::from(x) - i32::from(least)))
                    .collect(),
            },
            Err(_) => Kept::Wide(period.x),
        }
    }

    /// `P`.
    fn len(&self) -> usize {
        match self {
            Kept::Narrow { x, .. } => x.len(),
            Kept::Wide(x) => x.len(),
        }
    }

    /// The bytes it holds.
    fn bytes(&self) -> u64 {
        match self {
            Kept::Narrow { x, .. } => x.len() as u64,
            Kept::Wide(x) => 2 * x.len() as u64,
        }
    }

    /// Writes `out.len()` values from slot `slot` on (not past the end).
    fn read(&self, slot: usize, out: &mut [i16]) {
        match self {
            Kept::Narrow { least, x } => {
                let n = out.len();
                for (o, &v) in out.iter_mut().zip(&x[slot..slot + n]) {
                    *o = least + i16::from(v);
                }
            }
            Kept::Wide(x) => {
                let n = out.len();
                out.copy_from_slice(&x[slot..slot + n]);
            }
        }
    }

    /// Writes it as [`Period::save`] writes a whole period.
    fn save(&self, w: &mut dyn Write) -> io::Result<()> {
        let p = narrow::<u32, _>(self.len());
        put32s(w, [p, p])?;
        let mut x = vec![0; self.len()];
        self.read(0, &mut x);
        put32s(w, x.iter().map(|&x| x.cast_unsigned() as u32))
    }
}

/// The lines the trailing sweep copies, and the room left for more.
pub(super) struct Copies {
    /// Per line, its period once full.
    lines: Vec<Option<Kept>>,
    /// Per line, whether it is copied.
    mask: Vec<bool>,
    /// The copied lines, ascending.
    list: Vec<usize>,
    /// Bytes that may still be kept (periods filling or full).
    room: u64,
    /// The lines copied from the last `L` values the leading sweep kept
    /// (`rings.rs`), from the first step on.
    rings: Rings,
}

impl Copies {
    /// None of `n` lines copied, room for `PER_LINE` bytes a line (none
    /// if that is more than [`MOST`]).
    pub(super) fn new(n: usize) -> Copies {
        Copies {
            lines: vec![None; n],
            mask: vec![false; n],
            list: Vec::new(),
            room: budget(n as u64),
            rings: Rings::none(n),
        }
    }

    /// [`Copies::new`], the lines of `rings` copied from them: from the
    /// first step of a census, or read back with its other copies, none of
    /// which may be one of these.
    pub(super) fn with_rings(mut self, rings: Rings) -> io::Result<Copies> {
        let kept: Vec<usize> = (rings.first()..self.mask.len())
            .filter(|&at| rings.kept(at))
            .collect();
        if kept.iter().any(|&at| self.mask[at]) {
            return Err(damaged("a line both kept and copied from its period"));
        }
        for &at in &kept {
            self.mask[at] = true;
        }
        self.list.extend(kept);
        self.list.sort_unstable();
        self.rings = rings;
        Ok(self)
    }

    /// The lines copied from the leading sweep's last `L` values.
    pub(super) fn rings(&self) -> &Rings {
        &self.rings
    }

    /// [`Copies::rings`], to put values in.
    pub(super) fn rings_mut(&mut self) -> &mut Rings {
        &mut self.rings
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

    /// The lines copied from their periods.
    #[cfg(test)]
    pub(super) fn count(&self) -> usize {
        self.lines.iter().filter(|l| l.is_some()).count()
    }

    /// Whether line `at` is copied.
    pub(super) fn copied(&self, at: usize) -> bool {
        self.mask[at]
    }

    /// Takes the room of a period `period` to be taken in (2 bytes a
    /// value), if there is that much.
    pub(super) fn reserve(&mut self, period: u32) -> bool {
        self.reserve_all(2 * u64::from(period))
    }

    /// From now on line `at` is copied from its full `period` (whose room
    /// was taken by [`Copies::reserve`]; what it needs no longer is given
    /// back).
    pub(super) fn insert(&mut self, at: usize, period: Period) {
        assert!(period.full());
        let kept = Kept::new(period);
        self.room += 2 * kept.len() as u64 - kept.bytes();
        self.keep(at, kept);
    }

    /// Line `at` copied from `kept`, whose room is taken.
    fn keep(&mut self, at: usize, kept: Kept) {
        assert!(!self.mask[at]);
        self.lines[at] = Some(kept);
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
            let run = &mut x[(at - from) * steps..(at - from + 1) * steps];
            if self.rings.kept(at) {
                self.rings.read(at, p1, run);
                continue;
            }
            let period = self.lines[at].as_ref().expect("a copied line's period");
            for (slot, done, k) in slot_runs(p1, steps, period.len()) {
                period.read(slot, &mut run[done..done + k]);
            }
        }
        x
    }

    /// Writes the lines copied from their periods, and the periods (the
    /// rings are written apart, [`Rings::save`]).
    pub(super) fn save(&self, w: &mut dyn Write) -> io::Result<()> {
        let list: Vec<usize> = self
            .list
            .iter()
            .copied()
            .filter(|&at| !self.rings.kept(at))
            .collect();
        put32(w, crate::base::bytes::len32(list.len())?)?;
        for at in list {
            put32(w, narrow::<u32, _>(at))?;
            self.lines[at].as_ref().expect("a copied line").save(w)?;
        }
        Ok(())
    }

    /// Reads the copies of `n` lines of a census with lag `lag`, the
    /// periods of the lines filling holding `filling` values. The room left
    /// is the writer's: the budget less what the periods hold as kept (a
    /// whole one a byte a value where it can be) and 2 bytes a value of
    /// those filling. Each whole period takes only what it holds, not the 2
    /// bytes a value it took while it filled: the writer gave the rest back
    /// and may have reserved it for a period filling since, so taking it
    /// again here would refuse a state the writer was in.
    pub(super) fn load(r: &mut dyn Read, n: usize, lag: u32, filling: u64) -> io::Result<Copies> {
        let mut copies = Copies::new(n);
        let too_many = || damaged("more kept periods than the census keeps");
        if !copies.reserve_all(2 * filling) {
            return Err(too_many());
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
            if !period.full() {
                return Err(damaged("a copied line without its period"));
            }
            let kept = Kept::new(period);
            if !copies.reserve_all(kept.bytes()) {
                return Err(too_many());
            }
            copies.keep(at, kept);
        }
        Ok(copies)
    }

    /// Takes `bytes` of room, if there is that much.
    fn reserve_all(&mut self, bytes: u64) -> bool {
        let fits = bytes <= self.room;
        if fits {
            self.room -= bytes;
        }
        fits
    }
}

#[cfg(test)]
// Test data: small numbers made by the tests themselves.
#[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
mod tests {
    use super::*;

    /// A period whose values span at most 256 is kept a byte a value, one
    /// that spans more as taken in; both give their values back, stretch
    /// by stretch across the end of the period, and are written as the
    /// period taken in was.
    #[test]
    fn a_period_kept_narrow_or_wide_gives_its_values_back() {
        let mut copies = Copies::new(4);
        let room = copies.room;
        let lines: [(usize, Vec<i16>); 2] = [
            (1, (0..12).map(|i| -300 + 23 * i).collect()),
            (3, (0..6).map(|i| [100, -200, 57, 56, -199, 0][i]).collect()),
        ];
        let mut written = Vec::new();
        for (at, x) in &lines {
            let p = x.len() as u32;
            assert!(copies.reserve(p));
            let mut period = Period::new(p);
            for (i, &v) in x.iter().enumerate() {
                period.observe(i as u32, v);
            }
            let mut bytes = Vec::new();
            period.save(&mut bytes).unwrap();
            written.extend(bytes);
            copies.insert(*at, period);
        }
        // The first spans 253 (a byte a value), the second 300.
        assert_eq!(copies.room, room - 12 - 2 * 6);
        for p1 in [0, 5, 11, 40] {
            let x = copies.stretch(Vec::new(), p1, 25, 0, 4);
            for (at, period) in &lines {
                for i in 0..25 {
                    let p = p1 as usize + i;
                    assert_eq!(x[at * 25 + i], period[p % period.len()], "line {at}, p {p}");
                }
            }
        }
        let mut saved = Vec::new();
        copies.save(&mut saved).unwrap();
        assert_eq!(&saved[4..8], &1u32.to_le_bytes()[..]);
        let back = Copies::load(&mut saved.as_slice(), 4, 12, 0).unwrap();
        let mut again = Vec::new();
        back.save(&mut again).unwrap();
        assert_eq!(again, saved);
        assert!(saved.ends_with(&written[written.len() - 8 - 6 * 4..]));
    }

    /// The room a whole period gives back (a byte a value of the 2 it took
    /// while filling) taken by a period filling after it: the state is read
    /// back with the writer's room; a byte more than the budget is refused.
    #[test]
    fn a_period_filling_in_the_room_a_narrow_one_gave_back_is_read_back() {
        let (n, lag) = (2, 20_000);
        assert_eq!(budget(n as u64), 14_336);
        let mut copies = Copies::new(n);
        // Line 0: a period of 5,000 values spanning 7, 10,000 bytes while
        // filling, 5,000 once whole.
        assert!(copies.reserve(5_000));
        let mut period = Period::new(5_000);
        for p in 0..5_000 {
            period.observe(p, (p % 7) as i16);
        }
        copies.insert(0, period);
        assert_eq!(copies.room, 14_336 - 5_000);
        // Line 1 fills a period of 4,000 (8,000 bytes) in the room given
        // back: 2 * 5,000 + 8,000 is past the budget.
        assert!(copies.reserve(4_000));
        assert_eq!(copies.room, 1_336);
        let mut saved = Vec::new();
        copies.save(&mut saved).unwrap();
        let back = Copies::load(&mut saved.as_slice(), n, lag, 4_000).unwrap();
        assert_eq!((back.room, back.count()), (1_336, 1));
        let mut again = Vec::new();
        back.save(&mut again).unwrap();
        assert_eq!(again, saved);
        // 5,000 + 2 * 4,668 = 14,336 fits exactly; 4,669 does not.
        assert_eq!(
            Copies::load(&mut saved.as_slice(), n, lag, 4_668)
                .unwrap()
                .room,
            0
        );
        assert!(Copies::load(&mut saved.as_slice(), n, lag, 4_669).is_err());
    }
}
