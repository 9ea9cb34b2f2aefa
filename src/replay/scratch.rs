//! The throwaway folders a replay or a recording runs in: a [`Sandbox`] (`memories/`, what
//! `/memories` maps to, with canaries beside it), planted from a [`Seed`] when asked.
//!
//! They live on a RAM file system when there is one: the reference fsyncs every write (its
//! durability decision), which on a disk costs milliseconds per call, and nothing in a replay
//! needs to survive it.
//!
//! # Seeds
//!
//! `--seed` names a folder (its contents become `/memories`), a seed description (JSON), or a
//! golden file (the seed its header holds). A description lists what is made, in order:
//!
//! ```json
//! {"memories": [{"path": "notes.md", "text": "- likes tea\n"},
//!               {"path": "bin.dat", "bytes_hex": "ff fe"},
//!               {"path": "empty/", "dir": true},
//!               {"path": "link", "symlink": "../outside.txt"}],
//!  "outside": [{"path": "outside.txt", "text": "secret"}]}
//! ```
//!
//! Entries are the case format's fixtures ([`Fixture`]: `text`, `bytes_hex`, `repeat`, `dir`,
//! `symlink`, `hardlink`, `fifo`), made by the same code ([`Sandbox::apply`]). `memories`
//! paths are relative to `/memories`; `outside` paths to the sandbox's folder, beside
//! `memories/` and the canaries, files and folders only ([`Sandbox::apply_outside`]: each file
//! starts with the sandbox's secret, so a backend that shows one is caught leaking a canary).
//! Outside entries are made first, so that links and hard links may point at them. Paths are
//! never absolute and never hold `..` (link targets may: that is what hostile recordings
//! need); a folder's path may end in `/`. A seed holds at most [`SEED_ENTRY_LIMIT`] entries and
//! [`SEED_BYTES_LIMIT`] bytes.

