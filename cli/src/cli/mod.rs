//! The `chomp3` command line: the command enum, dispatch, and how errors become
//! exit codes. Each command is one module with its arguments and one function.
//! Errors are one line on stderr, `chomp3: error: ...`; exit codes: 0 success,
//! 1 error, 2 bad usage, 130 interrupted by Ctrl-C (the work done is kept: a
//! table committed, a census checkpointed, a graph memo saved; the same command
//! continues).

/// `println!` that gives the error of standard output (a full disk, a closed
/// pipe) to the caller, who returns it, instead of panicking: the command then
/// ends with one line and a non-zero exit (a closed pipe ends it quietly).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*).map_err(|e| {
            std::io::Error::new(e.kind(), format!("standard output: {e}"))
        })?
    }};
}

/// Standard output, whose errors (a full disk, a closed pipe) name it: for
/// commands that write their answer through a writer rather than [`say!`].
fn stdout() -> StandardOutput {
    StandardOutput(std::io::stdout().lock())
}

/// See [`stdout`].
struct StandardOutput(std::io::StdoutLock<'static>);

impl StandardOutput {
    fn named(e: std::io::Error) -> std::io::Error {
        std::io::Error::new(e.kind(), format!("standard output: {e}"))
    }
}

impl std::io::Write for StandardOutput {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf).map_err(StandardOutput::named)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush().map_err(StandardOutput::named)
    }
}

mod advice;
mod analyze;
mod args;
mod bench;
mod census;
mod compute;
mod get;
mod graph;
mod grundy;
mod grundy_periods;
mod grundy_table;
mod info;
mod nim;
mod plot;
mod position;
mod progress;
mod run;
mod shell;
mod show;
mod transpose;
mod upgrade;
mod view;

use std::io;
use std::sync::OnceLock;

use chomp3::base::stop::Stop;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// A stop by Ctrl-C, with its message (exit code 130).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Interrupted(pub String);

/// Arguments that parse but do not make sense together, such as a triple that
/// is no position (exit code 2, as for any bad usage).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Usage(pub String);

#[derive(Parser)]
#[command(
    name = "chomp3",
    version,
    about = "Exact three-rowed Chomp: the table f(q,r) of P-positions"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Create the table, or extend it, up to N
    Compute(compute::Args),
    /// Print f(Q,R) (for R > Q, f(Q,Q)); beyond the table, from a certified census
    Get(get::Args),
    /// Print "q f(q,R)" per line for one row
    Row(show::RowArgs),
    /// Print "q r f" per line for every r <= q, q outer
    Dump(show::DumpArgs),
    /// Describe a table file and check it
    Info(info::Args),
    /// Read a table and write b-files, rows.tsv, summary.json and report.md
    Analyze(analyze::Args),
    /// Draw the figures of a table and its analysis
    Plot(plot::Args),
    /// Say whether [P,Q,R] is won or lost, and list every winning move
    Position(position::Args),
    /// Prove the fate of rows 0..=R without storing the table (certified census)
    Census(census::Args),
    /// The main job: compute data/table.c3t (N = 5000), analyse it into data/run/, plot into plots/run/
    Run(run::Args),
    /// Time fresh computations at several sizes, each in its own process
    Bench(bench::Args),
    /// Graph Chomp: the nim-value of each graph (families, graph6/sparse6, edge lists)
    Graph(graph::Args),
    /// The Sprague-Grundy value of [P,Q,R], and where it came from
    Nim(nim::Args),
    /// Prove the period of G(p,q,r) - p on every line (q,r), q <= Q (Grundy census)
    GrundyCensus(grundy::Args),
    /// Prove the start and period of every line (q,r), q <= Q, by two sweeps L apart (no patterns kept; resumable)
    GrundyPeriods(grundy_periods::Args),
    /// Store G(p,q,r) for every position with p <= N (resumable; Ctrl-C keeps what is done)
    GrundyTable(grundy_table::Args),
    /// Look at a table and a census in the browser (a server on 127.0.0.1)
    View(view::Args),
    /// Write a version 1 table again as a version 2 file (block checksums), checked
    Upgrade(upgrade::Args),
    /// Write a table again stored by rows, so that a row is read in one run
    Transpose(transpose::Args),
}

