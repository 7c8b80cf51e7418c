//! The sweep of the census without patterns ([`super::lag`]): every line
//! `(q, r)`, `q <= Q`, live (computed by the mex at every step) by the rule
//! of the module [`super`], with every set held in one layout so that the mex
//! is a few word loads and ors. Uses `used` (the states it shows) and `bytes`.
//!
//! # Layout, and why the values are the rule's
//!
//! All sets are over absolute values (no shift by `p`), each in a ring of
//! `R` words (a power of two): the word of the values `64 k .. 64 k + 63` sits
//! in slot `k % R`. At step `p` every value that matters lies in the window
//! `[p - bias, p + 2Q)`: above, `G(p,q,r) <= p + q + r - 1` (the mex of at
//! most `p - 1 + q + r` values); below, the sweep refuses a value under
//! `p - bias` (it is reported, [`Live::below_window`], and the census starts
//! again with a wider window). The window's words are at most
//! `bias / 64 + (2Q + 63) / 64 + 1 <= R` consecutive ones, so they have
//! different slots. The sets:
//!
//! * a line's own used values (`Used` of the module [`super`]): `base` is the
//!   word below which every value is used; slots hold words
//!   `base .. base + R`. Its front word is never full (it is dropped and the
//!   slot zeroed), so the first free value is in it; while that value is at
//!   least `p - bias` every used value above it is in the window and so in
//!   the ring;
//! * per column `r`, the values at this `p` of the lines `(j, r)`,
//!   `r < j < q` (filled as `q` rises, zeroed at each step);
//! * per `j`, the values at this `p` of the diagonal lines `(i, i)`,
//!   `i <= j` (prefix ors, made as each diagonal line is computed; the
//!   lines `(j, j)`, `j <= r`, of a line `(q, r)`, `r < q`, are `diag[r]`,
//!   those of `(q, q)` are `diag[q - 1]`);
//! * the values at this `p` of the lines `(q, j)`, `j < r` (filled as `r`
//!   rises, zeroed at each `q`).
//!
//! A line's value is the first zero of the or of its four sets from its
//! first free value on, found in the window (it is at most `p + 2Q - 1`), so
//! only slots of the window's words are read, and each holds exactly the
//! values of its word. That is the least value not used and not taken at this
//! `p` by a middle or top row move: the rule.
//!
//! The column and row sets may hold more than these values, none of them
//! the line's own (so that no mex changes: a mex is unchanged by values
//! added to its set other than the mex itself): the value of `(q, q)` in
//! column `q` (read by the lines `(j, q)`, `j > q`, of which `(q, q)` is an
//! option), and in the row of a line `(q, r)` the values of lines `(q, j)`,
//! `j > r`, taken rather than computed (`[p,q,r]` is an option of
//! `[p,q,j]`). So the values a step takes (a [`Plan`]) go in first, off
//! the chain of the row's computed lines, and no line needs a test of its
//! place.
//!
//! A sweep split in two at a row `q1` ([`Live::low_part`]) passes the sets
//! of its lower rows up whole ([`Live::export`]): the columns and the
//! diagonal prefixes are all that the rows above read of them.
//!
//! Hand-made rather than a bitset crate: this is the inner loop of the
//! census, where each ring must be read by slot without bounds or shifts.

use crate::base::bytes::narrow;
use std::io::{self, Read, Write};

use super::line;
use super::used::Seen;
use crate::base::bytes::damaged;
use crate::base::bytes::stream::{get32, get64, put32, put64s};

/// Every line `(q, r)`, `q <= Q`, swept in `p`; see the module's comment.
pub(super) struct Live {
    q_max: u32,
    p: u32,
    bias: u32,
    /// `R - 1`.
    mask: usize,
    /// Line `at`'s used set: slots `at * R ..`.
    used: Vec<u64>,
    /// Per line, the word below which every value is used.
    base: Vec<u32>,
    /// Each line's value at its first `p`.
    first: Vec<u32>,
    /// Each line's value at the last `p`.
    now: Vec<u32>,
    /// Column `r`: slots `r * R ..`.
    col: Vec<u64>,
    /// `diag[(j + 1) * R ..]`: the diagonal lines `(i, i)`, `i <= j`; the
    /// first ring is empty (for the line `(0, 0)`).
    diag: Vec<u64>,
    /// The row being computed.
    row: Vec<u64>,
    /// The least `G - p` met below the window, if any.
    below: Option<i32>,
    /// The plan of a step given nothing: every line computed.
    all: Plan,
}

