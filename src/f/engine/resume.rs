//! Rebuilding the engine's state from columns already computed, so that a stored
//! table extends without any checkpoint beside it.
//!
//! After `n` columns the state of a live row `r` is the set of its values `>= n`
//! (see the rule in `engine/mod.rs`). Those are diagonal values `f(a,a)` for `a < r`
//! and entries `f(a,r)` with `a >= n - 1 - r` (since `f(a,r) <= a + r + 1`), so the
//! rebuild reads about a quarter of the triangle, once, in column order.

use std::ops::Range;
use std::sync::Mutex;

use super::chain::Builder;
use super::row::{Row, Window};
use super::{CHUNK_ROWS, Engine, copy_words, set_bit};

/// Where stored columns come from (the table file, or a test's vectors).
pub(crate) trait StoredColumns {
    /// Why a read failed (a file damaged while it was read).
    type Error;
    /// Number of complete columns available.
    fn columns(&self) -> u32;
    /// Appends `f(q, r)` for `r` in `rows` (all `<= q`) to `out`.
    fn read_column(&self, q: u32, rows: Range<u32>, out: &mut Vec<u32>) -> Result<(), Self::Error>;
}

impl Engine {
    /// The state after all of `source`'s columns, ready to compute the next
    /// one; the first read that fails ends it with its error.
    pub fn resume<S: StoredColumns>(source: &S) -> Result<Engine, S::Error> {
        let n = source.columns();
        if n == 0 {
            return Ok(Engine::new());
        }
        let mut buf = Vec::new();
        let diagonal: Vec<u32> = (0..n)
            .map(|a| {
                buf.clear();
                source.read_column(a, a..a + 1, &mut buf)?;
                Ok(buf[0])
            })
            .collect::<Result<_, S::Error>>()?;
        let mut last = Vec::new();
        source.read_column(n - 1, 0..n, &mut last)?;

        // A row died before column n iff f(n-1, r) < n.
        let mut rows = Vec::with_capacity(n as usize);
        let mut earlier_diagonal = Vec::new(); // f(a,a) for a < r
        for r in 0..n {
            let v = last[r as usize];
            rows.push(if v < n {
                Ok(Row::Dead { value: v })
            } else {
                let mut win = Window {
                    base: n / 64,
                    bits: vec![0; (r as usize + 1) / 64 + 2],
                };
                copy_words(&earlier_diagonal, win.base, &mut win.bits);
                Err(win)
            });
            set_bit(&mut earlier_diagonal, diagonal[r as usize]);
        }
        for a in 0..n {
            let lo = (n - 1).saturating_sub(a);
            if lo > a {
                continue;
            }
            buf.clear();
            source.read_column(a, lo..a + 1, &mut buf)?;
            for (r, &v) in (lo..).zip(&buf) {
                if let (Err(win), true) = (&mut rows[r as usize], v >= n) {
                    win.mark(v);
                }
            }
        }

        let mut chunks = Vec::new();
        let mut rows = rows.into_iter();
        loop {
            let mut chunk = Builder::new(n);
            let mut any = false;
            for row in rows.by_ref().take(CHUNK_ROWS as usize) {
                any = true;
                match row {
                    Ok(row) => chunk.settled(row),
                    Err(win) => chunk.live(win),
                }
            }
            if !any {
                break;
            }
            chunks.push(Mutex::new(chunk.finish()));
        }
        Ok(Engine {
            columns: n,
            row_limit: u32::MAX,
            chunks,
            diagonal: Mutex::new(earlier_diagonal),
            ..Engine::new()
        })
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
    use super::*;
    use crate::f::engine::tests::columns;

    impl StoredColumns for Vec<Vec<u32>> {
        type Error = std::convert::Infallible;
        fn columns(&self) -> u32 {
            self.len() as u32
        }
        fn read_column(
            &self,
            q: u32,
            rows: Range<u32>,
            out: &mut Vec<u32>,
        ) -> Result<(), Self::Error> {
            out.extend_from_slice(&self[q as usize][rows.start as usize..rows.end as usize]);
            Ok(())
        }
    }

    #[test]
    fn resumed_engine_continues_exactly() {
        let mut direct = Vec::new();
        direct.extend(columns(&mut Engine::new(), 700));
        for cut in [1, 2, 3, 64, 299, 300, 513] {
            let mut cols = direct[..cut].to_vec();
            let Ok(mut engine) = Engine::resume(&cols);
            cols.extend(columns(&mut engine, 700 - cut as u32));
            let diff = crate::f::engine::tests::first_difference(&cols, &direct);
            assert_eq!(diff, None, "resumed after {cut} columns");
        }
    }
}