/// The process's stop token: Ctrl-C requests it, and every long command
/// passes it to the library.
pub fn ctrl_c() -> Stop {
    static CTRL_C: OnceLock<Stop> = OnceLock::new();
    CTRL_C.get_or_init(Stop::new).clone()
}

/// An interruption if Ctrl-C came after the work's last look at it, as its
/// results were written: they are whole (`what` says where), and the
/// command still ends as interrupted.
pub(crate) fn heard_at_the_end(what: &str) -> anyhow::Result<()> {
    match ctrl_c().requested() {
        true => Err(Interrupted(format!(
            "interrupted as the results were written; {what}: all that was asked, nothing is left to compute"
        ))
        .into()),
        false => Ok(()),
    }
}

/// Set while a command that ends at once on Ctrl-C writes its results
/// (see [`main`]): Ctrl-C then waits for the end of the writing.
static WRITING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Set for a command, or the part of one, that passes no stop token to the
/// library and so ends at once on Ctrl-C (see [`main`]).
static AT_ONCE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// From here on this command ends at once on Ctrl-C (but while it writes a
/// set of results, [`writing`]); a Ctrl-C heard before is said now.
pub fn ends_at_once_on_ctrl_c() -> anyhow::Result<()> {
    AT_ONCE.store(true, std::sync::atomic::Ordering::SeqCst);
    match ctrl_c().requested() {
        true => Err(Interrupted("interrupted".into()).into()),
        false => Ok(()),
    }
}

/// Runs `write` with Ctrl-C held off until it ends (see [`WRITING`]); a
/// Ctrl-C heard meanwhile by a command that ends at once ends it then.
pub fn writing<T>(write: impl FnOnce() -> T) -> T {
    use std::sync::atomic::Ordering;
    WRITING.store(true, Ordering::SeqCst);
    let done = write();
    WRITING.store(false, Ordering::SeqCst);
    if AT_ONCE.load(Ordering::SeqCst) && ctrl_c().requested() {
        end_interrupted();
    }
    done
}

/// Ends the process at once, as Ctrl-C does for a command that ends at
/// once: its lock files removed (the kernel lets the locks go), status 130.
fn end_interrupted() -> ! {
    chomp3::base::lock::remove_held();
    note!("chomp3: error: interrupted");
    std::process::exit(130);
}

