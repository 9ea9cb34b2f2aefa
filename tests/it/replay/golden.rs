//! Snapshot regression: `memspec record` then `memspec replay --check`, exit codes of the
//! non-interactive replay, and the review of a golden file (accept, reject, write).

use memspec::backend::BackendSpec;
use memspec::replay::{self, ReplayOptions, StepKind};
use memspec::transcript;
use memspec::tui::action::Action;
use memspec::tui::model::Decision;
use memspec::tui::{App, Options};
use serde_json::Value;

use super::{bin, fixture, root, run, spec};

fn proxy_command(mode: &str) -> String {
    let script = root().join("tests/fixtures/transcripts/backends/tidy_proxy.py");
    format!("python3 {} {mode} {{memories}} {}", script.display(), bin())
}

#[test]
fn record_then_check_passes_and_a_changed_backend_fails() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let golden = dir.path().join("golden.jsonl");
    let golden = golden.to_string_lossy();
    let inputs = fixture("inputs.jsonl");
    let (code, _, stderr) = run(&["record", &inputs.to_string_lossy(), "-o", &golden]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("recorded 7 call(s)"), "{stderr}");
    let text = std::fs::read_to_string(&*golden).unwrap_or_default();
    let header: Value = serde_json::from_str(text.lines().next().unwrap_or("")).unwrap_or_default();
    assert_eq!(header["memspec_session"], 1);
    assert_eq!(header["backend"], "reference (in process)");
    assert_eq!(text.lines().count(), 8);

    let (code, stdout, stderr) = run(&["replay", &golden, "--check"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("verdict: unchanged"), "{stdout}");

    // A backend over the protocol that answers the same passes too.
    let (code, stdout, _) = run(&[
        "replay",
        &golden,
        "--check",
        "--backend",
        &proxy_command("same"),
    ]);
    assert_eq!(code, 0, "{stdout}");

    // One that stores tabs as spaces changed the view of the tab-separated file.
    let (code, stdout, _) = run(&[
        "replay",
        &golden,
        "--check",
        "--backend",
        &proxy_command("expandtabs"),
    ]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("FAIL step-4\n  view /memories/suppliers.tsv"),
        "{stdout}"
    );
    assert!(
        stdout.contains("[-→-]") && stdout.contains("{+····+}"),
        "{stdout}"
    );
    assert!(
        stdout.contains("verdict: CHANGED since the recording"),
        "{stdout}"
    );
}

#[test]
fn report_exit_codes() {
    // Recorded from the reference, replayed against it: all same.
    let (code, stdout, _) = run(&[
        "replay",
        "tests/fixtures/transcripts/session.jsonl",
        "--report",
    ]);
    assert_eq!(code, 0, "{stdout}");
    // Recorded from another backend: MUST and SHOULD differences (of the recording: the exit
    // code follows the backend under test unless told otherwise).
    let (code, stdout, _) = run(&[
        "replay",
        "tests/fixtures/transcripts/sdk-python-50.request.json",
        "--report",
        "--fail-on",
        "recording",
    ]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("FAIL step-4\n  view /memories/suppliers.tsv (line 133)"),
        "{stdout}"
    );
    // Unreadable: exit 2, naming file and line.
    let (code, _, stderr) = run(&[
        "replay",
        "tests/fixtures/transcripts/malformed/syntax.jsonl",
        "--report",
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("tests/fixtures/transcripts/malformed/syntax.jsonl:2:"),
        "{stderr}"
    );
    // The backend broke.
    let (code, stdout, _) = run(&[
        "replay",
        "tests/fixtures/transcripts/sdk-python-50.request.json",
        "--report",
        "--backend",
        &proxy_command("crash-delete"),
    ]);
    assert_eq!(code, 3, "{stdout}");
    assert!(stdout.contains("backend broke"), "{stdout}");
}

#[test]
fn json_report_has_every_step() {
    let (code, stdout, _) = run(&[
        "replay",
        "tests/fixtures/transcripts/request.json",
        "--report",
        "--format",
        "json",
        "--fail-on",
        "either",
    ]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(report["format"], "request");
    assert_eq!(report["conclusion"], "differs");
    let steps = report["steps"].as_array().cloned().unwrap_or_default();
    assert_eq!(steps.len(), 8);
    assert_eq!(steps[3]["verdict"]["kind"], "must");
    assert_eq!(
        steps[3]["verdict"]["divergences"][0]["rule"],
        "view.file.content"
    );
    assert_eq!(steps[6]["tool"], "get_weather");
    assert_eq!(steps[6]["verdict"]["kind"], "not_replayed");
}

#[test]
fn without_a_terminal_the_tui_points_to_the_report() {
    let (code, stdout, stderr) = run(&["replay", "tests/fixtures/transcripts/request.json"]);
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stderr.contains("not a terminal") && stderr.contains("--report"),
        "{stderr}"
    );
}

#[test]
fn a_broken_backend_records_nothing() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let golden = dir.path().join("golden.jsonl");
    let (code, _, stderr) = run(&[
        "record",
        "tests/fixtures/transcripts/sdk-python-50.request.json",
        "--backend",
        &proxy_command("crash-delete"),
        "-o",
        &golden.to_string_lossy(),
    ]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("the backend broke at step 45 (delete /memories/archive)"),
        "{stderr}"
    );
    assert!(!golden.exists());
}

