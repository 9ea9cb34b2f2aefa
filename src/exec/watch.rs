//! Which paths of a memory folder changed since the last look, from the kernel's change
//! notification (inotify), so that a replay re-reads only those after a call: a whole scan after
//! every call costs the folder's size each time, and a fuzz sequence that fills a folder with
//! 1,000 files made that quadratic.
//!
//! Every folder of the tree is watched, and a folder is watched before it is listed, so nothing
//! made in it after the listing goes unseen. Whatever cannot be followed by name answers
//! [`Changed::Anything`], and the caller scans the whole folder again with a new watch: a folder
//! moved (the paths of the watches below it are stale), the root moved or gone, events lost (the
//! queue overflowed), a watch the kernel refused, a name that is not UTF-8. A file with more
//! than one link can change through a name elsewhere, which its folder's watch does not see:
//! such files are named as changed after every call.
//!
//! A watch is added through `/proc/self/fd/N` of a handle opened without following links: the
//! kernel resolves that link to the very folder held open, never by a name the backend controls.

use std::collections::{BTreeSet, HashMap};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};

use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
use rustix::io::Errno;

/// What changed in the watched folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changed {
    /// Only these paths (relative, `/`-separated) and what is below them.
    Paths(Vec<String>),
    /// Anything may have: scan everything.
    Anything,
}

/// Bytes read from the notification queue at a time (a few hundred events).
const BUFFER: usize = 16 << 10;

/// Events read in one look at most: a backend still writing in the background could keep the
/// queue from ever running dry, and past this many paths a whole scan costs no more anyway.
const EVENTS_LIMIT: usize = 10_000;

/// The events that change what a scan sees: names made, removed or moved, contents written,
/// links and modes; and the watched folder itself moved or removed.
fn mask() -> WatchFlags {
    WatchFlags::CREATE
        | WatchFlags::DELETE
        | WatchFlags::MOVED_FROM
        | WatchFlags::MOVED_TO
        | WatchFlags::MODIFY
        | WatchFlags::CLOSE_WRITE
        | WatchFlags::ATTRIB
        | WatchFlags::DELETE_SELF
        | WatchFlags::MOVE_SELF
}

/// Watches on every folder of one memory folder.
#[derive(Debug)]
pub struct Watch {
    inotify: OwnedFd,
    /// Watch descriptor to the folder's path ("" for the root).
    dirs: HashMap<i32, String>,
    /// The root's watch and identity (device, inode), once it is watched.
    root: Option<(i32, (u64, u64))>,
    /// Files with more than one link.
    linked: BTreeSet<String>,
    /// Set when a watch could not be added: the next look answers [`Changed::Anything`].
    lost: bool,
    buffer: Vec<MaybeUninit<u8>>,
}

impl Watch {
    /// A watch with no folder yet; `None` when the kernel gives no notification queue (then the
    /// caller scans whole, as without one).
    pub fn new() -> Option<Watch> {
        let inotify = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK).ok()?;
        Some(Watch {
            inotify,
            dirs: HashMap::new(),
            root: None,
            linked: BTreeSet::new(),
            lost: false,
            buffer: vec![MaybeUninit::uninit(); BUFFER],
        })
    }

    /// Watches the open folder `dir`, at `path` below the root ("" for the root, whose identity
    /// `id` is kept to notice a different folder in its place).
    pub fn add(&mut self, dir: BorrowedFd<'_>, path: &str, id: (u64, u64)) {
        let link = format!("/proc/self/fd/{}", dir.as_raw_fd());
        match inotify::add_watch(&self.inotify, link.as_str(), mask()) {
            Ok(wd) => {
                if path.is_empty() {
                    self.root = Some((wd, id));
                }
                self.dirs.insert(wd, path.to_string());
            }
            Err(_) => self.lost = true,
        }
    }

    /// Notes whether the file at `path` has other links, which its folder's watch cannot follow.
    pub fn links(&mut self, path: &str, nlink: u32) {
        if nlink > 1 {
            self.linked.insert(path.to_string());
        } else if !self.linked.is_empty() {
            self.linked.remove(path);
        }
    }

    /// What changed since the last look, given the identity of the folder now at the root.
    pub fn changed(&mut self, root: (u64, u64)) -> Changed {
        if self.lost || self.root.map(|(_, id)| id) != Some(root) {
            return Changed::Anything;
        }
        let mut paths: BTreeSet<String> = self.linked.clone();
        let mut reader = inotify::Reader::new(self.inotify.as_fd(), &mut self.buffer);
        for read in 0.. {
            if read == EVENTS_LIMIT {
                return Changed::Anything;
            }
            let event = match reader.next() {
                Ok(event) => event,
                Err(Errno::AGAIN) => break,
                Err(_) => return Changed::Anything,
            };
            let flags = event.events();
            if flags.contains(ReadFlags::IGNORED) {
                // The folder is gone; its parent's event names it.
                self.dirs.remove(&event.wd());
                continue;
            }
            let moved_dir = flags.contains(ReadFlags::ISDIR)
                && flags.intersects(ReadFlags::MOVED_FROM | ReadFlags::MOVED_TO);
            let root_gone = self.root.map(|(wd, _)| wd) == Some(event.wd())
                && flags.intersects(ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF);
            if flags.intersects(ReadFlags::QUEUE_OVERFLOW | ReadFlags::UNMOUNT)
                || moved_dir
                || root_gone
            {
                return Changed::Anything;
            }
            let Some(dir) = self.dirs.get(&event.wd()) else {
                return Changed::Anything;
            };
            let Some(name) = event.file_name() else {
                // An event on the folder itself (moved or removed): its parent names it.
                continue;
            };
            let Ok(name) = name.to_str() else {
                return Changed::Anything;
            };
            paths.insert(if dir.is_empty() {
                name.to_string()
            } else {
                format!("{dir}/{name}")
            });
        }
        Changed::Paths(paths.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    use crate::exec::fs::open_test_dir as open;

    #[test]
    fn names_what_changed_and_gives_up_on_a_moved_folder() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        fs::create_dir(root.join("a")).unwrap_or_default();
        let Some(mut watch) = Watch::new() else {
            return;
        };
        let (top, sub) = (open(root), open(&root.join("a")));
        let id = crate::exec::fs::meta_of(top.as_fd())
            .map(|m| m.id)
            .unwrap_or_else(|e| panic!("{e}"));
        watch.add(top.as_fd(), "", id);
        watch.add(sub.as_fd(), "a", (0, 0));
        assert_eq!(watch.changed(id), Changed::Paths(Vec::new()));
        fs::write(root.join("a/x.md"), "x").unwrap_or_default();
        fs::write(root.join("y.md"), "y").unwrap_or_default();
        assert_eq!(
            watch.changed(id),
            Changed::Paths(vec!["a/x.md".to_string(), "y.md".to_string()])
        );
        assert_eq!(watch.changed((1, 2)), Changed::Anything);
        // About two events a write: more than one look reads, fewer than the queue holds.
        for i in 0..6_000 {
            fs::write(root.join(format!("f{}", i % 50)), "z").unwrap_or_default();
        }
        assert_eq!(watch.changed(id), Changed::Anything);
        fs::rename(root.join("a"), root.join("b")).unwrap_or_default();
        assert_eq!(watch.changed(id), Changed::Anything);
    }
}
