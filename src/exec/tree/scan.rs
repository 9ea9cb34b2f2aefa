//! Scanning a memory folder into a [`Tree`], again and again: a scan only reads files whose
//! inode, size or times changed since the previous one, an update re-reads only the paths a
//! change named, and a watching scanner learns those paths from the kernel ([`Watch`]).

use std::collections::HashMap;
use std::ffi::CStr;
use std::hash::Hasher;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Arc;

use super::{DIGEST_LIMIT, Entry, EntryKind, HEAD_BYTES, MAX_DEPTH, Touched, Tree, compare_paths};
use crate::exec::fs::{self, Meta, NodeKind};
use crate::exec::watch::{Changed, Watch};

/// What identifies a file's version without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    id: (u64, u64),
    size: u64,
    mtime: (i64, u32),
    ctime: (i64, u32),
}

/// Scans one folder repeatedly, reading only files that changed.
#[derive(Debug, Default)]
pub struct Scanner {
    cache: HashMap<String, (Stamp, u64, Vec<u8>)>,
    /// Whether to follow the folder's changes by notification ([`Scanner::watching`]).
    watching: bool,
    /// The watch set up by the last whole scan.
    watch: Option<Watch>,
}

impl Scanner {
    /// A scanner that also watches the folder it scans, so that [`Scanner::changed`] can say
    /// which paths changed since (for a folder that the harness does not trust to say).
    pub fn watching() -> Scanner {
        Scanner {
            watching: true,
            ..Scanner::default()
        }
    }

    /// The paths that changed below `root` since the last scan or look, for [`Scanner::update`];
    /// `None` when that is not known (no watch, or one that lost track) and a whole
    /// [`Scanner::scan`] is needed.
    pub fn changed(&mut self, root: Option<BorrowedFd<'_>>) -> Option<Vec<String>> {
        let id = fs::meta_of(root?).ok()?.id;
        match self.watch.as_mut()?.changed(id) {
            Changed::Paths(paths) => Some(paths),
            Changed::Anything => None,
        }
    }

    /// The tree below `root` (no tree when there is no folder).
    pub fn scan(&mut self, root: Option<BorrowedFd<'_>>) -> Tree {
        // A new watch: the old one's queue may hold what it could not follow.
        self.watch = if self.watching { Watch::new() } else { None };
        let mut entries = Vec::new();
        if let Some(root) = root
            && let Ok(start) = fs::reopen_dir(root)
        {
            self.walk(start, String::new(), &mut entries);
        }
        entries.sort_by(|a, b| compare_paths(&a.path, &b.path));
        Tree { entries }
    }

    /// The tree after a change confined to `paths` (relative, `/`-separated): entries
    /// elsewhere are taken from `previous`; each path is scanned again with everything below
    /// it, and so are the folders above it (a create makes missing parents).
    pub fn update(
        &mut self,
        root: Option<BorrowedFd<'_>>,
        previous: &Tree,
        paths: &[String],
    ) -> Tree {
        let Some(root) = root else {
            return Tree::default();
        };
        if paths.iter().any(String::is_empty) {
            return self.scan(Some(root));
        }
        // Named as changed: read again whatever its times say (a write within the clock's tick
        // leaves them as they were).
        for path in paths {
            self.cache.remove(path);
        }
        let touched = Touched::new(paths);
        // What stays is already in order, around the runs the change touched (found by binary
        // search); what is scanned again is a few entries, sorted on their own and merged in,
        // so an update costs the change, not a pass over the tree.
        let mut cut: Vec<std::ops::Range<usize>> = paths.iter().map(|p| previous.span(p)).collect();
        cut.extend(touched.ancestors.iter().filter_map(|a| {
            previous
                .entries
                .binary_search_by(|e| compare_paths(&e.path, a))
                .ok()
                .map(|i| i..i + 1)
        }));
        cut.sort_by_key(|range| range.start);
        let mut kept: Vec<&[Arc<Entry>]> = Vec::new();
        let mut from = 0;
        for range in cut {
            if range.start > from {
                kept.push(&previous.entries[from..range.start]);
            }
            from = from.max(range.end);
        }
        kept.push(&previous.entries[from.min(previous.entries.len())..]);
        let mut fresh: Vec<Arc<Entry>> = Vec::new();
        for path in touched.ancestors.iter().chain(paths) {
            if fresh.iter().any(|e| &e.path == path) {
                continue;
            }
            let Ok(parts) = fs::components(path) else {
                continue;
            };
            let Some((last, parents)) = parts.split_last() else {
                continue;
            };
            let Ok(dir) = fs::walk(root, parents, false) else {
                continue;
            };
            let Ok(name) = fs::c_name(last) else {
                continue;
            };
            let Ok(Some(meta)) = fs::meta_at(dir.as_fd(), &name) else {
                if let Some(watch) = &mut self.watch {
                    watch.links(path, 1);
                }
                continue;
            };
            fresh.push(Arc::new(self.entry(
                dir.as_fd(),
                &name,
                path.clone(),
                &meta,
            )));
            if meta.kind == NodeKind::Dir
                && paths.contains(path)
                && let Ok(below) = fs::open_dir_at(dir.as_fd(), &name)
            {
                self.walk(below, path.clone(), &mut fresh);
            }
        }
        fresh.sort_by(|a, b| compare_paths(&a.path, &b.path));
        fresh.dedup_by(|a, b| a.path == b.path);
        Tree {
            entries: merge(kept, fresh),
        }
    }

