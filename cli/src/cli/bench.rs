//! `chomp3 bench`: fresh computations at several sizes, each in its own process,
//! with time and peak memory.

use std::path::PathBuf;
use std::process::Command;

use super::Shown;
use anyhow::{Result, bail};

use super::args::ThreadsArg;

#[derive(clap::Args)]
pub struct Args {
    /// Sizes to compute
    #[arg(long, value_delimiter = ',', default_value = "10000,30000,100000")]
    sizes: Vec<u64>,
    #[command(flatten)]
    threads: ThreadsArg,
    /// Directory for the temporary tables (deleted afterwards)
    #[arg(long, value_name = "DIR", default_value = "data")]
    dir: PathBuf,
}

pub fn run(args: &Args) -> Result<()> {
    let exe = std::env::current_exe()?;
    if args.dir.exists() && !args.dir.is_dir() {
        bail!("--dir {}: not a directory; give one", args.dir.shown());
    }
    if !args.dir.is_dir() {
        bail!(
            "--dir {}: no such directory; create it first",
            args.dir.shown()
        );
    }
    // The tables (and their locks) of a bench that was killed: its
    // computations ended with it.
    chomp3::base::atomic_write::remove_left_by_the_dead(&args.dir, bench_pid);
    say!(
        "{:>8} {:>14} {:>9} {:>14} {:>12} {:>15}",
        "N",
        "cells",
        "seconds",
        "cells/s",
        "peak RSS MiB",
        "file bytes"
    );
    for &n in &args.sizes {
        let path = args
            .dir
            .join(format!(".bench-{n}-{}.c3t", std::process::id()));
        let mut compute = Command::new(&exe);
        compute
            .args(["compute", "--quiet", "--stats", "--n", &n.to_string()])
            .args(["--threads", &args.threads.get()?.to_string(), "--table"])
            .arg(&path);
        ends_with_this_process(&mut compute);
        let output = run_passing_ctrl_c(&mut compute);
        let _ = std::fs::remove_file(&path);
        let output = output?;
        // Ctrl-C reached the computation too (or, passed on before it could
        // hear it, ended it as the signal does by default); what it says of
        // its table is not so here, where the table was temporary.
        let by_ctrl_c = {
            use std::os::unix::process::ExitStatusExt;
            output.status.code() == Some(130)
                || output.status.signal() == Some(libc::SIGINT)
                || (super::ctrl_c().requested() && !output.status.success())
        };
        if by_ctrl_c {
            return Err(super::Interrupted(format!(
                "bench interrupted at N = {n}; its temporary table {} was removed",
                path.shown()
            ))
            .into());
        }
        if !output.status.success() {
            let said = String::from_utf8_lossy(&output.stderr);
            let said = said.trim();
            bail!(
                "bench N = {n}: {}",
                said.strip_prefix("chomp3: error: ").unwrap_or(said)
            );
        }
        let line = String::from_utf8_lossy(&output.stdout);
        let field = |k: &str| -> String {
            line.split_whitespace()
                .find_map(|kv| kv.strip_prefix(k).and_then(|v| v.strip_prefix('=')))
                .unwrap_or("?")
                .to_string()
        };
        let rss_mib = field("peak_rss_kib").parse::<f64>().unwrap_or(0.0) / 1024.0;
        say!(
            "{n:>8} {:>14} {:>9} {:>14} {rss_mib:>12.0} {:>15}",
            field("cells"),
            field("seconds"),
            field("cells_per_sec"),
            field("file_bytes")
        );
    }
    Ok(())
}

/// Runs `command` to its end with its output captured; Ctrl-C heard by this
/// process alone (a SIGINT sent to its pid, not to the terminal's group) is
/// passed on to it, so that it stops as a computation stopped by Ctrl-C.
fn run_passing_ctrl_c(command: &mut Command) -> std::io::Result<std::process::Output> {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    // Read on their own threads, so that no output fills a pipe while this
    // thread waits.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let stop = super::ctrl_c();
    let mut passed = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if stop.requested() && !passed {
            // Not reaped yet (`try_wait` said so), so the pid is still the
            // child's.
            // SAFETY: kill with a valid signal has no memory effects.
            unsafe {
                libc::kill(child.id() as libc::pid_t, libc::SIGINT);
            }
            passed = true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let joined = |h: std::thread::JoinHandle<Vec<u8>>| h.join().unwrap_or_default();
    Ok(std::process::Output {
        status,
        stdout: joined(stdout),
        stderr: joined(stderr),
    })
}

/// The process id in the name of a bench's table or its lock
/// (`.bench-N-PID.c3t`, `..bench-N-PID.c3t.lock`).
fn bench_pid(file: &str) -> Option<u32> {
    let rest = file.strip_prefix('.')?;
    let rest = rest
        .strip_prefix('.')
        .unwrap_or(rest)
        .strip_prefix("bench-")?;
    let rest = rest
        .strip_suffix(".lock")
        .unwrap_or(rest)
        .strip_suffix(".c3t")?;
    let (n, pid) = rest.split_once('-')?;
    n.parse::<u64>().ok()?;
    pid.parse().ok()
}

/// The computation is killed when this process ends, however it ends, so
/// that no table goes on growing with no one to remove it (a later bench
/// removes what is left).
fn ends_with_this_process(command: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure runs in the child between fork and exec and
        // calls only prctl and getppid, both async-signal-safe.
        unsafe {
            let parent = libc::getpid();
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent may have died before the call: then end now.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}
