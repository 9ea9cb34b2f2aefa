//! The worked example of `docs/guide/json-store/`: one JSON file of many users in `{state}`.
//! `tests/it/docs.rs` runs its README's lines (the whole suite and the crash lane, exit 0, in
//! each shape); here each shape is shown to run the lanes a store shared through `{state}`
//! needs (races, restarts, users: none skipped), judged off the folder without
//! `--not-on-folder` for the adapters' `--per-user`, and a copy whose reset forgets nothing is
//! stopped by memspec's look after the reset, with one message and no finding.

use super::{Run, memspec, run_command};

const PROGRAM: &str = "python3 docs/guide/json-store/json_store.py --state {state} --user {user}";
const PYTHON: &str = "docs/guide/json-store/json_store.py:make";
const NODE: &str = "docs/guide/json-store/json-store.mjs:makeStore";

/// The three shapes, as `check` arguments.
fn shapes() -> [Vec<&'static str>; 3] {
    [
        vec!["--backend", PROGRAM],
        vec!["--python", PYTHON, "--per-user"],
        vec!["--node", NODE, "--per-user"],
    ]
}

/// `memspec check --strict --format json` on `shape`, the cases `patterns` only.
fn check(shape: &[&str], patterns: &[&str]) -> Run {
    let mut command = memspec();
    command.args(["check", "--strict", "--no-recheck", "--format", "json"]);
    command.args(shape);
    for pattern in patterns {
        command.args(["--case", pattern]);
    }
    run_command(&mut command)
}

#[test]
fn each_shape_passes_the_races_restarts_and_users_on_one_state_folder() {
    let patterns = ["race.*", "restart.*", "users.*", "create.new-file"];
    for shape in shapes() {
        let run = check(&shape, &patterns);
        assert_eq!(run.code, 0, "{shape:?}: {}", run.describe());
        let outcomes = run.outcomes();
        for (id, outcome) in &outcomes {
            assert_eq!(outcome, "pass", "{shape:?}: {id}: {}", run.describe());
        }
        let ran = |area: &str| {
            outcomes
                .keys()
                .filter(|id| id.starts_with(&format!("{area}.")))
                .count()
        };
        // Every lane ran: none of them is skipped for this store, the users lane included.
        assert!(ran("race") >= 2, "{shape:?}: {outcomes:?}");
        assert!(ran("restart") >= 3, "{shape:?}: {outcomes:?}");
        assert!(ran("users") >= 15, "{shape:?}: {outcomes:?}");
        // Judged off the folder (its effects read through its view), as a command naming
        // {user} is: on the folder, the create would be missing from the disk.
        assert_eq!(
            outcomes.get("create.new-file").map(String::as_str),
            Some("pass"),
            "{shape:?}: {}",
            run.describe()
        );
    }
}

#[test]
fn a_reset_that_forgets_nothing_stops_the_run_with_one_message() {
    let program =
        "python3 tests/backends/users/json_reset_forgets_nothing.py --state {state} --user {user}";
    let python = "tests/backends/users/json_reset_forgets_nothing.py:make";
    for shape in [
        vec!["--backend", program],
        vec!["--python", python, "--per-user"],
    ] {
        // Two cases on one worker: the second starts after a reset.
        let mut command = memspec();
        command
            .args(["check", "--strict", "-j", "1", "--case", "create.new-file"])
            .args(["--case", "create.exists-is-error"])
            .args(&shape);
        let run = run_command(&mut command);
        assert_eq!(run.code, 3, "{shape:?}: {}", run.describe());
        let said = "after `reset` answered ok, `view /memories` still listed /memories/";
        assert_eq!(
            run.stderr.matches(said).count(),
            1,
            "{shape:?}: {}",
            run.describe()
        );
        // No report, so no finding against the store's answers, which are right.
        assert!(
            run.stdout.trim().is_empty(),
            "{shape:?}: {}",
            run.describe()
        );
    }
}
