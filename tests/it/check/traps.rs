//! The traps a first-time backend author hit (issue 11, item 4): each test here failed before
//! its fix.

use super::{memspec, root, run_command};

const VENV_PYTHON: &str = ".ci/.venv/bin/python";

/// Whether the official SDKs the adapters need are installed (`.ci/install-sdks`).
fn sdks() -> bool {
    root().join(VENV_PYTHON).exists()
        && root()
            .join("adapters/node/node_modules/@anthropic-ai/sdk")
            .exists()
}

/// The README's first Node example exported a ready-made `betaMemoryTool({...})`: its store
/// survived `reset` and cases failed on the files of earlier ones. The adapter now says no, and
/// the run gives the factory's verdicts, one process per case, saying why once.
#[test]
fn a_ready_made_node_tool_runs_one_process_per_case_and_says_why() {
    if !sdks() {
        return;
    }
    let check = |export: &str| {
        run_command(memspec().args([
            "check",
            "--format",
            "json",
            "--not-on-folder",
            "--area",
            "create",
            "-j",
            "2",
            "--node",
            &format!("adapters/node/examples/map-backend.mjs:{export}"),
        ]))
    };
    let ready = check("tool");
    let factory = check("makeTool");
    assert!(!ready.outcomes().is_empty(), "{}", ready.describe());
    assert_eq!(ready.outcomes(), factory.outcomes(), "{}", ready.describe());
    let notes = ready.json()["report"]["notes"].to_string();
    assert!(
        notes.contains("the backend cannot reset its store (")
            && notes.contains("ready-made")
            && notes.contains("one process per case"),
        "{}",
        ready.describe()
    );
    assert!(
        factory.json()["report"]["notes"].is_null(),
        "{}",
        factory.describe()
    );
}

/// The same through the Python adapter, and the human summary says it once.
#[test]
fn a_ready_made_python_tool_says_no_to_reset_and_the_summary_says_why() {
    if !sdks() {
        return;
    }
    let run = run_command(memspec().args([
        "check",
        "--not-on-folder",
        "--area",
        "create",
        "-j",
        "2",
        "--python-bin",
        VENV_PYTHON,
        "--python",
        "tests/backends/ready_made_dict.py:tool",
    ]));
    let all = format!("{}{}", run.stdout, run.stderr);
    assert_eq!(
        all.matches("note: the backend cannot reset its store (")
            .count(),
        1,
        "{}",
        run.describe()
    );
    assert!(all.contains("clear_all_memory()"), "{}", run.describe());
    // No case fails on an earlier case's memories: the class gives the same verdict.
    let class = run_command(memspec().args([
        "check",
        "--not-on-folder",
        "--area",
        "create",
        "--python-bin",
        VENV_PYTHON,
        "--python",
        "adapters/python/examples/dict_backend.py:DictMemoryTool",
    ]));
    assert_eq!(
        run.code,
        class.code,
        "{}\n{}",
        run.describe(),
        class.describe()
    );
}

/// A protocol backend that prints one log line on stdout before its replies broke every case,
/// but read two ways at random (the log line "not JSON", or the valid reply behind it "an extra
/// line"), so the run never saw the same break 8 times in a row and ran to its end: 476 errors
/// in 1,118 s. Now the log line is always the one quoted, and the run stops early.
#[test]
fn a_log_line_on_stdout_stops_the_run_early_quoting_the_log_line() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let turns = dir.path().join("turns");
    let run = run_command(
        memspec()
            .args([
                "check",
                "-j",
                "2",
                "--backend",
                &super::backend("log_line_at_start"),
            ])
            .env("LOG_LINE_TURNS", &turns),
    );
    let all = format!("{}{}", run.stdout, run.stderr);
    assert_eq!(run.code, 3, "{}", run.describe());
    assert!(
        all.contains("every case broke the same way") && all.contains("line: starting"),
        "{}",
        run.describe()
    );
    // Never a valid reply quoted as the offending line.
    assert!(
        !all.contains("line after the reply: {"),
        "{}",
        run.describe()
    );
    assert!(
        run.elapsed < std::time::Duration::from_secs(60),
        "{}",
        run.describe()
    );
}

