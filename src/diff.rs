//! Differences between an expected and an actual text, with whitespace made visible.
//!
//! Memory tool outputs differ by a tab against spaces, a trailing space, a `\r` or a missing
//! final newline far more often than by words, so every such character gets a visible glyph:
//! `→` for a tab, `·` for a trailing space, `␍` for a carriage return, and a closing
//! `∅ no newline at end` line when the text does not end with a newline where the other one does.

use similar::{ChangeTag, DiffOp, TextDiff};

/// Kind of a diff line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineTag {
    /// In both.
    Same,
    /// Only in the expected text.
    Expected,
    /// Only in the actual text.
    Actual,
}

/// A run of text inside a diff line; `emphasized` marks the words that changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// Visible text (whitespace already turned into glyphs).
    pub text: String,
    /// Whether this run differs from the other side.
    pub emphasized: bool,
}

/// One line of a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    /// Same, expected-only or actual-only.
    pub tag: LineTag,
    /// The line's runs.
    pub spans: Vec<Span>,
}

impl DiffLine {
    /// The whole visible line.
    pub fn text(&self) -> String {
        self.spans.iter().map(|s| s.text.as_str()).collect()
    }
}

/// The escape a character is shown as wherever text from a transcript or a backend reaches a
/// terminal or a log, when it must not be sent as is: NUL as `\0`, the other C0 controls and DEL
/// as `\xNN` (ESC is `\x1b`), C1 controls, the bidirectional marks and overrides (which reorder
/// what is shown around them), zero-width and other invisible characters, and the line and
/// paragraph separators as `\u{NNNN}`. One table for every report format and the TUI.
pub fn escape_control(c: char) -> Option<String> {
    match c {
        '\0' => Some("\\0".to_string()),
        c if u32::from(c) < 0x20 || c == '\x7f' => Some(format!("\\x{:02x}", u32::from(c))),
        c if c.is_control() => Some(format!("\\u{{{:x}}}", u32::from(c))),
        '\u{061c}'
        | '\u{200b}'..='\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}'
        | '\u{feff}' => Some(format!("\\u{{{:x}}}", u32::from(c))),
        _ => None,
    }
}

/// Makes whitespace visible: tabs, carriage returns, trailing spaces, other control characters.
pub fn visible(line: &str) -> String {
    let trimmed = line.trim_end_matches(' ');
    let trailing = line.len() - trimmed.len();
    let mut out = String::with_capacity(line.len() + 8);
    for c in trimmed.chars() {
        push_visible(&mut out, c);
    }
    out.extend(std::iter::repeat_n('·', trailing));
    out
}

fn push_visible(out: &mut String, c: char) {
    match c {
        '\t' => out.push('→'),
        '\r' => out.push('␍'),
        '\0' => out.push('␀'),
        c if c.is_control() => out.extend(c.escape_default()),
        c => out.push(c),
    }
}

/// A line diff of `expected` against `actual`, with word-level emphasis inside changed lines,
/// drawn with [`Glyphs::PLAIN`].
pub fn diff(expected: &str, actual: &str) -> Vec<DiffLine> {
    diff_with(expected, actual, Glyphs::PLAIN)
}

/// A plain-text unified rendering for logs and reports: `-` expected, `+` actual, two spaces for
/// both; changed words wrapped in `[-…-]` / `{+…+}` as `git diff --word-diff` does. A lone `→`
/// stands for a tab, since the tab stops of a CI log are unknown.
pub fn render_unified(expected: &str, actual: &str) -> String {
    render_unified_with(expected, actual, Glyphs::PLAIN)
}

/// How [`diff_with`] and [`visible_with`] draw whitespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Glyphs {
    /// Tab stops: a tab becomes `→` padded with spaces up to the next stop, so that columns stay
    /// aligned (a `{n:>6}\t` gutter keeps its shape); `None` draws a lone `→`.
    pub tab_width: Option<usize>,
    /// Spaces inside changed words are drawn as `·`: a changed run of spaces is otherwise
    /// invisible, and a tab against spaces would look like a tab against nothing.
    pub spaces_in_changes: bool,
}

