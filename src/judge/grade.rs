//! Grading: findings, their levels, and a case's outcome.
//!
//! A miss at MUST fails, at SHOULD warns (fails with `--strict`), at INFO informs. A case's
//! outcome is its worst finding; a backend that crashed, hung or spoke garbage is an error,
//! which says nothing about conformance.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::ToolResult;
use crate::spec::{RuleId, known};
use crate::suite::case::Level;

/// A case's outcome, ordered from best to worst.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Not run, with a reason.
    Skip,
    /// Every check held.
    Pass,
    /// Only INFO checks (the reference's decisions) differed.
    Info,
    /// A SHOULD check (the spec's exact strings) differed.
    Warn,
    /// A MUST check (safety, semantics) failed, or a SHOULD one under `--strict`.
    Fail,
    /// The backend crashed, hung or spoke garbage. (A harness that cannot run a case stops
    /// the run instead: it says nothing about the backend.)
    Error,
}

impl Outcome {
    /// Lowercase name (`pass`, `fail`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Skip => "skip",
            Outcome::Pass => "pass",
            Outcome::Info => "info",
            Outcome::Warn => "warn",
            Outcome::Fail => "fail",
            Outcome::Error => "error",
        }
    }

    /// The outcome of a missed check at `level`.
    pub fn for_level(level: Level, strict: bool) -> Outcome {
        match level {
            Level::Must => Outcome::Fail,
            Level::Should if strict => Outcome::Fail,
            Level::Should => Outcome::Warn,
            Level::Info => Outcome::Info,
        }
    }
}

/// What kind of check a finding comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// A setup call returned an error.
    Setup,
    /// The `is_error` flag.
    IsError,
    /// The text.
    Text,
    /// The numbered lines a ranged view shows, as facts: their numbers and contents, whatever
    /// the format of the numbering.
    Lines,
    /// A substring the text must not contain.
    MustNotContain,
    /// Canary content appeared in an output.
    Leak,
    /// The sandbox's absolute path appeared in an output.
    HostPath,
    /// The memories folder after the steps.
    Effect,
    /// The memories folder after the steps lacks a file or folder that should be there: a
    /// memory lost (deleted, moved away, or never written).
    Lost,
    /// Something outside the memories folder changed.
    Outside,
    /// The backend put something in the harness's way in the sandbox (a link, a FIFO, an
    /// immutable file where the harness works): never followed, reported.
    Sandbox,
}

/// How much a fault costs the backend's user. Root causes are ranked by it, the worst first:
/// an effect that costs memories is never filed under the flag or text that came with it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Harm {
    /// A text worded otherwise than the spec's.
    Wording,
    /// A wrong `is_error` flag.
    Flag,
    /// Wrong content or semantics: a file that holds the wrong text, a wrong view.
    Content,
    /// Memories lost, overwritten or moved away; the root deleted or moved.
    Loss,
    /// Something outside the memories folder read, written or shown (an escape, a leak, a host
    /// path), or the harness's sandbox tampered with.
    Escape,
}

impl Harm {
    /// The label a report puts before a cause of this harm, if any.
    pub fn label(self) -> Option<&'static str> {
        match self {
            Harm::Escape => Some("SECURITY"),
            Harm::Loss => Some("DATA LOSS"),
            Harm::Content | Harm::Flag | Harm::Wording => None,
        }
    }
}

/// Rules whose broken effect costs memories even when every path is still there: an
/// overwritten file, a root moved or emptied, a write lost to another client.
const LOSS_RULES: [RuleId; 5] = [
    known::DELETE_NOT_ROOT,
    known::RENAME_NOT_ROOT,
    known::CREATE_NO_OVERWRITE,
    known::RENAME_NO_OVERWRITE,
    known::CONCURRENCY_NO_LOST_UPDATE,
];

/// The worst of `findings` by [`Finding::weight`]; the first of equals.
pub fn worst<'a>(findings: impl IntoIterator<Item = &'a Finding>) -> Option<&'a Finding> {
    findings
        .into_iter()
        .fold(None, |worst: Option<&Finding>, f| match worst {
            Some(w) if w.weight() >= f.weight() => Some(w),
            _ => Some(f),
        })
}

/// One check that did not hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Finding {
    /// Kind of check.
    pub check: Check,
    /// Level it was graded at.
    pub level: Level,
    /// Rule it breaks.
    pub rule: RuleId,
    /// Index of the step (0-based), when it is about one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    /// One line saying what is wrong.
    #[schemars(with = "crate::schema::JsonText")]
    pub message: String,
    /// What was expected, verbatim.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<crate::schema::JsonText>")]
    pub expected: Option<String>,
    /// What came back, verbatim.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<crate::schema::JsonText>")]
    pub actual: Option<String>,
    /// The known dialect the text matched, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dialect: Option<String>,
    /// Set when an earlier check of the case already broke a rule and this one only restates
    /// it. Such a finding is shown, never counted as a root cause of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follows: Option<Cause>,
    /// `expected` as diffs show it when it is a template: lines that matched read as the actual
    /// lines they matched, the others as written, marked `(template)`. Not in the JSON report,
    /// which has the template itself in `expected`.
    #[serde(skip)]
    pub expected_shown: Option<String>,
}

