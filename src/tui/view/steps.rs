//! The step list: one row per tool call with its verdict mark, number and summary.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::text::{DIM, fit};
use crate::replay::StepKind;
use crate::tui::model::App;

/// The colour of a verdict mark.
pub(crate) fn mark_style(kind: StepKind) -> Style {
    match kind {
        StepKind::NotReplayed => DIM,
        StepKind::Same => Style::new().fg(Color::Green),
        StepKind::Open | StepKind::Dialect => Style::new().fg(Color::Cyan),
        StepKind::Should | StepKind::Changed => Style::new().fg(Color::Yellow),
        StepKind::Must => Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        StepKind::Security => Style::new()
            .fg(Color::White)
            .bg(Color::Red)
            .add_modifier(Modifier::BOLD),
        StepKind::Broke => Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD),
    }
}

/// Draws the list; returns the rows' area and the first step shown.
pub(crate) fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) -> (Rect, usize) {
    let total = app.replay().steps.len();
    let block = Block::new()
        .borders(Borders::TOP | Borders::RIGHT)
        .border_style(DIM)
        .title(Span::styled(
            format!(" Steps {}/{total} ", app.selected() + 1),
            super::text::TITLE,
        ));
    let rows = block.inner(area);
    frame.render_widget(block, area);
    let height = usize::from(rows.height);
    // Keep the selection in view, moving the window as little as possible.
    let mut offset = app.list_offset.min(total.saturating_sub(1));
    if app.selected() < offset {
        offset = app.selected();
    } else if height > 0 && app.selected() >= offset + height {
        offset = app.selected() + 1 - height;
    }
    let digits = total.to_string().len();
    let width = usize::from(rows.width);
    let review = app.review();
    let lines: Vec<Line<'_>> = (offset..total.min(offset + height))
        .map(|i| {
            let kind = app.kind(i);
            let (call, _) = app.step(i);
            let selected = i == app.selected();
            let mut spans = vec![
                Span::raw(if selected { "▸" } else { " " }),
                Span::styled(kind.mark(), mark_style(kind)),
            ];
            if let Some(review) = review {
                let mark = review.decisions[i].map_or(" ", |d| d.mark());
                spans.push(Span::styled(mark, Style::new().fg(Color::Yellow)));
            }
            if app.security_lane {
                // The security lane: a finding shows here whatever the step's verdict (once: a
                // step whose verdict is SECURITY already shows the flag as its mark).
                let (_, step) = app.step(i);
                let security = kind != StepKind::Security
                    && step.verdict.divergences.iter().any(|d| d.security);
                spans.push(if security {
                    Span::styled("⚑", mark_style(StepKind::Security))
                } else {
                    Span::raw(" ")
                });
            }
            let matched = app.matches.binary_search(&i).is_ok();
            let number = format!(" {:>digits$} ", i + 1);
            // A consequence of an earlier divergence is dimmed and says which.
            let follows = app
                .follows(i)
                .filter(|_| kind.diverges())
                .map(|n| format!("↳{n} "));
            let used = 2
                + usize::from(review.is_some())
                + usize::from(app.security_lane)
                + number.chars().count()
                + follows.as_ref().map_or(0, |f| f.chars().count());
            spans.push(Span::styled(number, DIM));
            let summary_style = match (matched, call.is_memory(), follows.is_some()) {
                (true, _, _) => Style::new().fg(Color::Yellow),
                (false, false, _) | (false, true, true) => DIM,
                (false, true, false) => Style::new(),
            };
            if let Some(follows) = follows {
                spans[1].style = DIM;
                spans.push(Span::styled(follows, DIM));
            }
            spans.push(Span::styled(
                fit(&call.summary(), width.saturating_sub(used)),
                summary_style,
            ));
            let line = Line::from(spans);
            if selected {
                line.style(Style::new().add_modifier(Modifier::REVERSED))
            } else {
                line
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), rows);
    (rows, offset)
}
