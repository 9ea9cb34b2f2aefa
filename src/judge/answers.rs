//! A step's answer judged: its flag, what it must not contain, its text against the expected
//! one (naming a known dialect), and the lines a ranged view shows, as facts.

use std::path::Path;

use serde_json::Value;

use super::witness;
use super::{Check, Finding};
use crate::exec::Fault;
use crate::protocol::ToolResult;
use crate::spec::{Graded, Level, known};
use crate::suite::case::{Step, TextExpectation};
use crate::suite::load::LoadedCase;
use crate::suite::matcher;

/// Judges step `index`'s answer: the flag, what it must not contain (`{{base}}` in it is the
/// sandbox's `base`), the lines of a ranged view and the text; each miss one finding in
/// `findings`. `Err` only for the harness's fault
/// (a matcher that cannot be applied).
pub fn check_step(
    loaded: &LoadedCase,
    base: &Path,
    step: &Step,
    index: usize,
    answer: &ToolResult,
    findings: &mut Vec<Finding>,
) -> Result<(), Fault> {
    let rules = &loaded.steps[index];
    if let Some(expected) = step.is_error
        && answer.is_error != expected
    {
        // What happened, in words: a reader of "is_error should be true" takes it for a missing
        // flag, where the backend may have done what it must refuse.
        let words_refuse = refuses_in_words(step, answer);
        let what = match (expected, words_refuse) {
            (true, true) => "an error in words, without the flag",
            (true, false) => "accepted a call the spec refuses",
            (false, _) => "refused a call the spec accepts",
        };
        // A refusal in words is the refusal the step's rule asks for with its flag missing:
        // the flag's rule (MUST under both revisions), whichever MUST rule grades the refusal.
        // A step graded at SHOULD (a refusal the page words but a store may answer otherwise)
        // stays at its level: a case never fails above the level of its checks.
        // Then, a call accepted where the spec refuses it broke the rule that refuses it, the case's
        // own where that is a rule of as much weight (`create.no-overwrite`, `insert.line-range`,
        // a traversal rule), not the flag's: its harm stays a wrong outcome (an escape is what
        // the confinement checks find). A flag missing on a refusal stays the flag's, as does an
        // acceptance where the case's rule only words the error (`delete.missing`, SHOULD) or
        // is about errors in general (`errors.terminates`); a crossing between users keeps that
        // lane's rule.
        let flag = Graded {
            rule: known::IS_ERROR_FLAG,
            level: Level::Must,
        };
        let graded = if expected && words_refuse && rules.is_error.level == Level::Must {
            &flag
        } else if expected
            && !words_refuse
            && rules.is_error.rule == known::IS_ERROR_FLAG
            && loaded.main.level >= rules.is_error.level
            && loaded.main.rule != known::USERS_ISOLATED
            && !loaded.main.rule.as_str().starts_with("errors.")
        {
            &loaded.main
        } else {
            &rules.is_error
        };
        findings.push(
            Finding::new(
                Check::IsError,
                graded.level,
                graded.rule.clone(),
                format!(
                    "{what}: is_error should be {expected}, the backend said {}",
                    answer.is_error
                ),
            )
            .at(Some(index))
            .expecting(expected.to_string())
            .actually(answer.is_error.to_string()),
        );
    }
    forbidden_content(loaded, base, step, index, answer, findings);
    let Some(expected) = &step.text else {
        return Ok(());
    };
    if let (Some(graded), TextExpectation::Exact(text)) = (&rules.lines, expected)
        && !answer.is_error
    {
        let end = step
            .input
            .get("view_range")
            .and_then(|r| r.get(1)?.as_i64());
        if let Some(how) = witness::ranged_view_differs(text, &answer.text, end) {
            findings.push(
                Finding::new(Check::Lines, graded.level, graded.rule.clone(), how)
                    .at(Some(index))
                    .expecting(text.clone())
                    .actually(answer.text.clone()),
            );
        }
    }
    if matcher::matches(expected, &answer.text).map_err(matcher_fault)? {
        return Ok(());
    }
    let dialect = known_dialect(step, expected, &answer.text)?;
    let mut finding = Finding::new(
        Check::Text,
        rules.text.level,
        rules.text.rule.clone(),
        match &dialect {
            Some(name) => format!("the text is the known `{name}` dialect, not the spec's"),
            None => "the text differs from the expected one".to_string(),
        },
    )
    .at(Some(index))
    .expecting(matcher::describe(expected))
    .actually(answer.text.clone())
    .in_dialect(dialect);
    finding.expected_shown = matcher::aligned(expected, &answer.text).map_err(matcher_fault)?;
    findings.push(finding);
    Ok(())
}

