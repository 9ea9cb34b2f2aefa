//! `memspec fuzz --users N`: sequences made by several users of one store. Each naive mapping
//! of `tests/backends/users/` is found as a crossing (SECURITY MUST `users.isolated`) with a
//! fixed seed, shrunk to at most 6 steps and kept as a case of several users that `check`
//! fails on the backend and passes on the reference; a correct per-user store, the reference
//! and its served form give nothing.

use std::path::Path;

use super::{case_outcome, memspec_in, shrunk_steps};
use crate::check::{bin, root};

/// The `--backend` command of `tests/backends/<dir>/<name>.py` serving user `{user}` of a
/// shared store.
fn per_user(dir: &str, name: &str) -> String {
    let script = root().join("tests/backends").join(dir).join(name);
    assert!(script.is_file(), "no backend {}", script.display());
    format!(
        "python3 {} --shared --user {{user}} {{memories}}",
        script.display()
    )
}

fn fuzz_users(
    store: &Path,
    backend: &str,
    users: &str,
    seed: &str,
    budget: &[&str],
) -> crate::check::Run {
    let mut args = vec![
        "fuzz",
        "--backend",
        backend,
        "--not-on-folder",
        "--users",
        users,
        "--seed",
        seed,
    ];
    args.extend_from_slice(budget);
    memspec_in(store, &args)
}

/// The prefix query (`SCAN MATCH u1*`), `LIKE` on the id and a cache keyed by path alone: each
/// found as a crossing whose first line names it, shrunk, and kept as a case that shows it.
#[test]
fn each_naive_mapping_is_found_as_a_crossing_and_kept() {
    for name in ["glob_scan.py", "like_ids.py", "path_cache.py"] {
        let store = tempfile::tempdir().expect("temp dir");
        let kept = store.path().join("kept");
        std::fs::create_dir(&kept).expect("kept dir");
        let backend = per_user("users", name);
        let out = kept.display().to_string();
        // A step budget rather than time: the same verdict on a loaded machine (each is found
        // in seconds, well within the default 60).
        let run = fuzz_users(
            store.path(),
            &backend,
            "2",
            "1",
            &["--steps", "60000", "-o", &out],
        );
        assert_eq!(run.code, 1, "{name}: {}", run.describe());
        assert!(
            run.stdout.lines().next().is_some_and(
                |line| line.contains("one user's memories reached by another: users.isolated")
            ),
            "{name}: {}",
            run.describe()
        );
        assert!(
            run.stdout.contains("SECURITY MUST   users.isolated"),
            "{name}: {}",
            run.stdout
        );
        assert!(run.stdout.contains("--users 2"), "{name}: {}", run.stdout);
        let steps = shrunk_steps(&run.stdout);
        assert!(
            steps <= 6,
            "{name}: shrunk to {steps} steps\n{}",
            run.stdout
        );
        // Both users' steps are shown, each with its id.
        assert!(run.stdout.contains("as user \""), "{name}: {}", run.stdout);
        assert!(
            run.stdout
                .contains("as a case: fail on the backend, pass on the reference"),
            "{name}: {}",
            run.stdout
        );
        // The kept case names its users and no transcript is kept (a replay is one user's).
        let files: Vec<_> = std::fs::read_dir(&kept)
            .expect("kept")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .collect();
        assert_eq!(files.len(), 1, "{name}: {files:?}");
        let case: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&files[0]).expect("case"))
                .expect("case JSON");
        assert_eq!(case["cases"][0]["users"].as_array().map(Vec::len), Some(2));
        assert_eq!(
            case_outcome(&kept, Some(&backend)),
            "fail",
            "{name}: on the backend"
        );
        assert_eq!(
            case_outcome(&kept, None),
            "pass",
            "{name}: on the reference"
        );
    }
}

/// A folder per user joined from the id (`serve {memories}/{user}`): with three users of the
/// separator family, the reset of user `a` empties the folder of user `a/b`, whose first create
/// then fails where alone it succeeds.
#[test]
fn a_folder_joined_from_the_id_is_found() {
    let store = tempfile::tempdir().expect("temp dir");
    let joined = format!("{} serve {{memories}}/{{user}}", bin());
    let run = memspec_in(
        store.path(),
        &[
            "fuzz",
            "--backend",
            &joined,
            "--users",
            "3",
            "--seed",
            "1",
            "--steps",
            "60000",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.describe());
    assert!(
        run.stdout
            .contains(r#"as user "a/b", beside user "a" and "a:b""#),
        "{}",
        run.stdout
    );
    assert!(shrunk_steps(&run.stdout) <= 6, "{}", run.stdout);
}

/// A correct per-user store and the reference, in process and served, keep their users apart:
/// no finding, whatever the ids.
#[test]
fn a_correct_per_user_store_gives_no_finding() {
    let store = tempfile::tempdir().expect("temp dir");
    let correct = per_user("kv", "correct.py");
    let run = fuzz_users(store.path(), &correct, "3", "12", &["--steps", "2500"]);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(run.stdout.contains("3 users per store"), "{}", run.stdout);
    let reference = memspec_in(
        store.path(),
        &["fuzz", "--users", "4", "--seed", "11", "--steps", "20000"],
    );
    assert_eq!(reference.code, 0, "{}", reference.describe());
    let served = format!("{} serve {{memories}} --user {{user}}", bin());
    let served = memspec_in(
        store.path(),
        &[
            "fuzz",
            "--backend",
            &served,
            "--users",
            "2",
            "--seed",
            "13",
            "--steps",
            "3000",
        ],
    );
    assert_eq!(served.code, 0, "{}", served.describe());
}

/// `--users` needs a backend that takes a user, 2 to 4 of them, and no `--clients`.
#[test]
fn users_usage_errors() {
    let store = tempfile::tempdir().expect("temp dir");
    let no_user = memspec_in(
        store.path(),
        &["fuzz", "--backend", "cat", "--users", "2", "--steps", "5"],
    );
    assert_eq!(no_user.code, 2, "{}", no_user.describe());
    assert!(no_user.stderr.contains("{user}"), "{}", no_user.stderr);
    for bad in [
        &["fuzz", "--users", "1", "--steps", "5"][..],
        &["fuzz", "--users", "5", "--steps", "5"][..],
        &["fuzz", "--users", "2", "--clients", "2", "--steps", "5"][..],
    ] {
        let run = memspec_in(store.path(), bad);
        assert_eq!(run.code, 2, "{bad:?}: {}", run.describe());
    }
}