/// Which lines a step takes rather than computes (values known to repeat,
/// see [`super::lag`]), row by row: per row `q`, the `r` of the lines it
/// computes, of those it takes and enters in the column and row sets, and
/// of those it takes and enters in none, each ascending. Made once per
/// chunk, so that a step walks the lines it computes without a test per
/// line and enters the values it takes in loops of their own (see
/// [`Live::step_row`]).
///
/// A taken value is entered only where a computed line reads it: the line
/// `(j, r)`, `j > r`, in column `r` when a line `(q, r)`, `q > j`, is
/// computed, and in row `j` when a line `(j, t)`, `t > r`, is; those are the
/// only lines whose sets hold it (the module's comment). A taken diagonal
/// line `(j, j)` is entered in neither: the lines that read it read it in
/// the diagonal prefixes (`diag[d]`, `d > j`), made from every diagonal
/// line's value ([`Live::diag_from`]). Once nearly every line is taken, as
/// at the end of a census, a step then costs next to nothing beside its
/// computed lines.
pub(super) struct Plan {
    /// Per row `q`: where its computed `r` start in `rs`, where its taken
    /// ones entered in the sets start, where those entered in none start,
    /// and where they end.
    rows: Vec<[u32; 4]>,
    rs: Vec<u16>,
}

impl Plan {
    /// The plan of the lines `q <= q_max` that takes the lines `at` with
    /// `taken(at)` and computes the others.
    pub(super) fn new(q_max: u32, taken: impl Fn(usize) -> bool) -> Plan {
        let rows = q_max as usize + 1;
        // Per column `r`, the greatest `q` of a computed line `(q, r)`, and
        // per row `q`, the greatest `r` of one `(q, r)` (none: 0, which no
        // taken line is below).
        let (mut col_top, mut row_top) = (vec![0u32; rows], vec![0u32; rows]);
        for q in 0..=q_max {
            for r in (0..=q).filter(|&r| !taken(line(q, r))) {
                col_top[r as usize] = col_top[r as usize].max(q);
                row_top[q as usize] = row_top[q as usize].max(r);
            }
        }
        let read = |q: u32, r: u32| r < q && (q < col_top[r as usize] || r < row_top[q as usize]);
        let mut plan = Plan {
            rows: Vec::with_capacity(rows),
            rs: Vec::with_capacity(line(q_max, q_max) + 1),
        };
        for q in 0..=q_max {
            let a0 = line(q, 0);
            let mut starts = [0u32; 4];
            let kinds: [&dyn Fn(u32) -> bool; 3] = [
                &|r| !taken(a0 + r as usize),
                &|r| taken(a0 + r as usize) && read(q, r),
                &|r| taken(a0 + r as usize) && !read(q, r),
            ];
            for (start, kind) in starts.iter_mut().zip(kinds) {
                *start = narrow::<u32, _>(plan.rs.len());
                plan.rs
                    .extend((0..=q).filter(|&r| kind(r)).map(narrow::<u16, _>));
            }
            starts[3] = narrow::<u32, _>(plan.rs.len());
            plan.rows.push(starts);
        }
        plan
    }

    /// The `r` of the lines of row `q` computed, of those taken and entered
    /// in the sets, and of those taken and entered in none.
    fn row(&self, q: usize) -> [&[u16]; 3] {
        let [a, b, c, d] = self.rows[q];
        [
            &self.rs[a as usize..b as usize],
            &self.rs[b as usize..c as usize],
            &self.rs[c as usize..d as usize],
        ]
    }
}

/// Values a step takes rather than computes: `G - p = x[(at - from) *
/// stride]` for each line `at` that `plan` takes, `from` the first line of
/// the step's rows (0, or that of the row `q1` of [`Live::step_above`]).
#[derive(Clone, Copy)]
pub(super) struct Given<'a> {
    /// The lines taken.
    pub plan: &'a Plan,
    /// Per line of the step's rows, its `G - p` if taken.
    pub x: &'a [i16],
    /// Entries of `x` from one line to the next.
    pub stride: usize,
}

/// A line's used set after a step, to be seen from some `p`.
#[derive(Clone, Copy)]
pub(super) struct View<'a> {
    ring: &'a [u64],
    base: u32,
}

