//! Issue 12: causes, not symptoms (`follows step N`), the security lane, two verdicts with
//! their exit codes, a backend that never starts, calls with no recorded answer, and control
//! characters in the text report.

use memspec::judge::Pair;
use memspec::replay::{Conclusion, StepKind};
use serde_json::Value;

use super::{bin, root, run, snap};

fn fixture(name: &str) -> String {
    format!("tests/fixtures/transcripts/issue12/{name}")
}

fn backend(script: &str) -> String {
    format!("python3 tests/backends/{script} {{memories}} {}", bin())
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The recording overwrote a file at step 4: the view and the edit of that file follow from
/// it; the same "no match" wording the recording used on an untouched file at step 3 does not.
#[test]
fn consequences_follow_their_cause_and_wording_stays_unmarked() {
    let replayed = super::replay_with(
        "issue12/cascade.messages.json",
        memspec::backend::BackendSpec::Reference(memspec::spec::Revision::Ga2026),
        false,
    );
    let follows: Vec<Option<usize>> = replayed
        .steps
        .iter()
        .map(|s| s.verdict.follows(Some(Pair::RecordedReference)))
        .collect();
    assert_eq!(
        follows,
        [None, None, None, None, Some(4), Some(4), None, None],
        "{:#?}",
        replayed.steps
    );
    let lane = replayed.verdict(Pair::RecordedReference);
    assert_eq!((lane.differences, lane.consequences), (5, 2), "{lane:?}");
    assert_eq!(
        lane.describe(),
        "5 difference(s), 2 of them follow from step 4"
    );
    // The backend is the reference: its verdict is clean, and the exit code follows it.
    assert_eq!(
        replayed.verdict(Pair::BackendReference).conclusion,
        Conclusion::Same
    );

    let (code, stdout, _) = run(&["replay", &fixture("cascade.messages.json"), "--report"]);
    assert_eq!(code, 0, "{stdout}");
    snap("issue12_cascade", &stdout);
    let (_, stdout, _) = run(&[
        "replay",
        &fixture("cascade.messages.json"),
        "--report",
        "--format",
        "json",
    ]);
    let report = json(&stdout);
    let steps = report["steps"].as_array().cloned().unwrap_or_default();
    let cascade = |i: usize| -> Vec<Value> {
        steps[i]["verdict"]["divergences"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|d| d["cascade_of"].clone())
            .collect()
    };
    assert!(cascade(4).iter().all(|c| c == 4), "{:?}", cascade(4));
    assert!(cascade(5).iter().all(|c| c == 4), "{:?}", cascade(5));
    assert!(cascade(6).iter().all(Value::is_null), "{:?}", cascade(6));
    assert!(cascade(3).iter().all(Value::is_null), "{:?}", cascade(3));
    assert_eq!(report["recording_verdict"]["consequences"], 2);
    assert_eq!(report["recording_verdict"]["causes"]["4"], 2);
    assert_eq!(report["backend_verdict"]["conclusion"], "same");
    assert_eq!(report["conclusion"], "same");
}

#[test]
fn fail_on_chooses_the_verdict_the_exit_code_follows() {
    let transcript = fixture("cascade.messages.json");
    for (fail_on, expected) in [("backend", 0), ("recording", 1), ("either", 1)] {
        let (code, stdout, _) = run(&["replay", &transcript, "--report", "--fail-on", fail_on]);
        assert_eq!(code, expected, "--fail-on {fail_on}: {stdout}");
    }
    // A correct backend under test, a deviating recording: 0 by default.
    let (code, stdout, stderr) = run(&[
        "replay",
        &transcript,
        "--report",
        "--backend",
        &backend("missing_error_prefix.py"),
    ]);
    // (That backend drops `Error: `: a dialect, INFO.)
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(
            "recording vs spec (not followed by the exit code): MUST or SHOULD differences"
        ),
        "{stdout}"
    );
}

