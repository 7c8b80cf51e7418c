//! What a command may write, checked before any work: every output is named
//! with the kind of file it writes, and the plan is refused when two outputs
//! are one file, when an output would replace a file of another kind (a table
//! under a graph's `--out`, a census under a checkpoint's name), or when an
//! output's directory cannot be written. A file's kind is read from its first
//! bytes (the magic of a binary format, the title line of a text result).
//! Knows every file kind chomp3 writes, so it sits beside the games rather than
//! in `base/`; uses `atomic_write`'s directory rule.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The kinds of file chomp3 writes, as far as a reader of the first bytes can
/// tell them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An `f(q,r)` table (`.c3t`).
    Table,
    /// An `f(q,r)` table stored by rows (`chomp3 transpose`).
    TableByRows,
    /// A Grundy table (`.g3t`).
    GrundyTable,
    /// A census descriptor file (`.c3d`).
    Descriptors,
    /// A census checkpoint (`.c3k`).
    CensusCheckpoint,
    /// A `grundy-periods` checkpoint.
    PeriodsCheckpoint,
    /// The sweep's state beside a Grundy table (`.g3s`).
    SweepCheckpoint,
    /// A graph Chomp memo.
    GraphMemo,
    /// A census table (`census.tsv`).
    CensusTsv,
    /// A Grundy census with patterns (`grundy-census --out`).
    GrundyCensus,
    /// A census of periods and starts (`grundy-periods --out`).
    PeriodsCensus,
    /// A b-file of the Grundy census (`--bfiles`).
    GrundyBFile,
    /// The result file of `chomp3 graph --out`.
    GraphResult,
    /// The b-file of `chomp3 graph --bfile`.
    GraphBFile,
    /// A PNG figure.
    Png,
    /// A census's trace (`census --trace`).
    CensusTrace,
}

pub use crate::base::input::XZ_MAGIC;

/// The first bytes of each kind (a binary magic, or a text result's title).
const SIGNATURES: [(Kind, &[u8]); 19] = [
    (Kind::Table, b"CHOMP3TB"),
    (Kind::TableByRows, b"CHOMP3TR"),
    (Kind::GrundyTable, b"CHOMP3GT"),
    (Kind::Descriptors, b"CHOMP3DS"),
    (Kind::CensusCheckpoint, b"CHOMP3CK"),
    (Kind::PeriodsCheckpoint, b"C3GLAG"),
    (Kind::SweepCheckpoint, b"C3GSWP"),
    (Kind::GraphMemo, b"CHOMP3GM"),
    (
        Kind::CensusTsv,
        b"# Certified census of three-rowed Chomp, rows",
    ),
    (
        Kind::GrundyCensus,
        b"# Certified Grundy census of three-rowed Chomp",
    ),
    (
        Kind::PeriodsCensus,
        b"# Grundy census of three-rowed Chomp (periods and starts)",
    ),
    (Kind::GrundyBFile, b"# Three-rowed Chomp: least period"),
    (Kind::GrundyBFile, b"# Three-rowed Chomp: least p from"),
    (Kind::GrundyBFile, b"# Sprague-Grundy value of the 3 x n"),
    (
        Kind::GrundyBFile,
        b"# Grundy table of three-rowed Chomp: per slab",
    ),
    (Kind::GraphResult, b"# chomp3 graph"),
    (Kind::GraphBFile, b"# Number of graphs on n unlabeled"),
    (Kind::Png, b"\x89PNG"),
    (Kind::CensusTrace, b"# chomp3 census trace"),
];

impl Kind {
    /// The kind, for messages.
    pub fn what(self) -> &'static str {
        match self {
            Kind::Table => "an f(q,r) table (.c3t)",
            Kind::TableByRows => "an f(q,r) table stored by rows (chomp3 transpose)",
            Kind::GrundyTable => "a Grundy table (.g3t)",
            Kind::Descriptors => "a census descriptor file (.c3d)",
            Kind::CensusCheckpoint => "a census checkpoint",
            Kind::PeriodsCheckpoint => "a grundy-periods checkpoint",
            Kind::SweepCheckpoint => "a grundy-table sweep checkpoint (.g3s)",
            Kind::GraphMemo => "a graph memo",
            Kind::CensusTsv => "a census table (census.tsv)",
            Kind::GrundyCensus => "a Grundy census with patterns",
            Kind::PeriodsCensus => "a census of periods and starts",
            Kind::GrundyBFile => "a Grundy b-file",
            Kind::GraphResult => "a chomp3 graph result",
            Kind::GraphBFile => "a graph Chomp b-file",
            Kind::Png => "a PNG figure",
            Kind::CensusTrace => "a census trace",
        }
    }
}

