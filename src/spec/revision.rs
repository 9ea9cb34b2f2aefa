//! The revisions of the memory tool's page that memspec can judge by.

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
