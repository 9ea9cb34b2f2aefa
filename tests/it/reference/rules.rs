//! The rule each answer follows (`Reference::answer`): said by the reference, never guessed
//! from its text, and always a rule of the built-in spec.

use memspec::spec::{RuleId, Spec, known};
use serde_json::{Value, json};

use super::{Sandbox, create, delete, insert, rename, str_replace, view, view_range};

/// Runs `input` and asserts the rule its answer follows and whether it is an error.
#[track_caller]
fn expect_rule(sb: &Sandbox, input: &Value, is_error: bool, want: RuleId) {
    let answer = sb.reference.answer(input);
    assert_eq!(answer.rule, want, "rule of {input}: {:?}", answer.result);
    assert_eq!(answer.result.is_error, is_error, "is_error of {input}");
}

#[test]
fn errors_follow_the_rule_that_words_them() {
    let sb = Sandbox::new();
    sb.write("notes.txt", "one\ntwo\n");
    sb.mkdir("sub");
    std::fs::write(sb.base.join("outside.txt"), "secret").expect("outside file");
    sb.symlink("../outside.txt", "link");

    expect_rule(
        &sb,
        &view("/memories/missing.txt"),
        true,
        known::VIEW_MISSING,
    );
    expect_rule(
        &sb,
        &create("/memories/notes.txt", "x"),
        true,
        known::CREATE_EXISTS,
    );
    expect_rule(
        &sb,
        &view("/memories/../outside.txt"),
        true,
        known::PATH_GRAMMAR,
    );
    expect_rule(
        &sb,
        &view("/memories/%2e%2e/outside.txt"),
        true,
        known::PATH_GRAMMAR,
    );
    expect_rule(
        &sb,
        &json!({"command": "view"}),
        true,
        known::MALFORMED_INPUT,
    );
    expect_rule(&sb, &json!("view"), true, known::MALFORMED_INPUT);
    expect_rule(
        &sb,
        &json!({"command": "frobnicate", "path": "/memories"}),
        true,
        known::MALFORMED_INPUT,
    );
    // A malformed `view_range` is the parser's refusal too, but a decision of its own; a
    // missing path next to it is still malformed input.
    expect_rule(
        &sb,
        &json!({"command": "view", "path": "/memories/notes.txt", "view_range": [1]}),
        true,
        known::VIEW_RANGE,
    );
    expect_rule(
        &sb,
        &json!({"command": "view", "view_range": [1]}),
        true,
        known::MALFORMED_INPUT,
    );
    expect_rule(
        &sb,
        &view_range("/memories/notes.txt", 5, 6),
        true,
        known::VIEW_RANGE,
    );
    expect_rule(&sb, &view("/memories/link"), true, known::SYMLINKS);
    expect_rule(
        &sb,
        &str_replace("/memories/link", "secret", "x"),
        true,
        known::SYMLINKS,
    );
    expect_rule(
        &sb,
        &str_replace("/memories/sub", "a", "b"),
        true,
        known::STR_REPLACE_DIRECTORY,
    );
    expect_rule(
        &sb,
        &str_replace("/memories/gone.txt", "a", "b"),
        true,
        known::STR_REPLACE_MISSING,
    );
    expect_rule(
        &sb,
        &insert("/memories/notes.txt", 9, "x"),
        true,
        known::INSERT_INVALID_LINE,
    );
    expect_rule(&sb, &delete("/memories"), true, known::ROOT_DELETE);
    expect_rule(
        &sb,
        &rename("/memories/sub", "/memories/notes.txt"),
        true,
        known::RENAME_EXISTS,
    );
}

#[test]
fn successes_follow_the_rule_of_their_format() {
    let sb = Sandbox::new();
    expect_rule(&sb, &view("/memories"), false, known::VIEW_DIR_HEADER);
    expect_rule(
        &sb,
        &create("/memories/a.txt", "x\ny\n"),
        false,
        known::CREATE_SUCCESS,
    );
    expect_rule(
        &sb,
        &view("/memories/a.txt"),
        false,
        known::VIEW_FILE_HEADER,
    );
    expect_rule(
        &sb,
        &str_replace("/memories/a.txt", "x", "z"),
        false,
        known::STR_REPLACE_SUCCESS,
    );
    expect_rule(
        &sb,
        &insert("/memories/a.txt", 0, "w"),
        false,
        known::INSERT_SUCCESS,
    );
    expect_rule(
        &sb,
        &rename("/memories/a.txt", "/memories/b.txt"),
        false,
        known::RENAME_SUCCESS,
    );
    expect_rule(
        &sb,
        &delete("/memories/b.txt"),
        false,
        known::DELETE_SUCCESS,
    );
}

/// Every rule named above, and any the reference says, is one the built-in spec has.
#[test]
fn the_rules_said_are_in_the_built_in_spec() {
    let spec = Spec::builtin(memspec::spec::Revision::Ga2026).expect("built-in spec");
    let sb = Sandbox::new();
    sb.write("notes.txt", "one\n");
    sb.fifo("pipe");
    for input in [
        view("/memories"),
        view("/memories/notes.txt"),
        view("/memories/pipe"),
        view("relative"),
        create("/memories/dir/", "x"),
        create("/memories/notes.txt/x", "x"),
        str_replace("/memories/notes.txt", "", "x"),
        rename("/memories", "/memories/x"),
        rename("/memories/notes.txt", "/memories/notes.txt/x"),
        json!(null),
    ] {
        let answer = sb.reference.answer(&input);
        assert!(
            spec.get(answer.rule.as_str()).is_some(),
            "{input} follows {}, which the spec lacks",
            answer.rule
        );
    }
}