/// The finding another one follows from: its rule, and where it was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Cause {
    /// The rule it broke.
    pub rule: RuleId,
    /// Its step (0-based); `None` for the setup.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
}

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.step {
            Some(step) => write!(f, "{} at step {}", self.rule, step + 1),
            None => write!(f, "{} at setup", self.rule),
        }
    }
}

impl Finding {
    /// What the fault costs, from the kind of check and the rule it breaks.
    pub fn harm(&self) -> Harm {
        match self.check {
            Check::Leak
            | Check::HostPath
            | Check::Outside
            | Check::Sandbox
            | Check::MustNotContain => Harm::Escape,
            Check::Lost => Harm::Loss,
            Check::Effect if LOSS_RULES.contains(&self.rule) => Harm::Loss,
            Check::Effect | Check::Setup | Check::Lines => Harm::Content,
            Check::IsError => Harm::Flag,
            Check::Text => Harm::Wording,
        }
    }

    /// How it ranks among findings: by harm, then by level.
    pub fn weight(&self) -> (Harm, Level) {
        (self.harm(), self.level)
    }

    /// The expected text to diff against `actual`.
    pub fn expected_for_diff(&self) -> Option<&str> {
        self.expected_shown.as_deref().or(self.expected.as_deref())
    }
}

/// Which part of a case a call belonged to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// A setup call.
    Setup,
    /// A step under test.
    Step,
    /// A `view` the harness made to read a setup call's file or an effect back through the tool.
    Witness,
}

/// One call made during a case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CallRecord {
    /// Setup or step.
    pub phase: Phase,
    /// The input sent.
    pub input: Value,
    /// What came back, if anything did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<ToolResult>,
    /// How the backend broke, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<crate::schema::JsonText>")]
    pub error: Option<String>,
    /// Time spent waiting for the backend, in microseconds.
    #[serde(with = "micros")]
    #[schemars(with = "u64")]
    pub backend_time: Duration,
}

/// The result of one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CaseResult {
    /// Case id.
    pub id: String,
    /// Area (file) it comes from.
    pub area: String,
    /// Case title.
    pub title: String,
    /// The case's level.
    pub level: Level,
    /// Whether it is an attack case.
    pub hostile: bool,
    /// Rules the case checks.
    pub rules: Vec<String>,
    /// The outcome.
    pub outcome: Outcome,
    /// Why it was skipped, or how the backend broke.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<crate::schema::JsonText>")]
    pub reason: Option<String>,
    /// Checks that did not hold.
    pub findings: Vec<Finding>,
    /// Every call, in order.
    pub calls: Vec<CallRecord>,
    /// Whole case, harness included, in microseconds.
    #[serde(with = "micros")]
    #[schemars(with = "u64")]
    pub duration: Duration,
    /// Time spent starting the backend or resetting it for this case, in microseconds.
    #[serde(with = "micros", default)]
    #[schemars(with = "u64")]
    pub start_time: Duration,
    /// Set when the outcome is accepted by a baseline entry: the entry's reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<crate::schema::JsonText>")]
    pub baselined: Option<String>,
    /// The steps on which the revision allows another outcome besides the expected one, and
    /// whether the backend took it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<Choice>,
}

/// A step on which the revision allows an outcome besides the expected one (GA: `create` may
/// overwrite an existing file), and whether the backend took it. Reported (INFO), never a
/// finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Choice {
    /// The rule that allows it.
    pub rule: RuleId,
    /// The step (0-based).
    pub step: usize,
    /// The other outcome's name (`overwrites`).
    pub choice: String,
    /// Whether the backend took it rather than the expected outcome.
    pub taken: bool,
}

impl CaseResult {
    /// The outcome implied by the findings (used when nothing broke).
    pub fn graded(findings: &[Finding], strict: bool) -> Outcome {
        findings
            .iter()
            .map(|f| Outcome::for_level(f.level, strict))
            .max()
            .unwrap_or(Outcome::Pass)
    }

    /// Time spent waiting for the backend in this case.
    pub fn backend_time(&self) -> Duration {
        self.calls.iter().map(|c| c.backend_time).sum()
    }
}

/// Durations as whole microseconds in JSON.
mod micros {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_micros() as u64)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_micros(u64::deserialize(d)?))
    }
}
