//! Effects observed through the tool: what a case checks on disk, read back with the backend's
//! own `view`, so that a backend that is not a folder (a database, a key-value store) has its
//! effects checked too, and a folder backend has a second witness.
//!
//! Only facts are compared, never a format the spec leaves open: a file's lines whatever the
//! width of their numbers, a folder by the path it lists, a missing path by the error flag or
//! by an answer that says so. What the witness cannot read (a numbering it does not know, `\r`
//! hidden at line ends) is said to be unverified, with why: never a failed effect.

use serde_json::{Value, json};

use crate::protocol::ToolResult;
use crate::suite::case::{EffectKind, SetupCall};

/// What the tool can tell about an effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// The answer agrees with the effect.
    Holds,
    /// It does not: what the answer shows instead.
    Differs(String),
    /// A file or folder that should be there is not (the view failed or said so): what the
    /// answer says.
    Missing(String),
    /// The answer cannot tell (a view in a numbering the witness does not read, line ends the
    /// view hides): why, with the answer's first line. Never a failed effect.
    Unverified(String),
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

/// Files of this many lines or more are not read back: a view of them may be refused by the
/// 999,999-line limit, depending on how a final newline counts (`decide.line-limit-count`).
pub const READ_BACK_MAX_LINES: usize = 999_999;

/// A file text longer than this (in bytes, so never fewer than its characters) may be cut by a
/// plain `view` under the GA page (Claude is told views of files over 16,000 characters are
/// truncated): when its plain view does not show it whole, it is read in parts with
/// `view_range`.
pub const PLAIN_VIEW_LIMIT: usize = 16_000;

/// The most ranged views one read-back makes before it gives up (each must show at least one
/// more line, so this bounds the calls a backend that shows one line at a time can cost).
pub const MAX_PAGES: usize = 1_000;

/// Reads an effect back through the tool, `ask` making each call: [`Seen::Holds`] when the tool
/// shows the effect holds, or cannot show it (exact bytes, a link, "any file", a file of
/// [`READ_BACK_MAX_LINES`] lines or more); else what the views showed instead, or why they
/// could not be read.
///
/// A folder or a missing path is one plain `view`. A file is one plain `view`; when that does
/// not show the expected lines and the text is longer than [`PLAIN_VIEW_LIMIT`], the file is
/// read again in parts, as Claude pages through a long file: `view_range` `[1, -1]`, and from
/// the line after the last one shown while an answer stops before the end (a backend may cut
/// long views, even inside a line: a last line shown that is the start of the file's line is
/// read again with the next part). Every other numbered line shown must be the file's line of
/// that number.
pub fn read_back<E>(
    path: &str,
    expect: &EffectKind,
    mut ask: impl FnMut(&Value) -> Result<ToolResult, E>,
) -> Result<Seen, E> {
    let (want, phantom_allowed, size) = match expect {
        EffectKind::FileText(text) => (
            lines_of(text),
            text.ends_with('\n') || text.is_empty(),
            text.len(),
        ),
        EffectKind::Lines(lines) => (
            lines.clone(),
            true,
            lines.iter().map(|line| line.len() + 1).sum(),
        ),
        EffectKind::Dir(_) | EffectKind::Absent(_) => {
            let answer = ask(&json!({"command": "view", "path": path}))?;
            return Ok(judge(path, expect, &answer));
        }
        EffectKind::File(_)
        | EffectKind::FileBytesHex(_)
        | EffectKind::FileBytesHexOneOf(_)
        | EffectKind::Symlink(_) => return Ok(Seen::Holds),
    };
    if want.len() >= READ_BACK_MAX_LINES {
        return Ok(Seen::Holds);
    }
    // A view that says it was cut (a runner that keeps the head and tail of a long output)
    // may splice lines: a difference found in such a view (the last one asked) cannot be read
    // as the file's lines. One found in a whole view stands.
    let mut cut: Option<String> = None;
    let mut ask = |input: &Value| {
        let answer = ask(input)?;
        cut = announces_cut(&answer.text)
            .then(|| excerpt(answer.text.trim_start().lines().next().unwrap_or("")));
        Ok(answer)
    };
    let seen = read_file_back(path, &want, phantom_allowed, size, &mut ask)?;
    Ok(match (seen, cut) {
        (Seen::Differs(_), Some(notice)) => Seen::Unverified(format!(
            "its view says it was cut ({notice}), so the file could not be read whole"
        )),
        (seen, _) => seen,
    })
}