/// What stands at a path now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// Nothing (or an empty file).
    Nothing,
    /// A file of this kind.
    Kind(Kind),
    /// A directory.
    Directory,
    /// A FIFO, a socket or a device: never opened to be looked at (a FIFO
    /// would wait for a writer).
    Special(crate::base::input::Kind),
    /// A file compressed with xz (chomp3 writes none under a name it is
    /// given, but a user may have compressed one of its files so).
    Compressed,
    /// A file chomp3 does not recognise.
    Other,
}

/// What stands at `path`, from its first bytes.
pub fn found(path: &Path) -> std::io::Result<Found> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        // Nothing there, or a file where a directory of the path should be
        // (which the check of the directory then names).
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(Found::Nothing);
        }
        Err(e) => return Err(e),
    };
    match crate::base::input::Kind::of(meta.file_type()) {
        None => {}
        Some(crate::base::input::Kind::Directory) => return Ok(Found::Directory),
        Some(kind) => return Ok(Found::Special(kind)),
    }
    let file = crate::base::input::open(path, "a file").map_err(|e| match e {
        crate::base::input::InputError::Io { error, .. } => error,
        e => std::io::Error::other(e.to_string()),
    })?;
    let mut head = Vec::with_capacity(64);
    file.take(64).read_to_end(&mut head)?;
    if head.is_empty() {
        return Ok(Found::Nothing);
    }
    if head.starts_with(XZ_MAGIC) {
        return Ok(Found::Compressed);
    }
    Ok(kind_of(&head).map_or(Found::Other, Found::Kind))
}

/// Refuses a directory an output is written into (a command's b-files) whose
/// name chomp3 gives a lock or a file written aside: such a directory would
/// stand in another writer's way. (Its name may be as long as any: nothing
/// is written beside it.)
pub fn check_dir_name(dir: &Path) -> Result<(), OutputError> {
    crate::base::lock::check_dir_name(dir).map_err(OutputError::Name)
}

/// The kind of file that starts with `head`, if chomp3 writes such files: for
/// a reader to say what a file of the wrong kind is.
pub(crate) fn kind_of(head: &[u8]) -> Option<Kind> {
    SIGNATURES
        .iter()
        .find(|(_, sig)| head.starts_with(sig))
        .map(|&(k, _)| k)
}

/// One output of a command: the file, what it writes there, and the option
/// that named it (for messages).
#[derive(Clone, Debug)]
pub struct Output {
    /// The file.
    pub path: PathBuf,
    /// What is written there.
    pub kind: Kind,
    /// The option that named it, e.g. `--out`.
    pub option: &'static str,
}

impl Output {
    /// An output of `kind` at `path`, named by `option`.
    pub fn new(path: impl Into<PathBuf>, kind: Kind, option: &'static str) -> Output {
        Output {
            path: path.into(),
            kind,
            option,
        }
    }
}

