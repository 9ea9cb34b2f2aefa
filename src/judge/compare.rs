//! An answer judged against the reference's answer to the same call in the same state: the
//! grading of `replay`, `record` and `fuzz`, in the vocabulary `check` uses (findings under the
//! rules of the revision). Which rule a difference breaks comes from [`super::rules`]; which
//! text differences are known dialects or open points from [`super::dialect`].

use serde::Serialize;
use serde_json::Value;

use super::dialect;
use super::finding::{Check, Finding, Pair};
use super::rules;
use crate::protocol::ToolResult;
use crate::reference::Answer as ReferenceAnswer;
use crate::spec::{Level, Spec, known};

/// What a backend said to one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Answer {
    /// A tool result.
    Result(ToolResult),
    /// The backend crashed, hung or spoke garbage; how.
    Broke(String),
    /// The call was not made; why.
    NotRun(String),
}

impl Answer {
    /// The result, if there is one.
    pub fn result(&self) -> Option<&ToolResult> {
        match self {
            Answer::Result(result) => Some(result),
            Answer::Broke(_) | Answer::NotRun(_) => None,
        }
    }
}

/// A finding about the backend under test alone (confinement, a ranged view's lines, a loss
/// read through the tool): shown against the reference's result; in the security lane when its
/// rule is a confinement rule.
pub fn of_backend(finding: Finding) -> Finding {
    let security = rules::is_confinement(&finding.rule);
    let finding = finding.between(Pair::BackendReference);
    if security { finding.secure() } else { finding }
}

/// The three results of one step.
#[derive(Debug, Clone, Copy)]
pub struct Results<'a> {
    /// The tool input.
    pub input: &'a Value,
    /// What the transcript recorded, if anything.
    pub recorded: Option<&'a ToolResult>,
    /// What the backend under test answered.
    pub backend: &'a ToolResult,
    /// What the reference answered, with the rule that answer follows.
    pub reference: &'a ReferenceAnswer,
}

/// Compares the results' `is_error` flags and texts. In check mode only the recording against
/// the backend counts, and any difference is a MUST-level change.
pub fn compare(results: Results<'_>, spec: Option<&Spec>, check: bool) -> Vec<Finding> {
    compare_with(results, spec, check, &|_| false)
}

/// [`compare`], told by `literal` which memory paths (relative to the root) the backend's
/// folder holds: a path that leaves `/memories` only once decoded (`%2e%2e`, `\`) and that
/// the backend kept as a literal name there is no escape. The recording has no folder.
pub fn compare_with(
    results: Results<'_>,
    spec: Option<&Spec>,
    check: bool,
    literal: &dyn Fn(&str) -> bool,
) -> Vec<Finding> {
    let mut out = Vec::new();
    if check {
        if let Some(recorded) = results.recorded {
            changes(recorded, results, &mut out);
        }
        return out;
    }
    against_reference(
        Pair::BackendReference,
        results.backend,
        results,
        spec,
        literal,
        &mut out,
    );
    if let Some(recorded) = results.recorded {
        out.extend(self::recorded(
            results.input,
            recorded,
            results.reference,
            spec,
        ));
        // Only news when all three differ: otherwise it repeats a comparison with the reference.
        let reference = &results.reference.result;
        if recorded != results.backend && results.backend != reference && recorded != reference {
            out.push(
                Finding::new(
                    if recorded.is_error == results.backend.is_error {
                        Check::Text
                    } else {
                        Check::IsError
                    },
                    Level::Info,
                    results.reference.rule.clone(),
                    "the replay does not reproduce the recorded result".to_string(),
                )
                .between(Pair::RecordedBackend),
            );
        }
    }
    out
}

/// The recording against the reference, in the recording's words: with the backend's answer,
/// and alone when the backend gave none (the recording is judged whatever the backend did).
/// What the recording shows of its host is read from its text alone: there is no sandbox to
/// compare with (a path ending in a `memories` folder, a host file's content).
pub fn recorded(
    input: &Value,
    recorded: &ToolResult,
    reference: &ReferenceAnswer,
    spec: Option<&Spec>,
) -> Vec<Finding> {
    let results = Results {
        input,
        recorded: None,
        backend: recorded,
        reference,
    };
    let mut out = Vec::new();
    against_reference(
        Pair::RecordedReference,
        recorded,
        results,
        spec,
        &|_| false,
        &mut out,
    );
    if let Some(found) = rules::host_leak(input, &recorded.text) {
        out.push(leak(Pair::RecordedReference, &found, spec));
    }
    out
}

