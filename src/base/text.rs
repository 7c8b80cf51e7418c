//! Opening a text result to read it as committed: a file whose name ends in
//! `.xz` is decompressed as it is read (streamed: a Grundy census can be
//! gigabytes; streams one after another read in turn, as `xz -dc` does), any
//! other is read as it is. Uses `xz2`.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

/// The lines of the text file at `path`, decompressed if its name ends in `.xz`.
pub fn open(path: &Path) -> io::Result<Box<dyn BufRead + Send>> {
    let file = File::open(path)?;
    Ok(if path.extension().is_some_and(|e| e == "xz") {
        Box::new(BufReader::new(xz2::read::XzDecoder::new_multi_decoder(
            BufReader::new(file),
        )))
    } else {
        Box::new(BufReader::new(file))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

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
            open(path).unwrap().read_to_string(&mut got).unwrap();
            assert_eq!(got, text, "{}", path.display());
        }
        // Streams one after another read as their texts in turn, as
        // `xz -dc` reads them.
        let two = dir.path().join("two.tsv.xz");
        let mut bytes = std::fs::read(&packed).unwrap();
        bytes.extend(std::fs::read(&packed).unwrap());
        std::fs::write(&two, bytes).unwrap();
        let mut got = String::new();
        open(&two).unwrap().read_to_string(&mut got).unwrap();
        assert_eq!(got, text.repeat(2));
        // A file named .xz that is not one fails where it is read.
        let fake = dir.path().join("b.tsv.xz");
        std::fs::write(&fake, text).unwrap();
        let mut got = String::new();
        assert!(open(&fake).unwrap().read_to_string(&mut got).is_err());
    }
}
