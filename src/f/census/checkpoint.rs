//! The census checkpoint: the whole state of a [`Run`], written to a writer and
//! read back so that an interrupted census continues to the same results. The
//! layout is in FORMAT.md; integers little-endian, a CRC-32 of everything at the
//! end. Never touches files itself (the command line writes it aside and renames
//! it into place).

use crate::base::bytes::narrow;
use std::io::{self, Read, Write};
use std::sync::{Arc, Mutex};

use super::offsets::Offsets;
use super::snapshot::{LastBase, Snapshot};
use super::tracker::Tracker;
use super::{Params, Run, Scan};
use crate::base::bytes::damaged;
use crate::base::bytes::stream::{
    CrcReader, CrcWriter, get32, get32s, get64, put32, put32s, put64,
};
use crate::f::engine::ranks::{Owners, Ranks, Solo};
use crate::f::engine::{CHUNK_ROWS, Deltas, Engine};
use crate::f::proof::{Fate, Known, RowStatus};

/// First 8 bytes of a checkpoint.
const MAGIC: [u8; 8] = *b"CHOMP3CK";
/// The layout version this build writes; it also reads [`EARLIER`].
pub(crate) const VERSION: u32 = 7;
/// Version 6: the layout of version 7 with the turn `t` of the ranks in place
/// of the chunks' owners (chunk `c` on rank `(c / t) % P`).
const TURNS: u32 = 6;
/// Version 5: the layout of version 6 without the turn (their chunks were
/// dealt one at a time).
const EARLIER: u32 = 5;
/// "None" in `u32` and `u64` fields.
const NONE32: u32 = u32::MAX;
const NONE64: u64 = u64::MAX;

/// Why a checkpoint cannot be continued: the file-format cases every chomp3
/// file has (not this file, another version, damaged) and two of its own (a
/// checkpoint of another census or rank). Each message ends with what to do.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Not a census checkpoint at all.
    #[error(
        "not a chomp3 census checkpoint (no CHOMP3CK header); a census checkpoint must be one a census wrote, or a new path"
    )]
    NotThisFile,
    /// Written by another layout version.
    #[error(
        "census checkpoint version {found}, this chomp3 reads {EARLIER} to {expected}; finish it with the chomp3 that wrote it (the census files are the same), or {START_OVER}"
    )]
    Version {
        /// The version this build reads.
        expected: u32,
        /// The version in the file.
        found: u32,
    },
    /// A checkpoint of another census.
    #[error(
        "a checkpoint of the census of rows 0..={} with at most {} columns (batch {}); finish that census with it, or {START_OVER}",
        .found.last_row, .found.max_columns, .found.batch
    )]
    OtherParams {
        /// The parameters it was written for.
        found: Params,
    },
    /// A checkpoint of another rank, or of a census on another number of ranks.
    #[error(
        "the checkpoint of rank {rank} of {size}, not of rank {want_rank} of {want_size}; {}, or {START_OVER}",
        if .size == .want_size { "each rank reads the file named for it: give each file its own name back".to_string() } else { format!("run on {} ranks", .size) }
    )]
    OtherRank {
        /// Ranks and rank in the file.
        size: u32,
        /// The rank in the file.
        rank: u32,
        /// Ranks of this census.
        want_size: u32,
        /// This rank.
        want_rank: u32,
    },
    /// A rank's file whose name gives another column than the one it holds.
    #[error(
        "the checkpoint of column {found}, named for column {named}; give it its own name back (at-{found}), or delete the files of this census to start it over"
    )]
    OtherColumn {
        /// The column it holds.
        found: u32,
        /// The column its name gives.
        named: u32,
    },
    /// Cut off, or bytes that cannot be right (its checksum, a count, a tag).
    #[error("damaged census checkpoint ({0}); {START_OVER}")]
    Damaged(String),
    /// Nothing in the file (a checkpoint is written whole, never empty).
    #[error("the file is empty, not a census checkpoint; {START_OVER}")]
    Empty,
}

/// The last resort every checkpoint message offers.
const START_OVER: &str = "delete it to start this census over";

fn opt32(x: Option<u32>) -> u32 {
    x.unwrap_or(NONE32)
}