impl View<'_> {
    /// The set seen from `origin` (`Used::seen_from` of the same set).
    pub(super) fn seen_from(&self, origin: u32) -> Seen {
        let mask = self.ring.len() - 1;
        let word = |k: u32| match k - self.base {
            i if (i as usize) < self.ring.len() => self.ring[k as usize & mask],
            _ => 0,
        };
        let front = word(self.base);
        let free = 64 * self.base + front.trailing_ones();
        let s = free % 64;
        let bits = (0..narrow::<u32, _>(self.ring.len()))
            .map(|i| {
                let k = free / 64 + i;
                match s {
                    0 => word(k),
                    s => word(k) >> s | word(k + 1) << (64 - s),
                }
            })
            .collect();
        Seen::new(free as i64 - origin as i64, bits)
    }
}

/// Words of each ring of a sweep of the lines `q <= q_max` with room for
/// `G - p >= -below`: a power of two.
fn ring(q_max: u32, below: u32) -> u32 {
    let bias = 64 * below.div_ceil(64);
    (bias + 2 * q_max + 64).div_ceil(64).next_power_of_two()
}

/// Words of every ring of such a sweep, which [`Live::new`] allocates: one
/// ring per line (`line(q_max, q_max) + 1`), per column row (`q_max + 1`),
/// per diagonal (`q_max + 2`), and the row's own.
/// Saturated at `u64::MAX`, as is the byte count made of it.
fn ring_words(q_max: u32, below: u32) -> u64 {
    (line(q_max, q_max) as u64 + 2 * u64::from(q_max) + 5)
        .saturating_mul(u64::from(ring(q_max, below)))
}

impl Live {
    /// The lines `q <= q_max` before the first step, with room for
    /// `G - p >= -below` (rounded up to a multiple of 64).
    pub(super) fn new(q_max: u32, below: u32) -> Live {
        let bias = 64 * below.div_ceil(64);
        let ring = ring(q_max, below) as usize;
        let n = line(q_max, q_max) + 1;
        let rows = q_max as usize + 1;
        Live {
            q_max,
            p: 0,
            bias,
            mask: ring - 1,
            used: vec![0; n * ring],
            base: vec![0; n],
            first: vec![0; n],
            now: vec![0; n],
            col: vec![0; rows * ring],
            diag: vec![0; (rows + 1) * ring],
            row: vec![0; ring],
            below: None,
            all: Plan::new(q_max, |_| false),
        }
    }

    /// The bytes of the rings [`Live::new`] allocates for the lines
    /// `q <= q_max` with room for `G - p >= -below` (saturated).
    pub(super) fn memory(q_max: u32, below: u32) -> u64 {
        ring_words(q_max, below).saturating_mul(8)
    }

    /// The bytes [`Live::export`] appends at each step for the rows above
    /// `q1` of a sweep of the lines `q <= q_max` with room for
    /// `G - p >= -below`.
    pub(super) fn export_bytes(q_max: u32, below: u32, q1: u32) -> u64 {
        16 * u64::from(q1) * u64::from(ring(q_max, below))
    }

    /// The deepest room below, at least `below`, that needs no more ring
    /// words than `below` does (the ring is a power of two, so there is
    /// often room to spare): a wider window makes a restart less likely and
    /// costs nothing.
    pub(super) fn room(q_max: u32, below: u32) -> u32 {
        (64 * ring(q_max, below) - 2 * q_max - 64) / 64 * 64
    }

    /// The rows are those of `q <= q_max`.
    pub(super) fn q_max(&self) -> u32 {
        self.q_max
    }

    /// The words [`Live::export`] appends for the rows above `q1`.
    pub(super) fn export_len(&self, q1: u32) -> usize {
        2 * q1 as usize * (self.mask + 1)
    }

    /// The last `p` computed (0 before the first step).
    pub(super) fn p(&self) -> u32 {
        self.p
    }

    /// Values down to `G - p = -bias` fit.
    pub(super) fn bias(&self) -> u32 {
        self.bias
    }

    /// The least `G - p` met below the window, if any: the last steps'
    /// values may then be wrong, and the sweep must start again wider.
    pub(super) fn below_window(&self) -> Option<i32> {
        self.below
    }

    /// Each line's value at the last `p` (lines not started: 0).
    pub(super) fn now(&self) -> &[u32] {
        &self.now
    }

