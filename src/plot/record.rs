//! The record of what each figure in a directory was drawn from: the sealed
//! file `figures.tsv` beside the figures (FORMAT.md). With it `plot` refuses,
//! unless told `--replace`, to draw over a figure made from a larger source
//! or another kind of source, or over an image the record does not know.
//! Uses `seal` to write and check the file and `atomic_write`'s [`FileSet`]
//! so that the record is replaced with the figures it describes.

use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use super::PlotError;
use crate::base::atomic_write::FileSet;
use crate::base::input::{self, InputError};

/// The record's file name in a figure directory.
pub const RECORD: &str = "figures.tsv";

/// What a figure was drawn from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Made {
    /// The kind of source: `table`, `census` (a census alone), `grundy`
    /// (Grundy lines) or `graphs` (graph Chomp's files); a row figure adds
    /// its row (`table row 120`).
    pub kind: String,
    /// The size of the source: the `N` of the table or census, the largest
    /// `q` of the Grundy lines, the most vertices of the graphs or wheels.
    pub n: u64,
    /// Further measures of how much the source holds, by name (rows
    /// settled, Grundy lines, graphs, wheels): a source of the same `N`
    /// may hold less (a table without its census, a Grundy census that
    /// stopped part way). Empty where they are not known yet (the check
    /// before the work); the figure's own drawing fills them in.
    pub also: BTreeMap<String, u64>,
    /// The command that drew it.
    pub command: String,
}

impl Made {
    /// A source of the kind `kind` and size `n`, drawn by `command`; its
    /// further measures are added by the drawing.
    pub fn new(kind: &str, n: u64, command: String) -> Made {
        Made {
            kind: kind.to_string(),
            n,
            also: BTreeMap::new(),
            command,
        }
    }

    /// The same source for the row figure of row `row`.
    pub fn row(&self, row: u64, from_census: bool) -> Made {
        let kind = match from_census {
            true => "census",
            false => &self.kind,
        };
        Made {
            kind: format!("{kind} row {row}"),
            ..self.clone()
        }
    }

    /// The same source with the measure `name` of it.
    pub fn with(mut self, name: &str, count: u64) -> Made {
        self.also.insert(name.to_string(), count);
        self
    }

    /// Whether a figure drawn from `self` may replace one drawn from `old`:
    /// the same kind of source, at least as large, and holding at least as
    /// much by every measure both know.
    fn may_replace(&self, old: &Made) -> bool {
        self.kind == old.kind
            && self.n >= old.n
            && old.also.iter().all(|(name, &had)| {
                self.also.get(name).is_none_or(|&now| {
                    if is_set(name) {
                        // A set (one bit a member): every member there is here.
                        now & had == had
                    } else if is_digest(name) {
                        // Which lines: the same ones, or every line up to
                        // this `N` (so every one of the other's, `N` no
                        // smaller).
                        now == had || self.also.get("lines") == Some(&lines_to(self.n))
                    } else {
                        now >= had
                    }
                })
            })
    }

    /// The `N` field of the record: `N`, then `;name=count` for each measure.
    fn size_field(&self) -> String {
        let mut s = self.n.to_string();
        for (name, count) in &self.also {
            s += &format!(";{name}={count}");
        }
        s
    }
}

impl std::fmt::Display for Made {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{} to n = {}", self.kind, self.n)?;
        let also: Vec<String> = (self.also.iter())
            // The sizes from 64 on, where there are none: not said.
            .filter(|&(name, &count)| count != 0 || set_base(name) == 0)
            .map(|(name, &count)| match is_set(name) {
                true => {
                    let members: Vec<String> = (0..64)
                        .filter(|b| count >> b & 1 == 1)
                        .map(|b| (set_base(name) + b).to_string())
                        .collect();
                    format!("{name} {{{}}}", members.join(","))
                }
                false if is_digest(name) => format!("{name} {count:016x}"),
                false => format!("{count} {name}"),
            })
            .collect();
        if !also.is_empty() {
            write!(f, " with {}", also.join(", "))?;
        }
        Ok(())
    }
}

/// Whether the measure `name` is a digest of which lines a source holds
/// (`lines digest`): equal for the same lines.
fn is_digest(name: &str) -> bool {
    name.ends_with(" digest")
}

/// The lines `(q, r)`, `r <= q <= n`.
fn lines_to(n: u64) -> u64 {
    (n + 1).saturating_mul(n + 2) / 2
}

/// Whether the measure `name` is a set of small numbers (sizes, wheels),
/// one bit a member, compared by inclusion rather than by count: `X set`
/// (members 0 to 63) or `X set high` (members 64 to 127, bit `m - 64`).
fn is_set(name: &str) -> bool {
    name.ends_with(" set") || name.ends_with(" set high")
}

/// The first member of the set measure `name`'s bit 0.
fn set_base(name: &str) -> u64 {
    if name.ends_with(" high") { 64 } else { 0 }
}

