//! Differences between an expected and an actual text, with whitespace made visible.
//!
//! Memory tool outputs differ by a tab against spaces, a trailing space, a `\r` or a missing
//! final newline far more often than by words, so every such character gets a visible glyph:
//! `→` for a tab, `·` for a trailing space, `␍` for a carriage return, and a closing
//! `∅ no newline at end` line when the text does not end with a newline where the other one does.

mod condensed;
mod glyphs;
mod lines;
mod ops;
mod render;
mod side_by_side;
pub use condensed::{CONTEXT_LINES, Condensed, CondensedDiff, condensed};
pub use glyphs::{Glyphs, escape_control, visible, visible_with};
pub use lines::{NO_FINAL_NEWLINE, RawLine, block_lines, diff, diff_with};
pub use ops::line_ops;
pub use render::{
    REPORT_DIFF_LINES, push_report_diff, render_condensed, render_unified, render_unified_with,
    thousands,
};
pub use side_by_side::{Numbered, Row, numbers, side_by_side};

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
        let lines = diff_with("a\nb", "a\nb\nc\n", glyphs());
        let texts: Vec<String> = lines.iter().map(DiffLine::text).collect();
        assert_eq!(
            texts,
            ["a", format!("b {NO_FINAL_NEWLINE}").as_str(), "b", "c"]
        );
    }

    /// Neither text ends with a newline: a line followed by an added one is the same line, and
    /// nothing is marked. It used to read `- b[- ∅ no newline at end-]`, `+ b`, `+ c`: the mark
    /// claimed a newline the actual text lacks as much, on a line that did not change.
    #[test]
    fn a_final_newline_both_texts_lack_marks_nothing() {
        let out = render_unified("a\nb", "a\nb\nc");
        assert_eq!(out, "  a\n  b\n+ c\n");
        let (condensed, _) = render_condensed("a\nb", "a\nb\nc", Glyphs::PLAIN, Some(40));
        assert_eq!(condensed, "  a\n  b\n+ c\n");
        // The other way round, and with a changed line before the end.
        assert_eq!(render_unified("x\nb\nc", "y\nb"), "- x\n+ y\n  b\n- c\n");
        // Where only one text lacks it, the mark stays, on that text's side.
        let lines = diff_with("a\nb\n", "a\nc", glyphs());
        let last = lines.last().map(DiffLine::text).unwrap_or_default();
        assert_eq!(last, format!("c {NO_FINAL_NEWLINE}"));
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
