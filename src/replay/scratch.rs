//! The throwaway folders a replay runs in: `memories/` (what `/memories` maps to), seeded from
//! a folder when asked, with canaries beside it carrying a secret that must never show up in
//! an output, and that nothing may change.
//!
//! They live on a RAM file system when there is one: the reference fsyncs every write (its
//! durability decision), which on a disk costs milliseconds per call, and nothing in a replay
//! needs to survive it.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use tempfile::TempDir;

/// Where scratch folders go when it exists and is writable.
const RAM_FS: &str = "/dev/shm";

/// A fresh scratch folder, removed when dropped.
#[derive(Debug)]
pub struct Scratch {
    dir: TempDir,
    memories: PathBuf,
    secret: String,
    outside: BTreeMap<PathBuf, Option<Vec<u8>>>,
}

impl Scratch {
    /// Makes `base/memories/` and the canaries.
    pub fn new() -> io::Result<Scratch> {
        let builder = {
            let mut b = tempfile::Builder::new();
            b.prefix("memspec-replay-");
            b
        };
        let dir = match builder.tempdir_in(RAM_FS) {
            Ok(dir) => dir,
            Err(_) => builder.tempdir()?,
        };
        let base = dir.path();
        let memories = base.join("memories");
        fs::create_dir(&memories)?;
        let secret = unique_secret();
        fs::write(base.join("canary.txt"), format!("{secret} canary\n"))?;
        fs::create_dir(base.join("outside"))?;
        fs::write(
            base.join("outside/secret.txt"),
            format!("{secret} outside\n"),
        )?;
        fs::create_dir(base.join("memoriesX"))?;
        fs::write(
            base.join("memoriesX/canary.txt"),
            format!("{secret} sibling\n"),
        )?;
        let mut scratch = Scratch {
            dir,
            memories,
            secret,
            outside: BTreeMap::new(),
        };
        scratch.outside = scratch.outside_now();
        Ok(scratch)
    }

    /// Fills `memories/` with a copy of the contents of `from`.
    pub fn seed(&self, from: &Path) -> io::Result<()> {
        copy_tree(from, &self.memories)
    }

    /// The folder holding `memories/` and the canaries.
    pub fn base(&self) -> &Path {
        self.dir.path()
    }

    /// The folder `/memories` maps to.
    pub fn memories(&self) -> &Path {
        &self.memories
    }

    /// The secret every canary holds.
    pub fn secret(&self) -> &str {
        &self.secret
    }

    /// What changed outside `memories/` since the start, in words; `None` when nothing did.
    pub fn outside_changes(&self) -> Option<String> {
        let now = self.outside_now();
        if now == self.outside {
            return None;
        }
        let mut changes = Vec::new();
        for (path, before) in &self.outside {
            match now.get(path) {
                None => changes.push(format!("{} deleted", path.display())),
                Some(after) if after != before => {
                    changes.push(format!("{} changed", path.display()))
                }
                Some(_) => {}
            }
        }
        for path in now.keys().filter(|p| !self.outside.contains_key(*p)) {
            changes.push(format!("{} created", path.display()));
        }
        Some(changes.join(", "))
    }

    /// Everything outside `memories/`: files with their bytes, other entries as `None`.
    fn outside_now(&self) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
        let mut seen = BTreeMap::new();
        walk_outside(self.base(), self.base(), &self.memories, &mut seen);
        seen
    }
}

fn walk_outside(
    dir: &Path,
    base: &Path,
    skip: &Path,
    seen: &mut BTreeMap<PathBuf, Option<Vec<u8>>>,
) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path == skip {
            continue;
        }
        let relative = path.strip_prefix(base).unwrap_or(&path).to_path_buf();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => {
                seen.insert(relative, None);
                walk_outside(&path, base, skip, seen);
            }
            Ok(kind) if kind.is_file() => {
                seen.insert(relative, fs::read(&path).ok());
            }
            _ => {
                seen.insert(relative, None);
            }
        }
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

fn unique_secret() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mixed = nanos as u64
        ^ (u64::from(std::process::id()) << 32)
        ^ COUNTER
            .fetch_add(1, Ordering::Relaxed)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    format!("MEMSPEC-CANARY-{mixed:016x}")
}
