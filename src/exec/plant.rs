//! What the harness plants in a sandbox before a case runs: a case's fixtures, a replay's seed.
//! Part of the case format, defined here because planting is the sandbox's job.

use serde::{Deserialize, Serialize};

/// Something made in the memories folder (`path` is relative to it) before the case runs.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    /// Relative to the memories folder; parent folders are made as needed.
    pub path: String,
    /// What to make there.
    #[serde(flatten)]
    pub kind: FixtureKind,
}

/// The kinds of fixture.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FixtureKind {
    /// A UTF-8 text file.
    Text(String),
    /// A file of raw bytes, hex-encoded (for non-UTF-8 content).
    BytesHex(String),
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
    Dir(bool),
    /// A symbolic link; `{base}` and `{memories}` in the target are replaced by absolute paths.
    Symlink(String),
    /// A hard link to an existing file (`{base}` and `{memories}` replaced as for symlinks).
    Hardlink(String),
    /// A named pipe.
    Fifo(bool),
}

fn yes() -> bool {
    true
}
