//! Writing a file so that it is never seen half written: every file chomp3
//! writes whole (census files, reports, b-files, checkpoints, graph output and
//! memos) goes through here. Owns the name of the file written aside; uses
//! nothing else. (The table file is appended to in place and has its own
//! commit protocol: `table::writer`.)

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

/// Where `path` is written before the rename: `.<name>.new-<pid>` beside it.
pub(crate) fn aside_path(path: &Path) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".new-{}", std::process::id()));
    path.with_file_name(name)
}

/// For a file name left by a writer that was killed before its rename
/// (`.<name>.new-<pid>`), the name it was writing.
pub(crate) fn left_aside(file_name: &str) -> Option<&str> {
    let (name, pid) = file_name.strip_prefix('.')?.rsplit_once(".new-")?;
    pid.parse::<u32>().ok().map(|_| name)
}

/// Refuses to write at a symbolic link: a result written through a link
/// could land on another output of the same command (two names, one file)
/// or outside the directory named, and a rename would replace the link
/// itself. The message names the link and where it leads.
pub fn refuse_link(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let to = std::fs::read_link(path).unwrap_or_default();
            Err(io::Error::other(format!(
                "{} is a symbolic link (to {}): results are not written through links; name the file itself",
                path.display(),
                to.display()
            )))
        }
        _ => Ok(()),
    }
}

/// Writes `path` through a synced file beside it and a rename, so that
/// `path` is always either the old file or the whole new one. On an error the
/// file beside it is removed and `path` is untouched. Files that earlier
/// writers of `path` left beside it when killed before their rename are
/// removed first. A symbolic link at `path` is refused ([`refuse_link`]),
/// and so is a file another program wrote there since this process locked
/// or last wrote `path` (`base::lock`'s `check_unchanged`).
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    refuse_link(path)?;
    let aside = write_aside(path, write)?;
    let renamed =
        crate::base::lock::check_unchanged(path).and_then(|()| std::fs::rename(&aside, path));
    match renamed {
        Ok(()) => {
            crate::base::lock::note_written(path);
            Ok(())
        }
        Err(e) => {
            let _ = std::fs::remove_file(&aside);
            Err(e)
        }
    }
}

/// Writes `path`'s new content beside it, synced, after removing what
/// killed writers left there; returns the file written, or removes it and
/// says why.
fn write_aside(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<PathBuf> {
    remove_left_aside(path);
    let aside = aside_path(path);
    let result = (|| {
        let mut w = BufWriter::new(File::create(&aside)?);
        write(&mut w)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()
    })();
    match result {
        Ok(()) => Ok(aside),
        Err(e) => {
            let _ = std::fs::remove_file(&aside);
            Err(e)
        }
    }
}

/// Files written aside together and renamed into place together, so that a
/// set of results (an analysis's b-files, report and summary) is replaced as a
/// set or not at all: a write that fails (a full disk) leaves every old file
/// as it was, and the files written aside are removed when the set is dropped
/// without [`FileSet::commit`].
#[derive(Default)]
pub struct FileSet {
    /// `(aside, path)` of each file written.
    written: Vec<(PathBuf, PathBuf)>,
}

impl FileSet {
    /// An empty set.
    pub fn new() -> FileSet {
        FileSet::default()
    }

    /// Writes `path`'s new content aside (synced); it replaces `path` at
    /// [`FileSet::commit`].
    pub fn write(
        &mut self,
        path: &Path,
        write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
    ) -> io::Result<()> {
        refuse_link(path)?;
        let aside = write_aside(path, write)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        self.written.push((aside, path.to_path_buf()));
        Ok(())
    }

    /// The paths the set replaces at [`FileSet::commit`].
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.written.iter().map(|(_, path)| path.as_path())
    }

    /// Renames `path` first at [`FileSet::commit`] (the files are renamed
    /// one by one, in the order written): a set whose guard reads one of its
    /// files (an analysis's summary, the figures' record) renames that one
    /// first, so that a kill between two renames leaves the guard saying what
    /// the newest files are, and they are not replaced unasked.
    pub fn rename_first(&mut self, path: &Path) {
        self.written.sort_by_key(|(_, p)| p != path);
    }

    /// Renames every file written into place. Whatever stands where a file
    /// goes and cannot be replaced by one (a directory, a link, a file
    /// another program wrote there since this process locked or last wrote
    /// it) is refused before any is renamed, so that the set is not left
    /// half replaced; an error names the file.
    pub fn commit(mut self) -> io::Result<()> {
        for (_, path) in &self.written {
            refuse_link(path)?;
            crate::base::lock::check_unchanged(path)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
                return Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    format!("{} is a directory; no result was written", path.display()),
                ));
            }
        }
        for done in 0..self.written.len() {
            let (aside, path) = &self.written[done];
            if let Err(e) = std::fs::rename(aside, path) {
                // Those renamed are no longer aside; the rest are removed
                // when the set is dropped.
                let said = format!("{}: {e}", path.display());
                self.written.drain(..done);
                return Err(io::Error::new(e.kind(), said));
            }
            crate::base::lock::note_written(path);
        }
        self.written.clear();
        Ok(())
    }
}

