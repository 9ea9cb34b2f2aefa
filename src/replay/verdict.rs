//! A step's verdict: which of the three results (recorded, backend, reference) differ, how, at
//! which level and against which rule, as the judge ([`crate::judge::compare`]) graded them.

use serde::Serialize;

pub use crate::judge::compare::{Results, compare, compare_with, leak, listing_sizes};
use crate::judge::grade::Outcome;
use crate::judge::{Finding, Pair};

/// The verdict's kind, from best to worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
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

impl Kind {
    /// One-cell mark for lists.
    pub fn mark(self) -> &'static str {
        match self {
            Kind::NotReplayed => "·",
            Kind::Same => "✓",
            Kind::Open | Kind::Dialect => "≈",
            Kind::Should => "△",
            Kind::Must => "✗",
            Kind::Security => "⚑",
            Kind::Changed => "Δ",
            Kind::Broke => "!",
        }
    }

    /// Short label.
    pub fn label(self) -> &'static str {
        match self {
            Kind::NotReplayed => "not replayed",
            Kind::Same => "same",
            Kind::Open => "open (INFO)",
            Kind::Dialect => "known dialect",
            Kind::Should => "SHOULD difference",
            Kind::Must => "MUST difference",
            Kind::Security => "SECURITY",
            Kind::Changed => "changed",
            Kind::Broke => "backend broke",
        }
    }

    /// One word.
    pub fn short(self) -> &'static str {
        match self {
            Kind::NotReplayed => "other tool",
            Kind::Same => "same",
            Kind::Open => "open",
            Kind::Dialect => "dialect",
            Kind::Should => "SHOULD",
            Kind::Must => "MUST",
            Kind::Security => "SECURITY",
            Kind::Changed => "changed",
            Kind::Broke => "broke",
        }
    }

    /// Whether the step is a divergence worth stopping at: a SHOULD or MUST difference, a
    /// change, a broken backend. Dialects and open differences are equivalent answers.
    pub fn diverges(self) -> bool {
        matches!(
            self,
            Kind::Should | Kind::Must | Kind::Security | Kind::Changed | Kind::Broke
        )
    }
}

/// A step's verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepVerdict {
    /// The kind, for marks and navigation.
    pub kind: Kind,
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
            kind: Kind::NotReplayed,
            outcome: Outcome::Skip,
            divergences: Vec::new(),
            reason: Some(format!("a call to the `{name}` tool, not the memory tool")),
        }
    }

    /// The backend broke on this step.
    pub fn broke(reason: String) -> StepVerdict {
        StepVerdict {
            kind: Kind::Broke,
            outcome: Outcome::Error,
            divergences: Vec::new(),
            reason: Some(reason),
        }
    }

    /// The verdict of a set of divergences; in check mode any difference from the recording
    /// is a change.
    /// A security divergence makes the step [`Kind::Security`] and is listed first.
    pub fn graded(mut divergences: Vec<Finding>, check: bool) -> StepVerdict {
        divergences.sort_by_key(|d| !d.security);
        let outcome = divergences
            .iter()
            .map(|d| Outcome::for_level(d.level, false))
            .max()
            .unwrap_or(Outcome::Pass);
        let secure = divergences.iter().any(|d| d.security);
        let kind = match outcome {
            _ if secure && !check => Kind::Security,
            Outcome::Fail if check => Kind::Changed,
            Outcome::Fail => Kind::Must,
            Outcome::Warn => Kind::Should,
            Outcome::Info if divergences.iter().any(|d| d.dialect.is_some()) => Kind::Dialect,
            Outcome::Info => Kind::Open,
            Outcome::Error => Kind::Broke,
            Outcome::Skip => Kind::NotReplayed,
            Outcome::Pass => Kind::Same,
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
