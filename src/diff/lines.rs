//! The line diff: each line of the expected and the actual text, with word-level emphasis
//! inside changed lines and the mark of a missing final newline, drawn or raw.

use std::borrow::Cow;

use similar::{ChangeTag, DiffOp, TextDiff};

use super::glyphs::Painter;
use super::{DiffLine, Glyphs, LineTag, Span};

/// A line diff of `expected` against `actual`, with word-level emphasis inside changed lines,
/// drawn with [`Glyphs::PLAIN`].
pub fn diff(expected: &str, actual: &str) -> Vec<DiffLine> {
    diff_with(expected, actual, Glyphs::PLAIN)
}

/// Drawn after the last line of the side that lacks the final newline the other side has.
pub const NO_FINAL_NEWLINE: &str = "∅ no newline at end";

/// Like [`diff`], drawing whitespace as `glyphs` says; a missing final newline is a trailing
/// emphasized [`NO_FINAL_NEWLINE`] run on the line that lacks it, not a line of its own, so that
/// line numbers stay true.
pub fn diff_with(expected: &str, actual: &str, glyphs: Glyphs) -> Vec<DiffLine> {
    let (expected, actual) = as_diffed(expected, actual);
    let (expected, actual) = (expected.as_ref(), actual.as_ref());
    let diff = TextDiff::configure()
        .timeout(std::time::Duration::from_millis(500))
        .diff_lines(expected, actual);
    let newline_differs = expected.ends_with('\n') != actual.ends_with('\n');
    diff.ops()
        .iter()
        .flat_map(|op| op_lines(&diff, op, glyphs, newline_differs))
        .collect()
}

/// The two texts as they are line-diffed: when neither ends with a newline, each non-empty one
/// with a newline added. A line diff takes a last line without its newline for another line
/// than the same text followed by one, so `a⏎b` against `a⏎b⏎c` would show `b` removed (marked
/// [`NO_FINAL_NEWLINE`]) and added again, though both texts lack the final newline alike and
/// only `c` is new. The line count stays the same, so line numbers stay true.
pub(super) fn as_diffed<'a>(expected: &'a str, actual: &'a str) -> (Cow<'a, str>, Cow<'a, str>) {
    if expected.ends_with('\n') || actual.ends_with('\n') {
        return (Cow::Borrowed(expected), Cow::Borrowed(actual));
    }
    let terminated = |text: &'a str| {
        if text.is_empty() {
            Cow::Borrowed(text)
        } else {
            Cow::Owned(format!("{text}\n"))
        }
    };
    (terminated(expected), terminated(actual))
}

/// The lines of one diff operation, whitespace drawn as `glyphs` says.
pub(super) fn op_lines(
    diff: &TextDiff<'_, '_, str>,
    op: &DiffOp,
    glyphs: Glyphs,
    newline_differs: bool,
) -> Vec<DiffLine> {
    raw_op_lines(diff, std::slice::from_ref(op), newline_differs)
        .into_iter()
        .map(|raw| paint_raw(raw, glyphs))
        .collect()
}

/// Draws a [`RawLine`]'s whitespace as `glyphs` says.
fn paint_raw(raw: RawLine, glyphs: Glyphs) -> DiffLine {
    let whole: String = raw.pieces.iter().map(|(_, t)| t.as_str()).collect();
    let trailing = whole.len() - whole.trim_end_matches(' ').len();
    let mut painter = Painter::new(whole.len() - trailing, glyphs);
    let mut spans: Vec<Span> = raw
        .pieces
        .iter()
        .map(|(emphasized, text)| Span {
            text: painter.paint(text, *emphasized),
            emphasized: *emphasized,
        })
        .filter(|span| !span.text.is_empty())
        .collect();
    if raw.missing_newline {
        spans.push(Span {
            text: format!(" {NO_FINAL_NEWLINE}"),
            emphasized: true,
        });
    }
    DiffLine {
        tag: raw.tag,
        spans,
    }
}

/// A diff line before its whitespace is drawn, for callers that draw it themselves (the TUI
/// draws control characters in a style of their own).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawLine {
    /// Same, expected-only or actual-only.
    pub tag: LineTag,
    /// The line's runs as (changed, text), without the line's newline.
    pub pieces: Vec<(bool, String)>,
    /// The line lacks the final newline its counterpart has ([`NO_FINAL_NEWLINE`] is drawn).
    pub missing_newline: bool,
}

/// The lines of one changed block, `expected`'s lines then `actual`'s, with word-level
/// emphasis: what [`diff_with`] draws for a replacement of those lines by these. Both texts
/// are the block's whole lines (newlines included); `newline_differs` says whether the two
/// whole texts differ in ending with a newline. The block is not diffed again line by line:
/// it is taken as one replacement, so its lines come out in the order given.
pub fn block_lines(expected: &str, actual: &str, newline_differs: bool) -> Vec<RawLine> {
    // An expired deadline: only the lines are wanted from TextDiff, not another line diff.
    let diff = TextDiff::configure()
        .timeout(std::time::Duration::ZERO)
        .diff_lines(expected, actual);
    let (old_len, new_len) = (diff.old_len(), diff.new_len());
    let op = match (old_len, new_len) {
        (0, 0) => return Vec::new(),
        (old_len, 0) => DiffOp::Delete {
            old_index: 0,
            old_len,
            new_index: 0,
        },
        (0, new_len) => DiffOp::Insert {
            old_index: 0,
            new_index: 0,
            new_len,
        },
        (old_len, new_len) => DiffOp::Replace {
            old_index: 0,
            old_len,
            new_index: 0,
            new_len,
        },
    };
    raw_op_lines(&diff, &[op], newline_differs)
}

/// The raw lines of diff operations, with the missing-newline marks decided over all of them.
fn raw_op_lines(
    diff: &TextDiff<'_, '_, str>,
    ops: &[DiffOp],
    newline_differs: bool,
) -> Vec<RawLine> {
    // (line, raw content, whether it ends with a newline), for the newline marks below.
    let mut group: Vec<(RawLine, String, bool)> = Vec::new();
    for op in ops {
        for change in diff.iter_inline_changes(op) {
            let tag = match change.tag() {
                ChangeTag::Equal => LineTag::Same,
                ChangeTag::Delete => LineTag::Expected,
                ChangeTag::Insert => LineTag::Actual,
            };
            let mut pieces: Vec<(bool, String)> = change
                .iter_strings_lossy()
                .map(|(emphasized, text)| (emphasized && tag != LineTag::Same, text.into_owned()))
                .collect();
            let mut terminated = false;
            if let Some((_, last)) = pieces.last_mut()
                && last.ends_with('\n')
            {
                last.pop();
                terminated = true;
            }
            let raw: String = pieces.iter().map(|(_, t)| t.as_str()).collect();
            let line = RawLine {
                tag,
                pieces,
                missing_newline: false,
            };
            group.push((line, raw, terminated));
        }
    }
    // A changed line that lacks the newline ending its counterpart gets the mark, so that
    // two lines that look identical are seen to differ; so does a final line when only
    // one text ends with a newline.
    let marked: Vec<bool> = group
        .iter()
        .map(|(line, raw, terminated)| {
            line.tag != LineTag::Same
                && !terminated
                && (newline_differs
                    || group.iter().any(|(other, other_raw, other_terminated)| {
                        other.tag != line.tag
                            && other.tag != LineTag::Same
                            && *other_terminated
                            && other_raw == raw
                    }))
        })
        .collect();
    group
        .into_iter()
        .zip(marked)
        .map(|((mut line, _, _), mark)| {
            line.missing_newline = mark;
            line
        })
        .collect()
}
