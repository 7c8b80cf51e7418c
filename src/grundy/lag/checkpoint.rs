//! The census of periods on disk: its checkpoint, in the frame of
//! `grundy::checkpoint` (magic `C3GLAG` and the version, body, CRC-32), the
//! body laid out in FORMAT.md. Part of the census of periods (`super`).

use super::*;
use crate::grundy::checkpoint::Format;

/// The checkpoint's format (`C3GLAG` and two digits). Version 3 is version 2
/// but for the leading sweep's used sets of proved lines, stale since that
/// sweep copies their values (`lead_copying`): a build that computed them
/// must not continue it, while this one reads either. Version 4 adds the
/// trailing sweep's periods (filling and copied, `copies.rs`), whose used
/// sets are stale in the same way. Version 5 is version 4 written by a
/// build that keeps whole periods in half the room (a byte a value), so
/// that it may hold more periods than a build of version 4 has room for;
/// this one reads version 4 as version 5 (its periods fit). Version 6 is
/// version 5 and the kept lines' last `L` values (`rings.rs`), written by a
/// census that keeps some; one of version 5 or before keeps none, and
/// continues so.
pub(crate) const VERSION: u32 = 6;

const FORMAT: Format = Format {
    letters: b"C3GLAG",
    version: VERSION,
    oldest: 2,
    what: "grundy-periods",
};

/// Writes `run` to `path` whole (beside it, then renamed), with a CRC: in
/// format 6 if it keeps lines, else in format 3 while the trailing sweep
/// copies nothing and fills no period (the bytes a build of format 3
/// writes), else in format 5.
pub fn save(run: &Run, path: &std::path::Path) -> io::Result<()> {
    let format = Format {
        version: run.format(),
        ..FORMAT
    };
    format.save(path, |w| run.save(w))
}

/// Reads a checkpoint written by [`save`] (or by a build of version 2).
pub fn load(path: &std::path::Path) -> Result<Run, CheckpointError> {
    FORMAT.load(path, |r, bytes, version| Run::load(r, bytes, version))
}

impl Run {
    /// The format of its checkpoint: 6 (`VERSION`) if it keeps lines, else
    /// 3 while the trailing sweep copies no line and fills no period, else 5.
    pub fn format(&self) -> u32 {
        let filling = self
            .trail
            .probes
            .iter()
            .any(|p| matches!(p, Probe::Fill(_)));
        if self.trail.copies.rings().any() {
            VERSION
        } else if self.trail.copies.none() && !filling {
            3
        } else {
            5
        }
    }

    /// Writes the census's state (between chunks), in its [`Run::format`].
    pub fn save(&self, w: &mut dyn Write) -> io::Result<()> {
        put32(w, self.q_max)?;
        put32(w, self.lag)?;
        self.trail.lines.save(w)?;
        self.lead.lines.save(w)?;
        self.lead.lags.save(w, self.lead.lines.p())?;
        put32s(w, self.last_diff.iter().copied())?;
        put32s(w, self.proved.iter().copied())?;
        put32s(w, self.period.iter().copied())?;
        put32s(w, self.next_dep.iter().copied())?;
        for (probe, full) in self.trail.probes.iter().zip(&self.full) {
            put32(w, crate::base::bytes::len32(full.len())?)?;
            put32s(w, full.iter().map(|&(e, ok)| e << 1 | ok as u32))?;
            match probe {
                Probe::Idle => put32(w, 0)?,
                Probe::Look(look) => {
                    put32(w, 1)?;
                    look.save(w)?;
                }
                Probe::Fill(period) => {
                    put32(w, 2)?;
                    period.save(w)?;
                }
            }
        }
        match self.format() {
            3 => Ok(()),
            5 => self.trail.copies.save(w),
            _ => {
                self.trail.copies.save(w)?;
                self.trail.copies.rings().save(w)
            }
        }
    }

    /// Reads a census written by [`Run::save`] of format `version` from a
    /// file of `bytes` bytes: its sweeps hold at least 16 bytes a line, so a
    /// count of lines the file cannot hold is refused before anything is
    /// allocated for them.
    pub fn load(r: &mut dyn Read, bytes: u64, version: u32) -> io::Result<Run> {
        let q_max = get32(r)?;
        let lag = get32(r)?;
        if q_max > 1000 {
            return Err(damaged("more than 1000 rows"));
        }
        if 16 * super::line(q_max, q_max) as u64 > bytes {
            return Err(damaged("more lines than the file can hold"));
        }
        let trail = Live::load(r, q_max)?;
        let lead = Live::load(r, q_max)?;
        let mut run = Run::new(q_max, lag, trail.bias()).map_err(|e| damaged(&e.to_string()))?;
        let first: Vec<u32> = run.order.iter().map(|&(q, _)| q.max(1)).collect();
        run.lead.lags.load(r, lead.p(), &first)?;
        let n = run.order.len();
        let table = |r: &mut dyn Read| (0..n).map(|_| get32(r)).collect::<io::Result<Vec<_>>>();
        run.last_diff = table(r)?;
        run.proved = table(r)?;
        run.period = table(r)?;
        run.next_dep = table(r)?;
        let mut filling = 0;
        for at in 0..n {
            let k = get32(r)? as usize;
            if k > 64 {
                return Err(damaged("more than 64 full tests"));
            }
            run.full[at] = (0..k)
                .map(|_| get32(r).map(|v| (v >> 1, v & 1 == 1)))
                .collect::<io::Result<_>>()?;
            run.trail.probes[at] = match get32(r)? {
                0 => Probe::Idle,
                1 => Probe::Look(Box::new(Look::load(r, lag)?)),
                2 if version >= 4 => {
                    let period = Period::load(r, lag)?;
                    filling += u64::from(period.len());
                    Probe::Fill(Box::new(period))
                }
                _ => return Err(damaged("an unknown probe")),
            };
        }
        run.trail.copies = match version {
            ..=3 => Copies::new(n),
            4 | 5 => Copies::load(r, n, lag, filling)?,
            _ => {
                let copies = Copies::load(r, n, lag, filling)?;
                copies.with_rings(Rings::load(r, q_max, lag, n)?)?
            }
        };
        // The leading sweep is `L` ahead once the trailing one has started,
        // until every line is proved (then only the trailing sweep goes on).
        let (t, l) = (u64::from(trail.p()), u64::from(lead.p()));
        let apart = match t {
            0 => l <= u64::from(lag),
            _ if run.proved.iter().all(|&c| c != NONE) => l <= t + u64::from(lag),
            _ => l == t + u64::from(lag),
        };
        if !apart {
            return Err(damaged("the two sweeps not L apart"));
        }
        run.trail.lines = trail;
        run.lead.lines = lead;
        Ok(run)
    }
}

/// A 16-bit signed value stored in 32 bits; a stored value past 16 bits
/// means a damaged file.
pub(super) fn get16(r: &mut dyn Read) -> io::Result<i16> {
    u16::try_from(get32(r)?)
        .map(u16::cast_signed)
        .map_err(|_| crate::base::bytes::damaged("a 16-bit value past 16 bits"))
}