/// The set measure of the numbers `members` (each below 64), or `None`
/// where one is not.
pub fn set_of(members: impl IntoIterator<Item = u64>) -> Option<u64> {
    members
        .into_iter()
        .try_fold(0u64, |set, m| (m < 64).then(|| set | 1 << m))
}

/// The set measures `X set` and `X set high` of the numbers `members` (each
/// below 128), or `None` where one is not.
pub fn sets_of(members: impl IntoIterator<Item = u64>) -> Option<[u64; 2]> {
    members
        .into_iter()
        .try_fold([0u64; 2], |[low, high], m| match m {
            0..64 => Some([low | 1 << m, high]),
            64..128 => Some([low, high | 1 << (m - 64)]),
            _ => None,
        })
}

/// Reads the `N` field of a record line: `N`, then `;name=count` for each
/// further measure (names of lower-case letters and spaces).
fn size_field(field: &str) -> Option<(u64, BTreeMap<String, u64>)> {
    let mut parts = field.split(';');
    let n = parts.next()?.parse().ok()?;
    let mut also = BTreeMap::new();
    for part in parts {
        let (name, count) = part.split_once('=')?;
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_lowercase() || b == b' ') {
            return None;
        }
        if also.insert(name.to_string(), count.parse().ok()?).is_some() {
            return None;
        }
    }
    Some((n, also))
}

/// A directory's record, read before drawing and written with the figures.
pub(super) struct Record {
    dir: PathBuf,
    entries: BTreeMap<String, Made>,
    replace: bool,
}

impl Record {
    /// Reads `dir`'s record (none yet: empty). With `replace`, a damaged
    /// record is started again, since every figure may be replaced.
    pub(super) fn open(dir: &Path, replace: bool) -> Result<Record, PlotError> {
        let path = dir.join(RECORD);
        let entries = match input::open(&path, "a figure record") {
            Err(InputError::Missing { .. }) => BTreeMap::new(),
            Err(e) => return Err(e.into()),
            Ok(file) => match read(BufReader::new(file)) {
                Ok(entries) => entries,
                Err(_) if replace => BTreeMap::new(),
                Err(why) => {
                    return Err(PlotError::Refused(format!(
                        "{}: {why}; asked to replace, the figures are drawn and the record written anew",
                        path.display()
                    )));
                }
            },
        };
        Ok(Record {
            dir: dir.to_path_buf(),
            entries,
            replace,
        })
    }

    /// Refuses to draw `file` from `made` where that would replace a figure
    /// the record says came from a larger or another source, or an image it
    /// does not know (unless `--replace`).
    pub(super) fn check(&self, file: &str, made: &Made) -> Result<(), PlotError> {
        let path = self.dir.join(file);
        if self.replace || !path.exists() {
            return Ok(());
        }
        let p = path.display();
        match self.entries.get(file) {
            Some(old) if made.may_replace(old) => Ok(()),
            Some(old) => Err(PlotError::Refused(format!(
                "{p} was drawn from the {old} ({RECORD}); this one, from the {made}, would replace it; it is kept unless replacing it is asked for"
            ))),
            None => Err(PlotError::Refused(format!(
                "{p} exists and {RECORD} does not say what it was drawn from; it is kept unless replacing it is asked for"
            ))),
        }
    }

    /// Notes that `file` is drawn from `made`.
    pub(super) fn note(&mut self, file: &str, made: &Made) {
        self.entries.insert(file.to_string(), made.clone());
    }

    /// Writes the record aside into `set`, to be renamed with the figures.
    pub(super) fn write(&self, set: &mut FileSet) -> Result<(), PlotError> {
        let path = self.dir.join(RECORD);
        set.write(&path, |w| {
            crate::base::seal::write_sealed(w, |w| {
                writeln!(
                    w,
                    "# chomp3 figure record: what each figure here was drawn from (FORMAT.md)"
                )?;
                writeln!(w, "# figure\tsource\tn\tcommand")?;
                for (file, m) in &self.entries {
                    writeln!(w, "{file}\t{}\t{}\t{}", m.kind, m.size_field(), m.command)?;
                }
                Ok(())
            })
        })
        .map_err(PlotError::io(&path))
    }
}

