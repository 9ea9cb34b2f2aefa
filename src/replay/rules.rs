//! Which spec rule a difference breaks, inferred from the command, the reference's answer and
//! the kind of difference. The rule's level and sentence come from `spec/` when it is loaded.

use serde_json::Value;

use super::tree::{EntryKind, Tree};
use crate::protocol::ToolResult;
use crate::spec::Spec;
use crate::suite::case::Level;

/// The rule cited when the output contains something from outside the root, or something
/// outside the root changed.
pub const CONFINEMENT: &str = "confinement.all-operations";
/// The rule cited when an error is not flagged.
pub const IS_ERROR: &str = "errors.is-error-flag";

/// The level of `rule`: from the spec when loaded, else from its id (decisions are INFO).
pub fn level(spec: Option<&Spec>, rule: &str, fallback: Level) -> Level {
    match spec.and_then(|s| s.get(rule)) {
        Some(r) => r.level,
        None if rule.starts_with("decide.") => Level::Info,
        None => fallback,
    }
}

fn command(input: &Value) -> &str {
    input.get("command").and_then(Value::as_str).unwrap_or("")
}

/// The rule broken by a text that differs from the reference's `reference` answer.
pub fn text_rule(input: &Value, reference: &ToolResult, other: &str) -> &'static str {
    let text = reference.text.as_str();
    if reference.is_error {
        return error_rule(command(input), text);
    }
    match command(input) {
        "view" if text.starts_with("Here's the content of ") => view_file_rule(text, other),
        "view" if text.starts_with("Here're the files and directories") => {
            view_dir_rule(text, other)
        }
        "view" => "view.file.content",
        "create" => "create.success",
        // The SDKs announce the snippet in the first line; that much is a known dialect.
        "str_replace" if first_line(text) == first_line(other).replace(SDK_SNIPPET_TAIL, "") => {
            "str-replace.snippet"
        }
        "str_replace" => "str-replace.success",
        "insert" => "insert.success",
        "delete" => "delete.success",
        "rename" => "rename.success",
        _ => "commands.recommended-strings",
    }
}

const SDK_SNIPPET_TAIL: &str = " Here is the snippet showing the change (with line numbers):";

fn first_line(text: &str) -> &str {
    text.split('\n').next().unwrap_or("")
}

/// A file view: the header, then `{n:>6}\t{line}` lines. A line whose number or separator is
/// off breaks the format; one whose content is off breaks the content rule (a MUST).
fn view_file_rule(reference: &str, other: &str) -> &'static str {
    let mut expected = reference.split('\n');
    let mut actual = other.split('\n');
    if expected.next() != actual.next() {
        return "view.file.header";
    }
    for (want, got) in expected.zip(actual) {
        if want == got {
            continue;
        }
        let Some((number, content)) = want.split_once('\t') else {
            return "view.file.line-format";
        };
        return match got.split_once('\t') {
            Some((n, c)) if n == number && c != content => "view.file.content",
            Some((n, _)) if n.trim() == number.trim() => "view.file.number-width",
            _ if got.starts_with(number) => "view.file.number-separator",
            _ => "view.file.line-format",
        };
    }
    "view.file.line-format"
}

/// A folder listing: the header, then `{size}\t{path}` lines.
fn view_dir_rule(reference: &str, other: &str) -> &'static str {
    let mut expected = reference.split('\n');
    let mut actual = other.split('\n');
    if expected.next() != actual.next() {
        return "view.dir.header";
    }
    let lines: Vec<&str> = actual.collect();
    if lines
        .iter()
        .any(|l| !l.contains('\t') && l.contains(" /memories"))
    {
        return "view.dir.tab-separator";
    }
    if lines.len() != expected.count() {
        return "view.dir.contents";
    }
    "view.dir.entry-line"
}

/// The rule of an error text: the spec's strings per command, else the decision behind it.
fn error_rule(command: &str, text: &str) -> &'static str {
    let has = |s: &str| text.contains(s);
    match command {
        "view" if has("exceeds maximum line limit") => return "view.file.line-limit.message",
        "view" if has("does not exist") => return "view.missing",
        "create" if has("already exists") => return "create.exists",
        "str_replace" if has("did not appear verbatim") => return "str-replace.not-found",
        "str_replace" if has("Multiple occurrences") => return "str-replace.multiple",
        "str_replace" if has("does not exist") => return "str-replace.missing",
        "insert" if has("Invalid `insert_line`") => return "insert.invalid-line",
        "insert" if has("does not exist") => return "insert.missing",
        "delete" if has("does not exist") => return "delete.missing",
        "rename" if has("destination") && has("already exists") => return "rename.exists",
        "rename" if has("does not exist") => return "rename.missing",
        _ => {}
    }
    if has("ends with a slash") {
        "decide.create-trailing-slash"
    } else if has("is not a folder") && command == "rename" {
        "decide.rename-parents"
    } else if has("is not a folder") {
        "decide.create-parent-not-folder"
    } else if has("into itself") {
        "decide.rename-into-itself"
    } else if has("must not be empty") {
        "decide.str-replace-empty-old-str"
    } else if has("is not a valid memory path") {
        "decide.path-grammar"
    } else if has("symbolic link") {
        "decide.symlinks"
    } else if has("not valid UTF-8") {
        "decide.non-utf8"
    } else if has("not a regular file") {
        "decide.special-files"
    } else if has("view_range") {
        "decide.view-range"
    } else if has("Cannot delete") || has("delete the memory folder") {
        "decide.root-delete"
    } else if has("Cannot rename") || has("rename the memory folder") {
        "decide.root-rename"
    } else if has("parameter") || has("Parameter") || has("Unknown command") || has("tool input") {
        "decide.malformed-input"
    } else if has(" failed: ") {
        "decide.io-failure"
    } else {
        "commands.recommended-strings"
    }
}

