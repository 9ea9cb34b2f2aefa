//! Reading an effect back through the tool: a folder or a missing path in one view, a file in one
//! view or, when a backend cuts long views, in parts with `view_range`, as Claude pages.

use serde_json::{Value, json};

use super::Seen;
use super::answer::{announces_cut, excerpt, file_lines, numbered_run};
use super::compare::{compare_lines, judge, lines_of};
use crate::protocol::ToolResult;
use crate::suite::case::{EffectKind, SetupCall};

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
    probing: Probing,
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
    let mut viewing = |input: &Value| {
        let answer = ask(input)?;
        cut = announces_cut(&answer.text)
            .then(|| excerpt(answer.text.trim_start().lines().next().unwrap_or("")));
        Ok(answer)
    };
    let seen = read_file_back(path, &want, phantom_allowed, size, &mut viewing)?;
    let seen = match (seen, cut) {
        (Seen::Differs(_), Some(notice)) => Seen::Unverified(format!(
            "its view says it was cut ({notice}), so the file could not be read whole"
        )),
        (seen, _) => seen,
    };
    if probing == Probing::Never {
        return Ok(seen);
    }
    match expect {
        EffectKind::FileText(text) if wants_probe(text, &seen, probing) => {
            probe(path, text, true, seen, ask)
        }
        // Too long to probe whole, and not shown whole: its ends tell a copy cut when stored
        // from a view cut when shown.
        EffectKind::FileText(text)
            if text.len() > PROBE_MAX_BYTES
                && match &seen {
                    Seen::Differs(_) => true,
                    Seen::Unverified(_) => probing == Probing::Hidden,
                    _ => false,
                } =>
        {
            super::ends::probe_ends(path, text, seen, ask)
        }
        // A file of these lines, its final newline open: its bytes hold them joined by `\n`.
        EffectKind::Lines(lines) if matches!(seen, Seen::Differs(_)) => {
            let text = lines.join("\n");
            if text.is_empty() || text.len() > PROBE_MAX_BYTES {
                return Ok(seen);
            }
            probe(path, &text, false, seen, ask)
        }
        _ => Ok(seen),
    }
}

/// When a read-back probes a file's bytes through the tool (see [`probe`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probing {
    /// Never: the disk is a witness (a folder), or a probe would change what is judged.
    Never,
    /// Only when the view shows other lines than the file should hold, to tell the reader's
    /// fault from the writer's: where one more write would change what is judged (before a
    /// restart, a store that commits a write when the next one comes would keep it).
    WhenDiffers,
    /// Also when the view holds but cannot show the bytes.
    Hidden,
}

/// Texts up to this many bytes are probed (see [`probe`]); a longer one stays as its view
/// showed it.
pub const PROBE_MAX_BYTES: usize = PLAIN_VIEW_LIMIT;

/// Whether the bytes of a file that should hold `text` need a probe after its view showed
/// `seen`: the view differs (the reader or the writer may be wrong), or it holds but `text` has
/// bytes no view shows (a `\r`, or no final newline, which a view cannot tell from one).
fn wants_probe(text: &str, seen: &Seen, probing: Probing) -> bool {
    let hidden = probing == Probing::Hidden && (text.contains('\r') || !text.ends_with('\n'));
    !text.is_empty()
        && text.len() <= PROBE_MAX_BYTES
        && match seen {
            Seen::Differs(_) => true,
            // A view the witness cannot read: the probe decides whether the bytes are stored.
            Seen::Unverified(_) => probing == Probing::Hidden,
            Seen::Holds => hidden,
            Seen::Missing(_) | Seen::ViewWrong(_) | Seen::Cut(_) => false,
        }
}