#[test]
fn review_accepts_changes_into_the_golden_file() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let golden = dir.path().join("golden.jsonl");
    std::fs::copy(root().join(fixture("golden-tidy.jsonl")), &golden)
        .unwrap_or_else(|e| panic!("{e}"));
    let options = ReplayOptions {
        backend: BackendSpec::Reference(memspec::spec::Revision::Ga2026),
        seed: None,
        timeout: std::time::Duration::from_secs(10),
        check: false,
        revision: memspec::spec::Revision::Ga2026,
        user: None,
    };
    let open = || {
        let transcript = transcript::read(&golden, None).unwrap_or_else(|e| panic!("{e}"));
        replay::replay(transcript, &options, Some(&spec()), &memspec::events::Quiet)
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let mut app = App::new(open(), Some(spec()), Options { mouse: false });
    let review = app
        .review()
        .cloned()
        .unwrap_or_else(|| panic!("a golden file opens in review"));
    let changed: Vec<usize> = review
        .decisions
        .iter()
        .enumerate()
        .filter(|(_, d)| d.is_some())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(changed, [3]);
    // The first change is selected; accepting it and quitting writes the file.
    assert_eq!(app.selected(), 3);
    app.apply(Action::Accept);
    assert_eq!(
        app.review().and_then(|r| r.decisions[3]),
        Some(Decision::Accepted)
    );
    app.apply(Action::Quit);
    assert!(app.should_quit());
    assert_eq!(
        app.review().and_then(|r| r.written.clone()),
        Some(golden.display().to_string())
    );
    // The header keeps the recording backend and says which step now holds whose answer.
    let written = transcript::read(&golden, None).unwrap_or_else(|e| panic!("{e}"));
    let header = written
        .session
        .unwrap_or_else(|| panic!("the golden file keeps its header"));
    let original = transcript::read(&root().join(fixture("golden-tidy.jsonl")), None)
        .unwrap_or_else(|e| panic!("{e}"))
        .session
        .unwrap_or_else(|| panic!("a session header"));
    assert_eq!(header.backend, original.backend);
    assert_eq!(header.created, original.created);
    assert_eq!(header.amended.len(), 1, "{header:?}");
    assert_eq!(header.amended[0].backend, "reference (in process)");
    assert_eq!(header.amended[0].steps, [4]);
    assert!(header.amended[0].at.ends_with('Z'), "{header:?}");
    // Now the golden file holds the reference's answer: nothing changed any more.
    let again = open();
    assert!(
        again
            .steps
            .iter()
            .all(|s| !s.changed && s.verdict.kind != StepKind::Changed)
    );
    let (code, stdout, _) = run(&["replay", &golden.to_string_lossy(), "--check"]);
    assert_eq!(code, 0, "{stdout}");
}

#[test]
fn rejecting_keeps_the_golden_file_untouched() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let golden = dir.path().join("golden.jsonl");
    std::fs::copy(root().join(fixture("golden-tidy.jsonl")), &golden)
        .unwrap_or_else(|e| panic!("{e}"));
    let before = std::fs::read(&golden).unwrap_or_default();
    let transcript = transcript::read(&golden, None).unwrap_or_else(|e| panic!("{e}"));
    let options = ReplayOptions {
        backend: BackendSpec::Reference(memspec::spec::Revision::Ga2026),
        seed: None,
        timeout: std::time::Duration::from_secs(10),
        check: false,
        revision: memspec::spec::Revision::Ga2026,
        user: None,
    };
    let replayed = replay::replay(transcript, &options, Some(&spec()), &memspec::events::Quiet)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut app = App::new(replayed, None, Options { mouse: false });
    app.apply(Action::Reject);
    app.apply(Action::Quit);
    assert!(app.should_quit());
    assert_eq!(std::fs::read(&golden).unwrap_or_default(), before);
}
