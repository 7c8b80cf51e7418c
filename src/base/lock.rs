//! One writer per output: before a run writes a file, it holds an exclusive
//! lock on a lock file beside it (`.<name>.lock`), so that a second run
//! writing the same file fails at once, in one line, instead of racing the
//! first and replacing its result. The lock is the kernel's (`flock`): a
//! killed holder releases it, and the file it leaves is taken over by the
//! next run. The holder removes the lock file when done; a run that opened it
//! meanwhile sees, after locking, that the name now points elsewhere and
//! starts again. A lock this process holds is refused as the kernel refuses
//! another process's, whether another thread holds it (two calls of a
//! library writing one output, from two threads of a notebook, say) or this
//! one (a call made from a signal handler while an outer call writes the
//! same output). Only a lock taken with [`lock_for_calls`] (a command that
//! holds its output for the whole run and calls code that locks it for its
//! writing) is given again, to its own thread, and stays until the first
//! holder lets it go.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread::ThreadId;

/// The lock files this process holds, each with how it is held, the
/// directories made for it and its output's state as this process last saw
/// it (when locked, or after its own last write).
static HELD: Mutex<BTreeMap<PathBuf, Entry>> = Mutex::new(BTreeMap::new());

/// A held lock's holder, the directories made for it, and its output's
/// state as this process last saw it.
type Entry = (Holder, Vec<PathBuf>, State);

/// A file's device, inode, length and times to the nanosecond (`None`: no
/// file there): two equal states mean nothing wrote or replaced the file in
/// between.
pub(crate) type State = Option<(u64, u64, u64, i64, i64, i64, i64)>;

/// The state of the file at `path` (not through a link).
pub(crate) fn state(path: &Path) -> State {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path).ok()?;
    Some((
        m.dev(),
        m.ino(),
        m.len(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    ))
}

/// Whether `output`, if this process holds its lock, is as this process
/// last left it: as it was when locked, or as its own last write made it
/// ([`note_written`]). Another program that wrote or replaced it meanwhile
/// (the lock keeps out only chomp3's writers) made a file this run's guards
/// never saw, so this run's result must not replace it: an error.
pub(crate) fn check_unchanged(output: &Path) -> io::Result<()> {
    let held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    // Compared: the file (device, inode), its length and modification time.
    // Its change time is not: a link, a `chmod` or a read's access time
    // move it without touching a byte. A file removed meanwhile leaves
    // nothing to keep.
    let bytes = |s: State| s.map(|(dev, ino, len, m, m_ns, _, _)| (dev, ino, len, m, m_ns));
    let now = state(output);
    match held.get(&lock_path(output)) {
        Some((_, _, was)) if now.is_some() && bytes(*was) != bytes(now) => Err(io::Error::other(
            "another program wrote or replaced this file while this run was making it; it is \
             kept, and this run's result is not put there; check it, then run again",
        )),
        _ => Ok(()),
    }
}

/// Records `output`'s state after this process wrote it, if it holds its
/// lock.
pub(crate) fn note_written(output: &Path) {
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, was)) = held.get_mut(&lock_path(output)) {
        *was = state(output);
    }
}

/// Removes `output`, this run's own file (a checkpoint at the run's end),
/// unless another program wrote or replaced it since this process last did
/// ([`check_unchanged`]): such a file is kept. One already gone is no
/// error.
pub(crate) fn remove_own(output: &Path) -> io::Result<()> {
    if check_unchanged(output).is_err() {
        return Ok(());
    }
    match std::fs::remove_file(output) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => {
            note_written(output);
            Ok(())
        }
    }
}

/// Who holds a lock of this process, and whether it lends it.
#[derive(Debug, Clone, Copy)]
struct Holder {
    /// The thread that took it.
    thread: ThreadId,
    /// Taken by [`lock_for_calls`]: given again to the same thread.
    lends: bool,
}

