//! The `chomp3` command line; everything is in [`cli`].

/// A line on standard error, as `eprintln!`, but a standard error that
/// cannot be written (closed, or a full device) is passed over rather than
/// a panic: the answer on standard output and the exit status stand.
/// A line on standard error, written in one `write(2)` (standard error is
/// unbuffered: a line formatted in pieces would reach a log that several
/// processes share, the ranks of an MPI job, spliced with theirs).
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        // One line, whatever a path in it holds (a newline, an escape).
        let line = format!("{}\n", $crate::cli::one_line_of(&format!($($arg)*)));
        let _ = std::io::stderr().write_all(line.as_bytes());
    }};
}

mod cli;
#[cfg(target_os = "linux")]
mod oom;
#[cfg(unix)]
mod sigbus;

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOC: oom::ExitOnFailure = oom::ExitOnFailure;
#[cfg(not(target_os = "linux"))]
#[global_allocator]
static ALLOC: chomp3::base::huge::HugePages = chomp3::base::huge::HugePages;

fn main() -> std::process::ExitCode {
    #[cfg(target_os = "linux")]
    oom::share_heaps_under_limit();
    #[cfg(unix)]
    sigbus::say_when_cut();
    cli::main()
}
