//! The header (file, backend, counts) and the hint bar (generated from the keymap table; the
//! search prompt takes its place while typing).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::steps::mark_style;
use super::text::{DIM, TITLE, clean, fit};
use crate::replay::StepKind;
use crate::tui::keymap;
use crate::tui::model::App;

/// `memspec replay · file · counts · backend · format`: what does not fit is cut from the
/// right, so the counts go before the longer labels.
pub(crate) fn header(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let replay = app.replay();
    let name = std::path::Path::new(&replay.transcript.source)
        .file_name()
        .map_or(replay.transcript.source.clone(), |n| {
            n.to_string_lossy().into_owned()
        });
    let mut spans = vec![
        Span::styled(" memspec replay ", TITLE.add_modifier(Modifier::REVERSED)),
        Span::raw(format!(" {}  ", clean(&name))),
    ];
    let wide = area.width >= 120;
    // Security first, whatever else went wrong; then worst to best.
    let security = app.counts.iter().filter(|(k, _)| **k == StepKind::Security);
    let others = app
        .counts
        .iter()
        .rev()
        .filter(|(k, _)| **k != StepKind::Security);
    for (kind, n) in security.chain(others) {
        let label = if wide {
            format!(" {}", kind.short())
        } else {
            String::new()
        };
        spans.push(Span::styled(
            format!("{}{n}{label} ", kind.mark()),
            mark_style(*kind),
        ));
    }
    if app.consequences > 0 {
        let label = if wide { " follow" } else { "" };
        spans.push(Span::styled(format!("↳{}{label} ", app.consequences), DIM));
    }
    if let Some(review) = app.review() {
        let (accepted, rejected, skipped, pending) = review.tally();
        spans.push(Span::styled(
            format!(" review: {pending} to decide · {accepted} accepted · {rejected} rejected · {skipped} skipped "),
            Style::new().fg(Color::Yellow),
        ));
    }
    spans.push(Span::styled(
        format!(" backend: {} ", clean(&replay.backend)),
        Style::new().fg(Color::Cyan),
    ));
    spans.push(Span::styled(
        format!("({})", replay.transcript.format.describe()),
        DIM,
    ));
    let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
    if used > usize::from(area.width) {
        // Cut the last spans to fit rather than letting the terminal do it mid-count.
        let mut room = usize::from(area.width);
        spans = spans
            .into_iter()
            .map_while(|span| {
                let len = span.content.chars().count();
                if room == 0 {
                    return None;
                }
                let kept = if len <= room {
                    span
                } else {
                    Span::styled(fit(&span.content, room), span.style)
                };
                room = room.saturating_sub(len);
                Some(kept)
            })
            .collect();
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The hint bar, or the prompt while typing a search.
pub(crate) fn footer(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let mut spans: Vec<Span<'_>> = Vec::new();
    if let Some(prompt) = &app.prompt {
        spans.push(Span::styled(
            format!("/{}", clean(prompt)),
            Style::new().add_modifier(Modifier::BOLD),
        ));
        spans.push(Span::styled(
            "█ ",
            Style::new().add_modifier(Modifier::SLOW_BLINK),
        ));
    } else if !app.query.is_empty() {
        let at = app
            .match_position()
            .map_or("-".to_string(), |p| p.to_string());
        spans.push(Span::styled(
            format!("[{at}/{}] “{}” ", app.matches.len(), clean(&app.query)),
            Style::new().fg(Color::Yellow),
        ));
    }
    if let Some(status) = &app.status {
        spans.push(Span::styled(
            format!("{}  ", clean(status)),
            Style::new().fg(Color::Yellow),
        ));
    }
    let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
    let cost = |(key, word): &(String, &str)| key.chars().count() + word.chars().count() + 3;
    // Help and quit always keep their place: with them a user can find everything else.
    let (last, first): (Vec<_>, Vec<_>) = keymap::hints(app.context())
        .into_iter()
        .partition(|(_, word)| matches!(*word, "help" | "quit" | "close help"));
    let mut room =
        usize::from(area.width).saturating_sub(used + last.iter().map(cost).sum::<usize>());
    let mut shown = Vec::new();
    for hint in first {
        if cost(&hint) > room {
            break;
        }
        room -= cost(&hint);
        shown.push(hint);
    }
    for (key, word) in shown.into_iter().chain(last) {
        spans.push(Span::styled(
            key,
            Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
        ));
        spans.push(Span::styled(format!(" {word}  "), DIM));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