fn some32(x: u32) -> Option<u32> {
    (x != NONE32).then_some(x)
}

impl Run {
    /// Writes the whole state.
    pub fn save(&mut self, w: &mut dyn Write) -> io::Result<()> {
        let mut w = CrcWriter::new(w);
        let w = &mut w;
        w.write_all(&MAGIC)?;
        put32(w, VERSION)?;
        let p = self.params;
        put32s(w, [p.last_row, p.max_columns, p.batch, self.settled_below])?;
        put32s(w, [self.ranks.size(), self.ranks.rank()])?;
        put32s(w, self.owners().list(p.last_row / CHUNK_ROWS + 1))?;
        for status in &self.settled[..self.settled_below as usize] {
            save_status(
                w,
                status
                    .as_ref()
                    .expect("the rows below settled_below are settled"),
            )?;
        }
        put32(w, crate::base::bytes::len32(self.start_bounds.len())?)?;
        put32s(w, self.start_bounds.iter().copied())?;
        put32s(w, self.minima.iter().copied())?;
        save_scan(w, &self.merged_scan())?;
        let mut snapshots = Deltas::default();
        for r in self.settled_below..=p.last_row {
            if self.owns(r) {
                save_tracker(w, &self.trackers[r as usize], &mut snapshots)?;
            }
        }
        self.engine.save(w)?;
        let crc = w.crc.clone().finalize();
        w.w.write_all(&crc.to_le_bytes())
    }

    /// Reads a state written by [`Run::save`] for `params`.
    pub fn load(r: &mut dyn Read, params: Params) -> Result<Run, CheckpointError> {
        Run::load_shared(r, params, Arc::new(Solo))
    }

    /// Reads a state written by [`Run::save`] for `params` on the same rank of
    /// as many ranks.
    pub fn load_shared(
        r: &mut dyn Read,
        params: Params,
        ranks: Arc<dyn Ranks>,
    ) -> Result<Run, CheckpointError> {
        let mut rd = CrcReader::new(r);
        let broken = |e: io::Error| {
            CheckpointError::Damaged(match e.kind() {
                // A count read wrong runs past the end as a cut does.
                io::ErrorKind::UnexpectedEof => "cut off, or a count in it damaged".into(),
                _ => e.to_string(),
            })
        };
        let mut magic = Vec::with_capacity(8);
        (&mut rd)
            .take(8)
            .read_to_end(&mut magic)
            .map_err(|e| CheckpointError::Damaged(e.to_string()))?;
        if magic.is_empty() {
            return Err(CheckpointError::Empty);
        }
        if magic.len() < 8 && MAGIC.starts_with(&magic) {
            return Err(CheckpointError::Damaged("cut off".into()));
        }
        if magic != MAGIC {
            return Err(CheckpointError::NotThisFile);
        }
        let version = get32(&mut rd).map_err(broken)?;
        if ![VERSION, TURNS, EARLIER].contains(&version) {
            return Err(CheckpointError::Version {
                expected: VERSION,
                found: version,
            });
        }
        let v = get32s(&mut rd, 4).map_err(broken)?;
        let found = Params {
            last_row: v[0],
            max_columns: v[1],
            batch: v[2],
        };
        // Another census's or rank's only if whole: damage in these fields
        // is damage, not another census.
        let whole = |rd: &mut CrcReader| match rest_is_whole(rd) {
            true => Ok(()),
            false => Err(CheckpointError::Damaged(
                "its checksum does not match".into(),
            )),
        };
        if found != params {
            whole(&mut rd)?;
            return Err(CheckpointError::OtherParams { found });
        }
        let place = get32s(&mut rd, 2).map_err(broken)?;
        if place != [ranks.size(), ranks.rank()] {
            whole(&mut rd)?;
            return Err(CheckpointError::OtherRank {
                size: place[0],
                rank: place[1],
                want_size: ranks.size(),
                want_rank: ranks.rank(),
            });
        }
        let chunks = params.last_row / CHUNK_ROWS + 1;
        let (size, rank) = (ranks.size(), ranks.rank());
        let owners = match version {
            EARLIER | TURNS => {
                let turn = match version {
                    EARLIER => 1,
                    _ => get32(&mut rd).map_err(broken)?,
                };
                if turn == 0 {
                    return Err(CheckpointError::Damaged("a turn of no chunks".into()));
                }
                Owners::dealt(size, rank, turn, chunks)
            }
            _ => {
                let map = get32s(&mut rd, chunks as usize).map_err(broken)?;
                if map.iter().any(|&o| o >= size) {
                    return Err(CheckpointError::Damaged(
                        "a chunk of rows owned by a rank past the ranks".into(),
                    ));
                }
                Owners::from_map(size, rank, map)
            }
        };
        let run = Run::owned(params, ranks, owners.clone());
        let run = load_body(&mut rd, run, v[3], owners).map_err(broken)?;
        let expect = rd.crc.clone().finalize();
        let stored = get32(rd.r).map_err(broken)?;
        if stored != expect {
            return Err(CheckpointError::Damaged(
                "its checksum does not match".into(),
            ));
        }
        let mut more = [0u8; 1];
        if rd.r.read(&mut more).map_err(broken)? > 0 {
            return Err(CheckpointError::Damaged(
                "bytes follow its end (its checksum)".into(),
            ));
        }
        Ok(run)
    }
}

