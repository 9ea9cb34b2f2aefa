//! A store of the backend's own: `{state}` (a folder per sandbox, never watched, new with each
//! one) and the look at `/memories` after every `reset` and fresh start, which stops a run on
//! a store memspec cannot empty with one message instead of judging cases on it.

use super::{check_kv, root, run_command};

fn kv(name: &str, args: &str) -> String {
    let script = root().join("tests/backends/kv").join(format!("{name}.py"));
    format!("python3 {} {args}", script.display())
}

/// A reset that answers ok and forgets nothing: one message naming what it left, exit 3, and
/// no case judged (no finding, no failed case) on that store.
#[test]
fn a_reset_that_forgets_nothing_stops_the_run_with_one_message() {
    let run = check_kv(
        &kv("reset_keeps", "{memories}"),
        &["--area", "create", "-j", "1"],
    );
    assert_eq!(run.code, 3, "{}", run.describe());
    assert!(
        run.stderr
            .contains("after `reset` answered ok, `view /memories` still listed /memories/"),
        "{}",
        run.describe()
    );
    assert!(
        run.stderr
            .contains("the backend's reset does not empty its store"),
        "{}",
        run.describe()
    );
    // The message is the run's end, not a report of findings against the backend's answers.
    assert!(run.stdout.trim().is_empty(), "{}", run.describe());
}

/// A backend that cannot reset and keeps its store at a fixed place: each new process starts
/// on the earlier cases' memories, which memspec says once.
#[test]
fn a_store_no_new_sandbox_empties_is_named_once() {
    let place = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let fixed = place.path().join("fixed.sqlite");
    let command = kv("no_reset", &format!("--file {}", fixed.display()));
    let run = check_kv(&command, &["--area", "create", "-j", "1"]);
    assert_eq!(run.code, 3, "{}", run.describe());
    assert!(
        run.stderr.contains(
            "started on a new sandbox and a new, empty {state}, the backend's `view /memories` already listed /memories/"
        ),
        "{}",
        run.describe()
    );
}

/// The same backend on a place in `{state}`: a new store with every process, so nothing to
/// reset, and a clean verdict.
#[test]
fn a_store_in_state_needs_no_reset() {
    let command = kv("no_reset", "--file {state}/kv.sqlite");
    let run = check_kv(&command, &["--area", "create", "-j", "2"]);
    assert_eq!(run.code, 0, "{}", run.describe());
    let notes = run.json()["report"]["notes"].to_string();
    assert!(
        notes.contains("cannot reset its store (this backend cannot forget its memories)"),
        "{notes}"
    );
}

/// `{state}` is outside the sandbox: a store file there is no confinement finding, where the
/// same file in `{base}` is one.
#[test]
fn a_file_in_state_is_no_escape_and_one_in_base_is() {
    let in_state = check_kv(
        &kv("no_reset", "--file {state}/kv.sqlite"),
        &["--case", "create.new-file", "--case", "restart.*"],
    );
    assert_eq!(in_state.code, 0, "{}", in_state.describe());
    let in_base = run_command(super::memspec().args([
        "check",
        "--format",
        "json",
        "--not-on-folder",
        "--case",
        "create.new-file",
        "--backend",
        &kv("no_reset", "--file {base}/kv.sqlite"),
    ]));
    assert_eq!(in_base.code, 1, "{}", in_base.describe());
    assert!(
        in_base.stdout.contains("\"confinement.all-operations\""),
        "{}",
        in_base.describe()
    );
}

/// A `--python` factory that keeps its store in `{state}`, run without `--not-on-folder` or
/// `--per-user`: its adapter's command names `{base}`, so it was taken to keep its memories on
/// the folder, and every file it wrote was "lost" from the disk (411 false failures, 395 of
/// them DATA LOSS, for a newcomer's SQLite store). A file it creates is now looked for on disk
/// first: not there, its view showing it, the run is checked off the folder and says so.
#[test]
fn a_store_off_the_folder_is_found_before_the_cases() {
    let run = run_command(super::memspec().args([
        "check",
        "--format",
        "json",
        "--no-recheck",
        "--area",
        "create",
        "--python",
        "docs/guide/json-store/json_store.py:make",
    ]));
    assert_eq!(run.code, 0, "{}", run.describe());
    let notes = run.json()["report"]["notes"].to_string();
    assert!(
        notes.contains("the backend keeps its memories outside {memories}"),
        "{notes}"
    );
    // A backend whose files are on the folder is left on it, and nothing is said.
    let serve = format!("{} serve {{memories}}", super::bin());
    let on_folder = run_command(super::memspec().args([
        "check",
        "--format",
        "json",
        "--no-recheck",
        "--case",
        "create.new-file",
        "--backend",
        &serve,
    ]));
    assert_eq!(on_folder.code, 0, "{}", on_folder.describe());
    assert!(
        !on_folder.stdout.contains("outside {memories}"),
        "{}",
        on_folder.describe()
    );
}
