//! Everything in the sandbox outside `memories/` (the canaries, the seeds' files outside the
//! root, whatever a backend made there), looked at as a snapshot, and what changed between two.

use std::collections::BTreeMap;
use std::ffi::CStr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::PathBuf;

use super::{MEMORIES, Sandbox};
use crate::exec::fs::{self, Meta, NodeKind};

/// Files outside `memories/` whose content is compared byte for byte (the canaries are tiny); a
/// larger file there is compared by size and modification time.
const OUTSIDE_CONTENT_LIMIT: u64 = 4 << 10;

/// Entries recorded outside `memories/`; past that, a flood is summarised, not listed.
pub(super) const OUTSIDE_ENTRY_LIMIT: usize = 10_000;

/// Folders a walk of the sandbox holds open at once.
const OPEN_FOLDER_LIMIT: usize = 64;

/// What one entry outside `memories/` looked like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    /// What it is.
    pub kind: NodeKind,
    /// Permission bits.
    pub mode: u32,
    /// Whether it is immutable or append-only.
    pub immutable: bool,
    /// Size in bytes.
    pub size: u64,
    /// A file's content when small, a link's target; otherwise empty.
    pub content: Vec<u8>,
    /// Modification and status change times, for files too large to compare by content.
    pub mtime: ((i64, u32), (i64, u32)),
}

/// Everything outside `memories/`, by path relative to the sandbox.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outside {
    /// Entries by relative path.
    pub entries: BTreeMap<PathBuf, Seen>,
    /// Entries past [`OUTSIDE_ENTRY_LIMIT`], not recorded.
    pub more: usize,
}

impl Sandbox {
    /// Everything in the sandbox outside `memories/`: kinds, modes, flags, and the content of
    /// small files; walked without recursion, at most [`OUTSIDE_ENTRY_LIMIT`] entries.
    pub fn outside(&self) -> Outside {
        let mut outside = Outside::default();
        let Ok(start) = fs::reopen_dir(self.base.as_fd()) else {
            return outside;
        };
        let mut queue: Vec<(OwnedFd, PathBuf)> = vec![(start, PathBuf::new())];
        while let Some((dir, prefix)) = queue.pop() {
            let Ok(listing) = fs::entries(dir.as_fd()) else {
                continue;
            };
            for (name, _) in listing {
                if prefix.as_os_str().is_empty() && name.as_c_str() == MEMORIES {
                    // `memories/` itself is the backend's; only what it is matters here.
                    if let Ok(Some(meta)) = fs::meta_at(dir.as_fd(), &name)
                        && meta.kind != NodeKind::Dir
                    {
                        outside
                            .entries
                            .insert(PathBuf::from("memories"), seen(dir.as_fd(), &name, &meta));
                    }
                    continue;
                }
                if outside.entries.len() >= OUTSIDE_ENTRY_LIMIT {
                    outside.more += 1;
                    continue;
                }
                let path = prefix.join(name.to_string_lossy().as_ref());
                let Ok(Some(meta)) = fs::meta_at(dir.as_fd(), &name) else {
                    continue;
                };
                // Bound the open folders: folders past the limit are recorded, not entered.
                if meta.kind == NodeKind::Dir {
                    if queue.len() >= OPEN_FOLDER_LIMIT {
                        outside.more += 1;
                    } else if let Ok(child) = fs::open_dir_at(dir.as_fd(), &name) {
                        queue.push((child, path.clone()));
                    }
                }
                outside
                    .entries
                    .insert(path, seen(dir.as_fd(), &name, &meta));
            }
        }
        outside
    }

    /// What changed between two [`Sandbox::outside`] snapshots, in words; `None` when nothing.
    pub fn describe_changes(before: &Outside, after: &Outside) -> Option<String> {
        if before == after {
            return None;
        }
        let mut changes = Vec::new();
        for (path, was) in &before.entries {
            match after.entries.get(path) {
                None => changes.push(format!("{} deleted", path.display())),
                Some(now) if now != was => {
                    changes.push(format!("{} changed ({})", path.display(), change(was, now)));
                }
                Some(_) => {}
            }
        }
        for (path, now) in after
            .entries
            .iter()
            .filter(|(p, _)| !before.entries.contains_key(*p))
        {
            changes.push(format!("{} created ({})", path.display(), now.describe()));
        }
        if after.more > before.more {
            changes.push(format!("{} more entries", after.more - before.more));
        }
        Some(changes.join(", "))
    }
}

impl Seen {
    /// The entry in words: `a file of 12 bytes, mode 644`.
    pub fn describe(&self) -> String {
        let what = match self.kind {
            NodeKind::File => format!("a file of {} bytes", self.size),
            NodeKind::Symlink => format!(
                "a symbolic link to {}",
                String::from_utf8_lossy(&self.content)
            ),
            other => other.describe().to_string(),
        };
        let flags = if self.immutable { ", immutable" } else { "" };
        format!("{what}, mode {:03o}{flags}", self.mode)
    }
}

/// How an entry changed, in words: `mode 644 → 000`.
fn change(was: &Seen, now: &Seen) -> String {
    let mut parts = Vec::new();
    if was.kind != now.kind {
        parts.push(format!("now {}", now.kind.describe()));
    }
    if was.mode != now.mode {
        parts.push(format!("mode {:03o} → {:03o}", was.mode, now.mode));
    }
    if was.immutable != now.immutable {
        parts.push(if now.immutable {
            "made immutable".to_string()
        } else {
            "no longer immutable".to_string()
        });
    }
    if was.kind == now.kind && (was.size != now.size || was.content != now.content) {
        parts.push(format!("content, {} → {} bytes", was.size, now.size));
    } else if was.kind == now.kind && was.mtime != now.mtime {
        parts.push("modified".to_string());
    }
    parts.join(", ")
}

fn seen(dir: BorrowedFd<'_>, name: &CStr, meta: &Meta) -> Seen {
    let content = match meta.kind {
        NodeKind::File if meta.size <= OUTSIDE_CONTENT_LIMIT => {
            fs::read_at(dir, name, OUTSIDE_CONTENT_LIMIT).unwrap_or_default()
        }
        NodeKind::Symlink => fs::link_target(dir, name)
            .map(String::into_bytes)
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    Seen {
        kind: meta.kind,
        mode: meta.mode,
        immutable: meta.immutable,
        size: if meta.kind == NodeKind::File {
            meta.size
        } else {
            0
        },
        content,
        mtime: if meta.kind == NodeKind::File && meta.size > OUTSIDE_CONTENT_LIMIT {
            (meta.mtime, meta.ctime)
        } else {
            ((0, 0), (0, 0))
        },
    }
}
