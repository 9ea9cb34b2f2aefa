//! A step's verdict: which of the three results (recorded, backend, reference) differ, how, at
//! which level and against which rule, as the judge ([`crate::judge::compare`]) graded them.

use serde::Serialize;

use crate::judge::grade::Outcome;
use crate::judge::{Finding, Pair};

/// The verdict's kind, from best to worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// Not a memory call: shown, never replayed.
    NotReplayed,
    /// The results agree.
    Same,
    /// They differ only where the spec leaves the text open (INFO).
    Open,
    /// They differ by a known dialect.
    Dialect,
    /// A SHOULD difference: the spec's exact strings and formats.
    Should,
    /// A MUST difference: `is_error`, the memory folder.
    Must,
    /// A security finding: confinement broken, a host path or canary content shown.
    Security,
    /// With `--check`: the backend's answer changed since the recording.
    Changed,
    /// The backend crashed, hung or spoke garbage.
    Broke,
}

impl StepKind {
    /// One-cell mark for lists.
    pub fn mark(self) -> &'static str {
        match self {
            StepKind::NotReplayed => "·",
            StepKind::Same => "✓",
            StepKind::Open | StepKind::Dialect => "≈",
            StepKind::Should => "△",
            StepKind::Must => "✗",
            StepKind::Security => "⚑",
            StepKind::Changed => "Δ",
            StepKind::Broke => "!",
        }
    }

    /// Short label.
    pub fn label(self) -> &'static str {
        match self {
            StepKind::NotReplayed => "not replayed",
            StepKind::Same => "same",
            StepKind::Open => "open (INFO)",
            StepKind::Dialect => "known dialect",
            StepKind::Should => "SHOULD difference",
            StepKind::Must => "MUST difference",
            StepKind::Security => "SECURITY",
            StepKind::Changed => "changed",
            StepKind::Broke => "backend broke",
        }
    }

    /// One word.
    pub fn short(self) -> &'static str {
        match self {
            StepKind::NotReplayed => "other tool",
            StepKind::Same => "same",
            StepKind::Open => "open",
            StepKind::Dialect => "dialect",
            StepKind::Should => "SHOULD",
            StepKind::Must => "MUST",
            StepKind::Security => "SECURITY",
            StepKind::Changed => "changed",
            StepKind::Broke => "broke",
        }
    }

    /// Whether the step is a divergence worth stopping at: a SHOULD or MUST difference, a
    /// change, a broken backend. Dialects and open differences are equivalent answers.
    pub fn diverges(self) -> bool {
        matches!(
            self,
            StepKind::Should
                | StepKind::Must
                | StepKind::Security
                | StepKind::Changed
                | StepKind::Broke
        )
    }
}

/// A step's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepVerdict {
    /// The kind, for marks and navigation.
    pub kind: StepKind,
    /// The suite's outcome for it (pass, info, warn, fail, error, skip).
    pub outcome: Outcome,
    /// Every difference found.
    pub divergences: Vec<Finding>,
    /// Why it was not replayed, or how the backend broke.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl StepVerdict {
    /// A call to another tool.
    pub fn not_replayed(name: &str) -> StepVerdict {
        StepVerdict {
            kind: StepKind::NotReplayed,
            outcome: Outcome::Skip,
            divergences: Vec::new(),
            reason: Some(format!("a call to the `{name}` tool, not the memory tool")),
        }
    }

    /// The backend broke on this step.
    pub fn broke(reason: String) -> StepVerdict {
        StepVerdict {
            kind: StepKind::Broke,
            outcome: Outcome::Error,
            divergences: Vec::new(),
            reason: Some(reason),
        }
    }

    /// The verdict of a set of divergences; in check mode any difference from the recording
    /// is a change.
    /// A security divergence makes the step [`StepKind::Security`] and is listed first.
    pub fn graded(mut divergences: Vec<Finding>, check: bool) -> StepVerdict {
        divergences.sort_by_key(|d| !d.security);
        let outcome = divergences
            .iter()
            .map(|d| Outcome::for_level(d.level, false))
            .max()
            .unwrap_or(Outcome::Pass);
        let secure = divergences.iter().any(|d| d.security);
        let kind = match outcome {
            _ if secure && !check => StepKind::Security,
            Outcome::Fail if check => StepKind::Changed,
            Outcome::Fail => StepKind::Must,
            Outcome::Warn => StepKind::Should,
            Outcome::Info if divergences.iter().any(|d| d.dialect.is_some()) => StepKind::Dialect,
            Outcome::Info => StepKind::Open,
            Outcome::Error => StepKind::Broke,
            Outcome::Skip => StepKind::NotReplayed,
            Outcome::Pass => StepKind::Same,
        };
        StepVerdict {
            kind,
            outcome,
            divergences,
            reason: None,
        }
    }

    /// The earliest step (1-based) this step's differences follow from, when every one of
    /// them that counts (above INFO or in the security lane) is a consequence: such a step
    /// keeps its kind but is counted apart. `pair` limits it to one lane.
    pub fn follows(&self, pair: Option<Pair>) -> Option<usize> {
        let mut counted = self
            .divergences
            .iter()
            .filter(|d| pair.is_none_or(|p| d.pair == Some(p)) && d.counts())
            .peekable();
        counted.peek()?;
        counted.map(|d| d.cascade_of).min().flatten()
    }

    /// The first divergence at the verdict's level: what the step is about.
    pub fn headline(&self) -> Option<&Finding> {
        let worst = self.divergences.iter().map(|d| d.level).max()?;
        self.divergences.iter().find(|d| d.level == worst)
    }
}
