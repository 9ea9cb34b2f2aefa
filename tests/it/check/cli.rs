//! The command line around the runner: closed pipes, selection values and output paths.

use std::process::Stdio;

use super::{fixtures, memspec, run};

/// Runs `memspec args` with stdout and stderr on a pipe whose read end is closed before the
/// process starts, so every write it makes fails (as under `memspec … 2>&1 | head -0`), and
/// returns its exit code.
fn run_into_closed_pipe(args: &[&str]) -> i32 {
    let (reader, writer) = std::io::pipe().expect("make a pipe");
    drop(reader);
    let status = memspec()
        .args(args)
        .stdin(Stdio::null())
        .stdout(writer.try_clone().expect("clone the pipe"))
        .stderr(writer)
        .status()
        .expect("run memspec");
    // A panic would be 101; a signal would be no code at all.
    status.code().unwrap_or(-1)
}

#[test]
fn a_closed_pipe_ends_every_command_quietly_with_141() {
    let memories = tempfile::tempdir().expect("tempdir");
    let memories_arg = memories.path().to_string_lossy().into_owned();
    let report = tempfile::tempdir().expect("tempdir");
    let report_path = report.path().join("report.xml");
    let report_arg = report_path.to_string_lossy().into_owned();
    let cases = fixtures();
    let cases_arg = cases.to_string_lossy().into_owned();
    let transcript = super::root().join("tests/fixtures/transcripts/inputs.jsonl");
    let transcript_arg = transcript.to_string_lossy().into_owned();
    let commands: Vec<(Vec<&str>, i32)> = vec![
        // The report goes to stdout (a backend that reads its request, then exits: graded
        // case by case).
        (
            vec![
                "check",
                "--backend",
                "head -n 1 >/dev/null",
                "--area",
                "create",
            ],
            // Every case breaks alike: the run stops (3), its message on the closed stderr.
            3,
        ),
        // A backend that never starts stops the run with one message, on the closed stderr:
        // the exit code still tells what happened.
        (vec!["check", "--backend", "false", "--area", "create"], 3),
        (
            vec!["check", "--cases", &cases_arg, "--format", "json"],
            141,
        ),
        // The report goes to a file; the summary to the closed stderr is dropped.
        (
            vec![
                "check",
                "--cases",
                &cases_arg,
                "--format",
                "junit",
                "-o",
                &report_arg,
            ],
            0,
        ),
        // A diagnostic only, on the closed stderr.
        (vec!["check", "--area", "nosuch"], 2),
        (vec!["cases", "list"], 141),
        (vec!["cases", "lint"], 141),
        (vec!["spec", "coverage"], 141),
        (
            vec![
                "call",
                r#"{"command":"view","path":"/memories"}"#,
                "--memories",
                &memories_arg,
            ],
            141,
        ),
        (
            vec![
                "matrix",
                "--backend",
                "x=head -n 1 >/dev/null",
                "--cases",
                &cases_arg,
            ],
            141,
        ),
        (vec!["replay", &transcript_arg, "--report"], 141),
    ];
    for (args, expected) in &commands {
        assert_eq!(
            run_into_closed_pipe(args),
            *expected,
            "memspec {}",
            args.join(" ")
        );
    }
}

#[test]
fn serve_ends_quietly_when_the_harness_closes_its_pipe() {
    let memories = tempfile::tempdir().expect("tempdir");
    let (reader, writer) = std::io::pipe().expect("make a pipe");
    drop(reader);
    let mut child = memspec()
        .arg("serve")
        .arg(memories.path())
        .stdin(Stdio::piped())
        .stdout(writer.try_clone().expect("clone the pipe"))
        .stderr(writer)
        .spawn()
        .expect("run memspec serve");
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        let _ = stdin.write_all(b"{\"id\":1,\"control\":\"hello\"}\n");
    }
    let status = child.wait().expect("wait for memspec serve");
    assert_eq!(status.code(), Some(141));
}

#[test]
fn the_output_is_whole_when_nobody_closes_the_pipe() {
    // The counterpart of the tests above: the same command, read to the end, exits normally.
    let listed = run(&["cases", "list"]);
    assert_eq!(listed.code, 0, "{}", listed.describe());
    assert!(listed.stderr.is_empty(), "{}", listed.describe());
}