/// Why an output could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds it.
    #[error(
        "{} is being written by another process (it holds {}); wait for it to finish",
        .output.display(),
        .lock.display()
    )]
    Busy {
        /// The output.
        output: PathBuf,
        /// Its lock file.
        lock: PathBuf,
    },
    /// Another thread of this process holds it.
    #[error(
        "{} is being written by another call in this process; wait for it to finish",
        .output.display()
    )]
    BusyHere {
        /// The output.
        output: PathBuf,
    },
    /// The lock file could not be made or locked.
    #[error("{}: {}", .lock.display(), trouble(.output, .error))]
    Io {
        /// The output.
        output: PathBuf,
        /// The lock file.
        lock: PathBuf,
        /// The system's error.
        error: io::Error,
    },
    /// Something other than an empty regular file stands at the lock
    /// file's name (a file with bytes in it, a link, a FIFO): chomp3's locks
    /// are empty regular files, so it is another program's, kept as it is.
    #[error(
        "{}: a file chomp3 did not write stands where it keeps the lock of {} while writing it (its locks are empty regular files); move that file away",
        .lock.display(),
        .output.display()
    )]
    Foreign {
        /// The output.
        output: PathBuf,
        /// Its lock file.
        lock: PathBuf,
    },
    /// The output's name is one chomp3 gives a file it keeps beside
    /// another output: one written aside (`.NAME.new-PID`), which a later
    /// run writing `NAME` removes once its process has ended, or a lock
    /// (`.NAME.lock`), which every writer of `NAME` takes.
    #[error(
        "{}: chomp3 names the files it keeps beside an output so (.NAME.new-PID written aside, .NAME.lock its lock); give the output another name",
        .output.display()
    )]
    AsideName {
        /// The output.
        output: PathBuf,
    },
    /// The output's name leaves no room for the names of the files beside it.
    #[error(
        "{}: its name has {bytes} bytes; an output's may have at most {MAX_NAME}, as chomp3 writes \
         .NAME.lock and .NAME.new-PID beside it and a file name has at most 255",
        .output.display()
    )]
    NameTooLong {
        /// The output.
        output: PathBuf,
        /// Its name's length in bytes.
        bytes: usize,
    },
    /// The output's path goes up (`..`) from a directory that does not
    /// exist: the system resolves it only once that directory is made, and
    /// where it then leads is not where it reads (a lock or a result
    /// through a directory made for nothing).
    #[error(
        "{}: the path goes up (..) from {}, which does not exist; name the output without .. or create that directory first",
        .output.display(),
        .missing.display()
    )]
    UpFromMissing {
        /// The output.
        output: PathBuf,
        /// The directory that does not exist.
        missing: PathBuf,
    },
    /// The output's path ends in `/` or `/.` (or has no file name): it
    /// names a directory, whatever stands there.
    #[error("{}: names a directory, not a file; give the file's name", .output.display())]
    NotAFile {
        /// The output.
        output: PathBuf,
    },
}

/// The longest name an output may have: `.NAME.new-PID` (a pid of up to 7
/// digits) and `.NAME.lock` then fit in the 255 bytes of a file name.
pub const MAX_NAME: usize = 240;

/// What kept the lock file of `output` from being made or locked.
fn trouble(output: &Path, error: &io::Error) -> String {
    // A file where a directory of the path must be (`--out notes` for a
    // directory of outputs): the lock's directory cannot be made.
    if let (Some(libc::EEXIST | libc::ENOTDIR), Some(file)) =
        (error.raw_os_error(), file_above(output))
    {
        return format!(
            "{} is a file, not a directory, so {} cannot be written there; give a directory",
            file.display(),
            output.display()
        );
    }
    // A link to nothing where a directory of the path must be.
    let dangling = output
        .ancestors()
        .skip(1)
        .find(|d| !d.as_os_str().is_empty() && !d.exists() && d.symlink_metadata().is_ok());
    if let (Some(libc::EEXIST | libc::ENOENT), Some(link)) = (error.raw_os_error(), dangling) {
        let to = std::fs::read_link(link).unwrap_or_default();
        return format!(
            "{} is a symbolic link to nothing ({}), so {} cannot be written there; give a directory",
            link.display(),
            to.display(),
            output.display()
        );
    }
    match error.raw_os_error() {
        Some(libc::EISDIR) => format!(
            "a directory stands where the lock file of {} goes; move it away",
            output.display()
        ),
        _ => format!(
            "the lock file of {} cannot be made or locked: {error}",
            output.display()
        ),
    }
}

/// The lock file of `output`: `.<name>.lock` beside it.
pub(crate) fn lock_path(output: &Path) -> PathBuf {
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    output.with_file_name(format!(".{name}.lock"))
}

/// An output's lock, held until dropped (then its lock file is removed).
#[derive(Debug)]
pub struct Held {
    /// `None`: a lock this process held already, given again.
    _first: Option<First>,
}

#[derive(Debug)]
struct First {
    lock: PathBuf,
    /// Directories made for the lock, deepest first: removed with it if
    /// the run left them empty.
    made: Vec<PathBuf>,
    // Held open: closing it releases the lock.
    _file: File,
}

