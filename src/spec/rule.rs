//! A rule of the spec and its checked id, as one revision of the page holds it.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::Level;

/// The id of a rule of `spec/` (`create.no-overwrite`, `decide.final-newline`).
///
/// Made only by [`Spec::id`], which knows the id, or as one of the [`known`] ids the code itself
/// names, every one of which [`Spec`] refuses to load without; so a finding never names a rule
/// the spec does not have, and a rewording of a message cannot change which rule is meant.
///
/// [`Spec::id`]: super::Spec::id
/// [`known`]: super::known
/// [`Spec`]: super::Spec
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RuleId(pub(super) Cow<'static, str>);

impl RuleId {
    /// One of the ids the code names; listed in [`known::ALL`], checked when a spec loads.
    ///
    /// [`known::ALL`]: super::known::ALL
    pub(super) const fn known(id: &'static str) -> RuleId {
        RuleId(Cow::Borrowed(id))
    }

    /// The id as written in `spec/`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether it names a decision of the reference (`decide.*`): never graded above INFO.
    pub fn is_decision(&self) -> bool {
        self.0.starts_with("decide.")
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<str> for RuleId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for RuleId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl schemars::JsonSchema for RuleId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RuleId".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "The id of a rule of spec/rules.json or, under `decide.`, of a decision of spec/decisions.json: a stable dotted slug of lower-case words joined by '-', at least two segments, each starting with a letter.",
            "type": "string",
            "pattern": crate::schema::RULE_ID,
        })
    }
}

/// A rule: a sentence of the spec (MUST / SHOULD) or a decision of the reference (INFO), as it
/// holds in one revision of the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Stable id (`create.no-overwrite`, `decide.final-newline`).
    pub id: RuleId,
    /// Grading level.
    pub level: Level,
    /// Where in the doc it comes from (for decisions: "decision").
    pub section: String,
    /// The quoted sentence (for decisions: the decision).
    pub text: String,
    /// One plain line.
    pub summary: String,
    /// `quoted` (the page says it) or `derived` (it follows from what the page says); empty for
    /// decisions.
    pub basis: String,
    /// A remark on the rule in this revision.
    pub note: String,
    /// The change of `../shared/spec-revisions/ga-2026.md` that made the rule what it is in this
    /// revision (`A7`), if one did.
    pub change: Option<String>,
}