#[test]
fn a_leaking_backend_is_security_first_in_replay() {
    let (code, stdout, stderr) = run(&[
        "replay",
        &fixture("escape.inputs.jsonl"),
        "--report",
        "--backend",
        &backend("host_path_in_error.py"),
    ]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    // The security cause leads the root causes, above every step.
    let first = stdout
        .lines()
        .position(|l| l.starts_with("  SECURITY SHOULD errors.no-host-paths  2 memory calls"))
        .unwrap_or(usize::MAX);
    let first_step = stdout
        .lines()
        .position(|l| l.starts_with("FAIL step-"))
        .unwrap_or(0);
    assert!(first < first_step, "{stdout}");
    assert!(
        stdout.contains("- backend ≠ reference: the output reveals the host path of the memories folder [SHOULD errors.no-host-paths]"),
        "{stdout}"
    );
    assert!(
        stdout.contains("something outside /memories touched or shown: errors.no-host-paths"),
        "{stdout}"
    );
}

#[test]
fn an_accepted_traversal_is_security_not_a_create() {
    let (code, stdout, stderr) = run(&[
        "replay",
        &fixture("escape.inputs.jsonl"),
        "--report",
        "--format",
        "json",
        "--backend",
        &backend("dotdot_accepted.py"),
    ]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let report = json(&stdout);
    let security = report["security"].as_array().cloned().unwrap_or_default();
    assert!(!security.is_empty(), "{stdout}");
    assert_eq!(security[0]["step"], 3);
    assert_eq!(security[0]["rule"], "security.traversal.dotdot");
    assert_eq!(security[0]["level"], "MUST");
    let step = &report["steps"][2]["verdict"];
    assert_eq!(step["kind"], "security");
    let rules: Vec<&str> = step["divergences"]
        .as_array()
        .map(|d| d.iter().filter_map(|d| d["rule"].as_str()).collect())
        .unwrap_or_default();
    assert!(!rules.contains(&"create.writes-file-text"), "{rules:?}");
    // The counts put security first.
    let counts = stdout.find("\"counts\"").unwrap_or(0);
    assert!(
        stdout[counts..]
            .trim_start_matches("\"counts\": {")
            .trim_start()
            .starts_with("\"security\""),
        "{}",
        &stdout[counts..counts + 80]
    );
    // The listing that shows b.md follows from the escape.
    assert_eq!(
        report["steps"][3]["verdict"]["divergences"][0]["cascade_of"],
        3
    );
}

#[test]
fn the_recording_lane_has_security_findings_too() {
    let replayed = super::replay("issue12/recorded-leak.messages.json");
    let security: Vec<(usize, &str)> = replayed
        .steps
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            s.verdict
                .divergences
                .iter()
                .filter(|d| d.security)
                .map(move |d| (i + 1, d.rule.as_str()))
        })
        .collect();
    assert_eq!(
        security,
        [
            (2, "errors.no-host-paths"),
            (3, "security.traversal.dotdot"),
            (3, "confinement.all-operations")
        ],
        "{:#?}",
        replayed.steps
    );
    assert!(
        replayed.steps[2]
            .verdict
            .divergences
            .iter()
            .all(|d| d.pair == Some(Pair::RecordedReference))
    );
    assert_eq!(replayed.steps[2].verdict.kind, StepKind::Security);
    let (code, stdout, _) = run(&[
        "replay",
        &fixture("recorded-leak.messages.json"),
        "--report",
    ]);
    assert_eq!(code, 0, "{stdout}");
    snap("issue12_recorded_leak", &stdout);
}

#[test]
fn check_reads_security_for_a_leaking_backend() {
    let (code, stdout, stderr) = run(&[
        "check",
        "--backend",
        &backend("host_path_in_error.py"),
        "--area",
        "errors",
        "--format",
        "json",
    ]);
    assert!(code == 0 || code == 1, "{code}: {stderr}");
    let report = json(&stdout);
    let first = &report["root_causes"][0];
    assert_eq!(first["security"], true, "{}", report["root_causes"]);
    assert_eq!(first["rule"], "errors.no-host-paths");
    let (_, human, _) = run(&[
        "check",
        "--backend",
        &backend("host_path_in_error.py"),
        "--area",
        "errors",
    ]);
    assert!(
        human.contains("  SECURITY SHOULD errors.no-host-paths"),
        "{human}"
    );
}

#[test]
fn a_backend_that_never_starts_stops_the_replay_with_one_message() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("issue12");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join("long.inputs.jsonl");
    let line = "{\"command\": \"view\", \"path\": \"/memories\"}\n";
    std::fs::write(&path, line.repeat(20_000)).unwrap_or_else(|e| panic!("{e}"));
    let (code, stdout, stderr) = run(&[
        "replay",
        &path.display().to_string(),
        "--report",
        "--backend",
        &backend("never_starts.py"),
    ]);
    assert_eq!(code, 3, "{stdout}{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("never_starts.py"), "{stderr}");
    assert!(stderr.contains("cannot import my_storage"), "{stderr}");
}

