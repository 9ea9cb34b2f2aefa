//! A seed description: what it holds, its bounds, and reading it from a file or from JSON,
//! checked before anything is made.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::exec::fs;
use crate::exec::plant::{Fixture, FixtureKind};

/// The most a seed may hold: file contents and link targets together.
pub const SEED_BYTES_LIMIT: u64 = 64 << 20;

/// The most entries a seed may hold (in `/memories` and outside together; a folder seed counts
/// every name in it).
pub const SEED_ENTRY_LIMIT: usize = 10_000;

/// The most of a seed file that is read: a description spells bytes as two hex digits and
/// text with JSON escapes, so it may be larger than the seed it describes.
const SEED_FILE_LIMIT: u64 = 3 * SEED_BYTES_LIMIT;

const SEED_HELP: &str = "--seed takes a folder, a seed description ({\"memories\": [...], \"outside\": [...]}) or a golden file";

/// The keys of a seed entry: the case format's fixture keys.
const ENTRY_KEYS: [&str; 8] = [
    "path",
    "text",
    "bytes_hex",
    "repeat",
    "dir",
    "symlink",
    "hardlink",
    "fifo",
];

const ENTRY_HELP: &str = "an entry is {\"path\": ...} with one of \"text\", \"bytes_hex\", \"repeat\", \"dir\", \"symlink\", \"hardlink\", \"fifo\"";

/// What a sandbox starts with, described: made in order, outside entries first.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seed {
    /// Made in the memory folder (`path` relative to `/memories`).
    #[serde(default)]
    pub memories: Vec<Fixture>,
    /// Files and folders made beside `memories/` (`path` relative to the sandbox's folder),
    /// watched like canaries.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outside: Vec<Fixture>,
}

/// Why a seeded sandbox could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    /// The sandbox itself: the harness's problem.
    #[error("cannot make a scratch folder: {0}")]
    Sandbox(io::Error),
    /// The seed could not be read: the user's to fix.
    #[error("cannot read the seed {path}: {source}; {SEED_HELP}")]
    Read {
        /// The folder or file given.
        path: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
    /// The seed as a whole is not one: the user's to fix.
    #[error("seed {seed}: {reason}")]
    Invalid {
        /// The seed, named as given.
        seed: String,
        /// What is wrong.
        reason: String,
    },
    /// One entry is wrong, or cannot be made where it says: the user's to fix.
    #[error("seed {seed}: {entry}: {reason}")]
    Entry {
        /// The seed, named as given.
        seed: String,
        /// The entry (`memories[2] "notes.md"`).
        entry: String,
        /// What is wrong.
        reason: String,
    },
    /// An entry could not be made for a reason of the machine (a full RAM disk): the harness's.
    #[error("seed {seed}: cannot make {entry}: {source}")]
    Plant {
        /// The seed, named as given.
        seed: String,
        /// The entry.
        entry: String,
        /// What the operating system said.
        source: io::Error,
    },
}

impl SeedError {
    /// Whether the user can fix it by changing the arguments (exit 2) rather than it being
    /// the harness's problem (exit 4).
    pub fn is_usage(&self) -> bool {
        !matches!(self, SeedError::Sandbox(_) | SeedError::Plant { .. })
    }
}

impl Seed {
    /// Reads a seed: a folder (converted with [`Seed::from_folder`]), a seed description, or
    /// a golden file (the seed its header holds). Links are never followed inside a folder;
    /// the path given is the user's own, and a link there is followed like any argument.
    pub fn load(path: &Path) -> Result<Seed, SeedError> {
        let read_error = |source: io::Error| SeedError::Read {
            path: path.to_path_buf(),
            source,
        };
        let meta = std::fs::metadata(path).map_err(read_error)?;
        if meta.is_dir() {
            return Seed::from_folder(path);
        }
        let name = path.display().to_string();
        if !meta.is_file() {
            // A FIFO or a device would block or never end.
            return Err(invalid(
                &name,
                &format!("neither a folder nor a file; {SEED_HELP}"),
            ));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|file| file.take(SEED_FILE_LIMIT + 1).read_to_end(&mut bytes))
            .map_err(read_error)?;
        // A golden file: its first line is the header, whatever follows.
        let first = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
        if let Ok(Value::Object(header)) = serde_json::from_slice::<Value>(first)
            && header.contains_key("memspec_session")
        {
            return match header.get("seed") {
                None | Some(Value::Null) => Err(invalid(&name, "this golden file records no seed")),
                Some(Value::String(folder)) => Err(invalid(
                    &name,
                    &format!(
                        "this golden file names its seed folder {folder:?} (an older memspec) instead of holding it; pass that folder as --seed"
                    ),
                )),
                Some(value) => Seed::from_value(value, &name),
            };
        }
        if bytes.len() as u64 > SEED_FILE_LIMIT {
            return Err(invalid(
                &name,
                &format!("the file is over {SEED_FILE_LIMIT} bytes"),
            ));
        }
        let value: Value = serde_json::from_slice(&bytes)
            .map_err(|e| invalid(&name, &format!("not JSON ({e}); {SEED_HELP}")))?;
        Seed::from_value(&value, &name)
    }

