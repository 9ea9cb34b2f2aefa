//! The memory folder as a tree after each step: paths, kinds, sizes and first bytes for the
//! TUI, and a digest of each file's content so that two folders can be compared exactly.
//!
//! A replay scans both folders after every call, so a scan only reads files whose inode, size
//! or times changed since the previous one.

use std::collections::HashMap;
use std::fs;
use std::hash::Hasher;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Bytes of each file kept for display.
pub const HEAD_BYTES: usize = 48;

/// What an entry is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A folder.
    Dir,
    /// A symbolic link, never followed.
    Symlink {
        /// Where it points.
        target: String,
    },
    /// A FIFO, socket or device.
    Other,
}

/// One entry below the memory folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// Path relative to the memory folder, `/`-separated (`notes/todo.md`).
    pub path: String,
    /// What it is.
    pub kind: EntryKind,
    /// Size in bytes (files).
    pub size: u64,
    /// The file's first bytes.
    #[serde(skip)]
    pub head: Vec<u8>,
    /// Digest of the whole content (files).
    #[serde(skip)]
    pub digest: u64,
}

impl Entry {
    /// Depth below the memory folder (0 for a top-level entry).
    pub fn depth(&self) -> usize {
        self.path.matches('/').count()
    }

    /// The last component.
    pub fn name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }
}

/// The memory folder's entries, sorted by path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Tree {
    /// Every entry, depth first, sorted by name.
    pub entries: Vec<Entry>,
}

/// How one path differs between two trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Difference {
    /// Only in the first tree (the backend's).
    OnlyFirst,
    /// Only in the second tree (the reference's).
    OnlySecond,
    /// In both, with different kind or content.
    Content,
}

impl Tree {
    /// Paths that differ between `self` (the backend's) and `other` (the reference's).
    pub fn differences(&self, other: &Tree) -> Vec<(String, Difference)> {
        let mut out = Vec::new();
        let (mut a, mut b) = (
            self.entries.iter().peekable(),
            other.entries.iter().peekable(),
        );
        loop {
            match (a.peek(), b.peek()) {
                (None, None) => break,
                (Some(x), None) => {
                    out.push((x.path.clone(), Difference::OnlyFirst));
                    a.next();
                }
                (None, Some(y)) => {
                    out.push((y.path.clone(), Difference::OnlySecond));
                    b.next();
                }
                (Some(x), Some(y)) => match compare_paths(&x.path, &y.path) {
                    std::cmp::Ordering::Less => {
                        out.push((x.path.clone(), Difference::OnlyFirst));
                        a.next();
                    }
                    std::cmp::Ordering::Greater => {
                        out.push((y.path.clone(), Difference::OnlySecond));
                        b.next();
                    }
                    std::cmp::Ordering::Equal => {
                        if x.kind != y.kind || x.digest != y.digest || x.size != y.size {
                            out.push((x.path.clone(), Difference::Content));
                        }
                        a.next();
                        b.next();
                    }
                },
            }
        }
        out
    }

    /// The entry at `path`.
    pub fn get(&self, path: &str) -> Option<&Entry> {
        self.entries
            .binary_search_by(|e| compare_paths(&e.path, path))
            .ok()
            .map(|i| &self.entries[i])
    }
}

/// What identifies a file's version without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

/// Scans one folder repeatedly, reading only files that changed.
#[derive(Debug, Default)]
pub struct Scanner {
    cache: HashMap<PathBuf, (Stamp, u64, Vec<u8>)>,
}

impl Scanner {
    /// The tree below `root`.
    pub fn scan(&mut self, root: &Path) -> Tree {
        let mut entries = Vec::new();
        self.walk(root, "", &mut entries);
        entries.sort_by(|a, b| compare_paths(&a.path, &b.path));
        Tree { entries }
    }

    /// The tree after a change confined to `paths` (relative, `/`-separated): entries
    /// elsewhere are taken from `previous`; each path is scanned again with everything below
    /// it, and so are the folders above it (a create makes missing parents).
    pub fn update(&mut self, root: &Path, previous: &Tree, paths: &[String]) -> Tree {
        if paths.iter().any(String::is_empty) {
            return self.scan(root);
        }
        let mut ancestors: Vec<String> = Vec::new();
        for path in paths {
            let mut at = path.as_str();
            while let Some((parent, _)) = at.rsplit_once('/') {
                ancestors.push(parent.to_string());
                at = parent;
            }
        }
        let stale = |entry: &str| {
            ancestors.iter().any(|a| a == entry)
                || paths.iter().any(|p| {
                    entry == p
                        || entry
                            .strip_prefix(p.as_str())
                            .is_some_and(|r| r.starts_with('/'))
                })
        };
        let mut entries: Vec<Entry> = previous
            .entries
            .iter()
            .filter(|e| !stale(&e.path))
            .cloned()
            .collect();
        ancestors.sort();
        ancestors.dedup();
        for path in ancestors.iter().chain(paths) {
            let host = root.join(path);
            let Ok(meta) = fs::symlink_metadata(&host) else {
                continue;
            };
            let is_dir = meta.is_dir();
            let is_path = paths.contains(path);
            if entries.iter().any(|e| &e.path == path) {
                continue;
            }
            entries.push(self.entry(&host, path.clone(), &meta));
            if is_dir && is_path {
                self.walk(&host, path, &mut entries);
            }
        }
        entries.sort_by(|a, b| compare_paths(&a.path, &b.path));
        entries.dedup_by(|a, b| a.path == b.path);
        Tree { entries }
    }