/// Why a plan of outputs was refused.
#[derive(Debug)]
pub enum OutputError {
    /// A name the output may not have (its lock's, a file written aside's,
    /// or one too long for them).
    Name(crate::base::lock::LockError),
    /// Two outputs are one file.
    Same {
        /// The file.
        path: PathBuf,
        /// The two options.
        options: (&'static str, &'static str),
    },
    /// An output is named as a file chomp3 keeps beside another output
    /// while writing it (its lock, or the file written aside before the
    /// rename), which goes when that one is written.
    Beside {
        /// The output.
        output: Output,
        /// The output it would stand beside.
        of: Output,
    },
    /// An output is a directory (or above one) that another output is
    /// written in: the one would be made as a file, the other needs it as a
    /// directory.
    Inside {
        /// The output written in the other.
        output: Output,
        /// The output whose path is its directory.
        of: Output,
    },
    /// An output would replace a file of another kind.
    OtherKind {
        /// The output.
        output: Output,
        /// What is there.
        found: Found,
    },
    /// The name ends in `.xz`, which readers take as compressed, and the
    /// file is written plain.
    Compressed {
        /// The output.
        output: Output,
    },
    /// An output's path names a directory (`dir/`, `..`), not a file.
    NotAFile {
        /// The output.
        output: Output,
    },
    /// An output is a symbolic link.
    Link {
        /// The output.
        output: Output,
        /// Where the link leads.
        to: PathBuf,
    },
    /// An output's directory is missing or cannot be written.
    NotWritable {
        /// The output.
        output: Output,
        /// The directory tried.
        dir: PathBuf,
        /// Why.
        error: std::io::Error,
    },
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputError::Name(e) => write!(f, "{e}"),
            OutputError::Same { path, options } => write!(
                f,
                "{} and {} name the same file, {}; give each its own",
                options.0,
                options.1,
                path.display()
            ),
            OutputError::Beside { output, of } => write!(
                f,
                "{} {} is the name of a file chomp3 keeps beside {} {} while it writes it, and removes; give another path",
                output.option,
                output.path.display(),
                of.option,
                of.path.display()
            ),
            OutputError::Inside { output, of } => write!(
                f,
                "{} {} is written in {} {}, which must then be a directory, not a file; give each its own path",
                output.option,
                output.path.display(),
                of.option,
                of.path.display()
            ),
            OutputError::OtherKind {
                output,
                found: Found::Compressed,
            } => write!(
                f,
                "{} {} is a file compressed with xz, not {}; chomp3 does not replace it: decompress it (xz -d) if it is the file you meant, or give another path",
                output.option,
                output.path.display(),
                output.kind.what()
            ),
            OutputError::OtherKind { output, found } => {
                let there = match found {
                    Found::Kind(k) => k.what().to_string(),
                    Found::Directory => "a directory".to_string(),
                    Found::Special(k) => k.to_string(),
                    _ => "a file chomp3 did not write".to_string(),
                };
                write!(
                    f,
                    "{} {} is {there}, not {}; chomp3 does not replace it: give another path, or remove it first",
                    output.option,
                    output.path.display(),
                    output.kind.what()
                )
            }
            OutputError::Compressed { output } => write!(
                f,
                "{} {}: chomp3 writes this file plain, and its readers take a name ending in .xz as compressed; give the name without .xz (and compress the file with xz afterwards if you like)",
                output.option,
                output.path.display()
            ),
            OutputError::NotAFile { output } => write!(
                f,
                "{} {} names a directory, not a file; give the file's name",
                output.option,
                output.path.display()
            ),
            OutputError::Link { output, to } => write!(
                f,
                "{} {} is a symbolic link (to {}): results are not written through links; name the file itself",
                output.option,
                output.path.display(),
                to.display()
            ),
            OutputError::NotWritable { output, dir, error } => write!(
                f,
                "{} {}: cannot write in {} ({error}); nothing was computed",
                output.option,
                output.path.display(),
                dir.display()
            ),
        }
    }
}

impl std::error::Error for OutputError {}