/// `-j` starts several backend processes at once, and a backend with a fixed database file
/// shared it between them (one worker's `reset` wiped another's case). Each worker's processes
/// now see a distinct `MEMSPEC_WORKER`, so the author can keep one store per worker.
#[test]
fn each_worker_passes_its_own_memspec_worker() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let log = dir.path().join("workers");
    let run = run_command(
        memspec()
            .args([
                "check",
                "--format",
                "json",
                "-j",
                "3",
                "--area",
                "create",
                "--backend",
                &super::backend("worker_log"),
            ])
            // An outer memspec's worker number is never passed on.
            .env("MEMSPEC_WORKER", "99")
            .env("WORKER_LOG", &log),
    );
    assert_eq!(run.code, 0, "{}", run.describe());
    let seen: std::collections::BTreeSet<String> = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    // Every worker that started a process said its own number (three, unless one got no case).
    assert!(
        seen.len() >= 2 && seen.iter().all(|w| ["0", "1", "2"].contains(&w.as_str())),
        "{seen:?}\n{}",
        run.describe()
    );
}

/// `--not-on-folder` skipped the cases needing fixtures with a reason, but never said which
/// rules the run then left unchecked: the summary names them, and only them.
#[test]
fn not_on_folder_names_the_rules_left_unchecked() {
    let reference = format!("{} serve {{memories}}", super::bin());
    let run = super::run(&[
        "check",
        "--not-on-folder",
        "--backend",
        &reference,
        "--rule",
        "decide.hard-links",
        "--rule",
        "create.no-overwrite",
    ]);
    let all = format!("{}{}", run.stdout, run.stderr);
    let line = all
        .lines()
        .find(|l| l.contains("unchecked:"))
        .unwrap_or_else(|| panic!("no unchecked line\n{}", run.describe()));
    assert!(line.contains("decide.hard-links"), "{line}");
    assert!(!line.contains("create.no-overwrite"), "{line}");
    // On its folder nothing is skipped, and nothing is said.
    let on_folder = super::run(&[
        "check",
        "--backend",
        &reference,
        "--rule",
        "decide.hard-links",
    ]);
    assert!(
        !format!("{}{}", on_folder.stdout, on_folder.stderr).contains("unchecked:"),
        "{}",
        on_folder.describe()
    );
}

