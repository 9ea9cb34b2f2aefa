//! The finding: the one currency every command's grading pays out in.
//!
//! `check` files a finding against a case's expectations; `replay` against the reference or the
//! recording (its [`Pair`], the security lane and the cascade are fields); `fuzz` and the races
//! name the [`Fact`] that differs. One type, so that the same fault gets the same grade, the
//! same harm and the same line in every report, whichever command found it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::spec::{Level, RuleId, known};

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
    /// The numbered lines a view shows, as facts: their numbers and contents, whatever the
    /// format of the numbering.
    Lines,
    /// A folder's listing, as facts: the paths it names and each file's size as a byte count.
    Listing,
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
    /// The backend crashed, hung or spoke garbage (`errors.terminates`).
    Broke,
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

/// Which two results a replayed finding compares. `check`'s findings have none: they compare
/// the backend with the case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Pair {
    /// The backend under test against the reference: is the backend conformant here?
    BackendReference,
    /// The recorded result against the reference: was the recording conformant?
    RecordedReference,
    /// The recorded result against the backend: does the replay reproduce the recording?
    RecordedBackend,
}

impl Pair {
    /// Every pair, in the order the TUI cycles through them.
    pub const ALL: [Pair; 3] = [
        Pair::BackendReference,
        Pair::RecordedReference,
        Pair::RecordedBackend,
    ];

    /// `backend ≠ reference`.
    pub fn label(self) -> &'static str {
        match self {
            Pair::BackendReference => "backend ≠ reference",
            Pair::RecordedReference => "recorded ≠ reference",
            Pair::RecordedBackend => "recorded ≠ backend",
        }
    }

    /// The names of the two sides: (expected, actual) in a diff.
    pub fn sides(self) -> (&'static str, &'static str) {
        match self {
            Pair::BackendReference => ("reference", "backend"),
            Pair::RecordedReference => ("reference", "recorded"),
            Pair::RecordedBackend => ("recorded", "backend"),
        }
    }
}

/// What kind of fact differs, as the fuzzer and the races name it: their summaries group
/// findings by it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Fact {
    /// The backend crashed, hung or spoke garbage.
    Broke,
    /// A path left `/memories`, a change outside it, a host path or canary content shown.
    Security,
    /// Success where the reference refuses, or the other way round.
    Outcome,
    /// A file read back with other lines than it holds.
    Content,
    /// A listing that misses entries or names ones that do not exist.
    Listing,
    /// A size that is not the file's byte count.
    Size,
    /// The backend's memory folder differs from the reference's after the step.
    Folder,
    /// Concurrent clients: an acknowledged write lost, two creates of one path acknowledged,
    /// or a read of a state that never existed.
    Race,
}

impl Fact {
    /// One word for ids and file names.
    pub fn slug(self) -> &'static str {
        match self {
            Fact::Broke => "broke",
            Fact::Security => "security",
            Fact::Outcome => "outcome",
            Fact::Content => "content",
            Fact::Listing => "listing",
            Fact::Size => "size",
            Fact::Folder => "folder",
            Fact::Race => "race",
        }
    }

    /// Words for the summary.
    pub fn label(self) -> &'static str {
        match self {
            Fact::Broke => "backend broke",
            Fact::Security => "security",
            Fact::Outcome => "success vs error",
            Fact::Content => "content read back",
            Fact::Listing => "listing",
            Fact::Size => "size",
            Fact::Folder => "folder on disk",
            Fact::Race => "concurrent clients",
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

/// One check that did not hold, whichever command made it. Built with [`Finding::new`] and
/// the setters below it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Finding {
    /// Which two results a replayed finding compares; none in `check`, which compares the
    /// backend with the case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair: Option<Pair>,
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
    /// The open decision(s) (INFO rules) that explain a replayed text difference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<String>,
    /// The step (1-based) of a replay whose divergence on a command that changed the store
    /// this one follows from: a consequence, not a cause of its own (`follows step N`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cascade_of: Option<usize>,
    /// A security finding: a path outside `/memories` accepted, a change outside the root, a
    /// host path or canary content in an answer. Shown first, whatever its level.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub security: bool,
    /// The kind of fact that differs, where the fuzzer or a race judged it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fact: Option<Fact>,
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

/// `message [LEVEL rule]`: the one spelling of a finding's line, in every report and format.
impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} [{} {}]",
            self.message,
            self.level.as_str(),
            self.rule
        )
    }
}

