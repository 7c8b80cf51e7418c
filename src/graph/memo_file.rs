//! A memo saved to a file a caller names, outside a run (a run saves its own,
//! `job`): the output's checks (no file of another kind replaced), its lock
//! (no run writing the file meanwhile, whose own save would replace this
//! one), and the rule that a memo holding positions this one lacks is kept
//! unless the caller asks to replace it. Uses `outputs`, `base`'s lock and
//! atomic writes.

use std::io;
use std::path::{Path, PathBuf};

use super::{MemoError, Solver};
use crate::base::lock::LockError;
use crate::base::stop::Stop;
use crate::outputs::{Kind, Output, OutputError};

/// Why a memo was not saved.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// The path cannot take a memo (a file of another kind, a directory).
    #[error(transparent)]
    Output(#[from] OutputError),
    /// Another process, or another call of this one, writes the file now.
    #[error(transparent)]
    Busy(#[from] LockError),
    /// The memo there holds positions this one lacks.
    #[error("{} holds positions this memo lacks; save it elsewhere, or replace it", .0.display())]
    HoldsMore(PathBuf),
    /// A file there that cannot be read as a memo (damaged, of another
    /// version, unreadable): its positions cannot be compared, so it is
    /// kept unless the caller asks to replace it.
    #[error("{}: {error}; it is kept: save elsewhere, or replace it", .path.display())]
    Unreadable {
        /// The memo file.
        path: PathBuf,
        /// Why it cannot be read.
        error: MemoError,
    },
    /// Stopped by the stop token (the file there is as it was).
    #[error("stopped before the memo was saved; {} is as it was", .0.display())]
    Stopped(PathBuf),
    /// Writing failed (the file there is as it was).
    #[error("{}: {error}", .path.display())]
    Io {
        /// The memo file.
        path: PathBuf,
        /// The system's error.
        error: io::Error,
    },
}

/// Saves `solver`'s memo to `path` (written aside, then renamed into
/// place); `option` names the path in messages. A memo there holding a
/// position this one lacks, or one that cannot be read, is replaced only if
/// `replace`. Ends soon after
/// `stop` is set, with [`SaveError::Stopped`] and the file as it was.
pub fn save(
    solver: &Solver,
    path: &Path,
    option: &'static str,
    replace: bool,
    stop: &Stop,
) -> Result<(), SaveError> {
    let output = [Output::new(path, Kind::GraphMemo, option)];
    crate::outputs::check(&output)?;
    // Held from the comparison with the memo there to the rename.
    let _held = crate::outputs::lock(&output)?;
    if !replace {
        match Solver::open_until(path, stop) {
            Ok(there) if solver.lacks_any_of(&there) => {
                return Err(SaveError::HoldsMore(path.to_path_buf()));
            }
            Ok(_) | Err(MemoError::NotFound(_) | MemoError::Empty) => {}
            Err(MemoError::Input(e)) if e.is_missing() => {}
            Err(MemoError::Stopped) => return Err(SaveError::Stopped(path.to_path_buf())),
            Err(error) => {
                return Err(SaveError::Unreadable {
                    path: path.to_path_buf(),
                    error,
                });
            }
        }
    }
    crate::base::atomic_write::write_atomically(path, |w| solver.save_until(w, stop)).map_err(
        |error| match error.kind() == io::ErrorKind::Interrupted && stop.requested() {
            true => SaveError::Stopped(path.to_path_buf()),
            false => SaveError::Io {
                path: path.to_path_buf(),
                error,
            },
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Graph;

    #[test]
    fn a_memo_is_not_saved_over_a_larger_one_nor_while_its_file_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m");
        let small = Solver::new();
        let large = Solver::new();
        // The wheel W_9 by hand: a hub joined to a 9-cycle.
        let mut edges: Vec<(usize, usize)> = (1..=9).map(|i| (0, i)).collect();
        edges.extend((1..=9).map(|i| (i, i % 9 + 1)));
        large.value(&Graph::from_edges(10, &edges));
        assert!(large.memo_len() > small.memo_len());
        save(&large, &path, "path", false, &Stop::new()).unwrap();
        let err = save(&small, &path, "path", false, &Stop::new()).unwrap_err();
        assert!(matches!(err, SaveError::HoldsMore(_)), "{err}");
        assert_eq!(Solver::open(&path).unwrap().memo_len(), large.memo_len());
        // A run holding the file's lock (as `job` does for its whole run).
        let held = crate::base::lock::lock(&path).unwrap();
        let err = save(&large, &path, "path", true, &Stop::new()).unwrap_err();
        assert!(matches!(err, SaveError::Busy(_)), "{err}");
        drop(held);
        save(&small, &path, "path", true, &Stop::new()).unwrap();
        assert_eq!(Solver::open(&path).unwrap().memo_len(), small.memo_len());
        // A file of another kind is not replaced.
        let text = dir.path().join("t.txt");
        std::fs::write(&text, "mine\n").unwrap();
        assert!(matches!(
            save(&large, &text, "path", true, &Stop::new()),
            Err(SaveError::Output(_))
        ));
        assert_eq!(std::fs::read(&text).unwrap(), b"mine\n");
        // A memo there that cannot be read (damaged) is kept unless replaced.
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let err = save(&large, &path, "path", false, &Stop::new()).unwrap_err();
        assert!(matches!(err, SaveError::Unreadable { .. }), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        save(&large, &path, "path", true, &Stop::new()).unwrap();
        assert_eq!(Solver::open(&path).unwrap().memo_len(), large.memo_len());
    }

    /// A save or a load stopped (the token set before or while it runs)
    /// ends with `Stopped` and leaves the file there as it was, nothing
    /// beside it.
    #[test]
    fn a_stopped_save_or_load_leaves_the_file_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m");
        let (small, large) = (Solver::new(), Solver::new());
        let mut edges: Vec<(usize, usize)> = (1..=8).map(|i| (0, i)).collect();
        edges.extend((1..=8).map(|i| (i, i % 8 + 1)));
        small.value(&Graph::from_edges(9, &edges));
        edges.push((1, 5));
        large.value(&Graph::from_edges(9, &edges));
        assert!(large.lacks_any_of(&small) || large.memo_len() > small.memo_len());
        save(&small, &path, "path", false, &Stop::new()).unwrap();
        let before = std::fs::read(&path).unwrap();
        let stop = Stop::new();
        stop.request();
        assert!(matches!(
            Solver::open_until(&path, &stop),
            Err(MemoError::Stopped)
        ));
        for replace in [false, true] {
            let err = save(&large, &path, "path", replace, &stop).unwrap_err();
            assert!(matches!(err, SaveError::Stopped(_)), "{err}");
            assert_eq!(std::fs::read(&path).unwrap(), before);
        }
        let fresh = dir.path().join("n");
        let err = save(&large, &fresh, "path", false, &stop).unwrap_err();
        assert!(matches!(err, SaveError::Stopped(_)), "{err}");
        let mut left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.sort();
        assert_eq!(left, ["m"]);
    }

    /// A memo saved while another thread solves with it is whole: it loads,
    /// its entries a subset of the memo's after.
    #[test]
    fn a_memo_saved_while_it_grows_is_whole() {
        let solver = Solver::new();
        let mut rng = crate::base::test_rng::Rng(0x9e37_79b9_7f4a_7c15);
        let graphs: Vec<Graph> = (0..40)
            .map(|_| {
                let edges: Vec<(usize, usize)> = (0..22)
                    .map(|_| ((rng.next() % 11) as usize, (rng.next() % 11) as usize))
                    .filter(|(u, v)| u != v)
                    .collect();
                Graph::from_edges(11, &edges)
            })
            .collect();
        let saved: Vec<Vec<u8>> = std::thread::scope(|s| {
            let solving = s.spawn(|| {
                for g in &graphs {
                    let _ = solver.value(g);
                }
            });
            let mut saved = Vec::new();
            while !solving.is_finished() {
                let mut bytes = Vec::new();
                solver.save(&mut bytes).unwrap();
                saved.push(bytes);
            }
            saved
        });
        assert!(saved.len() > 1, "saved while solving");
        for bytes in &saved {
            let loaded = Solver::load(&mut &bytes[..]).expect("a whole memo");
            assert!(!solver.lacks_any_of(&loaded));
        }
    }
}