    fn walk(&mut self, dir: &Path, prefix: &str, entries: &mut Vec<Entry>) {
        let Ok(read) = fs::read_dir(dir) else { return };
        for item in read.flatten() {
            let name = item.file_name().to_string_lossy().into_owned();
            let path = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            let host = item.path();
            // The entry's own metadata is an fstatat relative to the open folder (no symlink
            // followed), cheaper than looking the whole path up again.
            let Ok(meta) = item.metadata() else {
                continue;
            };
            let is_dir = meta.is_dir();
            entries.push(self.entry(&host, path.clone(), &meta));
            if is_dir {
                self.walk(&host, &path, entries);
            }
        }
    }

    /// The entry for one path, given its (not followed) metadata.
    fn entry(&mut self, host: &Path, path: String, meta: &fs::Metadata) -> Entry {
        let kind = meta.file_type();
        if kind.is_dir() {
            Entry {
                path,
                kind: EntryKind::Dir,
                size: 0,
                head: Vec::new(),
                digest: 0,
            }
        } else if kind.is_symlink() {
            let target = fs::read_link(host)
                .map(|t| t.to_string_lossy().into_owned())
                .unwrap_or_default();
            Entry {
                digest: digest(target.as_bytes()),
                path,
                kind: EntryKind::Symlink { target },
                size: meta.len(),
                head: Vec::new(),
            }
        } else if kind.is_file() {
            let (digest, head) = self.content(host, meta);
            Entry {
                path,
                kind: EntryKind::File,
                size: meta.len(),
                head,
                digest,
            }
        } else {
            Entry {
                path,
                kind: EntryKind::Other,
                size: 0,
                head: Vec::new(),
                digest: 0,
            }
        }
    }

    fn content(&mut self, host: &Path, meta: &fs::Metadata) -> (u64, Vec<u8>) {
        let stamp = Stamp {
            ino: meta.ino(),
            size: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        };
        if let Some((cached, digest, head)) = self.cache.get(host)
            && *cached == stamp
        {
            return (*digest, head.clone());
        }
        let bytes = fs::read(host).unwrap_or_default();
        let value = (
            digest(&bytes),
            bytes[..bytes.len().min(HEAD_BYTES)].to_vec(),
        );
        self.cache
            .insert(host.to_path_buf(), (stamp, value.0, value.1.clone()));
        value
    }
}

/// Orders paths component by component, so that a folder's entries follow it directly
/// (`notes`, `notes/a.md`, `notes-old`): the order of a tree drawn depth first.
pub fn compare_paths(a: &str, b: &str) -> std::cmp::Ordering {
    a.split('/').cmp(b.split('/'))
}

fn digest(bytes: &[u8]) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    hasher.write(bytes);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_update_equals_a_full_scan() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        fs::create_dir_all(root.join("a/b")).unwrap_or_default();
        fs::write(root.join("a/b/x.md"), "x").unwrap_or_default();
        fs::write(root.join("a-z.md"), "z").unwrap_or_default();
        let mut scanner = Scanner::default();
        let before = scanner.scan(root);
        fs::create_dir_all(root.join("n/m")).unwrap_or_default();
        fs::write(root.join("n/m/new.md"), "new").unwrap_or_default();
        fs::remove_dir_all(root.join("a/b")).unwrap_or_default();
        let paths = ["n/m/new.md".to_string(), "a/b".to_string()];
        let updated = scanner.update(root, &before, &paths);
        assert_eq!(updated, Scanner::default().scan(root));
    }

    #[test]
    fn scans_and_compares() {
        let a = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let b = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        for dir in [a.path(), b.path()] {
            fs::create_dir(dir.join("notes")).unwrap_or_default();
            fs::write(dir.join("notes/x.md"), "x\ty\n").unwrap_or_default();
        }
        fs::write(b.path().join("notes/x.md"), "x    y\n").unwrap_or_default();
        fs::write(a.path().join("extra"), "").unwrap_or_default();
        let (ta, tb) = (
            Scanner::default().scan(a.path()),
            Scanner::default().scan(b.path()),
        );
        assert_eq!(ta.entries.len(), 3);
        assert_eq!(
            ta.get("notes/x.md").map(|e| e.head.clone()),
            Some(b"x\ty\n".to_vec())
        );
        assert_eq!(
            ta.differences(&tb),
            [
                ("extra".to_string(), Difference::OnlyFirst),
                ("notes/x.md".to_string(), Difference::Content)
            ]
        );
    }
}
