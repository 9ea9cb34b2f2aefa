//! The selected step's verdict (with the spec sentence it breaks), the tab bar, and the input.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::steps::mark_style;
use super::text::{DIM, TITLE, clean, fit};
use crate::judge::Check;
use crate::tui::model::{App, DiffLayout, Tab};

/// Lines the verdict section needs at most.
pub(crate) const VERDICT_HEIGHT: u16 = 5;

/// The verdict: kind, step, the divergence it is about, the rule it breaks (id, what it
/// means, and, with room, the spec's own sentence).
pub(crate) fn verdict(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let i = app.selected();
    let (call, step) = app.step(i);
    let verdict = &step.verdict;
    let kind = verdict.kind;
    let mut lines = vec![Line::from(vec![
        Span::styled(
            format!("{} {}", kind.mark(), kind.short()),
            mark_style(kind).add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!(" · step {}/{} · ", i + 1, app.replay().steps.len()),
            DIM,
        ),
    ])];
    if let Some(n) = app.follows(i).filter(|_| kind.diverges()) {
        lines[0].spans.push(Span::styled(
            format!("follows step {n} · "),
            Style::new().fg(Color::Yellow),
        ));
    }
    lines[0]
        .spans
        .push(Span::raw(clean(&call.summary()).into_owned()));
    let mut rule_lines = Vec::new();
    // A security finding is what the step is about, whatever the levels say.
    let headline = verdict
        .divergences
        .iter()
        .find(|d| d.security)
        .or_else(|| verdict.headline());
    if let Some(headline) = headline {
        let finding = &headline;
        let mut spans = Vec::new();
        if headline.security {
            spans.push(Span::styled(
                "⚑ SECURITY",
                mark_style(crate::replay::StepKind::Security),
            ));
            spans.push(Span::raw(" · "));
        }
        spans.extend([
            Span::styled(headline.lane().label(), Style::new().fg(Color::Cyan)),
            Span::raw(" · "),
            Span::styled(finding.level.as_str(), TITLE),
            Span::raw(" "),
            Span::styled(
                finding.rule.to_string(),
                Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            ),
        ]);
        // A text difference is said by the pair; anything else needs its message.
        let say = match (&finding.dialect, &headline.open) {
            (Some(names), _) => format!(" · dialect: {names}"),
            (None, Some(names)) => format!(" · open: {names}"),
            (None, None) if finding.check == Check::Text => String::new(),
            (None, None) => format!(" · {}", clean(&finding.message)),
        };
        spans.push(Span::raw(say));
        let others = verdict.divergences.len() - 1;
        if others > 0 {
            spans.push(Span::styled(format!(" (+{others} more: 2 Results)"), DIM));
        }
        lines.push(Line::from(spans));
        let rule = app.spec.as_ref().and_then(|s| s.get(finding.rule.as_str()));
        if let Some(rule) = rule {
            if !rule.summary.is_empty() {
                rule_lines.push(Line::from(Span::raw(rule.summary.clone())));
            }
            if !rule.text.is_empty() {
                rule_lines.push(Line::from(vec![
                    Span::styled("spec: ", DIM),
                    Span::styled(
                        rule.text.clone(),
                        Style::new().add_modifier(Modifier::ITALIC),
                    ),
                ]));
            }
        }
    } else if let Some(reason) = &verdict.reason {
        lines.push(Line::from(Span::styled(clean(reason).into_owned(), DIM)));
    } else {
        lines.push(Line::from(Span::styled(
            "the recorded, backend and reference results agree",
            DIM,
        )));
    }
    if let Some(review) = app.review() {
        // The review line goes before the rule's sentences, so that it stays in view.
        lines.push(match review.decisions.get(i).copied().flatten() {
            Some(decision) => Line::from(vec![
                Span::styled(
                    format!(
                        "changed since the recording · decision: {} ",
                        decision.mark()
                    ),
                    Style::new().fg(Color::Yellow),
                ),
                Span::styled("a accept · r reject · s skip", DIM),
            ]),
            None => Line::from(Span::styled("unchanged since the recording", DIM)),
        });
    }
    lines.extend(rule_lines);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}

