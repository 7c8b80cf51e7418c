//! The end line of the text results that chomp3 reads back (Grundy censuses,
//! their b-files, graph summaries): `# end: N lines, crc32 XXXXXXXX`, the
//! number of lines before it and the CRC-32 of their bytes. A file cut off,
//! edited or damaged after it was written fails it and is refused where it is
//! read, so no answer comes from part of a result. Plumbing: uses `crc32fast`
//! only.
//!
//! [`Sealed`] wraps any writer and adds the end line at [`Sealed::finish`];
//! [`lines`] reads a file's lines back (each at most `base::text`'s
//! [`MAX_LINE`] long), checking the end line as it streams.

use std::io::{self, BufRead, Write};

use crate::base::text::{LineError, MAX_LINE};

/// What the end line starts with.
const END: &str = "# end: ";

/// A writer that counts the lines and bytes through it and ends them with the
/// end line.
pub struct Sealed<W: Write> {
    inner: W,
    crc: crc32fast::Hasher,
    lines: u64,
}

impl<W: Write> Sealed<W> {
    /// Starts a sealed file on `inner`.
    pub fn new(inner: W) -> Sealed<W> {
        Sealed {
            inner,
            crc: crc32fast::Hasher::new(),
            lines: 0,
        }
    }

    /// Writes the end line and hands back the writer.
    pub fn finish(mut self) -> io::Result<W> {
        let line = end_line(self.lines, self.crc.clone().finalize());
        self.inner.write_all(line.as_bytes())?;
        Ok(self.inner)
    }
}

impl<W: Write> Write for Sealed<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        self.lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Writes what `body` writes to `out`, then the end line.
pub fn write_sealed(
    out: &mut dyn Write,
    body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut sealed = Sealed::new(out);
    body(&mut sealed)?;
    sealed.finish().map(|_| ())
}

/// The end line for `lines` lines with this CRC-32.
fn end_line(lines: u64, crc: u32) -> String {
    format!("{END}{lines} lines, crc32 {crc:08x}\n")
}

/// Why a sealed file was refused.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// Reading failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// Nothing at all: a sealed file has its end line at least.
    #[error(
        "the file is empty, where a chomp3 result has at least its end line; make it again with the command that writes it"
    )]
    Empty,
    /// A line longer than [`MAX_LINE`].
    #[error("{0}")]
    TooLong(LineError),
    /// The last line is not an end line.
    #[error(
        "no end line (`# end: N lines, crc32 X`): the file was cut off, or written before chomp3 sealed its results; make it again with the command in its header"
    )]
    NoEnd,
    /// A true end line stands at this line number, with lines after it.
    #[error(
        "lines were added after its end line (line {0}): remove them, or make it again with the command in its header"
    )]
    AfterEnd(u64),
    /// The end line does not match what stands before it.
    #[error(
        "the file was changed or damaged after it was written: its end line says {said}, its lines give {found}; make it again with the command in its header"
    )]
    Mismatch {
        /// The end line's count and CRC.
        said: String,
        /// Those of the lines before it.
        found: String,
    },
    /// A line that is not UTF-8 text.
    #[error("line {0} is not text (UTF-8)")]
    NotText(u64),
}

impl From<LineError> for SealError {
    fn from(e: LineError) -> SealError {
        match e {
            LineError::Io(e) => SealError::Io(e),
            e => SealError::TooLong(e),
        }
    }
}

/// The lines of a sealed file, without their line ends and without the end
/// line, each checked into the count and CRC; the end line is checked when
/// it is reached, so a reader that stops early has not checked it: drain the
/// iterator before trusting what was read.
pub struct Lines<R: BufRead> {
    reader: crate::base::text::Lines<R>,
    crc: crc32fast::Hasher,
    count: u64,
    /// The line read ahead: it is the end line if nothing follows it.
    ahead: Option<Vec<u8>>,
    done: bool,
}

/// Reads the lines of a sealed file (see [`Lines`]).
pub fn lines<R: BufRead>(reader: R) -> Lines<R> {
    Lines {
        reader: crate::base::text::Lines::with_limit(reader, MAX_LINE),
        crc: crc32fast::Hasher::new(),
        count: 0,
        ahead: None,
        done: false,
    }
}

