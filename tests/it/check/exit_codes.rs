//! The one exit-code table (`docs/reference/exit-codes.md`, which README.md summarises) against
//! the binary: every code the table lists is produced by a run of that kind, and the table lists
//! no other.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{backend, bin, check, memspec, root, run_command};

/// The codes of the table's first column (`130, 143` is two).
fn table_codes() -> Vec<i32> {
    let table =
        std::fs::read_to_string(root().join("docs/reference/exit-codes.md")).unwrap_or_default();
    table
        .lines()
        .filter_map(|line| line.strip_prefix("| "))
        .filter_map(|line| line.split(" |").next())
        .flat_map(|cell| cell.split(", ").map(str::to_string).collect::<Vec<_>>())
        .filter_map(|cell| cell.trim().parse().ok())
        .collect()
}

/// Runs `memspec check` until it has started, then sends it `signal`; returns the exit code.
fn signalled(signal: rustix::process::Signal) -> i32 {
    let mut child = memspec()
        .args(["check", "--case", "view-file.basic", "--timeout", "30"])
        .args(["--backend", &backend("hang_on_view")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    std::thread::sleep(Duration::from_secs(2));
    let pid = rustix::process::Pid::from_child(&child);
    let _ = rustix::process::kill_process(pid, signal);
    let started = Instant::now();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return status.code().unwrap_or(-1);
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no exit after the signal"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn every_code_of_the_table_is_what_the_binary_exits_with() {
    let mut produced: Vec<(i32, &str)> = Vec::new();
    let run = check(None, None, &["view-file.basic"], &[]);
    produced.push((run.code, "the reference passes"));
    let run = check(
        Some("delete_root"),
        None,
        &["delete.root"],
        &["--no-recheck"],
    );
    produced.push((run.code, "a backend that deletes its root"));
    let run = check(None, None, &["view-file.basic"], &["--timeout", "0"]);
    produced.push((run.code, "--timeout 0"));
    let run = check(
        Some("hang_on_view"),
        None,
        &["view-file.basic"],
        &["--timeout", "0.5", "--startup-timeout", "1", "--no-recheck"],
    );
    produced.push((run.code, "a backend that hangs"));
    // The report cannot be written once the run is over: a folder where the file goes.
    let folder = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut command = memspec();
    command
        .args(["check", "--case", "view-file.basic", "-o"])
        .arg(folder.path());
    let run = run_command(&mut command);
    produced.push((run.code, "a report that cannot be written"));
    produced.push((signalled(rustix::process::Signal::INT), "Ctrl-C"));
    produced.push((signalled(rustix::process::Signal::TERM), "SIGTERM"));
    // A reader that goes away: the JSON report of the suite is far more than a pipe holds.
    let piped = Command::new("bash")
        .args([
            "-c",
            &format!(
                "set -o pipefail; '{}' check --format json --full-texts | head -c 1 >/dev/null",
                bin()
            ),
        ])
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    produced.push((piped.status.code().unwrap_or(-1), "a closed pipe"));

    let want = [0, 1, 2, 3, 4, 130, 143, 141];
    let got: Vec<i32> = produced.iter().map(|(code, _)| *code).collect();
    assert_eq!(got, want, "{produced:?}");
    let mut table = table_codes();
    table.sort_unstable();
    let mut want = want.to_vec();
    want.sort_unstable();
    assert_eq!(
        table, want,
        "docs/reference/exit-codes.md lists other codes"
    );
}
