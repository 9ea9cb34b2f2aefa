//! Which spec rule a difference breaks, from the command, the rule the reference's answer
//! follows ([`Answer::rule`], said by the reference itself) and the kind of difference. The
//! reference's wording is never searched: a rewording of one of its messages changes no verdict.
//! The rule's level and sentence come from `spec/` when it is loaded.

use serde_json::Value;

use crate::exec::tree::{EntryKind, Tree};
use crate::protocol::ToolResult;
use crate::reference::Answer;
use crate::spec::Level;
use crate::spec::{RuleId, Spec, known};

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
pub(super) fn reads_like_spec_error(text: &str) -> bool {
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

/// Whether `rule` is one of the confinement rules, whose findings make the security lane:
/// `confinement.all-operations`, `errors.no-host-paths`, `users.isolated` and `security.*`.
pub fn is_confinement(rule: &RuleId) -> bool {
    *rule == known::CONFINEMENT
        || *rule == known::NO_HOST_PATHS
        || *rule == known::USERS_ISOLATED
        || rule.as_str().starts_with("security.")
}

/// The `security.*` rule of the spec named `id`, or `confinement.all-operations` when no spec is
/// loaded (the code names no `security.*` id itself).
fn security_id(spec: Option<&Spec>, id: &str) -> RuleId {
    spec.and_then(|s| s.id(id)).unwrap_or(CONFINEMENT)
}

/// How a spelled path leaves `/memories` when a backend resolves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escape {
    /// The `security.*` rule it attacks (`security.prefix`, `security.traversal.dotdot`, …).
    pub rule: &'static str,
    /// Only when decoded (percent escapes, backslashes as separators, look-alikes, a cut at
    /// NUL): read literally it is a name inside `/memories`, which the spec allows. The
    /// literal memory path (relative to the root) is given.
    pub literal: Option<String>,
}

/// Whether `path` leaves `/memories` at any point when resolved: not below `/memories` at all
/// (`/etc/passwd`, `/memoriesX/a`, relative), or through a `..` that steps out of it, even to
/// come back (`/memories/../memories/x`). Checked as written (`/` the only separator), then as
/// a careless backend decodes it.
pub fn escape(path: &str) -> Option<Escape> {
    let plain = walk(path);
    match plain {
        Walk::Leaves { dotdot } => Some(Escape {
            rule: if dotdot {
                "security.traversal.dotdot"
            } else {
                "security.prefix"
            },
            literal: None,
        }),
        Walk::Inside(literal) => {
            let decoded = decode(path);
            if decoded == path || matches!(walk(&decoded), Walk::Inside(_)) {
                return None;
            }
            let rule = if path.contains('\\') {
                "security.traversal.backslash"
            } else if path.contains('%') {
                "security.traversal.url-encoded"
            } else {
                "security.traversal.other"
            };
            Some(Escape {
                rule,
                literal: Some(literal),
            })
        }
    }
}

enum Walk {
    /// Stays below `/memories` all the way: the memory path, relative to the root.
    Inside(String),
    /// Leaves it; `dotdot` when a `..` took it out.
    Leaves { dotdot: bool },
}

fn walk(path: &str) -> Walk {
    if !path.starts_with('/') {
        return Walk::Leaves { dotdot: false };
    }
    let mut stack: Vec<&str> = Vec::new();
    let mut entered = false;
    let mut dotdot = false;
    for part in path.split('/') {
        match part {
            "" | "." => continue,
            ".." => {
                dotdot = true;
                stack.pop();
            }
            name => stack.push(name),
        }
        let inside = stack.first() == Some(&"memories");
        if inside {
            entered = true;
        } else if entered {
            // Out of the root, even if a later segment comes back.
            return Walk::Leaves { dotdot: true };
        }
    }
    if stack.first() == Some(&"memories") {
        Walk::Inside(stack[1..].join("/"))
    } else {
        Walk::Leaves { dotdot }
    }
}