    /// A seed description from its JSON, checked ([`Seed::check`]); `seed` names it in errors.
    /// Each entry is read on its own, so that an error names it.
    pub fn from_value(value: &Value, seed: &str) -> Result<Seed, SeedError> {
        let Value::Object(map) = value else {
            return Err(invalid(
                seed,
                &format!("not a seed description; {SEED_HELP}"),
            ));
        };
        if let Some(key) = map.keys().find(|k| *k != "memories" && *k != "outside") {
            return Err(invalid(
                seed,
                &format!(
                    "unknown key {key:?}; a seed description has \"memories\" and \"outside\""
                ),
            ));
        }
        let list = |area: &str| -> Result<Vec<Fixture>, SeedError> {
            let items = match map.get(area) {
                None | Some(Value::Null) => return Ok(Vec::new()),
                Some(Value::Array(items)) => items,
                Some(_) => return Err(invalid(seed, &format!("\"{area}\" must be a list"))),
            };
            items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let path = item.get("path").and_then(Value::as_str).unwrap_or("");
                    // serde names no key when a flattened kind is missing; a misspelt one is
                    // the likely cause, so name it.
                    let unknown = item.as_object().and_then(|entry| {
                        entry.keys().find(|key| !ENTRY_KEYS.contains(&key.as_str()))
                    });
                    if let Some(key) = unknown {
                        return Err(SeedError::Entry {
                            seed: seed.to_string(),
                            entry: entry_name(area, i, path),
                            reason: format!("unknown key {key:?}; {ENTRY_HELP}"),
                        });
                    }
                    let mut fixture = Fixture::deserialize(item).map_err(|e| SeedError::Entry {
                        seed: seed.to_string(),
                        entry: entry_name(area, i, path),
                        reason: format!("{e}; {ENTRY_HELP}"),
                    })?;
                    // `empty/` says "a folder" the way people write it.
                    if matches!(fixture.kind, FixtureKind::Dir(_))
                        && fixture.path.len() > 1
                        && let Some(trimmed) = fixture.path.strip_suffix('/')
                    {
                        fixture.path = trimmed.to_string();
                    }
                    Ok(fixture)
                })
                .collect()
        };
        let described = Seed {
            memories: list("memories")?,
            outside: list("outside")?,
        };
        described.check(seed)?;
        Ok(described)
    }

    /// Checks what can be checked before anything is made: the bounds, plain relative paths,
    /// and only files and folders outside.
    pub fn check(&self, seed: &str) -> Result<(), SeedError> {
        let total = self.memories.len() + self.outside.len();
        if total > SEED_ENTRY_LIMIT {
            return Err(invalid(
                seed,
                &format!("{total} entries, over the limit of {SEED_ENTRY_LIMIT}"),
            ));
        }
        let mut bytes = 0u64;
        for (area, list) in [("outside", &self.outside), ("memories", &self.memories)] {
            for (i, fixture) in list.iter().enumerate() {
                let wrong = |reason: &str| SeedError::Entry {
                    seed: seed.to_string(),
                    entry: entry_name(area, i, &fixture.path),
                    reason: reason.to_string(),
                };
                let folder = if area == "outside" {
                    "the sandbox's folder"
                } else {
                    "/memories"
                };
                if fixture.path.starts_with('/') {
                    return Err(wrong(&format!(
                        "the path is absolute; seed paths are relative to {folder}"
                    )));
                }
                if fixture.path.split('/').any(|part| part == "..") {
                    return Err(wrong(&format!(
                        "the path holds `..`; seed paths stay inside {folder}"
                    )));
                }
                if fs::components(&fixture.path).is_err() {
                    return Err(wrong(
                        "the path is not plain (empty, `.` or NUL components)",
                    ));
                }
                if area == "outside" {
                    if fixture.path.split('/').next() == Some("memories") {
                        return Err(wrong(
                            "is in the memories folder; outside entries go beside it",
                        ));
                    }
                    if !matches!(
                        fixture.kind,
                        FixtureKind::Text(_)
                            | FixtureKind::BytesHex(_)
                            | FixtureKind::Repeat { .. }
                            | FixtureKind::Dir(_)
                    ) {
                        return Err(wrong(
                            "outside /memories a seed makes files and folders only",
                        ));
                    }
                }
                bytes = bytes.saturating_add(size_of(&fixture.kind));
                if bytes > SEED_BYTES_LIMIT {
                    return Err(wrong(&format!(
                        "brings the seed over {SEED_BYTES_LIMIT} bytes (64 MiB)"
                    )));
                }
            }
        }
        Ok(())
    }

    /// The description as JSON, as a golden file's header keeps it.
    pub fn to_value(&self) -> Value {
        // Strings, lists and booleans only: serialising cannot fail.
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// `memories[2] "notes.md"`: an entry as errors name it.
pub(super) fn entry_name(area: &str, index: usize, path: &str) -> String {
    format!("{area}[{index}] {path:?}")
}

pub(super) fn invalid(seed: &str, reason: &str) -> SeedError {
    SeedError::Invalid {
        seed: seed.to_string(),
        reason: reason.to_string(),
    }
}

/// How many bytes an entry makes (what the size limit counts).
fn size_of(kind: &FixtureKind) -> u64 {
    match kind {
        FixtureKind::Text(text) => text.len() as u64,
        FixtureKind::BytesHex(hex) => {
            hex.bytes().filter(|b| !b.is_ascii_whitespace()).count() as u64 / 2
        }
        FixtureKind::Repeat { line, count, .. } => {
            (line.len() as u64 + 1).saturating_mul(*count as u64)
        }
        FixtureKind::Symlink(target) | FixtureKind::Hardlink(target) => target.len() as u64,
        FixtureKind::Dir(_) | FixtureKind::Fifo(_) => 0,
    }
}