impl Drop for FileSet {
    fn drop(&mut self) {
        for (aside, _) in &self.written {
            let _ = std::fs::remove_file(aside);
        }
    }
}

/// Removes `.<name>.new-<pid>` beside `path` for every `pid` that is no
/// running process (a writer killed before its rename). Only where running
/// processes can be seen (`/proc`); elsewhere nothing is removed.
pub(crate) fn remove_left_aside(path: &Path) {
    if let Some(name) = path.file_name() {
        let prefix = format!(".{}.new-", name.to_string_lossy());
        remove_left_by_the_dead(&parent_dir(path), |file| {
            file.strip_prefix(&prefix)?.parse().ok()
        });
    }
}

/// Removes the files in `dir` that a process left and can no longer
/// remove: those whose name `pid_of` reads a process id from, where that
/// process does not run (or began after the file was last written, its id
/// come round again). Only where running processes can be seen (`/proc`);
/// elsewhere nothing is removed.
pub fn remove_left_by_the_dead(dir: &Path, pid_of: impl Fn(&str) -> Option<u32>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(pid) = pid_of(&file.to_string_lossy()) else {
            continue;
        };
        if left_by_the_dead(pid, &entry.path()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether `file`, named with the process id `pid`, is one that process
/// left and can no longer remove: the process does not run, or began after
/// the file was last written (its id come round again). Never where
/// running processes cannot be seen (`/proc`), nor for this process, nor
/// for a number past the system's process ids (it never named a process).
pub(crate) fn left_by_the_dead(pid: u32, file: &Path) -> bool {
    if !Path::new("/proc/self").exists() || pid == 0 || pid == std::process::id() {
        return false;
    }
    let pid_max = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .unwrap_or(1 << 22);
    pid < pid_max && !may_have_written(pid, file)
}

/// Whether process `pid` may have written `file`: it runs, and it began
/// before the file was last written. (Process ids come round again: a
/// writer killed long ago may share its id with a process of today, which
/// began after the file was written.)
fn may_have_written(pid: u32, file: &Path) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    if ended(pid) {
        return false;
    }
    let modified = std::fs::metadata(file).and_then(|m| m.modified());
    match (process_start(&stat), modified) {
        // A second for the clock ticks of the start and the file's time.
        (Some(started), Ok(modified)) => started <= modified + std::time::Duration::from_secs(1),
        _ => true,
    }
}

/// Whether process `pid` has ended and only waits to be reaped (a zombie):
/// every thread of it is in the state `Z` or `X`. A writer killed a moment
/// ago stays so until its parent waits for it, which a container's first
/// process may never do; it writes nothing more.
fn ended(pid: u32) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    let mut any = false;
    for task in tasks.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        let state = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next());
        if !matches!(state, Some("Z" | "X")) {
            return false;
        }
        any = true;
    }
    any
}

