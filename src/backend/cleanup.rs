//! Private temporary folders of memspec's own (the embedded adapters), registered so that a
//! signal ending the process can remove them: drops never run when a process exits on a signal.
//! The sandboxes have their own registry (`crate::exec::sandbox::remove_live`), which calls
//! [`remove_folders`] too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

#[derive(Debug, Default)]
struct Folders {
    next: u64,
    paths: BTreeMap<u64, PathBuf>,
}

static FOLDERS: Mutex<Folders> = Mutex::new(Folders {
    next: 0,
    paths: BTreeMap::new(),
});

fn folders() -> MutexGuard<'static, Folders> {
    // A panic while holding the lock leaves the map as it was: still usable.
    FOLDERS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A registered folder: removed by [`remove_folders`] if a signal ends the process first;
/// dropping the guard forgets it (the folder's owner removes it).
#[derive(Debug)]
pub struct LiveFolder(u64);

impl LiveFolder {
    /// Registers `path`.
    pub fn register(path: &Path) -> LiveFolder {
        let mut folders = folders();
        let key = folders.next;
        folders.next += 1;
        folders.paths.insert(key, path.to_path_buf());
        LiveFolder(key)
    }
}

impl Drop for LiveFolder {
    fn drop(&mut self) {
        folders().paths.remove(&self.0);
    }
}

/// Removes every registered folder still alive; returns what could not be removed.
pub fn remove_folders() -> Vec<String> {
    let mut left = Vec::new();
    for path in std::mem::take(&mut folders().paths).into_values() {
        if let Err(e) = std::fs::remove_dir_all(&path) {
            left.push(format!("{}: {e}", path.display()));
        }
    }
    left
}
