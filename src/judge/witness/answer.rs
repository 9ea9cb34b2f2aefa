//! What an answer's words say, read without assuming a format the spec leaves open: that a path
//! is absent, that a view was cut, which numbered lines it shows, a size.

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
pub(super) fn body_start(text: &str) -> &str {
    text.split_once('\n').map_or("", |(_, rest)| rest)
}

/// The first line of an answer, lowercased, at most 400 characters: the start of a line that may
/// be as long as a reply, where a refusal or an absence is said.
pub fn opening(text: &str) -> String {
    text.split('\n')
        .next()
        .unwrap_or("")
        .chars()
        .take(400)
        .collect::<String>()
        .to_lowercase()
}

/// `text` without the words of `path`, the memory path the answer is about (a trailing slash
/// aside; `""` when none is known): a file named `not found.md` says nothing of its own
/// absence, nor `invalid path.md` of a refusal.
pub fn without_path<'t>(text: &'t str, path: &str) -> std::borrow::Cow<'t, str> {
    let path = path.trim_end_matches('/');
    if path.is_empty() || !text.contains(path) {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(text.replace(path, ""))
    }
}

/// The [`opening`] of an answer, without the words of `path` ([`without_path`]).
pub fn opening_without(text: &str, path: &str) -> String {
    opening(&without_path(text.split('\n').next().unwrap_or(""), path))
}

/// Whether an answer says its path does not exist, in any of the known phrasings: the page's
/// "does not exist", the "not found" of LangChain and key-value stores, `ENOENT`'s "no such
/// file". Only a first line that is no file's numbered line is read, so a file or listing that
/// merely mentions the words is not taken for absence; and without `path`, the memory path the
/// answer is about (`""` when none is known), so that a header naming `/memories/not found.md`
/// is not taken for absence either.
pub fn says_absent(text: &str, path: &str) -> bool {
    let first = text.split('\n').next().unwrap_or("");
    if split_numbered(first).is_some() {
        return false;
    }
    let first = opening_without(first, path);
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

/// A view's numbered lines as the file's lines: a phantom empty last line (a view that numbers
/// the empty string after a final newline) is a decision (decide.final-newline), not content.
pub fn file_lines(text: &str) -> Option<Vec<String>> {
    numbered_lines(text).map(|mut lines| {
        if lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        lines
    })
}

/// A file view's lines ([`file_lines`]) where the witness knows the view's format: `None`
/// also when it shows no numbered line while it holds more than a header ([`only_header`]), as
/// a view of the bare text does: a format the witness does not read, never a file with no lines.
pub fn known_file_lines(text: &str, path: &str) -> Option<Vec<String>> {
    let lines = file_lines(text)?;
    (!lines.is_empty() || only_header(text, Some(path))).then_some(lines)
}

/// Whether a view that numbers no line shows nothing but a header: it is blank, or its one
/// non-blank line looks like a header, by its shape, not by its place: it ends with `:` (the
/// spec's header and every known dialect's) or names the path viewed (`path`; any memory path
/// when it is not known). Any other text is content in a format the witness does not read.
pub(super) fn only_header(text: &str, path: Option<&str>) -> bool {
    let mut shown = text.split('\n').filter(|line| !line.trim().is_empty());
    let header = |line: &str| {
        let names = path.map_or("/memories", |path| path.trim_end_matches('/'));
        line.trim_end().ends_with(':') || line.contains(names)
    };
    match (shown.next(), shown.next()) {
        (None, _) => true,
        (Some(first), None) => header(first),
        _ => false,
    }
}

/// `"     3\tcontent"` (or `3|content`, LangChain's form, or `   3: content`, the Sept-2025
/// example's) as (3, "content").
pub(super) fn split_numbered(line: &str) -> Option<(usize, &str)> {
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
pub(super) fn lists_itself(path: &str, text: &str) -> bool {
    let bare = path.trim_end_matches('/');
    text.split('\n').skip(1).any(|line| {
        let listed = line.rsplit('\t').next().unwrap_or(line).trim();
        listed.trim_end_matches('/') == bare
    })
}

/// A backend's text as a finding quotes it: escaped, at most 200 characters.
pub fn excerpt(text: &str) -> String {
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

/// The contents of the numbered lines of a ranged view that run `first`, `first + 1`, … in
/// order; lines before the one numbered `first` are skipped (the header), and the run ends at
/// the first line that is not the next number (a notice after a cut view, or the end).
pub(super) fn numbered_run(text: &str, first: usize) -> Vec<String> {
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

#[cfg(test)]
mod known_format_tests {
    use super::known_file_lines;

    #[test]
    fn a_bare_text_view_is_no_empty_file() {
        let path = "/memories/a.txt";
        assert_eq!(known_file_lines("client 0\n", path), None);
        assert_eq!(known_file_lines("line 000\nline 001\n", path), None);
        let header = "Here's the content of /memories/a.txt with line numbers:";
        assert_eq!(known_file_lines(header, path), Some(Vec::new()));
        assert_eq!(known_file_lines("", path), Some(Vec::new()));
        assert_eq!(
            known_file_lines(&format!("{header}\n     1\tx"), path),
            Some(vec!["x".to_string()])
        );
    }
}