impl<R: BufRead> Lines<R> {
    fn raw_line(&mut self) -> Result<Option<Vec<u8>>, SealError> {
        Ok(self.reader.next_bytes()?)
    }

    /// Checks `last` as the end line of what came before.
    fn check_end(&self, last: &[u8]) -> Result<(), SealError> {
        let text = std::str::from_utf8(last).map_err(|_| SealError::NoEnd)?;
        if !text.starts_with(END) || !text.ends_with('\n') {
            return Err(SealError::NoEnd);
        }
        let found = end_line(self.count, self.crc.clone().finalize());
        if text != found {
            return Err(SealError::Mismatch {
                said: text[END.len()..].trim_end().to_string(),
                found: found[END.len()..].trim_end().to_string(),
            });
        }
        Ok(())
    }
}

impl<R: BufRead> Iterator for Lines<R> {
    type Item = Result<String, SealError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let step = (|| {
            if self.ahead.is_none() {
                self.ahead = self.raw_line()?;
                if self.ahead.is_none() {
                    return Err(match self.reader.line() {
                        0 => SealError::Empty,
                        _ => SealError::NoEnd,
                    });
                }
            }
            match self.raw_line()? {
                None => {
                    let last = self.ahead.take().expect("read ahead");
                    self.check_end(&last)?;
                    Ok(None)
                }
                Some(next) => {
                    let line = self.ahead.replace(next).expect("read ahead");
                    if line.starts_with(END.as_bytes()) && self.check_end(&line).is_ok() {
                        return Err(SealError::AfterEnd(self.count + 1));
                    }
                    self.crc.update(&line);
                    self.count += 1;
                    let mut text =
                        String::from_utf8(line).map_err(|_| SealError::NotText(self.count))?;
                    if text.ends_with('\n') {
                        text.pop();
                        if text.ends_with('\r') {
                            text.pop();
                        }
                    }
                    Ok(Some(text))
                }
            }
        })();
        match step {
            Ok(Some(line)) => Some(Ok(line)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealed(body: &str) -> Vec<u8> {
        let mut out = Vec::new();
        write_sealed(&mut out, |w| w.write_all(body.as_bytes())).unwrap();
        out
    }

    fn read(bytes: &[u8]) -> Result<Vec<String>, SealError> {
        lines(bytes).collect()
    }

    #[test]
    fn the_end_line_is_the_count_and_crc32_of_what_precedes_it() {
        let file = sealed("# a\n1 2\n");
        // CRC-32 of "# a\n1 2\n" by the standard polynomial, from another tool.
        let crc = crc32fast::hash(b"# a\n1 2\n");
        assert_eq!(
            String::from_utf8(file.clone()).unwrap(),
            format!("# a\n1 2\n# end: 2 lines, crc32 {crc:08x}\n")
        );
        assert_eq!(read(&file).unwrap(), ["# a", "1 2"]);
        assert_eq!(read(&sealed("")).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn a_cut_edited_or_unsealed_file_is_refused() {
        let file = sealed("# a\n8 4 281 576\n9 1 2 3\n");
        let text = String::from_utf8(file.clone()).unwrap();
        // Cut anywhere: every prefix is refused.
        for cut in 0..file.len() {
            assert!(read(&file[..cut]).is_err(), "cut at {cut}");
        }
        // One byte changed anywhere: refused.
        for at in 0..file.len() {
            let mut bad = file.clone();
            bad[at] ^= 0x04;
            assert!(read(&bad).is_err(), "byte {at}");
        }
        // A line appended, or the file repeated: the true end line is
        // named as such (line 4).
        assert!(matches!(
            read(format!("{text}1 1\n").as_bytes()),
            Err(SealError::AfterEnd(4))
        ));
        assert!(matches!(
            read(format!("{text}{text}").as_bytes()),
            Err(SealError::AfterEnd(4))
        ));
        assert!(matches!(read(b"# a\n1 2\n"), Err(SealError::NoEnd)));
        assert!(matches!(read(b""), Err(SealError::Empty)));
        assert!(matches!(read(b"\n"), Err(SealError::NoEnd)));
    }
}
