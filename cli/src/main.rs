//! The `chomp3` command line; everything is in [`cli`].

mod cli;
#[cfg(target_os = "linux")]
mod oom;

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOC: oom::ExitOnFailure = oom::ExitOnFailure;
#[cfg(not(target_os = "linux"))]
#[global_allocator]
static ALLOC: chomp3::base::huge::HugePages = chomp3::base::huge::HugePages;

fn main() -> std::process::ExitCode {
    #[cfg(target_os = "linux")]
    oom::share_heaps_under_limit();
    cli::main()
}
