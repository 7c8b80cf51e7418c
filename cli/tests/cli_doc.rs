//! doc/cli.md against the binary's own help. For every subcommand that
//! `chomp3 --help` lists (but `help`):
//!
//! * doc/cli.md has one section headed exactly `## chomp3 <name>`, and the
//!   sections come in the order `chomp3 --help` lists the subcommands (a
//!   section runs to the next `## ` heading; `###` headings stay inside it);
//! * every long option `chomp3 <name> --help` lists (but `--help`) is named in
//!   that section as an option of `<name>`, by the rule below;
//! * every option the section names is one its command accepts (or a global
//!   one, `--help` or `--version`).
//!
//! Which command an option belongs to. The document is read as command
//! lines: each inline code span and each line of a fenced code block, cut at
//! `|`, `;` and `&&`, with everything from ` #` on left out (a shell
//! comment). An option is a word beginning `--` and a letter (after any `[`
//! or `(`), read while letters, digits and `-` follow. A piece belongs to
//!
//! 1. `<other>`, when a word `chomp3` (or a path ending in `/chomp3`) is
//!    followed by the subcommand `<other>`: the options after that word are
//!    `<other>`'s, those before it another program's (`mpirun`'s), not read;
//! 2. `chomp3` itself (only `--help` and `--version`), when that word is
//!    followed by no subcommand;
//! 3. `<other>`, when the piece's first word is the subcommand `<other>`
//!    (`census --out`);
//! 4. the section's command, when the piece's first word is an option
//!    (`--table PATH`);
//! 5. no command otherwise: another program's command line (`cargo build
//!    --features mpi`), whose options are not read.
//!
//! So an option of another command is written as part of that command's
//! line (`chomp3 graph --summary`, or `graph --summary`), and a bare `--name`
//! is always the section's own. Outside the commands' sections, pieces of
//! rules 1 to 3 are checked the same way.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The binary's help for `args`, as text.
fn help(args: &[&str]) -> String {
    let out = common::chomp3(args);
    assert!(
        out.status.success(),
        "chomp3 {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The subcommands `chomp3 --help` lists, in its order (but `help`).
fn subcommands() -> Vec<String> {
    let text = help(&["--help"]);
    let list = text
        .split("Commands:\n")
        .nth(1)
        .expect("chomp3 --help lists its commands");
    list.lines()
        .take_while(|l| !l.trim().is_empty())
        // A command's line is indented two spaces; its wrapped description more.
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .filter(|name| name != "help")
        .collect()
}

/// The long options a help text lists: on a line of its own (indented at
/// most six spaces, so not a description's wrapped line) beginning with `-`.
fn long_options(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|l| {
            let indent = l.len() - l.trim_start().len();
            indent <= 6 && l.trim_start().starts_with('-')
        })
        .filter_map(|l| {
            l.split_whitespace()
                .map(|w| w.trim_end_matches(','))
                .find_map(option_name)
        })
        .collect()
}

/// `--name` of a word (`--name`, `[--name`, `(--name)`, `--name=value`).
fn option_name(word: &str) -> Option<String> {
    let rest = word.trim_start_matches(['[', '(']).strip_prefix("--")?;
    if !rest.starts_with(|c: char| c.is_ascii_lowercase()) {
        return None;
    }
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    Some(format!("--{name}"))
}

/// Who an option of a piece belongs to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Owner {
    Command(String),
    Global,
}

