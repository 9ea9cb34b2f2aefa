//! What the harness plants in a sandbox before a case runs: a case's fixtures, a replay's seed.
//! Part of the case format, defined here because planting is the sandbox's job.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::schema;

/// Something made in the memories folder (`path` is relative to it) before the case runs.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    /// Relative to the memories folder, never absolute, never through `..`; parent folders are
    /// made as needed.
    #[schemars(
        length(min = 1),
        extend("not" = { "pattern": r"^/|(^|/)\.\.(/|$)" })
    )]
    pub path: String,
    /// What to make there.
    #[serde(flatten)]
    pub kind: FixtureKind,
}

/// The kinds of fixture.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum FixtureKind {
    /// A UTF-8 text file.
    Text(String),
    /// A file of raw bytes, hex-encoded (for non-UTF-8 content).
    BytesHex(#[schemars(regex(pattern = schema::HEX))] String),
    /// A file of `count` copies of `line` each followed by `\n` (large files).
    Repeat {
        /// The line, without its newline.
        line: String,
        /// How many times.
        count: usize,
        /// Whether the last line keeps its `\n`.
        #[serde(default = "yes")]
        final_newline: bool,
    },
    /// An empty folder.
    Dir(#[schemars(schema_with = "schema::always_true")] bool),
    /// A symbolic link; `{base}` and `{memories}` in the target are replaced by absolute paths;
    /// a relative target is relative to the link's folder.
    Symlink(#[schemars(length(min = 1))] String),
    /// A hard link to an existing file (`{base}` and `{memories}` replaced as for symlinks).
    Hardlink(#[schemars(length(min = 1))] String),
    /// A named pipe.
    Fifo(#[schemars(schema_with = "schema::always_true")] bool),
}

fn yes() -> bool {
    true
}