/// Checks `outputs` before any work: no two are one file, none would replace
/// a file of another kind, and each one's directory (or the nearest existing
/// directory above it, which the command creates the rest of) takes a new
/// file.
pub fn check(outputs: &[Output]) -> Result<(), OutputError> {
    for output in outputs {
        use std::os::unix::ffi::OsStrExt;
        if crate::base::lock::names_directory(&output.path) {
            return Err(OutputError::NotAFile {
                output: output.clone(),
            });
        }
        if output.path.as_os_str().as_bytes().ends_with(b".xz") {
            return Err(OutputError::Compressed {
                output: output.clone(),
            });
        }
    }
    let keys: Vec<PathBuf> = outputs.iter().map(|o| identity(&o.path)).collect();
    for (i, a) in keys.iter().enumerate() {
        if let Some(j) = keys[..i].iter().position(|b| b == a) {
            return Err(OutputError::Same {
                path: outputs[i].path.clone(),
                options: (outputs[j].option, outputs[i].option),
            });
        }
    }
    for (i, a) in keys.iter().enumerate() {
        for (j, b) in keys.iter().enumerate() {
            if i != j && a != b && a.starts_with(b) {
                // The outer one already something it cannot be (a
                // directory, say): that is the trouble, said as such below.
                let outer = found(&outputs[j].path);
                let taken = match &outer {
                    Ok(Found::Nothing) | Err(_) => false,
                    Ok(Found::Kind(k)) => *k != outputs[j].kind,
                    Ok(_) => true,
                };
                if let (true, Ok(found)) = (taken, outer) {
                    return Err(OutputError::OtherKind {
                        output: outputs[j].clone(),
                        found,
                    });
                }
                return Err(OutputError::Inside {
                    output: outputs[i].clone(),
                    of: outputs[j].clone(),
                });
            }
            if i != j && kept_beside(a, b) {
                return Err(OutputError::Beside {
                    output: outputs[i].clone(),
                    of: outputs[j].clone(),
                });
            }
        }
    }
    // A name chomp3 keeps for its own files, before what is there is looked
    // at (another run's lock is no file to replace).
    for output in outputs {
        crate::base::lock::check_name(&output.path).map_err(OutputError::Name)?;
    }
    for output in outputs {
        if let Ok(to) = std::fs::read_link(&output.path) {
            return Err(OutputError::Link {
                output: output.clone(),
                to,
            });
        }
        let found = found(&output.path).map_err(|error| OutputError::NotWritable {
            output: output.clone(),
            dir: output.path.clone(),
            error,
        })?;
        match found {
            Found::Nothing => {}
            Found::Kind(k) if k == output.kind => {}
            _ => {
                return Err(OutputError::OtherKind {
                    output: output.clone(),
                    found,
                });
            }
        }
        let dir = crate::base::atomic_write::parent_dir(&output.path);
        existing_dir(&output.path)
            .and_then(|dir| probe(&dir))
            .map_err(|error| OutputError::NotWritable {
                output: output.clone(),
                dir,
                error,
            })?;
    }
    Ok(())
}

/// Whether `path` names a file chomp3 keeps beside `output` while writing
/// it: its lock (`.NAME.lock`) or the file written aside (`.NAME.new-PID`).
fn kept_beside(path: &Path, output: &Path) -> bool {
    let (Some(name), Some(of)) = (path.file_name(), output.file_name()) else {
        return false;
    };
    let name = name.to_string_lossy();
    path.parent() == output.parent()
        && (crate::base::lock::lock_path(output).file_name() == path.file_name()
            || crate::base::atomic_write::left_aside(&name) == Some(&*of.to_string_lossy()))
}

/// Locks every output for this process (`base::lock`), after [`check`]: a
/// second run writing any of them fails at once. Held until dropped.
pub fn lock(
    outputs: &[Output],
) -> Result<Vec<crate::base::lock::Held>, crate::base::lock::LockError> {
    // Dropped last taken first (here on a refusal, or by the caller), so
    // that a directory made for the first is empty, and goes, when its turn
    // comes.
    let mut held = Vec::with_capacity(outputs.len());
    for o in outputs {
        match crate::base::lock::lock(&o.path) {
            Ok(h) => held.push(h),
            Err(e) => {
                while held.pop().is_some() {}
                return Err(e);
            }
        }
    }
    held.reverse();
    Ok(held)
}

/// The file `path` names, as one comparable path: its directory resolved
/// (links and `..`) as far as it exists, then the rest as given.
fn identity(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let mut rest = Vec::new();
    let mut at = path.to_path_buf();
    loop {
        let dir = crate::base::atomic_write::parent_dir(&at);
        if let Some(name) = at.file_name() {
            rest.push(name.to_owned());
        }
        if let Ok(mut p) = std::fs::canonicalize(&dir) {
            for name in rest.iter().rev() {
                p.push(name);
            }
            return p;
        }
        if dir == at || dir.as_os_str().is_empty() {
            return path.to_path_buf();
        }
        at = dir;
    }
}