    /// Line `at`'s used set.
    pub(super) fn view(&self, at: usize) -> View<'_> {
        let r = self.mask + 1;
        View {
            ring: &self.used[at * r..(at + 1) * r],
            base: self.base[at],
        }
    }

    /// Computes every started line at the next `p`; `seen(line, x, used)` is
    /// called for each with `x = G - p` and its used set after the step.
    #[cfg(test)]
    pub(super) fn step(&mut self, seen: impl FnMut(usize, i32, View)) {
        self.step_rows(0, &[], None, None, seen);
    }

    /// [`Live::step`], the lines that `given` takes having its values rather
    /// than the mex: they are not shown, and their used sets are left as
    /// they were (they must not be asked for again). If `out` is given, each
    /// line's `x` is written to `out[line]`, taken or computed.
    pub(super) fn step_given(
        &mut self,
        given: Option<Given>,
        out: Option<&mut [i16]>,
        seen: impl FnMut(usize, i32, View),
    ) {
        self.step_rows(0, &[], given, out, seen);
    }

    /// A step of the rows `q >= q1` only (as [`Live::step_given`], `given`
    /// and `out` indexed from the line `line(q1, 0)`): `low` holds the sets
    /// of the rows below after the new `p` ([`Live::export`] of the sweep
    /// of [`Live::low_part`], stepped alike), which then are those of the
    /// rows computed here.
    pub(super) fn step_above(
        &mut self,
        q1: u32,
        low: &[u64],
        given: Option<Given>,
        out: Option<&mut [i16]>,
        seen: impl FnMut(usize, i32, View),
    ) {
        assert!(low.len() == self.export_len(q1) && self.p >= self.q_max);
        self.step_rows(q1, low, given, out, seen);
    }

    /// Appends to `rings` what the rows above need of this sweep's step (a
    /// [`Live::low_part`] of rows `q < q1`): its column sets (`q1` rings)
    /// and its diagonal prefixes `diag[1..=q1]`.
    pub(super) fn export(&self, rings: &mut Vec<u64>) {
        rings.extend_from_slice(&self.col);
        rings.extend_from_slice(&self.diag[self.mask + 1..]);
    }

    /// The rows below `q1` as a sweep of their own at the same `p`: it steps
    /// exactly as these rows do here.
    pub(super) fn low_part(&self, q1: u32) -> Live {
        assert!(q1 >= 1 && q1 <= self.q_max);
        let n = line(q1, 0);
        let r = self.mask + 1;
        let mut low = Live::new(q1 - 1, self.bias);
        // The same bias and ring size, so that the slots are the same.
        low.mask = self.mask;
        low.used = self.used[..n * r].to_vec();
        low.col.resize(q1 as usize * r, 0);
        low.diag.resize((q1 as usize + 1) * r, 0);
        low.row.resize(r, 0);
        low.p = self.p;
        low.base.copy_from_slice(&self.base[..n]);
        low.first.copy_from_slice(&self.first[..n]);
        low.now.copy_from_slice(&self.now[..n]);
        low
    }

    /// Takes back the rows of `low` (from [`Live::low_part`], stepped to the
    /// same `p`), after steps of [`Live::step_above`].
    pub(super) fn absorb(&mut self, low: &Live) {
        assert_eq!(low.p, self.p);
        let n = low.base.len();
        self.used[..low.used.len()].copy_from_slice(&low.used);
        self.base[..n].copy_from_slice(&low.base);
        self.now[..n].copy_from_slice(&low.now);
        self.below = match (self.below, low.below) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }

    /// The rows from `q1` on, the sets of those below being `low` (see
    /// [`Live::step_above`]).
    fn step_rows(
        &mut self,
        q1: u32,
        low: &[u64],
        given: Option<Given>,
        mut out: Option<&mut [i16]>,
        mut seen: impl FnMut(usize, i32, View),
    ) {
        self.p = self.p.checked_add(1).expect("p beyond u32");
        let p = self.p;
        let len = self.mask + 1;
        let (cols, diags) = low.split_at(low.len() / 2);
        self.col[..cols.len()].copy_from_slice(cols);
        self.col[cols.len()..].fill(0);
        self.diag[len..len + diags.len()].copy_from_slice(diags);
        let from = line(q1, 0);
        for q in q1..=self.q_max.min(p) {
            let starting = p == q.max(1);
            if starting {
                self.first_values(q);
            }
            self.step_row(q, from, given, out.as_deref_mut(), &mut seen);
            let (a0, a1) = (line(q, 0), line(q, q));
            if starting {
                self.first[a0..=a1].copy_from_slice(&self.now[a0..=a1]);
            }
            self.diag_from(q, self.now[a1]);
        }
    }

    /// The lines `(q, r)`, `r <= q`, at this `p` (the diagonal line's value
    /// is left for [`Live::diag_from`]): first the values `given` takes,
    /// entered in the column and row sets, then the mex of the others.
    /// `given` and `out` are indexed from the line `from`.
    ///
    /// Hand-made with raw pointers into the rings: this loop is the sweep
    /// (one pass per line and step). Every ring's bounds are checked once per
    /// row below, so that the line step itself has no bounds check and no
    /// slice to make; the step is a chain through the row's set (each line's
    /// mex reads the bit its left neighbour just set), and each check or
    /// branch on that chain costs a few cycles of every line. The values
    /// taken go in first, in a loop of their own, off that chain: the row's
    /// set then holds, for a computed line `(q, r)`, the values of taken
    /// lines `(q, j)` with `j > r` too, which changes no mex, as `[p,q,r]`
    /// is an option of `[p,q,j]` (a top row move) and so `G(p,q,j)` is not
    /// `G(p,q,r)`; a mex is unchanged by values added to its set that are
    /// not the mex itself.
    #[inline(always)]
    fn step_row(
        &mut self,
        q: u32,
        from: usize,
        given: Option<Given>,
        out: Option<&mut [i16]>,
        seen: &mut impl FnMut(usize, i32, View),
    ) {
        let (mask, len, q) = (self.mask, self.mask + 1, q as usize);
        let p = self.p;
        // Below this a value is outside the window (see `put`).
        let floor = p as i64 - self.bias as i64;
        let a0 = line(narrow::<u32, _>(q), 0);
        let Live {
            used,
            base,
            now,
            col,
            diag,
            row,
            below,
            all,
            ..
        } = self;
        row.fill(0);
        let n = base.len();
        // The bounds of every ring and table the row reads or writes, once.
        assert!(
            a0 + q < n
                && from <= a0
                && now.len() == n
                && used.len() == n * len
                && col.len() > q * len
                && diag.len() >= (q + 2) * len
                && row.len() == len
                && all.rows.len() > q
                && given
                    .is_none_or(|g| g.plan.rows.len() > q && g.x.len() > (a0 + q - from) * g.stride)
                && out.as_ref().is_none_or(|o| o.len() > a0 + q - from)
        );
        let (up, cp, dp, rp) = (
            used.as_mut_ptr(),
            col.as_mut_ptr(),
            diag.as_ptr(),
            row.as_mut_ptr(),
        );
        let op = out.map(|o| o.as_mut_ptr());
        let [computed, taken, silent] = match given {
            Some(g) => g.plan.row(q),
            None => all.row(q),
        };
        // A computed diagonal line `(q, q)` enters its value in the column
        // `q` and the row as the others do (no test on the way): both hold it
        // harmlessly, the row being emptied at the next row and `(q, q)`
        // being an option of every line `(j, q)`, `j > q`, that reads the
        // column `q` (a middle row move), which has it in its diagonal set.
        if let Some(g) = given {
            for &r in taken {
                let (r, at) = (r as usize, a0 + r as usize);
                // SAFETY: `r <= q` (a plan's row `q` holds `r <= q` only),
                // so `at < n` and column `r`'s ring is within `col`, and the
                // slots written are `k & mask < len`; `g.x` is longer than
                // `(a0 + q - from) * stride`, `out` than `a0 + q - from`
                // (asserted above).
                unsafe {
                    let x = *g.x.get_unchecked((at - from) * g.stride);
                    // (A value taken is one computed before: in the window.)
                    let v = p.wrapping_add_signed(i32::from(x));
                    *now.get_unchecked_mut(at) = v;
                    if let Some(o) = op {
                        *o.add(at - from) = x;
                    }
                    set_bit_at(cp.add(r * len), v, mask);
                    set_bit_at(rp, v, mask);
                }
            }
            for &r in silent {
                let at = a0 + r as usize;
                // SAFETY: as above, without the rings.
                unsafe {
                    let x = *g.x.get_unchecked((at - from) * g.stride);
                    *now.get_unchecked_mut(at) = p.wrapping_add_signed(i32::from(x));
                    if let Some(o) = op {
                        *o.add(at - from) = x;
                    }
                }
            }
        }
        for &r in computed {
            let (r, at) = (r as usize, a0 + r as usize);
            // SAFETY: `at < n`, `r <= q` and `d <= q + 1`, so every ring
            // below is within its table (asserted above), and `mex`,
            // `use_value_at` and `set_bit_at` read and write slots
            // `k & mask < len` of them only; `out` is long enough for the
            // row (asserted above). Nothing else holds these tables while
            // the row is computed (`seen` is shown a ring of `used` as a
            // shared slice, after the line's writes and before the next).
            unsafe {
                let ring = up.add(at * len);
                let c = cp.add(r * len);
                // Ask for the used-set words that the line AHEAD on will
                // read: its first free value's and its next value's if it
                // goes on as before. The rings do not fit the cores' own
                // caches at `Q = 300`; this took 11% off the head start
                // there (RESULTS.md).
                let ahead = at + AHEAD;
                if ahead < n {
                    let ring = up.wrapping_add(ahead * len);
                    prefetch_at(ring.wrapping_add(*base.get_unchecked(ahead) as usize & mask));
                    let next = (*now.get_unchecked(ahead) as usize + 1) / 64;
                    prefetch_at(ring.wrapping_add(next & mask));
                }
                let d = if r < q { r + 1 } else { q };
                let b = base.get_unchecked_mut(at);
                let g = mex(ring, c, dp.add(d * len), rp, *b, mask, floor);
                if (g as i64) < floor {
                    note_below(below, g, p);
                }
                use_value_at(ring, b, g, mask, below.is_some());
                let view = View {
                    ring: std::slice::from_raw_parts(ring, len),
                    base: *b,
                };
                let x = narrow::<i32, _>(g as i64 - p as i64);
                if let Some(o) = op {
                    *o.add(at - from) = narrow::<i16, _>(x);
                }
                seen(at, x, view);
                *now.get_unchecked_mut(at) = g;
                set_bit_at(c, g, mask);
                set_bit_at(rp, g, mask);
            }
        }
    }

    /// At the first `p` of the row `q`: the values of the bottom row moves
    /// (the first values of the lines `(j, min(r, j))`, `j < q`) enter each
    /// line's used set.
    fn first_values(&mut self, q: u32) {
        let (mask, len) = (self.mask, self.mask + 1);
        for r in 0..=q {
            let at = line(q, r);
            for j in 1..q {
                let v = self.first[line(j, r.min(j))];
                let ring = &mut self.used[at * len..(at + 1) * len];
                use_value(ring, &mut self.base[at], v, mask, self.below.is_some());
            }
        }
    }

    /// Makes `diag[j + 1]`: `diag[j]` and the value `g` of `(j, j)` (a value
    /// below the window is noted instead: see [`Live::below_window`]).
    fn diag_from(&mut self, j: u32, g: u32) {
        let r = self.mask + 1;
        let j = j as usize;
        self.diag.copy_within(j * r..(j + 1) * r, (j + 1) * r);
        if (g as i64) < self.p as i64 - self.bias as i64 {
            note_below(&mut self.below, g, self.p);
            return;
        }
        set_bit(&mut self.diag[(j + 1) * r..], g, self.mask);
    }

    /// Writes the sweep (for a checkpoint): `p`, the bias and each line's
    /// used set (as `Used::save`), first and present value.
    pub(super) fn save(&self, w: &mut dyn Write) -> io::Result<()> {
        assert!(self.below.is_none());
        put32(w, self.q_max)?;
        put32(w, self.p)?;
        put32(w, self.bias)?;
        let r = self.mask + 1;
        for at in 0..self.base.len() {
            let base = self.base[at];
            put32(w, 64 * base)?;
            put32(w, narrow::<u32, _>(r))?;
            let ring = &self.used[at * r..(at + 1) * r];
            put64s(
                w,
                &(base..base + narrow::<u32, _>(r))
                    .map(|k| ring[k as usize & self.mask])
                    .collect::<Vec<_>>(),
            )?;
            put32(w, self.first[at])?;
            put32(w, self.now[at])?;
        }
        Ok(())
    }

    /// Reads a sweep written by [`Live::save`] (or by the census's sweep
    /// before it, whose format this is).
    /// `q_max`: the lines the caller's run holds (a sweep of others is
    /// refused before anything is allocated for it).
    pub(super) fn load(r: &mut dyn Read, q_max: u32) -> io::Result<Live> {
        if get32(r)? != q_max {
            return Err(damaged("a sweep of other lines than its run's"));
        }
        let p = get32(r)?;
        let bias = get32(r)?;
        if bias % 64 != 0 || bias > 1 << 20 {
            return Err(damaged("a sweep's bias that is not a multiple of 64"));
        }
        crate::base::memory::check("this sweep", Live::memory(q_max, bias))
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
        let mut live = Live::new(q_max, bias);
        live.p = p;
        let len = live.mask + 1;
        for at in 0..live.base.len() {
            let base = get32(r)?;
            let n = get32(r)? as usize;
            if base % 64 != 0 || n > 1 << 20 {
                return Err(damaged("a used set out of shape"));
            }
            live.base[at] = base / 64;
            for i in 0..n {
                let word = get64(r)?;
                let k = (base / 64) as usize + i;
                match word {
                    0 => {}
                    _ if i < len && !(i == 0 && word == u64::MAX) => {
                        live.used[at * len + (k & live.mask)] = word
                    }
                    _ => return Err(damaged("a used set wider than the window")),
                }
            }
            live.first[at] = get32(r)?;
            live.now[at] = get32(r)?;
        }
        Ok(live)
    }
}