impl Glyphs {
    /// For text reports: a lone `→` per tab, spaces inside changed words as `·`.
    pub const PLAIN: Glyphs = Glyphs {
        tab_width: None,
        spaces_in_changes: true,
    };
}

impl Default for Glyphs {
    fn default() -> Self {
        Glyphs {
            tab_width: Some(4),
            spaces_in_changes: true,
        }
    }
}

/// Drawn after the last line of the side that lacks the final newline the other side has.
pub const NO_FINAL_NEWLINE: &str = "∅ no newline at end";

/// Like [`visible`], with column-aware tabs when `glyphs.tab_width` is set.
pub fn visible_with(line: &str, glyphs: Glyphs) -> String {
    let mut painter = Painter::new(line.trim_end_matches(' ').len(), glyphs);
    painter.paint(line, false)
}

/// Like [`diff`], drawing whitespace as `glyphs` says; a missing final newline is a trailing
/// emphasized [`NO_FINAL_NEWLINE`] run on the line that lacks it, not a line of its own, so that
/// line numbers stay true.
pub fn diff_with(expected: &str, actual: &str, glyphs: Glyphs) -> Vec<DiffLine> {
    let diff = TextDiff::configure()
        .timeout(std::time::Duration::from_millis(500))
        .diff_lines(expected, actual);
    let newline_differs = expected.ends_with('\n') != actual.ends_with('\n');
    diff.ops()
        .iter()
        .flat_map(|op| op_lines(&diff, op, glyphs, newline_differs))
        .collect()
}

/// The lines of one diff operation, whitespace drawn as `glyphs` says.
fn op_lines(
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

/// Draws the runs of one line, keeping track of the column (for tab stops) and of where the
/// line's trailing spaces start.
struct Painter {
    glyphs: Glyphs,
    trailing_from: usize,
    offset: usize,
    column: usize,
}

impl Painter {
    fn new(trailing_from: usize, glyphs: Glyphs) -> Painter {
        Painter {
            glyphs,
            trailing_from,
            offset: 0,
            column: 0,
        }
    }

    fn paint(&mut self, text: &str, emphasized: bool) -> String {
        let mut out = String::with_capacity(text.len() + 4);
        for c in text.chars() {
            let trailing = self.offset >= self.trailing_from;
            self.offset += c.len_utf8();
            match c {
                '\t' => {
                    out.push('→');
                    self.column += 1;
                    if let Some(width) = self.glyphs.tab_width.filter(|w| *w > 0) {
                        while !self.column.is_multiple_of(width) {
                            out.push(' ');
                            self.column += 1;
                        }
                    }
                    continue;
                }
                ' ' if trailing || (emphasized && self.glyphs.spaces_in_changes) => out.push('·'),
                c => push_visible(&mut out, c),
            }
            self.column += 1;
        }
        out
    }
}

/// Like [`render_unified`], drawing whitespace as `glyphs` says (spaces inside changed words
/// as `·`, so that a tab against spaces reads `[-→-]` against `{+····+}`).
pub fn render_unified_with(expected: &str, actual: &str, glyphs: Glyphs) -> String {
    let mut out = String::new();
    for line in diff_with(expected, actual, glyphs) {
        push_unified(&mut out, &line);
    }
    out
}

/// One unified line: sign, then the runs with changed words in `[-…-]` / `{+…+}`.
fn push_unified(out: &mut String, line: &DiffLine) {
    let (sign, open, close) = match line.tag {
        LineTag::Same => (' ', "", ""),
        LineTag::Expected => ('-', "[-", "-]"),
        LineTag::Actual => ('+', "{+", "+}"),
    };
    out.push(sign);
    out.push(' ');
    let partly = line.spans.iter().any(|s| !s.emphasized);
    for span in &line.spans {
        if span.emphasized && partly {
            out.push_str(open);
            out.push_str(&span.text);
            out.push_str(close);
        } else {
            out.push_str(&span.text);
        }
    }
    out.push('\n');
}

/// Unchanged lines kept around each change in a [`condensed`] diff.
pub const CONTEXT_LINES: usize = 3;

/// How many diff lines a report shows per finding unless asked for everything.
pub const REPORT_DIFF_LINES: usize = 40;

/// One line of a [`condensed`] diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condensed {
    /// A diff line.
    Line(DiffLine),
    /// A run of this many unchanged lines, left out.
    Unchanged(usize),
}

