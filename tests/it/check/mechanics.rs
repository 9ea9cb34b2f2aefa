//! Runner mechanics of `memspec check`: exit codes, selection, lint, timeouts, baselines and
//! `--strict`. Runs use the fixed folder `tests/fixtures/cases` unless they are about the suite.

use std::time::Duration;

use serde_json::json;
use tempfile::TempDir;

use super::{bin, check, fixtures, memspec, processes_with, run, run_command};

#[test]
fn the_suite_passes_against_the_reference_with_no_arguments() {
    let run = run(&["check"]);
    assert_eq!(run.code, 0, "{}", run.describe());
    let summary = run
        .stdout
        .lines()
        .find(|l| l.contains(" passed, "))
        .unwrap_or_else(|| panic!("no summary line\n{}", run.describe()));
    assert!(
        summary.contains(" 0 failed, 0 warned, 0 info, 0 skipped, 0 errors"),
        "{summary}"
    );
    let passed: usize = summary
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(passed > 0, "{summary}");
    // Only cases that did not pass get a block: the report is the verdict, the summary and
    // the verdict again.
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines.first(),
        Some(&"verdict: conformant"),
        "{}",
        run.describe()
    );
    assert!(
        lines.get(2).is_some_and(|l| l.contains(" cases (")),
        "{}",
        run.describe()
    );
    assert!(
        run.stdout.contains("verdict: conformant"),
        "{}",
        run.describe()
    );
}

#[test]
fn the_fixture_suite_passes_against_memspec_serve_over_protocol_v1() {
    // The broken backends wrap `memspec serve`: unbroken, it must pass everything.
    let mut command = memspec();
    command
        .args(["check", "--format", "json", "--backend"])
        .arg(format!("{} serve {{memories}}", super::bin()))
        .arg("--cases")
        .arg(fixtures());
    let run = run_command(&mut command);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(
        run.outcomes().values().all(|o| o == "pass"),
        "{}",
        run.describe()
    );
}

#[test]
fn an_empty_selection_is_a_usage_error() {
    // Each value matches cases; together they match none.
    let run = check(
        None,
        Some(&fixtures()),
        &[],
        &["--area", "attacks", "--level", "info"],
    );
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(run.stderr.contains("matched no case"), "{}", run.describe());
    assert!(run.stdout.is_empty(), "{}", run.describe());
}

#[test]
fn selection_by_pattern_area_and_level() {
    let dir = fixtures();
    let by_glob = check(None, Some(&dir), &["attacks.dotdot-*"], &[]);
    assert_eq!(
        by_glob.outcomes().keys().collect::<Vec<_>>(),
        ["attacks.dotdot-create", "attacks.dotdot-view"]
    );
    let by_area = check(None, Some(&dir), &[], &["--area", "attacks"]);
    assert_eq!(by_area.outcomes().len(), 4, "{}", by_area.describe());
    let hostile = check(None, Some(&dir), &[], &["--hostile"]);
    assert_eq!(hostile.outcomes(), by_area.outcomes());
    let info = check(None, Some(&dir), &[], &["--level", "info"]);
    assert_eq!(
        info.outcomes().keys().collect::<Vec<_>>(),
        ["basics.final-newline"]
    );
}

/// A cases folder holding one file with `text`.
fn cases_folder(name: &str, text: &str) -> TempDir {
    let dir = tempfile::Builder::new()
        .prefix("memspec-it-cases-")
        .tempdir()
        .expect("tempdir");
    std::fs::write(dir.path().join(name), text).expect("write case file");
    dir
}