/// Reads a file of the lines `want` back: one plain view, then in parts when it is long.
fn read_file_back<E>(
    path: &str,
    want: &[String],
    phantom_allowed: bool,
    size: usize,
    mut ask: impl FnMut(&Value) -> Result<ToolResult, E>,
) -> Result<Seen, E> {
    let answer = ask(&json!({"command": "view", "path": path}))?;
    let plain = compare_lines(want, phantom_allowed, &answer);
    if plain == Seen::Holds || size <= PLAIN_VIEW_LIMIT {
        return Ok(plain);
    }
    // A cut view (a notice after its lines, or fewer lines) is read on in parts; a view the
    // witness could not read stays unverified when the parts cannot be read either.
    let Some(what) = page_through(path, want, phantom_allowed, &mut ask)? else {
        return Ok(Seen::Holds);
    };
    Ok(match plain {
        Seen::Differs(plain) => {
            Seen::Differs(format!("{plain}; read in parts with view_range, {what}"))
        }
        unverified => unverified,
    })
}

/// Reads a file in parts with `view_range` `[start, -1]`, each part starting after the last line
/// the previous one showed: `None` when the parts show exactly `want` (one empty line after it
/// allowed when `phantom_allowed`), else what they showed instead.
fn page_through<E>(
    path: &str,
    want: &[String],
    phantom_allowed: bool,
    ask: &mut impl FnMut(&Value) -> Result<ToolResult, E>,
) -> Result<Option<String>, E> {
    let mut start = 1;
    for _ in 0..MAX_PAGES {
        let range = json!([start, -1]);
        let input = json!({"command": "view", "path": path, "view_range": range});
        let answer = ask(&input)?;
        if answer.is_error {
            return Ok(Some(format!(
                "the view of [{start}, -1] failed: {}",
                excerpt(&answer.text)
            )));
        }
        let mut got = numbered_run(&answer.text, start);
        // A view cut inside a line (a backend that caps the characters a view returns) ends
        // with the start of that line: it is read again, whole, at the start of the next part.
        // A part of that one line only is compared as it is, so a line the file really holds
        // cut short still differs.
        let last = start + got.len().saturating_sub(1);
        if got.len() > 1
            && let (Some(shown), Some(expected)) = (got.last(), want.get(last - 1))
            && shown != expected
            && expected.starts_with(shown.as_str())
        {
            got.pop();
        }
        if got.is_empty() {
            return Ok(Some(format!(
                "the view of [{start}, -1] shows no line {start}: {}",
                excerpt(&answer.text)
            )));
        }
        for (offset, line) in got.iter().enumerate() {
            let number = start + offset;
            match want.get(number - 1) {
                Some(expected) if expected == line => {}
                Some(expected) => {
                    return Ok(Some(format!(
                        "line {number} is {}, not {}",
                        excerpt(line),
                        excerpt(expected)
                    )));
                }
                // The empty line some backends number after a final newline
                // (`decide.final-newline`), as the last line shown.
                None if phantom_allowed
                    && number == want.len() + 1
                    && line.is_empty()
                    && offset + 1 == got.len() => {}
                None => {
                    return Ok(Some(format!(
                        "the view of [{start}, -1] shows line {number} ({}), but the file should have {} line(s)",
                        excerpt(line),
                        want.len()
                    )));
                }
            }
        }
        let last = start + got.len() - 1;
        if last >= want.len() {
            return Ok(None);
        }
        start = last + 1;
    }
    Ok(Some(format!(
        "{MAX_PAGES} ranged views did not show it whole (the last began at line {start})"
    )))
}