use std::ffi::CStr;
use std::io::{self, Read};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::backend::{BackendSpec, Timeouts};
use crate::exec::fs::{self, Kind, ReadError};
use crate::exec::sandbox::FixtureError;
use crate::exec::{Fault, Reset, Sandbox, Session};
use crate::suite::case::{Fixture, FixtureKind};
use crate::transcript::session::{SessionHeader, SessionSeed};

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

    /// Describes a folder: files (as text when UTF-8, else hex bytes), empty folders, symbolic
    /// links (as links, never followed) and FIFOs, in name order. Bounded like any seed; a
    /// socket, a device, a name or a link target that is not UTF-8 is refused.
    pub fn from_folder(path: &Path) -> Result<Seed, SeedError> {
        let name = path.display().to_string();
        let read_error = |source: io::Error| SeedError::Read {
            path: path.to_path_buf(),
            source,
        };
        let root = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| read_error(e.into()))?;
        let mut seed = Seed::default();
        let mut bytes = 0u64;
        let mut seen = 0usize;
        // Folders still to list, by relative path, opened one at a time from the root (a deep
        // tree holds no handles open).
        let mut pending = vec![String::new()];
        while let Some(folder) = pending.pop() {
            let parts = if folder.is_empty() {
                Vec::new()
            } else {
                fs::components(&folder).map_err(|e| read_error(io::Error::other(e.to_string())))?
            };
            let dir = fs::walk(root.as_fd(), &parts, false)
                .map_err(|e| read_error(io::Error::other(e.to_string())))?;
            let mut listing = fs::entries(dir.as_fd()).map_err(read_error)?;
            listing.sort_by(|a, b| a.0.cmp(&b.0));
            if listing.is_empty() && !folder.is_empty() {
                seed.memories.push(Fixture {
                    path: folder.clone(),
                    kind: FixtureKind::Dir(true),
                });
            }
            let mut folders = Vec::new();
            for (entry, kind) in listing {
                seen += 1;
                if seen > SEED_ENTRY_LIMIT {
                    return Err(invalid(
                        &name,
                        &format!("the folder holds over {SEED_ENTRY_LIMIT} entries"),
                    ));
                }
                let shown = entry.to_string_lossy();
                let relative = if folder.is_empty() {
                    shown.to_string()
                } else {
                    format!("{folder}/{shown}")
                };
                let refuse = |reason: String| SeedError::Entry {
                    seed: name.clone(),
                    entry: format!("{relative:?}"),
                    reason,
                };
                if entry.to_str().is_err() {
                    return Err(refuse("the name is not UTF-8".to_string()));
                }
                let kind = match kind {
                    Kind::Dir => {
                        folders.push(relative);
                        continue;
                    }
                    Kind::File => {
                        let content = fs::read_at(dir.as_fd(), &entry, SEED_BYTES_LIMIT - bytes)
                            .map_err(|e| match e {
                                ReadError::TooBig { .. } => refuse(format!(
                                    "brings the seed over {SEED_BYTES_LIMIT} bytes (64 MiB)"
                                )),
                                other => refuse(format!("cannot be read: {other}")),
                            })?;
                        bytes += content.len() as u64;
                        match String::from_utf8(content) {
                            Ok(text) => FixtureKind::Text(text),
                            Err(e) => FixtureKind::BytesHex(hex(e.as_bytes())),
                        }
                    }
                    Kind::Symlink => {
                        let target = link_target(dir.as_fd(), &entry)
                            .map_err(|e| refuse(format!("the link cannot be read: {e}")))?
                            .ok_or_else(|| refuse("the link's target is not UTF-8".to_string()))?;
                        bytes += target.len() as u64;
                        if bytes > SEED_BYTES_LIMIT {
                            return Err(refuse(format!(
                                "brings the seed over {SEED_BYTES_LIMIT} bytes (64 MiB)"
                            )));
                        }
                        FixtureKind::Symlink(target)
                    }
                    Kind::Fifo => FixtureKind::Fifo(true),
                    other => {
                        return Err(refuse(format!(
                            "{} has no place in a seed (files, folders, links and FIFOs)",
                            other.describe()
                        )));
                    }
                };
                seed.memories.push(Fixture {
                    path: relative,
                    kind,
                });
            }
            // Popped in name order.
            pending.extend(folders.into_iter().rev());
        }
        // In path order, however the walk went: a recorded seed diffs well. An empty folder
        // is the only folder listed, so no entry has to come before another.
        seed.memories.sort_by(|a, b| a.path.cmp(&b.path));
        seed.check(&name)?;
        Ok(seed)
    }

    /// The description as JSON, as a golden file's header keeps it.
    pub fn to_value(&self) -> Value {
        // Strings, lists and booleans only: serialising cannot fail.
        serde_json::to_value(self).unwrap_or_default()
    }

    /// Makes the seed in `sandbox`: outside entries first, then `/memories`, each by the case
    /// runner's own code. `seed` names it in errors.
    pub fn plant(&self, sandbox: &Sandbox, seed: &str) -> Result<(), SeedError> {
        let outside = self
            .outside
            .iter()
            .map(|f| (sandbox.apply_outside(f), "outside", f));
        let memories = self
            .memories
            .iter()
            .map(|f| (sandbox.apply(f), "memories", f));
        let areas = outside.enumerate().chain(memories.enumerate());
        for (i, (made, area, fixture)) in areas {
            let entry = || entry_name(area, i, &fixture.path);
            match made {
                Ok(()) => {}
                Err(FixtureError::Invalid { reason, .. }) => {
                    return Err(SeedError::Entry {
                        seed: seed.to_string(),
                        entry: entry(),
                        reason,
                    });
                }
                // In a fresh sandbox only the seed itself is in the way: two entries at one
                // path, a file where a folder goes, a name of the canaries.
                Err(FixtureError::InTheWay(reason)) => {
                    return Err(SeedError::Entry {
                        seed: seed.to_string(),
                        entry: entry(),
                        reason,
                    });
                }
                Err(FixtureError::Io { source, .. })
                    if source.raw_os_error()
                        == Some(rustix::io::Errno::NAMETOOLONG.raw_os_error()) =>
                {
                    return Err(SeedError::Entry {
                        seed: seed.to_string(),
                        entry: entry(),
                        reason: source.to_string(),
                    });
                }
                Err(FixtureError::Io { source, .. }) => {
                    return Err(SeedError::Plant {
                        seed: seed.to_string(),
                        entry: entry(),
                        source,
                    });
                }
            }
        }
        Ok(())
    }
}