/// Lines ahead whose used-set words a step asks for (8 beat 4 and none).
const AHEAD: usize = 8;

/// Asks for the cache line of `word` (a prefetch reads nothing the program
/// sees and never faults, so any address will do).
#[inline(always)]
fn prefetch_at(word: *const u64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it neither reads for the program nor
    // faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(word.cast::<i8>())
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = word;
}

/// Notes the value `g` at `p`, below the window (see
/// [`Live::below_window`]).
#[cold]
fn note_below(below: &mut Option<i32>, g: u32, p: u32) {
    let x = narrow::<i32, _>(g as i64 - p as i64);
    *below = Some(below.map_or(x, |b| b.min(x)));
}

/// Adds `g` to the ring starting at `ring[0]` (of `mask + 1` words) without
/// looking at the window: the caller has noted `g` if it is below it (the
/// sweep's later values then do not count, so a bit in a wrong slot does
/// no harm).
#[inline(always)]
fn set_bit(ring: &mut [u64], g: u32, mask: usize) {
    ring[(g / 64) as usize & mask] |= 1 << (g % 64);
}

/// [`set_bit`] on a ring given by its first word.
///
/// # Safety
///
/// `ring` must be valid for `mask + 1` words.
#[inline(always)]
unsafe fn set_bit_at(ring: *mut u64, g: u32, mask: usize) {
    // SAFETY: slot `(g / 64) & mask`, within the ring (the caller's word).
    unsafe { *ring.add((g / 64) as usize & mask) |= 1 << (g % 64) }
}