/// The contents of the numbered lines of a ranged view that run `first`, `first + 1`, … in
/// order; lines before the one numbered `first` are skipped (the header), and the run ends at
/// the first line that is not the next number (a notice after a cut view, or the end).
fn numbered_run(text: &str, first: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.split('\n') {
        match split_numbered(line) {
            Some((number, content)) if number == first + out.len() => {
                out.push(content.to_string());
            }
            _ if out.is_empty() => {}
            _ => break,
        }
    }
    out
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
            // The flag says it; a backend that does not set it still says so in words (a
            // success that says "not found" is a flag fault, judged at its step, not presence).
            if answer.is_error || says_absent(&answer.text) {
                Seen::Holds
            } else {
                Seen::Differs(format!("view of it succeeded: {}", excerpt(&answer.text)))
            }
        }
        EffectKind::Dir(_) => {
            // The listing's format is the spec's (SHOULD); the fact here is only that the
            // path views as a folder: it lists itself, or at least shows no file's lines.
            let no_lines = numbered_lines(&answer.text).is_none_or(|lines| lines.is_empty());
            if let Some(missing) = missing(answer) {
                missing
            } else if lists_itself(path, &answer.text) || no_lines {
                Seen::Holds
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
    if let Some(missing) = missing(answer) {
        return missing;
    }
    let unreadable = || {
        Seen::Unverified(format!(
            "its view is not in a line numbering the witness reads; its first line after the header: {}",
            excerpt(body_start(&answer.text).split('\n').next().unwrap_or(""))
        ))
    };
    let Some(got) = numbered_lines(&answer.text) else {
        // Numbered lines and then something else (a notice after a cut view) are readable
        // lines; no numbered line at all is a numbering the witness does not know.
        if numbered_run(&answer.text, 1).is_empty() {
            return unreadable();
        }
        return Seen::Differs(format!(
            "view of it shows more than numbered lines: {}",
            excerpt(&answer.text)
        ));
    };
    // Nothing numbered, but more than a header: a numbering the witness does not know.
    if got.is_empty() && !want.is_empty() && !body_start(&answer.text).is_empty() {
        return unreadable();
    }
    // The view may show a CRLF line without its `\r` (how line ends are displayed is open):
    // the content is then unverified through the tool, not wrong.
    let without_cr = |shown: &str, line: &str| line.strip_suffix('\r') == Some(shown);
    if lines_match(&got, want, phantom_allowed, |a, b| a == b) {
        return Seen::Holds;
    }
    // Or show a lone `\r` as a line break (Python's `splitlines`).
    let split_at_cr = || {
        let joined = want.join("\n").replace("\r\n", "\n").replace('\r', "\n");
        lines_of(&joined)
    };
    if lines_match(&got, want, phantom_allowed, |a, b| {
        a == b || without_cr(a, b)
    }) || (want.iter().any(|line| line.contains('\r'))
        && lines_match(&got, &split_at_cr(), phantom_allowed, |a, b| a == b))
    {
        return Seen::Unverified(
            "its view shows the file's `\\r` as a line end or not at all, so line ends cannot be verified through the tool".to_string(),
        );
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
    let count = if got.len() == want.len() {
        String::new()
    } else {
        format!("shows {} line(s), not {}; ", got.len(), want.len())
    };
    Seen::Differs(format!(
        "view of it {count}line {} is {}, not {}",
        first + 1,
        line(&got),
        line(want)
    ))
}

/// Compares the numbered lines a ranged view shows with those of `expected` (the spec's view
/// of that range): their numbers and contents, whatever the format of the numbering. `None`
/// when they agree, or when the answer cannot tell: a numbering the witness does not read, `\r`
/// hidden at line ends, a view cut short before a notice (the text check reports each of
/// those as what it is). `end` is the range's end: where it is `-1` or past the last line
/// expected, one empty line after them is the numbered empty line some backends count after a
/// final newline (`decide.final-newline`).
pub fn ranged_view_differs(expected: &str, actual: &str, end: Option<i64>) -> Option<String> {
    let (want, _) = numbered_pairs(expected);
    let (mut got, more) = numbered_pairs(actual);
    if got.is_empty() && !body_start(actual).trim().is_empty() {
        return None;
    }
    let next = want.last().map_or(1, |(n, _)| n + 1);
    let open = end.is_some_and(|end| end == -1 || usize::try_from(end).is_ok_and(|e| e >= next));
    if open && got.len() == want.len() + 1 && got.last() == Some(&(next, String::new())) {
        got.pop();
    }
    let same = |(gn, g): &(usize, String), (wn, w): &(usize, String)| {
        gn == wn && (g == w || w.strip_suffix('\r') == Some(g.as_str()))
    };
    let agree = |n: usize| got.iter().zip(&want).take(n).all(|(g, w)| same(g, w));
    if got.len() == want.len() && agree(want.len()) {
        return None;
    }
    // Cut short, with a notice after the lines shown (`decide.long-views`).
    if more && !got.is_empty() && got.len() < want.len() && agree(got.len()) {
        return None;
    }
    let span = |lines: &[(usize, String)]| match (lines.first(), lines.last()) {
        (Some((first, _)), Some((last, _))) if first == last => format!("line {first}"),
        (Some((first, _)), Some((last, _))) => format!("lines {first}-{last}"),
        _ => "no line".to_string(),
    };
    // A view that says it was cut may splice lines together: it cannot tell.
    if announces_cut(actual) {
        return None;
    }
    let numbers = |lines: &[(usize, String)]| lines.iter().map(|(n, _)| *n).collect::<Vec<_>>();
    if numbers(&got) != numbers(&want) {
        return Some(format!(
            "the view shows {}, not {}",
            span(&got),
            span(&want)
        ));
    }
    let (number, shown, line) = got
        .iter()
        .zip(&want)
        .find(|(g, w)| !same(g, w))
        .map(|((n, g), (_, w))| (*n, g, w))?;
    Some(format!(
        "line {number} shows {}, not {}",
        excerpt(shown),
        excerpt(line)
    ))
}

/// The numbered lines of a view, with their numbers, from the first numbered line to the last
/// one before something else; and whether something other than one final line break follows.
fn numbered_pairs(text: &str) -> (Vec<(usize, String)>, bool) {
    let mut out = Vec::new();
    let text = text.strip_suffix('\n').unwrap_or(text);
    let mut lines = text.split('\n');
    for line in lines.by_ref() {
        match split_numbered(line) {
            Some((number, content)) => out.push((number, content.to_string())),
            None if out.is_empty() => {}
            None => return (out, true),
        }
    }
    (out, lines.next().is_some())
}

/// Whether `got` (a view's lines) are `want`, line by line as `same` says, with one empty line
/// after them when `phantom_allowed`.
fn lines_match(
    got: &[String],
    want: &[String],
    phantom_allowed: bool,
    same: impl Fn(&str, &str) -> bool,
) -> bool {
    let each = |n: usize| got[..n].iter().zip(want).all(|(g, w)| same(g, w));
    (got.len() == want.len() && each(want.len()))
        || (phantom_allowed
            && got.len() == want.len() + 1
            && got.last().is_some_and(String::is_empty)
            && each(want.len()))
}

/// [`Seen::Missing`] when a view of something that should be there failed or said it does not
/// exist.
fn missing(answer: &ToolResult) -> Option<Seen> {
    if answer.is_error {
        Some(Seen::Missing(format!(
            "view of it failed: {}",
            excerpt(&answer.text)
        )))
    } else if says_absent(&answer.text) {
        Some(Seen::Missing(format!(
            "view of it says it does not exist: {}",
            excerpt(&answer.text)
        )))
    } else {
        None
    }
}

/// Whether an answer says, before its first numbered line, that it was cut short: the notice
/// a runner puts above a long output it shortened to its head and tail ("truncated", "too long
/// to be displayed"), which may splice two lines into one. A notice after the lines (a view
/// that stops and says where to read on) cuts between lines, and is read on in parts instead.
pub fn announces_cut(text: &str) -> bool {
    const NEAR: usize = 2_000;
    let mut before = String::new();
    for line in text.split('\n') {
        if split_numbered(line).is_some() || before.len() > NEAR {
            break;
        }
        before.push_str(&line.to_lowercase());
        before.push('\n');
    }
    before.contains("truncated") || before.contains("too long to be displayed")
}

/// What follows a view's first line (its header); nothing when it has one line.
fn body_start(text: &str) -> &str {
    text.split_once('\n').map_or("", |(_, rest)| rest)
}

/// Whether an answer says its path does not exist, in any of the known phrasings: the page's
/// "does not exist", the "not found" of LangChain and key-value stores, `ENOENT`'s "no such
/// file". Only a first line that is no file's numbered line is read, so a file or listing that
/// merely mentions the words is not taken for absence.
pub fn says_absent(text: &str) -> bool {
    let first = text.split('\n').next().unwrap_or("");
    if split_numbered(first).is_some() {
        return false;
    }
    // Only the start of a line that may be as long as a reply.
    let first: String = first.chars().take(400).collect::<String>().to_lowercase();
    [
        "does not exist",
        "doesn't exist",
        "not found",
        "no such file",
        "no such path",
    ]
    .iter()
    .any(|phrase| first.contains(phrase))
}

/// The contents of a file view's numbered lines, numbered 1, 2, … in order whatever the width
/// and padding of the numbers; lines before the first numbered one (headers) are skipped.
/// `None` if something after the first numbered line is not one.
/// One `\n` after the last numbered line (a view printed with a line break after every line, as
/// `cat -n` does) is the format's business (SHOULD), not the content's: it is not read as
/// something other than numbered lines.
pub fn numbered_lines(text: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let text = text.strip_suffix('\n').unwrap_or(text);
    for line in text.split('\n') {
        match split_numbered(line) {
            Some((number, content)) if number == out.len() + 1 => out.push(content.to_string()),
            _ if out.is_empty() => {}
            _ => return None,
        }
    }
    Some(out)
}

/// `"     3\tcontent"` (or `3|content`, LangChain's form, or `   3: content`, the Sept-2025
/// example's) as (3, "content").
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
    let content = rest
        .strip_prefix('\t')
        .or_else(|| rest.strip_prefix('|'))
        .or_else(|| rest.strip_prefix(": "))?;
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

/// Whether a human-readable size can stand for `bytes`: a plain number (or `B`) exactly; with a
/// unit, within one step of its last digit, in base 1024 or 1000 (rounding up, down or to the
/// nearest are all human-readable).
pub fn size_holds(size: &str, bytes: usize) -> bool {
    let size = size.trim();
    let digits = size
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(size.len());
    let (number, unit) = size.split_at(digits);
    let Ok(value) = number.parse::<f64>() else {
        // Not a number at all: the format is the spec's (SHOULD), not a fact to compare.
        return true;
    };
    let unit = unit
        .trim()
        .trim_end_matches(['B', 'b'])
        .trim_end_matches('i');
    let power = match unit.to_ascii_uppercase().as_str() {
        "" => 0,
        "K" => 1,
        "M" => 2,
        "G" => 3,
        "T" => 4,
        _ => return true,
    };
    if power == 0 {
        return value == bytes as f64;
    }
    let step = match number.split_once('.') {
        Some((_, decimals)) => 10f64.powi(-(decimals.len() as i32)),
        None => 1.0,
    };
    [1024f64, 1000f64].iter().any(|base| {
        let shown = bytes as f64 / base.powi(power);
        (shown - value).abs() <= step + 1e-9
    })
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
        // A view that hides the `\r` ending a line cannot show the line ends: unverified.
        let missing_cr = ok("h\n     1\ta\n     2\t\tb");
        assert!(matches!(
            judge("/memories/x", &want, &missing_cr),
            Seen::Unverified(_)
        ));
        // A lone `\r` shown as a line break is display too.
        let lone = EffectKind::FileText("a\rb\nc".to_string());
        assert!(matches!(
            judge(
                "/memories/x",
                &lone,
                &ok("h\n     1\ta\n     2\tb\n     3\tc")
            ),
            Seen::Unverified(_)
        ));
        // One that hides it and shows another line wrong still differs.
        let wrong = ok("h\n     1\tA\n     2\t\tb");
        assert!(matches!(
            judge("/memories/x", &want, &wrong),
            Seen::Differs(_)
        ));
        let extra = ok("h\n     1\ta\n     2\t\tb\r\n     3\tc");
        assert!(matches!(
            judge("/memories/x", &want, &extra),
            Seen::Differs(_)
        ));
    }

    #[test]
    fn one_newline_after_the_last_numbered_line_is_format_not_content() {
        // `cat -n` style: a line break after every line, the last included.
        let want = EffectKind::FileText("a\nb\n".to_string());
        let view = "Here's the result of running `cat -n` on /memories/x:\n     1\ta\n     2\tb\n";
        assert_eq!(judge("/memories/x", &want, &ok(view)), Seen::Holds);
        assert_eq!(
            numbered_lines(view),
            Some(vec!["a".to_string(), "b".to_string()])
        );
        // Anything more after the last numbered line is still not a file's lines.
        assert_eq!(numbered_lines("h\n     1\ta\n\n"), None);
        assert_eq!(numbered_lines("h\n     1\ta\nmore"), None);
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
        let refused = ToolResult {
            text: "Error: gone".to_string(),
            is_error: true,
        };
        assert!(matches!(
            judge("/memories/d", &dir, &refused),
            Seen::Missing(_)
        ));
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
    #[test]
    fn a_view_cut_to_its_head_and_tail_is_unverified() {
        let want = EffectKind::FileText(format!("{}\n", "0123456789abcdef".repeat(2_000)));
        let spliced = format!(
            "\nThe output of your call to memory was too long to be displayed.\nHere is a truncated version:\n<START_TOOL_OUTPUT>\nh\n     1\t{}{}\n<END_TOOL_OUTPUT>\n",
            "0123456789abcdef".repeat(500),
            "89abcdef".repeat(500)
        );
        let seen = read_back("/memories/x", &want, |_| Ok::<_, ()>(ok(&spliced)));
        assert!(
            matches!(&seen, Ok(Seen::Unverified(why)) if why.contains("too long")),
            "{seen:?}"
        );
        assert!(!announces_cut(
            "h\n     1\ta\n[Truncated: read on with view_range.]"
        ));
    }

    #[test]
    fn absence_is_read_from_the_flag_or_the_words() {
        let gone = EffectKind::Absent(true);
        for text in [
            "File not found: /memories/stolen.txt",
            "Error: path not found: /memories/a",
            "The path /memories/a does not exist. Please provide a valid path.",
            "ENOENT: no such file or directory",
        ] {
            assert_eq!(
                judge("/memories/a", &gone, &ok(text)),
                Seen::Holds,
                "{text}"
            );
        }
        // A file or a listing that only mentions the words is presence.
        let file = ok("Here's the content of /memories/a with line numbers:\n     1\tnot found");
        assert!(matches!(
            judge("/memories/a", &gone, &file),
            Seen::Differs(_)
        ));
        let listing = ok("Here're the files:\n4.0K\t/memories\n9\t/memories/not found.txt");
        assert!(matches!(
            judge("/memories", &gone, &listing),
            Seen::Differs(_)
        ));
        // A file the view says is not there is missing, not unreadable.
        let want = EffectKind::FileText("a\n".to_string());
        let gone = ok("File not found: /memories/a");
        assert!(matches!(
            judge("/memories/a", &want, &gone),
            Seen::Missing(_)
        ));
    }

    #[test]
    fn other_numberings_are_read_and_unknown_ones_are_unverified() {
        let want = EffectKind::FileText("a\n b\n".to_string());
        // The Sept-2025 example's `{n:>4}: {line}`.
        let colon = ok("Contents of /memories/x:\n   1: a\n   2:  b");
        assert_eq!(judge("/memories/x", &want, &colon), Seen::Holds);
        let wrong = ok("Contents of /memories/x:\n   1: a\n   2: c");
        assert!(matches!(
            judge("/memories/x", &want, &wrong),
            Seen::Differs(_)
        ));
        for unknown in ["h\n[1] a\n[2]  b", "h\na\n b"] {
            let seen = judge("/memories/x", &want, &ok(unknown));
            assert!(
                matches!(&seen, Seen::Unverified(why) if why.contains("numbering")),
                "{seen:?}"
            );
        }
        // A header alone is a view of no lines, which is a fact.
        assert!(matches!(
            judge("/memories/x", &want, &ok("h")),
            Seen::Differs(_)
        ));
    }

    #[test]
    fn a_ranged_view_shows_the_lines_asked_for_whatever_their_format() {
        let want =
            "Here's the content of /memories/n.txt with line numbers:\n     2\ttwo\n     3\tthree";
        for same in [
            want,
            "h\n2\ttwo\n3\tthree\n",
            "h\n   2: two\n   3: three",
            "h\n2|two\n3|three",
            "not numbered at all\ntwo\nthree",
        ] {
            assert_eq!(ranged_view_differs(want, same, Some(3)), None, "{same:?}");
        }
        let more =
            ranged_view_differs(want, "h\n     2\ttwo\n     3\tthree\n     4\tfour", Some(3));
        assert_eq!(
            more.as_deref(),
            Some("the view shows lines 2-4, not lines 2-3")
        );
        let shifted = ranged_view_differs(want, "h\n     1\tone\n     2\ttwo", Some(3));
        assert_eq!(
            shifted.as_deref(),
            Some("the view shows lines 1-2, not lines 2-3")
        );
        let none = ranged_view_differs(want, "h", Some(3));
        assert_eq!(
            none.as_deref(),
            Some("the view shows no line, not lines 2-3")
        );
        let wrong = ranged_view_differs(want, "h\n     2\ttwo\n     3\tTHREE", Some(3));
        assert_eq!(
            wrong.as_deref(),
            Some("line 3 shows \"THREE\", not \"three\"")
        );
        // A phantom empty line after a final newline only where the range runs to the end.
        let phantom = "h\n     2\ttwo\n     3\tthree\n     4\t";
        assert_eq!(ranged_view_differs(want, phantom, Some(-1)), None);
        assert_eq!(ranged_view_differs(want, phantom, Some(9)), None);
        assert!(ranged_view_differs(want, phantom, Some(3)).is_some());
        // `\r` hidden at a line end, and a view cut short before a notice, cannot tell.
        let crlf = "h\n     2\ttwo\r\n     3\tthree";
        assert_eq!(
            ranged_view_differs(crlf, "h\n     2\ttwo\n     3\tthree", Some(3)),
            None
        );
        assert_eq!(
            ranged_view_differs(want, "h\n     2\ttwo\n\n[cut]", Some(-1)),
            None
        );
    }

    /// Answers views of `content` (a file of these lines, no final newline) as a backend that
    /// cuts every view after `cut` lines, numbering as `view_range` asks.
    fn cutting_backend(content: &[&str], cut: usize, input: &Value) -> ToolResult {
        let start = input["view_range"][0].as_u64().map_or(1, |s| s as usize);
        let shown: Vec<String> = content
            .iter()
            .enumerate()
            .skip(start - 1)
            .take(cut)
            .map(|(i, line)| format!("{:>6}\t{line}", i + 1))
            .collect();
        let mut text = format!(
            "Here's the content of /memories/x with line numbers:\n{}",
            shown.join("\n")
        );
        if (start - 1).saturating_add(cut) < content.len() {
            text.push_str("\n\n[Truncated: read on with view_range.]");
        }
        ToolResult::ok(&text)
    }

    #[test]
    fn long_files_are_read_in_parts_when_a_view_is_cut() {
        let line = "x".repeat(99);
        let content: Vec<&str> = (0..400).map(|_| line.as_str()).collect();
        let text = content.join("\n") + "\n";
        let want = EffectKind::FileText(text.clone());
        let mut calls = Vec::new();
        let seen = read_back("/memories/x", &want, |input| {
            calls.push(input.clone());
            Ok::<_, ()>(cutting_backend(&content, 150, input))
        });
        assert_eq!(seen, Ok(Seen::Holds));
        let ranges: Vec<&Value> = calls.iter().map(|c| &c["view_range"]).collect();
        assert_eq!(
            ranges,
            [
                &Value::Null,
                &json!([1, -1]),
                &json!([151, -1]),
                &json!([301, -1])
            ]
        );
        // A file that lost its last lines, cut the same way, differs.
        let short = &content[..399];
        let seen = read_back("/memories/x", &want, |input| {
            Ok::<_, ()>(cutting_backend(short, 150, input))
        });
        assert!(matches!(seen, Ok(Seen::Differs(_))), "{seen:?}");
        // One that has a line too many, too.
        let mut long = content.clone();
        long.push("extra");
        let seen = read_back("/memories/x", &want, |input| {
            Ok::<_, ()>(cutting_backend(&long, 1000, input))
        });
        assert!(matches!(seen, Ok(Seen::Differs(_))), "{seen:?}");
        // A short text is never paged: one view, whatever it shows.
        let mut views = 0;
        let small = EffectKind::FileText("a\nb\n".to_string());
        let seen = read_back("/memories/x", &small, |input| {
            views += 1;
            Ok::<_, ()>(cutting_backend(&["a"], 1, input))
        });
        assert!(
            matches!(seen, Ok(Seen::Differs(_))) && views == 1,
            "{seen:?} {views}"
        );
    }

    #[test]
    fn a_view_cut_inside_a_line_is_read_on_from_that_line() {
        let line = "z".repeat(99);
        let content: Vec<&str> = (0..300).map(|_| line.as_str()).collect();
        let want = EffectKind::FileText(content.join("\n"));
        // Every view is cut after 10,050 characters of numbered lines, inside a line.
        let cut = |input: &Value, content: &[&str]| {
            let whole = cutting_backend(content, usize::MAX, input).text;
            let head = whole.find('\n').map_or(0, |i| i + 1);
            ToolResult::ok(&whole[..(head + 10_050).min(whole.len())])
        };
        let seen = read_back("/memories/x", &want, |input| {
            Ok::<_, ()>(cut(input, &content))
        });
        assert_eq!(seen, Ok(Seen::Holds));
        // A file whose last line really is cut short differs.
        let short = "z".repeat(50);
        let mut cut_short = content.clone();
        cut_short[299] = short.as_str();
        let seen = read_back("/memories/x", &want, |input| {
            Ok::<_, ()>(cut(input, &cut_short))
        });
        assert!(matches!(seen, Ok(Seen::Differs(_))), "{seen:?}");
    }

    #[test]
    fn a_phantom_line_may_end_the_last_part_and_huge_files_are_not_read() {
        let line = "y".repeat(99);
        let mut content: Vec<&str> = (0..300).map(|_| line.as_str()).collect();
        let want = EffectKind::Lines(content.iter().map(|l| (*l).to_string()).collect());
        content.push("");
        let seen = read_back("/memories/x", &want, |input| {
            Ok::<_, ()>(cutting_backend(&content, 110, input))
        });
        assert_eq!(seen, Ok(Seen::Holds));
        let huge = EffectKind::FileText("x\n".repeat(READ_BACK_MAX_LINES));
        let seen = read_back("/memories/x", &huge, |_| Err::<ToolResult, _>("asked"));
        assert_eq!(seen, Ok(Seen::Holds));
    }
}
