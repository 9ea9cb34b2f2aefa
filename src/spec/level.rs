//! How much a rule weighs: MUST, SHOULD or INFO.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Grading level of a rule or check (on the command line: `must`, `should`, `info`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    clap::ValueEnum,
)]
pub enum Level {
    /// What the spec leaves open and the reference decides: a miss informs.
    #[serde(rename = "INFO")]
    Info,
    /// The spec's exact strings and formats: a miss warns (fails with `--strict`).
    #[serde(rename = "SHOULD")]
    Should,
    /// Safety and semantics: a miss fails.
    #[serde(rename = "MUST")]
    Must,
}

impl Level {
    /// `MUST`, `SHOULD` or `INFO`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::Info => "INFO",
        }
    }
}