/// Whether the rest of `rd`, up to its last four bytes, has the CRC-32
/// those four bytes hold (with what `rd` read before): the file is whole.
fn rest_is_whole(rd: &mut CrcReader) -> bool {
    let mut tail = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = match rd.r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return false,
        };
        tail.extend_from_slice(&buf[..n]);
        let body = tail.len().saturating_sub(4);
        rd.crc.update(&tail[..body]);
        tail.drain(..body);
    }
    tail.len() == 4 && rd.crc.clone().finalize().to_le_bytes() == tail[..]
}

/// Everything after the parameters.
fn load_body(
    rd: &mut dyn Read,
    mut run: Run,
    settled_below: u32,
    owners: Owners,
) -> io::Result<Run> {
    let rows = run.params.last_row as usize;
    if settled_below as usize > rows + 1 {
        return Err(damaged("more rows settled than the census has"));
    }
    for r in 0..settled_below as usize {
        let status = load_status(rd)?;
        run.below.add(&status.fate);
        run.settled[r] = Some(status);
    }
    run.settled_below = settled_below;
    let bounds = get32(rd)? as usize;
    run.start_bounds = get32s(rd, bounds)?;
    run.minima = get32s(rd, rows + 1)?;
    run.scans = vec![Mutex::new(load_scan(rd, narrow::<u32, _>(rows))?)];
    let mut snapshots = Deltas::default();
    let mut last = None;
    for r in settled_below..=narrow::<u32, _>(rows) {
        if run.owns(r) {
            run.trackers[r as usize] = load_tracker(rd, r, &mut snapshots, &mut last)?;
        }
    }
    run.engine = Engine::load(rd)?;
    if !run.engine.set_owners(owners) {
        return Err(damaged("rows of another rank"));
    }
    Ok(run)
}

/// A scan: diagonal, P-position counts, largest value below the diagonal.
pub(super) fn save_scan(w: &mut dyn Write, scan: &Scan) -> io::Result<()> {
    put32s(w, scan.diagonal.iter().copied())?;
    put32s(w, scan.p_count.iter().copied())?;
    put32s(w, scan.largest_below.iter().copied())
}

/// A scan of a census of rows `0 ..= rows`.
pub(super) fn load_scan(rd: &mut dyn Read, rows: u32) -> io::Result<Scan> {
    let n = rows as usize + 1;
    Ok(Scan {
        diagonal: get32s(rd, n)?,
        p_count: get32s(rd, n)?,
        largest_below: get32s(rd, n)?,
    })
}

/// class (0 constant, 1 periodic), start, closed_at, period, pattern.
pub(super) fn save_status(w: &mut dyn Write, s: &RowStatus) -> io::Result<()> {
    match &s.fate {
        Fate::Constant { start } => {
            w.write_all(&[0])?;
            put64(w, u64::from(*start))
        }
        Fate::Periodic { start, pattern } => {
            w.write_all(&[1])?;
            put64(w, u64::from(*start))?;
            put64(w, s.known.closed_at().unwrap_or(0))?;
            put32(w, crate::base::bytes::len32(pattern.len())?)?;
            put32s(w, pattern.iter().map(|&x| x.cast_unsigned()))
        }
    }
}

