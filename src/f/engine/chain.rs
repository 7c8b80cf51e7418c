//! A chunk of rows and its live rows' windows, kept as a chain of differences:
//! owns [`Chunk`] (the rows, and the first live row's window in full), how a block
//! of columns runs over it, and the walks that lend each live row its window in
//! turn. Uses `row` for the rows themselves.
//!
//! Neighbouring live rows have nearly the same window (at `R = 3*10^5` they
//! differ in 1.3e-5 of their bits: a few values where a young row's window
//! holds `0.65 r`), so a chunk keeps the window of its first live row (the
//! anchor) and, for every other live row, the values in which its window
//! differs from that of the live row before it (its link, `Live::delta`). A
//! block runs up the chunk with one bitset per thread, turned from each row's
//! window into the next one's by the links: the windows of a census cost about
//! one per chunk of [`CHUNK_ROWS`](super::CHUNK_ROWS) rows instead of one per row.
//!
//! # Why the chain is exact (proof)
//!
//! Take a block of columns `q0 .. q1`. For a live row `y` write `W_y` for its
//! window at `q0` (its used values `>= q0`), and `F_y` for the values it takes
//! in the block's columns (one a column until it dies); no value of `F_y` is in
//! `W_y` (a row takes a value it has not used), so `W_y ∪ F_y` is `W_y xor F_y`.
//! * The walk: after row `p` the bitset holds `W_p xor F_p` (bits below `q0` are
//!   stale and never read); flipping `F_p` gives `W_p`, flipping the next live
//!   row's link `W_y xor W_p` gives `W_y`.
//! * The next block's links: a row `y` that survives the block has the window
//!   `(W_y xor F_y) ∩ [q1, ∞)` at `q1`, and so has the last row `s < y` that
//!   survived it. Their xor is `(W_y xor W_s xor F_y xor F_s) ∩ [q1, ∞)`, and
//!   `W_y xor W_s` is the xor of the links of the live rows after `s` up to
//!   `y` (those between died in the block and leave the chain). The first row
//!   that survives becomes the anchor: its window is copied from the bitset.
//! * Births: row `r` is born at column `r` (`q0 <= r < q1`) with the window
//!   `{f(a,a) >= r : a < r}`, which is also row `r - 1`'s window at `r` (its
//!   values `>= r` are `f(a, r - 1) = f(a,a)` for `a < r - 1` and its own
//!   diagonal value), that is `(W_{r-1} xor F_{r-1}') ∩ [r, ∞)` with `F_{r-1}'`
//!   its values in columns before `r`. So the walk treats row `r` as a row
//!   whose window at `q0` was `W_{r-1}` (an empty link) and whose values in
//!   columns `q0 .. r` were row `r - 1`'s: it flips off row `r - 1`'s values
//!   from column `r` on, and both rules above hold as they are. (Row `r - 1` is
//!   alive at `r`, since a row never dies at its birth column, so it is the
//!   live row before `r`.) The first row of a chunk born in the block starts
//!   the chain from the diagonal bitset itself.
//! * A row that leaves the chain between blocks (proved periodic) hands its
//!   link to the next live row: `W_z xor W_x = (W_z xor W_y) xor (W_y xor W_x)`;
//!   if it was the anchor, the next live row's link turns the anchor into that
//!   row's window.
//! * Narrow windows: when a block's bitsets are at most
//!   [`COPY_WORDS`] words, whole copies replace the lists. Before a live row
//!   `y` runs, its window `W_y` is copied; after it, the bitset holds `S_y = W_y
//!   xor F_y`, kept if `y` survives. The next live row's window is the copy of
//!   `W_y` with its link flipped, so `F_y` is never flipped off; and a
//!   survivor's next link `(W_y xor W_s xor F_y xor F_s) ∩ [q1, ∞)` is
//!   `(S_y xor S_s) ∩ [q1, ∞)`: the words in which two kept bitsets differ. A
//!   row `r` born in the block starts from the copy of `W_{r-1}` with row
//!   `r - 1`'s values before column `r` flipped in, the bitset the births rule
//!   gives. The windows and links are the same either way.

use std::sync::Mutex;

