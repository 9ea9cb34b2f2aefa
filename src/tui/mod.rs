//! The replay TUI (ratatui + crossterm): a step list with verdict marks, the step's verdict
//! and the spec rule it breaks, the input, the three results, a whitespace-visible diff
//! (unified or side by side), the backend's memory folder, navigation between divergences,
//! search, review of golden files, and a help overlay and hint bar generated from one keymap.
//!
//! - [`model`]: state and what actions do to it.
//! - `fold`: the diff pane's model (folded unchanged runs, changes drawn when in view).
//! - [`action`]: the actions.
//! - [`keymap`]: the one table of keys.
//! - [`view`]: rendering, a function of the state.
//! - [`terminal`]: the event loop and a terminal that is always restored.

pub mod action;
mod fold;
pub mod keymap;
pub mod model;
mod terminal;
pub mod view;

pub use model::{App, Options};
pub use terminal::run;

/// Why the TUI could not run.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// stdout is not a terminal.
    #[error(
        "stdout is not a terminal, so the interactive replay cannot start; use `memspec replay TRANSCRIPT --report` for the same verdicts and diffs as text (add `--format json` for JSON, `--check` for golden files)"
    )]
    NotATerminal,
    /// The terminal failed.
    #[error("terminal error: {0}")]
    Terminal(#[from] std::io::Error),
}

/// How the TUI ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ended {
    /// The review of a golden file, if one was open.
    pub review: Option<model::Review>,
    /// The signal (SIGTERM, SIGHUP) that ended it, if one did; accepted golden changes are
    /// then left unwritten.
    pub signal: Option<i32>,
}

impl Ended {
    /// A line for the terminal after the TUI closed, when there is something to say.
    pub fn summary(&self) -> Option<String> {
        let review = self.review.as_ref()?;
        let (accepted, rejected, skipped, pending) = review.tally();
        if accepted + rejected + skipped + pending == 0 {
            return None;
        }
        let written = match &review.written {
            Some(path) => format!("; wrote {path}"),
            None => String::new(),
        };
        Some(format!(
            "review: {accepted} accepted, {rejected} rejected, {skipped} skipped, {pending} undecided{written}"
        ))
    }
}