/// The options a command line names, each with its owner (rules 1 to 5 of
/// the module comment); `section` is the command whose section it is in.
fn owned_options(line: &str, section: Option<&str>, commands: &[String]) -> Vec<(Owner, String)> {
    let mut found = Vec::new();
    let is_command = |w: &str| commands.iter().any(|c| c == w);
    for piece in line.split(['|', ';']).flat_map(|p| p.split("&&")) {
        let piece = piece.split(" #").next().unwrap();
        let words: Vec<&str> = piece.split_whitespace().collect();
        let binary = words
            .iter()
            .position(|w| *w == "chomp3" || w.ends_with("/chomp3"));
        let (owner, from) = match binary {
            Some(i) => match words.get(i + 1) {
                Some(w) if is_command(w) => (Owner::Command(w.to_string()), i + 2),
                _ => (Owner::Global, i + 1),
            },
            None => match words.first() {
                Some(w) if is_command(w) => (Owner::Command(w.to_string()), 1),
                Some(w) if option_name(w).is_some() => match section {
                    Some(s) => (Owner::Command(s.to_string()), 0),
                    None => continue,
                },
                _ => continue,
            },
        };
        for w in &words[from..] {
            if let Some(name) = option_name(w) {
                found.push((owner.clone(), name));
            }
        }
    }
    found
}

/// The command lines of a stretch of Markdown: each line of a fenced block,
/// and each inline code span (which may run over a line break).
fn command_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut prose = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            lines.push(line.to_string());
        } else {
            prose.push_str(line);
            prose.push(' ');
        }
    }
    lines.extend(prose.split('`').skip(1).step_by(2).map(str::to_string));
    lines
}

#[test]
fn doc_cli_has_every_subcommand_and_option_and_no_other() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let doc = std::fs::read_to_string(root.join("doc/cli.md")).unwrap();
    let commands = subcommands();
    assert!(
        commands.len() >= 15,
        "too few subcommands read: {commands:?}"
    );
    let mut accepts: BTreeMap<Owner, BTreeSet<String>> = BTreeMap::new();
    for c in &commands {
        let options = long_options(&help(&[c, "--help"]));
        assert!(
            options.contains("--help"),
            "{c}: no --help read: {options:?}"
        );
        accepts.insert(Owner::Command(c.clone()), options);
    }
    let global = long_options(&help(&["--help"]));
    assert!(global.contains("--version"), "global options: {global:?}");
    accepts.insert(Owner::Global, global.clone());

    // The document cut at its `## ` headings: (heading, text).
    let mut sections: Vec<(String, String)> = vec![(String::new(), String::new())];
    for line in doc.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            sections.push((heading.to_string(), String::new()));
        } else {
            let text = &mut sections.last_mut().unwrap().1;
            text.push_str(line);
            text.push('\n');
        }
    }
    let mut wrong = Vec::new();
    let headed: Vec<&str> = sections
        .iter()
        .filter_map(|(h, _)| h.strip_prefix("chomp3 "))
        .collect();
    for h in &headed {
        if !commands.iter().any(|c| c == h) {
            wrong.push(format!("## chomp3 {h}: no such subcommand"));
        }
    }
    let listed: Vec<&str> = commands.iter().map(String::as_str).collect();
    if headed != listed {
        wrong.push(format!(
            "the sections are {headed:?}; chomp3 --help lists {listed:?}"
        ));
    }

    let mut read = 0;
    for (heading, text) in &sections {
        // A section of a command the binary lacks is reported above and read
        // as one of no command.
        let section = heading
            .strip_prefix("chomp3 ")
            .filter(|s| commands.iter().any(|c| c == s));
        let mut named: BTreeSet<String> = BTreeSet::new();
        for line in command_lines(text) {
            for (owner, option) in owned_options(&line, section, &commands) {
                read += 1;
                let ok = accepts[&owner].contains(&option) || global.contains(&option);
                if !ok {
                    wrong.push(format!(
                        "## {heading}: `{option}` in `{}` is not an option of {owner:?}",
                        line.trim()
                    ));
                }
                if section.is_some_and(|s| owner == Owner::Command(s.to_string())) {
                    named.insert(option);
                }
            }
        }
        if let Some(s) = section {
            for option in &accepts[&Owner::Command(s.to_string())] {
                if option != "--help" && !named.contains(option) {
                    wrong.push(format!(
                        "## chomp3 {s}: `{option}` (in `chomp3 {s} --help`) is not named"
                    ));
                }
            }
        }
    }
    assert!(read > 100, "too few options read in doc/cli.md: {read}");
    assert!(wrong.is_empty(), "doc/cli.md:\n{}", wrong.join("\n"));
}

