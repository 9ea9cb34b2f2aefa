//! SIGINT and SIGTERM during `replay --report` and `record` (issue 11): they left their scratch
//! folders behind and their backends running; now they clean up as `check` does, and exit
//! with the shell's code for the signal.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use rustix::process::Signal;

use super::{bin, memspec, root};
use crate::check::processes_with;

#[test]
fn a_signal_during_replay_removes_its_folders_and_kills_its_backend() {
    for (signal, code) in [(Signal::TERM, 143), (Signal::INT, 130)] {
        stop_mid_call(&["replay", "--report"], signal, code, false);
        // An embedded adapter's folder (in TMPDIR) too: its interpreter never gets going.
        stop_mid_call(&["replay", "--report"], signal, code, true);
    }
}

#[test]
fn a_signal_during_record_removes_its_folder_and_kills_its_backend() {
    for (signal, code) in [(Signal::TERM, 143), (Signal::INT, 130)] {
        stop_mid_call(&["record", "-o", "golden.jsonl"], signal, code, false);
        stop_mid_call(&["record", "-o", "golden.jsonl"], signal, code, true);
    }
}

/// Runs `memspec COMMAND` on a one-view transcript, with a private `TMPDIR`, against a
/// backend that hangs on that view (or, with `python`, through the embedded Python adapter run
/// by an interpreter that only sleeps); sends `signal` once the backend runs, and checks the
/// exit `code`, that no folder memspec made is left (the scratch folders may be on `/dev/shm`,
/// so the backend writes down its own), and that no backend process is.
fn stop_mid_call(command: &[&str], signal: Signal, code: i32, python: bool) {
    let work = tempfile::tempdir().expect("tempdir");
    let tmp = tempfile::tempdir().expect("tempdir");
    let inputs = work.path().join("inputs.jsonl");
    std::fs::write(
        &inputs,
        "{\"command\": \"view\", \"path\": \"/memories\"}\n",
    )
    .expect("write the inputs");
    let bases = work.path().join("bases");
    let mut run = memspec();
    run.env("TMPDIR", tmp.path())
        .env("MEMSPEC_BIN", bin())
        .arg(command[0])
        .arg(&inputs)
        .args(&command[1..])
        .current_dir(work.path())
        .args(["--timeout", "600"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if python {
        // Sleeps as a shell, writing down where it was asked to serve first.
        let sleeper = work.path().join("python");
        std::fs::write(
            &sleeper,
            format!(
                "#!/bin/sh\nfor a; do echo \"$a\"; done >> '{}'\nwhile :; do sleep 1; done\n",
                bases.display()
            ),
        )
        .expect("write the sleeper");
        std::fs::set_permissions(
            &sleeper,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .expect("make it runnable");
        run.args([
            "--python",
            &root()
                .join("adapters/python/examples/dict_backend.py")
                .display()
                .to_string(),
        ])
        .arg("--python-bin")
        .arg(&sleeper);
    } else {
        let script = root().join("tests/backends/hang_on_view.py");
        run.arg("--backend").arg(format!(
            "echo {{base}} >> '{}'; exec python3 {} {{memories}}",
            bases.display(),
            script.display()
        ));
    }
    let mut child = run.spawn().expect("start memspec");
    let started = Instant::now();
    let written = || std::fs::read_to_string(&bases).unwrap_or_default();
    while written().is_empty() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    // Time for the backend to get to its view, and hang there.
    std::thread::sleep(Duration::from_millis(500));
    let what = format!("{command:?} {signal:?} python={python}");
    assert!(!written().is_empty(), "{what}: the backend never started");
    rustix::process::kill_process(rustix::process::Pid::from_child(&child), signal)
        .expect("send the signal");
    let status = child.wait().expect("wait for memspec");
    let in_tmp: Vec<_> = std::fs::read_dir(tmp.path())
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    // Every path the backend was given that lies in a folder memspec made.
    let made: Vec<String> = written()
        .lines()
        .filter(|line| line.contains("/memspec-"))
        .map(str::to_string)
        .collect();
    let left: Vec<&String> = made.iter().filter(|p| Path::new(p).exists()).collect();
    // A process sent SIGKILL dies once it next runs, which on a busy machine can be after
    // memspec exited: a moment's grace, then whatever still runs was never killed.
    let grace = Instant::now();
    let mut running = backends(work.path(), &made);
    while !running.is_empty() && grace.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(100));
        running = backends(work.path(), &made);
    }
    let described: Vec<String> = running
        .iter()
        .map(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            format!(
                "{pid} {}",
                String::from_utf8_lossy(&cmdline).replace('\0', " ")
            )
        })
        .collect();
    for &pid in &running {
        if let Some(pid) = rustix::process::Pid::from_raw(pid) {
            let _ = rustix::process::kill_process(pid, Signal::KILL);
        }
    }
    assert_eq!(status.code(), Some(code), "{what}");
    assert!(
        !made.is_empty(),
        "{what}: no scratch path in {:?}",
        written()
    );
    assert!(in_tmp.is_empty(), "{what}: TMPDIR holds {in_tmp:?}");
    assert!(left.is_empty(), "{what}: left {left:?} behind");
    assert!(
        running.is_empty(),
        "{what}: backends left running: {described:?}"
    );
    assert!(
        !work.path().join("golden.jsonl").exists(),
        "{what}: a golden file was written"
    );
}

/// The processes whose command line names the test's folder `work` or one of the paths `made`.
fn backends(work: &Path, made: &[String]) -> std::collections::BTreeSet<i32> {
    let mut running: std::collections::BTreeSet<i32> = processes_with(&work.to_string_lossy())
        .into_iter()
        .collect();
    for path in made {
        running.extend(processes_with(path));
    }
    running
}