/// When the process of `/proc/PID/stat` (its text `stat`) began: the boot
/// time of `/proc/stat` and its start in clock ticks after it.
fn process_start(stat: &str) -> Option<std::time::SystemTime> {
    // Field 22, counted from the state (field 3) after the name's ')'.
    let ticks: u64 = stat
        .rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(19)?
        .parse()
        .ok()?;
    let boot: u64 = std::fs::read_to_string("/proc/stat")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    // SAFETY: sysconf reads a constant of the system.
    let per_second = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).ok()?;
    let after_boot = std::time::Duration::from_millis(ticks.checked_mul(1000)? / per_second.max(1));
    Some(std::time::UNIX_EPOCH + std::time::Duration::from_secs(boot) + after_boot)
}

/// The free bytes of the file system holding `path`'s directory, where
/// they fall short of `needed` (`None` when there is room, or when the
/// room cannot be read: a write then says what went wrong).
pub(crate) fn short_of_room(path: &Path, needed: u64) -> Option<(PathBuf, u64)> {
    let dir = parent_dir(path);
    match fs4::available_space(&dir) {
        Ok(available) if needed > available => Some((dir, available)),
        _ => None,
    }
}

/// The directory a file path lives in (`.` for a bare file name).
pub(crate) fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A locked output that another program writes or replaces while the
    /// run holds it is not replaced by the run's result, nor removed as the
    /// run's own file; one the run itself wrote last is.
    #[test]
    fn an_output_written_by_another_program_meanwhile_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("c.tsv");
        let held = crate::base::lock::lock(&out).unwrap();
        write_atomically(&out, |w| w.write_all(b"first\n")).unwrap();
        write_atomically(&out, |w| w.write_all(b"second\n")).unwrap();
        std::fs::write(&out, b"another program's\n").unwrap();
        let e = write_atomically(&out, |w| w.write_all(b"third\n")).unwrap_err();
        assert!(e.to_string().contains("another program"), "{e}");
        let mut set = FileSet::new();
        set.write(&out, |w| w.write_all(b"third\n")).unwrap();
        assert!(set.commit().is_err());
        crate::base::lock::remove_own(&out).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"another program's\n");
        drop(held);
        let held = crate::base::lock::lock(&out).unwrap();
        write_atomically(&out, |w| w.write_all(b"mine\n")).unwrap();
        // A link, a change of mode: no byte written, no false alarm.
        let link = dir.path().join("backup");
        std::fs::hard_link(&out, &link).unwrap();
        std::fs::remove_file(&link).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_atomically(&out, |w| w.write_all(b"mine again\n")).unwrap();
        // A file removed meanwhile leaves nothing to keep: written.
        std::fs::remove_file(&out).unwrap();
        write_atomically(&out, |w| w.write_all(b"mine\n")).unwrap();
        crate::base::lock::remove_own(&out).unwrap();
        assert!(!out.exists());
        drop(held);
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
    }
    use std::io::Write;

    #[test]
    fn a_failed_write_keeps_the_old_file_and_leaves_nothing_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.tsv");
        write_atomically(&path, |w| w.write_all(b"old")).unwrap();
        let failed = write_atomically(&path, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("stopped"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "only the file itself");
        write_atomically(&path, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
    }

    /// The id of a process that has ended (a child waited for).
    fn gone_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        child.wait().unwrap();
        child.id()
    }

    #[test]
    fn a_file_left_by_a_writer_killed_and_not_yet_reaped_is_removed() {
        // A zombie: killed, its parent (this test) not waiting for it yet.
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .unwrap();
        let left = dir.path().join(format!(".out.tsv.new-{}", child.id()));
        std::fs::write(&left, b"half").unwrap();
        remove_left_aside(&dir.path().join("out.tsv"));
        assert!(left.exists(), "its writer still runs");
        child.kill().unwrap();
        let stat = format!("/proc/{}/stat", child.id());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !std::fs::read_to_string(&stat).unwrap().contains(") Z") {
            assert!(std::time::Instant::now() < deadline, "no zombie");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        remove_left_aside(&dir.path().join("out.tsv"));
        assert!(!left.exists(), "a zombie writes nothing more");
        child.wait().unwrap();
    }

    #[test]
    fn files_left_by_killed_writers_are_removed_by_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("census.c3k");
        // A process that has ended; pid 1 runs; a number above the kernel's
        // largest id never named a process (a file of that name is kept).
        let gone = gone_pid();
        let dead = dir.path().join(format!(".census.c3k.new-{gone}"));
        let alive = dir.path().join(".census.c3k.new-1");
        let other = dir.path().join(format!(".other.new-{gone}"));
        let no_pid = dir.path().join(".census.c3k.new-4294967295");
        for f in [&dead, &alive, &other, &no_pid] {
            std::fs::write(f, b"half").unwrap();
        }
        write_atomically(&path, |w| w.write_all(b"new")).unwrap();
        assert!(!dead.exists());
        assert!(alive.exists() && other.exists() && no_pid.exists());
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
    }

    #[test]
    fn a_set_is_replaced_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, b"old a").unwrap();
        std::fs::write(&b, b"old b").unwrap();
        let mut set = FileSet::new();
        set.write(&a, |w| w.write_all(b"new a")).unwrap();
        assert!(
            set.write(&b, |_| Err(io::Error::other("disk full")))
                .is_err()
        );
        drop(set);
        assert_eq!(std::fs::read(&a).unwrap(), b"old a");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        let mut set = FileSet::new();
        set.write(&a, |w| w.write_all(b"new a")).unwrap();
        set.write(&b, |w| w.write_all(b"new b")).unwrap();
        set.commit().unwrap();
        assert_eq!(std::fs::read(&b).unwrap(), b"new b");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        // A directory where the second file goes: refused, naming it,
        // before the first is replaced; nothing left aside.
        std::fs::remove_file(&b).unwrap();
        std::fs::create_dir(&b).unwrap();
        let mut set = FileSet::new();
        set.write(&a, |w| w.write_all(b"newer a")).unwrap();
        set.write(&b, |w| w.write_all(b"newer b")).unwrap();
        let e = set.commit().unwrap_err();
        assert!(e.to_string().contains(&*b.to_string_lossy()), "{e}");
        assert_eq!(std::fs::read(&a).unwrap(), b"new a");
        assert!(b.is_dir());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        // The file named to go first is renamed before the others written
        // earlier: its rename failing (its aside copy gone) leaves them old.
        let (x, y) = (dir.path().join("x"), dir.path().join("y"));
        std::fs::write(&x, b"old x").unwrap();
        let mut set = FileSet::new();
        set.write(&x, |w| w.write_all(b"new x")).unwrap();
        set.write(&y, |w| w.write_all(b"new y")).unwrap();
        set.rename_first(&y);
        std::fs::remove_file(dir.path().join(format!(".y.new-{}", std::process::id()))).unwrap();
        assert!(set.commit().is_err());
        assert_eq!(std::fs::read(&x).unwrap(), b"old x");
        assert!(!y.exists());
    }

    /// A figure drawn aside by a process that is gone is removed; one of a
    /// running process (this one), and other files, are not.
    /// A file left aside under the id of a process that began after it
    /// was written (an id come round again) is removed; one whose process
    /// began before it is kept.
    #[test]
    fn a_file_aside_whose_id_came_round_again_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.tsv");
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let aside = dir.path().join(format!(".c.tsv.new-{}", child.id()));
        std::fs::write(&aside, b"x").unwrap();
        // Written after the process began: it may be its writer's.
        std::thread::sleep(std::time::Duration::from_millis(50));
        let now = std::time::SystemTime::now();
        std::fs::File::options()
            .write(true)
            .open(&aside)
            .unwrap()
            .set_modified(now)
            .unwrap();
        remove_left_aside(&path);
        assert!(aside.exists(), "the file of a running writer");
        // Written an hour before the process began: not its writer's.
        let old = now - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&aside)
            .unwrap()
            .set_modified(old)
            .unwrap();
        remove_left_aside(&path);
        assert!(!aside.exists(), "the file of a writer long gone");
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn names_left_aside_are_recognised() {
        let aside = aside_path(Path::new("/x/census.c3k.0-of-2.at-5040"));
        let name = aside.file_name().unwrap().to_str().unwrap();
        assert_eq!(left_aside(name), Some("census.c3k.0-of-2.at-5040"));
        assert_eq!(left_aside("census.c3k"), None);
        assert_eq!(left_aside(".census.c3k.new-x"), None);
        assert_eq!(left_aside(".a.new-b.new-12"), Some("a.new-b"));
    }
}
