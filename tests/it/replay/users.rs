//! `replay --user`: a transcript names the user of each call (a request's `metadata.user_id`);
//! a backend of many users replays one user's calls, started as that user.

use crate::check::{bin, memspec, run_command};

const TWO_USERS: &str = "tests/fixtures/transcripts/two-users.jsonl";

#[test]
fn a_transcript_of_two_users_needs_one_picked() {
    let run = run_command(memspec().args(["replay", TWO_USERS, "--report"]));
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr
            .contains(r#"holds the calls of 2 users ("ines", "marc"): pick one with --user"#),
        "{}",
        run.describe()
    );
    let run = run_command(memspec().args(["replay", TWO_USERS, "--report", "--user", "zoe"]));
    assert_eq!(run.code, 2, "{}", run.describe());
    assert!(
        run.stderr.contains(r#"names no user "zoe""#),
        "{}",
        run.describe()
    );
}

#[test]
fn one_users_calls_replay_on_a_backend_started_as_that_user() {
    let served = format!("{} serve {{memories}} --user {{user}}", bin());
    for (user, call) in [
        ("ines", "create /memories/suppliers.md"),
        ("marc", "view /memories"),
    ] {
        let run = run_command(memspec().args([
            "replay",
            TWO_USERS,
            "--report",
            "--user",
            user,
            "--backend",
            &served,
        ]));
        assert_eq!(run.code, 0, "{user}: {}", run.describe());
        assert!(
            run.stdout.contains("1 memory call against"),
            "{}",
            run.describe()
        );
        assert!(
            run.stdout.contains("verdict: conformant"),
            "{}",
            run.describe()
        );
        // Only that user's call was replayed.
        let verbose = run_command(memspec().args([
            "replay",
            TWO_USERS,
            "--report",
            "-v",
            "--user",
            user,
            "--backend",
            &served,
        ]));
        assert!(
            verbose.stdout.contains(call),
            "{user}: {}",
            verbose.describe()
        );
    }
}

/// `record --user` keeps the user in the golden file's header; its replays pick that user
/// without being told, and start the backend as that user.
#[test]
fn a_golden_file_keeps_its_user() {
    let dir = tempfile::tempdir().expect("temp dir");
    let golden = dir.path().join("ines.jsonl");
    let golden_arg = golden.display().to_string();
    let served = format!("{} serve {{memories}} --user {{user}}", bin());
    let unpicked = run_command(memspec().args(["record", TWO_USERS, "-o", &golden_arg]));
    assert_eq!(unpicked.code, 2, "{}", unpicked.describe());
    assert!(!golden.exists());
    let recorded = run_command(memspec().args([
        "record",
        TWO_USERS,
        "-o",
        &golden_arg,
        "--user",
        "ines",
        "--backend",
        &served,
    ]));
    assert_eq!(recorded.code, 0, "{}", recorded.describe());
    let text = std::fs::read_to_string(&golden).expect("golden file");
    let header: serde_json::Value =
        serde_json::from_str(text.lines().next().unwrap_or_default()).expect("header");
    assert_eq!(header["user"], "ines", "{text}");
    assert_eq!(text.lines().count(), 2, "ines made one call: {text}");
    let replayed =
        run_command(memspec().args(["replay", &golden_arg, "--check", "-v", "--backend", &served]));
    assert_eq!(replayed.code, 0, "{}", replayed.describe());
    assert!(
        replayed.stdout.contains("create /memories/suppliers.md"),
        "{}",
        replayed.describe()
    );
}
