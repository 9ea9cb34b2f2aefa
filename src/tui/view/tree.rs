//! The backend's memory folder after the step, marked where it differs from the reference's:
//! `≠` content differs, `+` only in the backend's, `-` missing from it.

use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::text::{DIM, TITLE, fit, human_size};
use crate::diff;
use crate::exec::tree::{Difference, Entry, EntryKind, Tree, compare_paths};
use crate::tui::model::{App, GLYPHS};

/// Draws the tree; `scroll` lines are skipped; `column` closes it on the right like the step
/// list above it (the wide layout).
pub(crate) fn draw(frame: &mut Frame<'_>, area: Rect, app: &App, scroll: usize, column: bool) {
    // A call to another tool changes nothing: show the folder as the last memory call left it.
    let found = (0..=app.selected())
        .rev()
        .find_map(|i| app.replay().steps[i].trees.as_ref().map(|t| (i, t)));
    let title = match found {
        Some((i, trees)) => {
            let whose = if trees.backend.is_some() {
                "backend's"
            } else {
                "reference's"
            };
            let since = trees
                .differ_since
                .map(|s| format!(" · differs from the reference's since step {}", s + 1))
                .unwrap_or_default();
            format!(" Memory folder ({whose}) after step {}{since} ", i + 1)
        }
        None => " Memory folder ".to_string(),
    };
    let borders = if column {
        Borders::TOP | Borders::RIGHT
    } else {
        Borders::TOP
    };
    let block = Block::new()
        .borders(borders)
        .border_style(DIM)
        .title(Span::styled(title, TITLE));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some((_, trees)) = found else {
        frame.render_widget(
            Paragraph::new(Span::styled("no memory call yet", DIM)),
            inner,
        );
        return;
    };
    let (shown, other): (&Tree, Option<&Tree>) = match &trees.backend {
        Some(backend) => (backend, Some(&trees.reference)),
        None => (&trees.reference, None),
    };
    let mut lines = Vec::new();
    if other.is_none() {
        lines.push(Line::from(Span::styled(
            "the backend does not keep its memories in the given folder; this is the reference's",
            DIM,
        )));
    }
    let marks: HashMap<String, Difference> = match other {
        Some(reference) => shown.differences(reference).into_iter().collect(),
        None => HashMap::new(),
    };
    let mut entries: Vec<(&Entry, Option<Difference>)> = shown
        .entries
        .iter()
        .map(|e| (&**e, marks.get(e.path.as_str()).copied()))
        .collect();
    if let Some(reference) = other {
        entries.extend(
            reference
                .entries
                .iter()
                .filter(|e| marks.get(e.path.as_str()) == Some(&Difference::OnlySecond))
                .map(|e| (&**e, Some(Difference::OnlySecond))),
        );
        entries.sort_by(|a, b| compare_paths(&a.0.path, &b.0.path));
    }
    if entries.is_empty() {
        lines.push(Line::from(Span::styled("(empty)", DIM)));
    }
    let width = usize::from(inner.width);
    let column = entries
        .iter()
        .map(|(e, _)| 2 * e.depth() + e.name().chars().count() + 3)
        .max()
        .unwrap_or(0)
        .min(width / 2);
    lines.extend(
        entries
            .iter()
            .skip(scroll)
            .take(usize::from(inner.height))
            .map(|(entry, mark)| {
                let (mark, style) = match mark {
                    None => (" ", Style::new()),
                    Some(Difference::Content) => ("≠", Style::new().fg(Color::Yellow)),
                    Some(Difference::OnlyFirst) => ("+", Style::new().fg(Color::Green)),
                    Some(Difference::OnlySecond) => ("-", Style::new().fg(Color::Red)),
                };
                let indent = "  ".repeat(entry.depth());
                let (name, detail) = match &entry.kind {
                    EntryKind::Dir => (format!("{}/", entry.name()), String::new()),
                    EntryKind::File => (
                        entry.name().to_string(),
                        format!(
                            "{:>6}  {}",
                            human_size(entry.size),
                            preview(&entry.head, entry.size)
                        ),
                    ),
                    EntryKind::Symlink { target } => {
                        (entry.name().to_string(), format!("→ {target}"))
                    }
                    EntryKind::Other => (entry.name().to_string(), "special file".to_string()),
                };
                let text = format!(
                    "{:<column$}",
                    fit(&format!("{indent}{name} "), column.max(1))
                );
                let rest = width.saturating_sub(2 + text.chars().count());
                Line::from(vec![
                    Span::styled(mark, style),
                    Span::raw(" "),
                    Span::styled(text, style),
                    Span::styled(fit(&detail, rest), DIM),
                ])
            }),
    );
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The first line of a file's first bytes, whitespace visible.
fn preview(head: &[u8], size: u64) -> String {
    let text = String::from_utf8_lossy(head);
    let first = text.split('\n').next().unwrap_or("");
    let more = first.len() < text.len() || (head.len() as u64) < size;
    let mut out = diff::visible_with(first, GLYPHS);
    if more {
        out.push_str(" ⏎…");
    }
    format!("\"{out}\"")
}
