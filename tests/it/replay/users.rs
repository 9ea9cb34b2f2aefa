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
