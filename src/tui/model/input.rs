//! How input changes the state: key presses and the mouse become actions, and
//! [`App::apply`] carries each one out (the work itself lives with what it is about).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui::layout::Position;

use super::{App, Decision, DiffLayout, Tab};
use crate::tui::action::Action;
use crate::tui::keymap::{self, Context, Key};

impl App {
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
}
