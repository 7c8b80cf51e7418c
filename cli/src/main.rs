//! The `chomp3` command line; everything is in [`cli`].

mod cli;

#[global_allocator]
static ALLOC: chomp3::base::huge::HugePages = chomp3::base::huge::HugePages;

fn main() -> std::process::ExitCode {
    cli::main()
}
