//! Turning tool output into spans. Raw output never reaches a `Span`: ratatui drops control
//! characters (a tab would vanish, an escape sequence would be lost without a trace), so every
//! line is painted first: whitespace as glyphs (`→` to the next tab stop, `·` for trailing
//! spaces and spaces in changed words, `␍`), control characters escaped and dimmed (`\x1b`,
//! `\0`), and the line cut to the pane with `…` where it goes on past either edge.

use std::borrow::Cow;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;

use crate::diff::{LineTag, NO_FINAL_NEWLINE, RawLine};
use crate::tui::fold::LineIndex;
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

/// How a run of a painted line looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Look {
    /// Part of a changed word.
    pub(crate) emphasized: bool,
    /// An escaped control character (drawn dimmed).
    pub(crate) control: bool,
}

/// The escape a character is drawn as (one table with the reports: [`crate::diff::escape_control`]).
pub(crate) fn escape(c: char) -> Option<String> {
    crate::diff::escape_control(c)
}

/// A label (path, message, name) with its control characters escaped, for places that show
/// text in one style.
pub(crate) fn clean(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| escape(c).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match escape(c) {
            Some(escaped) => out.push_str(&escaped),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A line of tool output as drawn: (text, look) runs. Tabs reach the next stop of [`GLYPHS`],
/// trailing spaces and spaces in changed words are `·`, `\r` is `␍`, control characters are
/// escaped; a line lacking its counterpart's final newline ends with [`NO_FINAL_NEWLINE`].
pub(crate) fn paint(line: &RawLine) -> Vec<(String, Look)> {
    let whole: usize = line.pieces.iter().map(|(_, t)| t.len()).sum();
    let trailing_from = whole
        - line
            .pieces
            .iter()
            .rev()
            .flat_map(|(_, t)| t.chars().rev())
            .take_while(|c| *c == ' ')
            .count();
    let mut out: Vec<(String, Look)> = Vec::new();
    let mut push = |c: &str, look: Look| match out.last_mut() {
        Some((text, last)) if *last == look => text.push_str(c),
        _ => out.push((c.to_string(), look)),
    };
    let (mut offset, mut column) = (0usize, 0usize);
    for (emphasized, text) in &line.pieces {
        let plain = Look {
            emphasized: *emphasized,
            control: false,
        };
        for c in text.chars() {
            let trailing = offset >= trailing_from;
            offset += c.len_utf8();
            match c {
                '\t' => {
                    push("→", plain);
                    column += 1;
                    if let Some(width) = GLYPHS.tab_width.filter(|w| *w > 0) {
                        while !column.is_multiple_of(width) {
                            push(" ", plain);
                            column += 1;
                        }
                    }
                }
                ' ' if trailing || (*emphasized && GLYPHS.spaces_in_changes) => {
                    push("·", plain);
                    column += 1;
                }
                '\r' => {
                    push("␍", plain);
                    column += 1;
                }
                c => match escape(c) {
                    Some(escaped) => {
                        column += escaped.chars().count();
                        push(
                            &escaped,
                            Look {
                                emphasized: *emphasized,
                                control: true,
                            },
                        );
                    }
                    None => {
                        let mut buffer = [0; 4];
                        push(c.encode_utf8(&mut buffer), plain);
                        column += 1;
                    }
                },
            }
        }
    }
    if line.missing_newline {
        push(
            &format!(" {NO_FINAL_NEWLINE}"),
            Look {
                emphasized: true,
                control: false,
            },
        );
    }
    out
}

/// A plain line of tool output (no emphasis), painted.
pub(crate) fn paint_plain(line: &str) -> Vec<(String, Look)> {
    paint(&RawLine {
        tag: LineTag::Same,
        pieces: vec![(false, line.to_string())],
        missing_newline: false,
    })
}

/// The first column (0-based, as painted) of a changed word in `line`, if it has one.
pub(crate) fn first_emphasis(line: &RawLine) -> Option<usize> {
    let mut column = 0;
    for (text, look) in paint(line) {
        if look.emphasized {
            return Some(column);
        }
        column += text.chars().count();
    }
    None
}

/// Style of matches of the search in a pane.
pub(crate) const MATCH: Style = Style::new().fg(Color::Black).bg(Color::Yellow);

/// A painted line as spans: `skip` columns scrolled off to the left, at most `width` shown,
/// `…` (dimmed) in the first and last cell where the line goes on past that edge, and
/// matches of `query` (smart case) highlighted.
pub(crate) fn cut(
    runs: &[(String, Look)],
    base: Style,
    skip: usize,
    width: usize,
    query: &str,
) -> Vec<Span<'static>> {
    if width == 0 {
        return Vec::new();
    }
    let total: usize = runs.iter().map(|(t, _)| t.chars().count()).sum();
    // (char, look, highlighted, cut mark) for the cells shown.
    let mut cells: Vec<(char, Look, bool, bool)> = runs
        .iter()
        .flat_map(|(text, look)| text.chars().map(move |c| (c, *look, false, false)))
        .skip(skip)
        .take(width)
        .collect();
    highlight(&mut cells, query);
    if skip > 0 && total > 0 {
        match cells.first_mut() {
            Some(first) => *first = ('…', Look::default(), false, true),
            // All of the line is to the left: the mark says it is there.
            None => cells.push(('…', Look::default(), false, true)),
        }
    }
    if total > skip + width
        && let Some(last) = cells.last_mut()
    {
        *last = ('…', Look::default(), false, true);
    }
    let style = |look: Look, found: bool, mark: bool| {
        if mark {
            return DIM;
        }
        let mut style = base;
        if look.emphasized {
            style = style.add_modifier(EMPHASIS);
        }
        if look.control {
            style = style.add_modifier(Modifier::DIM);
        }
        if found {
            style = style.patch(MATCH);
        }
        style
    };
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut current: Option<(String, Style)> = None;
    for (c, look, found, mark) in cells {
        let s = style(look, found, mark);
        match current.as_mut() {
            Some((text, cs)) if *cs == s => text.push(c),
            _ => {
                if let Some((text, cs)) = current.take() {
                    spans.push(Span::styled(text, cs));
                }
                current = Some((c.to_string(), s));
            }
        }
    }
    if let Some((text, cs)) = current {
        spans.push(Span::styled(text, cs));
    }
    spans
}

/// Marks the cells where `query` occurs (smart case: case matters only if it has a capital).
fn highlight(cells: &mut [(char, Look, bool, bool)], query: &str) {
    let needle: Vec<char> = query.chars().collect();
    if needle.is_empty() || needle.len() > cells.len() {
        return;
    }
    let exact = needle.iter().any(|c| c.is_uppercase());
    let same = |a: char, b: char| {
        if exact {
            a == b
        } else {
            a.to_lowercase().eq(b.to_lowercase())
        }
    };
    let mut i = 0;
    while i + needle.len() <= cells.len() {
        if needle
            .iter()
            .zip(&cells[i..])
            .all(|(n, cell)| same(cell.0, *n))
        {
            for cell in &mut cells[i..i + needle.len()] {
                cell.2 = true;
            }
            i += needle.len();
        } else {
            i += 1;
        }
    }
}

/// Lines `from..from + count` of a tool result, painted; `index` finds the first at once.
pub(crate) fn visible_lines(
    text: &str,
    index: Option<&LineIndex>,
    from: usize,
    count: usize,
) -> Vec<Vec<(String, Look)>> {
    let start = index.map_or_else(|| nth_line(text, from), |ix| ix.offset(text, from));
    text[start..]
        .split('\n')
        .take(count)
        .map(paint_plain)
        .collect()
}

/// Byte offset of line `n` of `text` (its length when it has fewer lines).
fn nth_line(text: &str, n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    memchr::memchr_iter(b'\n', text.as_bytes())
        .nth(n - 1)
        .map_or(text.len(), |at| at + 1)
}

/// Number of lines of a text.
pub(crate) fn line_count(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1
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

/// Cuts `text` to `width` characters, ending with `…` when cut; control characters are
/// escaped first (a path in a transcript may hold anything).
pub(crate) fn fit(text: &str, width: usize) -> String {
    let text = clean(text);
    if text.chars().count() <= width {
        return text.into_owned();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}