impl Finding {
    /// A check that did not hold: `check` broke `rule`, graded at `level`.
    pub fn new(check: Check, level: Level, rule: RuleId, message: impl Into<String>) -> Self {
        Finding {
            pair: None,
            check,
            level,
            rule,
            step: None,
            message: message.into(),
            expected: None,
            actual: None,
            dialect: None,
            follows: None,
            open: None,
            cascade_of: None,
            security: false,
            fact: None,
            expected_shown: None,
        }
    }

    /// The backend crashed, hung or spoke garbage (`errors.terminates`): how. A crash is graded
    /// by its outcome (an error), not by what it cost.
    pub fn broke(message: impl Into<String>) -> Self {
        Finding::new(Check::Broke, Level::Must, known::TERMINATES, message).with_fact(Fact::Broke)
    }

    /// At step `step` (0-based); `None` for the setup.
    pub fn at(mut self, step: Option<usize>) -> Self {
        self.step = step;
        self
    }

    /// What was expected, verbatim.
    pub fn expecting(mut self, expected: impl Into<String>) -> Self {
        self.expected = Some(expected.into());
        self
    }

    /// What came back, verbatim.
    pub fn actually(mut self, actual: impl Into<String>) -> Self {
        self.actual = Some(actual.into());
        self
    }

    /// The known dialect the text matched.
    pub fn in_dialect(mut self, dialect: Option<String>) -> Self {
        self.dialect = dialect;
        self
    }

    /// Restates `cause`: shown, never a root cause of its own.
    pub fn following(mut self, cause: Option<Cause>) -> Self {
        self.follows = cause;
        self
    }

    /// Compares `pair`'s two results.
    pub fn between(mut self, pair: Pair) -> Self {
        self.pair = Some(pair);
        self
    }

    /// In the security lane: shown first, whatever its level.
    pub fn secure(mut self) -> Self {
        self.security = true;
        self
    }

    /// The kind of fact that differs.
    pub fn with_fact(mut self, fact: Fact) -> Self {
        self.fact = Some(fact);
        self
    }

    /// The pair it compares; a `check` finding compares the backend with what the reference
    /// and the case expect.
    pub fn lane(&self) -> Pair {
        self.pair.unwrap_or(Pair::BackendReference)
    }

    /// The kind of fact that differs: the one the fuzzer or a race named, else read from the
    /// check.
    pub fn differs(&self) -> Fact {
        if let Some(fact) = self.fact {
            return fact;
        }
        if self.security || self.harm() == Harm::Escape {
            return Fact::Security;
        }
        match self.check {
            Check::Broke => Fact::Broke,
            Check::IsError | Check::Setup => Fact::Outcome,
            Check::Lines | Check::Text => Fact::Content,
            Check::Listing => Fact::Listing,
            _ => Fact::Folder,
        }
    }

    /// Whether it counts: above INFO, or in the security lane.
    pub fn counts(&self) -> bool {
        self.security || self.level != Level::Info
    }

    /// What the fault costs, from the kind of check and the rule it breaks.
    pub fn harm(&self) -> Harm {
        // One user reaching another's memories is an escape from the first's `/memories`,
        // whatever the check that saw it; a finding of that rule that is not checked (INFO) is
        // no crossing.
        if self.rule == known::USERS_ISOLATED && self.level != Level::Info {
            return Harm::Escape;
        }
        match self.check {
            Check::Leak
            | Check::HostPath
            | Check::Outside
            | Check::Sandbox
            | Check::MustNotContain => Harm::Escape,
            Check::Lost => Harm::Loss,
            Check::Effect if LOSS_RULES.contains(&self.rule) => Harm::Loss,
            Check::Effect | Check::Setup | Check::Lines | Check::Listing | Check::Broke => {
                Harm::Content
            }
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