    /// Every entry below the open folder `top` (named `prefix`), depth first with an explicit
    /// stack: at most [`MAX_DEPTH`] folders are open at once (past that, a folder is listed as
    /// an entry but not entered).
    fn walk(&mut self, top: OwnedFd, prefix: String, entries: &mut Vec<Arc<Entry>>) {
        let mut stack: Vec<(OwnedFd, String)> = vec![(top, prefix)];
        while let Some((dir, prefix)) = stack.pop() {
            if let Some(watch) = &mut self.watch {
                // Before the listing: what is made in the folder after it is notified.
                let id = if prefix.is_empty() {
                    fs::meta_of(dir.as_fd()).map_or((0, 0), |m| m.id)
                } else {
                    (0, 0)
                };
                watch.add(dir.as_fd(), &prefix, id);
            }
            let Ok(listing) = fs::entries(dir.as_fd()) else {
                continue;
            };
            let depth = prefix.matches('/').count() + usize::from(!prefix.is_empty());
            for (name, _) in listing {
                let shown = name.to_string_lossy();
                let path = if prefix.is_empty() {
                    shown.into_owned()
                } else {
                    format!("{prefix}/{shown}")
                };
                let Ok(Some(meta)) = fs::meta_at(dir.as_fd(), &name) else {
                    continue;
                };
                entries.push(Arc::new(self.entry(
                    dir.as_fd(),
                    &name,
                    path.clone(),
                    &meta,
                )));
                if meta.kind == NodeKind::Dir
                    && depth < MAX_DEPTH
                    && stack.len() < MAX_DEPTH
                    && let Ok(child) = fs::open_dir_at(dir.as_fd(), &name)
                {
                    stack.push((child, path));
                }
            }
        }
    }

    /// The entry for one name, given its (not followed) metadata.
    fn entry(&mut self, dir: BorrowedFd<'_>, name: &CStr, path: String, meta: &Meta) -> Entry {
        match meta.kind {
            NodeKind::Dir => Entry {
                path,
                kind: EntryKind::Dir,
                size: 0,
                head: Vec::new(),
                digest: 0,
            },
            NodeKind::Symlink => {
                let target = fs::link_target(dir, name).unwrap_or_default();
                Entry {
                    digest: digest(target.as_bytes()),
                    path,
                    kind: EntryKind::Symlink { target },
                    size: meta.size,
                    head: Vec::new(),
                }
            }
            NodeKind::File => {
                if let Some(watch) = &mut self.watch {
                    watch.links(&path, meta.nlink);
                }
                let (digest, head) = self.content(dir, name, &path, meta);
                Entry {
                    path,
                    kind: EntryKind::File,
                    size: meta.size,
                    head,
                    digest,
                }
            }
            _ => Entry {
                path,
                kind: EntryKind::Other,
                size: 0,
                head: Vec::new(),
                digest: 0,
            },
        }
    }

    fn content(
        &mut self,
        dir: BorrowedFd<'_>,
        name: &CStr,
        path: &str,
        meta: &Meta,
    ) -> (u64, Vec<u8>) {
        let stamp = Stamp {
            id: meta.id,
            size: meta.size,
            mtime: meta.mtime,
            ctime: meta.ctime,
        };
        if let Some((cached, digest, head)) = self.cache.get(path)
            && *cached == stamp
        {
            return (*digest, head.clone());
        }
        let bytes = fs::read_prefix(dir, name, meta.size.min(DIGEST_LIMIT)).unwrap_or_default();
        let mut value = digest(&bytes);
        if meta.size > DIGEST_LIMIT {
            // Too big to read whole: its size and time stand for the rest.
            value ^= digest(format!("{}:{:?}", meta.size, meta.mtime).as_bytes());
        }
        let head = bytes[..bytes.len().min(HEAD_BYTES)].to_vec();
        self.cache
            .insert(path.to_string(), (stamp, value, head.clone()));
        (value, head)
    }
}

/// The kept runs (in path order, none holding a fresh path) and the fresh entries as one run
/// in path order; each fresh entry finds its place by binary search.
fn merge(kept: Vec<&[Arc<Entry>]>, fresh: Vec<Arc<Entry>>) -> Vec<Arc<Entry>> {
    let mut out = Vec::with_capacity(kept.iter().map(|run| run.len()).sum::<usize>() + fresh.len());
    let mut fresh = fresh.into_iter().peekable();
    for mut run in kept {
        while let Some(entry) = fresh.peek() {
            let at = run.partition_point(|old| compare_paths(&old.path, &entry.path).is_lt());
            if at == run.len() {
                break;
            }
            out.extend_from_slice(&run[..at]);
            run = &run[at..];
            out.extend(fresh.next());
        }
        out.extend_from_slice(run);
    }
    out.extend(fresh);
    out
}