#[test]
fn an_unknown_area_is_a_usage_error_naming_the_known_areas() {
    let run = run(&["check", "--area", "nosuch"]);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr
            .contains(r#"unknown area "nosuch"; known areas: create, delete, encoding,"#),
        "{}",
        run.describe()
    );
    assert!(run.stdout.is_empty(), "{}", run.describe());
    let matrix = super::run(&["matrix", "--backend", "x=false", "--area", "nosuch"]);
    assert_eq!(matrix.code, 2, "{}", matrix.describe());
    assert!(
        matrix.stderr.contains("unknown area"),
        "{}",
        matrix.describe()
    );
}

#[test]
fn an_unknown_rule_is_a_usage_error_with_a_hint() {
    let bogus = run(&["check", "--rule", "bogus.rule"]);
    assert_eq!(bogus.code, 2, "{}", bogus.describe());
    assert!(
        bogus
            .stderr
            .contains(r#"unknown rule "bogus.rule"; `memspec spec coverage` lists the"#),
        "{}",
        bogus.describe()
    );
    // A typo in a known family names its members.
    let typo = run(&["check", "--rule", "create.no-overwrit"]);
    assert_eq!(typo.code, 2, "{}", typo.describe());
    assert!(
        typo.stderr.contains("rules with that prefix:")
            && typo.stderr.contains("create.no-overwrite"),
        "{}",
        typo.describe()
    );
}

#[test]
fn a_case_pattern_matching_no_id_is_a_usage_error() {
    let cases = fixtures();
    let run = super::check(None, Some(&cases), &["no-such-case.*"], &[]);
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr.contains(
            r#"--case "no-such-case.*" matches no case id; `memspec cases list` lists them"#
        ),
        "{}",
        run.describe()
    );
}

#[test]
fn an_output_path_in_a_missing_folder_is_a_usage_error_named_before_the_run() {
    for flag in ["-o", "--write-baseline"] {
        let run = run(&["check", "--format", "junit", flag, "/nonexistent/dir/x.xml"]);
        assert_eq!(run.code, 2, "{}", run.describe());
        assert!(
            run.stderr
                .contains("/nonexistent/dir/x.xml: the folder /nonexistent/dir does not exist"),
            "{}",
            run.describe()
        );
        assert!(run.stdout.is_empty(), "{}", run.describe());
    }
}

#[test]
fn a_report_that_cannot_be_written_names_its_path() {
    // The folder exists, so the run goes ahead; the write itself fails (a folder is in the way).
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("report.xml");
    std::fs::create_dir(&target).expect("make the obstacle");
    let target_arg = target.to_string_lossy().into_owned();
    let cases = fixtures();
    let cases_arg = cases.to_string_lossy().into_owned();
    let run = run(&[
        "check",
        "--cases",
        &cases_arg,
        "--format",
        "junit",
        "-o",
        &target_arg,
    ]);
    assert_eq!(run.code, 4, "{}", run.describe());
    assert!(
        run.stderr
            .contains(&format!("cannot write the report to {target_arg}: ")),
        "{}",
        run.describe()
    );
}

#[test]
fn outside_a_clone_the_built_in_suite_runs_and_folders_override_it() {
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let listed = super::run_command(
        memspec()
            .current_dir(elsewhere.path())
            .args(["cases", "list"]),
    );
    assert_eq!(listed.code, 0, "{}", listed.describe());
    assert!(
        listed.stdout.lines().count() >= 250,
        "{}",
        listed.describe()
    );
    let checked = super::run_command(
        memspec()
            .current_dir(elsewhere.path())
            .args(["check", "--area", "create", "--format", "json"]),
    );
    assert_eq!(checked.code, 0, "{}", checked.describe());
    let cases = fixtures();
    let fixture_only = super::run_command(
        memspec()
            .current_dir(elsewhere.path())
            .arg("cases")
            .arg("list")
            .arg("--cases")
            .arg(&cases),
    );
    assert_eq!(fixture_only.code, 0, "{}", fixture_only.describe());
    assert!(
        fixture_only.stdout.lines().count() < 20,
        "{}",
        fixture_only.describe()
    );
    let missing = super::run_command(memspec().current_dir(elsewhere.path()).args([
        "cases",
        "list",
        "--cases",
        "no-such-folder",
    ]));
    assert_eq!(missing.code, 2, "{}", missing.describe());
    assert!(
        missing
            .stderr
            .contains("cannot read the cases folder no-such-folder")
            && missing
                .stderr
                .contains("leave it out for the built-in suite"),
        "{}",
        missing.describe()
    );
}