#[test]
fn the_rule_reads_options_as_the_module_comment_says() {
    let commands: Vec<String> = ["census", "graph", "get"].map(String::from).to_vec();
    let census = Owner::Command("census".into());
    let graph = Owner::Command("graph".into());
    let get = Owner::Command("get".into());
    let read = |line: &str| owned_options(line, Some("census"), &commands);
    assert_eq!(
        read("mpirun --bind-to none -n 4 target/release/chomp3 census --rows 5 --out c.tsv"),
        vec![
            (census.clone(), "--rows".into()),
            (census.clone(), "--out".into())
        ]
    );
    assert_eq!(
        read("nauty-geng 8 | chomp3 graph - --tsv   # a comment --quiet"),
        vec![(graph.clone(), "--tsv".into())]
    );
    assert_eq!(
        read("[--table PATH]"),
        vec![(census.clone(), "--table".into())]
    );
    assert_eq!(
        read("get Q R --explain"),
        vec![(get.clone(), "--explain".into())]
    );
    assert_eq!(read("cargo build --release --features mpi"), vec![]);
    assert_eq!(
        read("chomp3 --version"),
        vec![(Owner::Global, "--version".into())]
    );
    assert_eq!(read("cargo run --release -- run"), vec![]);
    assert_eq!(owned_options("--table", None, &commands), vec![]);
}

#[test]
fn an_argument_error_is_one_line_and_help_is_clap_s_own() {
    for args in [
        &["get", "5"][..],
        &["get", "5", "3", "--bogus"],
        &["census", "--rows", "5"],
        &["nim", "1", "2", "x"],
        &["no-such-command"],
    ] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_chomp3"))
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(err.starts_with("chomp3: error: "), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
    // What is missing is named, with the usage it breaks.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args(["census", "--rows", "5"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--out <PATH>") && err.contains("usage: chomp3 census"),
        "{err}"
    );
    // Help still goes to standard output, whole, exit 0.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_chomp3"))
        .args(["get", "--help"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Usage: chomp3 get"));
}

#[test]
fn an_error_naming_a_path_with_a_newline_or_an_escape_stays_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["no\nfile.c3t", "esc\u{1b}[31m.c3t"] {
        let path = dir.path().join(name);
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_chomp3"))
            .args(["get", "5", "3", "--table"])
            .arg(&path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(!err.contains('\u{1b}'), "{err:?}");
        assert!(err.contains("no such table"), "{err}");
    }
}

#[test]
fn a_success_line_naming_a_path_with_a_newline_or_an_escape_stays_one_line() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["new\nline.tsv", "esc\u{1b}[31m.tsv"] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_chomp3"))
            .current_dir(dir.path())
            .args(["grundy-census", "--quiet", "--lines", "3", "--out", name])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        assert!(
            dir.path().join(name).is_file(),
            "written under the name given"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{err:?}");
        assert!(err.contains("wrote ") && !err.contains('\u{1b}'), "{err:?}");
    }
}

#[test]
fn a_source_named_on_standard_output_stays_one_line() {
    // `get --explain` and `nim` say where their value came from on standard
    // output, naming the file: a newline in its name is escaped there too.
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_chomp3"))
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    run(&["census", "--quiet", "--rows", "20", "--out", "c\nx.tsv"]);
    let out = run(&["get", "1000", "5", "--census", "c\nx.c3d", "--explain"]);
    assert_eq!(out.lines().count(), 2, "{out:?}");
    assert!(out.contains("c\\nx.c3d"), "{out:?}");
    run(&[
        "grundy-table",
        "--quiet",
        "--n",
        "10",
        "--table",
        "g\nt.g3t",
    ]);
    let out = run(&["nim", "5", "3", "1", "--grundy-table", "g\nt.g3t"]);
    assert_eq!(out.lines().count(), 2, "{out:?}");
    assert!(out.contains("g\\nt.g3t"), "{out:?}");
}
