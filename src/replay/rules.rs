//! Which spec rule a difference breaks, from the command, the rule the reference's answer
//! follows ([`Answer::rule`], said by the reference itself) and the kind of difference. The
//! reference's wording is never searched: a rewording of one of its messages changes no verdict.
//! The rule's level and sentence come from `spec/` when it is loaded.

use serde_json::Value;

use super::tree::{EntryKind, Tree};
use crate::protocol::ToolResult;
use crate::reference::Answer;
use crate::spec::{RuleId, Spec, known};
use crate::suite::case::Level;

/// The rule cited when the output contains something from outside the root, or something
/// outside the root changed.
pub const CONFINEMENT: RuleId = known::CONFINEMENT;
/// The rule cited when an error is not flagged.
pub const IS_ERROR: RuleId = known::IS_ERROR_FLAG;

/// The level of `rule`: from the spec when loaded, else from its id (decisions are INFO).
pub fn level(spec: Option<&Spec>, rule: &RuleId, fallback: Level) -> Level {
    match spec.and_then(|s| s.get(rule.as_str())) {
        Some(r) => r.level,
        None if rule.is_decision() => Level::Info,
        None => fallback,
    }
}

/// The checked id of a rule the code spells itself (a dialect's), when it is one of
/// [`known::ALL`] or, failing that, in the loaded spec.
pub fn known_id(spec: Option<&Spec>, id: &str) -> Option<RuleId> {
    known::ALL
        .iter()
        .find(|known| *known == id)
        .cloned()
        .or_else(|| spec?.id(id))
}

fn command(input: &Value) -> &str {
    input.get("command").and_then(Value::as_str).unwrap_or("")
}

/// The rule broken by a text that differs from the reference's answer.
///
/// It is the rule the answer follows, except where the difference itself tells which part of
/// a format is off: a file view or a folder listing is compared line by line, and a
/// str_replace answer whose first line agrees differs in its snippet.
pub fn text_rule(reference: &Answer, other: &str) -> RuleId {
    let text = reference.result.text.as_str();
    let rule = &reference.rule;
    if reference.result.is_error {
        rule.clone()
    } else if *rule == known::VIEW_FILE_HEADER {
        view_file_rule(text, other)
    } else if *rule == known::VIEW_DIR_HEADER {
        view_dir_rule(text, other)
    } else if *rule == known::STR_REPLACE_SUCCESS
        && first_line(text) == first_line(other).replace(SDK_SNIPPET_TAIL, "")
    {
        // The SDKs announce the snippet in the first line; that much is a known dialect.
        known::STR_REPLACE_SNIPPET
    } else {
        rule.clone()
    }
}

const SDK_SNIPPET_TAIL: &str = " Here is the snippet showing the change (with line numbers):";

fn first_line(text: &str) -> &str {
    text.split('\n').next().unwrap_or("")
}

/// A file view: the header, then `{n:>6}\t{line}` lines. A line whose number or separator is
/// off breaks the format; one whose content is off breaks the content rule (a MUST).
fn view_file_rule(reference: &str, other: &str) -> RuleId {
    let mut expected = reference.split('\n');
    let mut actual = other.split('\n');
    if expected.next() != actual.next() {
        return known::VIEW_FILE_HEADER;
    }
    for (want, got) in expected.zip(actual) {
        if want == got {
            continue;
        }
        let Some((number, content)) = want.split_once('\t') else {
            return known::VIEW_FILE_LINE_FORMAT;
        };
        return match got.split_once('\t') {
            Some((n, c)) if n == number && c != content => known::VIEW_FILE_CONTENT,
            Some((n, _)) if n.trim() == number.trim() => known::VIEW_FILE_NUMBER_WIDTH,
            _ if got.starts_with(number) => known::VIEW_FILE_NUMBER_SEPARATOR,
            _ => known::VIEW_FILE_LINE_FORMAT,
        };
    }
    known::VIEW_FILE_LINE_FORMAT
}

