//! Plain-text unified renderings for logs and reports: whole or condensed diffs, a report's
//! capped diff, and the grouped counts they print.

use super::condensed::{Condensed, condensed};
use super::{DiffLine, Glyphs, LineTag, diff_with};

/// A plain-text unified rendering for logs and reports: `-` expected, `+` actual, two spaces for
/// both; changed words wrapped in `[-…-]` / `{+…+}` as `git diff --word-diff` does. A lone `→`
/// stands for a tab, since the tab stops of a CI log are unknown.
pub fn render_unified(expected: &str, actual: &str) -> String {
    render_unified_with(expected, actual, Glyphs::PLAIN)
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

/// How many diff lines a report shows per finding unless asked for everything.
pub const REPORT_DIFF_LINES: usize = 40;

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