#[test]
fn a_call_without_a_result_has_no_recorded_answer() {
    let (code, stdout, _) = run(&["replay", &fixture("unanswered.messages.json"), "--report"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("note: no recorded answer for 1 call: step 2"),
        "{stdout}"
    );
    // Bare inputs never have answers: nothing to say about them.
    let (_, stdout, _) = run(&["replay", &fixture("escape.inputs.jsonl"), "--report"]);
    assert!(!stdout.contains("no recorded answer"), "{stdout}");
}

#[test]
fn control_characters_are_escaped_in_the_text_report() {
    let (_, stdout, _) = run(&[
        "replay",
        &fixture("controls.messages.json"),
        "--report",
        "--verbose",
    ]);
    assert!(
        !stdout
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "{stdout:?}"
    );
    assert!(stdout.contains("\\x1b[2Jx.md"), "{stdout}");
    snap("issue12_controls", &stdout);
    let _ = root();
}

/// `replay --report --format` takes every format `check` writes, and each is what the same
/// replay writes through `--report-FORMAT FILE`: one reporter for both commands.
#[test]
fn replay_reports_in_every_format_check_writes() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for format in ["junit", "tap", "markdown", "html"] {
        let file = dir.path().join(format!("report.{format}"));
        let file_flag = format!("--report-{format}");
        let (code, stdout, stderr) = run(&[
            "replay",
            &fixture("cascade.messages.json"),
            "--report",
            "--fail-on",
            "recording",
            "--format",
            format,
            &file_flag,
            &file.to_string_lossy(),
        ]);
        assert_eq!(code, 1, "{format}: {stderr}");
        let written = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(!stdout.is_empty(), "{format}: nothing on stdout");
        assert_eq!(stdout.trim_end(), written.trim_end(), "{format}");
    }
    // `human` names the text report, as in `check --format human`.
    let (code, stdout, _) = run(&[
        "replay",
        &fixture("cascade.messages.json"),
        "--report",
        "--format",
        "human",
    ]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("recording vs spec ("), "{stdout}");
}

/// A view that shows a memory lost is the one read that starts a drift: the loss is a fact of
/// the store, left by the rename before it, so the listing after it follows the loss (one root
/// cause); what a read shows wrong otherwise may be the reader's own fault and starts nothing
/// (`judge::step::drift`'s unit tests).
#[test]
fn a_loss_a_view_shows_is_the_one_root() {
    let (code, stdout, stderr) = run(&[
        "replay",
        "tests/fixtures/transcripts/issue29/slash-rename.inputs.jsonl",
        "--report",
        "--format",
        "json",
        "--not-on-folder",
        "--backend",
        "python3 tests/backends/kv/slash_kept.py {memories}",
    ]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let report = json(&stdout);
    let verdict = &report["backend_verdict"];
    assert_eq!(
        (&verdict["differences"], &verdict["consequences"]),
        (&Value::from(2), &Value::from(1)),
        "{verdict}"
    );
    assert_eq!(verdict["causes"]["3"], 1, "{verdict}");
    // The view's own text (an error where the file was) only restates the loss.
    let lost = report["steps"][2]["verdict"]["divergences"].clone();
    let rules: Vec<&str> = lost
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["rule"].as_str())
        .collect();
    assert_eq!(rules, ["rename.moves"], "{lost}");
    let steps = report["steps"].as_array().cloned().unwrap_or_default();
    let listing = steps[3]["verdict"]["divergences"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        !listing.is_empty() && listing.iter().all(|d| d["cascade_of"] == 3),
        "{listing:?}"
    );
}

/// A file whose name says "not found" is read as a file: its view's header names it, and the
/// words of a path are not the answer's.
#[test]
fn a_name_that_says_not_found_is_no_loss() {
    let (code, stdout, stderr) = run(&[
        "replay",
        "tests/fixtures/transcripts/issue29/absent-words.inputs.jsonl",
        "--report",
        "--not-on-folder",
        "--backend",
        "python3 tests/backends/kv/correct.py {memories}",
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.starts_with("verdict: conformant"), "{stdout}");
}