impl Seed {
    /// Plants the seed's `/memories` entries through the tool, in order: a `create` per file
    /// (text, or bytes that are UTF-8). What no call can make (a folder with no file below it,
    /// a link, a FIFO, bytes that are not text) and creates the backend refused are named in
    /// the notes returned, after one line that counts what was planted.
    pub fn plant_through_tool(&self, session: &mut Session) -> Vec<String> {
        let mut planted = 0;
        let mut missed = Vec::new();
        for fixture in &self.memories {
            let path = format!("/memories/{}", fixture.path.trim_end_matches('/'));
            let text = match &fixture.kind {
                FixtureKind::Text(text) => Ok(text.clone()),
                FixtureKind::Repeat {
                    line,
                    count,
                    final_newline,
                } => {
                    let mut text = format!("{line}\n").repeat(*count);
                    if !final_newline {
                        text.pop();
                    }
                    Ok(text)
                }
                FixtureKind::BytesHex(hex) => crate::exec::sandbox::decode_hex(hex)
                    .ok()
                    .and_then(|bytes| String::from_utf8(bytes).ok())
                    .ok_or("bytes that are not UTF-8 text, which `create` cannot write"),
                FixtureKind::Dir(_) => {
                    let prefix = format!("{}/", fixture.path.trim_end_matches('/'));
                    let holds_file = self.memories.iter().any(|f| {
                        f.path.starts_with(&prefix) && !matches!(f.kind, FixtureKind::Dir(_))
                    });
                    if holds_file {
                        continue;
                    }
                    Err("an empty folder, which no call makes")
                }
                FixtureKind::Symlink(_) => Err("a symbolic link, which no call makes"),
                FixtureKind::Hardlink(_) => Err("a hard link, which no call makes"),
                FixtureKind::Fifo(_) => Err("a named pipe, which no call makes"),
            };
            let text = match text {
                Ok(text) => text,
                Err(why) => {
                    missed.push(format!("{path}: not planted, {why}"));
                    continue;
                }
            };
            let input = serde_json::json!({"command": "create", "path": path, "file_text": text});
            match session.call(&input) {
                Ok(answer) if !answer.is_error => planted += 1,
                Ok(answer) => missed.push(format!(
                    "{path}: not planted, the backend refused the create: {}",
                    answer
                        .text
                        .lines()
                        .next()
                        .unwrap_or("")
                        .chars()
                        .take(200)
                        .collect::<String>()
                )),
                Err(fault) => missed.push(format!("{path}: not planted, {fault}")),
            }
        }
        let mut notes = vec![format!(
            "seed planted through the tool (the backend keeps its memories elsewhere): {planted} file(s) by `create`"
        )];
        notes.extend(missed);
        notes
    }
}

/// A fresh sandbox on a RAM file system when there is one, planted from the seed at `seed`
/// (see [`Seed::load`]).
pub fn seeded(seed: Option<&Path>) -> Result<Sandbox, SeedError> {
    match seed {
        None => planted(None, ""),
        Some(path) => planted(Some(&Seed::load(path)?), &path.display().to_string()),
    }
}

