//! The users lane (`users.*`, rule `users.isolated`): the backend started once per user on one
//! shared store. The reference (in process and as `memspec serve --user`) and the per-user
//! key-value backend pass; each naive mapping of `tests/backends/users/` (and `memspec serve`
//! on `{memories}/{user}`, a path joined unsanitised) fails with one SECURITY MUST root cause
//! naming both users; a backend that takes no user gets the lane skipped with the reason.

use super::{Run, bin, check_kv, memspec, root, run_command};

/// `memspec check --area users` (JSON) on `backend`, kept off the folder.
fn users(backend: &str) -> Run {
    check_kv(backend, &["--area", "users", "--not-on-folder"])
}

fn script(name: &str) -> String {
    format!(
        "python3 {} --shared --user {{user}} {{memories}}",
        root().join("tests/backends/users").join(name).display()
    )
}

/// Case id → outcome of the run's failing cases.
fn failed(run: &Run) -> Vec<String> {
    run.outcomes()
        .into_iter()
        .filter(|(_, outcome)| outcome == "fail")
        .map(|(id, _)| id)
        .collect()
}

/// The rules of the run's MUST findings.
fn must_rules(run: &Run) -> std::collections::BTreeSet<String> {
    run.results()
        .iter()
        .flat_map(|r| r["findings"].as_array().cloned().unwrap_or_default())
        .filter(|f| f["level"] == "MUST")
        .filter_map(|f| f["rule"].as_str().map(str::to_string))
        .collect()
}

