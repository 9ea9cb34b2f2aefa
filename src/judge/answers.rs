//! A step's answer judged: its flag, what it must not contain, its text against the expected
//! one (naming a known dialect), and the lines a ranged view shows, as facts.

use std::path::Path;

use super::witness;
use super::{Check, Finding};
use crate::exec::Fault;
use crate::protocol::ToolResult;
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
        findings.push(
            Finding::new(
                Check::IsError,
                rules.is_error.level,
                rules.is_error.rule.clone(),
                format!(
                    "is_error should be {expected}, the backend said {}",
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
