//! OEIS b-files: `n a(n)` per line behind a `#` header that names the sequence,
//! the source and how far the terms are complete.

use std::io::{self, Write};
use std::path::Path;

use crate::base::atomic_write::FileSet;

use crate::f::analysis::sequences::Sequence;

/// Terms of the plain b-file beside a compressed one: as many as OEIS takes.
pub(crate) const PLAIN_TERMS: usize = 10_000;

/// Whether [`write`] writes `s` twice (compressed whole, and plain in part).
pub(super) fn split(s: &Sequence, large: bool) -> bool {
    large && s.terms.len() > PLAIN_TERMS
}

/// Writes `s` as a b-file into `dir` (`from` is the source line). With
/// `large` (an analysis of more rows than `rows.tsv` keeps plain), a b-file of
/// more than [`PLAIN_TERMS`] terms is written twice: whole, compressed with xz
/// (`bNNNNNN.txt.xz`, preset 6: the same bytes every run), and its first
/// [`PLAIN_TERMS`] terms plain (`bNNNNNN.txt`), whose header names the whole
/// one. Returns whether it was split.
pub(super) fn write(
    set: &mut FileSet,
    s: &Sequence,
    from: &str,
    dir: &Path,
    large: bool,
) -> io::Result<bool> {
    let name = s.file_name();
    let split = split(s, large);
    let text = |w: &mut dyn Write, terms: &[i64], count: &str| -> io::Result<()> {
        writeln!(w, "# {}: {}, three-rowed Chomp", s.id, s.definition)?;
        writeln!(w, "{from}")?;
        writeln!(w, "# {}; {count}, offset 0", s.complete)?;
        for (i, t) in terms.iter().enumerate() {
            writeln!(w, "{i} {t}")?;
        }
        Ok(())
    };
    let all = format!("{} terms", s.terms.len());
    if !split {
        set.write(&dir.join(&name), |w| text(w, &s.terms, &all))?;
        return Ok(false);
    }
    set.write(&dir.join(format!("{name}.xz")), |w| {
        let mut xz = xz2::write::XzEncoder::new(w, 6);
        text(&mut xz, &s.terms, &all)?;
        xz.finish().map(|_| ())
    })?;
    let first = format!(
        "the first {PLAIN_TERMS} of {} terms (all of them in {name}.xz)",
        s.terms.len()
    );
    set.write(&dir.join(&name), |w| {
        text(w, &s.terms[..PLAIN_TERMS], &first)
    })?;
    Ok(true)
}
