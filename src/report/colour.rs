//! Colour for the human report: the verdict, outcome labels, harm labels and diff lines styled by
//! what they are. The report is rendered plain; [`paint`] styles its lines by their shape, and
//! the caller's stream (`anstream`) keeps or strips the styles as `--color` and `NO_COLOR` say.

use anstyle::{AnsiColor, Effects, Style};

fn style(color: AnsiColor, bold: bool) -> Style {
    let style = Style::new().fg_color(Some(color.into()));
    if bold {
        style.effects(Effects::BOLD)
    } else {
        style
    }
}

/// The style of one line of the human report, by its shape.
fn line_style(line: &str) -> Option<Style> {
    let trimmed = line.trim_start();
    if line.starts_with("verdict: ") {
        return Some(if line.starts_with("verdict: conformant") {
            style(AnsiColor::Green, true)
        } else {
            style(AnsiColor::Red, true)
        });
    }
    for (prefix, color) in [
        ("FAIL ", AnsiColor::Red),
        ("ERROR ", AnsiColor::Magenta),
        ("WARN ", AnsiColor::Yellow),
    ] {
        if line.starts_with(prefix) {
            return Some(style(color, true));
        }
    }
    if trimmed.starts_with("SECURITY ") || trimmed.starts_with("DATA LOSS ") {
        return Some(style(AnsiColor::Red, true));
    }
    // Diff lines sit six spaces in: `- expected`, `+ actual`.
    if line.starts_with("      - ") {
        return Some(style(AnsiColor::Red, false));
    }
    if line.starts_with("      + ") {
        return Some(style(AnsiColor::Green, false));
    }
    if trimmed.starts_with("rerun: ") {
        return Some(Style::new().effects(Effects::DIMMED));
    }
    None
}

/// `human` (a rendered human report) with each line styled by its shape.
pub fn paint(human: &str) -> String {
    let mut out = String::with_capacity(human.len() + human.len() / 8);
    for (i, line) in human.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match line_style(line) {
            Some(style) => out.push_str(&format!("{style}{line}{style:#}")),
            None => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_styled_by_their_shape_and_nothing_else_changes() {
        let report = "verdict: NOT conformant\nFAIL a.case\n  rerun: memspec check\n      - old\n      + new\nplain";
        let painted = paint(report);
        assert!(
            painted.contains("\u{1b}[1m\u{1b}[31mverdict: NOT conformant\u{1b}[0m"),
            "{painted:?}"
        );
        assert!(painted.ends_with("\nplain"));
        let stripped: String = anstream::adapter::strip_str(&painted).to_string();
        assert_eq!(stripped, report);
    }
}
