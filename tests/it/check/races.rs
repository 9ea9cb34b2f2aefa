//! The races `check` runs by default (two processes of the backend on one store, after the
//! cases), and the backends they cannot run on: processes that each keep their own store, and a
//! store that one process at a time may open. Those are skipped with the reason, never run
//! against two stores nor reported as a backend that broke.

use super::{Run, backend, bin, check_kv, root};

/// `memspec check --area races` on `backend`, with `args`.
fn races(backend: &str, args: &[&str]) -> Run {
    check_kv(backend, &[&["--area", "races"], args].concat())
}

/// Each race's id, outcome and reason: the four of them, whatever else ran.
fn outcomes(run: &Run) -> Vec<(String, String, String)> {
    let outcomes: Vec<(String, String, String)> = run
        .results()
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap_or("?").to_string(),
                r["outcome"].as_str().unwrap_or("?").to_string(),
                r["reason"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(outcomes.len(), 4, "{}", run.describe());
    outcomes
}

#[test]
fn the_races_run_by_default_and_the_reference_passes_them() {
    let run = races(&format!("{} serve {{memories}}", bin()), &[]);
    assert_eq!(run.code, 0, "{}", run.describe());
    let mut ids: Vec<(String, String)> = outcomes(&run)
        .into_iter()
        .map(|(id, outcome, _)| (id, outcome))
        .collect();
    ids.sort();
    let expected: Vec<(String, String)> = [
        "race.create-create",
        "race.delete-create",
        "race.edit-edit",
        "race.rename-view",
    ]
    .iter()
    .map(|id| (id.to_string(), "pass".to_string()))
    .collect();
    assert_eq!(ids, expected, "{}", run.describe());
}

#[test]
fn processes_that_share_no_store_have_their_races_skipped_with_the_reason() {
    // A dict in each process: the second process never sees the first one's file.
    let dict = format!(
        "python3 {} {{memories}}",
        root().join("tests/backends/kv/correct.py").display()
    );
    let run = races(&dict, &["--not-on-folder"]);
    assert_eq!(run.code, 0, "{}", run.describe());
    for (id, outcome, reason) in outcomes(&run) {
        assert_eq!(outcome, "skip", "{id}: {}", run.describe());
        assert!(reason.contains("do not share one store"), "{id}: {reason}");
    }
    // The same backend on a store its processes share races and passes.
    let shared = format!(
        "python3 {} --shared {{memories}}",
        root().join("tests/backends/kv/correct.py").display()
    );
    let run = races(&shared, &["--not-on-folder"]);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(
        outcomes(&run)
            .iter()
            .all(|(_, outcome, _)| outcome == "pass"),
        "{}",
        run.describe()
    );
    // A store one process at a time may open: the second exits at once. Not a break.
    let run = races(&backend("one_process_only"), &[]);
    assert_eq!(run.code, 0, "{}", run.describe());
    for (id, outcome, reason) in outcomes(&run) {
        assert_eq!(outcome, "skip", "{id}: {}", run.describe());
        assert!(
            reason.contains("a second process of the backend on the same store broke")
                && reason.contains("database is locked"),
            "{id}: {reason}"
        );
    }
}

/// A store that refuses a race's setup (here, a path deeper than its one folder level) leaves
/// that race unrun: a skip naming the refusal, never "the backend BROKE"; the other races run.
#[test]
fn a_race_setup_the_store_refuses_is_a_skip_with_its_reason() {
    let store = format!(
        "python3 {} --shared {{memories}}",
        root()
            .join("tests/backends/kv/one_folder_deep.py")
            .display()
    );
    let run = races(&store, &["--not-on-folder"]);
    assert_eq!(run.code, 0, "{}", run.describe());
    for (id, outcome, reason) in outcomes(&run) {
        if id == "race.delete-create" {
            assert_eq!(outcome, "skip", "{}", run.describe());
            assert!(reason.starts_with("race not run: "), "{reason}");
            assert!(reason.contains("at most one folder deep"), "{reason}");
        } else {
            assert_eq!(outcome, "pass", "{id}: {}", run.describe());
        }
    }
}

/// `concurrency.no-lost-update` is MUST, so the races are kept by `--level must`.
#[test]
fn the_races_are_kept_by_level_must() {
    let run = races(
        &format!("{} serve {{memories}}", bin()),
        &["--level", "must"],
    );
    assert_eq!(run.code, 0, "{}", run.describe());
    assert_eq!(outcomes(&run).len(), 4, "{}", run.describe());
    assert!(
        run.results().iter().all(|r| r["level"] == "MUST"),
        "{}",
        run.describe()
    );
}

/// A store whose views are the bare text (a format the witness does not read) stores every
/// byte right: its races are not judged (INFO, saying so), never a lost edit.
#[test]
fn a_view_the_witness_cannot_read_is_no_lost_edit() {
    let run = races(&backend("bare_view"), &[]);
    assert_eq!(run.code, 0, "{}", run.describe());
    for (id, outcome, _) in outcomes(&run) {
        assert_eq!(outcome, "info", "{id}: {}", run.describe());
    }
    assert!(
        run.json()["root_causes"]
            .as_array()
            .is_none_or(|causes| causes.is_empty()),
        "{}",
        run.describe()
    );
}
