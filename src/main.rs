//! The `chomp3` command line; everything is in [`cli`].

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
