//! Turning tool output into spans. Raw output never reaches a `Span`: ratatui drops control
//! characters (a tab would vanish), so every line goes through [`crate::diff`]'s glyphs first.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;

use crate::diff::{self, DiffLine, LineTag};
use crate::tui::model::GLYPHS;

/// Style of text only in the expected side.
pub(crate) const EXPECTED: Style = Style::new().fg(Color::Red);
/// Style of text only in the actual side.
pub(crate) const ACTUAL: Style = Style::new().fg(Color::Green);
/// Style of lines in both.
pub(crate) const SAME: Style = Style::new();
/// Dimmed text: gutters, unchanged context, notes.
pub(crate) const DIM: Style = Style::new().fg(Color::DarkGray);
/// Section titles.
pub(crate) const TITLE: Style = Style::new().add_modifier(Modifier::BOLD);
/// Changed words: never colour alone, so they still show without colour (and in snapshots).
pub(crate) const EMPHASIS: Modifier = Modifier::BOLD
    .union(Modifier::UNDERLINED)
    .union(Modifier::REVERSED);

/// The base style of a diff line.
pub(crate) fn line_style(tag: LineTag) -> Style {
    match tag {
        LineTag::Same => SAME,
        LineTag::Expected => EXPECTED,
        LineTag::Actual => ACTUAL,
    }
}

/// A diff line's runs as spans, after skipping `skip` characters (horizontal scroll).
pub(crate) fn diff_spans(line: &DiffLine, skip: usize) -> Vec<Span<'static>> {
    let base = line_style(line.tag);
    let mut skip = skip;
    let mut out = Vec::with_capacity(line.spans.len());
    for span in &line.spans {
        let count = span.text.chars().count();
        if skip >= count {
            skip -= count;
            continue;
        }
        let text: String = span.text.chars().skip(skip).collect();
        skip = 0;
        let style = if span.emphasized {
            base.add_modifier(EMPHASIS)
        } else {
            base
        };
        out.push(Span::styled(text, style));
    }
    out
}

/// Lines `from..from + count` of a tool result, whitespace made visible, scrolled by `skip`.
pub(crate) fn visible_lines(text: &str, from: usize, count: usize, skip: usize) -> Vec<String> {
    text.split('\n')
        .skip(from)
        .take(count)
        .map(|line| {
            diff::visible_with(line, GLYPHS)
                .chars()
                .skip(skip)
                .collect()
        })
        .collect()
}

/// Number of lines of a text.
pub(crate) fn line_count(text: &str) -> usize {
    text.split('\n').count()
}

/// `1.2K`-style size.
pub(crate) fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["K", "M", "G", "T"];
    if bytes < 1024 {
        return format!("{bytes}B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1}{}", UNITS[unit])
}

/// Cuts `text` to `width` characters, ending with `…` when cut.
pub(crate) fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}