use super::row::{BlockOut, Live, NONE, Row, Window, differences};
use super::{copy_words, set_bit};

/// A chunk's rows, and the window of its first live row at the engine's column.
#[derive(Default)]
pub(crate) struct Chunk {
    /// Rows `lo ..` of the chunk, in order.
    pub(crate) rows: Vec<Row>,
    /// The window of the first live row (empty when there is none).
    anchor: Window,
}

/// A thread's working sets for [`Chunk::advance_block`], kept between blocks
/// so that they are allocated once.
#[derive(Default)]
pub(crate) struct Scratch {
    /// The window of the row being computed.
    win: Window,
    /// Its values, column `q0 + j` at index `j` ([`NONE`] before a chunk's
    /// first row is born).
    marks: Vec<u32>,
    /// The same for the live row before it.
    prev: Vec<u32>,
    /// The same for the last row that survived the block.
    kept: Vec<u32>,
    /// The links of the rows since that one.
    pend: Vec<u32>,
    /// All clear between uses: the xor of lists of values.
    flips: Window,
    /// In a block of narrow windows: the window of the row being computed
    /// before its block.
    before: Window,
    /// In a block of narrow windows: `win` as the last row that survived the
    /// block left it.
    last: Window,
    /// Windows of at most this many words are narrow.
    narrow_words: usize,
}

impl Scratch {
    /// Working sets for blocks whose windows of at most `narrow_words` words
    /// are copied whole.
    pub(crate) fn new(narrow_words: usize) -> Scratch {
        Scratch {
            narrow_words,
            ..Scratch::default()
        }
    }
}

/// Windows of at most this many words are copied whole, not flipped value by
/// value (module's proof, "Narrow windows"): a copy of up to 8 KiB costs less
/// than flipping a row's values three times.
pub(crate) const COPY_WORDS: usize = 1024;