/// A diff with long unchanged runs collapsed and, optionally, a cap on its length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CondensedDiff {
    /// What to show, in order.
    pub lines: Vec<Condensed>,
    /// Diff lines (changes and their context) left out by the cap.
    pub omitted: usize,
}

/// Like [`diff_with`], but unchanged runs longer than twice [`CONTEXT_LINES`] collapse into
/// [`Condensed::Unchanged`], and at most `max_lines` diff lines are drawn (the rest counted in
/// `omitted`). Lines past the cap are never drawn, so a diff of a million-line text costs the
/// line diff alone.
pub fn condensed(
    expected: &str,
    actual: &str,
    glyphs: Glyphs,
    max_lines: Option<usize>,
) -> CondensedDiff {
    let diff = TextDiff::configure()
        .timeout(std::time::Duration::from_millis(500))
        .diff_lines(expected, actual);
    let newline_differs = expected.ends_with('\n') != actual.ends_with('\n');
    let mut budget = max_lines.unwrap_or(usize::MAX);
    let mut lines = Vec::new();
    let mut omitted = 0usize;
    // Where the previous group ended in the expected text, to count the lines skipped.
    let mut old_end = 0usize;
    for group in diff.grouped_ops(CONTEXT_LINES) {
        let Some(first) = group.first() else { continue };
        let gap = first.old_range().start.saturating_sub(old_end);
        if gap > 0 && budget > 0 {
            lines.push(Condensed::Unchanged(gap));
        }
        for op in &group {
            old_end = op.old_range().end;
            let (old_len, new_len) = (op.old_range().len(), op.new_range().len());
            let size = match op {
                DiffOp::Equal { .. } => old_len,
                _ => old_len + new_len,
            };
            if size <= budget {
                budget -= size;
                lines.extend(
                    op_lines(&diff, op, glyphs, newline_differs)
                        .into_iter()
                        .map(Condensed::Line),
                );
                continue;
            }
            let clipped = clip(*op, budget);
            let shown = match clipped {
                DiffOp::Equal { len, .. } => len,
                other => other.old_range().len() + other.new_range().len(),
            };
            if shown > 0 {
                lines.extend(
                    op_lines(&diff, &clipped, glyphs, newline_differs)
                        .into_iter()
                        .map(Condensed::Line),
                );
            }
            budget = 0;
            omitted += size - shown;
        }
    }
    let old_len = diff.ops().last().map_or(0, |op| op.old_range().end);
    let tail = old_len.saturating_sub(old_end);
    if tail > 0 && budget > 0 && !lines.is_empty() {
        lines.push(Condensed::Unchanged(tail));
    }
    CondensedDiff { lines, omitted }
}

/// The first `budget` lines of an operation; a replacement keeps some of both sides.
fn clip(op: DiffOp, budget: usize) -> DiffOp {
    match op {
        DiffOp::Equal {
            old_index,
            new_index,
            len,
        } => DiffOp::Equal {
            old_index,
            new_index,
            len: len.min(budget),
        },
        DiffOp::Delete {
            old_index,
            old_len,
            new_index,
        } => DiffOp::Delete {
            old_index,
            old_len: old_len.min(budget),
            new_index,
        },
        DiffOp::Insert {
            old_index,
            new_index,
            new_len,
        } => DiffOp::Insert {
            old_index,
            new_index,
            new_len: new_len.min(budget),
        },
        DiffOp::Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        } => {
            // Half the budget for each side, more for one when the other is short.
            let old_shown = old_len.min((budget / 2).max(budget.saturating_sub(new_len)));
            let new_shown = new_len.min(budget - old_shown);
            DiffOp::Replace {
                old_index,
                old_len: old_shown,
                new_index,
                new_len: new_shown,
            }
        }
    }
}