pub(super) fn load_status(rd: &mut dyn Read) -> io::Result<RowStatus> {
    let mut class = [0u8];
    rd.read_exact(&mut class)?;
    let start = u32::try_from(get64(rd)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "a row's start is past 2^32"))?;
    if class[0] == 0 {
        return Ok(RowStatus::died(start));
    }
    let closed_at = get64(rd)?;
    let len = get32(rd)? as usize;
    let pattern = get32s(rd, len)?
        .into_iter()
        .map(|x| x.cast_signed())
        .collect();
    Ok(RowStatus {
        fate: Fate::Periodic { start, pattern },
        known: Known::Certificate { closed_at },
    })
}

pub(super) fn save_tracker(
    w: &mut dyn Write,
    t: &Tracker,
    snapshots: &mut Deltas,
) -> io::Result<()> {
    put64(w, t.dead.map_or(NONE64, u64::from))?;
    put32s(w, [t.recorded_from, t.min_value, t.history.len()])?;
    // Offsets as differences from the one before (zigzag varints), as the
    // tracker holds them: a row that has settled repeats a few values.
    w.write_all(t.history.encoded())?;
    match &t.snapshot {
        Some((q, snapshot)) => {
            put32s(w, [1, *q])?;
            snapshots.save(w, &snapshot.state())?;
        }
        None => put32(w, 0)?,
    }
    put32s(w, [t.steps, t.limit])?;
    let (qs, k) = t.cycle.unwrap_or((NONE32, NONE32));
    put32s(w, [qs, k, t.confirmed, opt32(t.verify_at)])
}