#[test]
fn a_zero_timeout_or_zero_jobs_is_a_usage_error() {
    let transcript = super::root().join("tests/fixtures/transcripts/inputs.jsonl");
    let transcript_arg = transcript.to_string_lossy().into_owned();
    let golden = tempfile::tempdir().expect("tempdir");
    let golden_arg = golden.path().join("golden.jsonl");
    let golden_arg = golden_arg.to_string_lossy().into_owned();
    let commands: Vec<Vec<&str>> = vec![
        vec!["check", "--timeout", "0"],
        vec!["check", "--timeout=-1"],
        vec!["check", "-j", "0"],
        vec!["matrix", "--backend", "x=cat", "--timeout", "0"],
        vec!["matrix", "--backend", "x=cat", "--jobs", "0"],
        vec!["replay", &transcript_arg, "--report", "--timeout", "0"],
        vec![
            "record",
            &transcript_arg,
            "-o",
            &golden_arg,
            "--timeout",
            "0",
        ],
    ];
    for args in commands {
        let run = run(&args);
        assert_eq!(run.code, 2, "{args:?}\n{}", run.describe());
        assert!(
            run.stderr.contains("above 0") || run.stderr.contains("1 or more"),
            "{args:?}\n{}",
            run.describe()
        );
    }
}

#[test]
fn the_rerun_line_keeps_the_timeouts() {
    let mut command = memspec();
    command
        .args(["check", "--backend"])
        .arg(super::backend("_report_mix"))
        .arg("--cases")
        .arg(fixtures())
        .args(["--case", "basics.view-missing"])
        .args(["--timeout", "7.5", "--startup-timeout", "60"]);
    let run = super::run_command(&mut command);
    assert_eq!(run.code, 1, "{}", run.describe());
    assert!(
        run.stdout
            .contains("--timeout 7.5 --startup-timeout 60 --case basics.view-missing --verbose"),
        "{}",
        run.describe()
    );
}

#[test]
fn one_case_is_one_case() {
    let mut command = memspec();
    command
        .args(["check", "--cases"])
        .arg(fixtures())
        .args(["--case", "basics.create-success"]);
    let run = super::run_command(&mut command);
    assert_eq!(run.code, 0, "{}", run.describe());
    // The verdict opens the report and closes it; the summary is before the last.
    assert!(
        run.stdout.starts_with("verdict: conformant\n"),
        "{}",
        run.describe()
    );
    assert!(
        run.stdout.contains("\n1 case (0 hostile) against"),
        "{}",
        run.describe()
    );
    assert!(run.stdout.contains(", 0 errors\n"), "{}", run.describe());
    assert!(!run.stdout.contains("1 cases"), "{}", run.describe());
}

/// `matrix --not-on-folder`: a backend that keeps its memories in memory (while its command names
/// `{memories}`) is judged through the tool, as `check --not-on-folder` judges it.
#[test]
fn matrix_not_on_folder_judges_an_in_memory_store_through_the_tool() {
    let script = super::root().join("tests/backends/independent/memory.py");
    let backend = format!("kv=python3 {} --mode kv {{memories}}", script.display());
    let outcome = |extra: &[&str]| {
        let mut args = vec![
            "matrix",
            "--format",
            "json",
            "--case",
            "create.new-file",
            "--backend",
            &backend,
        ];
        args.extend_from_slice(extra);
        let run = super::run(&args);
        assert_eq!(run.code, 0, "{}", run.describe());
        let matrix: serde_json::Value = serde_json::from_str(&run.stdout).expect("matrix JSON");
        matrix["rows"][0]["outcomes"][1]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    // Taken to be on the folder (its command names `{memories}`), a file it creates is not on
    // disk while its view shows it: the run is checked off the folder, as with the flag.
    assert_eq!(outcome(&[]), "pass");
    assert_eq!(outcome(&["--not-on-folder"]), "pass");
}
