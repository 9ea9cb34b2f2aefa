//! The sandboxes alive in this process, registered by their handles so that a signal's cleanup
//! can remove them ([`remove_live`]), and removing one: by its handles, never by its path.

use std::collections::BTreeMap;
use std::ffi::CString;
use std::os::fd::{AsFd, OwnedFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rustix::fs::Mode;

use super::Sandbox;
use crate::exec::fs;

/// The temporary folders alive in this process, so that a signal ending it can remove them:
/// drops never run when a process exits, and a killed run would leave a sandbox per worker
/// behind in `TMPDIR`.
#[derive(Debug, Default)]
pub(super) struct Live {
    /// Keys handed out so far.
    pub(super) next: u64,
    /// Sandboxes by key: duplicated handles, removed the way [`Sandbox::remove`] does.
    pub(super) sandboxes: BTreeMap<u64, Handles>,
    /// Sandboxes their owners are removing now, out of the map: a signal's cleanup waits for
    /// them before the process exits, or a half-removed sandbox would stay behind.
    removing: usize,
}

/// What removing a sandbox takes, without the sandbox.
#[derive(Debug)]
pub(super) struct Handles {
    pub(super) path: PathBuf,
    pub(super) parent: OwnedFd,
    pub(super) name: CString,
    pub(super) base: OwnedFd,
    pub(super) id: (u64, u64),
}

static LIVE: Mutex<Live> = Mutex::new(Live {
    next: 0,
    sandboxes: BTreeMap::new(),
    removing: 0,
});

/// Signalled when an owner finished removing its sandbox.
static REMOVED: Condvar = Condvar::new();

/// How long a signal's cleanup waits for owners' removals under way: a removal is local file
/// system work, and the process must still exit if one hangs.
const REMOVALS_WAIT: Duration = Duration::from_secs(10);

/// Set once [`remove_live`] ran: no temporary folder is made after it.
pub(super) static CLOSING: AtomicBool = AtomicBool::new(false);

pub(super) fn live() -> MutexGuard<'static, Live> {
    // A panic while holding the lock leaves the map as it was: still usable.
    LIVE.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Removes every sandbox and registered folder (see [`crate::backend::cleanup`]) still alive,
/// and refuses new sandboxes: for a process about to exit on a signal. Returns what could not
/// be removed.
pub fn remove_live() -> Vec<String> {
    let mut live = live();
    CLOSING.store(true, Ordering::SeqCst);
    let mut left = Vec::new();
    for handles in std::mem::take(&mut live.sandboxes).into_values() {
        left.extend(remove_tree(&handles));
    }
    // Owners that took their sandbox out of the map before the signal finish their removal.
    let deadline = Instant::now() + REMOVALS_WAIT;
    while live.removing > 0 {
        let Some(wait) = deadline.checked_duration_since(Instant::now()) else {
            left.push(format!(
                "{} sandbox(es) still being removed by their workers",
                live.removing
            ));
            break;
        };
        live = REMOVED
            .wait_timeout(live, wait)
            .map(|(guard, _)| guard)
            .unwrap_or_else(|poisoned| poisoned.into_inner().0);
    }
    drop(live);
    left.extend(crate::backend::cleanup::remove_folders());
    left
}

impl Sandbox {
    /// Removes the sandbox now; returns what could not be removed, described.
    pub fn remove(mut self) -> Vec<String> {
        self.remove_now()
    }

    fn remove_now(&mut self) -> Vec<String> {
        if self.removed {
            return Vec::new();
        }
        self.removed = true;
        // Forgotten first: a signal's cleanup must not race this removal with its own; it
        // waits for it instead (`removing`).
        let handles = {
            let mut live = live();
            let handles = live.sandboxes.remove(&self.key);
            live.removing += usize::from(handles.is_some());
            handles
        };
        // Already removed by a signal's cleanup.
        let Some(handles) = handles else {
            return Vec::new();
        };
        let left = remove_tree(&handles);
        live().removing -= 1;
        REMOVED.notify_all();
        left
    }
}

/// Removes a sandbox by its handles. The contents go through the handle, so they are this
/// sandbox's whatever its name now refers to; then the name is removed only if it still is this
/// (now empty) folder, and an empty folder is all `rmdir` can remove anyway.
fn remove_tree(handles: &Handles) -> Vec<String> {
    let mut left = Vec::new();
    let _ = rustix::fs::fchmod(handles.base.as_fd(), Mode::from_raw_mode(0o700));
    match fs::entries(handles.base.as_fd()) {
        Ok(entries) => {
            for (name, _) in entries {
                match fs::remove(handles.base.as_fd(), &name, true) {
                    Ok(more) => left.extend(more),
                    Err(e) => left.push(format!("{}: {e}", name.to_string_lossy())),
                }
            }
        }
        Err(e) => left.push(format!("{}: {e}", handles.path.display())),
    }
    let ours = fs::meta_at(handles.parent.as_fd(), &handles.name)
        .ok()
        .flatten()
        .is_some_and(|meta| meta.id == handles.id);
    if !ours {
        left.push(format!(
            "{} (no longer the sandbox's folder)",
            handles.path.display()
        ));
    } else if let Err(e) = rustix::fs::unlinkat(
        handles.parent.as_fd(),
        &*handles.name,
        rustix::fs::AtFlags::REMOVEDIR,
    ) {
        left.push(format!("{}: {e}", handles.path.display()));
    }
    left
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        // Nobody is left to tell what could not be removed: `remove` reports it.
        let _ = self.remove_now();
    }
}