#[test]
fn an_invalid_case_file_is_a_usage_error_naming_file_and_problem() {
    let dir = cases_folder(
        "broken.json",
        r#"{"area": "broken", "cases": [
            {"id": "broken.one", "title": "t", "rules": ["no.such-rule"],
             "steps": [{"input": {"command": "view", "path": "/memories"}, "is_error": false}]},
            {"id": "broken.two", "title": "t", "rules": ["view.dir.contents"],
             "steps": [{"input": {"command": "view", "path": "/memories"}}]}
        ]}"#,
    );
    let mut lint = memspec();
    lint.args(["cases", "lint", "--cases"]).arg(dir.path());
    let lint = run_command(&mut lint);
    assert_eq!(lint.code, 2, "{}", lint.describe());
    assert!(
        lint.stdout
            .contains("broken.json: case `broken.one`: unknown rule id `no.such-rule`"),
        "{}",
        lint.describe()
    );
    assert!(
        lint.stdout
            .contains("broken.json: case `broken.two`: step 1 expects nothing"),
        "{}",
        lint.describe()
    );
    assert!(lint.stdout.contains("2 problems"), "{}", lint.describe());

    // `check` refuses the suite too, naming the problem, before running anything.
    let check = check(None, Some(dir.path()), &[], &[]);
    assert_eq!(check.code, 2, "{}", check.describe());
    assert!(
        check
            .stderr
            .contains("broken.json: case `broken.one`: unknown rule id"),
        "{}",
        check.describe()
    );
}

#[test]
fn a_case_file_that_is_not_json_is_named_by_lint() {
    let dir = cases_folder("garbled.json", "{\"area\": \"garbled\", \"cases\": [");
    let mut lint = memspec();
    lint.args(["cases", "lint", "--cases"]).arg(dir.path());
    let lint = run_command(&mut lint);
    assert_eq!(lint.code, 2, "{}", lint.describe());
    assert!(
        lint.stdout.contains("garbled.json: not a valid case file"),
        "{}",
        lint.describe()
    );
}

#[test]
fn the_fixture_cases_lint_clean() {
    let mut lint = memspec();
    lint.args(["cases", "lint", "--cases"]).arg(fixtures());
    let lint = run_command(&mut lint);
    assert_eq!(lint.code, 0, "{}", lint.describe());
    assert!(lint.stdout.contains("0 problems"), "{}", lint.describe());
}

#[test]
fn a_short_timeout_turns_a_hang_into_an_error_quickly() {
    // The first call of each process also gets --startup-timeout, here 1 s: a hang costs 1.5 s.
    let run = check(
        Some("hang_on_view"),
        Some(&fixtures()),
        &["basics.view-file", "basics.view-missing"],
        &["--timeout", "0.5", "--startup-timeout", "1"],
    );
    assert_eq!(run.code, 3, "{}", run.describe());
    for result in run.results() {
        assert_eq!(result["outcome"], "error", "{result}");
        let reason = result["reason"].as_str().unwrap_or_default();
        assert!(
            reason.contains(
                "did not answer within 1.5 s (0.5 s + 1.0 s start-up allowance for a new process; killed)"
            ),
            "{reason}"
        );
    }
    // With the defaults (30 s start-up, 10 s per call) the two hangs would take at least 40 s;
    // the bound leaves room for a loaded machine and still shows the flags were obeyed.
    assert!(
        run.elapsed < Duration::from_secs(15),
        "took {:?}",
        run.elapsed
    );
}

#[test]
fn a_timeout_that_is_not_a_positive_number_is_a_usage_error() {
    let run = run(&["check", "--timeout", "-1"]);
    assert_eq!(run.code, 2, "{}", run.describe());
}

#[test]
fn backend_broke_takes_precedence_over_not_conformant() {
    // The same run with a crash (error) and a MUST failure (fail) exits 3.
    let run = check(
        Some("_report_mix"),
        Some(&fixtures()),
        &["basics.str-replace", "basics.view-missing"],
        &[],
    );
    assert_eq!(run.outcomes()["basics.str-replace"], "error");
    assert_eq!(run.outcomes()["basics.view-missing"], "fail");
    assert_eq!(run.code, 3, "{}", run.describe());
    assert_eq!(run.json()["verdict"], "backend_broke");
}

