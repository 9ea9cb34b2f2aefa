//! Proof that the suite can fail: every deliberately broken backend of `tests/backends/` gets the
//! intended outcome on the case(s) meant for its breakage, and still passes a case its breakage
//! does not touch (each is broken in one way only).
//!
//! Cases come from the suite (`cases/`) by id; where the suite has no case for a breakage yet,
//! from the fixed folder `tests/fixtures/cases`.

use std::path::PathBuf;

use serde_json::Value;

use super::{Run, check, fixtures};

/// Where the selected cases live.
#[derive(Debug, Clone, Copy)]
enum From {
    /// The conformance suite, `cases/`.
    Suite,
    /// The fixed folder `tests/fixtures/cases`.
    Fixtures,
}

impl From {
    fn dir(self) -> Option<PathBuf> {
        match self {
            From::Suite => None,
            From::Fixtures => Some(fixtures()),
        }
    }
}

const NOT_CONFORMANT: i32 = 1;
const CONFORMANT: i32 = 0;
const BROKE: i32 = 3;

/// Runs `backend` on the cases of `expected` and asserts each outcome and the exit code.
#[track_caller]
fn expect(backend: &str, from: From, expected: &[(&str, &str)], exit: i32, args: &[&str]) -> Run {
    let ids: Vec<&str> = expected.iter().map(|(id, _)| *id).collect();
    let run = check(Some(backend), from.dir().as_deref(), &ids, args);
    let outcomes = run.outcomes();
    for (id, outcome) in expected {
        assert_eq!(
            outcomes.get(*id).map(String::as_str),
            Some(*outcome),
            "{backend}: case {id}\n{}",
            run.describe()
        );
    }
    assert_eq!(run.code, exit, "{backend}: exit code\n{}", run.describe());
    run
}