/// [`use_value`] on a ring given by its first word.
///
/// # Safety
///
/// `ring` must be valid for `mask + 1` words.
#[inline(always)]
unsafe fn use_value_at(ring: *mut u64, base: &mut u32, v: u32, mask: usize, below: bool) {
    // SAFETY: as the caller's word, for the `mask + 1` words of the ring.
    let ring = unsafe { std::slice::from_raw_parts_mut(ring, mask + 1) };
    use_value(ring, base, v, mask, below);
}

/// Adds `v` to a line's used set (`ring`, `base`); `below`: a value below
/// the window has been met.
#[inline(always)]
fn use_value(ring: &mut [u64], base: &mut u32, v: u32, mask: usize, below: bool) {
    let k = v / 64;
    if k < *base {
        return;
    }
    if (k - *base) as usize > mask {
        // Only after a value below the window (see the module's comment).
        assert!(below, "a used value beyond the ring");
        return;
    }
    let w = &mut ring[k as usize & mask];
    *w |= 1 << (v % 64);
    // Only the front word can have become full, and only then can more.
    if k == *base && *w == u64::MAX {
        let mut b = *base;
        while ring[b as usize & mask] == u64::MAX {
            ring[b as usize & mask] = 0;
            b += 1;
        }
        *base = b;
    }
}