/// The rule broken when `is_error` differs. An error text without the flag breaks the flag
/// rule; any other disagreement (success against refusal, either way) is about what the
/// command does, so it breaks the command's semantic rule.
pub fn is_error_rule(input: &Value, reference: &ToolResult, other: &ToolResult) -> &'static str {
    let unflagged_error = reference.is_error
        && (other.text == reference.text
            || other.text.starts_with("Error")
            || super::dialect::explain(&reference.text, &other.text).is_some()
            || rules_error_like(&other.text));
    if unflagged_error {
        return IS_ERROR;
    }
    match command(input) {
        "view" if reference.text.starts_with("Here're the files") => "view.dir.contents",
        "view" => "view.file.content",
        "create" => "create.writes-file-text",
        "str_replace" => "str-replace.replaces",
        "insert" => "insert.inserts",
        "delete" => "delete.removes",
        "rename" => "rename.moves",
        _ => "errors.terminates",
    }
}

/// Whether a text reads like one of the spec's error messages.
fn rules_error_like(text: &str) -> bool {
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
pub fn tree_rule(
    input: &Value,
    reference: &ToolResult,
    before: Option<&Tree>,
) -> Option<&'static str> {
    let failed = reference.is_error;
    let text = reference.text.as_str();
    let was_dir = |field: &str| {
        let path = input.get(field).and_then(Value::as_str)?;
        let relative = path.strip_prefix("/memories")?.trim_matches('/');
        if relative.is_empty() {
            return Some(true);
        }
        before?.get(relative).map(|e| e.kind == EntryKind::Dir)
    };
    Some(match command(input) {
        "create" if failed && text.contains("already exists") => "create.no-overwrite",
        "create" => "create.writes-file-text",
        "str_replace" if failed => "str-replace.exactly-one",
        "str_replace" => "str-replace.replaces",
        "insert" if failed => "insert.line-range",
        "insert" => "insert.inserts",
        "delete"
            if input
                .get("path")
                .and_then(Value::as_str)
                .is_some_and(|p| p.trim_end_matches('/') == "/memories") =>
        {
            "delete.not-root"
        }
        "delete" if was_dir("path") == Some(true) => "delete.recursive",
        "delete" => "delete.removes",
        "rename" if failed && text.contains("already exists") => "rename.no-overwrite",
        "rename" if was_dir("old_path") == Some(true) => "rename.directory",
        "rename" => "rename.moves",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const HEADER: &str = "Here's the content of /memories/a.md with line numbers:";

    #[test]
    fn view_file_rules() {
        let input = json!({"command": "view", "path": "/memories/a.md"});
        let reference = ToolResult::ok(format!("{HEADER}\n     1\tx\ty"));
        let rule = |other: &str| text_rule(&input, &reference, &format!("{HEADER}\n{other}"));
        assert_eq!(rule("     1\tx    y"), "view.file.content");
        assert_eq!(rule("     1    x\ty"), "view.file.number-separator");
        assert_eq!(rule("1\tx\ty"), "view.file.number-width");
        assert_eq!(
            text_rule(&input, &reference, "Here is a.md:\n     1\tx\ty"),
            "view.file.header"
        );
    }

    #[test]
    fn error_and_tree_rules() {
        let create = json!({"command": "create", "path": "/memories/a.md", "file_text": "x"});
        let exists = ToolResult::error("Error: File /memories/a.md already exists");
        assert_eq!(text_rule(&create, &exists, "File exists"), "create.exists");
        let unflagged = ToolResult::ok("File /memories/a.md already exists");
        assert_eq!(is_error_rule(&create, &exists, &unflagged), IS_ERROR);
        let replaced = ToolResult::ok("File created successfully at: /memories/a.md");
        assert_eq!(
            is_error_rule(&create, &exists, &replaced),
            "create.writes-file-text"
        );
        assert_eq!(
            tree_rule(&create, &exists, None),
            Some("create.no-overwrite")
        );
        let delete = json!({"command": "delete", "path": "/memories"});
        assert_eq!(
            tree_rule(&delete, &ToolResult::error("x"), None),
            Some("delete.not-root")
        );
    }
}
