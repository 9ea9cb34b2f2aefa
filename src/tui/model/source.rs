//! What the diff pane compares on a step: two of the three results, or a file that differs
//! between the backend's memory folder and the reference's.

use super::{App, Tab};
use crate::judge::Check;
use crate::judge::Pair;
use crate::replay::Replay;
use crate::replay::texts;

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

impl App {
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
        } else if headline.is_some_and(|d| matches!(d.check, Check::Effect | Check::Lost))
            && !step.files.is_empty()
        {
            Some(Source::File(0))
        } else {
            headline.map(|d| Source::Results(d.lane()))
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

    pub(super) fn cycle_source(&mut self) {
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
}

/// The texts `source` compares on step `i`: (expected, actual).
pub(super) fn texts_of(replay: &Replay, i: usize, source: Source) -> Option<(&str, &str)> {
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
