//! Replaying a transcript: every memory call, in order, against the backend under test in one
//! fresh folder and against the reference in another, both optionally seeded; a verdict per
//! step comparing the recorded result, the backend's and the reference's; the backend's
//! memory folder after each step. No UI here: the TUI and the text/JSON reports read the
//! [`Replay`] this builds.

mod engine;
pub mod record;
pub mod scratch;
pub mod verdict;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::judge::compare::Answer;
pub use engine::{NO_RECORDED_ANSWER, replay, replay_in, replay_users_in, timeouts};
pub use verdict::{StepKind, StepVerdict};

use crate::backend::BackendSpec;
use crate::exec::tree::Tree;
use crate::judge::grade::Outcome;
use crate::judge::{Finding, Pair};
use crate::protocol::ToolResult;
use crate::spec::Revision;
use crate::transcript::ToolCall;
use crate::transcript::Transcript;

/// How to replay.
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    /// The backend under test.
    pub backend: BackendSpec,
    /// A folder whose contents both memory folders start with.
    pub seed: Option<PathBuf>,
    /// Per-call timeout.
    pub timeout: Duration,
    /// Snapshot regression: only changes from the recorded results count.
    pub check: bool,
    /// The revision of the page the reference follows and the steps are judged by.
    pub revision: Revision,
    /// The user a backend of many users is started as (the transcript's, or `--user`); the
    /// transcript holds that user's calls only.
    pub user: Option<String>,
}

/// Both memory folders after a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trees {
    /// The backend's (`None` when it does not store memories in the folder).
    pub backend: Option<Arc<Tree>>,
    /// The reference's.
    pub reference: Arc<Tree>,
    /// The step since which the two differ, if they do.
    pub differ_since: Option<usize>,
}

/// A file that differs between the backend's folder and the reference's, with both contents
/// (as text, cut at [`FILE_CONTENT_LIMIT`] bytes), so that the difference can be shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileDifference {
    /// Memory path (`/memories/notes.md`).
    pub path: String,
    /// The backend's content (`None`: not a file there).
    pub backend: Option<String>,
    /// The reference's content (`None`: not a file there).
    pub reference: Option<String>,
}

/// How much of a differing file is kept for display.
pub const FILE_CONTENT_LIMIT: usize = 64 * 1024;

/// One step of the replay, for the transcript call of the same index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// The backend's answer (`None` for calls to other tools).
    pub backend: Option<Answer>,
    /// The reference's answer (`None` for calls to other tools).
    pub reference: Option<Answer>,
    /// The verdict.
    pub verdict: StepVerdict,
    /// Whether the backend's answer differs from the recorded one.
    pub changed: bool,
    /// The memory folders after the step.
    #[serde(skip)]
    pub trees: Option<Trees>,
    /// The files whose difference between the folders began or changed with this step.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileDifference>,
    /// Time the backend took, in microseconds.
    pub backend_micros: u64,
}

/// A replayed transcript.
#[derive(Debug, Clone, Serialize)]
pub struct Replay {
    /// The transcript.
    pub transcript: Transcript,
    /// The backend under test, as labelled.
    pub backend: String,
    /// Whether the backend stores its memories in the given folder (so trees are compared).
    pub on_folder: bool,
    /// Snapshot regression mode.
    pub check: bool,
    /// The revision of the page it was judged by.
    pub revision: Revision,
    /// The seed folder both memory folders started from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<PathBuf>,
    /// On a backend that keeps its memories elsewhere: how the seed was planted through the
    /// tool, and what could not be (see [`scratch::clean_session`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub planted: Vec<String>,
    /// One step per transcript call.
    pub steps: Vec<Step>,
    /// Wall-clock time of the replay.
    #[serde(serialize_with = "millis")]
    pub elapsed: Duration,
}

/// What the exit code says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Conclusion {
    /// Every step is the same, a known dialect or open (or, with `--check`, unchanged).
    Same,
    /// A MUST or SHOULD difference (or, with `--check`, a change).
    Differs,
    /// The backend crashed, hung or spoke garbage.
    BackendBroke,
}

/// Which verdict the exit code follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailOn {
    /// The backend under test against the spec (the default): a recording that deviated is
    /// what the user is debugging, not a failure of the backend.
    #[default]
    Backend,
    /// The recording against the spec.
    Recording,
    /// The worse of the two.
    Either,
}

/// One of the two verdicts of a replay: the backend under test against the spec, or the
/// recording against it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LaneVerdict {
    /// What it comes to.
    pub conclusion: Conclusion,
    /// Steps with a security finding (shown first).
    pub security: usize,
    /// Steps with a difference above INFO or a security finding.
    pub differences: usize,
    /// Of those, the steps whose every difference follows from an earlier step.
    pub consequences: usize,
    /// Consequences per step they follow from (1-based), first cause first.
    pub causes: std::collections::BTreeMap<usize, usize>,
}

impl LaneVerdict {
    /// `12 difference(s), 9 of them follow from step 3; 1 SECURITY`.
    pub fn describe(&self) -> String {
        let mut text = format!("{} difference(s)", self.differences);
        if self.consequences > 0 {
            let causes: Vec<String> = self
                .causes
                .iter()
                .enumerate()
                .map(|(i, (step, n))| {
                    if i == 0 {
                        format!("{n} of them follow from step {step}")
                    } else {
                        format!("{n} from step {step}")
                    }
                })
                .collect();
            text.push_str(&format!(", {}", causes.join(", ")));
        }
        if self.security > 0 {
            text = format!("{} SECURITY, {text}", self.security);
        }
        text
    }
}

