//! Opening a text result to read it as committed: a file whose name ends in
//! `.xz` is decompressed as it is read (streamed: a Grundy census can be
//! gigabytes; streams one after another read in turn, as `xz -dc` does), any
//! other is read as it is. Its lines are read at most [`MAX_LINE`] bytes
//! long ([`Lines`]), and a text read whole at most [`MAX_WHOLE`] bytes
//! ([`read_to_string`]), so no file, however it decompresses, takes memory
//! without bound. Opens through `base::input`; uses `xz2`.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use crate::base::input::{self, InputError};
use crate::base::path_message::NamesPath;

/// The longest line a text file chomp3 reads may have, without its line end:
/// 64 MiB. The longest lines chomp3 writes are a Grundy census's patterns, at
/// most 7 bytes a term (`-32768,`), so this holds the pattern of any period
/// up to 9 million (the longest known, of the lines `q <= 300`, are 4,718,592;
/// FORMAT.md).
pub const MAX_LINE: usize = 64 << 20;

/// The most bytes of a text file read whole ([`read_to_string`]: graph
/// summaries, edge lists), 64 MiB.
pub const MAX_WHOLE: u64 = 64 << 20;

/// The lines of the text file at `path`, decompressed if its name ends in
/// `.xz`; `what` is what the file should be (`a Grundy census`), for the
/// message when it is no regular file (see `base::input`).
pub fn open(path: &Path, what: &'static str) -> Result<Box<dyn BufRead + Send>, InputError> {
    let file = input::open(path, what)?;
    let xz_name = path.extension().is_some_and(|e| e == "xz");
    if !xz_name && compressed(&file) {
        return Err(InputError::CompressedUnnamed {
            path: path.to_path_buf(),
        });
    }
    Ok(wrap(path, file))
}

/// Whether `file` starts as a file compressed with xz does (no text does:
/// its first byte is no UTF-8).
fn compressed(file: &File) -> bool {
    use std::os::unix::fs::FileExt;
    let mut head = [0u8; 6];
    matches!(file.read_at(&mut head, 0), Ok(6)) && head[..] == *input::XZ_MAGIC
}

/// `file`, opened from `path`, as text: decompressed if the name ends in
/// `.xz`, no further than its last stream where its indexes say where that
/// ends (the null bytes after it, gigabytes in a sparse file, are padding).
fn wrap(path: &Path, file: File) -> Box<dyn BufRead + Send> {
    if path.extension().is_some_and(|e| e == "xz") {
        let end = super::xz_len::decompressed_len(&file).map_or(u64::MAX, |l| l.streams_end);
        Box::new(BufReader::new(Worded(xz_decoder(file.take(end)))))
    } else {
        Box::new(BufReader::new(file))
    }
}

/// A `.xz` decoder whose errors say what they are ([`xz_error`]): a cut or
/// damaged file, or memory the decoder could not have.
struct Worded<R: io::Read>(xz2::read::XzDecoder<R>);

impl<R: io::Read> io::Read for Worded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf).map_err(|e| match e.kind() {
            io::ErrorKind::Interrupted => e,
            _ => xz_error(e),
        })
    }
}

/// The most memory the `.xz` decoder may take: four times what `xz -9`'s
/// dictionary needs (65 MiB). A file's header names its dictionary, up to
/// 4 GiB (the `.lzma` format, which the decoder reads too), and the decoder
/// takes that room before it reads a byte of content: without a bound a
/// hundred bytes would take gigabytes.
const XZ_MEMORY: u64 = 256 << 20;

/// A decoder of every stream of `r` (as `xz -d` reads a file of several),
/// `.xz` or `.lzma`, its memory bounded by [`XZ_MEMORY`].
pub(crate) fn xz_decoder<R: io::Read>(r: R) -> xz2::read::XzDecoder<R> {
    let stream = xz2::stream::Stream::new_auto_decoder(XZ_MEMORY, xz2::stream::CONCATENATED)
        .expect("liblzma makes a decoder with a memory limit");
    xz2::read::XzDecoder::new_stream(r, stream)
}

/// Whether `e` is a want of memory, the `.xz` decoder's or that of the room
/// for what it gives (`read_to_end`'s), not damage to the file.
fn xz_lacks_memory(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::OutOfMemory
        || e.get_ref()
            .and_then(|x| x.downcast_ref::<xz2::stream::Error>())
            .is_some_and(|x| matches!(x, xz2::stream::Error::Mem))
}

