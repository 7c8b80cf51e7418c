//! OEIS b-files: `n a(n)` per line behind a `#` header that names the sequence,
//! the source and how far the terms are complete.

use std::io::{self, Write};
use std::path::Path;

use crate::base::atomic_write::FileSet;

use crate::f::analysis::sequences::Sequence;

/// Writes `s` as a b-file; `from` is the source line.
pub(super) fn write(set: &mut FileSet, s: &Sequence, from: &str, path: &Path) -> io::Result<()> {
    set.write(path, |w| {
        writeln!(w, "# {}: {}, three-rowed Chomp", s.id, s.definition)?;
        writeln!(w, "{from}")?;
        writeln!(w, "# {}; {} terms, offset 0", s.complete, s.terms.len())?;
        for (i, t) in s.terms.iter().enumerate() {
            writeln!(w, "{i} {t}")?;
        }
        Ok(())
    })
}
