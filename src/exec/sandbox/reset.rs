//! Between cases: what a backend did to the sandbox's structure, what it left in `memories/`
//! that no memory backend makes, and bringing the sandbox back to its fresh state.

use std::io;
use std::os::fd::{AsFd, OwnedFd};

use rustix::fs::Mode;

use super::outside::OUTSIDE_ENTRY_LIMIT;
use super::{MEMORIES, Sandbox};
use crate::exec::fs::{self, NodeKind};

impl Sandbox {
    /// What the backend did to the sandbox's structure, in words: the sandbox's path no longer
    /// names its folder, or `memories/` is not a folder. Empty when nothing.
    pub fn audit(&self) -> Vec<String> {
        let mut found = Vec::new();
        match fs::meta_at(self.parent.as_fd(), &self.name) {
            Ok(Some(meta)) if meta.id == self.id => {}
            Ok(Some(meta)) if meta.kind == NodeKind::Symlink => found.push(format!(
                "the sandbox folder {} was replaced by a symbolic link to {}",
                self.path.display(),
                fs::link_target(self.parent.as_fd(), &self.name).unwrap_or_default()
            )),
            Ok(Some(meta)) => found.push(format!(
                "the sandbox folder {} was replaced by {}",
                self.path.display(),
                meta.kind.describe()
            )),
            Ok(None) => found.push(format!(
                "the sandbox folder {} was moved or deleted",
                self.path.display()
            )),
            Err(e) => found.push(format!(
                "the sandbox folder {} cannot be looked at: {e}",
                self.path.display()
            )),
        }
        match fs::meta_at(self.base.as_fd(), MEMORIES) {
            // A backend may remove and make its folder again (a reset); only what is not a
            // folder is in the way.
            Ok(Some(meta)) if meta.kind == NodeKind::Dir => {}
            Ok(Some(meta)) if meta.kind == NodeKind::Symlink => found.push(format!(
                "the memories folder was replaced by a symbolic link to {}",
                fs::link_target(self.base.as_fd(), MEMORIES).unwrap_or_default()
            )),
            Ok(Some(meta)) => found.push(format!(
                "the memories folder was replaced by {}",
                meta.kind.describe()
            )),
            Ok(None) | Err(_) => {}
        }
        found
    }

    /// Objects in `memories/` that no memory backend makes (links, FIFOs, sockets, devices),
    /// described: after a `reset` answered `ok`, they are what the backend left in the way of
    /// the next case's fixtures. At most `limit` are named.
    pub fn specials_in_memories(&self, limit: usize) -> Vec<String> {
        let mut found = Vec::new();
        let Ok(root) = self.memories_dir() else {
            return found;
        };
        let mut queue: Vec<(OwnedFd, String)> = vec![(root, String::new())];
        let mut visited = 0usize;
        while let Some((dir, prefix)) = queue.pop() {
            let Ok(listing) = fs::entries(dir.as_fd()) else {
                continue;
            };
            for (name, kind) in listing {
                visited += 1;
                let shown = format!("{prefix}{}", name.to_string_lossy());
                match kind {
                    NodeKind::Dir if visited < OUTSIDE_ENTRY_LIMIT && queue.len() < 64 => {
                        if let Ok(child) = fs::open_dir_at(dir.as_fd(), &name) {
                            queue.push((child, format!("{shown}/")));
                        }
                    }
                    NodeKind::Dir | NodeKind::File => {}
                    NodeKind::Symlink => found.push(format!(
                        "a symbolic link at memories/{shown} (to {})",
                        fs::link_target(dir.as_fd(), &name).unwrap_or_default()
                    )),
                    other => found.push(format!("{} at memories/{shown}", other.describe())),
                }
                if found.len() >= limit {
                    return found;
                }
            }
        }
        found
    }

    /// Brings the sandbox back to its fresh state: `memories/` emptied (made again if the
    /// backend replaced it), everything else replaced by fresh canaries. Returns what could not
    /// be removed, described; nothing is ever followed.
    pub fn clear(&self) -> io::Result<Vec<String>> {
        let mut left = Vec::new();
        for (name, _) in fs::entries(self.base.as_fd())? {
            if name.as_c_str() == MEMORIES
                && let Ok(memories) = self.memories_dir()
            {
                // Whatever mode or flags the backend gave its folder, the next case starts
                // from a plain one.
                let _ = rustix::fs::fchmod(memories.as_fd(), Mode::from_raw_mode(0o755));
                for (entry, _) in fs::entries(memories.as_fd())? {
                    left.extend(fs::remove(memories.as_fd(), &entry, true)?);
                }
                continue;
            }
            left.extend(fs::remove(self.base.as_fd(), &name, true)?);
        }
        if fs::meta_at(self.base.as_fd(), MEMORIES)?.is_none() {
            rustix::fs::mkdirat(self.base.as_fd(), MEMORIES, Mode::from_raw_mode(0o755))?;
        }
        if left.is_empty() {
            self.plant_canaries()?;
        }
        Ok(left)
    }
}