impl Chunk {
    /// Computes the block's columns `b.q0 .. q_end` for rows `lo .. hi` of
    /// this chunk (`lo` its first row), creating the rows born in the block
    /// (their diagonal values go to `diagonal`, which holds `f(a,a)` for every
    /// `a` below the row being computed).
    pub(crate) fn advance_block(
        &mut self,
        (lo, hi): (u32, u32),
        q_end: u32,
        b: &mut BlockOut,
        s: &mut Scratch,
        diagonal: &Mutex<Vec<u64>>,
    ) {
        let q0 = b.q0;
        let Scratch {
            win,
            marks,
            prev,
            kept,
            pend,
            flips,
            before,
            last,
            narrow_words,
        } = s;
        // Whether `win` has been set up: at the first live row (a chunk of
        // settled rows never needs it).
        let mut ready = false;
        // Whether `win` holds `W_p xor F_p` of a live row `p` before this one.
        let mut chained = false;
        let mut survived = false;
        let mut anchor = Window::default();
        // Whether the windows are narrow enough to be copied whole.
        let mut copy = false;
        pend.clear();
        for r in lo..hi {
            let i = (r - lo) as usize;
            let q_from = r.max(q0);
            marks.clear();
            if !ready && (r >= q0 || matches!(self.rows[i], Row::Live(_))) {
                // Every value a row of the chunk takes in the block is below q_end + hi.
                win.base = q0 / 64;
                win.bits.clear();
                win.bits
                    .resize(((q_end + hi) / 64 - q0 / 64) as usize + 2, 0);
                self.anchor.copy_into(win);
                ready = true;
                copy = win.bits.len() <= *narrow_words;
                if copy {
                    for w in [&mut *before, &mut *last] {
                        w.base = win.base;
                        w.bits.clear();
                        w.bits.resize(win.bits.len(), 0);
                    }
                }
            }
            if r >= q0 {
                // Born here (module's proof).
                let mut row = Row::born(r);
                let left = r.checked_sub(1).and_then(|x| x.checked_sub(b.lo));
                if left.is_some_and(|k| b.out[(r - q0) as usize * b.stride + k as usize] >= r) {
                    row.start_diff();
                }
                self.rows.push(row);
                let born_at = (r - q0) as usize;
                if chained {
                    // Copied, `win` is `W_{r-1}`, the window row `r` is taken
                    // to have had: row `r - 1`'s values before column `r` go
                    // in. Flipped, it holds all of them: those from `r` go out.
                    let flip = if copy {
                        before.bits.copy_from_slice(&win.bits);
                        &prev[..born_at]
                    } else {
                        &prev[born_at..]
                    };
                    for &v in flip {
                        if v != NONE {
                            win.toggle(v);
                        }
                    }
                    marks.extend_from_slice(&prev[..born_at]);
                } else {
                    win.bits.fill(0);
                    copy_words(&diagonal.lock().unwrap(), win.base, &mut win.bits);
                    marks.resize(born_at, NONE);
                    if copy {
                        before.bits.copy_from_slice(&win.bits);
                    }
                }
            }
            let row = &mut self.rows[i];
            let Row::Live(live) = row else {
                row.advance(r, q_from, q_end, b, win, marks);
                continue;
            };
            let link = std::mem::take(&mut live.delta);
            if r < q0 && copy {
                // `win` is `W_p` (or, at the first live row, the anchor).
                for &v in &link {
                    win.toggle(v);
                }
                before.bits.copy_from_slice(&win.bits);
            } else if chained && r < q0 {
                for &v in prev.iter() {
                    if v != NONE {
                        win.toggle(v);
                    }
                }
                for &v in &link {
                    win.toggle(v);
                }
            }
            if survived && !copy {
                pend.extend_from_slice(&link);
            }
            let died = row.advance(r, q_from, q_end, b, win, marks);
            match died {
                Some(died) => *row = Row::Dead { value: died },
                None => {
                    let Row::Live(live) = row else { unreachable!() };
                    if survived && copy {
                        live.delta = differences(q_end, win, last);
                    } else if survived {
                        live.delta = xor(q_end, [&pend[..], &marks[..], &kept[..]], flips);
                        pend.clear();
                    } else {
                        anchor = win.tail_from(q_end / 64);
                    }
                    survived = true;
                    if !copy {
                        kept.clone_from(marks);
                    }
                }
            }
            if copy {
                // `last` becomes this row's `W xor F` if it survived; `win`
                // its window before the block, for the next row's link.
                if died.is_none() {
                    std::mem::swap(win, last);
                }
                std::mem::swap(win, before);
            }
            if r >= q0 {
                let d = b.out[(r - q0) as usize * b.stride + (r - b.lo) as usize];
                set_bit(&mut diagonal.lock().unwrap(), d);
            }
            chained = true;
            std::mem::swap(prev, marks);
        }
        self.anchor = anchor;
    }

    /// Row `i` (live) is proved periodic: it leaves the chain, handing its link on.
    pub(crate) fn make_periodic(&mut self, i: usize, start: u32, pattern: Vec<i32>) {
        assert!(!pattern.is_empty());
        let Row::Live(live) = &mut self.rows[i] else {
            panic!("only a live row becomes periodic");
        };
        let link = std::mem::take(&mut live.delta);
        let first = !self.rows[..i].iter().any(|r| matches!(r, Row::Live(_)));
        self.rows[i] = Row::Periodic { start, pattern };
        let next = self.rows[i + 1..].iter_mut().find_map(|r| match r {
            Row::Live(l) => Some(l),
            _ => None,
        });
        match (next, first) {
            (Some(next), true) => {
                for v in std::mem::take(&mut next.delta) {
                    self.anchor.toggle(v);
                }
            }
            (Some(next), false) => {
                let mut both: Vec<u32> = link.into_iter().chain(next.delta.drain(..)).collect();
                both.sort_unstable();
                let mut out = Vec::with_capacity(both.len());
                for v in both {
                    if out.last() == Some(&v) {
                        out.pop();
                    } else {
                        out.push(v);
                    }
                }
                next.delta = out;
            }
            (None, true) => self.anchor = Window::default(),
            (None, false) => {}
        }
    }

