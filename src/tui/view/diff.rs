//! The diff pane: the compared pair's texts, unified or side by side, with line numbers,
//! whitespace glyphs and changed words emphasised.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::text::{ACTUAL, DIM, EXPECTED, TITLE, clean, cut, fit, line_style, paint};
use crate::diff::{LineTag, thousands};
use crate::tui::fold::{Row, Side, SideRow};
use crate::tui::model::{App, DiffLayout, Source};

/// Draws the pane; `title` adds a top border naming it (the wide layout). Returns the
/// horizontal scroll it settled on when the app asked it to show a column.
pub(crate) fn draw(frame: &mut Frame<'_>, area: Rect, app: &App, title: bool) -> Option<usize> {
    let block = Block::new().borders(Borders::TOP).border_style(DIM);
    let inner = if title { block.inner(area) } else { area };
    let (call, step) = app.step(app.selected());
    if !app.diff.available || inner.height == 0 {
        if title {
            let caption = format!(" Diff · {} ", super::detail::diff_caption(app));
            frame.render_widget(block.title(Span::styled(caption, TITLE)), area);
        }
        let why = match (&step.verdict.reason, call.is_memory()) {
            (Some(reason), _) => clean(reason).into_owned(),
            (None, false) => "not a memory call: nothing was replayed".to_string(),
            (None, true) => {
                "nothing to compare: this pair lacks a result (no recorded result?)".to_string()
            }
        };
        frame.render_widget(
            Paragraph::new(Span::styled(why, DIM)).wrap(ratatui::widgets::Wrap { trim: false }),
            inner,
        );
        return None;
    }
    let [legend_area, body] =
        Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(inner);
    let digits = digits(app.diff.folded.widest_number());
    let side = app.layout == DiffLayout::SideBySide;
    let halves = Layout::horizontal([Constraint::Fill(1), Constraint::Fill(1)])
        .spacing(1)
        .areas::<2>(body);
    // Columns left for text after the gutter (`12 12│` and the sign).
    let text_width = if side {
        usize::from(halves[0].width).saturating_sub(digits + 2)
    } else {
        usize::from(body.width).saturating_sub(2 * digits + 4)
    };
    let settled = app.reveal.map(|column| reveal(column, text_width));
    let hscroll = settled.unwrap_or(app.hscroll);
    let column = if hscroll > 0 {
        format!(" · col {}", hscroll + 1)
    } else {
        String::new()
    };
    if title {
        let caption = format!(" Diff · {}{column} ", super::detail::diff_caption(app));
        frame.render_widget(block.title(Span::styled(caption, TITLE)), area);
    }
    let source = app.current_source();
    let (left, right) = source.sides();
    let mut legend = Vec::new();
    if let Source::File(i) = source {
        let path = step.files.get(i).map_or("", |f| f.path.as_str());
        legend.push(Span::styled(format!("{}  ", clean(path)), TITLE));
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
        _ if app.diff.folded.identical() => {
            let hint = if step.files.is_empty() {
                ""
            } else {
                " (p: the files that differ)"
            };
            legend.push(Span::styled(format!("   identical{hint}"), DIM));
        }
        _ => {}
    }
    if !title && hscroll > 0 {
        // The compact layout has no title: the legend says how far the lines are scrolled.
        legend.push(Span::styled(format!("  col {}", hscroll + 1), TITLE));
    }
    frame.render_widget(Paragraph::new(Line::from(legend)), legend_area);
    let Some(texts) = app.diff_texts() else {
        return settled;
    };
    let view = View {
        texts,
        digits,
        hscroll,
        width: text_width,
        query: &app.query,
    };
    if side {
        side_by_side(frame, halves, app, &view);
    } else {
        unified(frame, body, app, &view);
    }
    settled
}

/// The horizontal scroll that shows `column` in `width` columns of text: none when it is in
/// view already, else a third of the pane before it (so what leads up to it shows too).
pub(crate) fn reveal(column: usize, width: usize) -> usize {
    if column + 1 < width {
        0
    } else {
        column.saturating_sub((width / 3).max(1))
    }
}

/// What every row of a frame is drawn with.
struct View<'a> {
    texts: (&'a str, &'a str),
    digits: usize,
    hscroll: usize,
    width: usize,
    query: &'a str,
}

