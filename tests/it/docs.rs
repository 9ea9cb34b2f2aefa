//! The documentation runs: every `memspec` command in the shell blocks of README.md and of
//! `docs/**.md` is run as a newcomer in a clone would (the binary first on PATH, from the
//! repository's root), and must end with the exit code the line says (`# exit N`, else 0). A
//! line that opens the replay TUI says it needs a terminal and is left to the TUI's own tests
//! (tmux, `replay::tui`). `/tmp/` in a command is a scratch folder per file. And
//! `docs/reference/cli.md` is exactly
//! what the binary's own `--help` says (`MEMSPEC_UPDATE_DOCS=1 cargo test --test it docs::`
//! rewrites it).

use std::path::Path;
use std::process::{Command, Stdio};

use crate::check::{bin, root};

/// The command lines of the ```sh blocks of `markdown` that run memspec (with an environment
/// assignment before it or not), each with the exit code its `# exit N` comment gives.
fn commands(markdown: &str) -> Vec<(String, i32)> {
    let mut out = Vec::new();
    let mut in_sh = false;
    for line in markdown.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_sh = !in_sh && trimmed == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let (command, comment) = match trimmed.split_once("  #") {
            Some((command, comment)) => (command.trim(), comment.trim()),
            None => (trimmed, ""),
        };
        let runs_memspec = command
            .split_whitespace()
            .find(|word| !word.contains('='))
            .is_some_and(|word| word == "memspec");
        // The replay TUI needs a terminal: its own tests drive it in tmux (`replay::tui`).
        if !runs_memspec || comment.contains("needs a terminal") {
            continue;
        }
        let code = comment
            .strip_prefix("exit ")
            .map(|n| {
                n.chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
            })
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        out.push((command.to_string(), code));
    }
    out
}

#[test]
fn the_scan_finds_commands_and_their_exit_codes() {
    let found = commands(
        "text\n```sh\nmemspec check   # the suite\nX=1 memspec check --strict   # exit 1: a SHOULD warning\nmemspec replay t.json   # the TUI (needs a terminal)\ncargo build\n```\n```yaml\n- run: memspec check\n```\n",
    );
    assert_eq!(
        found,
        [
            ("memspec check".to_string(), 0),
            ("X=1 memspec check --strict".to_string(), 1)
        ]
    );
}

/// Runs the memspec commands of one Markdown file; returns the failures.
fn run_file(file: &Path) -> (usize, Vec<String>) {
    let markdown = std::fs::read_to_string(file).unwrap_or_default();
    let bin_dir = Path::new(bin()).parent().unwrap_or(Path::new("."));
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let scratch = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut ran = 0;
    let mut failed = Vec::new();
    for (command, code) in commands(&markdown) {
        // Files the docs write to /tmp go to a scratch folder instead.
        let line = command.replace("/tmp/", &format!("{}/", scratch.path().display()));
        let output = Command::new("sh")
            .arg("-c")
            .arg(&line)
            .current_dir(root())
            .env("PATH", &path)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        ran += 1;
        let got = output.status.code().unwrap_or(-1);
        if got != code {
            failed.push(format!(
                "{}: {command}\n  exit {got}, the file says {code}\n  stderr: {}",
                file.display(),
                String::from_utf8_lossy(&output.stderr)
                    .lines()
                    .take(5)
                    .collect::<Vec<_>>()
                    .join("\n  ")
            ));
        }
    }
    (ran, failed)
}

fn markdown_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

#[test]
fn every_memspec_command_of_the_readme_and_docs_runs() {
    let mut files = vec![root().join("README.md")];
    markdown_files(&root().join("docs"), &mut files);
    files.sort();
    let mut ran = 0;
    let mut failed = Vec::new();
    for file in &files {
        let (n, mut bad) = run_file(file);
        ran += n;
        failed.append(&mut bad);
    }
    assert!(ran >= 25, "too few commands found: {ran}");
    assert!(failed.is_empty(), "\n{}", failed.join("\n"));
}

/// The commands whose help the CLI reference holds, in its order.
const COMMANDS: [&str; 10] = [
    "check", "matrix", "replay", "record", "fuzz", "serve", "call", "cases", "spec", "help",
];

/// The CLI reference as the binary's help gives it.
fn cli_reference() -> String {
    let help = |args: &[&str]| {
        let output = Command::new(bin())
            .args(args)
            .env("COLUMNS", "100")
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8_lossy(&output.stdout)
            .trim_end()
            .to_string()
    };
    let mut out = String::from(
        "# CLI reference\n\nGenerated from `memspec --help` and each command's `--help` by \
         `MEMSPEC_UPDATE_DOCS=1 cargo test --test it docs::`; a test fails when it is not current.\n\n",
    );
    out.push_str(&format!(
        "## memspec\n\n```text\n{}\n```\n",
        help(&["--help"])
    ));
    for command in COMMANDS.iter().filter(|c| **c != "help") {
        out.push_str(&format!(
            "\n## memspec {command}\n\n```text\n{}\n```\n",
            help(&[command, "--help"])
        ));
    }
    out
}

#[test]
fn the_cli_reference_is_the_binarys_help() {
    let path = root().join("docs/reference/cli.md");
    let want = cli_reference();
    if std::env::var_os("MEMSPEC_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap_or_else(|e| panic!("{e}"));
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/reference/cli.md is not the binary's help: run `MEMSPEC_UPDATE_DOCS=1 cargo test --test it docs::`"
    );
}