/// A byte probe through the tool: `str_replace` of `text` onto itself succeeds only when the
/// file holds those bytes (once), and changes nothing; when `whole` (the file is exactly
/// `text`) and `text` has no final newline, the same with a newline added must find nothing
/// (the newline a view cannot show). When the view showed the lines of a text without `\r`
/// exactly, that newline is all it hid, and the one probe made.
/// What it tells replaces what the view showed: bytes the view hid that differ, bytes right
/// where the view showed other lines (the view is wrong), or, when the probe's own answer
/// cannot be read as found or not found, the view's reading unchanged.
fn probe<E>(
    path: &str,
    text: &str,
    whole: bool,
    seen: Seen,
    mut ask: impl FnMut(&Value) -> Result<ToolResult, E>,
) -> Result<Seen, E> {
    let mut replace = |old: &str| {
        ask(&json!({"command": "str_replace", "path": path, "old_str": old, "new_str": old}))
    };
    // A view that showed every line exactly, of a text with no `\r`, hid one thing only: a
    // final newline. One probe for it is enough (the suite's texts are mostly of this kind, so
    // this halves what probes cost a correct store).
    if whole && seen == Seen::Holds && !text.contains('\r') && !text.ends_with('\n') {
        return Ok(match probe_found(path, &replace(&format!("{text}\n"))?) {
            Some(true) => Seen::Differs(format!("it {NEWLINE_MORE}{FOUND_WITH_IT}")),
            Some(false) | None => seen,
        });
    }
    let answer = replace(text)?;
    match probe_found(path, &answer) {
        None => return Ok(seen),
        Some(false) => {
            return Ok(Seen::Differs(format!(
                "its bytes are not the text: a str_replace of the whole text onto itself found no such bytes ({}){}",
                excerpt(&answer.text),
                match &seen {
                    Seen::Differs(what) => format!("; its view: {what}"),
                    _ => String::new(),
                }
            )));
        }
        Some(true) => {}
    }
    // Found once shows the text is in the file; a newline more on either side is what a view
    // shows least (a final newline never, an empty line easily taken for the view's own).
    let differs = matches!(seen, Seen::Differs(_));
    if whole && (differs || !text.ends_with('\n')) {
        let mut around = vec![(format!("{text}\n"), NEWLINE_MORE)];
        if differs {
            around.push((
                format!("\n{text}"),
                "starts with a newline its text does not have",
            ));
        }
        for (more, what) in around {
            match probe_found(path, &replace(&more)?) {
                None => return Ok(seen),
                Some(true) => {
                    return Ok(Seen::Differs(format!("it {what}{FOUND_WITH_IT}")));
                }
                Some(false) => {}
            }
        }
    }
    let Seen::Differs(what) = seen else {
        return Ok(Seen::Holds);
    };
    // The probe shows the text is in the file, not that nothing else is: the view is the
    // wrong one only when it shows nothing but the text's own characters (split into other
    // lines, or some left out), so nothing it shows says the file holds more.
    let view = ask(&json!({"command": "view", "path": path}))?;
    let resplit = !view.is_error
        && file_lines(&view.text).is_some_and(|lines| {
            !lines.is_empty() && without_breaks(text).contains(&without_breaks(&lines.concat()))
        });
    Ok(if resplit {
        Seen::ViewWrong(format!(
            "its bytes are the text (a str_replace of the whole text onto itself succeeded), but its view shows them split into other lines or in part: {what}"
        ))
    } else {
        Seen::Differs(what)
    })
}

const NEWLINE_MORE: &str = "ends with a newline more than its text";
const FOUND_WITH_IT: &str = ": a str_replace of the text with that newline found those bytes";

/// `text` without the characters a reader may take for a line break (`\n`, `\r`, `\v`,
/// `\f`, `\x1c`-`\x1e`, U+0085, U+2028, U+2029, as Python's `str.splitlines` does).
fn without_breaks(text: &str) -> String {
    text.chars()
        .filter(|c| {
            !matches!(
                c,
                '\n' | '\r'
                    | '\x0b'
                    | '\x0c'
                    | '\x1c'
                    | '\x1d'
                    | '\x1e'
                    | '\u{85}'
                    | '\u{2028}'
                    | '\u{2029}'
            )
        })
        .collect()
}