pub(super) fn load_tracker(
    rd: &mut dyn Read,
    r: u32,
    snapshots: &mut Deltas,
    last: &mut LastBase,
) -> io::Result<Tracker> {
    let dead = get64(rd)?;
    let v = get32s(rd, 3)?;
    let history = Offsets::read(rd, v[2])?;
    let snapshot = match get32(rd)? {
        0 => None,
        _ => {
            let q = get32(rd)?;
            Some((q, Snapshot::take(snapshots.load(rd, r + 2)?, q, last)))
        }
    };
    let w = get32s(rd, 6)?;
    Ok(Tracker {
        dead: (dead != NONE64)
            .then(|| u32::try_from(dead))
            .transpose()
            .map_err(|_| {
                io::Error::new(io::ErrorKind::InvalidData, "a row's death is past 2^32")
            })?,
        recorded_from: v[0],
        min_value: v[1],
        history,
        snapshot,
        steps: w[0],
        limit: w[1],
        cycle: some32(w[2]).map(|qs| (qs, w[3])),
        confirmed: w[4],
        verify_at: some32(w[5]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool() -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
    }

    #[test]
    fn a_run_saved_at_any_batch_continues_to_the_same_census() {
        let params = Params {
            last_row: 700,
            max_columns: 6000,
            batch: 72,
        };
        let pool = pool();
        let direct = super::super::census(params, &pool, &mut |_, _| {});
        for stop_after in [1, 5, 13, 15] {
            let mut run = Run::new(params);
            for _ in 0..stop_after {
                run.step(&pool);
            }
            assert!(!run.done(), "stop before the end ({stop_after} batches)");
            let mut bytes = Vec::new();
            run.save(&mut bytes).unwrap();
            let mut run = Run::load(&mut bytes.as_slice(), params).unwrap();
            while !run.done() {
                run.step(&pool);
            }
            let resumed = run.finish().unwrap();
            assert_eq!(
                resumed.rows, direct.rows,
                "stopped after {stop_after} batches"
            );
            assert_eq!(resumed.columns, direct.columns);
            assert_eq!(resumed.facts.p_count, direct.facts.p_count);
            assert_eq!(resumed.facts.row_min, direct.facts.row_min);
        }
    }

    /// `bytes`, a checkpoint of format 7 whose chunks are dealt `turn` at a
    /// time, written as format 6 had it: the turn in place of the owners.
    fn as_format_6(bytes: &[u8], chunks: usize, turn: u32) -> Vec<u8> {
        // Magic, version, four parameters, ranks and rank: 36 bytes.
        let mut old = bytes[..36].to_vec();
        old[8..12].copy_from_slice(&TURNS.to_le_bytes());
        old.extend(turn.to_le_bytes());
        old.extend(&bytes[36 + 4 * chunks..bytes.len() - 4]);
        let crc = crc32fast::hash(&old);
        old.extend(crc.to_le_bytes());
        old
    }

    #[test]
    fn a_checkpoint_of_format_6_continues_to_the_same_census() {
        let params = Params {
            last_row: 3500,
            max_columns: 9000,
            batch: 360,
        };
        let pool = pool();
        let direct = super::super::census(params, &pool, &mut |_, _| {});
        // In one process, saved mid-census: every chunk the one rank's.
        let mut run = Run::new(params);
        for _ in 0..6 {
            run.step(&pool);
        }
        let mut bytes = Vec::new();
        run.save(&mut bytes).unwrap();
        let old = as_format_6(&bytes, 4, 1);
        let mut run = Run::load(&mut old.as_slice(), params).unwrap();
        while !run.done() {
            run.step(&pool);
        }
        assert!(run.finish().unwrap().rows == direct.rows, "one process");
        // On three ranks dealt two chunks at a time, saved at the start: the
        // first part's end moves the chunks, with their rows, into runs.
        let rows = super::super::moves::tests::on_ranks(3, &|ranks| {
            let mut bytes = Vec::new();
            Run::dealt(params, ranks.clone(), 2)
                .save(&mut bytes)
                .unwrap();
            let old = as_format_6(&bytes, 4, 2);
            let run = Run::load_shared(&mut old.as_slice(), params, ranks).unwrap();
            assert_eq!(run.owners().list(4), [0, 0, 1, 1]);
            run
        });
        assert!(rows == direct.rows, "three ranks");
    }

    #[test]
    fn other_parameters_and_damage_are_refused() {
        let params = Params {
            last_row: 100,
            max_columns: 2000,
            batch: 50,
        };
        let mut run = Run::new(params);
        run.step(&pool());
        let mut bytes = Vec::new();
        run.save(&mut bytes).unwrap();
        let other = Params {
            last_row: 101,
            ..params
        };
        assert!(matches!(
            Run::load(&mut bytes.as_slice(), other),
            Err(CheckpointError::OtherParams { found }) if found == params
        ));
        // A byte of the parameters damaged is damage, not another census:
        // the checksum over the whole file says which.
        for at in [12, 16, 20] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x55;
            assert!(
                matches!(
                    Run::load(&mut bad.as_slice(), params),
                    Err(CheckpointError::Damaged(_))
                ),
                "byte {at}"
            );
        }
        let mut bad = bytes.clone();
        let mid = bad.len() / 2;
        bad[mid] ^= 0x10;
        assert!(matches!(
            Run::load(&mut bad.as_slice(), params),
            Err(CheckpointError::Damaged(_))
        ));
        assert!(matches!(
            Run::load(&mut &bytes[..bytes.len() - 9], params),
            Err(CheckpointError::Damaged(_))
        ));
        // Bytes after the checksum are damage too.
        let mut longer = bytes.clone();
        longer.extend_from_slice(b"\n");
        assert!(matches!(
            Run::load(&mut longer.as_slice(), params),
            Err(CheckpointError::Damaged(why)) if why.contains("bytes follow its end")
        ));
        assert!(matches!(
            Run::load(&mut &b"CHOMP3TB"[..], params),
            Err(CheckpointError::NotThisFile)
        ));
        // Empty, or cut off in the magic: said so.
        assert!(matches!(
            Run::load(&mut &b""[..], params),
            Err(CheckpointError::Empty)
        ));
        assert!(matches!(
            Run::load(&mut &b"CHOM"[..], params),
            Err(CheckpointError::Damaged(why)) if why == "cut off"
        ));
    }
}