#[test]
fn strict_turns_a_should_warning_into_a_failure() {
    let ids = ["basics.create-success"];
    let lenient = check(Some("wrong_success_string"), Some(&fixtures()), &ids, &[]);
    assert_eq!(lenient.code, 0, "{}", lenient.describe());
    assert_eq!(lenient.outcomes()["basics.create-success"], "warn");
    assert_eq!(lenient.json()["verdict"], "conformant");

    let strict = check(
        Some("wrong_success_string"),
        Some(&fixtures()),
        &ids,
        &["--strict"],
    );
    assert_eq!(strict.code, 1, "{}", strict.describe());
    assert_eq!(strict.outcomes()["basics.create-success"], "fail");
    assert_eq!(strict.json()["verdict"], "not_conformant");
    assert_eq!(strict.json()["report"]["strict"], true);
}

#[test]
fn strict_leaves_info_alone() {
    let run = check(
        Some("phantom_final_line"),
        Some(&fixtures()),
        &["basics.final-newline"],
        &["--strict"],
    );
    assert_eq!(run.outcomes()["basics.final-newline"], "info");
    assert_eq!(run.code, 0, "{}", run.describe());
}

// --- baselines -------------------------------------------------------------------------------

/// Writes a baseline with `entries` (case, outcome, reason) into `dir`.
fn baseline(dir: &TempDir, entries: &[(&str, &str, &str)]) -> std::path::PathBuf {
    let accepted: Vec<_> = entries
        .iter()
        .map(|(case, outcome, reason)| json!({"case": case, "outcome": outcome, "reason": reason}))
        .collect();
    let path = dir.path().join("baseline.json");
    let text = serde_json::to_string_pretty(
        &json!({"schema": 1, "backend": "test", "revision": "ga-2026", "accepted": accepted}),
    )
    .expect("baseline json");
    std::fs::write(&path, text).expect("write baseline");
    path
}

fn tempdir() -> TempDir {
    tempfile::Builder::new()
        .prefix("memspec-it-baseline-")
        .tempdir()
        .expect("tempdir")
}

#[test]
fn a_baseline_accepts_a_listed_deviation() {
    let dir = tempdir();
    let path = baseline(
        &dir,
        &[(
            "basics.create-no-overwrite",
            "fail",
            "this store overwrites by design",
        )],
    );
    let run = check(
        Some("create_overwrites"),
        Some(&fixtures()),
        &["basics.create-no-overwrite", "basics.create-success"],
        &["--baseline", path.to_str().expect("utf-8 path")],
    );
    assert_eq!(run.code, 0, "{}", run.describe());
    let result = run.result("basics.create-no-overwrite");
    assert_eq!(result["outcome"], "fail");
    assert_eq!(result["baselined"], "this store overwrites by design");
    assert_eq!(run.json()["verdict"], "conformant");
    assert_eq!(run.json()["report"]["baseline_problems"], json!([]));
}

/// Runs one case against `backend` with a baseline of `entries` and asserts that the run fails
/// (exit 1) with a baseline problem containing `problem`.
fn assert_baseline_problem(
    backend: Option<&str>,
    entries: &[(&str, &str, &str)],
    case: &str,
    problem: &str,
) {
    let dir = tempdir();
    let path = baseline(&dir, entries);
    let run = check(
        backend,
        Some(&fixtures()),
        &[case],
        &["--baseline", path.to_str().expect("utf-8 path")],
    );
    assert_eq!(run.code, 1, "{}", run.describe());
    let problems = run.json()["report"]["baseline_problems"].to_string();
    assert!(problems.contains(problem), "{problems}");
}

#[test]
fn a_listed_case_that_now_passes_fails_the_run() {
    assert_baseline_problem(
        None,
        &[("basics.create-success", "warn", "old wording")],
        "basics.create-success",
        "`basics.create-success` now passes",
    );
}