/// The entries of a record file by figure file name (each once, in order
/// of the name), its end line checked; an error says what is wrong.
pub fn read(reader: impl std::io::BufRead) -> Result<BTreeMap<String, Made>, String> {
    let mut entries: BTreeMap<String, Made> = BTreeMap::new();
    for (i, line) in crate::base::seal::lines(reader).enumerate() {
        let line = line.map_err(|e| e.to_string())?;
        if line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.splitn(4, '\t').collect();
        let [file, kind, n, command] = fields[..] else {
            return Err(format!("line {} has not 4 tab-separated fields", i + 1));
        };
        let (n, also) = size_field(n).ok_or_else(|| {
            format!(
                "line {}: {n:?} is not a size (a count, then `;name=count` for each measure)",
                i + 1
            )
        })?;
        if let Some((last, _)) = entries.last_key_value()
            && file <= last.as_str()
        {
            return Err(format!(
                "line {}: {file} after {last}; the record lists each figure once, in order of its name",
                i + 1
            ));
        }
        entries.insert(
            file.to_string(),
            Made {
                kind: kind.to_string(),
                n,
                also,
                command: command.to_string(),
            },
        );
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn made(kind: &str, n: u64) -> Made {
        Made::new(kind, n, format!("chomp3 plot ({kind} {n})"))
    }

    /// A directory whose record says `table.png` came from a table to 1000.
    fn recorded() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let mut set = FileSet::new();
        let mut r = Record::open(dir.path(), false).unwrap();
        r.note("table.png", &made("table", 1000));
        r.write(&mut set).unwrap();
        set.commit().unwrap();
        dir
    }

    /// Replacing follows the rule: same kind and at least as large, or
    /// `--replace`; an image the record does not know is not replaced.
    #[test]
    fn a_figure_is_replaced_only_by_one_from_as_much_of_the_same() {
        let dir = recorded();
        std::fs::write(dir.path().join("table.png"), b"image").unwrap();
        std::fs::write(dir.path().join("other.png"), b"image").unwrap();
        let r = Record::open(dir.path(), false).unwrap();
        assert!(r.check("table.png", &made("table", 1000)).is_ok());
        assert!(r.check("table.png", &made("table", 5000)).is_ok());
        assert!(r.check("new.png", &made("census", 1)).is_ok());
        for (kind, n) in [("table", 999), ("census", 5000), ("table row 3", 1000)] {
            let e = r
                .check("table.png", &made(kind, n))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("replacing it is asked for") && e.contains("table to n = 1000"),
                "{e}"
            );
        }
        let e = r
            .check("other.png", &made("table", 1))
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not say"), "{e}");
        let r = Record::open(dir.path(), true).unwrap();
        assert!(r.check("table.png", &made("census", 1)).is_ok());
        assert!(r.check("other.png", &made("census", 1)).is_ok());
    }

    /// A figure drawn from a source that holds less by a measure both know
    /// (a table without the census that settled its rows, a Grundy census
    /// that stopped part way) is not replaced by it, whatever its `N`; the
    /// measures go through the record file and back.
    #[test]
    fn a_figure_is_not_replaced_by_one_from_a_source_that_holds_less() {
        let dir = tempfile::tempdir().unwrap();
        let mut set = FileSet::new();
        let mut r = Record::open(dir.path(), false).unwrap();
        let full = made("table", 1000)
            .with("rows settled", 1001)
            .with("lines", 7);
        r.note("table.png", &full);
        r.write(&mut set).unwrap();
        set.commit().unwrap();
        std::fs::write(dir.path().join("table.png"), b"image").unwrap();
        let r = Record::open(dir.path(), false).unwrap();
        assert_eq!(r.entries["table.png"], full);
        // Not known yet (the check before the work), as much, or more: drawn.
        for ok in [
            made("table", 1000),
            made("table", 1000).with("rows settled", 1001),
            made("table", 2000)
                .with("rows settled", 1500)
                .with("lines", 7),
        ] {
            assert!(r.check("table.png", &ok).is_ok(), "{ok}");
        }
        for less in [
            made("table", 1000).with("rows settled", 1000),
            made("table", 5000)
                .with("rows settled", 2000)
                .with("lines", 6),
        ] {
            let e = r.check("table.png", &less).unwrap_err().to_string();
            assert!(
                e.contains("table to n = 1000 with 7 lines, 1001 rows settled ("),
                "{e}"
            );
        }
        for field in ["10;", "10;x", "10;x=", "10;X=1", "10;a=1;a=2", "10;a=-1"] {
            assert!(size_field(field).is_none(), "{field}");
        }
    }

    /// A record cut or edited is refused (and started anew with `--replace`).
    #[test]
    fn a_damaged_record_is_refused() {
        let dir = recorded();
        let path = dir.path().join(RECORD);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("1000", "9000")).unwrap();
        let e = Record::open(dir.path(), false).err().unwrap().to_string();
        assert!(
            e.contains("figures.tsv") && e.contains("changed or damaged"),
            "{e}"
        );
        assert!(Record::open(dir.path(), true).is_ok());
    }

    /// A figure listed twice, or out of order, is refused with its line.
    #[test]
    fn a_figure_listed_twice_or_out_of_order_is_refused() {
        let sealed = |body: &str| {
            let mut out = Vec::new();
            crate::base::seal::write_sealed(&mut out, |w| w.write_all(body.as_bytes())).unwrap();
            out
        };
        let a = "a.png\ttable\t10\tchomp3 plot\n";
        let b = "b.png\ttable\t20\tchomp3 plot\n";
        assert_eq!(read(&sealed(&format!("# r\n{a}{b}"))[..]).unwrap().len(), 2);
        for (body, says) in [
            (format!("# r\n{a}{a}"), "line 3: a.png after a.png"),
            (format!("# r\n{b}{a}"), "line 3: a.png after b.png"),
        ] {
            let e = read(&sealed(&body)[..]).unwrap_err();
            assert!(e.starts_with(says), "{e}");
        }
    }
}