/// Differences of the backend from the recording (check mode): the flag under its own rule, the
/// text under the rule of the part of the format that changed.
fn changes(recorded: &ToolResult, results: Results<'_>, out: &mut Vec<Finding>) {
    let backend = results.backend;
    if recorded.is_error != backend.is_error {
        out.push(
            Finding::new(
                Check::IsError,
                Level::Must,
                rules::IS_ERROR,
                format!(
                    "is_error changed: recorded {}, now {}",
                    recorded.is_error, backend.is_error
                ),
            )
            .between(Pair::RecordedBackend),
        );
    }
    if recorded.text != backend.text {
        // The part of the format that changed, read as the reference reads its own answers:
        // the recording takes the reference's place.
        let was = ReferenceAnswer {
            result: recorded.clone(),
            rule: results.reference.rule.clone(),
        };
        out.push(
            Finding::new(
                Check::Text,
                Level::Must,
                rules::text_rule(&was, &backend.text),
                "the text changed since the recording".to_string(),
            )
            .between(Pair::RecordedBackend),
        );
    }
}

/// A size in the backend's listing that is not the byte count of the file the reference holds at
/// that path, whatever its spelling (see [`crate::judge::witness::size_holds`]): the text's
/// size format is open (`decide.size-format`), the number it stands for is not.
pub fn listing_sizes(
    input: &serde_json::Value,
    answer: &ToolResult,
    reference: &crate::exec::tree::Tree,
    spec: Option<&Spec>,
) -> Option<Finding> {
    if answer.is_error || input.get("command").and_then(serde_json::Value::as_str) != Some("view") {
        return None;
    }
    let (size, path, bytes) = answer.text.split('\n').skip(1).find_map(|line| {
        let (size, path) = line.split_once('\t')?;
        // The name as listed: a trailing space may be part of it.
        let relative = path.strip_prefix("/memories/")?.trim_end_matches('/');
        let entry = reference.get(relative)?;
        let bytes = usize::try_from(entry.size).ok()?;
        (entry.kind == crate::exec::tree::EntryKind::File
            && !crate::judge::witness::size_holds(size, bytes))
        .then(|| (size.trim().to_string(), path.to_string(), bytes))
    })?;
    let rule = known::VIEW_DIR_SIZES;
    Some(Finding::new(
        Check::Text,
        rules::level(spec, &rule, Level::Should),
        rule,
        format!(
            "the listing gives {:?} the size {:?}, but the reference's file there holds {bytes} bytes",
            bounded(&path),
            bounded(&size)
        )).between(Pair::BackendReference))
}

/// The first 200 characters of a text the backend sent, for a message.
fn bounded(text: &str) -> &str {
    text.char_indices()
        .nth(200)
        .map_or(text, |(cut, _)| &text[..cut])
}

/// A host path or a host file's content in `pair`'s answer: the security lane, under
/// `errors.no-host-paths` (a path) or `confinement.all-operations` (content), each at its
/// spec level.
pub fn leak(pair: Pair, found: &str, spec: Option<&Spec>) -> Finding {
    let (_, side) = pair.sides();
    let (check, rule) = if found.starts_with("host path") {
        (Check::HostPath, known::NO_HOST_PATHS)
    } else {
        (Check::Leak, rules::CONFINEMENT)
    };
    let level = rules::level(spec, &rule, Level::Must);
    Finding::new(
        check,
        level,
        rule,
        format!("the {side} answer shows what only the host has: {found}"),
    )
    .between(pair)
    .secure()
}

fn against_reference(
    pair: Pair,
    other: &ToolResult,
    results: Results<'_>,
    spec: Option<&Spec>,
    literal: &dyn Fn(&str) -> bool,
    out: &mut Vec<Finding>,
) {
    let answer = results.reference;
    let reference = &answer.result;
    let (_, side) = pair.sides();
    if other.is_error != reference.is_error {
        let rule = rules::is_error_rule(results.input, answer, other);
        let accepted = !other.is_error && rule != rules::IS_ERROR;
        if accepted
            && let Some((rule, path)) = rules::accepted_outside(results.input, spec, literal)
        {
            // The answer's text only restates the acceptance: one finding.
            out.push(
                Finding::new(
                    Check::IsError,
                    rules::level(spec, &rule, Level::Must),
                    rule,
                    format!(
                        "the {} accepted {path:?}, a path outside /memories; the reference refuses it",
                        if side == "recorded" { "recording" } else { side }
                    )).between(pair)
                .secure(),
            );
            return;
        }
        if accepted && answer.rule == known::PATH_GRAMMAR {
            // Refused by the reference's grammar, yet it stays inside: a decision, not a rule.
            out.push(Finding::new(
                Check::IsError,
                Level::Info,
                answer.rule.clone(),
                format!(
                    "the {} accepted a path the reference's grammar refuses; it stays inside /memories",
                    if side == "recorded" { "recording" } else { side }
                )).between(pair));
            return;
        }
        if accepted && let Some(precondition) = rules::precondition_rule(answer) {
            // The precondition that decided the refusal first; the command's own rule after
            // it only when the precondition's rule is not already MUST (a wording rule).
            let level = rules::level(spec, &precondition, Level::Must);
            out.push(
                Finding::new(
                    Check::IsError,
                    level,
                    precondition,
                    format!(
                        "the {side} succeeded where the reference refuses: {}",
                        reference.text.lines().next().unwrap_or_default()
                    ),
                )
                .between(pair),
            );
            if level == Level::Must {
                return;
            }
        }
        out.push(
            Finding::new(
                Check::IsError,
                rules::level(spec, &rule, Level::Must),
                rule,
                format!(
                    "is_error is {} in the {side} result, {} in the reference's",
                    other.is_error, reference.is_error
                ),
            )
            .between(pair),
        );
    }
    if other.text == reference.text {
        return;
    }
    if let Some(lines) = ranged_lines(results.input, answer, other, spec) {
        let mut lines = of_backend(lines);
        lines.pair = Some(pair);
        out.push(lines);
    }
    match dialect::explain(&reference.text, &other.text) {
        Some(explanation) => {
            let names = explanation.names.join(", ");
            let mut divergence = Finding::new(
                Check::Text,
                Level::Info,
                rules::known_id(spec, explanation.rule).unwrap_or_else(|| answer.rule.clone()),
                if explanation.dialect {
                    format!("the {side} text is a known dialect: {names}")
                } else {
                    format!("the {side} text differs only where the spec leaves it open: {names}")
                },
            )
            .between(pair);
            if explanation.dialect {
                divergence.dialect = Some(names);
            } else {
                divergence.open = Some(names);
            }
            out.push(divergence);
        }
        None => {
            let rule = rules::text_rule(answer, &other.text);
            let level = rules::level(spec, &rule, Level::Should);
            out.push(
                Finding::new(
                    Check::Text,
                    level,
                    rule,
                    if level == Level::Info {
                        format!("the {side} text differs where the spec leaves the wording open")
                    } else {
                        format!("the {side} text differs from the reference's")
                    },
                )
                .between(pair),
            );
        }
    }
}

