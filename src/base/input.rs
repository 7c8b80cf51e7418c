//! Opening a file a user named, to read it. What stands at the path is
//! looked at before anything is read: a regular file is opened; a directory,
//! a FIFO, a socket or a device is refused with what it is, and without
//! blocking (opening a FIFO to read it waits for a writer, forever if none
//! comes); a missing file and a symbolic link to nothing are told apart.
//! Every reader of a file a user names opens it here; standard input and the
//! pipes of programs chomp3 starts are streams on purpose and do not. Uses
//! `libc` (Linux) for the open that cannot block.

use std::fmt;
use std::fs::{File, FileType};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::base::path_message::NamesPath;

/// The first bytes of a file compressed with xz.
pub const XZ_MAGIC: &[u8] = b"\xFD7zXZ\0";

/// What stands at a path that is not a regular file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A directory.
    Directory,
    /// A FIFO (named pipe).
    Fifo,
    /// A Unix socket.
    Socket,
    /// A character device (`/dev/zero`, a terminal).
    CharDevice,
    /// A block device (a disk).
    BlockDevice,
    /// Something else the system has.
    Other,
    /// A regular file, where a directory was wanted.
    File,
}

impl Kind {
    /// The kind of a file of type `t`; `None` for a regular file.
    pub fn of(t: FileType) -> Option<Kind> {
        use std::os::unix::fs::FileTypeExt;
        Some(if t.is_file() {
            return None;
        } else if t.is_dir() {
            Kind::Directory
        } else if t.is_fifo() {
            Kind::Fifo
        } else if t.is_socket() {
            Kind::Socket
        } else if t.is_char_device() {
            Kind::CharDevice
        } else if t.is_block_device() {
            Kind::BlockDevice
        } else {
            Kind::Other
        })
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Directory => "a directory",
            Kind::Fifo => "a FIFO (named pipe)",
            Kind::Socket => "a socket",
            Kind::CharDevice => "a character device",
            Kind::BlockDevice => "a block device",
            Kind::Other => "a special file",
            Kind::File => "a file",
        })
    }
}

/// Why a named file is not opened. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// Nothing at the path.
    #[error("{}: no such file", .path.display())]
    Missing {
        /// The path named.
        path: PathBuf,
    },
    /// A symbolic link whose target does not exist.
    #[error(
        "{} is a symbolic link to {}, which does not exist",
        .path.display(), .target.display()
    )]
    DanglingLink {
        /// The path named.
        path: PathBuf,
        /// What the link says.
        target: PathBuf,
    },
    /// Something that is not a regular file.
    #[error("{} is {kind}, not {what}", .path.display())]
    NotAFile {
        /// The path named.
        path: PathBuf,
        /// What it is.
        kind: Kind,
        /// What was wanted there (`a census file`).
        what: &'static str,
    },
    /// A file compressed with xz whose name does not end in `.xz` (a text
    /// is read decompressed only under such a name).
    #[error(
        "{}: this file is compressed with xz, but its name does not end in .xz; name it so to have it read decompressed, or decompress it (xz -d)",
        .path.display()
    )]
    CompressedUnnamed {
        /// The path named.
        path: PathBuf,
    },
    /// The system refused (permissions, a loop of links, ...).
    #[error("{}: {error}", .path.display())]
    Io {
        /// The path named.
        path: PathBuf,
        /// The system's error.
        error: io::Error,
    },
}

impl InputError {
    /// Whether nothing is there to read: no file, or a link to none.
    pub fn is_missing(&self) -> bool {
        matches!(
            self,
            InputError::Missing { .. } | InputError::DanglingLink { .. }
        )
    }

    /// What stands there, if it is not a regular file.
    pub fn kind(&self) -> Option<Kind> {
        match self {
            InputError::NotAFile { kind, .. } => Some(*kind),
            _ => None,
        }
    }
}

impl NamesPath for InputError {
    fn names_path(&self) -> bool {
        true
    }
}

/// The error for `error`, met looking at or opening `path`.
fn not_there(path: &Path, error: io::Error) -> InputError {
    let path = path.to_path_buf();
    if !matches!(
        error.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    ) {
        return InputError::Io { path, error };
    }
    match std::fs::read_link(&path) {
        Ok(target) => InputError::DanglingLink { path, target },
        Err(_) => InputError::Missing { path },
    }
}

/// Checks, without opening it, that `path` is a regular file (following
/// symbolic links), to be read as `what` (`a census file`: for the message).
pub fn check(path: &Path, what: &'static str) -> Result<(), InputError> {
    let meta = std::fs::metadata(path).map_err(|e| not_there(path, e))?;
    match Kind::of(meta.file_type()) {
        None => Ok(()),
        Some(kind) => Err(InputError::NotAFile {
            path: path.to_path_buf(),
            kind,
            what,
        }),
    }
}