/// A folder listing: the header, then `{size}\t{path}` lines.
fn view_dir_rule(reference: &str, other: &str) -> RuleId {
    let mut expected = reference.split('\n');
    let mut actual = other.split('\n');
    if expected.next() != actual.next() {
        return known::VIEW_DIR_HEADER;
    }
    let lines: Vec<&str> = actual.collect();
    if lines
        .iter()
        .any(|l| !l.contains('\t') && l.contains(" /memories"))
    {
        return known::VIEW_DIR_TAB_SEPARATOR;
    }
    if lines.len() != expected.count() {
        return known::VIEW_DIR_CONTENTS;
    }
    known::VIEW_DIR_ENTRY_LINE
}

/// The rule broken when `is_error` differs. An error text without the flag breaks the flag
/// rule; any other disagreement (success against refusal, either way) is about what the
/// command does, so it breaks the command's semantic rule.
pub fn is_error_rule(input: &Value, reference: &Answer, other: &ToolResult) -> RuleId {
    let result = &reference.result;
    let unflagged_error = result.is_error
        && (other.text == result.text
            || other.text.starts_with("Error")
            || super::dialect::explain(&result.text, &other.text).is_some()
            || reads_like_spec_error(&other.text));
    if unflagged_error {
        return IS_ERROR;
    }
    match command(input) {
        "view" if reference.rule == known::VIEW_DIR_HEADER => known::VIEW_DIR_CONTENTS,
        "view" => known::VIEW_FILE_CONTENT,
        "create" => known::CREATE_WRITES_FILE_TEXT,
        "str_replace" => known::STR_REPLACE_REPLACES,
        "insert" => known::INSERT_INSERTS,
        "delete" => known::DELETE_REMOVES,
        "rename" => known::RENAME_MOVES,
        _ => known::TERMINATES,
    }
}

/// Whether the other side's text reads like one of the spec's error messages. This judges the
/// backend's (or the recording's) words, which are all there is to go on for them; the
/// reference's are never searched.
fn reads_like_spec_error(text: &str) -> bool {
    [
        "does not exist",
        "already exists",
        "No replacement was performed",
        "Invalid `",
        "exceeds maximum",
    ]
    .iter()
    .any(|s| text.contains(s))
}

