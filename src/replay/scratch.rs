//! The throwaway folders a replay or a recording runs in: a [`Sandbox`] (`memories/`, what
//! `/memories` maps to, with canaries beside it), seeded from a folder when asked.
//!
//! They live on a RAM file system when there is one: the reference fsyncs every write (its
//! durability decision), which on a disk costs milliseconds per call, and nothing in a replay
//! needs to survive it.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::exec::Sandbox;

/// Why a seeded folder could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    /// The sandbox itself: the harness's problem.
    #[error("cannot make a scratch folder: {0}")]
    Sandbox(io::Error),
    /// The seed folder could not be copied: the user's to fix.
    #[error(
        "cannot copy the seed folder {path}: {source}; --seed takes a folder whose contents become /memories"
    )]
    Seed {
        /// The seed folder.
        path: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
}

impl SeedError {
    /// Whether the user can fix it by changing the arguments (exit 2) rather than it being
    /// the harness's problem (exit 4).
    pub fn is_usage(&self) -> bool {
        matches!(self, SeedError::Seed { .. })
    }
}

/// A fresh sandbox on a RAM file system when there is one, its `memories/` filled with a copy
/// of the contents of `seed`.
pub fn seeded(seed: Option<&Path>) -> Result<Sandbox, SeedError> {
    let sandbox = Sandbox::new_in_memory().map_err(SeedError::Sandbox)?;
    if let Some(seed) = seed {
        copy_tree(seed, sandbox.memories()).map_err(|source| SeedError::Seed {
            path: seed.to_path_buf(),
            source,
        })?;
    }
    Ok(sandbox)
}

/// Copies a folder's contents into `to`: files, folders, and symbolic links as links (a seed
/// may hold the very links a backend must not follow).
pub fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    let context =
        |e: io::Error, path: &Path| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    for entry in fs::read_dir(from).map_err(|e| context(e, from))? {
        let entry = entry.map_err(|e| context(e, from))?;
        let source = entry.path();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().map_err(|e| context(e, &source))?;
        if kind.is_symlink() {
            let link = fs::read_link(&source).map_err(|e| context(e, &source))?;
            std::os::unix::fs::symlink(link, &target).map_err(|e| context(e, &target))?;
        } else if kind.is_dir() {
            fs::create_dir(&target).map_err(|e| context(e, &target))?;
            copy_tree(&source, &target)?;
        } else if kind.is_file() {
            fs::copy(&source, &target).map_err(|e| context(e, &source))?;
        }
    }
    Ok(())
}