/// Like [`render_unified_with`] over a [`condensed`] diff: collapsed unchanged runs read
/// `  … N unchanged lines`. Returns the text and how many diff lines the cap left out, for the
/// caller to say how to see them.
pub fn render_condensed(
    expected: &str,
    actual: &str,
    glyphs: Glyphs,
    max_lines: Option<usize>,
) -> (String, usize) {
    let condensed = condensed(expected, actual, glyphs, max_lines);
    let mut out = String::new();
    for line in &condensed.lines {
        match line {
            Condensed::Line(line) => push_unified(&mut out, line),
            Condensed::Unchanged(n) => {
                out.push_str(&format!(
                    "  … {} unchanged line{}\n",
                    thousands(*n),
                    if *n == 1 { "" } else { "s" }
                ));
            }
        }
    }
    (out, condensed.omitted)
}

/// A report's diff, appended to `out`: each line after `indent`, capped at
/// [`REPORT_DIFF_LINES`] unless `whole` (a wrong line count can make a diff of a million lines),
/// and a cut followed by a line saying how many were left out and `how_to_see_all`.
pub fn push_report_diff(
    out: &mut String,
    (expected, actual): (&str, &str),
    glyphs: Glyphs,
    indent: &str,
    whole: bool,
    how_to_see_all: &str,
) {
    let cap = (!whole).then_some(REPORT_DIFF_LINES);
    let (diff, omitted) = render_condensed(expected, actual, glyphs, cap);
    for line in diff.lines() {
        out.push_str(indent);
        out.push_str(line);
        out.push('\n');
    }
    if omitted > 0 {
        out.push_str(&format!(
            "{indent}… {} more diff lines ({how_to_see_all})\n",
            thousands(omitted)
        ));
    }
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One side of a side-by-side row: the line and its number on that side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Numbered {
    /// 1-based line number in its text.
    pub number: usize,
    /// The line.
    pub line: DiffLine,
}

/// A row of a side-by-side diff: expected on the left, actual on the right; a side is `None`
/// where the other side has a line the first lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The expected text's line.
    pub left: Option<Numbered>,
    /// The actual text's line.
    pub right: Option<Numbered>,
}

/// Lays a diff out side by side: equal lines face each other, and within a changed block the
/// n-th removed line faces the n-th added one (which is what word emphasis was computed on).
pub fn side_by_side(lines: &[DiffLine]) -> Vec<Row> {
    let mut rows = Vec::with_capacity(lines.len());
    let (mut left_number, mut right_number) = (0, 0);
    let mut i = 0;
    while i < lines.len() {
        if lines[i].tag == LineTag::Same {
            left_number += 1;
            right_number += 1;
            rows.push(Row {
                left: Some(Numbered {
                    number: left_number,
                    line: lines[i].clone(),
                }),
                right: Some(Numbered {
                    number: right_number,
                    line: lines[i].clone(),
                }),
            });
            i += 1;
            continue;
        }
        let end = lines[i..]
            .iter()
            .position(|l| l.tag == LineTag::Same)
            .map_or(lines.len(), |n| i + n);
        let mut left = Vec::new();
        let mut right = Vec::new();
        for line in &lines[i..end] {
            if line.tag == LineTag::Expected {
                left_number += 1;
                left.push(Numbered {
                    number: left_number,
                    line: line.clone(),
                });
            } else {
                right_number += 1;
                right.push(Numbered {
                    number: right_number,
                    line: line.clone(),
                });
            }
        }
        let height = left.len().max(right.len());
        let mut left = left.into_iter();
        let mut right = right.into_iter();
        for _ in 0..height {
            rows.push(Row {
                left: left.next(),
                right: right.next(),
            });
        }
        i = end;
    }
    rows
}

