//! Integration tests of `memspec check`, run as the real binary: the deliberately broken backends
//! of `tests/backends/` (proof that the suite can fail), the hostile ones of
//! `tests/backends/hostile/` (proof that the harness survives attacks on itself), exit codes,
//! selection, lint, timeouts, baselines, `--strict` and snapshots of every report format.
//!
//! The broken backends are Python 3 programs; most wrap `memspec serve`, found through the
//! `MEMSPEC_BIN` variable that every run here sets.

mod broken;
mod cli;
mod crash;
mod exit_codes;
mod hostile;
mod independent;
mod json_store;
mod lineages;
mod mechanics;
mod outputs;
mod races;
mod reports;
mod restart;
mod store;
mod traps;
mod users;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The memspec binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_memspec")
}

/// The package root (the tests run there, so the default `cases/` and `spec/` are the suite's).
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The small fixed suite for runner mechanics: `tests/fixtures/cases`.
pub fn fixtures() -> PathBuf {
    root().join("tests/fixtures/cases")
}

/// The `--backend` command line of the broken backend `tests/backends/<name>.py`.
pub fn backend(name: &str) -> String {
    let script = root().join("tests/backends").join(format!("{name}.py"));
    assert!(script.is_file(), "no broken backend {}", script.display());
    format!("python3 {} {{memories}}", script.display())
}

/// A `memspec` command with the environment the broken backends need.
pub fn memspec() -> Command {
    let mut command = Command::new(bin());
    command
        .current_dir(root())
        .env("MEMSPEC_BIN", bin())
        // Keep tests/backends free of __pycache__ folders.
        .env("PYTHONDONTWRITEBYTECODE", "1");
    command
}

/// What one `memspec` run gave.
#[derive(Debug)]
pub struct Run {
    /// The exit code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Wall-clock time.
    pub elapsed: Duration,
}

impl Run {
    /// The `--format json` report.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "not a JSON report ({e}); exit {}\nstdout:\n{}\nstderr:\n{}",
                self.code, self.stdout, self.stderr
            )
        })
    }

    /// Case id → outcome, from the JSON report.
    #[track_caller]
    pub fn outcomes(&self) -> BTreeMap<String, String> {
        self.results()
            .iter()
            .map(|r| (str_at(r, "id"), str_at(r, "outcome")))
            .collect()
    }

    /// The results of the JSON report.
    #[track_caller]
    pub fn results(&self) -> Vec<Value> {
        self.json()["report"]["results"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// The result of one case.
    #[track_caller]
    pub fn result(&self, id: &str) -> Value {
        self.results()
            .into_iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no result for {id} in\n{}", self.stdout))
    }

    /// A short description for assertion messages.
    pub fn describe(&self) -> String {
        format!(
            "exit {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

fn str_at(value: &Value, key: &str) -> String {
    value[key].as_str().unwrap_or_default().to_string()
}

/// Runs `memspec` with `args`.
pub fn run(args: &[&str]) -> Run {
    run_command(memspec().args(args))
}

/// The rules of a run's root causes, with their harm, from its JSON report.
pub fn causes(run: &Run) -> Vec<(String, String)> {
    run.json()["root_causes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["rule"].as_str().unwrap_or("?").to_string(),
                c["harm"].as_str().unwrap_or("?").to_string(),
            )
        })
        .collect()
}

/// Runs a prepared command.
pub fn run_command(command: &mut Command) -> Run {
    let started = Instant::now();
    let Output {
        status,
        stdout,
        stderr,
    } = command.output().expect("run memspec");
    Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        elapsed: started.elapsed(),
    }
}

/// Runs `memspec check --format json` with `args` against the broken backend `name` (or the
/// reference for `None`), selecting the cases `ids`.
pub fn check(
    backend_name: Option<&str>,
    cases_dir: Option<&Path>,
    ids: &[&str],
    args: &[&str],
) -> Run {
    let mut command = memspec();
    command.args(["check", "--format", "json"]);
    if let Some(name) = backend_name {
        command.args(["--backend", &backend(name)]);
    }
    if let Some(dir) = cases_dir {
        command.arg("--cases").arg(dir);
    }
    for id in ids {
        command.args(["--case", id]);
    }
    command.args(args);
    run_command(&mut command)
}

/// `memspec check --format json --backend BACKEND ARGS`, the SQLite files of the key-value test
/// backends (`--shared`) in a folder of this run's own.
pub fn check_kv(backend: &str, args: &[&str]) -> Run {
    let kv = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    run_command(
        memspec()
            .env("MEMSPEC_KV_DIR", kv.path())
            .args(["check", "--format", "json", "--backend", backend])
            .args(args),
    )
}

/// The processes whose command line contains `token`.
pub fn processes_with(token: &str) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<i32>().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            String::from_utf8_lossy(&cmdline)
                .contains(token)
                .then_some(pid)
        })
        .collect()
}
