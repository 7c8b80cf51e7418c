//! How much memory this machine has, and the refusal of a job whose memory
//! estimate is beyond it, before the job allocates anything (instead of an
//! abort after it has); and how much this process has used at most.
//! Plumbing: uses nothing else in the crate (`libc` for the process's
//! limit).

use std::fmt;

/// The peak resident memory of this process so far in KiB (`VmHWM` of
/// `/proc/self/status`), where it can be read.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The machine's physical memory in bytes (`MemTotal` of `/proc/meminfo`),
/// where it can be read.
pub(crate) fn physical() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// The address space this process may take (`RLIMIT_AS`, as `ulimit -v`
/// sets it), where a limit is set. Allocates nothing (an allocator that
/// failed may call it).
pub fn process_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given and nothing else.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } == 0;
    (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur)
}

/// The address space this process maps now (`VmSize`), where it can be read.
pub fn mapped() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmSize:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// A job that would need more memory than the machine has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooMuch {
    /// What the job is, for the message.
    pub what: String,
    /// Its estimate, in bytes (`u64::MAX`: past counting).
    pub needs: u64,
    /// The machine's memory, or the process's limit where that is less, in
    /// bytes.
    pub has: u64,
    /// Under the process's limit (`ulimit -v`), the address space the job
    /// was held to need: four times its estimate beside what the process
    /// maps already (see [`check`]).
    pub room: Option<Room>,
}

/// What a job was held to need under the process's limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Room {
    /// Address space, in bytes (saturated).
    pub needs: u64,
    /// What the process mapped already, in bytes.
    pub mapped: u64,
}

/// `b` bytes in GiB to one place, or in MiB below a GiB (where a tenth of a
/// GiB would hide the difference between need and room).
fn size(b: u64) -> String {
    if b < 1 << 30 {
        format!("{:.0} MiB", b as f64 / f64::from(1 << 20))
    } else {
        format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64)
    }
}

impl fmt::Display for TooMuch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let needs = match self.needs {
            u64::MAX => "more than 16 EiB of memory (2^64 bytes)".to_string(),
            n => format!("about {} of memory", size(n)),
        };
        match self.room {
            None => write!(
                f,
                "{} needs {needs} and this machine has {}; nothing was computed",
                self.what,
                size(self.has)
            ),
            Some(room) => write!(
                f,
                "{} needs {needs}, so {} of address space (four times that, with the {} mapped already and 64 MiB to spare), and this process may map (ulimit -v) {}; nothing was computed",
                self.what,
                match room.needs {
                    u64::MAX => "more than 16 EiB".to_string(),
                    n => size(n),
                },
                size(room.mapped),
                size(self.has)
            ),
        }
    }
}

impl std::error::Error for TooMuch {}

/// Refuses work of `needs` bytes shared by several processes of this
/// machine (each checked alone with [`check`]) that the machine's memory
/// cannot hold; allows it where that cannot be read.
pub fn check_machine(what: impl Into<String>, needs: u64) -> Result<(), TooMuch> {
    match physical() {
        Some(has) if needs > has => Err(TooMuch {
            what: what.into(),
            needs,
            has,
            room: None,
        }),
        _ => Ok(()),
    }
}

/// Refuses a job of `needs` bytes (saturated: `u64::MAX` for a size past
/// counting) that this machine cannot hold; allows it where the machine's
/// memory cannot be read.
pub fn check(what: impl Into<String>, needs: u64) -> Result<(), TooMuch> {
    let (has, limited) = match (physical(), process_limit()) {
        (Some(m), Some(l)) if l < m => (Some(l), true),
        (None, Some(l)) => (Some(l), true),
        (m, _) => (m, false),
    };
    // A process limit counts address space, not memory touched: what the
    // process maps already, and the estimates' part left out (they are
    // lower bounds, a quarter of the sweep's own at Q = 5000), and threads'
    // stacks and heaps. Past it an allocation fails and the process ends, so
    // the estimate is held at four times, on top of what is mapped, and 64
    // MiB. (So a job may be refused under a limit that it would have kept
    // within: the message says which figure was held against the limit.)
    let room = limited.then(|| {
        let mapped = mapped().unwrap_or(0);
        Room {
            needs: mapped
                .saturating_add(needs.saturating_mul(4))
                .saturating_add(64 << 20),
            mapped,
        }
    });
    let held = room.map_or(needs, |r| r.needs);
    match has {
        Some(has) if held > has => Err(TooMuch {
            what: what.into(),
            needs,
            has,
            room,
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_beyond_the_machine_is_refused_and_one_within_it_is_not() {
        let has = physical().expect("Linux has /proc/meminfo");
        assert!(check("a small job", 1 << 20).is_ok());
        let e = check("a huge job", has + 1).unwrap_err();
        assert_eq!(e.has, has);
        assert!(e.to_string().starts_with("a huge job needs about"), "{e}");
        // A saturated estimate is not printed as a figure.
        let e = check("a job past counting", u64::MAX).unwrap_err();
        assert!(e.to_string().contains("needs more than 16 EiB"), "{e}");
    }
}
