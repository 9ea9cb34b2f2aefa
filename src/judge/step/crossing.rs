//! A user's call answered otherwise beside the other users of a store than the same calls made
//! by that user alone on a new store (`fuzz --users`): the other users' memories or calls
//! reached this user's, which is leaving this user's `/memories` (`users.isolated`). Judged on
//! the backend's own answers, so that a backend's own faults (the same in both runs) neither
//! hide a crossing nor pass for one.

use serde_json::Value;

use super::case::shown_user;
use crate::judge::compare::Answer;
use crate::judge::{Check, Fact, Finding};
use crate::spec::{Graded, Spec, known};

/// What [`Observation::Crossing`](super::Observation::Crossing) says.
pub struct Crossing<'a> {
    /// The tool input.
    pub input: &'a Value,
    /// The backend's answer beside the other users.
    pub beside: Option<&'a Answer>,
    /// Its answer to the same call in the same user's calls made alone, on a new store.
    pub alone: Option<&'a Answer>,
    /// The user who made it.
    pub user: &'a str,
    /// The store's users.
    pub users: &'a [String],
    /// The revision's rules.
    pub spec: &'a Spec,
}

/// A crossing when both runs answered and the answers differ (in their flag, or in their lines
/// taken in any order), graded under `users.isolated` in the security lane, the answer alone as expected and the one beside the others as seen. A
/// call that broke in either run is not compared (the break is its own finding).
pub(super) fn judge(crossing: &Crossing<'_>) -> Option<Finding> {
    let (Some(Answer::Result(beside)), Some(Answer::Result(alone))) =
        (crossing.beside, crossing.alone)
    else {
        return None;
    };
    if beside.is_error == alone.is_error && same_lines(&beside.text, &alone.text) {
        return None;
    }
    let command = crossing
        .input
        .get("command")
        .and_then(Value::as_str)
        .unwrap_or("?");
    let (check, what) = if beside.is_error == alone.is_error {
        (Check::Text, "answers otherwise than".to_string())
    } else {
        (
            Check::IsError,
            format!(
                "is {} where it {}",
                if beside.is_error {
                    "an error"
                } else {
                    "a success"
                },
                if alone.is_error {
                    "is an error"
                } else {
                    "succeeds"
                },
            ),
        )
    };
    let graded = Graded::of(known::USERS_ISOLATED, crossing.spec);
    let message = format!(
        "{}: `{command}` {what} in the same calls made as user {} alone on a new store (expected: the answer alone)",
        beside_users(crossing.user, crossing.users),
        shown_user(crossing.user)
    );
    Some(
        Finding::new(check, graded.level, graded.rule, message)
            .expecting(alone.text.clone())
            .actually(beside.text.clone())
            .with_fact(Fact::Security)
            .secure(),
    )
}

/// Whether two answers hold the same lines in any order: a listing's order is the backend's
/// choice (`decide.listing-order`), and a store may order a user's entries by everything it
/// holds (a hash, a `SCAN`, a table without `ORDER BY`). A file's lines carry their numbers,
/// so a view whose lines moved still differs.
fn same_lines(beside: &str, alone: &str) -> bool {
    if beside == alone {
        return true;
    }
    fn sorted(text: &str) -> Vec<&str> {
        let mut lines: Vec<&str> = text.lines().collect();
        lines.sort_unstable();
        lines
    }
    sorted(beside) == sorted(alone)
}

/// `as user "u1", beside user "u10"`: who made a call in a store of many users, and who else
/// uses the store.
pub fn beside_users(user: &str, users: &[String]) -> String {
    let others: Vec<String> = users
        .iter()
        .filter(|other| *other != user)
        .map(|other| shown_user(other))
        .collect();
    format!(
        "as user {}, beside user {}",
        shown_user(user),
        others.join(" and ")
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::protocol::ToolResult;
    use crate::spec::{Level, Revision};

    fn answer(text: &str, is_error: bool) -> Answer {
        Answer::Result(ToolResult {
            text: text.to_string(),
            is_error,
        })
    }

    #[test]
    fn only_answers_that_differ_are_a_crossing() {
        let spec = Spec::builtin(Revision::Ga2026).expect("spec");
        let users = ["u1".to_string(), "u10".to_string()];
        let input = json!({"command": "view", "path": "/memories/a"});
        let judged = |beside: &Answer, alone: &Answer| {
            judge(&Crossing {
                input: &input,
                beside: Some(beside),
                alone: Some(alone),
                user: "u1",
                users: &users,
                spec: &spec,
            })
        };
        let same = answer("   1\tx", false);
        assert_eq!(judged(&same, &same), None);
        // A listing in another order is the same listing.
        let listing = |lines: &[&str]| answer(&lines.join("\n"), false);
        let (a, b) = ("1.0K\t/memories/a", "2.0K\t/memories/b");
        assert_eq!(judged(&listing(&["h", a, b]), &listing(&["h", b, a])), None);
        assert!(judged(&listing(&["h", a, b]), &listing(&["h", a])).is_some());
        // A break is its own finding, never a crossing.
        assert_eq!(judged(&Answer::Broke("hung".into()), &same), None);
        let found = judged(&same, &answer("The path /memories/a does not exist.", true))
            .expect("a crossing");
        assert_eq!(found.rule, known::USERS_ISOLATED);
        assert_eq!(found.level, Level::Must);
        assert!(found.security);
        assert_eq!(found.check, Check::IsError);
        assert!(
            found.message.starts_with(
                r#"as user "u1", beside user "u10": `view` is a success where it is an error"#
            ),
            "{}",
            found.message
        );
        assert_eq!(found.actual.as_deref(), Some("   1\tx"));
    }
}