/// The rule broken when the backend's folder changed differently from the reference's.
pub fn tree_rule(input: &Value, reference: &Answer, before: Option<&Tree>) -> Option<RuleId> {
    let failed = reference.result.is_error;
    let rule = &reference.rule;
    let was_dir = |field: &str| {
        let path = input.get(field).and_then(Value::as_str)?;
        let relative = path.strip_prefix("/memories")?.trim_matches('/');
        if relative.is_empty() {
            return Some(true);
        }
        before?.get(relative).map(|e| e.kind == EntryKind::Dir)
    };
    let names_root = |field: &str| {
        input
            .get(field)
            .and_then(Value::as_str)
            .is_some_and(|p| p.trim_end_matches('/') == "/memories")
    };
    Some(match command(input) {
        "create" if failed && *rule == known::CREATE_EXISTS => known::CREATE_NO_OVERWRITE,
        "create" => known::CREATE_WRITES_FILE_TEXT,
        "str_replace" if failed => known::STR_REPLACE_EXACTLY_ONE,
        "str_replace" => known::STR_REPLACE_REPLACES,
        "insert" if failed => known::INSERT_LINE_RANGE,
        "insert" => known::INSERT_INSERTS,
        "delete" if *rule == known::ROOT_DELETE || names_root("path") => known::DELETE_NOT_ROOT,
        "delete" if was_dir("path") == Some(true) => known::DELETE_RECURSIVE,
        "delete" => known::DELETE_REMOVES,
        "rename" if *rule == known::ROOT_RENAME => known::RENAME_NOT_ROOT,
        "rename" if failed && *rule == known::RENAME_EXISTS => known::RENAME_NO_OVERWRITE,
        "rename" if was_dir("old_path") == Some(true) => known::RENAME_DIRECTORY,
        "rename" => known::RENAME_MOVES,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const HEADER: &str = "Here's the content of /memories/a.md with line numbers:";

    fn answer(result: ToolResult, rule: RuleId) -> Answer {
        Answer { result, rule }
    }

    #[test]
    fn view_file_rules() {
        let reference = answer(
            ToolResult::ok(format!("{HEADER}\n     1\tx\ty")),
            known::VIEW_FILE_HEADER,
        );
        let rule = |other: &str| text_rule(&reference, &format!("{HEADER}\n{other}"));
        assert_eq!(rule("     1\tx    y"), known::VIEW_FILE_CONTENT);
        assert_eq!(rule("     1    x\ty"), known::VIEW_FILE_NUMBER_SEPARATOR);
        assert_eq!(rule("1\tx\ty"), known::VIEW_FILE_NUMBER_WIDTH);
        assert_eq!(
            text_rule(&reference, "Here is a.md:\n     1\tx\ty"),
            known::VIEW_FILE_HEADER
        );
    }

    #[test]
    fn error_and_tree_rules() {
        let create = json!({"command": "create", "path": "/memories/a.md", "file_text": "x"});
        let exists = answer(
            ToolResult::error("Error: File /memories/a.md already exists"),
            known::CREATE_EXISTS,
        );
        assert_eq!(text_rule(&exists, "File exists"), known::CREATE_EXISTS);
        let unflagged = ToolResult::ok("File /memories/a.md already exists");
        assert_eq!(is_error_rule(&create, &exists, &unflagged), IS_ERROR);
        let replaced = ToolResult::ok("File created successfully at: /memories/a.md");
        assert_eq!(
            is_error_rule(&create, &exists, &replaced),
            known::CREATE_WRITES_FILE_TEXT
        );
        assert_eq!(
            tree_rule(&create, &exists, None),
            Some(known::CREATE_NO_OVERWRITE)
        );
        let delete = json!({"command": "delete", "path": "/memories"});
        let refused = answer(ToolResult::error("x"), known::ROOT_DELETE);
        assert_eq!(
            tree_rule(&delete, &refused, None),
            Some(known::DELETE_NOT_ROOT)
        );
    }

    /// The rule comes from what the reference says it follows, never from its words: the same
    /// answer reworded names the same rules.
    #[test]
    fn a_reworded_reference_names_the_same_rules() {
        let rename =
            json!({"command": "rename", "old_path": "/memories/a", "new_path": "/memories/b"});
        for text in [
            "Error: The destination /memories/b already exists",
            "Error: /memories/b is taken",
        ] {
            let taken = answer(ToolResult::error(text), known::RENAME_EXISTS);
            assert_eq!(text_rule(&taken, "nope"), known::RENAME_EXISTS);
            assert_eq!(
                tree_rule(&rename, &taken, None),
                Some(known::RENAME_NO_OVERWRITE)
            );
        }
        let view = json!({"command": "view", "path": "/memories"});
        for header in [
            "Here're the files and directories in /memories:",
            "Listing:",
        ] {
            let listing = answer(
                ToolResult::ok(format!("{header}\n0B\t/memories")),
                known::VIEW_DIR_HEADER,
            );
            assert_eq!(
                text_rule(&listing, &format!("{header}\n0B /memories")),
                known::VIEW_DIR_TAB_SEPARATOR
            );
            let refused = ToolResult::error("Error: no");
            assert_eq!(
                is_error_rule(&view, &listing, &refused),
                known::VIEW_DIR_CONTENTS
            );
        }
    }

    #[test]
    fn dialect_rules_are_known() {
        for id in [
            "decide.error-prefix",
            "view.dir.header",
            "str-replace.success",
            "decide.size-format",
            "decide.listing-order",
            "decide.final-newline",
            "commands.recommended-strings",
        ] {
            assert_eq!(known_id(None, id).as_ref().map(RuleId::as_str), Some(id));
        }
        assert_eq!(known_id(None, "no.such-rule"), None);
    }
}