/// The least value not in the line's used set (`ring`, whose words below
/// `base` are full) and not taken at this `p` by its middle and top row
/// moves (its column `c`, diagonal prefix `d` and row `row`). Each set is a
/// ring of `mask + 1` words from its pointer.
///
/// # Safety
///
/// Each pointer must be valid for `mask + 1` words (read only here).
#[inline(always)]
unsafe fn mex(
    ring: *const u64,
    c: *const u64,
    d: *const u64,
    row: *const u64,
    base: u32,
    mask: usize,
    floor: i64,
) -> u32 {
    // SAFETY: slots `k & mask` only (the caller's pointers are valid for
    // `mask + 1` words). Unchecked because this is the sweep's innermost
    // loop.
    let word = |set: *const u64, k: u32| unsafe { *set.add(k as usize & mask) };
    let mut k = base;
    let free = 64 * k + word(ring, k).trailing_ones();
    // Nothing else is taken below the window, so a free value there wins
    // (and is reported by the caller).
    if (free as i64) < floor {
        return free;
    }
    loop {
        let w = word(ring, k) | word(c, k) | word(d, k) | word(row, k);
        if w != u64::MAX {
            return 64 * k + w.trailing_ones();
        }
        k += 1;
    }
}

#[cfg(test)]
// Test data: small numbers made by the tests themselves.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]
mod tests {
    use super::super::Sweep;
    use super::*;