/// The path as a careless backend reads it: percent escapes decoded (up to three times, as
/// double encoding is an attack of its own), backslashes as separators, look-alikes of `.`, `/`
/// and `\` folded, cut at a NUL as a C string is.
fn decode(path: &str) -> String {
    let mut text = path.to_string();
    for _ in 0..3 {
        match crate::reference::path::percent_decode_once(&text) {
            Some(next) => text = next,
            None => break,
        }
    }
    if let Some(nul) = text.find('\0') {
        text.truncate(nul);
    }
    text.chars()
        .map(|c| match c {
            '\\' | '\u{FE68}' | '\u{FF3C}' | '\u{2216}' | '\u{29F9}' => "/".to_string(),
            '\u{FF0F}' | '\u{2044}' | '\u{2215}' | '\u{29F8}' | '\u{1735}' => "/".to_string(),
            '\u{2024}' | '\u{FE52}' | '\u{FF0E}' | '\u{2E33}' => ".".to_string(),
            '\u{2025}' | '\u{FE30}' => "..".to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// The path fields of an input, in order (`path`, `old_path`, `new_path`).
pub fn paths(input: &Value) -> impl Iterator<Item = &str> {
    ["path", "old_path", "new_path"]
        .into_iter()
        .filter_map(|field| input.get(field).and_then(Value::as_str))
}

/// The memory paths (relative to the root, `""` for the root) an input names, as written.
pub fn memory_paths(input: &Value) -> Vec<String> {
    paths(input)
        .filter_map(|path| match walk(path) {
            Walk::Inside(relative) => Some(relative),
            Walk::Leaves { .. } => None,
        })
        .collect()
}

/// The first path of `input` that leaves `/memories`, with the `security.*` rule it attacks,
/// unless `literal` says the backend kept it as a name inside (a check of its folder).
pub fn accepted_outside(
    input: &Value,
    spec: Option<&Spec>,
    literal: &dyn Fn(&str) -> bool,
) -> Option<(RuleId, String)> {
    paths(input).find_map(|path| {
        let escape = escape(path)?;
        if escape.literal.as_deref().is_some_and(literal) {
            return None;
        }
        Some((security_id(spec, escape.rule), path.to_string()))
    })
}

/// The precondition that decided a refusal of the reference's, when the other side succeeded:
/// the rule of that precondition (an invalid line, a missing path, an existing destination,
/// the root), cited before the command's own rule.
pub fn precondition_rule(reference: &Answer) -> Option<RuleId> {
    if !reference.result.is_error {
        return None;
    }
    let rule = &reference.rule;
    let mapped = [
        (known::INSERT_INVALID_LINE, known::INSERT_LINE_RANGE),
        (known::CREATE_EXISTS, known::CREATE_NO_OVERWRITE),
        (known::RENAME_EXISTS, known::RENAME_NO_OVERWRITE),
        (known::ROOT_DELETE, known::DELETE_NOT_ROOT),
        (known::ROOT_RENAME, known::RENAME_NOT_ROOT),
        (known::STR_REPLACE_NOT_FOUND, known::STR_REPLACE_EXACTLY_ONE),
        (known::STR_REPLACE_MULTIPLE, known::STR_REPLACE_EXACTLY_ONE),
    ];
    if let Some((_, to)) = mapped.iter().find(|(from, _)| from == rule) {
        return Some(to.clone());
    }
    [
        known::VIEW_MISSING,
        known::STR_REPLACE_MISSING,
        known::INSERT_MISSING,
        known::DELETE_MISSING,
        known::RENAME_MISSING,
    ]
    .contains(rule)
    .then(|| rule.clone())
}

/// Text that only a host could have given: an absolute path ending in a `memories` folder
/// (`/home/u/app/memories/x`, `C:\app\memories`) that the input did not spell, or a well-known
/// host file's content. Returns what was found. For answers whose sandbox is unknown (a
/// recording); a backend under test is also checked against its own sandbox's path.
pub fn host_leak(input: &Value, text: &str) -> Option<String> {
    const HOST_CONTENT: [&str; 2] = ["root:x:0:0:", "root:*:0:0:"];
    if let Some(found) = HOST_CONTENT.iter().find(|c| text.contains(**c)) {
        return Some(format!("host file content `{found}`"));
    }
    // Serialized only when a token needs it: a create's input can be megabytes.
    let asked = std::cell::OnceCell::new();
    for (at, _) in text.match_indices("memories") {
        let before = &text[..at];
        let Some(sep) = before.chars().last() else {
            continue;
        };
        if sep != '/' && sep != '\\' {
            continue;
        }
        // The whole token up to the folder: `/abs/host/…/memories`.
        let start = before
            .rfind(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '(' | ','))
            .map_or(0, |i| i + 1);
        let token = &text[start..at + "memories".len()];
        let prefix = &token[..token.len() - "memories".len() - 1];
        let absolute =
            prefix.starts_with('/') || prefix.as_bytes().get(1) == Some(&b':') && prefix.len() > 2;
        // A folder named `memories` inside the memory folder is a memory path, not a host one.
        let memory_path = prefix == "/memories" || prefix.starts_with("/memories/");
        if absolute && !memory_path && !asked.get_or_init(|| input.to_string()).contains(token) {
            return Some(format!("host path `{token}`"));
        }
    }
    None
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

    /// Which spellings leave `/memories` once resolved, and which only once decoded.
    #[test]
    fn escapes() {
        let rule = |p: &str| escape(p).map(|e| (e.rule, e.literal));
        assert_eq!(rule("/memories/a/../b.md"), None);
        assert_eq!(rule("/memories/100%25 sure"), None);
        assert_eq!(rule("/etc/passwd"), Some(("security.prefix", None)));
        assert_eq!(rule("/memoriesX/a"), Some(("security.prefix", None)));
        assert_eq!(
            rule("/memories/../memories/x"),
            Some(("security.traversal.dotdot", None))
        );
        assert_eq!(
            rule("/memories/..%2f..%2fetc"),
            Some((
                "security.traversal.url-encoded",
                Some("..%2f..%2fetc".to_string())
            ))
        );
        assert_eq!(
            rule("/memories/..\\x").map(|r| r.0),
            Some("security.traversal.backslash")
        );
    }

    #[test]
    fn host_leaks() {
        let input = json!({"command": "view", "path": "/memories/x"});
        assert!(host_leak(&input, "Error: open '/home/a/memories/x'").is_some());
        assert!(host_leak(&input, "0B\t/memories/memories/x").is_none());
        assert!(host_leak(&input, "The path /memories/x does not exist").is_none());
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
