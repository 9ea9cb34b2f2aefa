//! Effects observed through the tool: what a case checks on disk, read back with the backend's
//! own `view`, so that a backend that is not a folder (a database, a key-value store) has its
//! effects checked too, and a folder backend has a second witness.
//!
//! Only facts are compared, never a format the spec leaves open: a file's lines whatever the
//! width of their numbers, a folder by the path it lists, a missing path by the error flag.

use serde_json::{Value, json};

use super::case::{EffectKind, SetupCall};
use crate::protocol::ToolResult;

/// What the tool can tell about an effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// The answer agrees with the effect.
    Holds,
    /// It does not: what the answer shows instead.
    Differs(String),
}

/// The `view` call that reads an effect back, or `None` where the tool cannot show it (exact
/// bytes of a file that is not UTF-8, a symbolic link, a file of any content).
pub fn view_of(path: &str, expect: &EffectKind) -> Option<Value> {
    match expect {
        EffectKind::FileText(_)
        | EffectKind::Lines(_)
        | EffectKind::Dir(_)
        | EffectKind::Absent(_) => Some(json!({"command": "view", "path": path})),
        EffectKind::File(_)
        | EffectKind::FileBytesHex(_)
        | EffectKind::FileBytesHexOneOf(_)
        | EffectKind::Symlink(_) => None,
    }
}

/// What the setup calls of a case leave behind that can be verified before the steps run:
/// each file a `create` made, with its `file_text`, when every setup call is a `create` (the
/// last create of a path wins). Checking these turns a
/// backend that writes `create` wrong into one finding at the setup, not into failures of
/// every later check that reads the file.
pub fn setup_files(setup: &[SetupCall]) -> Vec<(usize, String, EffectKind)> {
    let mut files = Vec::new();
    for (index, call) in setup.iter().enumerate() {
        let input = call.input();
        let field = |name: &str| input.get(name).and_then(Value::as_str);
        if field("command") != Some("create") {
            // Edits, renames and deletes make the state depend on more than one call: what
            // the setup leaves is then checked by the case's own steps.
            return Vec::new();
        }
        if let (Some(path), Some(text)) = (field("path"), field("file_text")) {
            files.retain(|(_, known, _): &(usize, String, EffectKind)| known != path);
            files.push((
                index,
                path.to_string(),
                EffectKind::FileText(text.to_string()),
            ));
        }
    }
    files
}

/// Judges the answer to [`view_of`]'s call.
pub fn judge(path: &str, expect: &EffectKind, answer: &ToolResult) -> Seen {
    match expect {
        EffectKind::Absent(_) => {
            // The flag says it; a backend that never sets it still words the spec's error.
            if answer.is_error || answer.text.contains("does not exist") {
                Seen::Holds
            } else {
                Seen::Differs(format!("view of it succeeded: {}", excerpt(&answer.text)))
            }
        }
        EffectKind::Dir(_) => {
            // The listing's format is the spec's (SHOULD); the fact here is only that the
            // path views as a folder: it lists itself, or at least shows no file's lines.
            let no_lines = numbered_lines(&answer.text).is_none_or(|lines| lines.is_empty());
            if !answer.is_error && (lists_itself(path, &answer.text) || no_lines) {
                Seen::Holds
            } else if answer.is_error {
                Seen::Differs(format!("view of it failed: {}", excerpt(&answer.text)))
            } else {
                Seen::Differs(format!(
                    "view of it shows no listing of {path}: {}",
                    excerpt(&answer.text)
                ))
            }
        }
        EffectKind::FileText(text) => compare_lines(
            &lines_of(text),
            text.ends_with('\n') || text.is_empty(),
            answer,
        ),
        EffectKind::Lines(lines) => compare_lines(lines, true, answer),
        _ => Seen::Holds,
    }
}

/// A text's lines as the spec counts them: split at `\n`, a final `\n` ending the last line.
fn lines_of(text: &str) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n').map(str::to_string).collect()
}

/// Compares a file view's numbered lines with `want`; `phantom_allowed` accepts one empty
/// numbered line after them (what numbering after a final `\n` shows, a decision).
fn compare_lines(want: &[String], phantom_allowed: bool, answer: &ToolResult) -> Seen {
    if answer.is_error {
        return Seen::Differs(format!("view of it failed: {}", excerpt(&answer.text)));
    }
    let Some(got) = numbered_lines(&answer.text) else {
        return Seen::Differs(format!(
            "view of it shows no numbered lines: {}",
            excerpt(&answer.text)
        ));
    };
    let matches = got == want
        || (phantom_allowed
            && got.len() == want.len() + 1
            && got.last().is_some_and(String::is_empty)
            && got[..want.len()] == *want);
    if matches {
        return Seen::Holds;
    }
    // The answer can be as long as a reply may be: name the first line that differs only.
    let first = got
        .iter()
        .zip(want)
        .position(|(got, want)| got != want)
        .unwrap_or(got.len().min(want.len()));
    let line = |lines: &[String]| {
        lines
            .get(first)
            .map_or_else(|| "nothing".to_string(), |line| excerpt(line))
    };
    Seen::Differs(format!(
        "view of it shows {} line(s), not {}; line {} is {}, not {}",
        got.len(),
        want.len(),
        first + 1,
        line(&got),
        line(want)
    ))
}

