//! Rendering: a pure function of [`App`] (apart from returning where things went, for the
//! mouse). Two layouts: compact (80x24 and up: step list and one tab of detail) and wide
//! (everything at once).

mod bars;
mod detail;
mod diff;
mod help;
mod results;
mod steps;
mod text;
mod tree;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};

use super::model::{App, Areas, Tab};
pub(crate) use text::first_emphasis;

/// Smallest size of the wide layout.
const WIDE: (u16, u16) = (120, 32);

/// Draws a frame.
pub fn draw(frame: &mut Frame<'_>, app: &App) -> Areas {
    let area = frame.area();
    let compact = area.width < WIDE.0 || area.height < WIDE.1;
    let [header, body, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let mut areas = Areas {
        compact,
        ..Areas::default()
    };
    if app.zoom {
        // The focused pane takes the body; the tab bar stays, so 1–4 pick what fills it.
        let [tabs, pane] = Layout::vertical([Constraint::Length(1), Constraint::Fill(1)])
            .areas(body.inner(ratatui::layout::Margin::new(1, 0)));
        detail::tabs(frame, tabs, app);
        areas.hscroll = tab(frame, pane, app);
        areas.compact = true;
        areas.detail = vec![pane];
        areas.detail_height = pane.height;
    } else if compact {
        let list_width = (area.width * 34 / 100).clamp(24, 44);
        let [left, right] =
            Layout::horizontal([Constraint::Length(list_width), Constraint::Fill(1)]).areas(body);
        (areas.steps, areas.steps_offset) = steps::draw(frame, left, app);
        let [verdict, tabs, pane] = Layout::vertical([
            Constraint::Length(detail::VERDICT_HEIGHT),
            Constraint::Length(1),
            Constraint::Fill(1),
        ])
        .areas(right.inner(ratatui::layout::Margin::new(1, 0)));
        detail::verdict(frame, verdict, app);
        detail::tabs(frame, tabs, app);
        areas.hscroll = tab(frame, pane, app);
        areas.detail = vec![pane];
        areas.detail_height = pane.height;
    } else {
        let list_width = (area.width / 4).clamp(32, 56);
        let [left, right] =
            Layout::horizontal([Constraint::Length(list_width), Constraint::Fill(1)]).areas(body);
        let [list, folder] =
            Layout::vertical([Constraint::Percentage(55), Constraint::Fill(1)]).areas(left);
        (areas.steps, areas.steps_offset) = steps::draw(frame, list, app);
        let right = right.inner(ratatui::layout::Margin::new(1, 0));
        let [verdict, input, results, diff_area] = Layout::vertical([
            Constraint::Length(detail::VERDICT_HEIGHT),
            Constraint::Length(4),
            Constraint::Percentage(35),
            Constraint::Fill(1),
        ])
        .areas(right);
        detail::verdict(frame, verdict, app);
        detail::input(frame, input, app, true);
        let mut panes = results::draw(frame, results, app, true);
        areas.hscroll = diff::draw(frame, diff_area, app, true);
        tree::draw(frame, folder, app, 0, true);
        panes.push(diff_area);
        areas.detail = panes;
        areas.detail_height = diff_area.height;
    }
    bars::header(frame, header, app);
    bars::footer(frame, footer, app);
    if app.help {
        help::draw(frame, area, app.help_scroll);
    }
    areas
}

/// Draws the selected tab into `pane` (the compact and zoomed layouts); the diff's settled
/// horizontal scroll, when it moved to show a column.
fn tab(frame: &mut Frame<'_>, pane: ratatui::layout::Rect, app: &App) -> Option<usize> {
    match app.tab {
        Tab::Diff => return diff::draw(frame, pane, app, false),
        Tab::Results => {
            results::draw(frame, pane, app, false);
        }
        Tab::Tree => tree::draw(frame, pane, app, app.scroll, false),
        Tab::Input => detail::input(frame, pane, app, false),
    }
    None
}