impl Replay {
    /// The verdict of one lane: [`Pair::BackendReference`] (whether the backend broke counts
    /// there) or [`Pair::RecordedReference`].
    pub fn verdict(&self, pair: Pair) -> LaneVerdict {
        let mut lane = LaneVerdict {
            conclusion: Conclusion::Same,
            security: 0,
            differences: 0,
            consequences: 0,
            causes: std::collections::BTreeMap::new(),
        };
        let mut broke = false;
        for step in &self.steps {
            broke |= pair == Pair::BackendReference && step.verdict.kind == StepKind::Broke;
            let counted: Vec<&Finding> = step
                .verdict
                .divergences
                .iter()
                .filter(|d| d.pair == Some(pair) && d.counts())
                .collect();
            if counted.is_empty() {
                continue;
            }
            lane.differences += 1;
            lane.security += usize::from(counted.iter().any(|d| d.security));
            if let Some(cause) = step.verdict.follows(Some(pair)) {
                lane.consequences += 1;
                *lane.causes.entry(cause).or_insert(0) += 1;
            }
        }
        lane.conclusion = if broke {
            Conclusion::BackendBroke
        } else if lane.differences > 0 {
            Conclusion::Differs
        } else {
            Conclusion::Same
        };
        lane
    }

    /// What the exit code says when it follows `fail_on`; with `--check`, any change.
    pub fn conclusion_for(&self, fail_on: FailOn) -> Conclusion {
        if self.check {
            return self.conclusion();
        }
        let backend = self.verdict(Pair::BackendReference).conclusion;
        let recording = self.verdict(Pair::RecordedReference).conclusion;
        match fail_on {
            FailOn::Backend => backend,
            // A backend that broke is said whatever is followed: its steps were not judged.
            FailOn::Recording if backend == Conclusion::BackendBroke => backend,
            FailOn::Recording => recording,
            FailOn::Either => backend.max(recording),
        }
    }

    /// Steps whose `tool_use` has no `tool_result` in the transcript.
    pub fn unanswered(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| s.verdict.reason.as_deref() == Some(engine::NO_RECORDED_ANSWER))
            .count()
    }

    /// The worst outcome over the steps, as the exit code reads it.
    pub fn conclusion(&self) -> Conclusion {
        let worst = self
            .steps
            .iter()
            .map(|s| s.verdict.outcome)
            .max()
            .unwrap_or(Outcome::Pass);
        match worst {
            Outcome::Error => Conclusion::BackendBroke,
            Outcome::Fail | Outcome::Warn => Conclusion::Differs,
            Outcome::Skip | Outcome::Pass | Outcome::Info => Conclusion::Same,
        }
    }

    /// Steps per verdict kind.
    pub fn counts(&self) -> std::collections::BTreeMap<StepKind, usize> {
        let mut counts = std::collections::BTreeMap::new();
        for step in &self.steps {
            *counts.entry(step.verdict.kind).or_insert(0) += 1;
        }
        counts
    }
}

/// Why a replay could not run at all (a broken backend is a verdict, not this).
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// A scratch folder could not be made or seeded.
    #[error(transparent)]
    Folder(#[from] scratch::SeedError),
    /// The backend could not be started clean (see [`scratch::clean_session`]).
    #[error(transparent)]
    Start(#[from] scratch::StartError),
    /// The reference backend could not open its folder.
    #[error(transparent)]
    Reference(#[from] crate::reference::ReferenceError),
    /// The harness could not run the backend under test.
    #[error("the harness could not run the backend: {0}")]
    Harness(String),
    /// The backend broke on every call from the first, until it was not started again: it
    /// never started, and every later step would say so.
    #[error(
        "the backend never answered: it broke {breaks} times in a row from its first call, so the replay stopped (check the --backend command `{command}`); the first time: {first}"
    )]
    NeverStarted {
        /// The backend command, as labelled.
        command: String,
        /// Breaks in a row.
        breaks: usize,
        /// How it broke the first time, with its stderr.
        first: String,
    },
}

impl ReplayError {
    /// Whether the user can fix it by changing the arguments (exit 2) rather than it being
    /// the harness's problem (exit 4).
    pub fn is_usage(&self) -> bool {
        matches!(self, ReplayError::Folder(e) | ReplayError::Start(scratch::StartError::Seed(e)) if e.is_usage())
    }
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_millis() as u64)
}

/// The two results a pair compares, (expected side, actual side).
pub fn texts<'a>(
    call: &'a ToolCall,
    step: &'a Step,
    pair: Pair,
) -> Option<(&'a ToolResult, &'a ToolResult)> {
    let backend = step.backend.as_ref().and_then(Answer::result);
    let reference = step.reference.as_ref().and_then(Answer::result);
    let recorded = call.recorded.as_ref();
    match pair {
        Pair::BackendReference => Some((reference?, backend?)),
        Pair::RecordedReference => Some((reference?, recorded?)),
        Pair::RecordedBackend => Some((recorded?, backend?)),
    }
}
