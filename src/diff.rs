//! Differences between an expected and an actual text, with whitespace made visible.
//!
//! Memory tool outputs differ by a tab against spaces, a trailing space, a `\r` or a missing
//! final newline far more often than by words, so every such character gets a visible glyph:
//! `→` for a tab, `·` for a trailing space, `␍` for a carriage return, and a closing `⏎̸` line
//! when the text does not end with a newline where the other one does.

use similar::{ChangeTag, TextDiff};

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

/// A line diff of `expected` against `actual`, with word-level emphasis inside changed lines.
pub fn diff(expected: &str, actual: &str) -> Vec<DiffLine> {
    let diff = TextDiff::configure().diff_lines(expected, actual);
    let mut lines = Vec::new();
    for op in diff.ops() {
        for change in diff.iter_inline_changes(op) {
            let tag = match change.tag() {
                ChangeTag::Equal => LineTag::Same,
                ChangeTag::Delete => LineTag::Expected,
                ChangeTag::Insert => LineTag::Actual,
            };
            let mut spans = Vec::new();
            let pieces: Vec<(bool, String)> = change
                .iter_strings_lossy()
                .map(|(emphasized, text)| (emphasized, text.into_owned()))
                .collect();
            let ends_with_newline = pieces.last().is_some_and(|(_, t)| t.ends_with('\n'));
            let total = pieces.len();
            for (i, (emphasized, text)) in pieces.iter().enumerate() {
                let last = i + 1 == total;
                let text = if last {
                    text.strip_suffix('\n').unwrap_or(text)
                } else {
                    text.as_str()
                };
                let shown = if last {
                    visible(text)
                } else {
                    visible_inner(text)
                };
                if !shown.is_empty() {
                    spans.push(Span {
                        text: shown,
                        emphasized: *emphasized && tag != LineTag::Same,
                    });
                }
            }
            lines.push(DiffLine { tag, spans });
            // Only worth a line when the two texts disagree about the final newline.
            let newline_differs = expected.ends_with('\n') != actual.ends_with('\n');
            if newline_differs && !ends_with_newline && change.missing_newline() && tag != LineTag::Same {
                lines.push(DiffLine {
                    tag,
                    spans: vec![Span {
                        text: "⏎̸ no newline at end".to_string(),
                        emphasized: true,
                    }],
                });
            }
        }
    }
    lines
}

/// Like [`visible`], but trailing spaces inside a line are not trailing.
fn visible_inner(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        push_visible(&mut out, c);
    }
    out
}

/// A plain-text unified rendering: `-` expected, `+` actual, two spaces for both; changed words
/// wrapped in `[-…-]` / `{+…+}` as `git diff --word-diff` does.
pub fn render_unified(expected: &str, actual: &str) -> String {
    let mut out = String::new();
    for line in diff(expected, actual) {
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
    out
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
}
