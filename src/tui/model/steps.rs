//! The step list: selecting a step, and which steps `n`/`N` stop at (divergences, not the
//! consequences that only follow an earlier one, unless asked).

use super::App;
use crate::replay::{Step, StepKind};
use crate::transcript::ToolCall;
use crate::tui::fold::LineIndex;

impl App {
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
    pub(super) fn say_skipped(&mut self, range: std::ops::Range<usize>) {
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

    /// The selected step's verdict kind.
    pub(crate) fn kind(&self, i: usize) -> StepKind {
        self.replay.steps[i].verdict.kind
    }
}