/// The contents of a file view's numbered lines, numbered 1, 2, … in order whatever the width
/// and padding of the numbers; lines before the first numbered one (headers) are skipped.
/// `None` if something after the first numbered line is not one.
pub fn numbered_lines(text: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for line in text.split('\n') {
        match split_numbered(line) {
            Some((number, content)) if number == out.len() + 1 => out.push(content.to_string()),
            _ if out.is_empty() => {}
            _ => return None,
        }
    }
    Some(out)
}

/// `"     3\tcontent"` (or `3|content`, LangChain's form) as (3, "content").
fn split_numbered(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_start_matches(' ');
    let digits = trimmed.len()
        - trimmed
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    if digits == 0 {
        return None;
    }
    let (number, rest) = trimmed.split_at(digits);
    let content = rest.strip_prefix('\t').or_else(|| rest.strip_prefix('|'))?;
    Some((number.parse().ok()?, content))
}

/// Whether a listing names `path` itself (with or without a trailing `/`) on one of its lines,
/// after its size: the first line of the spec's listing format is the folder itself.
fn lists_itself(path: &str, text: &str) -> bool {
    let bare = path.trim_end_matches('/');
    text.split('\n').skip(1).any(|line| {
        let listed = line.rsplit('\t').next().unwrap_or(line).trim();
        listed.trim_end_matches('/') == bare
    })
}

fn excerpt(text: &str) -> String {
    const SHOWN: usize = 200;
    match text.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{:?}…", &text[..cut]),
        None => format!("{text:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> ToolResult {
        ToolResult::ok(text)
    }

    #[test]
    fn file_lines_are_read_whatever_the_number_width() {
        let want = EffectKind::FileText("a\n\tb\r\n".to_string());
        for view in [
            "Here's the content of /memories/x with line numbers:\n     1\ta\n     2\t\tb\r",
            "1\ta\n2\t\tb\r",
            "header\n1|a\n2|\tb\r",
            "h\n     1\ta\n     2\t\tb\r\n     3\t",
        ] {
            assert_eq!(
                judge("/memories/x", &want, &ok(view)),
                Seen::Holds,
                "{view:?}"
            );
        }
        let missing_cr = ok("h\n     1\ta\n     2\t\tb");
        assert!(matches!(
            judge("/memories/x", &want, &missing_cr),
            Seen::Differs(_)
        ));
        let extra = ok("h\n     1\ta\n     2\t\tb\r\n     3\tc");
        assert!(matches!(
            judge("/memories/x", &want, &extra),
            Seen::Differs(_)
        ));
    }

    #[test]
    fn a_phantom_line_is_allowed_only_after_a_final_newline() {
        let noeol = EffectKind::FileText("a".to_string());
        assert!(matches!(
            judge("/memories/x", &noeol, &ok("h\n     1\ta\n     2\t")),
            Seen::Differs(_)
        ));
        let empty = EffectKind::FileText(String::new());
        assert_eq!(judge("/memories/x", &empty, &ok("h")), Seen::Holds);
        assert_eq!(
            judge("/memories/x", &empty, &ok("h\n     1\t")),
            Seen::Holds
        );
    }

    #[test]
    fn folders_and_absence() {
        let dir = EffectKind::Dir(true);
        let listing = "Here're the files …:\n4.0K\t/memories/d\n7\t/memories/d/a.txt";
        assert_eq!(judge("/memories/d", &dir, &ok(listing)), Seen::Holds);
        assert_eq!(
            judge("/memories/d/", &dir, &ok("h\n4K\t/memories/d/")),
            Seen::Holds
        );
        let file = ok("Here's the content of /memories/e with line numbers:\n     1\tx");
        assert!(matches!(
            judge("/memories/e", &dir, &file),
            Seen::Differs(_)
        ));
        let gone = EffectKind::Absent(true);
        let error = ToolResult {
            text: "no".to_string(),
            is_error: true,
        };
        assert_eq!(judge("/memories/d", &gone, &error), Seen::Holds);
        assert!(matches!(
            judge("/memories/d", &gone, &ok(listing)),
            Seen::Differs(_)
        ));
    }
}