/// Whether `e` is the decoder's refusal of a file that needs more than
/// [`XZ_MEMORY`].
fn xz_past_its_bound(e: &io::Error) -> bool {
    e.get_ref()
        .and_then(|x| x.downcast_ref::<xz2::stream::Error>())
        .is_some_and(|x| matches!(x, xz2::stream::Error::MemLimit))
}

/// The error that says the decoder had not memory enough.
pub(crate) fn xz_memory_error() -> io::Error {
    io::Error::new(
        io::ErrorKind::OutOfMemory,
        "not enough memory to decompress it; run it again with more memory",
    )
}

/// An error of a `.xz` decoder of a whole file, worded for what it is:
/// memory the decoder could not have is not damage to the file.
pub(crate) fn xz_error(e: io::Error) -> io::Error {
    if xz_past_its_bound(&e) {
        return io::Error::new(
            e.kind(),
            format!(
                "its compression needs more than {} MiB to undo (a dictionary larger than any xz preset's), or its header is damaged; compress it again with xz -9",
                XZ_MEMORY >> 20
            ),
        );
    }
    match xz_lacks_memory(&e) {
        true => xz_memory_error(),
        false => io::Error::new(e.kind(), format!("not a whole .xz file ({e})")),
    }
}

/// Why a line could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// Reading (or decompressing) failed.
    #[error("{0}")]
    Io(io::Error),
    /// A line longer than [`MAX_LINE`] (no line of a file chomp3 reads is).
    #[error(
        "line {line} is longer than {} MiB, longer than any line of a file chomp3 reads",
        .limit >> 20
    )]
    TooLong {
        /// Its number, from 1.
        line: u64,
        /// The limit it passed, in bytes.
        limit: usize,
    },
}

/// The lines of a reader, each at most [`MAX_LINE`] bytes: a longer one is
/// refused once that much of it is read, so a line without end (a
/// decompression bomb: gigabytes of one byte, a few hundred KB packed) costs
/// no more memory than that.
pub struct Lines<R> {
    reader: R,
    /// Lines read so far.
    line: u64,
    limit: usize,
}

impl<R: BufRead> Lines<R> {
    /// The lines of `reader`.
    pub fn new(reader: R) -> Lines<R> {
        Lines::with_limit(reader, MAX_LINE)
    }

    /// The lines of `reader`, each at most `limit` bytes.
    pub(crate) fn with_limit(reader: R, limit: usize) -> Lines<R> {
        Lines {
            reader,
            line: 0,
            limit,
        }
    }

    /// The number of the last line read (from 1; 0 before the first).
    pub fn line(&self) -> u64 {
        self.line
    }

    /// The next line with its line end (`\n`, if it has one), or `None` at
    /// the end.
    pub(crate) fn next_bytes(&mut self) -> Result<Option<Vec<u8>>, LineError> {
        let mut buf = Vec::new();
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // A `.xz` decoder's errors come worded ([`Worded`]).
                Err(e) => return Err(LineError::Io(e)),
            };
            if chunk.is_empty() {
                break;
            }
            let (take, ends) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            let content = buf.len() + take - usize::from(ends);
            if content > self.limit {
                return Err(LineError::TooLong {
                    line: self.line + 1,
                    limit: self.limit,
                });
            }
            buf.extend_from_slice(&chunk[..take]);
            self.reader.consume(take);
            if ends {
                break;
            }
        }
        if buf.is_empty() {
            return Ok(None);
        }
        self.line += 1;
        Ok(Some(buf))
    }
}

impl<R: BufRead> Iterator for Lines<R> {
    /// A line without its line end (`\n` or `\r\n`); not UTF-8 is an
    /// [`io::ErrorKind::InvalidData`] error.
    type Item = Result<String, LineError>;

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = match self.next_bytes() {
            Ok(b) => b?,
            Err(e) => return Some(Err(e)),
        };
        let mut text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(_) => {
                return Some(Err(LineError::Io(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("line {} is not text (UTF-8)", self.line),
                ))));
            }
        };
        if text.ends_with('\n') {
            text.pop();
            if text.ends_with('\r') {
                text.pop();
            }
        }
        Some(Ok(text))
    }
}

/// Why a text file read whole could not be.
#[derive(Debug, thiserror::Error)]
pub enum TextError {
    /// It could not be opened.
    #[error(transparent)]
    Open(#[from] InputError),
    /// Reading it failed, or a line is too long.
    #[error("{}: {error}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What failed.
        error: LineError,
    },
    /// Standard input is compressed with xz.
    #[error(
        "standard input is compressed with xz: pipe it through xz -dc, or give the file by its name ending in .xz"
    )]
    CompressedStdin,
    /// It is longer than [`MAX_WHOLE`].
    #[error(
        "{} holds more than {} MiB of text, more than any file of its kind chomp3 writes",
        .path.display(), MAX_WHOLE >> 20
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
}