/// The nearest directory at or above `path`'s directory that exists: the
/// command creates the rest. A file where a directory must be is an error.
fn existing_dir(path: &Path) -> std::io::Result<PathBuf> {
    let mut dir = crate::base::atomic_write::parent_dir(path);
    loop {
        if dir.is_dir() {
            return Ok(dir);
        }
        if let Ok(meta) = std::fs::metadata(&dir) {
            let kind = crate::base::input::Kind::of(meta.file_type())
                .unwrap_or(crate::base::input::Kind::File);
            return Err(std::io::Error::other(format!(
                "{} is {kind}, not a directory",
                dir.display()
            )));
        }
        match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => dir = p.to_path_buf(),
            _ => return Ok(PathBuf::from(".")),
        }
    }
}

/// Whether `dir` takes a new file: an unnamed one is created there
/// (`O_TMPFILE`), which no kill can leave behind; where the file system has
/// no unnamed files, a named one is created and removed.
fn probe(dir: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let unnamed = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_TMPFILE)
            .open(dir);
        match unnamed {
            Ok(_) => return Ok(()),
            // EOPNOTSUPP: the file system has no unnamed files; EISDIR: a
            // kernel without O_TMPFILE reads the flag as O_DIRECTORY.
            Err(e) if matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP | libc::EISDIR)) => {}
            Err(e) => return Err(e),
        }
    }
    let path = dir.join(format!(".chomp3-probe-{}", std::process::id()));
    std::fs::File::create(&path)?;
    std::fs::remove_file(&path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outputs locked until one is refused (another holds its lock) leave
    /// nothing: not the directory made for two of them, nor a lock file.
    #[test]
    fn a_refused_lock_leaves_no_directory_made_for_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let busy = d.join("ck");
        let held = std::fs::File::create(crate::base::lock::lock_path(&busy)).unwrap();
        held.lock().unwrap();
        let plan = [
            Output::new(d.join("new/a.txt"), Kind::GrundyBFile, "--bfiles"),
            Output::new(d.join("new/b.txt"), Kind::GrundyBFile, "--bfiles"),
            Output::new(&busy, Kind::SweepCheckpoint, "--checkpoint"),
        ];
        // (A lock of another open file description, as another process's.)
        assert!(lock(&plan).is_err());
        assert!(
            !d.join("new").exists(),
            "the directory made for the b-files"
        );
        let names: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            names,
            [crate::base::lock::lock_path(&busy).file_name().unwrap()]
        );
    }

    #[test]
    fn coinciding_other_kind_and_unwritable_outputs_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let table = d.join("t.c3t");
        std::fs::write(&table, b"CHOMP3TB and the rest").unwrap();
        let graph = Output::new(&table, Kind::GraphResult, "--out");
        assert!(matches!(
            check(&[graph]),
            Err(OutputError::OtherKind {
                found: Found::Kind(Kind::Table),
                ..
            })
        ));
        // The same file by two spellings.
        let a = Output::new(d.join("b.tsv"), Kind::CensusTsv, "--out");
        let b = Output::new(d.join("x/../b.tsv"), Kind::CensusCheckpoint, "--checkpoint");
        std::fs::create_dir(d.join("x")).unwrap();
        assert!(matches!(
            check(&[a.clone(), b]),
            Err(OutputError::Same { .. })
        ));
        // A file of the kind written is replaced; a user's file is not.
        std::fs::write(
            d.join("b.tsv"),
            b"# Certified census of three-rowed Chomp, rows 0..5\n",
        )
        .unwrap();
        assert!(check(std::slice::from_ref(&a)).is_ok());
        std::fs::write(d.join("b.tsv"), b"my notes\n").unwrap();
        assert!(matches!(
            check(&[a]),
            Err(OutputError::OtherKind {
                found: Found::Other,
                ..
            })
        ));
        // A compressed file is named so, with no advice to remove it.
        std::fs::write(d.join("m.memo"), b"\xFD7zXZ\0\0\x04").unwrap();
        let memo = Output::new(d.join("m.memo"), Kind::GraphMemo, "--memo");
        let said = check(&[memo]).unwrap_err().to_string();
        assert!(
            said.contains("is a file compressed with xz, not a graph memo")
                && !said.contains("remove"),
            "{said}"
        );
        // A directory that will be created below one that exists is fine.
        let deep = Output::new(d.join("new/deeper/p.png"), Kind::Png, "--out");
        assert!(check(&[deep]).is_ok());
    }
}