/// Line numbers of a unified diff: (expected's, actual's); one is `None` on a changed line.
pub fn numbers(lines: &[DiffLine]) -> Vec<(Option<usize>, Option<usize>)> {
    let (mut left, mut right) = (0, 0);
    lines
        .iter()
        .map(|line| match line.tag {
            LineTag::Same => {
                left += 1;
                right += 1;
                (Some(left), Some(right))
            }
            LineTag::Expected => {
                left += 1;
                (Some(left), None)
            }
            LineTag::Actual => {
                right += 1;
                (None, Some(right))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_is_visible() {
        assert_eq!(visible("a\tb \r  "), "a→b ␍··");
        assert_eq!(visible("x\0"), "x␀");
    }

    #[test]
    fn tab_against_spaces_is_plain() {
        let out = render_unified("     1\tHello", "     1    Hello");
        assert!(out.contains("- ") && out.contains("→"), "{out}");
        assert!(out.contains("+ "), "{out}");
    }

    #[test]
    fn missing_final_newline_is_shown() {
        let out = render_unified("a\n", "a");
        assert!(out.contains("no newline at end"), "{out}");
    }

    fn glyphs() -> Glyphs {
        Glyphs::default()
    }

    #[test]
    fn tabs_reach_the_next_stop() {
        assert_eq!(visible_with("     1\tHello", glyphs()), "     1→ Hello");
        assert_eq!(visible_with("\tx", glyphs()), "→   x");
        assert_eq!(visible_with("abcd\tx ", glyphs()), "abcd→   x·");
    }

    #[test]
    fn tab_against_spaces_shows_both_sides() {
        let lines = diff_with("     1\tHello\n", "     1    Hello\n", glyphs());
        let texts: Vec<String> = lines.iter().map(DiffLine::text).collect();
        assert_eq!(texts, ["     1→ Hello", "     1····Hello"]);
        assert!(
            lines[1]
                .spans
                .iter()
                .any(|s| s.emphasized && s.text == "····")
        );
    }

    #[test]
    fn missing_newline_marks_the_line_without_one() {
        let lines = diff_with("a\nb\n", "a\nb", glyphs());
        let last = lines.last().map(DiffLine::text).unwrap_or_default();
        assert_eq!(last, format!("b {NO_FINAL_NEWLINE}"));
        let rows = side_by_side(&lines);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].left.as_ref().map(|n| n.number), Some(2));
        assert_eq!(rows[1].right.as_ref().map(|n| n.number), Some(2));
    }

    #[test]
    fn side_by_side_pairs_changed_blocks() {
        let lines = diff_with("a\nb\nc\n", "a\nB\nX\nc\n", glyphs());
        let rows = side_by_side(&lines);
        let shape: Vec<(Option<usize>, Option<usize>)> = rows
            .iter()
            .map(|r| {
                (
                    r.left.as_ref().map(|n| n.number),
                    r.right.as_ref().map(|n| n.number),
                )
            })
            .collect();
        assert_eq!(
            shape,
            [
                (Some(1), Some(1)),
                (Some(2), Some(2)),
                (None, Some(3)),
                (Some(3), Some(4))
            ]
        );
        assert_eq!(numbers(&lines).len(), lines.len());
    }

    #[test]
    fn a_line_differing_only_by_its_newline_is_marked() {
        let lines = diff_with("a\nb", "a\nb\nc", glyphs());
        let texts: Vec<String> = lines.iter().map(DiffLine::text).collect();
        assert_eq!(
            texts,
            ["a", format!("b {NO_FINAL_NEWLINE}").as_str(), "b", "c"]
        );
    }

    #[test]
    fn long_unchanged_runs_collapse() {
        let expected: String = (1..=100).map(|n| format!("{n}\n")).collect();
        let actual = expected.replace("\n50\n", "\nfifty\n");
        let (text, omitted) = render_condensed(&expected, &actual, Glyphs::PLAIN, Some(40));
        assert_eq!(omitted, 0);
        assert_eq!(
            text,
            "  … 46 unchanged lines\n  47\n  48\n  49\n- 50\n+ fifty\n  51\n  52\n  53\n  … 47 unchanged lines\n"
        );
    }

    #[test]
    fn a_huge_diff_is_cut_at_the_cap() {
        let expected = "Error: too many lines\n";
        let actual: String = (1..=100_000).map(|n| format!("{n:>6}\tx\n")).collect();
        let (text, omitted) = render_condensed(expected, &actual, Glyphs::PLAIN, Some(40));
        assert_eq!(text.lines().count(), 40, "{text}");
        assert_eq!(omitted, 100_001 - 40);
        assert!(text.starts_with("- Error"), "{text}");
        let (all, none) = render_condensed(expected, &actual, Glyphs::PLAIN, None);
        assert_eq!((all.lines().count(), none), (100_001, 0));
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(999_950), "999,950");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
