//! The throwaway folders a replay runs in: `memories/` (what `/memories` maps to), seeded from
//! a folder when asked, with canaries beside it carrying a secret that must never show up in
//! an output, and that nothing may change.
//!
//! They live on a RAM file system when there is one: the reference fsyncs every write (its
//! durability decision), which on a disk costs milliseconds per call, and nothing in a replay
//! needs to survive it.

use std::fs;
use std::io;
use std::path::Path;

use crate::exec::{Outside, Sandbox};

/// A fresh scratch folder (the suite's [`Sandbox`], on a RAM file system when there is one),
/// removed when dropped.
#[derive(Debug)]
pub struct Scratch {
    sandbox: Sandbox,
    outside: Outside,
}

impl Scratch {
    /// Makes `base/memories/` and the canaries.
    pub fn new() -> io::Result<Scratch> {
        let sandbox = Sandbox::new_in_memory()?;
        let outside = sandbox.outside();
        Ok(Scratch { sandbox, outside })
    }

    /// Fills `memories/` with a copy of the contents of `from`.
    pub fn seed(&self, from: &Path) -> io::Result<()> {
        copy_tree(from, self.memories())
    }

    /// The folder holding `memories/` and the canaries.
    pub fn base(&self) -> &Path {
        self.sandbox.base()
    }

    /// The folder `/memories` maps to.
    pub fn memories(&self) -> &Path {
        self.sandbox.memories()
    }

    /// A handle on `memories/` as it is now (never through a link); `None` when it is not a
    /// folder any more.
    pub fn open_memories(&self) -> Option<std::os::fd::OwnedFd> {
        self.sandbox.open_memories()
    }

    /// The secret every canary holds.
    pub fn secret(&self) -> &str {
        self.sandbox.secret()
    }

    /// What changed outside `memories/` since the start, in words; `None` when nothing did.
    pub fn outside_changes(&self) -> Option<String> {
        Sandbox::describe_changes(&self.outside, &self.sandbox.outside())
    }
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
