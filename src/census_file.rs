//! The census on disk: `census.tsv` for people and a compact binary descriptor
//! file (`.c3d`, layout in FORMAT.md) that `get` uses for any `q`. Reads and writes
//! these files only.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::census::Fate;

const MAGIC: [u8; 8] = *b"CHOMP3DS";
const VERSION: u32 = 1;
const HEADER: usize = 32;
const RECORD: usize = 32;

/// Writes `census.tsv`. `command` and `columns` go into the header.
pub fn write_tsv(fates: &[Fate], columns: u32, command: &str, path: &Path) -> io::Result<()> {
    let tmp = path.with_extension("tsv.new");
    let mut w = BufWriter::new(std::fs::File::create(&tmp)?);
    writeln!(
        w,
        "# Certified census of three-rowed Chomp, rows 0..{}",
        fates.len() - 1
    )?;
    writeln!(
        w,
        "# from `{command}`; {columns} columns computed, no table stored"
    )?;
    writeln!(
        w,
        "# class: constant (f(q,r) = start for all q >= start; the recurrence's rule), periodic"
    )?;
    writeln!(
        w,
        "#   (proved for all q by an equal row state a multiple of the period apart: CERTIFICATE.md),"
    )?;
    writeln!(w, "#   open (not proved within the columns computed)")?;
    writeln!(
        w,
        "# start: constant: the q with f(q,r) = q; periodic: least q0 >= r from which f(q,r) - q repeats"
    )?;
    writeln!(
        w,
        "# pattern: f(q,r) - q for q = start .. start+period-1; closed_at: column qs+K of the certificate"
    )?;
    writeln!(w, "r\tclass\tstart\tperiod\tpattern\tclosed_at")?;
    for (r, fate) in fates.iter().enumerate() {
        match fate {
            Fate::Constant { start } => writeln!(w, "{r}\tconstant\t{start}\t-\t-\t-")?,
            Fate::Periodic {
                start,
                pattern,
                closed_at,
            } => {
                let pat: Vec<String> = pattern.iter().map(i64::to_string).collect();
                let p = pattern.len();
                writeln!(
                    w,
                    "{r}\tperiodic\t{start}\t{p}\t{}\t{closed_at}",
                    pat.join(",")
                )?;
            }
            Fate::Open => writeln!(w, "{r}\topen\t-\t-\t-\t-")?,
        }
    }
    w.flush()?;
    drop(w);
    std::fs::rename(tmp, path)
}

/// Writes the binary descriptor file (written aside, then renamed into place).
pub fn write_descriptors(fates: &[Fate], columns: u32, path: &Path) -> io::Result<()> {
    let pool: usize = fates
        .iter()
        .map(|f| match f {
            Fate::Periodic { pattern, .. } => pattern.len(),
            _ => 0,
        })
        .sum();
    let mut b = Vec::with_capacity(HEADER + RECORD * fates.len() + 4 * pool + 4);
    b.extend_from_slice(&MAGIC);
    b.extend_from_slice(&VERSION.to_le_bytes());
    b.extend_from_slice(&(fates.len() as u32).to_le_bytes());
    b.extend_from_slice(&(columns as u64).to_le_bytes());
    b.extend_from_slice(&(pool as u64).to_le_bytes());
    let mut at = 0u64;
    for f in fates {
        let (class, start, period, closed_at) = match f {
            Fate::Open => (0u8, 0, 0u32, 0),
            Fate::Constant { start } => (1, *start, 0, 0),
            Fate::Periodic {
                start,
                pattern,
                closed_at,
            } => (2, *start, pattern.len() as u32, *closed_at),
        };
        b.push(class);
        b.extend_from_slice(&[0; 3]);
        b.extend_from_slice(&period.to_le_bytes());
        b.extend_from_slice(&start.to_le_bytes());
        b.extend_from_slice(&at.to_le_bytes());
        b.extend_from_slice(&closed_at.to_le_bytes());
        at += period as u64;
    }
    for f in fates {
        if let Fate::Periodic { pattern, .. } = f {
            for &x in pattern {
                b.extend_from_slice(&(x as i32).to_le_bytes());
            }
        }
    }
    let crc = crc32fast::hash(&b);
    b.extend_from_slice(&crc.to_le_bytes());
    let tmp = path.with_extension("c3d.new");
    std::fs::write(&tmp, &b)?;
    std::fs::rename(tmp, path)
}

/// A descriptor file read into memory (a few MB for 10^5 rows).
pub struct Descriptors {
    bytes: Vec<u8>,
    rows: u32,
}

impl Descriptors {
    /// Reads and checks a descriptor file (magic, version, length, CRC-32).
    pub fn open(path: &Path) -> Result<Descriptors, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        if bytes.len() < HEADER + 4 || bytes[..8] != MAGIC {
            return Err(format!(
                "{}: not a chomp3 census descriptor file",
                path.display()
            ));
        }
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
        let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap());
        if u32_at(8) != VERSION {
            return Err(format!(
                "{}: descriptor version {}, this chomp3 reads {VERSION}",
                path.display(),
                u32_at(8)
            ));
        }
        let rows = u32_at(12);
        let expected = HEADER + RECORD * rows as usize + 4 * u64_at(24) as usize + 4;
        let body = bytes.len().saturating_sub(4);
        if bytes.len() != expected || crc32fast::hash(&bytes[..body]) != u32_at(body) {
            return Err(format!(
                "{}: damaged descriptor file (length or checksum)",
                path.display()
            ));
        }
        Ok(Descriptors { bytes, rows })
    }

    /// Number of rows described (`0 .. rows`).
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// The fate of row `r`, if described.
    pub fn fate(&self, r: u32) -> Option<Fate> {
        if r >= self.rows {
            return None;
        }
        let rec = &self.bytes[HEADER + RECORD * r as usize..][..RECORD];
        let period = u32::from_le_bytes(rec[4..8].try_into().unwrap()) as usize;
        let start = u64::from_le_bytes(rec[8..16].try_into().unwrap());
        let at = u64::from_le_bytes(rec[16..24].try_into().unwrap()) as usize;
        let closed_at = u64::from_le_bytes(rec[24..32].try_into().unwrap());
        Some(match rec[0] {
            1 => Fate::Constant { start },
            2 => {
                let pool = HEADER + RECORD * self.rows as usize + 4 * at;
                let pattern = (0..period)
                    .map(|i| {
                        i32::from_le_bytes(
                            self.bytes[pool + 4 * i..pool + 4 * i + 4]
                                .try_into()
                                .unwrap(),
                        ) as i64
                    })
                    .collect();
                Fate::Periodic {
                    start,
                    pattern,
                    closed_at,
                }
            }
            _ => Fate::Open,
        })
    }
}
