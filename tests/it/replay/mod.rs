//! Tests of `memspec replay` and `memspec record`: the transcript readers on every shape
//! (and on malformed files), the verdicts, record → check round trips, the TUI's views as
//! insta snapshots (ratatui's `TestBackend`), and a tmux-driven smoke test of the real binary.
//!
//! Fixtures live in `tests/fixtures/transcripts/` (see `generate.py` there for how the
//! conversations were recorded). Backends other than the reference are the small proxy
//! `backends/tidy_proxy.py` in front of `memspec serve` (Python 3, standard library).

mod golden;
mod issue12;
mod readers;
mod seeds;
mod signals;
mod smoke;
mod tui;
mod users;
mod verdicts;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use memspec::backend::BackendSpec;
use memspec::replay::{self, Replay, ReplayOptions};
use memspec::spec::Spec;
use memspec::transcript::{self, Transcript};

/// The memspec binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_memspec")
}

/// The package root; tests run there.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fixture transcript, as a path relative to the root (so that messages naming it are
/// stable in snapshots).
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from("tests/fixtures/transcripts").join(name)
}

/// Reads a fixture transcript, detecting its format.
pub fn read(name: &str) -> Transcript {
    transcript::read(&fixture(name), None).unwrap_or_else(|e| panic!("{e}"))
}

/// The spec's rules.
pub fn spec() -> Spec {
    Spec::load(&root().join("spec"), memspec::spec::Revision::Ga2026)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The proxy backend in `mode` (`expandtabs`, `crash-delete`, `same`).
pub fn proxy(mode: &str) -> BackendSpec {
    let script = root().join("tests/fixtures/transcripts/backends/tidy_proxy.py");
    BackendSpec::command(
        &format!("python3 {} {mode} {{memories}} {}", script.display(), bin()),
        None,
    )
}

/// Replays a fixture against `backend`.
pub fn replay_with(name: &str, backend: BackendSpec, check: bool) -> Replay {
    let options = ReplayOptions {
        backend,
        seed: None,
        timeout: Duration::from_secs(10),
        check,
        revision: memspec::spec::Revision::Ga2026,
        user: None,
    };
    replay::replay(read(name), &options, Some(&spec()), &memspec::events::Quiet)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Replays a fixture against the reference.
pub fn replay(name: &str) -> Replay {
    replay_with(
        name,
        BackendSpec::Reference(memspec::spec::Revision::Ga2026),
        false,
    )
}

/// A `memspec` command run from the root.
pub fn memspec() -> Command {
    let mut command = Command::new(bin());
    command
        .current_dir(root())
        .env("PYTHONDONTWRITEBYTECODE", "1");
    command
}

/// Runs `memspec ARGS`; (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    let output = memspec()
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run memspec: {e}"));
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Asserts an insta snapshot stored with the other integration snapshots, the times that
/// change from run to run replaced.
pub fn snap(name: &str, value: &str) {
    let mut value = value.to_string();
    for (pattern, replacement) in [
        (r"in \d+\.\d+ s", "in [ELAPSED] s"),
        (r"backend median \d+ µs", "backend median [µs]"),
        (r"\(\d+ µs\)", "([µs])"),
    ] {
        let re = regex::Regex::new(pattern).unwrap_or_else(|e| panic!("{e}"));
        value = re.replace_all(&value, replacement).into_owned();
    }
    let value = value.as_str();
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(format!("replay__{name}").as_str(), value));
}