    /// The rows' set of differences rebuilt where they lack it (`row.rs`) and
    /// the neighbour below is a live row; `below` is the nearest row under
    /// the chunk that has not died (`None`: not known or not live; else its
    /// window), and becomes the chunk's.
    pub(crate) fn rebuild_diffs(&mut self, q: u32, below: &mut Option<Window>) {
        let mut win = self.anchor.clone();
        let mut first = true;
        // Whether the nearest row below that has not died is the live row whose window `win` holds.
        let mut live_below = false;
        for row in &mut self.rows {
            match row {
                Row::Dead { .. } => {}
                Row::Periodic { .. } => {
                    *below = None;
                    live_below = false;
                }
                Row::Live(l) => {
                    if first {
                        if l.diff_missing()
                            && let Some(x) = below.as_ref()
                        {
                            l.set_diff(q, differences(q, x, &win).into_iter(), x);
                        }
                    } else {
                        if l.diff_missing() && live_below {
                            l.set_diff(q, l.delta.clone().into_iter(), &win);
                        }
                        for &v in &l.delta {
                            win.toggle(v);
                        }
                    }
                    first = false;
                    live_below = true;
                    *below = None;
                }
            }
        }
        if live_below {
            *below = Some(win);
        }
    }
}

/// The values `>= q1` that lie in an odd number of `parts` (each list without
/// repeats; [`NONE`] ignored), through `flips` (all clear before and after).
fn xor(q1: u32, parts: [&[u32]; 3], flips: &mut Window) -> Vec<u32> {
    // Plain loops over each part: a flattened, filtered iterator took 10 %
    // longer (so did flipping in one pass and checking its candidates after).
    flips.base = q1 / 64;
    for part in parts {
        for &v in part {
            if v != NONE && v >= q1 {
                flips.toggle(v);
            }
        }
    }
    let mut out = Vec::new();
    for part in parts {
        for &v in part {
            if v != NONE && v >= q1 && flips.has(v) {
                out.push(v);
                flips.toggle(v);
            }
        }
    }
    out.shrink_to_fit();
    out
}

/// Lends a chunk's live rows their windows in order: the window of each is the
/// anchor with the links up to it flipped.
pub(crate) struct Walk {
    win: Window,
    /// The next row index whose link is not in `win` yet.
    next: usize,
    /// Whether the chunk's first live row is behind.
    started: bool,
}

impl Walk {
    /// A walk at the start of `chunk`.
    pub(crate) fn new(chunk: &Chunk) -> Walk {
        Walk {
            win: chunk.anchor.clone(),
            next: 0,
            started: false,
        }
    }

    /// Row `i` of `chunk` with its window, if it is live (`i` not below the
    /// rows already walked past, else the walk starts again).
    pub(crate) fn row<'w>(
        &'w mut self,
        chunk: &'w Chunk,
        i: usize,
    ) -> Option<(&'w Live, &'w Window)> {
        if i + 1 < self.next {
            *self = Walk::new(chunk);
        }
        while self.next <= i {
            if let Row::Live(l) = &chunk.rows[self.next] {
                if self.started {
                    for &v in &l.delta {
                        self.win.toggle(v);
                    }
                }
                self.started = true;
            }
            self.next += 1;
        }
        match &chunk.rows[i] {
            Row::Live(l) => Some((l, &self.win)),
            _ => None,
        }
    }
}

/// Builds a chunk at column `q` from its rows in order, each live one with its
/// window.
pub(crate) struct Builder {
    chunk: Chunk,
    q: u32,
    last: Option<Window>,
}

impl Builder {
    /// An empty chunk at column `q`.
    pub(crate) fn new(q: u32) -> Builder {
        Builder {
            chunk: Chunk::default(),
            q,
            last: None,
        }
    }

    /// Appends a dead or periodic row.
    pub(crate) fn settled(&mut self, row: Row) {
        assert!(!matches!(row, Row::Live(_)));
        self.chunk.rows.push(row);
    }

    /// Appends a live row whose window at the column is `win`.
    pub(crate) fn live(&mut self, win: Window) {
        let q = self.q;
        let delta = match &self.last {
            None => {
                self.chunk.anchor = win.tail_from(q / 64);
                Vec::new()
            }
            Some(x) => differences(q, x, &win),
        };
        self.chunk.rows.push(Row::live_at(q, delta));
        self.last = Some(win);
    }

    /// The chunk.
    pub(crate) fn finish(self) -> Chunk {
        self.chunk
    }
}
