//! The revisions of the memory tool's page that memspec can judge by, and what
//! `spec/rules.json` says about each.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A revision of the memory tool's documentation page: the edition of the standard a run is
/// judged by. Backends in the wild were written from both, so every report names the one it used.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    Serialize,
    Deserialize,
    JsonSchema,
    clap::ValueEnum,
)]
pub enum Revision {
    /// The beta text (the seeds, 2025 to mid-2026): `create` never overwrites, several behaviours
    /// are left to the implementation.
    #[serde(rename = "beta-2025")]
    #[value(name = "beta-2025")]
    Beta2025,
    /// The page as rewritten when the tool became generally available (by 2026-06-28): what users
    /// read today, and what Claude expects.
    #[default]
    #[serde(rename = "ga-2026")]
    #[value(name = "ga-2026")]
    Ga2026,
}

impl Revision {
    /// Every revision, oldest first.
    pub const ALL: [Revision; 2] = [Revision::Beta2025, Revision::Ga2026];

    /// The id written in `spec/`, reports, baselines and golden files.
    pub fn id(self) -> &'static str {
        match self {
            Revision::Beta2025 => "beta-2025",
            Revision::Ga2026 => "ga-2026",
        }
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A revision id that memspec does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown spec revision `{0}`; the known revisions are beta-2025 and ga-2026")]
pub struct UnknownRevision(pub String);

impl FromStr for Revision {
    type Err = UnknownRevision;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Revision::ALL
            .into_iter()
            .find(|r| r.id() == s)
            .ok_or_else(|| UnknownRevision(s.to_string()))
    }
}

/// A revision of the page as `spec/rules.json` describes it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RevisionInfo {
    /// `beta-2025`, `ga-2026`.
    pub id: Revision,
    /// One line.
    pub title: String,
    /// The page's address.
    #[schemars(extend("format" = "uri"))]
    pub source: String,
    /// The stored copy the quotes were checked against.
    pub copy: String,
    /// The first date the text was seen (YYYY-MM-DD).
    #[schemars(extend("format" = "date"))]
    pub from: String,
    /// The last date it was seen, if it was replaced (YYYY-MM-DD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date"))]
    pub until: Option<String>,
    /// What it is.
    pub note: String,
    /// The changes from the revision before that no rule carries: what Claude or the caller is
    /// told, wording of labels.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<PageChange>,
}

/// A change of the page that no rule carries.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PageChange {
    /// Its id in the revision note (`A4`, `B1`).
    #[schemars(regex(pattern = crate::schema::CHANGE_ID))]
    pub id: String,
    /// `client` (for the caller or the model) or `wording`.
    #[schemars(extend("enum" = ["client", "wording"]))]
    pub kind: String,
    /// One line.
    pub title: String,
    /// The page's new words.
    pub quote: String,
    /// What it means for a backend and for memspec.
    pub effect: String,
}
