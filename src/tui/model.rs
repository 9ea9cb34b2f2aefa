//! The TUI's state and how actions change it. Rendering lives in [`super::view`] and only
//! reads this.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

use super::action::Action;
use super::fold::{Folded, LineIndex};
use super::keymap::{self, Context, Key};
use super::view;
use crate::diff::{CONTEXT_LINES, Glyphs, thousands};
use crate::judge::grade::Check;
use crate::replay::report::texts;
use crate::replay::{Kind, Pair, Replay, Step};
use crate::spec::Spec;
use crate::transcript::session::{self, Amendment, Session};
use crate::transcript::{Format, ToolCall, TranscriptError};

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

/// How the diff is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffLayout {
    /// One column, `-` and `+` lines.
    Unified,
    /// Expected left, actual right.
    SideBySide,
}

/// What the diff pane compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Two of the three results.
    Results(Pair),
    /// A file that differs between the backend's folder and the reference's (by index in the
    /// step's files).
    File(usize),
}

impl Source {
    /// The names of the two sides: (expected, actual).
    pub fn sides(self) -> (&'static str, &'static str) {
        match self {
            Source::Results(pair) => pair.sides(),
            Source::File(_) => ("reference", "backend"),
        }
    }
}

/// A review decision on a changed step of a golden file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Not decided yet.
    Pending,
    /// The backend's new answer goes into the golden file.
    Accepted,
    /// The recorded answer stays.
    Rejected,
    /// Decide later.
    Skipped,
}

impl Decision {
    /// One-letter mark for the step list.
    pub fn mark(self) -> &'static str {
        match self {
            Decision::Pending => "?",
            Decision::Accepted => "A",
            Decision::Rejected => "R",
            Decision::Skipped => "S",
        }
    }
}

/// Review of a golden file: a decision per changed step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Review {
    /// `Some` for steps whose answer changed since the recording.
    pub decisions: Vec<Option<Decision>>,
    /// Accepted decisions not yet written.
    pub unsaved: bool,
    /// Where accepted changes were last written.
    pub written: Option<String>,
}

