//! Progress bars and the process's own measurements.

use std::io::{self, IsTerminal};

use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar on a terminal, hidden otherwise or when `quiet`.
pub fn bar(quiet: bool, template: &str) -> ProgressBar {
    if quiet || !io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
            .with_style(ProgressStyle::with_template(template).expect("valid template"))
    }
}

/// Peak resident memory of this process (Linux `VmHWM`), in KiB.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
