//! Command lines written back for the shell: this process's own command
//! line, recorded in the first line of the files it writes, each argument
//! quoted as the library quotes it (`chomp3::base::shell`).

pub use chomp3::base::shell::quote;

/// This process's command line after the program's name, each argument
/// quoted ([`quote`]), for the first line of a file it writes.
pub fn command_line() -> String {
    let quoted: Vec<String> = std::env::args_os().skip(1).map(|a| quote(&a)).collect();
    format!("chomp3 {}", quoted.join(" "))
}
