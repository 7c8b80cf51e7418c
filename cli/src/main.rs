//! The `chomp3` command line; everything is in [`cli`].

/// A line on standard error, as `eprintln!`, but a standard error that
/// cannot be written (closed, or a full device) is passed over rather than
/// a panic: the answer on standard output and the exit status stand.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
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
