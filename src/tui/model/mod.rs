//! The TUI's state and how actions change it. Rendering lives in [`super::view`] and only
//! reads this.
//!
//! This file holds the state itself: the [`App`], its panes and tabs, and how it starts.
//! What changes it is split by what it is about:
//!
//! - `input`: keys, the mouse, and the dispatch of each [`super::action::Action`].
//! - `steps`: selecting a step and walking between divergences.
//! - `diff`: the selected step's diff, its layout, changes and folds.
//! - `source`: what the diff compares (two results, or a file of the two memory folders).
//! - `search`: finding steps by text.
//! - `review`: decisions on a golden file's changed steps, and writing them.

use ratatui::Frame;
use ratatui::layout::Rect;

use super::fold::LineIndex;
use super::view;
use crate::diff::Glyphs;
use crate::replay::{Replay, StepKind};
use crate::spec::Spec;
use crate::transcript::Format;

mod diff;
mod input;
mod review;
mod search;
mod source;
mod steps;

pub use diff::DiffLayout;
use diff::DiffView;
pub use review::{Decision, Review};
pub use source::Source;

/// How the TUI starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Capture the mouse (wheel scrolling, clicking a step).
    pub mouse: bool,
}

/// The detail pane's tabs (the compact layout shows one at a time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// The diff of the compared pair.
    Diff,
    /// The three results.
    Results,
    /// The backend's memory folder after the step.
    Tree,
    /// The tool input.
    Input,
}

impl Tab {
    /// Every tab, in key order (1–4).
    pub const ALL: [Tab; 4] = [Tab::Diff, Tab::Results, Tab::Tree, Tab::Input];

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Diff => "Diff",
            Tab::Results => "Results",
            Tab::Tree => "Memory folder",
            Tab::Input => "Input",
        }
    }
}

/// Where the last frame put things, for the mouse and for paging.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Areas {
    /// The step list's rows.
    pub steps: Rect,
    /// The first step shown.
    pub steps_offset: usize,
    /// The scrollable detail panes.
    pub detail: Vec<Rect>,
    /// Height of the main detail pane, for paging.
    pub detail_height: u16,
    /// Whether the compact layout was drawn (or the zoomed one, which also shows tabs).
    pub compact: bool,
    /// The horizontal scroll the diff pane settled on when asked to show a column.
    pub hscroll: Option<usize>,
}

/// The TUI's whole state.
#[derive(Debug)]
pub struct App {
    pub(crate) replay: Replay,
    pub(crate) spec: Option<Spec>,
    pub(crate) selected: usize,
    pub(crate) list_offset: usize,
    pub(crate) tab: Tab,
    pub(crate) layout: DiffLayout,
    pub(crate) source: Option<Source>,
    pub(crate) scroll: usize,
    pub(crate) hscroll: usize,
    pub(crate) query: String,
    pub(crate) prompt: Option<String>,
    pub(crate) matches: Vec<usize>,
    pub(crate) help: bool,
    pub(crate) help_scroll: usize,
    pub(crate) review: Option<Review>,
    pub(crate) status: Option<String>,
    pub(crate) mouse: bool,
    mouse_changed: bool,
    quit: bool,
    quit_anyway: bool,
    pub(crate) areas: Areas,
    pub(crate) diff: DiffView,
    /// Steps per verdict kind, counted once: the header shows them on every frame.
    pub(crate) counts: std::collections::BTreeMap<StepKind, usize>,
    /// Diverging steps that only follow an earlier divergence, counted once.
    pub(crate) consequences: usize,
    /// Whether any step has a security finding (the step list then has a lane for them).
    pub(crate) security_lane: bool,
    /// `n`/`N` stop at consequences too.
    pub(crate) show_consequences: bool,
    /// The detail pane takes the whole screen.
    pub(crate) zoom: bool,
    /// A column the diff pane should scroll to on the next frame (a change's first).
    pub(crate) reveal: Option<usize>,
    /// Line indexes of the selected step's three results (recorded, backend, reference), so
    /// that a frame finds its lines without counting through a million-line result.
    pub(crate) result_lines: (Option<usize>, [Option<LineIndex>; 3]),
}

/// Tab stops of the TUI's diff and results.
pub(crate) const GLYPHS: Glyphs = Glyphs {
    tab_width: Some(4),
    spaces_in_changes: true,
};

impl App {
    /// The state for `replay`, with the first divergence selected.
    pub fn new(replay: Replay, spec: Option<Spec>, options: Options) -> App {
        let review =
            (replay.transcript.format == Format::Session && !replay.check).then(|| Review {
                decisions: replay
                    .steps
                    .iter()
                    .map(|s| s.changed.then_some(Decision::Pending))
                    .collect(),
                unsaved: false,
                written: None,
            });
        let counts = replay.counts();
        let security_lane = replay
            .steps
            .iter()
            .any(|s| s.verdict.divergences.iter().any(|d| d.security));
        let mut app = App {
            counts,
            consequences: 0,
            security_lane,
            show_consequences: false,
            zoom: false,
            reveal: None,
            result_lines: (None, [None, None, None]),
            replay,
            spec,
            selected: 0,
            list_offset: 0,
            tab: Tab::Diff,
            layout: DiffLayout::Unified,
            source: None,
            scroll: 0,
            hscroll: 0,
            query: String::new(),
            prompt: None,
            matches: Vec::new(),
            help: false,
            help_scroll: 0,
            review,
            status: None,
            mouse: options.mouse,
            mouse_changed: false,
            quit: false,
            quit_anyway: false,
            areas: Areas::default(),
            diff: DiffView::default(),
        };
        app.consequences = (0..app.replay.steps.len())
            .filter(|&i| app.kind(i).diverges() && app.follows(i).is_some())
            .count();
        // A review opens on the first change still to decide; a replay on its first
        // divergence.
        let pending = app.review.as_ref().and_then(|r| {
            r.decisions
                .iter()
                .position(|d| *d == Some(Decision::Pending))
        });
        let first = app.find_divergence(0, true);
        match (pending, first) {
            (Some(i), _) => {
                app.select(i);
                app.status = Some(format!("first change to review: step {}", i + 1));
            }
            (None, Some(i)) => {
                app.select(i);
                app.status = Some(format!("first divergence: step {}", i + 1));
            }
            (None, None) => {
                app.select(0);
                app.status =
                    Some("no divergence: every step is the same or equivalent".to_string());
            }
        }
        app
    }

    /// The replay shown.
    pub fn replay(&self) -> &Replay {
        &self.replay
    }

    /// The selected step (0-based).
    pub fn selected(&self) -> usize {
        self.selected
    }

    /// Whether the user asked to quit.
    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// Whether mouse capture was switched; resets the flag.
    pub fn take_mouse_change(&mut self) -> Option<bool> {
        std::mem::take(&mut self.mouse_changed).then_some(self.mouse)
    }

    /// The review, when a golden file is open.
    pub fn review(&self) -> Option<&Review> {
        self.review.as_ref()
    }

    /// Renders a frame and remembers where things went.
    pub fn draw(&mut self, frame: &mut Frame<'_>) {
        self.areas = view::draw(frame, self);
        self.list_offset = self.areas.steps_offset;
        if let Some(hscroll) = self.areas.hscroll {
            self.hscroll = hscroll;
            self.reveal = None;
        }
    }
}
