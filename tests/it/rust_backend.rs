//! The Rust backend example of the `memspec-protocol` crate
//! (`crates/memspec-protocol/examples/map_backend.rs`, an in-memory store whose `main` is the
//! crate's serve loop) as its README promises: it speaks protocol v1 as a real process, and
//! `memspec check --not-on-folder --strict` passes it, with exit 0.
//!
//! Finding the binary. Cargo tells an integration test where the memspec package's own binaries
//! are (`CARGO_BIN_EXE_memspec`), not a workspace member's examples, and a test must not run
//! cargo. But a plain `cargo test` (what `.ci/run` runs) builds every example of the workspace's
//! default members, memspec-protocol among them (the root `Cargo.toml`), before it runs any test,
//! into `<target>/<profile>/examples/`, beside the `deps/` folder this test binary runs from. So
//! the test takes it from there, and refuses a binary older than its sources. A filtered run
//! (`cargo test --test it`) builds no example: there, without a fresh binary, the tests say so
//! and skip (`cargo build --examples` builds it), except under CI (`CI` set), where that is a
//! failure, as for `dist/` in `packaging`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use crate::check::{memspec, root, run_command};

const EXAMPLE: &str = "map_backend";

/// The example's binary, built and newer than its sources, or `None` (the reason printed)
/// outside CI.
fn example() -> Option<PathBuf> {
    let test_binary = std::env::current_exe().expect("the test binary's path");
    // <target>/<profile>/deps/it-<hash> → <target>/<profile>/examples/map_backend
    let binary = test_binary
        .parent()
        .and_then(Path::parent)
        .map(|profile| profile.join("examples").join(EXAMPLE))
        .expect("the test binary runs from <target>/<profile>/deps");
    let crate_dir = root().join("crates/memspec-protocol");
    let mut sources = vec![
        crate_dir.join(format!("examples/{EXAMPLE}.rs")),
        crate_dir.join("Cargo.toml"),
    ];
    sources.extend(
        std::fs::read_dir(crate_dir.join("src"))
            .expect("crates/memspec-protocol/src")
            .flatten()
            .map(|entry| entry.path()),
    );
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let newest_source = sources
        .iter()
        .filter_map(|source| modified(source))
        .max()
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let problem = match modified(&binary) {
        None => "is not built",
        Some(built) if built < newest_source => "is older than its sources",
        Some(_) => return Some(binary),
    };
    let why = format!(
        "{} {problem}: a plain `cargo test` builds it, or `cargo build --examples`",
        binary.display()
    );
    assert!(std::env::var_os("CI").is_none(), "{why}");
    eprintln!("skipped: {why}");
    None
}

/// Reads reply lines of a child process on a thread, so that a missing reply is a timeout, not
/// a hung test.
struct Replies(mpsc::Receiver<String>);

impl Replies {
    fn of(stdout: std::process::ChildStdout) -> Replies {
        let (send, receive) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        Replies(receive)
    }

    #[track_caller]
    fn next(&self) -> Value {
        let line = self
            .0
            .recv_timeout(Duration::from_secs(10))
            .expect("a reply line within 10 s (each reply must be flushed at once)");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line:?} is not JSON: {e}"))
    }
}

#[test]
fn the_example_speaks_protocol_v1_one_flushed_reply_per_line() {
    let Some(binary) = example() else { return };
    let mut child = Command::new(&binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the example");
    let mut stdin = child.stdin.take().expect("stdin");
    let replies = Replies::of(child.stdout.take().expect("stdout"));
    let mut send = |line: &str| {
        stdin.write_all(line.as_bytes()).expect("write a request");
        stdin.write_all(b"\n").expect("write a newline");
        stdin.flush().expect("flush the request");
    };
    // One request at a time, each answered before the next is sent.
    send(r#"{"id": 1, "control": "hello"}"#);
    assert_eq!(
        replies.next(),
        json!({"id": 1, "ok": true, "protocol": 1, "backend": "map_backend (memspec-protocol example)"})
    );
    send(
        r#"{"id": 2, "input": {"command": "create", "path": "/memories/a.txt", "file_text": "one\n"}}"#,
    );
    assert_eq!(
        replies.next(),
        json!({"id": 2, "content": "File created successfully at: /memories/a.txt", "is_error": false})
    );
    send(r#"{"id": 3, "input": {"command": "view", "path": "/memories/a.txt"}}"#);
    assert_eq!(
        replies.next(),
        json!({"id": 3, "content": "Here's the content of /memories/a.txt with line numbers:\n     1\tone", "is_error": false})
    );
    send("not json");
    let garbage = replies.next();
    assert_eq!(garbage["id"], Value::Null, "{garbage}");
    assert_eq!(garbage["is_error"], json!(true), "{garbage}");
    send(r#"{"id": 4, "control": "reset"}"#);
    assert_eq!(replies.next(), json!({"id": 4, "ok": true}));
    send(r#"{"id": 5, "input": {"command": "view", "path": "/memories/a.txt"}}"#);
    assert_eq!(
        replies.next(),
        json!({"id": 5, "content": "The path /memories/a.txt does not exist. Please provide a valid path.", "is_error": true})
    );
    drop(stdin);
    let status = child.wait().expect("wait for the example");
    assert!(
        status.success(),
        "the end of input ends it cleanly: {status}"
    );
}

#[test]
fn the_example_passes_the_whole_suite_strictly() {
    let Some(binary) = example() else { return };
    // The backend runs under `sh -c`: the path quoted, in case the target folder has spaces.
    let path = binary.to_string_lossy().replace('\'', r"'\''");
    let mut command = memspec();
    command.args([
        "check",
        "--not-on-folder",
        "--strict",
        "--color",
        "never",
        "--backend",
        &format!("'{path}'"),
    ]);
    let run = run_command(&mut command);
    assert_eq!(run.code, 0, "{}", run.describe());
    // The summary: every case that runs without a folder passes, none warns or breaks.
    let summary = run
        .stdout
        .lines()
        .chain(run.stderr.lines())
        .find(|line| line.contains(" passed, "))
        .unwrap_or_else(|| panic!("no summary line\n{}", run.describe()));
    assert!(
        summary.contains(" 0 failed, 0 warned,") && summary.ends_with(" 0 errors"),
        "{summary}"
    );
}
