//! The diff pane: the compared pair's texts, unified or side by side, with line numbers,
//! whitespace glyphs and changed words emphasised.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::text::{ACTUAL, DIM, EXPECTED, TITLE, diff_spans, line_style};
use crate::diff::{LineTag, Numbered};
use crate::tui::model::{App, DiffLayout, Source};

/// Draws the pane; `title` adds a top border naming it (the wide layout).
pub(crate) fn draw(frame: &mut Frame<'_>, area: Rect, app: &App, title: bool) {
    let area = if title {
        let block = Block::new()
            .borders(Borders::TOP)
            .border_style(DIM)
            .title(Span::styled(
                format!(" Diff · {} ", super::detail::diff_caption(app)),
                TITLE,
            ));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        inner
    } else {
        area
    };
    if area.height == 0 {
        return;
    }
    let (call, step) = app.step(app.selected());
    if !app.diff.available {
        let why = match (&step.verdict.reason, call.is_memory()) {
            (Some(reason), _) => reason.clone(),
            (None, false) => "not a memory call: nothing was replayed".to_string(),
            (None, true) => {
                "nothing to compare: this pair lacks a result (no recorded result?)".to_string()
            }
        };
        frame.render_widget(
            Paragraph::new(Span::styled(why, DIM)).wrap(ratatui::widgets::Wrap { trim: false }),
            area,
        );
        return;
    }
    let source = app.current_source();
    let (left, right) = source.sides();
    let mut legend = Vec::new();
    if let Source::File(i) = source {
        let path = step.files.get(i).map_or("", |f| f.path.as_str());
        legend.push(Span::styled(format!("{path}  "), TITLE));
    }
    legend.extend([
        Span::styled(format!("--- {left}"), EXPECTED),
        Span::raw("  "),
        Span::styled(format!("+++ {right}"), ACTUAL),
    ]);
    match app.diff.flags {
        Some((expected_flag, actual_flag)) if expected_flag != actual_flag => {
            legend.push(Span::styled(
                format!("   is_error: {expected_flag} → {actual_flag}"),
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            ))
        }
        _ if app.diff.lines.iter().all(|l| l.tag == LineTag::Same) => {
            let hint = if step.files.is_empty() {
                ""
            } else {
                " (p: the files that differ)"
            };
            legend.push(Span::styled(format!("   identical{hint}"), DIM));
        }
        _ => {}
    }
    let [legend_area, body] =
        Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(area);
    frame.render_widget(Paragraph::new(Line::from(legend)), legend_area);
    match app.layout {
        DiffLayout::Unified => unified(frame, body, app),
        DiffLayout::SideBySide => side_by_side(frame, body, app),
    }
}

fn unified(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let view = &app.diff;
    let width = digits(
        view.numbers
            .iter()
            .filter_map(|(a, b)| a.or(*b))
            .max()
            .unwrap_or(1),
    );
    let number = |n: Option<usize>| n.map_or(" ".repeat(width), |n| format!("{n:>width$}"));
    let lines: Vec<Line<'_>> = view
        .lines
        .iter()
        .zip(&view.numbers)
        .skip(app.scroll)
        .take(usize::from(area.height))
        .map(|(line, (left, right))| {
            let (sign, gutter) = match line.tag {
                LineTag::Same => (" ", DIM),
                LineTag::Expected => ("-", EXPECTED.add_modifier(Modifier::BOLD)),
                LineTag::Actual => ("+", ACTUAL.add_modifier(Modifier::BOLD)),
            };
            let mut spans = vec![
                Span::styled(format!("{} {}│", number(*left), number(*right)), gutter),
                Span::styled(format!("{sign} "), line_style(line.tag)),
            ];
            spans.extend(diff_spans(line, app.hscroll));
            Line::from(spans)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

fn side_by_side(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let rows = &app.diff.rows;
    let width = digits(
        rows.iter()
            .flat_map(|r| [r.left.as_ref(), r.right.as_ref()])
            .flatten()
            .map(|n| n.number)
            .max()
            .unwrap_or(1),
    );
    let [left_area, right_area] = Layout::horizontal([Constraint::Fill(1), Constraint::Fill(1)])
        .spacing(1)
        .areas(area);
    let visible = rows.iter().skip(app.scroll).take(usize::from(area.height));
    let (left, right): (Vec<Line<'_>>, Vec<Line<'_>>) = visible
        .map(|row| {
            (
                side(row.left.as_ref(), width, app.hscroll),
                side(row.right.as_ref(), width, app.hscroll),
            )
        })
        .unzip();
    frame.render_widget(Paragraph::new(left), left_area);
    frame.render_widget(Paragraph::new(right), right_area);
}

fn side(numbered: Option<&Numbered>, width: usize, skip: usize) -> Line<'static> {
    let Some(numbered) = numbered else {
        return Line::from(Span::styled(format!("{}│", "·".repeat(width)), DIM));
    };
    let line = &numbered.line;
    let (sign, gutter) = match line.tag {
        LineTag::Same => (" ", DIM),
        LineTag::Expected => ("-", EXPECTED.add_modifier(Modifier::BOLD)),
        LineTag::Actual => ("+", ACTUAL.add_modifier(Modifier::BOLD)),
    };
    let mut spans = vec![
        Span::styled(format!("{:>width$}│", numbered.number), gutter),
        Span::styled(sign, line_style(line.tag)),
    ];
    spans.extend(diff_spans(line, skip));
    Line::from(spans)
}

fn digits(n: usize) -> usize {
    n.to_string().len()
}
