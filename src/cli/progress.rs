//! The one sink every command's run reports its progress through, on stderr: a bar on a
//! terminal; off one (a CI log), a plain line every [`PROGRESS_EVERY`], so that a slow
//! backend's run says it is alive in every format. The engines emit the events
//! ([`memspec::events`]); this is the only code that shows them.

use std::io::{self, IsTerminal};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use memspec::events::{Event, Sink, Stage};

use super::say;

/// How often a run that is not on a terminal says how far it got.
const PROGRESS_EVERY: Duration = Duration::from_secs(30);

/// Progress on stderr.
pub(crate) struct Progress {
    bar: ProgressBar,
    terminal: bool,
    started: Instant,
    /// The current stage, its total, units done, and when a plain line was last written.
    state: Mutex<State>,
}

struct State {
    stage: Stage,
    total: usize,
    done: usize,
    said: Instant,
}

impl Progress {
    /// Progress on stderr, drawn when it is a terminal.
    pub(crate) fn stderr() -> Self {
        Progress {
            bar: ProgressBar::hidden(),
            terminal: io::stderr().is_terminal(),
            started: Instant::now(),
            state: Mutex::new(State {
                stage: Stage::Cases,
                total: 0,
                done: 0,
                said: Instant::now(),
            }),
        }
    }

    /// Runs `f` with the bar out of the way, so that a line written meanwhile is not torn.
    pub(crate) fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Clears the bar: the run is over.
    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A worker that panicked holding it leaves counts that are still worth showing.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn started(&self, stage: Stage, total: usize) {
        {
            let mut state = self.state();
            state.stage = stage;
            state.total = total;
            state.done = 0;
        }
        if stage == Stage::Recheck {
            self.suspend(|| {
                say(&format!(
                    "rechecking the cases that failed or broke ({total}), one at a time (-j 1; --no-recheck skips this)"
                ));
            });
        }
        if !self.terminal {
            return;
        }
        let template = match (stage, total) {
            (Stage::Recheck, _) => "alone: {bar:40} {pos}/{len} cases {msg}".to_string(),
            // A fuzz run on a time budget: its end is a time, not a count.
            (Stage::Fuzz, 0) => "{spinner} {pos} steps, {elapsed}".to_string(),
            (stage, _) => format!("{{bar:40}} {{pos}}/{{len}} {} {{msg}}", stage.units()),
        };
        // Style first: showing the bar draws it at once.
        self.bar.set_style(
            ProgressStyle::with_template(&template)
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        self.bar.set_length(total as u64);
        self.bar.set_position(0);
        self.bar.set_draw_target(ProgressDrawTarget::stderr());
    }

    fn advanced(&self, done: Option<usize>, last: Option<&str>) {
        let (done, line) = {
            let mut state = self.state();
            state.done = done.unwrap_or(state.done + 1);
            let line = if self.terminal || state.said.elapsed() < PROGRESS_EVERY {
                None
            } else {
                state.said = Instant::now();
                let of = match state.total {
                    0 => String::new(),
                    total => format!(" of {total}"),
                };
                let last = last.map(|l| format!(" (last: {l})")).unwrap_or_default();
                Some(format!(
                    "{}{of} {} done in {} s{last}",
                    state.done,
                    state.stage.units(),
                    self.started.elapsed().as_secs(),
                ))
            };
            (state.done, line)
        };
        self.bar.set_position(done as u64);
        if let Some(last) = last {
            self.bar.set_message(last.to_string());
        }
        if let Some(line) = line {
            say(&line);
        }
    }
}

impl Sink for Progress {
    fn event(&self, event: Event<'_>) {
        match event {
            Event::Started { stage, total } => self.started(stage, total),
            Event::Case(result) => self.advanced(None, Some(&result.id)),
            Event::Progress { done, last } => self.advanced(Some(done), last),
        }
    }
}
