//! The restart cases (`restart.*`, rule `persistence.restart`): a backend stopped and started
//! again on the same store serves every memory at its path with its bytes. Key-value backends
//! of `tests/backends/kv/` with `--shared` keep a SQLite store between processes; without it
//! they keep a dict, a store in the process only.

use super::{Run, bin, causes, check_kv, memspec, root, run_command};

/// `memspec check --area restart` on `tests/backends/kv/<name>.py` (with `--shared` when
/// `shared`), its SQLite files in a folder of the test's own.
fn restart(name: &str, shared: bool) -> Run {
    let script = root().join("tests/backends/kv").join(format!("{name}.py"));
    let shared = if shared { " --shared" } else { "" };
    let backend = format!("python3 {}{shared} {{memories}}", script.display());
    check_kv(
        &backend,
        &["--no-recheck", "--area", "restart", "--not-on-folder"],
    )
}

/// The outcome of every restart case.
fn outcomes(run: &Run) -> Vec<String> {
    let mut outcomes: Vec<String> = run.outcomes().into_values().collect();
    outcomes.sort();
    outcomes.dedup();
    outcomes
}

#[test]
fn a_store_kept_between_processes_passes_and_one_in_the_process_is_its_choice() {
    let run = restart("correct", true);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert_eq!(outcomes(&run), ["pass"], "{}", run.describe());

    // A dict starts empty in every process: one INFO per case, never a loss.
    let run = restart("correct", false);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert_eq!(outcomes(&run), ["info"], "{}", run.describe());
    let results = run.results();
    assert_eq!(results.len(), 5, "{}", run.describe());
    for result in &results {
        let rules: Vec<&str> = result["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f["rule"].as_str())
            .collect();
        assert_eq!(rules, ["decide.process-store"], "{result:#}");
    }
}

#[test]
fn the_reference_passes_the_restart_cases_in_process_and_served() {
    for backend in [None, Some(format!("{} serve {{memories}}", bin()))] {
        let mut command = memspec();
        command.args(["check", "--format", "json", "--area", "restart"]);
        if let Some(backend) = &backend {
            command.args(["--backend", backend]);
        }
        let run = run_command(&mut command);
        assert_eq!(run.code, 0, "{backend:?}: {}", run.describe());
        assert_eq!(run.outcomes().len(), 5, "{}", run.describe());
        assert_eq!(outcomes(&run), ["pass"], "{}", run.describe());
    }
}

/// A store that re-files memories when it opens, and one that commits a write only when the
/// next one comes: both lose memories across a restart, a MUST loss, whatever their answers
/// within one process.
#[test]
fn memories_moved_or_rolled_back_by_a_restart_are_lost() {
    for (name, first) in [
        ("restart_slugs", "/memories/notes.md"),
        ("restart_group_commit", "/memories/projects/plan.md"),
    ] {
        let run = restart(name, true);
        assert_eq!(run.code, 1, "{name}: {}", run.describe());
        assert_eq!(
            causes(&run),
            [("persistence.restart".to_string(), "loss".to_string())],
            "{name}: {}",
            run.describe()
        );
        assert_eq!(outcomes(&run), ["fail"], "{name}: {}", run.describe());
        let first_message = run.json()["root_causes"][0]["message"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_default();
        assert!(
            first_message.contains("after a restart") && first_message.contains(first),
            "{name}: {first_message}"
        );
    }
}

/// Without `--shared` the same broken stores are dicts: nothing is kept, so nothing is lost.
#[test]
fn a_broken_store_kept_in_the_process_is_not_blamed_for_a_restart() {
    let run = restart("restart_group_commit", false);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert_eq!(outcomes(&run), ["info"], "{}", run.describe());
}

/// A restart is judged across its event: a create that writes the wrong bytes is wrong before
/// the restart as after it, so it is no `persistence.*` root (the create cases find it).
#[test]
fn a_store_whose_create_is_wrong_gets_no_restart_root() {
    let run = restart("newline_create", true);
    assert!(
        causes(&run)
            .iter()
            .all(|(rule, _)| !rule.starts_with("persistence.")),
        "{}",
        run.describe()
    );
    let script = root().join("tests/backends/create_appends_newline.py");
    let run = check_kv(
        &format!("python3 {} {{memories}}", script.display()),
        &["--no-recheck", "--area", "restart", "--area", "create"],
    );
    assert_eq!(
        causes(&run),
        [("create.writes-file-text".to_string(), "content".to_string())],
        "{}",
        run.describe()
    );
}

/// A rename served but never saved: after the restart the memory is back at its old path. That
/// is a memory lost across the restart (DATA LOSS under `persistence.restart` only, not a second
/// root under `rename.moves`); its twin, which saves the rename, passes every lane.
#[test]
fn a_rename_never_saved_is_lost_across_the_restart_alone() {
    let run = restart("restart_rename_unsaved", false);
    assert_eq!(run.code, 1, "{}", run.describe());
    assert_eq!(
        causes(&run),
        [("persistence.restart".to_string(), "loss".to_string())],
        "{}",
        run.describe()
    );
    assert_eq!(
        run.json()["verdict"],
        "not_conformant",
        "{}",
        run.describe()
    );
    let script = root().join("tests/backends/kv/restart_rename_unsaved.py");
    let run = check_kv(
        &format!("python3 {} --fixed {{memories}}", script.display()),
        &[
            "--no-recheck",
            "--not-on-folder",
            "--strict",
            "--crash",
            "--clients",
            "4",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.describe());
}