/// A backend that keeps one store for all its processes, whatever `MEMSPEC_WORKER` says, got
/// false failures from `-j` (one worker's `reset` wiped another's case: 48 failures instead of
/// 20 with `-j 1`) and no word of why. Now either the look at `/memories` after a reset sees
/// another worker's memories, and the run stops saying that the workers may share one store
/// (never blaming the reset alone), or the failing cases are run again alone and the report
/// notes those that pass then; the verdict stays the parallel run's. Which of the two comes
/// first is the machine's timing; both name the cause.
#[test]
fn failures_that_pass_alone_are_noted_in_the_report() {
    let store = tempfile::tempdir().expect("a temporary folder");
    let check = |jobs: &str, format: &str, extra: &[&str]| {
        run_command(
            memspec()
                .args(["check", "--format", format, "--not-on-folder"])
                .args(["--area", "create", "-j", jobs, "--backend"])
                .arg(format!(
                    "python3 {}",
                    super::root()
                        .join("tests/backends/shared_store.py")
                        .display()
                ))
                .args(extra)
                .env("SHARED_STORE", store.path()),
        )
    };
    // The sharing, said one of the two ways.
    let says_shared = |run: &super::Run| {
        if run.code == 3 {
            assert!(
                run.stderr
                    .contains("or the 4 workers' processes share one store")
                    && run.stderr.contains("MEMSPEC_WORKER")
                    && run.stderr.contains("A run with -j 1 tells which")
                    && !run.stderr.contains("the backend's reset does not empty"),
                "{}",
                run.describe()
            );
            return;
        }
        // The verdict is the parallel run's: its failures are not hidden.
        assert_eq!(run.code, 1, "{}", run.describe());
        assert!(
            run.stdout.contains("neither fail nor break when run alone")
                && run.stdout.contains("MEMSPEC_WORKER"),
            "{}",
            run.describe()
        );
        assert!(
            run.stderr.contains("rechecking the cases"),
            "{}",
            run.describe()
        );
    };
    for format in ["json", "human", "markdown"] {
        says_shared(&check("4", format, &[]));
    }
    // Alone, the backend passes: nothing to recheck, nothing said.
    let alone = check("1", "json", &[]);
    assert_eq!(alone.code, 0, "{}", alone.describe());
    assert!(
        alone.json()["report"]["notes"].is_null(),
        "{}",
        alone.describe()
    );
    // --no-recheck: the parallel run as it is, never rechecked.
    let unchecked = check("4", "json", &["--no-recheck"]);
    assert!(
        unchecked.code == 3 || unchecked.json()["report"]["notes"].is_null(),
        "{}",
        unchecked.describe()
    );
    assert!(
        !unchecked.stderr.contains("rechecking"),
        "{}",
        unchecked.describe()
    );
}

/// A backend that fails the same cases alone as in parallel gets its recheck, and no note.
#[test]
fn failures_that_fail_alone_too_are_not_noted() {
    let run = run_command(memspec().args([
        "check",
        "--format",
        "json",
        "--area",
        "create",
        "-j",
        "4",
        "--backend",
        &super::backend("create_overwrites"),
    ]));
    assert_ne!(run.code, 0, "{}", run.describe());
    assert!(
        run.stderr.contains("rechecking the cases"),
        "{}",
        run.describe()
    );
    assert!(
        !run.json()["report"]["notes"]
            .to_string()
            .contains("run alone"),
        "{}",
        run.describe()
    );
}

/// The Java template timed out on a 9 MB view with -j 4 on a loaded CI machine and passed alone
/// in a few seconds; the run was graded BROKE all the same. A case whose only fault is a call past
/// `--timeout` and that passes alone was late, not broken: its result is the lone run's, and the
/// report says so. A real hang stays a hang (`hang_on_view` is checked in `broken`).
#[test]
fn timeouts_that_pass_alone_take_the_lone_result() {
    let check = |jobs: &str, extra: &[&str]| {
        run_command(
            memspec()
                .args(["check", "--format", "json", "--case", "view-file.missing*"])
                .args(["--case", "view-file.*-newline*", "--case", "view-file.b*"])
                .args(["-j", jobs, "--timeout", "1", "--backend"])
                .arg(format!(
                    "python3 {}",
                    root().join("tests/backends/late_when_busy.py").display()
                ))
                .args(extra),
        )
    };
    let unchecked = check("2", &["--no-recheck"]);
    let late = unchecked
        .results()
        .iter()
        .filter(|r| r["outcome"] == "error")
        .count();
    assert!(
        late > 0 && unchecked.code != 0,
        "worker 1's views time out\n{}",
        unchecked.describe()
    );
    let rechecked = check("2", &[]);
    assert_eq!(rechecked.code, 0, "{}", rechecked.describe());
    let notes = rechecked.json()["report"]["notes"].to_string();
    assert!(
        notes.contains("did not answer within --timeout (1 s), and did alone (-j 1)")
            && !notes.contains("MEMSPEC_WORKER"),
        "{}",
        rechecked.describe()
    );
    assert!(
        rechecked.results().iter().all(|r| r["outcome"] != "error"),
        "{}",
        rechecked.describe()
    );
}
