//! The selected step's diff: how it is laid out, computed once per selection and source, and
//! moving through its changes and folds.

use super::source::texts_of;
use super::{App, Source, Tab};
use crate::diff::{CONTEXT_LINES, thousands};
use crate::replay::texts;
use crate::tui::fold::Folded;
use crate::tui::view;

/// How the diff is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffLayout {
    /// One column, `-` and `+` lines.
    Unified,
    /// Expected left, actual right.
    SideBySide,
}

/// The diff of the selected step's compared pair, computed once per selection and source:
/// segments over the two texts, which stay in the replay (see [`crate::tui::fold`]).
#[derive(Debug, Default)]
pub(crate) struct DiffView {
    pub(super) key: Option<(usize, Source)>,
    /// Whether there is anything to compare.
    pub(crate) available: bool,
    /// The line diff, folded.
    pub(crate) folded: Folded,
    /// `is_error` of (expected side, actual side), when comparing results.
    pub(crate) flags: Option<(bool, bool)>,
}

impl App {
    /// The texts the diff compares: (expected, actual).
    pub(crate) fn diff_texts(&self) -> Option<(&str, &str)> {
        texts_of(&self.replay, self.selected, self.current_source())
    }

    /// First rows of the diff's changes in the current layout.
    fn change_rows(&self) -> Vec<(usize, usize)> {
        let side = self.layout == DiffLayout::SideBySide;
        self.diff.folded.changes(side).collect()
    }

    /// Where the diff is scrolled to show the change starting at `row`: its context and the
    /// fold before it in view above it.
    fn change_scroll(row: usize) -> usize {
        row.saturating_sub(CONTEXT_LINES + 1)
    }

    /// The change (index) the diff is on in a layout: the last one scrolled to or past.
    pub(super) fn current_change(&self, side: bool) -> Option<usize> {
        self.diff
            .folded
            .changes(side)
            .take_while(|(row, _)| Self::change_scroll(*row) <= self.scroll)
            .count()
            .checked_sub(1)
    }

    /// Scrolls the diff to change `n` (from 0) and asks the pane to show its first changed
    /// column.
    pub(super) fn go_to_change(&mut self, n: usize) {
        let changes = self.change_rows();
        let Some(&(row, segment)) = changes.get(n) else {
            return;
        };
        self.scroll = Self::change_scroll(row);
        let column = self.diff_texts().map_or(0, |texts| {
            self.diff
                .folded
                .block_lines(texts, segment)
                .iter()
                .filter_map(view::first_emphasis)
                .min()
                .unwrap_or(0)
        });
        self.reveal = Some(column);
    }

    /// `]` and `[`: the next or previous change of the diff.
    pub(super) fn walk_change(&mut self, forward: bool) {
        self.tab = Tab::Diff;
        let changes = self.change_rows();
        if changes.is_empty() {
            self.status = Some("no change in this diff (n: the next divergence)".to_string());
            return;
        }
        let target = if forward {
            changes
                .iter()
                .position(|(row, _)| Self::change_scroll(*row) > self.scroll)
        } else {
            changes
                .iter()
                .rposition(|(row, _)| Self::change_scroll(*row) < self.scroll)
        };
        match target {
            Some(n) => {
                self.go_to_change(n);
                let line = self.diff.folded.first_line(changes[n].1);
                self.status = Some(format!(
                    "change {}/{} · line {}",
                    n + 1,
                    changes.len(),
                    thousands(line)
                ));
            }
            None if forward => {
                self.status = Some(format!(
                    "last change of this diff ({}) · n: the next divergence",
                    changes.len()
                ))
            }
            None => self.status = Some("first change of this diff".to_string()),
        }
    }

    /// Enter: expands the folded run in view, or folds back the one the view is in.
    pub(super) fn toggle_fold(&mut self) {
        self.tab = Tab::Diff;
        let side = self.layout == DiffLayout::SideBySide;
        let height = usize::from(self.areas.detail_height.saturating_sub(1).max(1));
        match self.diff.folded.toggle_in_view(side, self.scroll, height) {
            Some((true, lines, _)) => {
                self.status = Some(format!(
                    "expanded {} unchanged line{} (Enter folds them back)",
                    thousands(lines),
                    if lines == 1 { "" } else { "s" }
                ));
            }
            Some((false, lines, row)) => {
                self.scroll = self.scroll.min(row);
                self.status = Some(format!("folded {} unchanged lines", thousands(lines)));
            }
            None => self.status = Some("no folded lines in view".to_string()),
        }
    }

    /// Recomputes the diff when the selection or the source changed.
    pub(super) fn sync(&mut self) {
        let source = self.current_source();
        let key = Some((self.selected, source));
        if self.diff.key == key {
            return;
        }
        let (call, step) = self.step(self.selected);
        let flags = match source {
            Source::Results(pair) => texts(call, step, pair).map(|(e, a)| (e.is_error, a.is_error)),
            Source::File(_) => None,
        };
        let texts = texts_of(&self.replay, self.selected, source);
        // The old diff goes first: two of a long step's would double the peak.
        self.diff = DiffView::default();
        let folded = texts.map_or_else(Folded::default, |(e, a)| Folded::new(e, a));
        self.diff = DiffView {
            key,
            available: texts.is_some(),
            folded,
            flags,
        };
    }
}