/// The kinds of check (`text`, `is_error`, `effect`, `leak`, `outside`, ...) that failed in a
/// result, with their levels, e.g. `effect:MUST`.
fn checks(result: &Value) -> Vec<String> {
    result["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            format!(
                "{}:{}",
                f["check"].as_str().unwrap_or("?"),
                f["level"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

fn reason(result: &Value) -> String {
    result["reason"].as_str().unwrap_or_default().to_string()
}

// --- SHOULD: the spec's strings and formats warn -------------------------------------------

#[test]
fn wrong_success_string_warns() {
    let run = expect(
        "wrong_success_string",
        From::Fixtures,
        &[
            ("basics.create-success", "warn"),
            ("basics.view-file", "pass"),
        ],
        CONFORMANT,
        &[],
    );
    let result = run.result("basics.create-success");
    assert_eq!(checks(&result), ["text:SHOULD"]);
    assert_eq!(
        result["findings"][0]["actual"],
        "File created at: /memories/a.txt"
    );
}

#[test]
fn missing_error_prefix_warns_and_names_the_dialect() {
    let run = expect(
        "missing_error_prefix",
        From::Fixtures,
        &[
            ("basics.create-no-overwrite", "warn"),
            ("basics.view-missing", "pass"),
        ],
        CONFORMANT,
        &[],
    );
    let finding = &run.result("basics.create-no-overwrite")["findings"][0];
    assert_eq!(finding["dialect"], "error-prefix-missing", "{finding}");
    assert_eq!(finding["level"], "SHOULD");
}

#[test]
fn spaces_for_tab_in_line_numbers_warn() {
    let run = expect(
        "spaces_for_tab",
        From::Suite,
        &[("view-file.basic", "warn"), ("view-dir.root-files", "pass")],
        CONFORMANT,
        &[],
    );
    let result = run.result("view-file.basic");
    assert_eq!(checks(&result), ["text:SHOULD"]);
    assert!(
        result["findings"][0]["actual"]
            .as_str()
            .is_some_and(|a| a.contains("     1 Hello World")),
        "{result}"
    );
}

#[test]
fn hidden_files_listed_warn() {
    expect(
        "hidden_listed",
        From::Suite,
        &[
            ("view-dir.exclude-hidden-file", "warn"),
            ("view-file.basic", "pass"),
        ],
        CONFORMANT,
        &[],
    );
}

#[test]
fn node_modules_listed_warns() {
    expect(
        "node_modules_listed",
        From::Suite,
        &[
            ("view-dir.exclude-node-modules", "warn"),
            ("view-file.basic", "pass"),
        ],
        CONFORMANT,
        &[],
    );
}

#[test]
fn line_limit_off_by_one_warns() {
    let run = expect(
        "line_limit_off_by_one",
        From::Fixtures,
        &[("basics.line-limit-exact", "warn")],
        CONFORMANT,
        &[],
    );
    let result = run.result("basics.line-limit-exact");
    assert_eq!(checks(&result), ["is_error:SHOULD", "text:SHOULD"]);
}

// --- INFO: the reference's decisions inform ------------------------------------------------

#[test]
fn phantom_final_line_informs() {
    let run = expect(
        "phantom_final_line",
        From::Suite,
        &[
            ("view-file.final-newline", "info"),
            ("view-file.basic", "pass"),
        ],
        CONFORMANT,
        &[],
    );
    let finding = &run.result("view-file.final-newline")["findings"][0];
    assert_eq!(finding["level"], "INFO", "{finding}");
    // The official SDK helpers number the phantom line too: the report names them.
    assert_eq!(finding["dialect"], "python-sdk", "{finding}");
}

// --- MUST: semantics and safety fail ---------------------------------------------------------

#[test]
fn create_overwriting_fails() {
    let run = expect(
        "create_overwrites",
        From::Fixtures,
        &[
            ("basics.create-no-overwrite", "fail"),
            ("basics.create-success", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
    let result = run.result("basics.create-no-overwrite");
    assert!(
        checks(&result).contains(&"effect:MUST".to_string()),
        "{result}"
    );
}

#[test]
fn delete_not_recursive_fails_on_the_effect() {
    let run = expect(
        "delete_not_recursive",
        From::Fixtures,
        &[
            ("basics.delete-recursive", "fail"),
            ("basics.delete-root", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
    // The backend says success: only the check of the folder afterwards catches it.
    assert_eq!(
        checks(&run.result("basics.delete-recursive")),
        ["effect:MUST"]
    );
}

#[test]
fn str_replace_replacing_every_occurrence_fails() {
    let run = expect(
        "replace_all",
        From::Fixtures,
        &[
            ("basics.str-replace-multiple", "fail"),
            ("basics.str-replace", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
    let result = run.result("basics.str-replace-multiple");
    assert!(
        checks(&result).contains(&"effect:MUST".to_string()),
        "{result}"
    );
}

#[test]
fn rename_overwriting_fails() {
    expect(
        "rename_overwrites",
        From::Fixtures,
        &[
            ("basics.rename-no-overwrite", "fail"),
            ("basics.create-success", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
}

#[test]
fn is_error_false_on_errors_fails() {
    let run = expect(
        "is_error_false",
        From::Fixtures,
        &[
            ("basics.view-missing", "fail"),
            ("basics.create-success", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
    let finding = &run.result("basics.view-missing")["findings"][0];
    assert_eq!(finding["check"], "is_error");
    assert_eq!(finding["rule"], "errors.is-error-flag");
}

#[test]
fn deleting_the_root_fails() {
    let run = expect(
        "delete_root",
        From::Fixtures,
        &[
            ("basics.delete-root", "fail"),
            ("basics.delete-recursive", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
    let result = run.result("basics.delete-root");
    assert!(
        checks(&result).contains(&"effect:MUST".to_string()),
        "{result}"
    );
}

#[test]
fn following_a_symlink_out_fails() {
    let run = expect(
        "symlink_followed",
        From::Fixtures,
        &[
            ("attacks.symlink-out", "fail"),
            ("basics.view-file", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
    let result = run.result("attacks.symlink-out");
    assert!(
        checks(&result).contains(&"leak:MUST".to_string()),
        "{result}"
    );
}

#[test]
fn dotdot_accepted_fails_on_read_and_write() {
    let run = expect(
        "dotdot_accepted",
        From::Fixtures,
        &[
            ("attacks.dotdot-view", "fail"),
            ("attacks.dotdot-create", "fail"),
            ("attacks.prefix-sibling", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
    // Reading outside leaks the canary; writing outside changes what is beside the folder.
    assert!(checks(&run.result("attacks.dotdot-view")).contains(&"leak:MUST".to_string()));
    assert!(checks(&run.result("attacks.dotdot-create")).contains(&"outside:MUST".to_string()));
}

#[test]
fn memories_prefix_confusion_fails() {
    let run = expect(
        "prefix_confusion",
        From::Fixtures,
        &[
            ("attacks.prefix-sibling", "fail"),
            ("attacks.dotdot-view", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
    assert!(checks(&run.result("attacks.prefix-sibling")).contains(&"leak:MUST".to_string()));
}

// --- the backend broke: error, exit 3 ------------------------------------------------------

#[test]
fn crash_is_an_error_with_the_stderr_tail() {
    let run = expect(
        "crash_on_str_replace",
        From::Fixtures,
        &[
            ("basics.str-replace", "error"),
            ("basics.create-success", "pass"),
        ],
        BROKE,
        &[],
    );
    let why = reason(&run.result("basics.str-replace"));
    assert!(why.contains("exited before answering"), "{why}");
    assert!(why.contains("KeyError: 'old_str'"), "{why}");
}

#[test]
fn hang_is_an_error_after_the_timeout() {
    let run = expect(
        "hang_on_view",
        From::Suite,
        &[("view-file.basic", "error")],
        BROKE,
        &["--timeout", "0.5"],
    );
    let why = reason(&run.result("view-file.basic"));
    assert!(why.contains("did not answer within 0.5 s"), "{why}");
}

#[test]
fn garbage_output_is_an_error() {
    let run = expect(
        "garbage_output",
        From::Suite,
        &[("view-file.basic", "error")],
        BROKE,
        &[],
    );
    let why = reason(&run.result("view-file.basic"));
    assert!(why.contains("not a protocol v1 reply"), "{why}");
    assert!(why.contains("handling"), "{why}");
}

#[test]
fn wrong_reply_id_is_an_error() {
    let run = expect(
        "wrong_reply_id",
        From::Suite,
        &[("view-file.basic", "error")],
        BROKE,
        &[],
    );
    let why = reason(&run.result("view-file.basic"));
    assert!(why.contains("answered request 1 with id 0"), "{why}");
}

#[test]
fn flood_is_an_error() {
    // The case makes two calls, so the first reply's copy is always seen: either right behind
    // the reply (a flood) or read as the answer to the second call (a wrong id).
    let run = expect(
        "flood",
        From::Suite,
        &[("view-file.after-create", "error")],
        BROKE,
        &[],
    );
    let why = reason(&run.result("view-file.after-create"));
    assert!(
        why.contains("flooded its output") || why.contains("answered request 2 with id 1"),
        "{why}"
    );
}
