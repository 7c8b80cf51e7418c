//! Progress bars and the process's own measurements.

use std::io::{self, IsTerminal};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

/// How often a run whose standard error is not a terminal (a log file, a
/// pipe) says how far it is.
const LOG_EVERY: Duration = Duration::from_secs(60);

/// A progress bar on a terminal; off a terminal, a line on standard error
/// every minute from the first minute on (a log of a long run, with nothing
/// for a short one); nothing when `quiet`.
pub fn bar(quiet: bool, template: &str) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    if io::stderr().is_terminal() {
        return ProgressBar::new(0)
            .with_style(ProgressStyle::with_template(template).expect("valid template"));
    }
    // The bar itself means nothing in a log; the figures stay.
    let words = template
        .replace("{bar:20}", "")
        .replace("{bar:40}", "")
        .replace("{spinner}", "");
    let style =
        ProgressStyle::with_template(&format!("chomp3: {}", words.trim())).expect("valid template");
    ProgressBar::with_draw_target(
        Some(0),
        ProgressDrawTarget::term_like_with_hz(Box::new(LogLines::default()), 1),
    )
    .with_style(style)
}

/// A `TermLike` that writes the bar's line to standard error at most once
/// every [`LOG_EVERY`], the first after one.
#[derive(Debug)]
struct LogLines {
    state: Mutex<(String, Instant)>,
}

impl Default for LogLines {
    fn default() -> LogLines {
        LogLines {
            state: Mutex::new((String::new(), Instant::now())),
        }
    }
}

impl TermLike for LogLines {
    fn width(&self) -> u16 {
        200
    }
    fn move_cursor_up(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> io::Result<()> {
        self.write_str(s)
    }
    fn write_str(&self, s: &str) -> io::Result<()> {
        self.state.lock().unwrap().0.push_str(s);
        Ok(())
    }
    fn clear_line(&self) -> io::Result<()> {
        self.state.lock().unwrap().0.clear();
        Ok(())
    }
    fn flush(&self) -> io::Result<()> {
        let mut state = self.state.lock().unwrap();
        let (line, last) = &mut *state;
        if last.elapsed() >= LOG_EVERY && !line.trim().is_empty() {
            eprintln!("{}", line.trim_end());
            *last = Instant::now();
        }
        line.clear();
        Ok(())
    }
}

/// Peak resident memory of this process (Linux `VmHWM`), in KiB.
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
