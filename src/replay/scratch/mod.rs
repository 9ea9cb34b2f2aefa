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
//!
//! [`Fixture`]: crate::exec::plant::Fixture

use std::path::{Path, PathBuf};

use crate::exec::Sandbox;
use crate::transcript::session::{SessionHeader, SessionSeed};

mod folder;
mod plant;
mod seed;
mod session;
pub use seed::{SEED_BYTES_LIMIT, SEED_ENTRY_LIMIT, Seed, SeedError};
pub use session::{Named, StartError, clean_session};

/// A fresh sandbox on a RAM file system when there is one, planted from the seed at `seed`
/// (see [`Seed::load`]).
pub fn seeded(seed: Option<&Path>) -> Result<Sandbox, SeedError> {
    match seed {
        None => planted(None, ""),
        Some(path) => planted(Some(&Seed::load(path)?), &path.display().to_string()),
    }
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