/// The compact layout's tab bar, with what the diff compares on the right.
pub(crate) fn tabs(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let mut spans = Vec::new();
    for (n, tab) in Tab::ALL.iter().enumerate() {
        let label = format!("{} {}", n + 1, tab.title());
        if *tab == app.tab {
            spans.push(Span::styled(
                format!("[{label}]"),
                Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED),
            ));
        } else {
            spans.push(Span::styled(format!(" {label} "), DIM));
        }
        spans.push(Span::raw(" "));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// `recorded ≠ reference · unified`.
pub(crate) fn diff_caption(app: &App) -> String {
    let layout = match app.layout {
        DiffLayout::Unified => "unified",
        DiffLayout::SideBySide => "side by side",
    };
    format!("{} · {layout}", app.source_label(app.current_source()))
}

/// The tool input, pretty-printed (JSON escapes keep whitespace visible), with where it is.
pub(crate) fn input(frame: &mut Frame<'_>, area: Rect, app: &App, bordered: bool) {
    let (call, _) = app.step(app.selected());
    let area = if bordered {
        let block = Block::new()
            .borders(Borders::TOP)
            .border_style(DIM)
            .title(Span::styled(" Input ", TITLE));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        inner
    } else {
        area
    };
    let place = match call.line {
        Some(line) => format!("{}:{line}", app.replay().transcript.source),
        None => app.replay().transcript.source.clone(),
    };
    let mut lines = vec![Line::from(Span::styled(
        fit(
            &format!("{} {} · {place}", call.name, call.id),
            usize::from(area.width),
        ),
        DIM,
    ))];
    if bordered {
        // The wide layout has a few lines for it: the compact JSON, wrapped.
        let room = usize::from(area.width) * usize::from(area.height);
        lines.push(Line::raw(
            clean(&json_prefix(&call.input, false, room, 1)).into_owned(),
        ));
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
        return;
    }
    let rows = app.scroll + usize::from(area.height);
    let pretty = json_prefix(&call.input, true, INPUT_LINE_LIMIT * rows, rows);
    lines.extend(
        pretty
            .lines()
            .skip(app.scroll)
            .take(usize::from(area.height))
            .map(|l| {
                Line::raw(clean(&l.chars().skip(app.hscroll).collect::<String>()).into_owned())
            }),
    );
    frame.render_widget(Paragraph::new(lines), area);
}

/// Bytes of the input's JSON kept per line shown: a `create` of a million-line file is one
/// JSON line of many megabytes, and a frame needs only its start.
const INPUT_LINE_LIMIT: usize = 64 * 1024;

/// The start of `value` as JSON (pretty or compact): at most `bytes` bytes or `lines` lines,
/// whichever comes first. Serialisation stops there instead of writing the whole input on
/// every frame.
fn json_prefix(value: &serde_json::Value, pretty: bool, bytes: usize, lines: usize) -> String {
    struct Prefix {
        out: Vec<u8>,
        bytes: usize,
        lines: usize,
        newlines: usize,
    }
    impl std::io::Write for Prefix {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let room = self.bytes.saturating_sub(self.out.len());
            if room == 0 || self.newlines >= self.lines {
                // Enough: an error ends the serialisation.
                return Err(std::io::Error::other("enough"));
            }
            let take = buf.len().min(room);
            self.newlines += memchr::memchr_iter(b'\n', &buf[..take]).count();
            self.out.extend_from_slice(&buf[..take]);
            Ok(take)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut prefix = Prefix {
        out: Vec::new(),
        bytes,
        lines,
        newlines: 0,
    };
    // An error only says the prefix is full.
    let _ = if pretty {
        serde_json::to_writer_pretty(&mut prefix, value)
    } else {
        serde_json::to_writer(&mut prefix, value)
    };
    String::from_utf8_lossy(&prefix.out).into_owned()
}