/// Test hook behind the hidden `--hold` options (feature `test-hooks`):
/// blocks until Ctrl-C, so that a test can interrupt a long run at a point it
/// knows the run has reached.
pub fn hold_until_ctrl_c() {
    let stop = ctrl_c();
    while !stop.requested() {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Parses the command line, runs the command, and turns the result into an exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    // A reader that closes the pipe early (`| head`) ends the output quietly,
    // as it does for other Unix tools, instead of a panic in a `println!`.
    // Not for the server, which must outlive a closed connection.
    // SAFETY: called before any thread starts; SIG_DFL for SIGPIPE is a valid
    // disposition and nothing else in the process handles SIGPIPE.
    #[cfg(target_os = "linux")]
    if !matches!(cli.command, Cmd::View(_)) {
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    // A file grown past the shell's size limit (`ulimit -f`) is a write
    // error, said in one line like a full disk, instead of a signal that
    // ends the process without a word.
    // SAFETY: as above; SIG_IGN for SIGXFSZ is a valid disposition, and
    // nothing else in the process handles SIGXFSZ.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    // Under an MPI launcher, every process of the job must run the census:
    // another command ends at once, not zero, so that the launcher ends the
    // job rather than leave its census ranks waiting for this one.
    if !matches!(cli.command, Cmd::Census(_)) && census::ranks::one_of_several() {
        note!(
            "chomp3: error: started by an MPI launcher as one of several processes; only `chomp3 census` runs so: run this command alone"
        );
        return ExitCode::from(2);
    }
    let stop = ctrl_c();
    // The commands that pass no stop token to the library (they read, or
    // make their results in memory and write them as a set at the end) end
    // at once on Ctrl-C, as at a kill, which leaves every file whole or as
    // it was; but not while `analyze` writes its set.
    let at_once = matches!(
        cli.command,
        Cmd::Get(_) | Cmd::Row(_) | Cmd::Dump(_) | Cmd::Info(_) | Cmd::Analyze(_) | Cmd::Plot(_)
    );
    AT_ONCE.store(at_once, std::sync::atomic::Ordering::SeqCst);
    let _ = ctrlc::set_handler(move || {
        use std::sync::atomic::Ordering::SeqCst;
        // Requested first, so that a writing that holds Ctrl-C off sees it
        // at its end.
        stop.request();
        if AT_ONCE.load(SeqCst) && !WRITING.load(SeqCst) {
            end_interrupted();
        }
    });
    let result = match cli.command {
        Cmd::Compute(a) => compute::run(&a),
        Cmd::Get(a) => get::run(&a),
        Cmd::Row(a) => show::row(&a),
        Cmd::Dump(a) => show::dump(&a),
        Cmd::Info(a) => info::run(&a),
        Cmd::Analyze(a) => analyze::run(&a),
        Cmd::Plot(a) => plot::run(&a),
        Cmd::Position(a) => position::run(&a),
        Cmd::Nim(a) => nim::run(&a),
        Cmd::GrundyCensus(a) => grundy::run(&a),
        Cmd::GrundyTable(a) => grundy_table::run(&a),
        Cmd::GrundyPeriods(a) => grundy_periods::run(&a),
        Cmd::Census(a) => census::run(&a),
        Cmd::Run(a) => run::run(&a),
        Cmd::Bench(a) => bench::run(&a),
        Cmd::Graph(a) => graph::run(&a),
        Cmd::View(a) => view::run(&a),
        Cmd::Upgrade(a) => upgrade::run(&a),
        Cmd::Transpose(a) => transpose::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => ExitCode::from(said(&e)),
    }
}

/// Says `e` on standard error as one line (nothing for a closed pipe on
/// standard output) and returns the exit status it calls for.
pub fn said(e: &anyhow::Error) -> u8 {
    if is_broken_pipe(e) {
        return 0;
    }
    note!("chomp3: error: {}", one_line_of(&worded(e)));
    if e.downcast_ref::<Interrupted>().is_some() {
        130
    } else if e.downcast_ref::<Usage>().is_some() {
        2
    } else {
        1
    }
}

/// An error as the shell says it: its causes, then the advice for them.
pub fn worded(e: &anyhow::Error) -> String {
    match advice::advice(e) {
        Some(advice) => format!("{e:#}; {advice}"),
        None => format!("{e:#}"),
    }
}

/// Help and the version as clap prints them; an argument error as one line
/// `chomp3: error: ...` with the usage it breaks, exit 2.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        if e.use_stderr() {
            let _ = e.print();
            return ExitCode::from(2);
        }
        // Help and version on standard output: one that cannot take them (a
        // full device) is an error like any command's output.
        use std::io::Write as _;
        return match e.print().and_then(|()| std::io::stdout().flush()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                note!("chomp3: error: standard output: {err}");
                ExitCode::from(1)
            }
        };
    }
    note!("chomp3: error: {}", one_line(&e.render().to_string()));
    ExitCode::from(2)
}

/// clap's message of several lines (what is wrong, the values, a tip, the
/// usage) as one: its lines joined, the usage last.
fn one_line(text: &str) -> String {
    let mut parts = Vec::new();
    let mut usage = None;
    for line in text.lines().map(str::trim) {
        if let Some(u) = line.strip_prefix("Usage: ") {
            usage = Some(u.to_string());
        } else if line.is_empty() || line.starts_with("For more information") {
            continue;
        } else if usage.is_none() {
            parts.push(match line.strip_prefix("tip: ") {
                Some(tip) => format!("({tip})"),
                None => line.strip_prefix("error: ").unwrap_or(line).to_string(),
            });
        }
    }
    let mut said = parts.join(" ");
    if let Some(u) = usage {
        said.push_str(&format!("; usage: {u}"));
    }
    said
}

/// A path as a message shows it: its control characters escaped as in an
/// error ([`one_line_of`]), so that a line that names it stays one line.
pub trait Shown {
    /// The path, displayed and escaped.
    fn shown(&self) -> String;
}

impl Shown for std::path::Path {
    fn shown(&self) -> String {
        one_line_of(&self.display().to_string())
    }
}

/// `text` on one line: a control character (a newline or an escape in a
/// path the user gave) written as its escape, so that the error stays one
/// line and sends nothing to the terminal (the library's rule, which Python
/// follows for the same lines).
pub(crate) fn one_line_of(text: &str) -> String {
    chomp3::base::shell::one_line(text)
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<io::Error>()
        .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
}