impl Review {
    /// (accepted, rejected, skipped, pending).
    pub fn tally(&self) -> (usize, usize, usize, usize) {
        let count = |d: Decision| self.decisions.iter().filter(|x| **x == Some(d)).count();
        (
            count(Decision::Accepted),
            count(Decision::Rejected),
            count(Decision::Skipped),
            count(Decision::Pending),
        )
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

/// The diff of the selected step's compared pair, computed once per selection and source:
/// segments over the two texts, which stay in the replay (see [`super::fold`]).
#[derive(Debug, Default)]
pub(crate) struct DiffView {
    key: Option<(usize, Source)>,
    /// Whether there is anything to compare.
    pub(crate) available: bool,
    /// The line diff, folded.
    pub(crate) folded: Folded,
    /// `is_error` of (expected side, actual side), when comparing results.
    pub(crate) flags: Option<(bool, bool)>,
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
    pub(crate) counts: std::collections::BTreeMap<Kind, usize>,
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

    /// The keymap context of the current state.
    pub fn context(&self) -> Context {
        Context {
            searching: !self.query.is_empty(),
            review: self.review.is_some(),
            compact: self.areas.compact,
            prompt: self.prompt.is_some(),
            help: self.help,
        }
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

    /// Handles a key press.
    pub fn key(&mut self, mut event: KeyEvent) {
        // Esc followed quickly by a key reaches us as one Alt-chord (the terminal sends
        // `ESC q` in a single read); nothing here is bound to Alt, so it is the two presses.
        if matches!(event.code, KeyCode::Char(_)) && event.modifiers == KeyModifiers::ALT {
            self.key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
            event.modifiers = KeyModifiers::NONE;
        }
        let Some(key) = Key::from_event(event) else {
            return;
        };
        if let (Some(prompt), Key::Char(c)) = (self.prompt.as_mut(), key)
            && !event.modifiers.contains(KeyModifiers::CONTROL)
        {
            prompt.push(c);
            return;
        }
        if let Some(action) = keymap::action_for(key, self.context()) {
            self.apply(action);
        }
    }

    /// Handles a mouse event: the wheel scrolls the pane under the pointer, a click selects.
    pub fn mouse(&mut self, event: MouseEvent) {
        if !self.mouse || self.help || self.prompt.is_some() {
            return;
        }
        let at = Position::new(event.column, event.row);
        let in_steps = self.areas.steps.contains(at);
        let in_detail = self.areas.detail.iter().any(|r| r.contains(at));
        match event.kind {
            MouseEventKind::ScrollDown if in_steps => self.select(self.selected.saturating_add(3)),
            MouseEventKind::ScrollUp if in_steps => self.select(self.selected.saturating_sub(3)),
            MouseEventKind::ScrollDown if in_detail => self.scroll = self.scroll.saturating_add(3),
            MouseEventKind::ScrollUp if in_detail => self.scroll = self.scroll.saturating_sub(3),
            MouseEventKind::Down(_) if in_steps => {
                let row = usize::from(event.row - self.areas.steps.y);
                self.select(self.list_offset + row);
            }
            _ => {}
        }
    }

    /// Carries out an action.
    pub fn apply(&mut self, action: Action) {
        if action != Action::Quit {
            self.quit_anyway = false;
        }
        self.status = None;
        let steps = self.replay.steps.len();
        let page = usize::from(self.areas.steps.height.max(1));
        let detail_page = usize::from(self.areas.detail_height.max(1));
        if self.help {
            match action {
                Action::ScrollDown => self.help_scroll += 1,
                Action::ScrollUp => self.help_scroll = self.help_scroll.saturating_sub(1),
                Action::ToggleHelp => self.help = false,
                Action::Quit => self.quit(),
                _ => {}
            }
            return;
        }
        match action {
            Action::Quit => self.quit(),
            Action::NextStep => self.select(self.selected + 1),
            Action::PrevStep => self.select(self.selected.saturating_sub(1)),
            Action::PageSteps => self.select(self.selected + page),
            Action::PageStepsBack => self.select(self.selected.saturating_sub(page)),
            Action::FirstStep => self.select(0),
            Action::LastStep => self.select(steps.saturating_sub(1)),
            Action::NextDivergence => {
                let from = self.selected + 1;
                let to = self.find_divergence(from, true);
                self.jump(to, "no divergence after this step");
                self.say_skipped(from..to.unwrap_or(steps));
            }
            Action::PrevDivergence => {
                let before = self.selected;
                let to = before
                    .checked_sub(1)
                    .and_then(|from| self.find_divergence(from, false));
                self.jump(to, "no divergence before this step");
                self.say_skipped(to.map_or(0, |i| i + 1)..before);
            }
            Action::ToggleConsequences => {
                self.show_consequences = !self.show_consequences;
                self.status = Some(if self.show_consequences {
                    "n/N stop at every divergence, consequences (↳) too".to_string()
                } else {
                    "n/N skip steps that only follow an earlier divergence (↳)".to_string()
                });
            }
            Action::NextChange => self.walk_change(true),
            Action::PrevChange => self.walk_change(false),
            Action::ToggleFold => self.toggle_fold(),
            Action::ToggleZoom => {
                self.zoom = !self.zoom;
                self.status = Some(if self.zoom {
                    "zoom: z gives the screen back".to_string()
                } else {
                    "zoom off".to_string()
                });
            }
            Action::FirstDivergence => self.jump(self.find_divergence(0, true), "no step diverges"),
            Action::ScrollDown => self.scroll += 1,
            Action::ScrollUp => self.scroll = self.scroll.saturating_sub(1),
            Action::PageDown => self.scroll += detail_page,
            Action::PageUp => self.scroll = self.scroll.saturating_sub(detail_page),
            Action::ScrollLeft => self.hscroll = self.hscroll.saturating_sub(8),
            Action::ScrollRight => self.hscroll += 8,
            Action::ToggleLayout => {
                self.layout = match self.layout {
                    DiffLayout::Unified => DiffLayout::SideBySide,
                    DiffLayout::SideBySide => DiffLayout::Unified,
                };
                self.tab = Tab::Diff;
                // Rows differ between the layouts: stay on the same change.
                let side = self.layout == DiffLayout::SideBySide;
                let at = self.current_change(!side).unwrap_or(0);
                self.sync();
                self.go_to_change(at);
            }
            Action::CyclePair => self.cycle_source(),
            Action::ShowDiff => self.show(Tab::Diff),
            Action::ShowResults => self.show(Tab::Results),
            Action::ShowTree => self.show(Tab::Tree),
            Action::ShowInput => self.show(Tab::Input),
            Action::NextTab => {
                let i = Tab::ALL.iter().position(|t| *t == self.tab).unwrap_or(0);
                self.show(Tab::ALL[(i + 1) % Tab::ALL.len()]);
            }
            Action::StartSearch => self.prompt = Some(String::new()),
            Action::SubmitSearch => self.submit_search(),
            Action::CancelSearch => self.prompt = None,
            Action::SearchBackspace => {
                if let Some(prompt) = self.prompt.as_mut() {
                    prompt.pop();
                }
            }
            Action::NextMatch => self.next_match(true),
            Action::PrevMatch => self.next_match(false),
            Action::ClearSearch => {
                self.query.clear();
                self.matches.clear();
                self.status = Some("search cleared: n/N move between divergences".to_string());
            }
            Action::ToggleHelp => self.help = !self.help,
            Action::ToggleMouse => {
                self.mouse = !self.mouse;
                self.mouse_changed = true;
                self.status = Some(if self.mouse {
                    "mouse on: wheel scrolls, click selects (hold Shift to select text)".to_string()
                } else {
                    "mouse off: the terminal selects text".to_string()
                });
            }
            Action::Accept => self.decide(Decision::Accepted),
            Action::Reject => self.decide(Decision::Rejected),
            Action::Skip => self.decide(Decision::Skipped),
            Action::AcceptAll => self.accept_all(),
            Action::Save => {
                self.save_now();
            }
        }
        self.sync();
    }

    fn show(&mut self, tab: Tab) {
        self.tab = tab;
        self.scroll = 0;
    }

    fn jump(&mut self, to: Option<usize>, otherwise: &str) {
        match to {
            Some(i) => self.select(i),
            None => self.status = Some(otherwise.to_string()),
        }
    }

    /// Selects step `i` (clamped); a newly selected step opens on its diff's first change.
    pub fn select(&mut self, i: usize) {
        let last = self.replay.steps.len().saturating_sub(1);
        let i = i.min(last);
        let moved = i != self.selected || self.diff.key.is_none();
        if moved {
            self.scroll = 0;
            self.hscroll = 0;
            self.source = None;
        }
        self.selected = i;
        self.sync();
        if moved {
            self.go_to_change(0);
        }
        if self.result_lines.0 != Some(i) {
            let (call, step) = self.step(i);
            let results = [
                call.recorded.as_ref(),
                step.backend.as_ref().and_then(|a| a.result()),
                step.reference.as_ref().and_then(|a| a.result()),
            ];
            self.result_lines = (Some(i), results.map(|r| r.map(|r| LineIndex::new(&r.text))));
        }
    }

    /// The step (1-based) step `i` follows from, when all its divergences are consequences of
    /// earlier ones and none is a security finding: `n` passes it by unless asked.
    pub(crate) fn follows(&self, i: usize) -> Option<usize> {
        let divergences = &self.replay.steps.get(i)?.verdict.divergences;
        if divergences
            .iter()
            .any(|d| d.security || d.cascade_of.is_none())
        {
            return None;
        }
        divergences.first()?.cascade_of
    }

    /// Whether step `i` is one `n`/`N` stop at.
    fn stops_at(&self, i: usize) -> bool {
        let step = &self.replay.steps[i];
        let consequence = !self.show_consequences && self.follows(i).is_some();
        (step.verdict.kind.diverges() && !consequence) || (self.review.is_some() && step.changed)
    }

    /// Says how many consequences `n`/`N` passed by in `range`.
    fn say_skipped(&mut self, range: std::ops::Range<usize>) {
        if self.show_consequences {
            return;
        }
        let skipped = range
            .filter(|&i| self.kind(i).diverges() && self.follows(i).is_some())
            .count();
        if skipped > 0 {
            let jumped = self.status.take().unwrap_or_default();
            let sep = if jumped.is_empty() { "" } else { " · " };
            self.status = Some(format!(
                "{jumped}{sep}passed {skipped} step(s) that follow an earlier divergence (c shows them)"
            ));
        }
    }

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
    fn current_change(&self, side: bool) -> Option<usize> {
        self.diff
            .folded
            .changes(side)
            .take_while(|(row, _)| Self::change_scroll(*row) <= self.scroll)
            .count()
            .checked_sub(1)
    }

    /// Scrolls the diff to change `n` (from 0) and asks the pane to show its first changed
    /// column.
    fn go_to_change(&mut self, n: usize) {
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
    fn walk_change(&mut self, forward: bool) {
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
    fn toggle_fold(&mut self) {
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

    /// The nearest diverging step from `from`, forwards or backwards (inclusive).
    pub(crate) fn find_divergence(&self, from: usize, forward: bool) -> Option<usize> {
        let n = self.replay.steps.len();
        if forward {
            (from..n).find(|&i| self.stops_at(i))
        } else {
            (0..=from.min(n.saturating_sub(1)))
                .rev()
                .find(|&i| self.stops_at(i))
        }
    }

    /// The call and step of index `i`.
    pub(crate) fn step(&self, i: usize) -> (&ToolCall, &Step) {
        (&self.replay.transcript.calls[i], &self.replay.steps[i])
    }

    /// What can be compared on the selected step: pairs of results, and files of the two
    /// memory folders that differ.
    pub(crate) fn sources(&self) -> Vec<Source> {
        let (call, step) = self.step(self.selected);
        Pair::ALL
            .into_iter()
            .filter(|p| texts(call, step, *p).is_some())
            .map(Source::Results)
            .chain((0..step.files.len()).map(Source::File))
            .collect()
    }

    /// What the diff compares: chosen with `p`, else what the step is about (in a review, the
    /// change; for a folder difference, the first differing file; else the verdict's pair).
    pub fn current_source(&self) -> Source {
        if let Some(source) = self.source {
            return source;
        }
        let (_, step) = self.step(self.selected);
        let available = self.sources();
        let headline = step.verdict.headline();
        let preferred = if self.review.is_some() && step.changed {
            Some(Source::Results(Pair::RecordedBackend))
        } else if headline.is_some_and(|d| matches!(d.finding.check, Check::Effect | Check::Lost))
            && !step.files.is_empty()
        {
            Some(Source::File(0))
        } else {
            headline.map(|d| Source::Results(d.pair))
        };
        preferred
            .filter(|s| available.contains(s))
            .or_else(|| available.first().copied())
            .unwrap_or(Source::Results(Pair::BackendReference))
    }

    /// `recorded ≠ reference`, or `/memories/a.md: backend ≠ reference`.
    pub fn source_label(&self, source: Source) -> String {
        match source {
            Source::Results(pair) => pair.label().to_string(),
            Source::File(i) => {
                let (_, step) = self.step(self.selected);
                let path = step.files.get(i).map_or("?", |f| f.path.as_str());
                format!("{path}: backend ≠ reference")
            }
        }
    }

    fn cycle_source(&mut self) {
        let sources = self.sources();
        if sources.is_empty() {
            self.status = Some("nothing to compare on this step".to_string());
            return;
        }
        let current = self.current_source();
        let i = sources
            .iter()
            .position(|s| *s == current)
            .map_or(0, |i| (i + 1) % sources.len());
        self.source = Some(sources[i]);
        self.tab = Tab::Diff;
        self.scroll = 0;
        self.hscroll = 0;
        self.sync();
        self.go_to_change(0);
        self.status = Some(format!("comparing {}", self.source_label(sources[i])));
    }

    /// Recomputes the diff when the selection or the source changed.
    fn sync(&mut self) {
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

    fn submit_search(&mut self) {
        let Some(query) = self.prompt.take() else {
            return;
        };
        self.query = query;
        if self.query.is_empty() {
            self.matches.clear();
            return;
        }
        let smart_case = self.query.chars().any(char::is_uppercase);
        let needle = if smart_case {
            self.query.clone()
        } else {
            self.query.to_lowercase()
        };
        self.matches = (0..self.replay.steps.len())
            .filter(|&i| {
                let (call, step) = self.step(i);
                haystack(call, step, smart_case).contains(&needle)
            })
            .collect();
        if self.matches.is_empty() {
            self.status = Some(format!("no step matches “{}”", self.query));
            return;
        }
        let next = self
            .matches
            .iter()
            .copied()
            .find(|&i| i >= self.selected)
            .unwrap_or(self.matches[0]);
        self.select(next);
    }

    fn next_match(&mut self, forward: bool) {
        if self.matches.is_empty() {
            self.status = Some(format!("no step matches “{}”", self.query));
            return;
        }
        let found = if forward {
            self.matches.iter().copied().find(|&i| i > self.selected)
        } else {
            self.matches
                .iter()
                .rev()
                .copied()
                .find(|&i| i < self.selected)
        };
        match found {
            Some(i) => self.select(i),
            None => {
                let wrapped = if forward {
                    self.matches[0]
                } else {
                    self.matches[self.matches.len() - 1]
                };
                self.select(wrapped);
                self.status = Some("search wrapped around".to_string());
            }
        }
    }

    /// Position of the selected step among the matches (1-based), if it is one.
    pub(crate) fn match_position(&self) -> Option<usize> {
        self.matches
            .iter()
            .position(|&i| i == self.selected)
            .map(|p| p + 1)
    }

    fn decide(&mut self, decision: Decision) {
        let selected = self.selected;
        let Some(review) = self.review.as_mut() else {
            return;
        };
        let Some(slot) = review.decisions.get_mut(selected) else {
            return;
        };
        if slot.is_none() {
            self.status = Some("this step did not change: nothing to review".to_string());
            return;
        }
        *slot = Some(decision);
        if decision == Decision::Accepted {
            review.unsaved = true;
        }
        let dependents = if decision == Decision::Accepted {
            self.dependents(selected)
        } else {
            String::new()
        };
        let Some(review) = self.review.as_mut() else {
            return;
        };
        // Like cargo insta review: go on to the next change still to decide.
        let next = review
            .decisions
            .iter()
            .enumerate()
            .skip(selected + 1)
            .chain(review.decisions.iter().enumerate().take(selected))
            .find(|(_, d)| **d == Some(Decision::Pending))
            .map(|(i, _)| i);
        match next {
            Some(i) => {
                self.select(i);
                if !dependents.is_empty() {
                    self.status = Some(dependents);
                }
            }
            None => {
                self.status = Some(format!(
                    "{dependents}{}every change is decided · w writes, q writes and quits",
                    if dependents.is_empty() { "" } else { " · " }
                ))
            }
        }
    }

    /// What accepting step `i` (0-based) bears on: the later steps whose divergences follow
    /// from it, and the later changes still to decide that touch one of its paths (their
    /// recorded answers were made after this one's).
    fn dependents(&self, i: usize) -> String {
        let Some(review) = self.review.as_ref() else {
            return String::new();
        };
        let (call, _) = self.step(i);
        let mine = paths(call);
        let later: Vec<String> = (i + 1..self.replay.steps.len())
            .filter(|&j| {
                let (other, step) = self.step(j);
                let cascade = step
                    .verdict
                    .divergences
                    .iter()
                    .any(|d| d.cascade_of == Some(i + 1));
                let pending = review.decisions.get(j) == Some(&Some(Decision::Pending));
                cascade || (pending && paths(other).iter().any(|p| mine.contains(p)))
            })
            .map(|j| (j + 1).to_string())
            .collect();
        match later.as_slice() {
            [] => format!("accepted step {}", i + 1),
            [one] => format!("accepted step {} · step {one} depends on it", i + 1),
            many => format!(
                "accepted step {} · steps {} depend on it",
                i + 1,
                many.join(", ")
            ),
        }
    }

    fn accept_all(&mut self) {
        let Some(review) = self.review.as_mut() else {
            return;
        };
        let mut n = 0;
        for decision in review.decisions.iter_mut().flatten() {
            if matches!(decision, Decision::Pending | Decision::Skipped) {
                *decision = Decision::Accepted;
                n += 1;
            }
        }
        review.unsaved |= n > 0;
        self.status = Some(format!(
            "accepted {n} change(s) · w writes, q writes and quits"
        ));
    }

    /// The golden file as it would be written: accepted steps take the backend's answer, and
    /// the header records which steps those are and whose answer they now hold.
    pub fn reviewed_session(&self) -> Option<Session> {
        let review = self.review.as_ref()?;
        let mut header = self.replay.transcript.session.clone()?;
        let mut steps = Vec::new();
        let mut accepted = Vec::new();
        let calls = self.replay.transcript.calls.iter();
        for ((call, step), decision) in calls.zip(&self.replay.steps).zip(&review.decisions) {
            if !call.is_memory() {
                continue;
            }
            let backend = step.backend.as_ref().and_then(|a| a.result());
            let kept = match (decision, backend) {
                (Some(Decision::Accepted), Some(answer)) => {
                    // Step lines are numbered by position among the written steps.
                    accepted.push(steps.len() as u64 + 1);
                    answer
                }
                _ => match call.recorded.as_ref().or(backend) {
                    Some(result) => result,
                    None => continue,
                },
            };
            steps.push((call.input.clone(), kept.clone()));
        }
        if !accepted.is_empty() {
            header.amended.push(Amendment {
                backend: self.replay.backend.clone(),
                at: session::now_rfc3339(),
                steps: accepted,
            });
        }
        Some(Session { header, steps })
    }

    /// Writes accepted changes to the golden file; the number of accepted steps.
    pub fn save(&mut self) -> Result<usize, TranscriptError> {
        let Some(session) = self.reviewed_session() else {
            return Ok(0);
        };
        let path = std::path::PathBuf::from(&self.replay.transcript.source);
        session::write(&path, &session)?;
        let Some(review) = self.review.as_mut() else {
            return Ok(0);
        };
        let (accepted, ..) = review.tally();
        review.unsaved = false;
        review.written = Some(self.replay.transcript.source.clone());
        Ok(accepted)
    }

    fn save_now(&mut self) -> bool {
        match self.save() {
            Ok(n) => {
                self.status = Some(format!(
                    "wrote {n} accepted change(s) to {}",
                    self.replay.transcript.source
                ));
                true
            }
            Err(e) => {
                self.status = Some(format!("{e} · q again quits without writing"));
                false
            }
        }
    }

    fn quit(&mut self) {
        let unsaved = self.review.as_ref().is_some_and(|r| r.unsaved);
        if unsaved && !self.quit_anyway && !self.save_now() {
            self.quit_anyway = true;
            return;
        }
        self.quit = true;
    }

    /// The selected step's verdict kind.
    pub(crate) fn kind(&self, i: usize) -> Kind {
        self.replay.steps[i].verdict.kind
    }
}

/// The texts `source` compares on step `i`: (expected, actual).
fn texts_of(replay: &Replay, i: usize, source: Source) -> Option<(&str, &str)> {
    let (call, step) = (replay.transcript.calls.get(i)?, replay.steps.get(i)?);
    match source {
        Source::Results(pair) => {
            texts(call, step, pair).map(|(e, a)| (e.text.as_str(), a.text.as_str()))
        }
        Source::File(f) => step.files.get(f).map(|file| {
            (
                file.reference.as_deref().unwrap_or(""),
                file.backend.as_deref().unwrap_or(""),
            )
        }),
    }
}

/// The memory paths a call names (`path`, `old_path`, `new_path`).
fn paths(call: &ToolCall) -> Vec<&str> {
    ["path", "old_path", "new_path"]
        .iter()
        .filter_map(|key| call.input.get(*key).and_then(serde_json::Value::as_str))
        .collect()
}

/// Everything a search looks through for a step: its summary, input and the three results.
fn haystack(call: &ToolCall, step: &Step, case_sensitive: bool) -> String {
    let mut text = call.summary();
    text.push('\n');
    text.push_str(&call.input.to_string());
    for result in [
        call.recorded.as_ref(),
        step.backend.as_ref().and_then(|a| a.result()),
        step.reference.as_ref().and_then(|a| a.result()),
    ]
    .into_iter()
    .flatten()
    {
        text.push('\n');
        text.push_str(&result.text);
    }
    if case_sensitive {
        text
    } else {
        text.to_lowercase()
    }
}
