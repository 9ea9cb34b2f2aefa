//! The spec's rules and the reference's decisions, loaded from `spec/rules.json` and
//! `spec/decisions.json`.

use std::collections::BTreeMap;

pub mod file;
mod graded;
pub mod known;
mod level;
mod load;
mod lookup;
mod revision;
mod rule;
pub use graded::{Always, Graded};
pub use level::Level;
pub use load::SpecError;
pub use revision::{PageChange, Revision, RevisionInfo, UnknownRevision};
pub use rule::{Rule, RuleId};

/// The rules of one revision of the spec, by id.
#[derive(Debug, Clone, Default)]
pub struct Spec {
    revision: Revision,
    rules: BTreeMap<String, Rule>,
    /// Ids that are not rules in this revision but are graded as another one (a GA rule that the
    /// beta page left to a decision).
    graded_as: BTreeMap<String, RuleId>,
    /// Ids that exist only in other revisions, with why.
    elsewhere: BTreeMap<String, String>,
    revisions: Vec<RevisionInfo>,
}
