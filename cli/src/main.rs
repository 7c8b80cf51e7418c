//! The `chomp3` command line; everything is in [`cli`].

mod cli;

#[global_allocator]
static ALLOC: chomp3::huge::HugePages = chomp3::huge::HugePages;

fn main() -> std::process::ExitCode {
    cli::main()
}