/// The root causes of the human report: its lines after `root causes:` up to a blank one.
fn root_causes(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .skip_while(|line| !line.starts_with("root causes:"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_reference_keeps_every_user_apart_in_process_and_served() {
    let served = format!("{} serve {{memories}} --user {{user}}", bin());
    for backend in [None, Some(served.as_str())] {
        let mut command = memspec();
        command.args([
            "check",
            "--no-recheck",
            "--area",
            "users",
            "--format",
            "json",
        ]);
        if let Some(backend) = backend {
            command.args(["--backend", backend]);
        }
        let run = run_command(&mut command);
        assert_eq!(run.code, 0, "{}", run.describe());
        let outcomes = run.outcomes();
        assert!(outcomes.len() >= 15, "{outcomes:?}");
        for (id, outcome) in &outcomes {
            assert_eq!(outcome, "pass", "{id}: {}", run.describe());
        }
    }
}

#[test]
fn a_per_user_key_value_store_passes() {
    let run = users(&format!(
        "python3 {} --shared --user {{user}} {{memories}}",
        root().join("tests/backends/kv/correct.py").display()
    ));
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(failed(&run).is_empty(), "{}", run.describe());
    // It refuses the empty id at start (exit 2 before reading): not checked, a fine answer.
    let empty = run.result("users.empty-id");
    assert_eq!(empty["outcome"], "info", "{empty}");
    assert!(
        empty["findings"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains(r#"refused user id "" at start"#)),
        "{empty}"
    );
}

#[test]
fn each_naive_mapping_crosses_where_its_design_does() {
    for (backend, crossing) in [
        // `SCAN MATCH u1*`: the longer id's and the glob's neighbours are listed.
        ("glob_scan.py", &["users.prefix-ids", "users.glob-star"][..]),
        // `user_id LIKE ?`: wildcards, and SQLite's LIKE ignores ASCII case.
        (
            "like_ids.py",
            &[
                "users.like-underscore",
                "users.like-percent",
                "users.case-ids",
            ][..],
        ),
        // `NFKC(id).strip().casefold()`.
        (
            "folded_ids.py",
            &[
                "users.case-ids",
                "users.trailing-space",
                "users.unicode-ids",
            ][..],
        ),
        // A read cache keyed by path: every pair of users.
        ("path_cache.py", &["users.apart", "users.interleaved"][..]),
        // `re.sub(r"[^A-Za-z0-9]", "_", id)`: ids that differ only in punctuation.
        (
            "slug_ids.py",
            &[
                "users.punctuation-dot-underscore",
                "users.punctuation-space-colon",
                "users.punctuation-dash-underscore",
            ][..],
        ),
    ] {
        let run = users(&script(backend));
        assert_eq!(run.code, 1, "{backend}: {}", run.describe());
        let failed = failed(&run);
        for id in crossing {
            assert!(
                failed.contains(&id.to_string()),
                "{backend}: {id} {failed:?}"
            );
        }
        // Its root cause names both users: the one who saw and the one whose memory it was
        // (an effect read back names them as an answer does).
        let causes = run.json()["root_causes"].clone();
        let crossing = causes
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["rule"] == "users.isolated");
        assert!(
            crossing.is_some_and(|c| c["message"]
                .as_str()
                .is_some_and(|m| m.contains("as user ") && m.contains(", beside user "))),
            "{backend}: {causes:#}"
        );
        // Every failure is the crossing, graded SECURITY under users.isolated; what else
        // differs in its case follows from it (one root cause).
        for result in run.results().iter().filter(|r| r["outcome"] == "fail") {
            for finding in result["findings"].as_array().into_iter().flatten() {
                if finding["level"] == "MUST" && finding["follows"].is_null() {
                    assert_eq!(finding["rule"], "users.isolated", "{backend}: {finding}");
                }
            }
        }
    }
}

#[test]
fn only_calls_made_at_once_show_a_write_staged_by_path() {
    // Staged under `staging:<path>`, committed 50 ms later without a transaction: two users
    // writing one path at once swap bytes; one after the other, nothing crosses.
    let run = users(&script("staged_writes.py"));
    assert_eq!(run.code, 1, "{}", run.describe());
    assert_eq!(failed(&run), ["users.together"], "{}", run.describe());
    assert_eq!(run.result("users.interleaved")["outcome"], "pass");
    let together = run.result("users.together");
    for finding in together["findings"].as_array().into_iter().flatten() {
        if finding["follows"].is_null() {
            assert_eq!(finding["rule"], "users.isolated", "{finding}");
        }
    }
}

#[test]
fn errors_in_words_without_the_flag_are_no_crossing() {
    // Every user's memories their own, every error sent with `is_error: false` (as attune-ai's
    // memory tool does): the flag's rule, never `users.isolated`.
    let run = users(&script("unflagged.py"));
    assert_eq!(run.code, 1, "{}", run.describe());
    let rules = must_rules(&run);
    assert!(rules.contains("errors.is-error-flag"), "{rules:?}");
    assert!(!rules.contains("users.isolated"), "{}", run.describe());
}

#[test]
fn a_users_own_failed_rename_is_no_crossing() {
    // Every rename refused (as langchain-anthropic's state-backed tool does): each user's file
    // stays where that user left it, which is the rename's fault, never `users.isolated`.
    let run = users(&script("no_rename.py"));
    assert_eq!(run.code, 1, "{}", run.describe());
    let rules = must_rules(&run);
    assert!(rules.contains("rename.moves"), "{rules:?}");
    assert!(!rules.contains("users.isolated"), "{}", run.describe());
}

#[test]
fn a_crossing_is_one_security_root_cause_naming_both_users() {
    let run = run_command(memspec().args([
        "check",
        "--no-recheck",
        "--area",
        "users",
        "--not-on-folder",
        "--backend",
        &script("glob_scan.py"),
    ]));
    assert_eq!(run.code, 1, "{}", run.describe());
    assert!(
        run.stdout
            .lines()
            .next()
            .is_some_and(|l| l.contains("one user's memories reached by another: users.isolated")),
        "{}",
        run.describe()
    );
    let causes = root_causes(&run.stdout);
    assert_eq!(causes.len(), 1, "{causes:?}");
    assert!(
        causes[0].contains("SECURITY MUST")
            && causes[0].contains("users.isolated")
            && causes[0].contains(r#"as user "u1", beside user "u10""#),
        "{causes:?}"
    );
    assert!(
        run.stdout.contains("--case users.prefix-ids --verbose"),
        "{}",
        run.describe()
    );
}

#[test]
fn a_path_joined_from_the_id_names_the_neighbour_or_the_whole_store() {
    // `memspec serve {memories}/{user}`: `eve/../bob` is bob's folder, `.` the whole store,
    // `..` the folder above it.
    let joined = format!("{} serve {{memories}}/{{user}}", bin());
    let run = run_command(memspec().args([
        "check",
        "--no-recheck",
        "--format",
        "json",
        "--area",
        "users",
        "--backend",
        &joined,
    ]));
    assert_eq!(run.code, 1, "{}", run.describe());
    let failed = failed(&run);
    for id in [
        "users.slash-ids",
        "users.dot-id",
        "users.empty-id",
        "users.dotdot-id",
    ] {
        assert!(failed.contains(&id.to_string()), "{id} {failed:?}");
    }
    // On disk, bob's first create lands in the folder `eve/../bob` made its own: the disk
    // witness names it at the setup, before any view shows it.
    let slash = run.result("users.slash-ids");
    assert!(
        slash["findings"].as_array().into_iter().flatten().any(|f| {
            f["message"].as_str().is_some_and(|m| {
                m.starts_with(r#"as user "bob", beside user "eve/../bob": the call changed memories/bob/mine.md on disk, inside the folder of user "eve/../bob""#)
            })
        }),
        "{slash}"
    );
    // The folder above the store is outside /memories: the confinement watch sees it.
    let above = run.result("users.dotdot-id");
    assert!(
        above["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|f| f["rule"] == "confinement.all-operations"),
        "{above}"
    );
}

#[test]
fn a_backend_that_takes_no_user_gets_the_lane_skipped_with_the_reason() {
    let run = check_kv(
        &format!(
            "python3 {} --shared {{memories}}",
            root().join("tests/backends/kv/correct.py").display()
        ),
        &["--area", "users", "--not-on-folder"],
    );
    assert_eq!(run.code, 0, "{}", run.describe());
    for result in run.results() {
        assert_eq!(result["outcome"], "skip", "{result}");
        assert!(
            result["reason"]
                .as_str()
                .is_some_and(|r| r.starts_with("users lane not run: the backend takes no user")),
            "{result}"
        );
    }
}

#[test]
fn a_python_factory_takes_its_user_with_per_user() {
    if !crate::sdk::installed() {
        return;
    }
    let helper = root().join("tests/backends/users/per_user_helper.py:make");
    let helper = helper.to_string_lossy();
    let cases = [
        "--case",
        "users.apart",
        "--case",
        "users.prefix-ids",
        "--case",
        "users.slash-ids",
    ];
    let python = [
        "--python-bin",
        ".ci/.venv/bin/python",
        "--no-recheck",
        "--format",
        "json",
    ];
    let run = run_command(
        memspec()
            .args(["check", "--per-user", "--python", &helper])
            .args(python)
            .args(cases),
    );
    assert_eq!(run.code, 0, "{}", run.describe());
    assert_eq!(run.outcomes().len(), 3, "{}", run.describe());
    assert!(
        run.outcomes().values().all(|o| o == "pass"),
        "{}",
        run.describe()
    );
    // The official helper itself takes no user: started as one, the adapter refuses to serve it
    // (nothing would keep the users apart), and the run says so.
    let run = run_command(
        memspec()
            .args(["check", "--per-user", "--python", "anthropic-local-fs"])
            .args(python)
            .args(cases),
    );
    assert_eq!(run.code, 3, "{}", run.describe());
    assert!(
        run.stdout.contains("takes no user or user_id argument"),
        "{}",
        run.describe()
    );
    // --per-user is for the adapters: a command names {user} itself.
    let run = run_command(memspec().args(["check", "--per-user", "--backend", "true"]));
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(run.stderr.contains("naming {user}"), "{}", run.describe());
}

/// Outside the users lane a backend of many users runs as one default user, whichever shape
/// takes the id (a `{user}` command, a `--per-user` factory), and gets its state folder.
#[test]
fn both_shapes_of_a_backend_of_many_users_run_as_one_default_user() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let log = dir.path().join("started.log");
    let script = root().join("tests/backends/users/who_started.py");
    let factory = format!("{}:make", script.display());
    let command = format!("python3 {} {{user}}", script.display());
    for args in [
        vec!["--per-user", "--python", &factory],
        vec!["--backend", &command],
    ] {
        let _ = std::fs::remove_file(&log);
        let run = run_command(
            memspec()
                .env("WHO_STARTED_LOG", &log)
                .args(["check", "--no-recheck", "--case", "create.new-file"])
                .args(&args),
        );
        assert_eq!(run.code, 1, "{}", run.describe());
        let started = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(!started.is_empty(), "{args:?}: {}", run.describe());
        assert!(
            started.lines().all(|line| line == "user=memspec state=yes"),
            "{args:?}: {started}"
        );
    }
}
