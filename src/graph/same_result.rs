//! The comparison of a graph result file already there with the one a run
//! writes, line by line as it is written: `graph --out` keeps another result
//! (other graphs, other values) unless replacing it is asked for, and writes
//! the same result again. Knows nothing of graphs; only lines.

use std::io::{self, Write};

/// A result file already there, read along as this run writes its own:
/// whether the two agree past their first lines (the commands).
pub(crate) struct Same {
    old: io::BufReader<std::fs::File>,
    /// Lines of the new result compared so far.
    line: u64,
    /// The first line that differs, if one has.
    differs: Option<u64>,
    /// The new result's bytes of a line not yet ended.
    pending: Vec<u8>,
    /// The old result's line read to compare with it (kept between lines).
    had: Vec<u8>,
}

impl Same {
    /// The result file at `path` past its first line, if there is one that
    /// can be read (one that cannot is replaced as before: the output check
    /// has refused any file of another kind).
    pub(crate) fn against(path: &std::path::Path) -> Option<Same> {
        let file = std::fs::File::open(path).ok()?;
        let mut old = io::BufReader::new(file);
        let mut first = Vec::new();
        io::BufRead::read_until(&mut old, b'\n', &mut first).ok()?;
        Some(Same {
            old,
            line: 1,
            differs: None,
            pending: Vec::new(),
            had: Vec::new(),
        })
    }

    /// Takes the new result's bytes, comparing each whole line.
    fn take(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.pending.push(b);
            if b == b'\n' {
                self.line += 1;
                self.had.clear();
                let read = io::BufRead::read_until(&mut self.old, b'\n', &mut self.had);
                if self.differs.is_none() && (read.is_err() || self.had != self.pending) {
                    self.differs = Some(self.line);
                }
                self.pending.clear();
            }
        }
    }

    /// Where the results differ, once the new one is whole (`None`: the same).
    pub(crate) fn differs(mut self) -> Option<String> {
        // Whether the old one goes on (one byte read, not the rest).
        let more = io::Read::read(&mut self.old, &mut [0u8]).map_or(true, |n| n > 0);
        match self.differs {
            Some(line) => Some(format!("line {line} differs")),
            None if !self.pending.is_empty() || more => Some(format!(
                "it has more lines than the {} of this run",
                self.line
            )),
            None => None,
        }
    }
}

/// Writes to a result file and hands the same bytes to its comparison.
pub(crate) struct Tee<'a, W: Write>(pub(crate) &'a mut W, pub(crate) &'a mut Same);

impl<W: Write> Write for Tee<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.0.write(buf)?;
        self.1.take(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}