/// The step's `must_not_contain`: what no answer may show, whatever outcome it took.
pub fn forbidden_content(
    loaded: &LoadedCase,
    base: &Path,
    step: &Step,
    index: usize,
    answer: &ToolResult,
    findings: &mut Vec<Finding>,
) {
    let rules = &loaded.steps[index];
    for forbidden in &step.must_not_contain {
        let forbidden = forbidden.replace("{{base}}", &base.to_string_lossy());
        if answer.text.contains(forbidden.as_str()) {
            findings.push(
                Finding::new(
                    Check::MustNotContain,
                    rules.must_not_contain.level,
                    rules.must_not_contain.rule.clone(),
                    format!("the output must not contain {forbidden:?}"),
                )
                .at(Some(index))
                .actually(answer.text.clone()),
            );
        }
    }
}

/// Names the dialect `actual` is written in: one of the step's own, or a plain `Error: `
/// prefix added or missing (the official SDKs' runners differ exactly there).
fn known_dialect(
    step: &Step,
    expected: &TextExpectation,
    actual: &str,
) -> Result<Option<String>, Fault> {
    // Several official implementations may share one text: name them all.
    let mut names = Vec::new();
    for dialect in &step.dialects {
        if matcher::matches(&dialect.text, actual).map_err(matcher_fault)? {
            names.push(dialect.name.as_str());
        }
    }
    if !names.is_empty() {
        return Ok(Some(names.join(" / ")));
    }
    if let TextExpectation::Exact(text) = expected {
        if text.strip_prefix("Error: ") == Some(actual) {
            return Ok(Some("error-prefix-missing".to_string()));
        }
        if actual.strip_prefix("Error: ") == Some(text.as_str()) {
            return Ok(Some("error-prefix-added".to_string()));
        }
    }
    Ok(None)
}

/// A matcher that cannot be applied: the suite's fault, never the backend's.
fn matcher_fault(error: impl std::fmt::Display) -> Fault {
    Fault::Harness(error.to_string())
}

/// Whether an answer's first line reads as a refusal, in the page's words or another
/// implementation's (`Path traversal not allowed`, `File not found`, `Invalid path`): an answer
/// without the flag that says so is a refusal missing its flag, not an accepted call.
/// Whether `answer` refuses in its words: the step's own expected text (an error the spec
/// words), or an opening that reads as a refusal. An answer flagged as a success that refuses
/// in words is a refusal with its flag missing, not the success the flag claims.
pub fn refuses_in_words(step: &Step, answer: &ToolResult) -> bool {
    let path = step.input.get("path").and_then(Value::as_str).unwrap_or("");
    reads_as_refusal(&answer.text, path)
        || step
            .text
            .as_ref()
            .is_some_and(|text| matcher::matches(text, &answer.text).unwrap_or(false))
}

/// Whether an answer's words refuse (an opening that says error, not allowed, invalid, …, or
/// a string of the spec's errors), whatever its flag. The words of `path`, the memory path the
/// call named (`""` when none), are not read as the answer's: a success that names
/// `/memories/invalid path.md` is no refusal.
pub(crate) fn reads_as_refusal(text: &str, path: &str) -> bool {
    if witness::says_absent(text, path) || super::rules::reads_like_spec_error(text) {
        return true;
    }
    let first = witness::opening_without(text, path);
    [
        "error",
        "not allowed",
        "not permitted",
        "invalid",
        "denied",
        "forbidden",
        "cannot",
        "can't",
        "must ",
        "refus",
        "unable",
        "failed",
        "unknown",
        "not supported",
        "unsupported",
    ]
    .iter()
    .any(|word| first.contains(word))
}

#[cfg(test)]
mod tests {
    use super::reads_as_refusal;

    /// A missing flag is told from an accepted call by the answer's words: the page's errors and
    /// other implementations' refusals read as refusals, a success never does.
    #[test]
    fn a_refusal_in_words_is_told_from_a_success() {
        for refusal in [
            "Error: The path /memories/x does not exist",
            "The path /memories/x does not exist. Please provide a valid path.",
            "File not found: /memories/nope.txt",
            "Path traversal not allowed: /memories/../x",
            "Path must start with one of ['/memories']: /etc/x",
            "Invalid path: /memories\\x",
            "Unknown command: undo_edit",
        ] {
            assert!(reads_as_refusal(refusal, ""), "{refusal}");
        }
        for success in [
            "File deleted: /memories/nope.txt",
            "File created successfully at: /memories/a.txt",
            "Successfully renamed /memories/a to /memories/b",
            "Here's the content of /memories/a.txt with line numbers:\n     1\tan error log",
        ] {
            assert!(!reads_as_refusal(success, ""), "{success}");
        }
        // A path's own words are not the answer's.
        let named = "/memories/not found: invalid path.md";
        for success in [
            format!("Here's the content of {named} with line numbers:\n     1\tx"),
            format!("The memory file has been edited. {named}"),
        ] {
            assert!(!reads_as_refusal(&success, named), "{success}");
        }
        let missing = format!("The path {named} does not exist. Please provide a valid path.");
        assert!(reads_as_refusal(&missing, named), "{missing}");
    }
}