/// The lines a successful ranged `view` shows, against the reference's: a fact (MUST, see
/// [`known::view_range_rule`]) whatever the view's wording or numbering, read by
/// [`super::witness::ranged_view_differs`] as `check` reads them. `None` when they agree, when
/// either side refused, when the reference did not show a file, or when the revision has no such
/// rule (`[start, -1]` under beta).
pub fn ranged_lines(
    input: &Value,
    reference: &ReferenceAnswer,
    other: &ToolResult,
    spec: Option<&Spec>,
) -> Option<Finding> {
    let range = input.get("view_range")?.as_array()?;
    if input.get("command").and_then(Value::as_str) != Some("view")
        || other.is_error
        || reference.result.is_error
        || reference.rule != known::VIEW_FILE_HEADER
    {
        return None;
    }
    let end = range.get(1).and_then(Value::as_i64);
    let rule = known::view_range_rule(end);
    let rule = match spec {
        Some(spec) => spec.id(rule.as_str())?,
        None => rule,
    };
    let message = super::witness::ranged_view_differs(&reference.result.text, &other.text, end)?;
    Some(
        Finding::new(
            Check::Lines,
            rules::level(spec, &rule, Level::Must),
            rule,
            message,
        )
        .expecting(reference.result.text.clone())
        .actually(other.text.clone()),
    )
}

/// A `view` that finds absent, through the tool, a file the reference's store holds: the store
/// lost it (a fact of the witness, [`super::witness::says_absent`]), graded under the rule of the
/// last call that changed the store (`last_change`), as `check` grades a missing effect under
/// the rule of its case ([`Check::Lost`], [`super::Harm::Loss`]). Only for a store that is
/// not a folder (a folder's tree shows the loss at the call that made it), only for files (a
/// folder with no file left may rightly vanish from a store of keys, GA A13), and only when the
/// backend's text says the file is absent (another refusal says nothing of the store).
pub fn lost_on_read(
    input: &Value,
    reference: &ReferenceAnswer,
    other: &ToolResult,
    last_change: Option<&Value>,
    spec: Option<&Spec>,
) -> Option<Finding> {
    if input.get("command").and_then(Value::as_str) != Some("view")
        || reference.result.is_error
        || reference.rule != known::VIEW_FILE_HEADER
        || !super::witness::says_absent(
            &other.text,
            input.get("path").and_then(Value::as_str).unwrap_or(""),
        )
    {
        return None;
    }
    let path = input.get("path").and_then(Value::as_str)?;
    let (rule, by) = match last_change {
        Some(change) => {
            let command = change.get("command").and_then(Value::as_str).unwrap_or("");
            let rule = match command {
                "create" => known::CREATE_WRITES_FILE_TEXT,
                "str_replace" => known::STR_REPLACE_REPLACES,
                "insert" => known::INSERT_INSERTS,
                "delete" => known::DELETE_REMOVES,
                "rename" => known::RENAME_MOVES,
                _ => known::VIEW_FILE_CONTENT,
            };
            (rule, format!(" after the `{command}` before it"))
        }
        None => (known::VIEW_FILE_CONTENT, String::new()),
    };
    Some(Finding::new(Check::Lost, rules::level(spec, &rule, Level::Must), rule, format!(
            "{path} is gone from the store{by}: the backend says it does not exist, the reference holds it"
        )).expecting(reference.result.text.clone()).actually(other.text.clone()))
}