    /// The same values as the plain sweep, whole and split in two as the
    /// census's head start splits it, and after a save and load.
    #[test]
    fn it_steps_as_the_plain_sweep() {
        let q_max = 12;
        let mut plain = Sweep::new(q_max);
        let mut live = Live::new(q_max, 2 * q_max + 64);
        for _ in 0..700 {
            plain.step();
            live.step(|_, _, _| {});
            let slab = plain.slab();
            assert_eq!(&live.now()[..slab.len()], slab, "p = {}", plain.p());
        }
        for q1 in [1, 5, 12] {
            let mut low = live.low_part(q1);
            let n = line(q1, 0);
            let mut rings = Vec::new();
            for _ in 0..300 {
                plain.step();
                low.step(|_, _, _| {});
                rings.clear();
                low.export(&mut rings);
                live.step_above(q1, &rings, None, None, |_, _, _| {});
                assert_eq!(&low.now()[..n], &plain.slab()[..n], "q1 = {q1}");
                assert_eq!(
                    &live.now()[n..],
                    &plain.slab()[n..],
                    "q1 = {q1}, p = {}",
                    plain.p()
                );
            }
            live.absorb(&low);
            let mut bytes = Vec::new();
            live.save(&mut bytes).unwrap();
            live = Live::load(&mut &bytes[..], q_max).unwrap();
            for _ in 0..100 {
                plain.step();
                live.step(|_, _, _| {});
            }
            assert_eq!(live.now(), plain.slab());
        }
        assert!(live.below_window().is_none());
    }

    /// Lines given their values (here the plain sweep's: every third line
    /// and the whole row 4; or all but a few, so that most are entered in
    /// no set) pass them on as computed ones would: every other line's
    /// value is the plain sweep's, whole and split, and every line's `x` is
    /// written out.
    #[test]
    fn given_values_enter_the_sets_as_computed_ones() {
        let q_max = 12;
        let few = [line(12, 3), line(7, 2), line(10, 10), line(9, 0)];
        given_values_as_computed(
            q_max,
            &Plan::new(q_max, |at| {
                at % 3 == 1 || (line(4, 0)..=line(4, 4)).contains(&at)
            }),
        );
        given_values_as_computed(q_max, &Plan::new(q_max, |at| !few.contains(&at)));
        given_values_as_computed(q_max, &Plan::new(q_max, |at| at != line(5, 5)));
        given_values_as_computed(q_max, &Plan::new(q_max, |_| true));
    }

    /// The check above for one plan: 600 steps, the last 300 split at row 6.
    fn given_values_as_computed(q_max: u32, plan: &Plan) {
        let n = line(q_max, q_max) + 1;
        let mut plain = Sweep::new(q_max);
        let mut live = Live::new(q_max, 2 * q_max + 64);
        for _ in 0..q_max {
            plain.step();
            live.step(|_, _, _| {});
        }
        let q1 = 6;
        let mut rings = Vec::new();
        for k in 0..600 {
            plain.step();
            let p = plain.p() as i64;
            let x: Vec<i16> = plain
                .slab()
                .iter()
                .map(|&g| (g as i64 - p) as i16)
                .collect();
            let given = Some(Given {
                plan,
                x: &x,
                stride: 1,
            });
            let mut out = vec![i16::MIN; n];
            if k < 300 {
                live.step_given(given, Some(&mut out), |_, _, _| {});
            } else {
                let mut low = live.low_part(q1);
                let n1 = line(q1, 0);
                low.step_given(given, Some(&mut out[..n1]), |_, _, _| {});
                rings.clear();
                low.export(&mut rings);
                let above = Some(Given {
                    plan,
                    x: &x[n1..],
                    stride: 1,
                });
                live.step_above(q1, &rings, above, Some(&mut out[n1..]), |_, _, _| {});
                live.absorb(&low);
            }
            assert_eq!(live.now(), plain.slab(), "p = {p}");
            assert_eq!(out, x, "p = {p}");
        }
        assert!(live.below_window().is_none());
    }
}
