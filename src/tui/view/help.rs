//! The help overlay, generated from the keymap table.

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::text::{DIM, TITLE};
use crate::tui::keymap;

/// Lines of the help text (for scrolling limits).
pub(crate) fn lines() -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for (group, bindings) in keymap::help() {
        out.push(Line::from(Span::styled(group, TITLE)));
        for (keys, help) in bindings {
            out.push(Line::from(vec![
                Span::styled(format!("  {keys:<14}"), Style::new().fg(Color::Yellow)),
                Span::raw(help),
            ]));
        }
    }
    out.push(Line::from(Span::styled("Mouse", TITLE)));
    out.push(Line::raw(
        "  wheel scrolls the pane under the pointer, a click selects a step;",
    ));
    out.push(Line::raw(
        "  hold Shift to select text, or press m / start with --no-mouse",
    ));
    out.push(Line::from(Span::styled("Marks", TITLE)));
    out.push(Line::raw(
        "  ✓ same  ≈ dialect or open (INFO)  △ SHOULD  ✗ MUST  ⚑ SECURITY  Δ changed  ! broke",
    ));
    out.push(Line::raw(
        "  · other tool  ↳N follows step N (dimmed; n passes it by unless c)",
    ));
    out.push(Line::from(Span::styled("Diff", TITLE)));
    out.push(Line::raw(
        "  ⋯ folded unchanged lines  … the line goes on past this edge (col N: scrolled)",
    ));
    out.push(Line::raw(
        "  → tab  · space (trailing or changed)  ␍ CR  \\x1b \\0 control characters (dimmed)",
    ));
    out
}

/// Draws the overlay, scrolled by `scroll` lines.
pub(crate) fn draw(frame: &mut Frame<'_>, area: Rect, scroll: usize) {
    let width = area.width.saturating_sub(4).min(96);
    let height = area.height.saturating_sub(2);
    let [row] = Layout::vertical([Constraint::Length(height)])
        .flex(Flex::Center)
        .areas(area);
    let [popup] = Layout::horizontal([Constraint::Length(width)])
        .flex(Flex::Center)
        .areas(row);
    frame.render_widget(Clear, popup);
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(Style::new().fg(Color::Yellow))
        .title(Span::styled(" Keys · Esc closes · j/k scroll ", TITLE))
        .title_bottom(Span::styled(
            " one table drives keys, this help and the hint bar ",
            DIM,
        ));
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    let all = lines();
    let scroll = scroll.min(all.len().saturating_sub(usize::from(inner.height)));
    let shown: Vec<Line<'_>> = all.into_iter().skip(scroll).collect();
    frame.render_widget(Paragraph::new(shown), inner);
}