impl NamesPath for TextError {
    fn names_path(&self) -> bool {
        true
    }
}

/// The whole text of the file at `path` (decompressed if its name ends in
/// `.xz`), read as `what`: at most [`MAX_WHOLE`] bytes, in lines of at most
/// [`MAX_LINE`].
pub fn read_to_string(path: &Path, what: &'static str) -> Result<String, TextError> {
    whole(open(path, what)?, path)
}

/// The whole of standard input as text, with the limits of
/// [`read_to_string`]; its errors name it `standard input`.
pub fn stdin_to_string() -> Result<String, TextError> {
    whole(stdin()?, Path::new("standard input"))
}

/// Standard input to be read as text: refused if it starts as a file
/// compressed with xz does (a name tells a file to decompress; a pipe has
/// none), so that it is not called "not text" at its first line.
pub fn stdin() -> Result<impl BufRead + Send, TextError> {
    let magic = input::XZ_MAGIC;
    // Up to the magic's length, or the end of a first line (the magic has
    // no line end): a short first line typed or piped slowly is read at
    // once, not held for more.
    let mut head = Vec::with_capacity(magic.len());
    let mut stdin = io::stdin().lock();
    // (An end met here is not asked for again: at a terminal each end is
    // one Ctrl-D.)
    let mut ended = false;
    while head.len() < magic.len() && head.last() != Some(&b'\n') {
        let mut byte = [0u8];
        match stdin.read(&mut byte) {
            Ok(0) => {
                ended = true;
                break;
            }
            Ok(_) => head.push(byte[0]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                return Err(TextError::Read {
                    path: PathBuf::from("standard input"),
                    error: LineError::Io(e),
                });
            }
        }
    }
    drop(stdin);
    if head == magic {
        return Err(TextError::CompressedStdin);
    }
    let rest: Box<dyn Read + Send> = match ended {
        true => Box::new(io::empty()),
        false => Box::new(io::stdin()),
    };
    Ok(BufReader::new(io::Cursor::new(head).chain(rest)))
}