impl Drop for First {
    fn drop(&mut self) {
        HELD.lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.lock);
        // Removed while still locked: a waiter that opened this file finds,
        // once it holds it, that the name no longer leads to it.
        let _ = std::fs::remove_file(&self.lock);
        for dir in &self.made {
            // Fails, and so keeps it, unless empty.
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Removes the lock files this process holds, for a process about to end at
/// once (on Ctrl-C, without the holders' drops): the kernel lets the locks go
/// with the process. A lock being taken or let go at that instant (the list
/// in use) is left; the next run takes over a lock file no process holds.
pub fn remove_held() {
    remove_held_under(None);
}

/// [`remove_held`] for the locks under `root` only, if given (a test's own).
fn remove_held_under(root: Option<&Path>) {
    if let Ok(held) = HELD.try_lock() {
        let under = |lock: &&PathBuf| root.is_none_or(|root| lock.starts_with(root));
        let ours: Vec<_> = held.iter().filter(|(lock, _)| under(lock)).collect();
        // Every lock file first: a directory made for one may hold another.
        for (lock, _) in &ours {
            let _ = std::fs::remove_file(lock);
        }
        for (_, (_, made, _)) in &ours {
            for dir in made {
                // Fails, and so keeps it, unless empty.
                let _ = std::fs::remove_dir(dir);
            }
        }
    }
}

/// Whether another process holds the lock of `output` now (it is writing
/// it), as far as a reader can tell without making a lock file: none there,
/// or one that cannot be opened, is taken as not held.
pub fn held_elsewhere(output: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    // Not through a link, and not waiting on a FIFO (as `lock_file`).
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY)
        .open(lock_path(output));
    opened.is_ok_and(|file| locked_elsewhere(&file))
}

/// Whether another open file (another process's, or a writer's of this
/// one) holds the kernel's exclusive lock on `file` now; the shared lock
/// this takes to tell, if it can, is let go at once.
pub fn locked_elsewhere(file: &File) -> bool {
    match file.try_lock_shared() {
        Err(TryLockError::WouldBlock) => true,
        Ok(()) => {
            let _ = file.unlock();
            false
        }
        Err(_) => false,
    }
}

/// Locks `output` for this call, or says who has it: a lock held anywhere
/// in this process is refused too, unless its thread took it with
/// [`lock_for_calls`].
pub fn lock(output: &Path) -> Result<Held, LockError> {
    take(output, false)
}

/// Locks `output` for a command that calls, while holding it, code that
/// locks `output` itself: those calls, on this thread, are given the lock
/// again. Nothing else is.
pub fn lock_for_calls(output: &Path) -> Result<Held, LockError> {
    take(output, true)
}

fn take(output: &Path, lends: bool) -> Result<Held, LockError> {
    check_name(output)?;
    let lock = lock_path(output);
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    let this = std::thread::current().id();
    match held.get(&lock) {
        Some((by, _, _)) if by.lends && by.thread == this => return Ok(Held { _first: None }),
        Some(_) => {
            return Err(LockError::BusyHere {
                output: output.to_path_buf(),
            });
        }
        None => {}
    }
    let first = lock_file(output, lock)?;
    let holder = Holder {
        thread: this,
        lends,
    };
    held.insert(
        first.lock.clone(),
        (holder, first.made.clone(), state(output)),
    );
    Ok(Held {
        _first: Some(first),
    })
}

/// Refuses an output's name that leaves no room for the files beside it, or
/// that chomp3 gives a file it keeps beside another output (its lock, or a
/// file written aside): checked before anything at that path is looked at
/// but the directories it goes up from (`..`), which must exist.
pub fn check_name(output: &Path) -> Result<(), LockError> {
    let bytes = output.file_name().map_or(0, |n| n.len());
    if bytes > MAX_NAME {
        return Err(LockError::NameTooLong {
            output: output.to_path_buf(),
            bytes,
        });
    }
    check_dir_name(output)
}

/// [`check_name`] for a directory outputs are written into: their locks and
/// files aside go inside it, none beside it, so any name a directory may
/// have leaves room for them.
pub fn check_dir_name(output: &Path) -> Result<(), LockError> {
    let name = output.file_name().map(|n| n.to_string_lossy());
    let aside = name
        .as_deref()
        .and_then(crate::base::atomic_write::left_aside);
    let a_lock = (name.as_deref()).is_some_and(|n| n.starts_with('.') && n.ends_with(".lock"));
    if aside.is_some() || a_lock {
        return Err(LockError::AsideName {
            output: output.to_path_buf(),
        });
    }
    if let Some(missing) = up_from_missing(output) {
        return Err(LockError::UpFromMissing {
            output: output.to_path_buf(),
            missing,
        });
    }
    Ok(())
}

/// Whether `path` ends in `/` or `/.` (or has no file name): it names a
/// directory, whatever stands there, and no file can be written at it.
pub fn names_directory(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    path.file_name().is_none() || bytes.ends_with(b"/") || bytes.ends_with(b"/.")
}

/// Refuses a path that [`names_directory`] where a file is written.
pub fn check_file_name(output: &Path) -> Result<(), LockError> {
    if names_directory(output) {
        return Err(LockError::NotAFile {
            output: output.to_path_buf(),
        });
    }
    Ok(())
}

/// The file that stands where a directory of `path` must be, if one does
/// (`notes/out.tsv` where `notes` is a file).
pub fn file_above(path: &Path) -> Option<&Path> {
    path.ancestors()
        .skip(1)
        .find(|d| !d.as_os_str().is_empty() && d.exists() && !d.is_dir())
}

/// The first directory of `path` that does not exist, if a `..` comes after
/// it (`new/../out.tsv`, where `new` is missing).
fn up_from_missing(path: &Path) -> Option<PathBuf> {
    let mut prefix = PathBuf::new();
    let mut missing = None;
    for c in path.components() {
        if c == std::path::Component::ParentDir && missing.is_some() {
            return missing;
        }
        prefix.push(c);
        if missing.is_none() && !prefix.exists() {
            missing = Some(prefix.clone());
        }
    }
    None
}

/// Takes the kernel's lock on `lock`, the lock file of `output`.
fn lock_file(output: &Path, lock: PathBuf) -> Result<First, LockError> {
    let io = |error| LockError::Io {
        output: output.to_path_buf(),
        lock: lock.clone(),
        error,
    };
    // Its directory is made here when missing (the run would make it to
    // write the output; the caller has checked that it may be), and removed
    // with the lock if nothing was written into it.
    let mut made = Vec::new();
    if let Some(dir) = lock.parent().filter(|d| !d.as_os_str().is_empty()) {
        let mut missing = Some(dir);
        while let Some(d) = missing.filter(|d| !d.as_os_str().is_empty() && !d.exists()) {
            made.push(d.to_path_buf());
            missing = d.parent();
        }
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let foreign = || LockError::Foreign {
        output: output.to_path_buf(),
        lock: lock.clone(),
    };
    loop {
        use std::os::unix::fs::OpenOptionsExt;
        // Not through a link, and not waiting on a FIFO: whatever stands
        // there and is not a regular file is not chomp3's lock.
        let file = match OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&lock)
        {
            Ok(file) => file,
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(foreign()),
            Err(e) => return Err(io(e)),
        };
        if !file.metadata().map_err(io)?.is_file() {
            return Err(foreign());
        }
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(LockError::Busy {
                    output: output.to_path_buf(),
                    lock,
                });
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        if same_file(&file, &lock) {
            // Locked, so no run of chomp3 is using it; one that is not
            // empty was not made by one, and is not removed with the lock.
            if file.metadata().map_err(io)?.len() > 0 {
                return Err(foreign());
            }
            return Ok(First {
                lock,
                made,
                _file: file,
            });
        }
        // Its holder removed it between our open and our lock: again.
    }
}

/// Whether the name `path` still leads to the open `file`.
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    #[test]
    fn a_path_up_from_a_missing_directory_is_refused_and_makes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let up = dir.path().join("new").join("..").join("out.tsv");
        let err = lock(&up).unwrap_err();
        assert!(matches!(err, LockError::UpFromMissing { .. }), "{err}");
        assert!(err.to_string().contains("goes up (..) from"), "{err}");
        // A lock's name reached through a missing directory, as a directory.
        let lock_dir = dir.path().join(".t.c3t.lock").join("s").join("..");
        assert!(matches!(
            check_name(&lock_dir),
            Err(LockError::UpFromMissing { .. })
        ));
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "nothing made"
        );
        // Up from a directory that is there is a path like any other.
        std::fs::create_dir(dir.path().join("new")).unwrap();
        drop(lock(&up).unwrap());
        assert!(check_name(&dir.path().join("..").join("x")).is_ok());
    }

    #[test]
    fn a_second_lock_on_one_output_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("census.tsv");
        // Another process's lock (another open file description) refuses.
        assert!(!held_elsewhere(&out), "no lock file");
        let other = File::create(lock_path(&out)).unwrap();
        other.try_lock().unwrap();
        assert!(held_elsewhere(&out), "seen by a reader");
        let err = lock(&out).unwrap_err();
        assert!(matches!(err, LockError::Busy { .. }), "{err}");
        assert!(err.to_string().contains("another process"), "{err}");
        drop(other);
        assert!(!held_elsewhere(&out), "let go");
        let first = lock(&out).unwrap();
        assert!(lock_path(&out).exists());
        let theirs = File::open(lock_path(&out)).unwrap();
        assert!(theirs.try_lock().is_err(), "held by the kernel's lock");
        // This thread asking again is refused (a call nested in the first,
        // from a signal handler, say), and so is another thread.
        let err = lock(&out).unwrap_err();
        assert!(matches!(err, LockError::BusyHere { .. }), "{err}");
        assert!(err.to_string().contains("another call in this process"));
        std::thread::scope(|s| {
            let err = s.spawn(|| lock(&out).unwrap_err()).join().unwrap();
            assert!(matches!(err, LockError::BusyHere { .. }), "{err}");
        });
        assert!(lock_for_calls(&out).is_err());
        drop(first);
        assert!(!lock_path(&out).exists(), "the lock file is removed");
        // A lock taken for calls is given again to its thread only, and the
        // first holder's drop ends it.
        let first = lock_for_calls(&out).unwrap();
        let nested = lock(&out).unwrap();
        std::thread::scope(|s| {
            let err = s.spawn(|| lock(&out).unwrap_err()).join().unwrap();
            assert!(matches!(err, LockError::BusyHere { .. }), "{err}");
        });
        drop(nested);
        let theirs = File::open(lock_path(&out)).unwrap();
        assert!(theirs.try_lock().is_err(), "still held");
        drop(first);
        assert!(!lock_path(&out).exists(), "the lock file is removed");
        drop(theirs);
        let again = lock(&out).unwrap();
        // Other outputs in the same directory are not held up.
        let _other = lock(&dir.path().join("other.tsv")).unwrap();
        drop(again);
        // A directory made for a lock goes with it when left empty.
        let deep = dir.path().join("b/c/x.txt");
        drop(lock(&deep).unwrap());
        assert!(!dir.path().join("b").exists());
        let kept = lock(&deep).unwrap();
        std::fs::write(&deep, b"written").unwrap();
        drop(kept);
        assert!(deep.exists());
    }

    /// A process about to end at once removes its lock files, and the
    /// directories made for them.
    #[test]
    fn the_locks_of_a_process_ending_at_once_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("made/summary.json");
        let held = lock(&out).unwrap();
        // A second output in the directory made for the first, its lock
        // file listed after the first's.
        let beside = lock(&dir.path().join("made/values.tsv")).unwrap();
        assert!(lock_path(&out).exists());
        // (Those of this test only: the tests beside it hold theirs.)
        remove_held_under(Some(dir.path()));
        assert!(!dir.path().join("made").exists());
        drop((held, beside));
    }

    #[test]
    fn a_file_that_is_not_a_lock_is_neither_taken_nor_removed() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("census.tsv");
        std::fs::write(lock_path(&out), b"precious").unwrap();
        let err = lock(&out).unwrap_err();
        assert!(matches!(err, LockError::Foreign { .. }), "{err}");
        assert!(err.to_string().contains("did not write"), "{err}");
        assert_eq!(std::fs::read(lock_path(&out)).unwrap(), b"precious");
        // Not held: once it is moved away, the output is locked as usual.
        std::fs::remove_file(lock_path(&out)).unwrap();
        drop(lock(&out).unwrap());
        // A link there (to a file or to nothing) and a FIFO are not locks
        // either: refused, left as they are, nothing made where a link leads.
        let target = dir.path().join("elsewhere");
        std::os::unix::fs::symlink(&target, lock_path(&out)).unwrap();
        assert!(matches!(lock(&out), Err(LockError::Foreign { .. })));
        assert!(!target.exists(), "nothing made at the link's end");
        std::fs::write(&target, b"").unwrap();
        assert!(matches!(lock(&out), Err(LockError::Foreign { .. })));
        assert!(
            std::fs::symlink_metadata(lock_path(&out))
                .unwrap()
                .is_symlink()
        );
        std::fs::remove_file(lock_path(&out)).unwrap();
        let fifo = std::ffi::CString::new(lock_path(&out).to_str().unwrap()).unwrap();
        // SAFETY: a valid path string; mkfifo only makes the FIFO.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        assert!(matches!(lock(&out), Err(LockError::Foreign { .. })));
        assert!(
            std::fs::symlink_metadata(lock_path(&out))
                .unwrap()
                .file_type()
                .is_fifo()
        );
    }

    #[test]
    fn a_lock_file_left_by_a_killed_holder_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("x.png");
        std::fs::write(lock_path(&out), b"").unwrap();
        let held = lock(&out).unwrap();
        drop(held);
        assert!(!lock_path(&out).exists());
    }
}