/// `⋯ 1,234 unchanged lines (Enter expands)`.
fn fold_text(lines: usize) -> String {
    let plural = if lines == 1 { "" } else { "s" };
    format!(
        "  ⋯ {} unchanged line{plural} (Enter expands)",
        thousands(lines)
    )
}

/// The line standing for a folded unchanged run, in `width` columns.
fn fold_line(gutter: usize, text: &str, width: usize) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{}│", " ".repeat(gutter)), DIM),
        Span::styled(
            fit(text, width.saturating_sub(gutter + 1)),
            DIM.add_modifier(Modifier::ITALIC),
        ),
    ])
}

fn unified(frame: &mut Frame<'_>, area: Rect, app: &App, view: &View<'_>) {
    let folded = &app.diff.folded;
    let width = view.digits;
    let number = |n: Option<usize>| n.map_or(" ".repeat(width), |n| format!("{n:>width$}"));
    let from = app.scroll.min(folded.rows(false).saturating_sub(1));
    let lines: Vec<Line<'_>> = folded
        .unified(view.texts, from, usize::from(area.height))
        .into_iter()
        .map(|row| match row {
            Row::Fold(n) => fold_line(2 * width + 1, &fold_text(n), usize::from(area.width)),
            Row::Line { old, new, line } => {
                let (sign, gutter) = gutter(line.tag);
                let mut spans = vec![
                    Span::styled(format!("{} {}│", number(old), number(new)), gutter),
                    Span::styled(format!("{sign} "), line_style(line.tag)),
                ];
                spans.extend(cut(
                    &paint(&line),
                    line_style(line.tag),
                    view.hscroll,
                    view.width,
                    view.query,
                ));
                Line::from(spans)
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

fn side_by_side(
    frame: &mut Frame<'_>,
    [left_area, right_area]: [Rect; 2],
    app: &App,
    view: &View<'_>,
) {
    let folded = &app.diff.folded;
    let from = app.scroll.min(folded.rows(true).saturating_sub(1));
    let (left, right): (Vec<Line<'_>>, Vec<Line<'_>>) = folded
        .side_by_side(view.texts, from, usize::from(left_area.height))
        .into_iter()
        .map(|row| match row {
            SideRow::Fold(n) => {
                let width = usize::from(left_area.width);
                // Half a pane is narrow: the count left, the key right.
                (
                    fold_line(
                        view.digits,
                        &format!("  ⋯ {} unchanged", thousands(n)),
                        width,
                    ),
                    fold_line(view.digits, "  ⋯ Enter expands", width),
                )
            }
            SideRow::Pair(left, right) => (side(left, view), side(right, view)),
        })
        .unzip();
    frame.render_widget(Paragraph::new(left), left_area);
    frame.render_widget(Paragraph::new(right), right_area);
}

fn side(numbered: Side, view: &View<'_>) -> Line<'static> {
    let width = view.digits;
    let Some((number, line)) = numbered else {
        return Line::from(Span::styled(format!("{}│", "·".repeat(width)), DIM));
    };
    let (sign, gutter) = gutter(line.tag);
    let mut spans = vec![
        Span::styled(format!("{number:>width$}│"), gutter),
        Span::styled(sign, line_style(line.tag)),
    ];
    spans.extend(cut(
        &paint(&line),
        line_style(line.tag),
        view.hscroll,
        view.width,
        view.query,
    ));
    Line::from(spans)
}

/// The sign and gutter style of a line.
fn gutter(tag: LineTag) -> (&'static str, Style) {
    match tag {
        LineTag::Same => (" ", DIM),
        LineTag::Expected => ("-", EXPECTED.add_modifier(Modifier::BOLD)),
        LineTag::Actual => ("+", ACTUAL.add_modifier(Modifier::BOLD)),
    }
}

fn digits(n: usize) -> usize {
    n.to_string().len()
}

#[cfg(test)]
mod tests {
    use super::reveal;

    #[test]
    fn a_column_in_view_needs_no_scroll() {
        assert_eq!(reveal(0, 50), 0);
        assert_eq!(reveal(48, 50), 0);
    }

    #[test]
    fn a_column_past_the_edge_lands_a_third_in() {
        // At 80 columns the diff has about 50 for text: a change at 120 shows at 16.
        assert_eq!(reveal(49, 50), 33);
        assert_eq!(reveal(120, 50), 104);
        assert_eq!(reveal(5, 2), 4);
    }
}