fn digest(bytes: &[u8]) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    hasher.write(bytes);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::tree::Difference;
    use std::fs;

    use crate::exec::fs::open_test_dir as open;

    /// Random changes to two folders, each followed by an update of its tree and a comparison
    /// of the touched paths only: trees and differences equal a whole scan and comparison.
    #[test]
    fn updates_and_touched_differences_equal_whole_ones() {
        let dirs =
            [tempfile::tempdir(), tempfile::tempdir()].map(|d| d.unwrap_or_else(|e| panic!("{e}")));
        let handles = [open(dirs[0].path()), open(dirs[1].path())];
        let mut scanners = [Scanner::default(), Scanner::default()];
        let mut trees = [Tree::default(), Tree::default()];
        let mut differences: Vec<(String, Difference)> = Vec::new();
        let names = [
            "a", "a-b", "a.md", "a/b", "a/b/c.md", "a/x.md", "b", "b/a", "b/a/y.md",
        ];
        let mut rng = crate::rng::Rng::new(5);
        for _ in 0..400 {
            let path = names[rng.below(names.len())].to_string();
            let sides: &[usize] = match rng.below(3) {
                0 => &[0],
                1 => &[1],
                _ => &[0, 1],
            };
            let content = ["x", "yy", "x"][rng.below(3)];
            for &side in sides {
                let at = dirs[side].path().join(&path);
                if rng.chance(40) {
                    fs::remove_dir_all(&at)
                        .or_else(|_| fs::remove_file(&at))
                        .unwrap_or_default();
                } else if path.ends_with(".md") {
                    if let Some(parent) = at.parent() {
                        fs::create_dir_all(parent).unwrap_or_default();
                    }
                    fs::write(&at, content).unwrap_or_default();
                } else {
                    fs::create_dir_all(&at).unwrap_or_default();
                }
            }
            let paths = [path];
            for side in 0..2 {
                trees[side] =
                    scanners[side].update(Some(handles[side].as_fd()), &trees[side], &paths);
                assert_eq!(
                    trees[side],
                    Scanner::default().scan(Some(handles[side].as_fd()))
                );
            }
            let touched = Touched::new(&paths);
            differences.retain(|(p, _)| !touched.contains(p));
            differences.extend(trees[0].differences_at(&trees[1], &touched));
            differences.sort_by(|a, b| compare_paths(&a.0, &b.0));
            assert_eq!(differences, trees[0].differences(&trees[1]));
        }
    }

    #[test]
    fn an_update_equals_a_full_scan() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        fs::create_dir_all(root.join("a/b")).unwrap_or_default();
        fs::write(root.join("a/b/x.md"), "x").unwrap_or_default();
        fs::write(root.join("a-z.md"), "z").unwrap_or_default();
        let handle = open(root);
        let mut scanner = Scanner::default();
        let before = scanner.scan(Some(handle.as_fd()));
        fs::create_dir_all(root.join("n/m")).unwrap_or_default();
        fs::write(root.join("n/m/new.md"), "new").unwrap_or_default();
        fs::remove_dir_all(root.join("a/b")).unwrap_or_default();
        let paths = ["n/m/new.md".to_string(), "a/b".to_string()];
        let updated = scanner.update(Some(handle.as_fd()), &before, &paths);
        assert_eq!(updated, Scanner::default().scan(Some(handle.as_fd())));
    }

    /// A watched folder is followed by what changed, the same as a whole scan would see, even a
    /// rewrite in place within the clock's tick (same size, same times) and a new folder's files.
    #[test]
    fn a_watched_update_equals_a_full_scan() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        fs::create_dir_all(root.join("a/b")).unwrap_or_default();
        fs::write(root.join("a/b/x.md"), "xxxx").unwrap_or_default();
        let handle = open(root);
        let mut scanner = Scanner::watching();
        let before = scanner.scan(Some(handle.as_fd()));
        if scanner.changed(Some(handle.as_fd())).is_none() {
            return; // No inotify here: the caller scans whole.
        }
        let mut file = fs::OpenOptions::new()
            .write(true)
            .open(root.join("a/b/x.md"))
            .unwrap_or_else(|e| panic!("{e}"));
        file.write_all(b"yyyy").unwrap_or_default();
        drop(file);
        fs::create_dir_all(root.join("n/m")).unwrap_or_default();
        fs::write(root.join("n/m/new.md"), "new").unwrap_or_default();
        let paths = scanner
            .changed(Some(handle.as_fd()))
            .unwrap_or_else(|| panic!("the watch lost track"));
        assert_eq!(paths, ["a/b/x.md", "n"]);
        let updated = scanner.update(Some(handle.as_fd()), &before, &paths);
        assert_eq!(updated, Scanner::default().scan(Some(handle.as_fd())));
        assert_ne!(updated.get("a/b/x.md"), before.get("a/b/x.md"));
        // The new folder is watched from its scan on.
        fs::write(root.join("n/m/later.md"), "later").unwrap_or_default();
        assert_eq!(
            scanner.changed(Some(handle.as_fd())),
            Some(vec!["n/m/later.md".to_string()])
        );
    }
}