/// A session of `backend` on a fresh sandbox that starts clean (see [`Session::start_clean`]),
/// then planted from `seed`: replays, recordings and fuzz trials judge a backend
/// on the store they describe, never on what an earlier run left in a store kept elsewhere.
/// A backend that does not start now is left to its first call, which says how it broke.
///
/// On a backend that keeps its memories elsewhere (`--not-on-folder`), the seed's files are
/// planted through the tool, one `create` each; the notes returned say what was planted so and
/// what could not be (an empty folder, a link, bytes that are not text, a refused create).
pub fn clean_session(
    backend: &BackendSpec,
    seed: Option<&Named>,
    timeouts: Timeouts,
) -> Result<(Session, Vec<String>), StartError> {
    let sandbox = planted(None, "")?;
    let mut session = Session::on(sandbox, backend, timeouts);
    match session.start_clean() {
        Ok(Reset::Tampered(found)) => {
            session.discard();
            return Err(StartError::Tampered(found.join("; ")));
        }
        Err(Fault::Harness(message)) => {
            session.discard();
            return Err(StartError::Harness(message));
        }
        Ok(Reset::Clean | Reset::Refused(_)) | Err(Fault::Backend(_) | Fault::GaveUp { .. }) => {}
    }
    let mut notes = Vec::new();
    if let Some(Named { seed, name }) = seed {
        if let Err(e) = seed.plant(session.sandbox(), name) {
            session.discard();
            return Err(e.into());
        }
        // A store kept elsewhere learns the seed the way Claude would tell it: by calls.
        if !backend.runs_on_folder() {
            notes = seed.plant_through_tool(&mut session);
        }
    }
    Ok((session, notes))
}

/// A seed with the name errors give it (the path it was read from).
#[derive(Debug, Clone)]
pub struct Named {
    /// The seed.
    pub seed: Seed,
    /// Its path, as given.
    pub name: String,
}

impl Named {
    /// The seed at `path`, if one is given (see [`Seed::load`]).
    pub fn load(path: Option<&Path>) -> Result<Option<Named>, SeedError> {
        path.map(|path| {
            Ok(Named {
                seed: Seed::load(path)?,
                name: path.display().to_string(),
            })
        })
        .transpose()
    }
}

/// Why a clean session could not be made.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The seed or the sandbox.
    #[error(transparent)]
    Seed(#[from] SeedError),
    /// The backend, told to forget its memories before the first call, left something in the
    /// sandbox that no memory backend makes (a link, a FIFO, a file the harness cannot remove).
    #[error(
        "the backend, told to forget its memories before the first call, tampered with its sandbox: {0}"
    )]
    Tampered(String),
    /// The harness could not run the backend.
    #[error("the harness could not run the backend: {0}")]
    Harness(String),
}

/// A fresh sandbox on a RAM file system when there is one, planted from `seed` (named `name`
/// in errors).
pub fn planted(seed: Option<&Seed>, name: &str) -> Result<Sandbox, SeedError> {
    let sandbox = Sandbox::new_in_memory().map_err(SeedError::Sandbox)?;
    if let Some(seed) = seed {
        seed.plant(&sandbox, name)?;
    }
    Ok(sandbox)
}

/// The seed a replay of the transcript at `path` starts from when none is given: the golden
/// file itself when its header holds a seed description (a path kept by an older memspec is
/// only a name, and is not followed).
pub fn recorded(path: &Path, header: Option<&SessionHeader>) -> Option<PathBuf> {
    let seed = header?.seed.as_deref()?;
    matches!(seed, SessionSeed::Content(_)).then(|| path.to_path_buf())
}

/// `memories[2] "notes.md"`: an entry as errors name it.
fn entry_name(area: &str, index: usize, path: &str) -> String {
    format!("{area}[{index}] {path:?}")
}

fn invalid(seed: &str, reason: &str) -> SeedError {
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

/// Where a link points, as UTF-8 (`None` when it is not: a lossy target would be another link).
fn link_target(dir: std::os::fd::BorrowedFd<'_>, name: &CStr) -> io::Result<Option<String>> {
    let target = rustix::fs::readlinkat(dir, name, Vec::new())?;
    Ok(target.into_string().ok())
}

/// Lower-case hex digits, two per byte.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    out
}