/// The whole text `reader` gives, named `path` in errors.
fn whole(reader: impl Read, path: &Path) -> Result<String, TextError> {
    let reader = reader.take(MAX_WHOLE + 1);
    let mut lines = Lines::new(BufReader::new(reader));
    let mut text = String::new();
    let read = |error| TextError::Read {
        path: path.to_path_buf(),
        error,
    };
    while let Some(bytes) = lines.next_bytes().map_err(read)? {
        let line = std::str::from_utf8(&bytes).map_err(|_| {
            read(LineError::Io(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("line {} is not text (UTF-8)", lines.line()),
            )))
        })?;
        text.push_str(line);
        if text.len() as u64 > MAX_WHOLE {
            return Err(TextError::TooLarge {
                path: path.to_path_buf(),
            });
        }
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Room that `read_to_end` could not reserve for the decompressed bytes
    /// (an error of kind `OutOfMemory`, as std documents) is a want of
    /// memory, as the decoder's own is; a cut stream is not.
    /// A `.lzma` header naming a 4 GiB dictionary (a hundred bytes, found by
    /// fuzzing): the decoder refuses it within its bound, said as such, and
    /// takes nothing near that room.
    #[test]
    fn a_dictionary_past_the_bound_is_refused_not_allocated() {
        let mut bytes = [0xffu8; 102];
        bytes[0] = 0x89;
        let mut out = Vec::new();
        let e = xz_decoder(&bytes[..]).read_to_end(&mut out).unwrap_err();
        let said = xz_error(e).to_string();
        assert!(
            said.starts_with("its compression needs more than 256 MiB"),
            "{said}"
        );
    }

    #[test]
    fn memory_wanted_for_the_decompressed_bytes_is_not_called_damage() {
        let full = xz_error(io::Error::from(io::ErrorKind::OutOfMemory));
        assert!(full.to_string().starts_with("not enough memory"), "{full}");
        let packed = {
            let mut xz = xz2::write::XzEncoder::new(Vec::new(), 6);
            xz.write_all(&[7u8; 100_000]).unwrap();
            xz.finish().unwrap()
        };
        let mut cut = xz2::read::XzDecoder::new(&packed[..packed.len() / 2]);
        let e = cut.read_to_end(&mut Vec::new()).unwrap_err();
        assert!(xz_error(e).to_string().starts_with("not a whole .xz file"));
    }

    #[test]
    fn an_xz_file_reads_as_its_text_and_a_plain_one_as_itself() {
        let dir = tempfile::tempdir().unwrap();
        let text = "# a header\n1\t2\n3\t4\n";
        let plain = dir.path().join("a.tsv");
        std::fs::write(&plain, text).unwrap();
        let packed = dir.path().join("a.tsv.xz");
        let mut xz = xz2::write::XzEncoder::new(File::create(&packed).unwrap(), 6);
        xz.write_all(text.as_bytes()).unwrap();
        xz.finish().unwrap();
        for path in [&plain, &packed] {
            let mut got = String::new();
            open(path, "a text")
                .unwrap()
                .read_to_string(&mut got)
                .unwrap();
            assert_eq!(got, text, "{}", path.display());
        }
        // Streams one after another read as their texts in turn, as
        // `xz -dc` reads them.
        let two = dir.path().join("two.tsv.xz");
        let mut bytes = std::fs::read(&packed).unwrap();
        bytes.extend(std::fs::read(&packed).unwrap());
        std::fs::write(&two, bytes).unwrap();
        let mut got = String::new();
        open(&two, "a text")
            .unwrap()
            .read_to_string(&mut got)
            .unwrap();
        assert_eq!(got, text.repeat(2));
        // A file named .xz that is not one fails where it is read.
        let fake = dir.path().join("b.tsv.xz");
        std::fs::write(&fake, text).unwrap();
        let mut got = String::new();
        assert!(
            open(&fake, "a text")
                .unwrap()
                .read_to_string(&mut got)
                .is_err()
        );
    }

    /// `mib` MiB of zero bytes (no line end), packed as `.xz`: one stream
    /// of 1 MiB repeated, a few hundred bytes a MiB.
    pub(crate) fn bomb(path: &Path, mib: usize) {
        let mut one = Vec::new();
        let mut xz = xz2::write::XzEncoder::new(&mut one, 1);
        xz.write_all(&vec![0u8; 1 << 20]).unwrap();
        xz.finish().unwrap();
        std::fs::write(path, one.repeat(mib)).unwrap();
    }

    #[test]
    fn a_line_past_the_limit_is_refused_once_the_limit_is_read() {
        let text = b"# short\n12345678\nabc";
        let mut lines = Lines::with_limit(&text[..], 8);
        assert_eq!(lines.next().unwrap().unwrap(), "# short");
        assert_eq!(lines.next().unwrap().unwrap(), "12345678");
        assert_eq!(lines.line(), 2);
        assert_eq!(lines.next().unwrap().unwrap(), "abc");
        assert!(lines.next().is_none());
        let mut lines = Lines::with_limit(&b"1\n123456789\n"[..], 8);
        assert_eq!(lines.next().unwrap().unwrap(), "1");
        let err = lines.next().unwrap().unwrap_err();
        assert!(
            matches!(err, LineError::TooLong { line: 2, limit: 8 }),
            "{err}"
        );
        // CRLF ends are taken off; the limit counts the text only.
        let mut lines = Lines::with_limit(&b"12345678\r\n"[..], 9);
        assert_eq!(lines.next().unwrap().unwrap(), "12345678");
    }

    /// Two GiB of zeros without a line end, 800 KB packed: refused after
    /// the first 64 MiB, in well under the time reading it all would take.
    #[test]
    fn a_decompression_bomb_is_refused_at_the_line_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bomb.tsv.xz");
        bomb(&path, 2048);
        assert!(std::fs::metadata(&path).unwrap().len() < 4 << 20);
        let started = std::time::Instant::now();
        let mut lines = Lines::new(open(&path, "a Grundy census").unwrap());
        let err = lines.next().unwrap().unwrap_err();
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
        assert_eq!(
            err.to_string(),
            "line 1 is longer than 64 MiB, longer than any line of a file chomp3 reads"
        );
        // The sealed readers read through the same lines.
        let err = crate::base::seal::lines(open(&path, "x").unwrap())
            .next()
            .unwrap()
            .unwrap_err();
        assert!(
            matches!(err, crate::base::seal::SealError::TooLong(_)),
            "{err}"
        );
        // Read whole, it is refused at the same limit.
        let err = read_to_string(&path, "a summary").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}: line 1 is longer than 64 MiB, longer than any line of a file chomp3 reads",
                path.display()
            )
        );
    }
}
