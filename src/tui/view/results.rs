//! The three results of the step: recorded, backend, reference, with every divergence listed.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::text::{DIM, SAME, TITLE, clean, cut, line_count, visible_lines};
use crate::judge::compare::Answer;
use crate::protocol::ToolResult;
use crate::tui::model::App;

/// Draws the three results stacked (`wide == false`) or side by side, and the divergences.
pub(crate) fn draw(frame: &mut Frame<'_>, area: Rect, app: &App, wide: bool) -> Vec<Rect> {
    let (call, step) = app.step(app.selected());
    let divergences = &step.verdict.divergences;
    let list_height = if wide {
        0
    } else {
        (divergences.len() as u16).min(area.height / 4)
    };
    let [list_area, rest] =
        Layout::vertical([Constraint::Length(list_height), Constraint::Fill(1)]).areas(area);
    if list_height > 0 {
        let lines: Vec<Line<'_>> = divergences
            .iter()
            .map(|d| {
                Line::from(vec![
                    Span::styled(format!("{} ", d.level.as_str()), TITLE),
                    Span::styled(
                        format!("{} ", d.lane().label()),
                        Style::new().fg(Color::Cyan),
                    ),
                    Span::raw(format!("{}: ", d.rule)),
                    Span::styled(clean(&d.message).into_owned(), DIM),
                ])
            })
            .collect();
        frame.render_widget(Paragraph::new(lines), list_area);
    }
    let parts = if wide {
        Layout::horizontal([Constraint::Fill(1); 3])
            .spacing(1)
            .split(rest)
    } else {
        Layout::vertical([Constraint::Fill(1); 3]).split(rest)
    };
    let sides: [(&str, Side<'_>); 3] = [
        (
            "recorded",
            match &call.recorded {
                Some(result) => Side::Result(result),
                None if call.is_memory() => Side::Note("none in the transcript".to_string()),
                None => Side::Note("not a memory call".to_string()),
            },
        ),
        ("backend", side(step.backend.as_ref())),
        ("reference", side(step.reference.as_ref())),
    ];
    for (n, ((name, side), area)) in sides.iter().zip(parts.iter()).enumerate() {
        block(frame, *area, app, name, side, n);
    }
    parts.to_vec()
}

enum Side<'a> {
    Result(&'a ToolResult),
    Note(String),
}

fn side(answer: Option<&Answer>) -> Side<'_> {
    match answer {
        Some(Answer::Result(result)) => Side::Result(result),
        Some(Answer::Broke(why)) => Side::Note(format!("broke: {why}")),
        Some(Answer::NotRun(why)) => Side::Note(why.clone()),
        None => Side::Note("not replayed".to_string()),
    }
}

/// Draws result `n` (recorded, backend, reference).
fn block(frame: &mut Frame<'_>, area: Rect, app: &App, name: &str, side: &Side<'_>, n: usize) {
    // The step's line index, when it is this step's (it is built on selection).
    let index = match &app.result_lines {
        (Some(i), indexes) if *i == app.selected() => indexes[n].as_ref(),
        _ => None,
    };
    let title = match side {
        Side::Result(result) => format!(
            " {name} · is_error: {} · {} line(s) ",
            result.is_error,
            index.map_or_else(|| line_count(&result.text), |ix| ix.newlines() + 1)
        ),
        Side::Note(_) => format!(" {name} "),
    };
    let block = Block::new()
        .borders(Borders::TOP)
        .border_style(DIM)
        .title(Span::styled(title, TITLE));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let lines: Vec<Line<'_>> = match side {
        Side::Result(result) if result.text.is_empty() => {
            vec![Line::from(Span::styled("(empty)", DIM))]
        }
        Side::Result(result) => {
            visible_lines(&result.text, index, app.scroll, usize::from(inner.height))
                .iter()
                .map(|runs| {
                    Line::from(cut(
                        runs,
                        SAME,
                        app.hscroll,
                        usize::from(inner.width),
                        &app.query,
                    ))
                })
                .collect()
        }
        Side::Note(note) => {
            // A note (how the backend broke) is prose: wrapped, not scrolled sideways.
            let note = Paragraph::new(Span::styled(clean(note).into_owned(), DIM))
                .wrap(Wrap { trim: false });
            frame.render_widget(note, inner);
            return;
        }
    };
    frame.render_widget(Paragraph::new(lines), inner);
}