/// A race shows only when the clients' calls meet: a listed race that passes this run is a
/// note, not a fix to remove from the baseline. The reference never loses an edit, so its
/// `race.edit-edit` always passes.
#[test]
fn a_listed_race_that_did_not_show_is_a_note_not_a_problem() {
    let dir = tempdir();
    let path = baseline(&dir, &[("race.edit-edit", "fail", "no lock")]);
    let run = check(
        None,
        None,
        &["race.edit-edit"],
        &[
            "--clients",
            "2",
            "--baseline",
            path.to_str().expect("utf-8 path"),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.describe());
    assert_eq!(run.result("race.edit-edit")["outcome"], "pass");
    assert_eq!(run.json()["report"]["baseline_problems"], json!([]));
    let notes = run.json()["report"]["notes"].to_string();
    assert!(
        notes.contains("race `race.edit-edit` is listed as `fail` and did not show this run"),
        "{notes}"
    );
}

#[test]
fn a_changed_outcome_fails_the_run() {
    assert_baseline_problem(
        Some("wrong_success_string"),
        &[("basics.create-success", "fail", "was worse")],
        "basics.create-success",
        "the baseline accepts `fail`, the run gave `warn`",
    );
}

#[test]
fn an_entry_naming_no_case_fails_the_run() {
    assert_baseline_problem(
        None,
        &[("basics.renamed-long-ago", "warn", "stale")],
        "basics.create-success",
        "`basics.renamed-long-ago` names no case",
    );
}

#[test]
fn an_unlisted_deviation_fails_a_run_with_a_baseline() {
    assert_baseline_problem(
        Some("wrong_success_string"),
        &[("basics.view-missing", "fail", "known")],
        "basics.create-success",
        "`basics.create-success` gave `warn`",
    );
}

/// INFO outcomes never fail a run, so a baseline need not list them: an unlisted INFO is no
/// difference, and a listed `info` that now passes is a note in the report, not a failure.
#[test]
fn a_baseline_need_not_list_info_outcomes() {
    let dir = tempdir();
    let path = baseline(&dir, &[]);
    let mut command = memspec();
    command
        .args(["check", "--format", "json", "--backend"])
        .arg(super::backend("_report_mix"))
        .arg("--cases")
        .arg(fixtures())
        .args(["--case", "basics.final-newline", "--baseline"])
        .arg(&path);
    let run = run_command(&mut command);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert_eq!(run.outcomes()["basics.final-newline"], "info");
    assert_eq!(run.json()["report"]["baseline_problems"], json!([]));

    // The reference passes it: a listed `info` that changed is said, not failed.
    let path = baseline(
        &dir,
        &[("basics.final-newline", "info", "numbered the final newline")],
    );
    let human = run_command(memspec().args(["check", "--cases"]).arg(fixtures()).args([
        "--case",
        "basics.final-newline",
        "--baseline",
        path.to_str().expect("utf-8 path"),
    ]));
    assert_eq!(human.code, 0, "{}", human.describe());
    assert!(
        human.stdout.contains(
            "note: baseline: case `basics.final-newline` is listed as `info` and gave `pass`"
        ),
        "{}",
        human.describe()
    );
    // A listed warning that is gone still fails the run.
    assert_baseline_problem(
        None,
        &[("basics.final-newline", "warn", "was a warning")],
        "basics.final-newline",
        "`basics.final-newline` now passes",
    );
}

#[test]
fn write_baseline_leaves_out_info_outcomes() {
    let dir = tempdir();
    let path = dir.path().join("written.json");
    let mut command = memspec();
    command
        .args(["check", "--format", "json", "--backend"])
        .arg(super::backend("_report_mix"))
        .arg("--cases")
        .arg(fixtures())
        .args([
            "--case",
            "basics.final-newline",
            "--case",
            "basics.view-file",
        ])
        .arg("--write-baseline")
        .arg(&path);
    let run = run_command(&mut command);
    assert_eq!(
        run.outcomes()["basics.final-newline"],
        "info",
        "{}",
        run.describe()
    );
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("baseline written"))
            .expect("baseline is JSON");
    let listed: Vec<(&str, &str)> = written["accepted"]
        .as_array()
        .expect("accepted")
        .iter()
        .map(|e| {
            (
                e["case"].as_str().unwrap_or_default(),
                e["outcome"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(listed, [("basics.view-file", "warn")]);
    assert!(
        run.stderr.contains("wrote 1 accepted deviation to"),
        "{}",
        run.describe()
    );
}

/// A baseline's outcomes were judged by one revision of the page; under another one they mean
/// something else, so it is refused before the run, naming both and the way out.
#[test]
fn a_baseline_of_another_revision_is_a_usage_error() {
    let dir = tempdir();
    let path = baseline(&dir, &[("basics.create-success", "warn", "old wording")]);
    let run = check(
        None,
        Some(&fixtures()),
        &["basics.create-success"],
        &[
            "--baseline",
            path.to_str().expect("utf-8 path"),
            "--revision",
            "beta-2025",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr
            .contains("was recorded under ga-2026 and this run judges by beta-2025"),
        "{}",
        run.stderr
    );
    // A baseline from before revisions has none: it was judged by the beta text.
    let old = dir.path().join("old.json");
    let text = json!({"schema": 1, "backend": "test", "accepted": []}).to_string();
    std::fs::write(&old, text).expect("write baseline");
    let run = check(
        None,
        Some(&fixtures()),
        &["basics.create-success"],
        &["--baseline", old.to_str().expect("utf-8 path")],
    );
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr.contains("recorded under beta-2025"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_invalid_baseline_is_a_usage_error() {
    let dir = tempdir();
    let path = baseline(
        &dir,
        &[("basics.create-success", "pass", "passing is no deviation")],
    );
    let run = check(
        None,
        Some(&fixtures()),
        &["basics.create-success"],
        &["--baseline", path.to_str().expect("utf-8 path")],
    );
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr.contains("is not a valid baseline"),
        "{}",
        run.describe()
    );
    let missing = check(
        None,
        Some(&fixtures()),
        &["basics.create-success"],
        &["--baseline", "/nonexistent/memspec-baseline.json"],
    );
    assert_eq!(missing.code, 2, "{}", missing.describe());
}

#[test]
fn write_baseline_then_baseline_round_trips() {
    let dir = tempdir();
    let path = dir.path().join("written.json");
    let path_arg = path.to_str().expect("utf-8 path");
    let ids = [
        "basics.create-no-overwrite",
        "basics.view-missing",
        "basics.create-success",
        "attacks.dotdot-view",
    ];
    // is_error_false fails the three error cases and passes the success.
    let first = check(
        Some("is_error_false"),
        Some(&fixtures()),
        &ids,
        &["--write-baseline", path_arg],
    );
    assert_eq!(first.code, 1, "{}", first.describe());
    assert!(
        first.stderr.contains("wrote 3 accepted deviations"),
        "{}",
        first.describe()
    );
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("baseline written"))
            .expect("baseline is JSON");
    let listed: Vec<&str> = written["accepted"]
        .as_array()
        .expect("accepted")
        .iter()
        .map(|e| e["case"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        listed,
        [
            "attacks.dotdot-view",
            "basics.create-no-overwrite",
            "basics.view-missing"
        ]
    );
    assert!(
        written["accepted"][0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("errors.is-error-flag")),
        "{written}"
    );

    let second = check(
        Some("is_error_false"),
        Some(&fixtures()),
        &ids,
        &["--baseline", path_arg],
    );
    assert_eq!(second.code, 0, "{}", second.describe());
    assert_eq!(second.json()["verdict"], "conformant");
}

#[test]
fn a_baseline_can_accept_a_known_crash() {
    // An error is an outcome like any other: the same crash on the next run is accepted.
    let dir = tempdir();
    let path = dir.path().join("crash.json");
    let path_arg = path.to_str().expect("utf-8 path");
    let ids = ["basics.str-replace", "basics.create-success"];
    let first = check(
        Some("crash_on_str_replace"),
        Some(&fixtures()),
        &ids,
        &["--write-baseline", path_arg],
    );
    assert_eq!(first.code, 3, "{}", first.describe());
    let second = check(
        Some("crash_on_str_replace"),
        Some(&fixtures()),
        &ids,
        &["--baseline", path_arg],
    );
    assert_eq!(second.code, 0, "{}", second.describe());
    assert_eq!(second.result("basics.str-replace")["outcome"], "error");
    // The JSON verdict follows the exit code; what the baseline accepted is said beside it.
    let json = second.json();
    assert_eq!(json["verdict"], "conformant", "{json}");
    assert_eq!(
        json["accepted_by_baseline"],
        json!({"failures": 0, "errors": 1}),
        "{json}"
    );
    // The human report does not call a backend that crashes "conformant".
    let mut command = memspec();
    command
        .args(["check", "--backend"])
        .arg(super::backend("crash_on_str_replace"))
        .arg("--cases")
        .arg(fixtures())
        .args(["--baseline", path_arg]);
    for id in ids {
        command.args(["--case", id]);
    }
    let human = run_command(&mut command);
    assert_eq!(human.code, 0, "{}", human.describe());
    assert!(
        human.stdout.contains(
            "verdict: matches the baseline, which accepts 1 error (without it: the backend BROKE)"
        ),
        "{}",
        human.describe()
    );
}

#[test]
fn a_backend_that_never_starts_stops_the_run_at_once() {
    let mut command = memspec();
    command.args([
        "check",
        "--backend",
        "python3 tests/backends/no-such-backend.py {memories}",
    ]);
    let run = run_command(&mut command);
    assert_eq!(run.code, 3, "{}", run.describe());
    assert!(run.stdout.is_empty(), "{}", run.describe());
    assert!(
        run.stderr
            .contains("the backend exited before answering its first call, "),
        "{}",
        run.describe()
    );
    assert!(
        run.stderr.contains("check the --backend command"),
        "{}",
        run.describe()
    );
    // The stderr is quoted once, not once per case.
    assert_eq!(
        run.stderr.matches("no-such-backend.py").count(),
        1,
        "{}",
        run.describe()
    );
}

#[test]
fn a_backend_that_reads_then_crashes_on_every_call_stops_the_run_early() {
    // It starts (it reads its request) and dies on any input: not "never started", but every
    // case would break the same way, so the run stops after a few with one message.
    let mut command = memspec();
    command
        .args(["check", "--format", "json", "--jobs", "2", "--backend"])
        .arg("python3 -c 'import sys; sys.stdin.readline(); sys.exit(1)' {memories}");
    let run = run_command(&mut command);
    assert_eq!(run.code, 3, "{}", run.describe());
    assert!(
        run.stderr.contains("every case broke the same way")
            && run.stderr.contains("exited before answering"),
        "{}",
        run.describe()
    );
    // The whole suite has hundreds of cases; stopping early took a handful of processes.
    assert!(
        run.elapsed < std::time::Duration::from_secs(60),
        "{}",
        run.describe()
    );
}

#[test]
fn a_fixture_the_harness_cannot_make_stops_the_run_as_a_harness_fault() {
    // The hard link's target does not exist under `{base}`: no backend is in the way, the
    // harness itself cannot run the case. That is exit 4 naming the case, never a broken
    // backend (3) or a report.
    let dir = cases_folder(
        "harness.json",
        &json!({
            "area": "harness",
            "description": "A case whose fixture cannot be made.",
            "cases": [{
                "id": "harness.missing-link-target",
                "title": "a hard link to nothing",
                "rules": ["decide.hard-links"],
                "fixtures": [{"path": "hl.txt", "hardlink": "{base}/no-such-file.txt"}],
                "steps": [{
                    "input": {"command": "view", "path": "/memories/hl.txt"},
                    "is_error": true
                }]
            }]
        })
        .to_string(),
    );
    let run = check(None, Some(dir.path()), &[], &[]);
    assert_eq!(run.code, 4, "{}", run.describe());
    assert!(run.stdout.is_empty(), "{}", run.describe());
    assert!(
        run.stderr.contains("harness.missing-link-target")
            && run.stderr.contains("the harness could not run the case")
            && run.stderr.contains("hl.txt"),
        "{}",
        run.describe()
    );
}

#[test]
fn a_backend_that_deletes_its_memories_folder_gets_the_same_outcomes_every_run() {
    // `delete /memories` (any spelling) removes the backend's whole folder. Whatever it did,
    // the next case runs on a rebuilt sandbox: two runs with four workers agree case by case,
    // and no later case is blamed on what an earlier one left.
    let runs: Vec<_> = (0..2)
        .map(|_| {
            check(
                Some("delete_root"),
                None,
                &[],
                &["--area", "delete", "--area", "rename", "-j", "4"],
            )
        })
        .collect();
    let outcomes: Vec<_> = runs.iter().map(super::Run::outcomes).collect();
    assert!(outcomes[0].len() > 50, "{}", runs[0].describe());
    assert_eq!(outcomes[0], outcomes[1]);
    for run in &runs {
        assert_eq!(run.code, 1, "{}", run.describe());
        for result in run.results() {
            let text = result.to_string();
            assert!(
                !text.contains("cannot restore")
                    && !text.contains("tampered")
                    && result["outcome"] != "error",
                "{result}"
            );
        }
    }
    let failed: Vec<&String> = outcomes[0]
        .iter()
        .filter(|(_, o)| *o == "fail")
        .map(|(id, _)| id)
        .collect();
    assert!(
        failed.iter().all(|id| id.starts_with("delete.root")),
        "{failed:?}"
    );
}

/// SIGTERM or Ctrl-C during a run removes the sandboxes (and the embedded adapters' folder) and
/// exits with the shell's code for the signal: drops never run when a signal ends a process.
#[test]
fn a_signal_removes_the_sandboxes_and_exits_with_its_code() {
    for (signal, code) in [
        (rustix::process::Signal::TERM, 143),
        (rustix::process::Signal::INT, 130),
    ] {
        signal_removes_the_temporary_folders(signal, code, &[]);
        // An embedded adapter's folder too: its interpreter never gets going.
        signal_removes_the_temporary_folders(signal, code, &["--python"]);
    }
}

/// Starts `memspec check` with a private `TMPDIR` against a backend that hangs, waits for its
/// temporary folders, sends `signal` and checks the exit `code` and that none is left.
/// `variant` `["--python"]` serves the backend through the embedded Python adapter, run by an
/// interpreter that only sleeps.
fn signal_removes_the_temporary_folders(
    signal: rustix::process::Signal,
    code: i32,
    variant: &[&str],
) {
    {
        let tmp = tempfile::tempdir().expect("tempdir");
        let mut command = memspec();
        command
            .env("TMPDIR", tmp.path())
            .args(["check", "--jobs", "2", "--timeout", "600"])
            .args(["--startup-timeout", "600", "--cases"])
            .arg(fixtures())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        // The sleeping interpreter lives outside TMPDIR, which must hold only memspec's folders.
        let bin = tempfile::tempdir().expect("tempdir");
        if variant == ["--python"] {
            let sleeper = bin.path().join("python");
            // Sleeps as a shell, so that its command line names the sleeper's folder.
            std::fs::write(&sleeper, "#!/bin/sh\nwhile :; do sleep 1; done\n")
                .expect("write the sleeper");
            std::fs::set_permissions(
                &sleeper,
                std::os::unix::fs::PermissionsExt::from_mode(0o755),
            )
            .expect("make it runnable");
            command
                .args([
                    "--python",
                    "adapters/python/examples/dict_backend.py:DictMemoryTool",
                ])
                .arg("--python-bin")
                .arg(&sleeper)
                .arg("--not-on-folder");
        } else {
            command.arg("--backend").arg(super::backend("hang_on_view"));
        }
        let mut child = command.spawn().expect("start memspec");
        // Wait until the workers hang on a view, each in its sandbox.
        let started = std::time::Instant::now();
        let in_tmp = || {
            std::fs::read_dir(tmp.path())
                .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
                .unwrap_or_else(|_| Vec::new())
        };
        while in_tmp().is_empty() && started.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(500));
        assert!(
            !in_tmp().is_empty(),
            "no sandbox was made in {:?}",
            tmp.path()
        );
        let pid = rustix::process::Pid::from_child(&child);
        rustix::process::kill_process(pid, signal).expect("send the signal");
        let status = child.wait().expect("wait for memspec");
        assert_eq!(status.code(), Some(code), "{signal:?} {variant:?}");
        let left: Vec<_> = in_tmp()
            .into_iter()
            .filter(|name| name.to_string_lossy().starts_with("memspec"))
            .collect();
        assert!(
            left.is_empty(),
            "{signal:?} {variant:?} left {left:?} behind"
        );
        // And no backend outlives it: they hang, and would run for ever.
        let mut running = Vec::new();
        for token in [tmp.path(), bin.path()] {
            running.extend(processes_with(&token.to_string_lossy()));
        }
        for &pid in &running {
            if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
        assert!(
            running.is_empty(),
            "{signal:?} {variant:?}: backends left running: {running:?}"
        );
    }
}

#[test]
fn a_case_over_its_time_budget_stops_and_says_so_with_the_time() {
    // `errors.many-calls` makes 50 calls: at 0.2 s each a budget of 1 s stops it after a few.
    let run = check(
        Some("slow"),
        None,
        &["errors.many-calls"],
        &["--case-budget", "1"],
    );
    assert_eq!(run.code, 0, "{}", run.describe());
    let results = run.results();
    assert_eq!(results.len(), 1, "{}", run.describe());
    assert_eq!(results[0]["outcome"], "info", "{}", results[0]);
    let message = results[0]["findings"][0]["message"].as_str().unwrap_or("");
    assert!(
        message.starts_with("not checked: the case ran over its time budget of 1 s: ")
            && message.contains(" of its 50 calls took "),
        "{message}"
    );
    let calls = results[0]["calls"].as_array().map_or(0, Vec::len);
    assert!((1..50).contains(&calls), "{calls} calls made");
}

/// The 1,500 files of `scale.wide-folder` are there for its listing, rename and delete: a backend
/// on the folder gets them planted on disk (1,500 creates cost LangChain's filesystem middleware
/// two minutes), any other backend gets the creates, and both pass.
#[test]
fn a_planted_setup_is_written_on_the_folder_and_created_elsewhere() {
    let calls = |extra: &[&str]| {
        let run = run_command(
            memspec()
                .args(["check", "--format", "json", "--case", "scale.wide-folder"])
                .args(extra),
        );
        assert_eq!(run.code, 0, "{}", run.describe());
        let result = run.result("scale.wide-folder");
        assert_eq!(result["outcome"], "pass", "{result}");
        result["calls"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["input"]["command"] == "create")
            .count()
    };
    let serve = format!("{} serve {{memories}}", bin());
    assert_eq!(calls(&["--backend", &serve]), 1, "only keep.txt is created");
    let elsewhere = calls(&["--not-on-folder", "--backend", &serve]);
    assert_eq!(elsewhere, 1501);
}
