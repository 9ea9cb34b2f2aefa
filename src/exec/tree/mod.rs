//! The memory folder as a tree after each step: paths, kinds, sizes and first bytes for the
//! TUI, and a digest of each file's content so that two folders can be compared exactly.
//!
//! A replay scans both folders after every call, so a scan only reads files whose inode, size
//! or times changed since the previous one.
//!
//! The backend's folder is hostile ground: it is walked from a handle with [`crate::exec::fs`]
//! (no link followed, nothing but regular files opened), without recursion and at most
//! [`MAX_DEPTH`] folders deep, and a file's digest reads at most [`DIGEST_LIMIT`] bytes.

use std::sync::Arc;

use serde::Serialize;

mod scan;

pub use scan::Scanner;

/// Folders below the memory folder that a scan descends into; deeper ones are listed, not
/// entered (no memory needs more, and a hostile tree may be 15,000 deep).
pub const MAX_DEPTH: usize = 128;

/// Bytes of a file that its digest covers; a larger file is compared by its first bytes, size
/// and modification time.
pub const DIGEST_LIMIT: u64 = 64 << 20;

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
    /// Every entry, depth first, sorted by name; shared between the trees of successive steps,
    /// which differ in a few entries.
    pub entries: Vec<Arc<Entry>>,
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
        differ(&self.entries, &other.entries, &mut out);
        out
    }

    /// [`Tree::differences`] at the paths `touched` holds, the same as the whole comparison
    /// there: a change of a few paths is compared in the time of those.
    pub fn differences_at(&self, other: &Tree, touched: &Touched) -> Vec<(String, Difference)> {
        let mut out = Vec::new();
        for path in &touched.paths {
            differ(
                &self.entries[self.span(path)],
                &other.entries[other.span(path)],
                &mut out,
            );
        }
        for folder in &touched.ancestors {
            match (self.get(folder), other.get(folder)) {
                (Some(x), Some(y)) if differs(x, y) => {
                    out.push((folder.clone(), Difference::Content));
                }
                (Some(_), None) => out.push((folder.clone(), Difference::OnlyFirst)),
                (None, Some(_)) => out.push((folder.clone(), Difference::OnlySecond)),
                _ => {}
            }
        }
        out.sort_by(|a, b| compare_paths(&a.0, &b.0));
        out.dedup_by(|a, b| a.0 == b.0);
        out
    }

    /// Where the entries at `path` and below it are: one run, since a folder's entries follow it.
    fn span(&self, path: &str) -> std::ops::Range<usize> {
        let start = self
            .entries
            .partition_point(|e| compare_paths(&e.path, path).is_lt());
        let below = self.entries[start..].partition_point(|e| at_or_below(&e.path, path));
        start..start + below
    }

    /// The entry at `path`.
    pub fn get(&self, path: &str) -> Option<&Entry> {
        self.entries
            .binary_search_by(|e| compare_paths(&e.path, path))
            .ok()
            .map(|i| &*self.entries[i])
    }
}

/// The paths a change touched: each named path with everything below it, and the folders
/// above them (a create makes missing parents).
#[derive(Debug, Clone, Default)]
pub struct Touched {
    paths: Vec<String>,
    ancestors: Vec<String>,
}

impl Touched {
    /// What changing `paths` (relative, `/`-separated, none empty) touches.
    pub fn new(paths: &[String]) -> Touched {
        let mut ancestors: Vec<String> = Vec::new();
        for path in paths {
            let mut at = path.as_str();
            while let Some((parent, _)) = at.rsplit_once('/') {
                ancestors.push(parent.to_string());
                at = parent;
            }
        }
        ancestors.sort();
        ancestors.dedup();
        Touched {
            paths: paths.to_vec(),
            ancestors,
        }
    }

    /// Whether the entry at `path` may have changed.
    pub fn contains(&self, path: &str) -> bool {
        self.ancestors
            .binary_search_by(|a| a.as_str().cmp(path))
            .is_ok()
            || self.paths.iter().any(|p| at_or_below(path, p))
    }
}

/// Whether `entry` is `path` or below it.
fn at_or_below(entry: &str, path: &str) -> bool {
    entry
        .strip_prefix(path)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

fn differs(x: &Entry, y: &Entry) -> bool {
    x.kind != y.kind || x.digest != y.digest || x.size != y.size
}

/// The differences between two runs of entries in path order, appended to `out`.
fn differ(a: &[Arc<Entry>], b: &[Arc<Entry>], out: &mut Vec<(String, Difference)>) {
    let (mut a, mut b) = (a.iter().peekable(), b.iter().peekable());
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
                    if differs(x, y) {
                        out.push((x.path.clone(), Difference::Content));
                    }
                    a.next();
                    b.next();
                }
            },
        }
    }
}

/// Orders paths component by component, so that a folder's entries follow it directly
/// (`notes`, `notes/a.md`, `notes-old`): the order of a tree drawn depth first.
pub fn compare_paths(a: &str, b: &str) -> std::cmp::Ordering {
    // Component by component is byte by byte with `/` below every other byte: no name holds a
    // `/`, so the first byte where two paths differ is where their components differ, and a
    // component that ends there (`/` or the end) comes first. Lifting every byte by one keeps
    // that true even for a NUL, which no path holds.
    fn key(path: &str) -> impl Iterator<Item = u16> + '_ {
        path.bytes()
            .map(|b| if b == b'/' { 0 } else { u16::from(b) + 1 })
    }
    key(a).cmp(key(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::fd::AsFd;

    use crate::exec::fs::open_test_dir as open;

    proptest::proptest! {
        #[test]
        fn paths_order_component_by_component(a in "[a./ -]{0,8}", b in "[a./ -]{0,8}") {
            proptest::prop_assert_eq!(compare_paths(&a, &b), a.split('/').cmp(b.split('/')));
        }
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
        let (ha, hb) = (open(a.path()), open(b.path()));
        let (ta, tb) = (
            Scanner::default().scan(Some(ha.as_fd())),
            Scanner::default().scan(Some(hb.as_fd())),
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
