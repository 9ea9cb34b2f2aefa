//! Review of a golden file: a decision per changed step, the golden file as it would be
//! written, writing it, and quitting only once accepted changes are written (or the user
//! insists).

use super::App;
use crate::transcript::session::{self, Amendment, Session};
use crate::transcript::{ToolCall, TranscriptError};

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

impl App {
    pub(super) fn decide(&mut self, decision: Decision) {
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

    pub(super) fn accept_all(&mut self) {
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

    pub(super) fn save_now(&mut self) -> bool {
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

    pub(super) fn quit(&mut self) {
        let unsaved = self.review.as_ref().is_some_and(|r| r.unsaved);
        if unsaved && !self.quit_anyway && !self.save_now() {
            self.quit_anyway = true;
            return;
        }
        self.quit = true;
    }
}

/// The memory paths a call names (`path`, `old_path`, `new_path`).
fn paths(call: &ToolCall) -> Vec<&str> {
    ["path", "old_path", "new_path"]
        .iter()
        .filter_map(|key| call.input.get(*key).and_then(serde_json::Value::as_str))
        .collect()
}