/// Checks that `path` is a directory (following symbolic links), to be read
/// as `what` (`a directory of b-files`: for the message).
pub fn directory(path: &Path, what: &'static str) -> Result<(), InputError> {
    let meta = std::fs::metadata(path).map_err(|e| not_there(path, e))?;
    match Kind::of(meta.file_type()) {
        Some(Kind::Directory) => Ok(()),
        kind => Err(InputError::NotAFile {
            path: path.to_path_buf(),
            kind: kind.unwrap_or(Kind::File),
            what,
        }),
    }
}

/// Whether anything stands at `path`: a file, a directory, a FIFO, a
/// symbolic link even to nothing. A reader that starts afresh where
/// nothing is opens the path whenever this holds, and so names what is
/// there when it cannot read it, rather than writing over it.
pub(crate) fn is_there(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Whether `path` is a symbolic link to nothing (its target, if so): a new
/// file written there would go where the link points, or replace the link.
pub(crate) fn dangling_link(path: &Path) -> Option<PathBuf> {
    let link = std::fs::symlink_metadata(path).ok()?;
    (link.file_type().is_symlink() && std::fs::metadata(path).is_err())
        .then(|| std::fs::read_link(path).ok())
        .flatten()
}

/// Opens the regular file `path` to read it as `what` (see [`check`]). The
/// open itself does not block, and what was opened is checked again, so a
/// FIFO put there after the check is refused too.
pub fn open(path: &Path, what: &'static str) -> Result<File, InputError> {
    check(path, what)?;
    let io = |error| InputError::Io {
        path: path.to_path_buf(),
        error,
    };
    let file = open_nonblocking(path).map_err(|e| not_there(path, e))?;
    let meta = file.metadata().map_err(io)?;
    if let Some(kind) = Kind::of(meta.file_type()) {
        return Err(InputError::NotAFile {
            path: path.to_path_buf(),
            kind,
            what,
        });
    }
    set_blocking(&file).map_err(io)?;
    Ok(file)
}

/// The bytes of the regular file `path`, read as `what` (see [`open`]).
pub fn read(path: &Path, what: &'static str) -> Result<Vec<u8>, InputError> {
    let mut bytes = Vec::new();
    open(path, what)?
        .read_to_end(&mut bytes)
        .map_err(|error| InputError::Io {
            path: path.to_path_buf(),
            error,
        })?;
    Ok(bytes)
}

#[cfg(target_os = "linux")]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
}

#[cfg(not(target_os = "linux"))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// Clears the non-blocking flag the open set: reads of a regular file wait
/// for the disk as usual.
#[cfg(target_os = "linux")]
fn set_blocking(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: `fd` is the open descriptor of `file`, alive for both calls;
    // F_GETFL and F_SETFL read and set its status flags only.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn set_blocking(_: &File) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn each_kind_of_path_is_named_for_what_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let file = d.join("a.tsv");
        std::fs::write(&file, "text\n").unwrap();
        assert_eq!(read(&file, "a census file").unwrap(), b"text\n");

        let err = open(d, "a census file").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{} is a directory, not a census file", d.display())
        );
        let missing = d.join("none");
        let err = open(&missing, "a census file").unwrap_err();
        assert!(matches!(err, InputError::Missing { .. }), "{err}");
        assert!(err.is_missing());
        let below_a_file = file.join("x");
        assert!(matches!(
            open(&below_a_file, "x").unwrap_err(),
            InputError::Missing { .. }
        ));

        let link = d.join("link");
        std::os::unix::fs::symlink(&missing, &link).unwrap();
        let err = open(&link, "a census file").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{} is a symbolic link to {}, which does not exist",
                link.display(),
                missing.display()
            )
        );
        assert!(err.is_missing());
        assert_eq!(dangling_link(&link), Some(missing.clone()));
        assert_eq!(dangling_link(&file), None);
        assert_eq!(dangling_link(&missing), None);

        let good_link = d.join("good");
        std::os::unix::fs::symlink(&file, &good_link).unwrap();
        assert_eq!(read(&good_link, "x").unwrap(), b"text\n");

        let err = open(Path::new("/dev/null"), "a table").unwrap_err();
        assert_eq!(
            err.to_string(),
            "/dev/null is a character device, not a table"
        );
    }

    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let started = Instant::now();
        let err = open(&fifo, "a Grundy census").unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(err.kind(), Some(Kind::Fifo));
        assert_eq!(
            err.to_string(),
            format!(
                "{} is a FIFO (named pipe), not a Grundy census",
                fifo.display()
            )
        );
        // The open that cannot block, on the FIFO itself: what was opened
        // is refused too.
        let file = open_nonblocking(&fifo).unwrap();
        assert_eq!(
            Kind::of(file.metadata().unwrap().file_type()),
            Some(Kind::Fifo)
        );
    }
}
