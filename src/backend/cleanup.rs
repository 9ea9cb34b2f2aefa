//! Private temporary folders of memspec's own (the embedded adapters), registered so that a
//! signal ending the process can remove them: drops never run when a process exits on a signal.
//! The sandboxes have their own registry (`crate::exec::sandbox::remove_live`), which calls
//! [`remove_folders`] too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

#[derive(Debug, Default)]
struct Folders {
    next: u64,
    paths: BTreeMap<u64, PathBuf>,
    /// Folders their owners are removing now, out of the map: a signal's cleanup waits for
    /// them before the process exits, or a half-removed folder would stay behind.
    removing: usize,
}

static FOLDERS: Mutex<Folders> = Mutex::new(Folders {
    next: 0,
    paths: BTreeMap::new(),
    removing: 0,
});

/// Signalled when an owner finished removing its folder.
static REMOVED: Condvar = Condvar::new();

/// How long a signal's cleanup waits for removals under way: the process must still exit if
/// one hangs.
const REMOVALS_WAIT: Duration = Duration::from_secs(10);

fn folders() -> MutexGuard<'static, Folders> {
    // A panic while holding the lock leaves the map as it was: still usable.
    FOLDERS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A registered folder of memspec's own: removed when dropped, or by [`remove_folders`] if a
/// signal ends the process first, never both.
#[derive(Debug)]
pub struct LiveFolder {
    key: u64,
    path: PathBuf,
}

impl LiveFolder {
    /// Takes charge of `path`, a folder memspec made.
    pub fn register(path: PathBuf) -> LiveFolder {
        let mut folders = folders();
        let key = folders.next;
        folders.next += 1;
        folders.paths.insert(key, path.clone());
        LiveFolder { key, path }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for LiveFolder {
    fn drop(&mut self) {
        let ours = {
            let mut folders = folders();
            let ours = folders.paths.remove(&self.key).is_some();
            folders.removing += usize::from(ours);
            ours
        };
        // Not ours any more: a signal's cleanup removed it.
        if ours {
            // Nobody is left to tell what could not be removed.
            let _ = std::fs::remove_dir_all(&self.path);
            folders().removing -= 1;
            REMOVED.notify_all();
        }
    }
}

/// Removes every registered folder still alive, and waits (a while) for those their owners are
/// removing; returns what could not be removed.
pub fn remove_folders() -> Vec<String> {
    let mut folders = folders();
    let mut left = Vec::new();
    for path in std::mem::take(&mut folders.paths).into_values() {
        if let Err(e) = std::fs::remove_dir_all(&path) {
            left.push(format!("{}: {e}", path.display()));
        }
    }
    let deadline = Instant::now() + REMOVALS_WAIT;
    while folders.removing > 0 {
        let Some(wait) = deadline.checked_duration_since(Instant::now()) else {
            left.push(format!(
                "{} folder(s) still being removed by their owners",
                folders.removing
            ));
            break;
        };
        folders = REMOVED
            .wait_timeout(folders, wait)
            .map(|(guard, _)| guard)
            .unwrap_or_else(|poisoned| poisoned.into_inner().0);
    }
    left
}
