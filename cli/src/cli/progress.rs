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
    log_bar(template, LogLines::to_stderr())
}

/// A bar drawn as log lines: the template without the bar, after `chomp3: `,
/// its elapsed time to the second.
fn log_bar(template: &str, lines: LogLines) -> ProgressBar {
    // The bar itself means nothing in a log; the figures stay. `{elapsed}`
    // rounds ("2h" from 90 minutes on), too coarse for a long run's log.
    let words = template
        .replace("{bar:20}", "")
        .replace("{bar:40}", "")
        .replace("{spinner}", "")
        .replace("{elapsed}", "{elapsed_precise}");
    let style =
        ProgressStyle::with_template(&format!("chomp3: {}", words.trim())).expect("valid template");
    ProgressBar::with_draw_target(
        Some(0),
        ProgressDrawTarget::term_like_with_hz(Box::new(lines), 1),
    )
    .with_style(style)
}

/// A `TermLike` that writes the bar's line (to standard error) at most once
/// every `every` ([`LOG_EVERY`]), the first after one.
struct LogLines {
    state: Mutex<(String, Instant)>,
    every: Duration,
    write: Box<dyn Fn(&str) + Send + Sync>,
}

impl LogLines {
    fn to_stderr() -> LogLines {
        LogLines {
            state: Mutex::new((String::new(), Instant::now())),
            every: LOG_EVERY,
            write: Box::new(|line| note!("{line}")),
        }
    }
}

impl std::fmt::Debug for LogLines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogLines").finish_non_exhaustive()
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
        if last.elapsed() >= self.every && !line.trim().is_empty() {
            (self.write)(line.trim_end());
            *last = Instant::now();
        }
        line.clear();
        Ok(())
    }
}

/// Peak resident memory of this process (Linux `VmHWM`), in KiB.
pub use chomp3::base::memory::peak_rss_kib;

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A long run's log line gives its time to the second: after 1 h 30 min
    /// 32 s it reads `01:30:32`, not a rounded "2h".
    #[test]
    fn a_log_line_gives_the_elapsed_time_to_the_second() {
        let written = Arc::new(Mutex::new(Vec::<String>::new()));
        let into = written.clone();
        let lines = LogLines {
            state: Mutex::new((String::new(), Instant::now())),
            every: Duration::ZERO,
            write: Box::new(move |line| into.lock().unwrap().push(line.to_string())),
        };
        // grundy-periods' template
        let bar = log_bar("{spinner} p = {pos}, {msg}  {elapsed}", lines)
            .with_elapsed(Duration::from_secs(5432));
        bar.set_message("3 of 5 lines proved");
        bar.set_position(7);
        bar.abandon();
        // A line at every draw here (`every` is zero); the last is the bar's end.
        let written = written.lock().unwrap();
        assert_eq!(
            written.last().map(String::as_str),
            Some("chomp3: p = 7, 3 of 5 lines proved  01:30:32")
        );
    }
}
