//! Grading: findings, their levels, and a case's outcome.
//!
//! A miss at MUST fails, at SHOULD warns (fails with `--strict`), at INFO informs. A case's
//! outcome is its worst finding; a backend that crashed, hung or spoke garbage is an error,
//! which says nothing about conformance.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Finding;
use crate::protocol::ToolResult;
use crate::spec::{Level, RuleId};

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
    /// The user it was made as, in a case of many users (`users.*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
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
    /// What the engine that ran it says beyond its findings, a line each: how a fuzz
    /// divergence was shrunk, its steps, where it was kept and whether the kept case shows it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<crate::schema::JsonText>")]
    pub notes: Vec<String>,
    /// Whether the case broke only by a call past its deadline (`--timeout`): on a busy machine
    /// that can be the machine's fault, which a recheck alone tells (not in the report).
    #[serde(skip)]
    #[schemars(skip)]
    pub timed_out: bool,
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
    /// A result of case `id` that has run nothing yet: passed, no finding, no call, no time;
    /// each engine sets what its run showed (`CaseResult { outcome, findings, ..new(…) }`).
    pub fn new(
        id: impl Into<String>,
        area: impl Into<String>,
        title: impl Into<String>,
        level: Level,
        rules: Vec<String>,
    ) -> CaseResult {
        CaseResult {
            id: id.into(),
            area: area.into(),
            title: title.into(),
            level,
            hostile: false,
            rules,
            outcome: Outcome::Pass,
            reason: None,
            findings: Vec::new(),
            calls: Vec::new(),
            duration: Duration::ZERO,
            start_time: Duration::ZERO,
            baselined: None,
            choices: Vec::new(),
            notes: Vec::new(),
            timed_out: false,
        }
    }

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
