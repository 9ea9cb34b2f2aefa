//! Meeting backend authors where they work (issue 11): the adapters built into the binary
//! (`check --python`/`--node`, `matrix`), and the pip and npm packages `packaging/build.sh` makes.

mod embedded;
mod install;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Whether `.ci/install-sdks` has run (the examples import the SDKs): the SDK tests' check.
use crate::sdk::installed as sdks_installed;

/// Runs `program` with `args` in `dir`, with `env` set.
fn run(program: &Path, args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(program);
    command.args(args).current_dir(dir);
    for (key, value) in env {
        command.env(key, value);
    }
    match command.output() {
        Ok(output) => output,
        Err(e) => panic!("cannot run {}: {e}", program.display()),
    }
}

fn memspec(args: &[&str]) -> Output {
    run(Path::new(env!("CARGO_BIN_EXE_memspec")), args, &repo(), &[])
}

/// A JSON report's verdict and each case's outcome, in case order: what must be the same
/// whichever way memspec was installed or the backend named.
fn verdict(output: &Output) -> (Option<i32>, String, Vec<(String, String)>) {
    let report: Value = match serde_json::from_slice(&output.stdout) {
        Ok(report) => report,
        Err(e) => panic!(
            "not a JSON report ({e}); stderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ),
    };
    let outcomes = report["report"]["results"]
        .as_array()
        .map(|results| {
            results
                .iter()
                .map(|r| (r["id"].to_string(), r["outcome"].to_string()))
                .collect()
        })
        .unwrap_or_default();
    (
        output.status.code(),
        report["verdict"].to_string(),
        outcomes,
    )
}