/// What a probe's answer says: found (a success that does not say otherwise), not found (in
/// its words, whatever its flag: some backends answer a miss unflagged), or `None` when it
/// cannot be read as either (another refusal, several occurrences). The words of `path`, the
/// file probed, are not read as the answer's.
pub(super) fn probe_found(path: &str, answer: &ToolResult) -> Option<bool> {
    let text = super::without_path(&answer.text, path).to_lowercase();
    let not_found = !text.contains("multiple")
        && [
            "did not appear",
            "not found",
            "no replacement",
            "no match",
            "not present",
        ]
        .iter()
        .any(|words| text.contains(words));
    if not_found {
        return Some(false);
    }
    let refused = answer.is_error || crate::judge::answers::reads_as_refusal(&answer.text, path);
    (!refused).then_some(true)
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
    let plain = compare_lines(path, want, phantom_allowed, &answer);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> ToolResult {
        ToolResult::ok(text)
    }

    #[test]
    fn a_view_cut_to_its_head_and_tail_is_unverified() {
        let want = EffectKind::FileText(format!("{}\n", "0123456789abcdef".repeat(2_000)));
        let spliced = format!(
            "\nThe output of your call to memory was too long to be displayed.\nHere is a truncated version:\n<START_TOOL_OUTPUT>\nh\n     1\t{}{}\n<END_TOOL_OUTPUT>\n",
            "0123456789abcdef".repeat(500),
            "89abcdef".repeat(500)
        );
        let seen = read_back("/memories/x", &want, Probing::Never, |_| {
            Ok::<_, ()>(ok(&spliced))
        });
        assert!(
            matches!(&seen, Ok(Seen::Unverified(why)) if why.contains("too long")),
            "{seen:?}"
        );
        assert!(!announces_cut(
            "h\n     1\ta\n[Truncated: read on with view_range.]"
        ));
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
        let seen = read_back("/memories/x", &want, Probing::Never, |input| {
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
        let seen = read_back("/memories/x", &want, Probing::Never, |input| {
            Ok::<_, ()>(cutting_backend(short, 150, input))
        });
        assert!(matches!(seen, Ok(Seen::Differs(_))), "{seen:?}");
        // One that has a line too many, too.
        let mut long = content.clone();
        long.push("extra");
        let seen = read_back("/memories/x", &want, Probing::Never, |input| {
            Ok::<_, ()>(cutting_backend(&long, 1000, input))
        });
        assert!(matches!(seen, Ok(Seen::Differs(_))), "{seen:?}");
        // A short text is never paged: one view, whatever it shows.
        let mut views = 0;
        let small = EffectKind::FileText("a\nb\n".to_string());
        let seen = read_back("/memories/x", &small, Probing::Never, |input| {
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
        let seen = read_back("/memories/x", &want, Probing::Never, |input| {
            Ok::<_, ()>(cut(input, &content))
        });
        assert_eq!(seen, Ok(Seen::Holds));
        // A file whose last line really is cut short differs.
        let short = "z".repeat(50);
        let mut cut_short = content.clone();
        cut_short[299] = short.as_str();
        let seen = read_back("/memories/x", &want, Probing::Never, |input| {
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
        let seen = read_back("/memories/x", &want, Probing::Never, |input| {
            Ok::<_, ()>(cutting_backend(&content, 110, input))
        });
        assert_eq!(seen, Ok(Seen::Holds));
        let huge = EffectKind::FileText("x\n".repeat(READ_BACK_MAX_LINES));
        let seen = read_back("/memories/x", &huge, Probing::Never, |_| {
            Err::<ToolResult, _>("asked")
        });
        assert_eq!(seen, Ok(Seen::Holds));
    }

    /// A store holding `bytes` whose view numbers the lines `split` makes of them: its
    /// `str_replace` finds `old_str` in the bytes (once), as the spec's.
    fn store(bytes: &str, split: fn(&str) -> Vec<String>, input: &Value) -> ToolResult {
        match input["command"].as_str() {
            Some("view") => {
                let mut text = "Here's the content of /memories/x with line numbers:".to_string();
                for (i, line) in split(bytes).iter().enumerate() {
                    text.push_str(&format!("\n{:>6}\t{line}", i + 1));
                }
                ok(&text)
            }
            _ => {
                let old = input["old_str"].as_str().unwrap_or_default();
                if bytes.matches(old).count() == 1 {
                    ok("The memory file has been edited.")
                } else {
                    ToolResult::error(format!(
                        "No replacement was performed, old_str `{old}` did not appear verbatim in /memories/x."
                    ))
                }
            }
        }
    }

    fn on_newlines(bytes: &str) -> Vec<String> {
        bytes.lines().map(str::to_string).collect()
    }

    /// Python's `str.splitlines`: also at `\x0b`.
    fn on_every_break(bytes: &str) -> Vec<String> {
        bytes
            .split(['\n', '\x0b'])
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn a_final_newline_no_view_shows_is_found_by_the_probe() {
        let want = EffectKind::FileText("abc".to_string());
        let seen = read_back("/memories/x", &want, Probing::Hidden, |input| {
            Ok::<_, ()>(store("abc\n", on_newlines, input))
        });
        assert!(
            matches!(&seen, Ok(Seen::Differs(why)) if why.contains("newline more")),
            "{seen:?}"
        );
        // Exactly the bytes: verified by one probe, for the newline, after a view that showed
        // every line; never probed when the view could show them all.
        let mut asked = Vec::new();
        let seen = read_back("/memories/x", &want, Probing::Hidden, |input| {
            asked.push(input["command"].clone());
            Ok::<_, ()>(store("abc", on_newlines, input))
        });
        assert_eq!(
            (seen, asked),
            (Ok(Seen::Holds), vec![json!("view"), json!("str_replace")])
        );
        let mut asked = Vec::new();
        let plain = EffectKind::FileText("abc\n".to_string());
        let seen = read_back("/memories/x", &plain, Probing::Hidden, |input| {
            asked.push(input["command"].clone());
            Ok::<_, ()>(store("abc\n", on_newlines, input))
        });
        assert_eq!((seen, asked), (Ok(Seen::Holds), vec![json!("view")]));
    }

    #[test]
    fn a_view_that_splits_right_bytes_is_the_views_fault() {
        let want = EffectKind::FileText("a\x0bb\n".to_string());
        let seen = read_back("/memories/x", &want, Probing::WhenDiffers, |input| {
            Ok::<_, ()>(store("a\x0bb\n", on_every_break, input))
        });
        assert!(matches!(seen, Ok(Seen::ViewWrong(_))), "{seen:?}");
        // Wrong bytes under the same view stay the writer's.
        let seen = read_back("/memories/x", &want, Probing::WhenDiffers, |input| {
            Ok::<_, ()>(store("a\x0bb\nX\n", on_every_break, input))
        });
        assert!(matches!(seen, Ok(Seen::Differs(_))), "{seen:?}");
    }

    #[test]
    fn a_miss_answered_without_its_flag_is_still_a_miss() {
        let want = EffectKind::FileText("a\r\nb\r\n".to_string());
        let seen = read_back("/memories/x", &want, Probing::Hidden, |input| {
            Ok::<_, ()>(match input["command"].as_str() {
                Some("view") => {
                    ok("Here's the content of /memories/x with line numbers:\n     1\ta\n     2\tb")
                }
                _ => ok("String not found in file: a"),
            })
        });
        assert!(
            matches!(&seen, Ok(Seen::Differs(why)) if why.contains("not the text")),
            "{seen:?}"
        );
        // A refusal that is no miss tells nothing: the view's reading stands.
        let seen = read_back("/memories/x", &want, Probing::Hidden, |input| {
            Ok::<_, ()>(match input["command"].as_str() {
                Some("view") => ok(
                    "Here's the content of /memories/x with line numbers:\n     1\ta\r\n     2\tb\r",
                ),
                _ => ok("Path traversal not allowed: /memories/x"),
            })
        });
        assert_eq!(seen, Ok(Seen::Holds));
    }
}
