//! Judging one answer against an effect: a file's lines whatever their numbering, a folder by
//! the path it lists, a missing path by the flag or the words, a ranged view by the lines asked.

use super::Seen;
use super::answer::{
    announces_cut, body_start, excerpt, lists_itself, numbered_lines, numbered_run, only_header,
    says_absent, split_numbered,
};
use crate::protocol::ToolResult;
use crate::suite::case::EffectKind;

/// Judges the answer to [`view_of`]'s call.
pub fn judge(path: &str, expect: &EffectKind, answer: &ToolResult) -> Seen {
    match expect {
        EffectKind::Absent(_) => {
            // The flag says it; a backend that does not set it still says so in words (a
            // success that says "not found" is a flag fault, judged at its step, not presence).
            if answer.is_error || says_absent(&answer.text, path) {
                Seen::Holds
            } else if crate::judge::answers::reads_as_refusal(&answer.text, path) {
                // Refused in words, unflagged, without saying the path is absent (a store that
                // cannot serve at all): it tells neither way, and never grounds a loss or an
                // escape; the missing flag is the step's to grade.
                Seen::Unverified(format!(
                    "view of it was refused in words, without saying whether it exists: {}",
                    excerpt(&answer.text)
                ))
            } else {
                Seen::Differs(format!("view of it succeeded: {}", excerpt(&answer.text)))
            }
        }
        EffectKind::Dir(_) => {
            // The listing's format is the spec's (SHOULD); the fact here is only that the
            // path views as a folder: it lists itself, or at least shows no file's lines.
            let no_lines = numbered_lines(&answer.text).is_none_or(|lines| lines.is_empty());
            if let Some(missing) = missing(path, answer) {
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
            path,
            &lines_of(text),
            text.ends_with('\n') || text.is_empty(),
            answer,
        ),
        EffectKind::Lines(lines) => compare_lines(path, lines, true, answer),
        _ => Seen::Holds,
    }
}

/// A text's lines as the spec counts them: split at `\n`, a final `\n` ending the last line.
pub(super) fn lines_of(text: &str) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    let body = text.strip_suffix('\n').unwrap_or(text);
    body.split('\n').map(str::to_string).collect()
}

/// Compares a file view's numbered lines with `want`; `phantom_allowed` accepts one empty
/// numbered line after them (what numbering after a final `\n` shows, a decision). `path`:
/// the file viewed.
pub(super) fn compare_lines(
    path: &str,
    want: &[String],
    phantom_allowed: bool,
    answer: &ToolResult,
) -> Seen {
    if let Some(missing) = missing(path, answer) {
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
    // Nothing numbered, but more than a header (told by its shape, not by being first): a
    // numbering the witness does not know, as a view of the bare text is.
    if got.is_empty() && !want.is_empty() && !only_header(&answer.text, Some(path)) {
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
    // No numbered line but more than a header: a format the witness does not read.
    if got.is_empty() && !only_header(actual, None) {
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

/// [`Seen::Missing`] when a view of `path`, which should be there, failed or said it does not
/// exist.
fn missing(path: &str, answer: &ToolResult) -> Option<Seen> {
    if answer.is_error {
        Some(Seen::Missing(format!(
            "view of it failed: {}",
            excerpt(&answer.text)
        )))
    } else if says_absent(&answer.text, path) {
        Some(Seen::Missing(format!(
            "view of it says it does not exist: {}",
            excerpt(&answer.text)
        )))
    } else {
        None
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
        // A header alone (told by its shape: it ends with `:` or names the path) is a view of
        // no lines, which is a fact; one line of bare text is a format not read.
        for header in [
            "Here's the content of /memories/x with line numbers:",
            "Contents of /memories/x",
        ] {
            assert!(
                matches!(judge("/memories/x", &want, &ok(header)), Seen::Differs(_)),
                "{header}"
            );
        }
        assert!(matches!(
            judge("/memories/x", &want, &ok("a\n")),
            Seen::Unverified(_)
        ));
    }

    #[test]
    fn an_unflagged_refusal_tells_no_absence_and_no_presence() {
        let absent = EffectKind::Absent(true);
        let refused = ok("Error: MCP call failed: connection refused");
        assert!(matches!(
            judge("/memories/x.md", &absent, &refused),
            Seen::Unverified(_)
        ));
        let said = ok("Error: The path /memories/x.md does not exist");
        assert_eq!(judge("/memories/x.md", &absent, &said), Seen::Holds);
        let shown = ok("Here's the content of /memories/x.md with line numbers:\n     1\ta");
        assert!(matches!(
            judge("/memories/x.md", &absent, &shown),
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
        let none = ranged_view_differs(
            want,
            "Here's the content of /memories/n.txt with line numbers:",
            Some(3),
        );
        assert_eq!(
            none.as_deref(),
            Some("the view shows no line, not lines 2-3")
        );
        // One line of bare text is no header: a format not read, nothing said.
        assert_eq!(ranged_view_differs(want, "two\n", Some(3)), None);
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
}
