//! What is at a memory path, looked at without following any link: the disk as the witness of
//! a folder backend's effects.

use std::ffi::{CStr, CString};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use super::Sandbox;
use crate::exec::fs::{self, Meta, NodeKind, ReadError, WalkError};

impl Sandbox {
    /// What is at `memory_path` (`/memories/…`), looked at without following any link: the
    /// disk as the witness of a folder backend's effects. `Err` for a path that is not below
    /// `/memories` or not plain, or a folder that cannot be opened.
    pub fn look(&self, memory_path: &str) -> Result<Looked, String> {
        let relative = memory_path
            .strip_prefix("/memories")
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
            .ok_or_else(|| format!("effect path {memory_path:?} is not below /memories"))?
            .trim_start_matches('/');
        let mut parts = vec!["memories"];
        if !relative.is_empty() {
            parts.extend(
                fs::components(relative)
                    .map_err(|_| format!("effect path {memory_path:?} is not plain"))?,
            );
        }
        let Some((last, parents)) = parts.split_last() else {
            return Err("an empty effect path".to_string());
        };
        let dir = match fs::walk(self.base.as_fd(), parents, false) {
            Ok(dir) => dir,
            Err(WalkError::Missing { .. }) => {
                return Ok(Looked::Nothing(
                    "nothing (a folder above it is missing)".to_string(),
                ));
            }
            Err(WalkError::Blocked { at, kind }) => {
                return Ok(Looked::Nothing(format!(
                    "{} at {at}, not a folder",
                    kind.describe()
                )));
            }
            Err(e) => return Err(e.to_string()),
        };
        let name = fs::c_name(last).map_err(|e| e.to_string())?;
        match fs::meta_at(dir.as_fd(), &name).map_err(|e| e.to_string())? {
            None => Ok(Looked::Nothing("nothing".to_string())),
            Some(meta) => Ok(Looked::Entry(Entry { dir, name, meta })),
        }
    }
}

/// What [`Sandbox::look`] found at a memory path.
#[derive(Debug)]
pub enum Looked {
    /// Nothing there (or a folder above it missing or not a folder), in words.
    Nothing(String),
    /// Something there.
    Entry(Entry),
}

/// An entry found by [`Sandbox::look`], held by its folder's handle: reading it follows no link.
#[derive(Debug)]
pub struct Entry {
    dir: OwnedFd,
    name: CString,
    meta: Meta,
}

impl Entry {
    /// What kind of entry.
    pub fn kind(&self) -> NodeKind {
        self.meta.kind
    }

    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.meta.size
    }

    /// A regular file's bytes, when it holds at most `max`; `None` otherwise.
    pub fn read(&self, max: u64) -> Option<Vec<u8>> {
        (self.meta.kind == NodeKind::File)
            .then(|| fs::read_at(self.dir.as_fd(), &self.name, max).ok())
            .flatten()
    }

    /// A symbolic link's target.
    pub fn link_target(&self) -> Option<String> {
        fs::link_target(self.dir.as_fd(), &self.name).ok()
    }

    /// What it is, in words, for a failed effect: a small file's content, a big one's size.
    pub fn describe(&self) -> String {
        describe(self.dir.as_fd(), &self.name, Some(&self.meta))
    }
}

/// What is at `name`, in words, for a failed effect: a small file's content, a big one's size.
fn describe(dir: BorrowedFd<'_>, name: &CStr, meta: Option<&Meta>) -> String {
    const SHOWN: u64 = 4096;
    let Some(meta) = meta else {
        return "nothing".to_string();
    };
    match meta.kind {
        NodeKind::Symlink => format!(
            "a symbolic link to {}",
            fs::link_target(dir, name).unwrap_or_default()
        ),
        NodeKind::File => match fs::read_at(dir, name, SHOWN) {
            Ok(bytes) => format!("a file containing {:?}", String::from_utf8_lossy(&bytes)),
            Err(ReadError::TooBig { size }) => {
                format!("a file of {size} bytes (too large to show)")
            }
            Err(e) => format!("a file that cannot be read ({e})"),
        },
        other => other.describe().to_string(),
    }
}
