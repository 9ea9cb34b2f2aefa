//! The sandboxes alive in this process, registered by their handles so that a signal's cleanup
//! can remove them ([`remove_live`]), and removing one: by its handles, never by its path.

use std::ffi::CString;
use std::os::fd::{AsFd, OwnedFd};
use std::path::PathBuf;

use rustix::fs::Mode;

use super::Sandbox;
use crate::backend::cleanup::Registry;
use crate::exec::fs;

/// What removing a sandbox takes, without the sandbox.
#[derive(Debug)]
pub(super) struct Handles {
    pub(super) path: PathBuf,
    pub(super) parent: OwnedFd,
    pub(super) name: CString,
    pub(super) base: OwnedFd,
    pub(super) id: (u64, u64),
}

/// The sandboxes alive in this process, so that a signal ending it can remove them: drops
/// never run when a process exits, and a killed run would leave a sandbox per worker behind in
/// `TMPDIR`. Registered by duplicated handles, removed the way [`Sandbox::remove`] does.
pub(super) static LIVE: Registry<Handles> = Registry::new();

/// Removes every sandbox and registered folder (see [`crate::backend::cleanup`]) still alive,
/// waits a while for those their workers are removing, and refuses new sandboxes: for a process
/// about to exit on a signal. Returns what could not be removed.
pub fn remove_live() -> Vec<String> {
    let mut left = LIVE.sweep(|handles| remove_tree(&handles));
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
        // Taken out first: a signal's cleanup must not race this removal with its own; it
        // waits for it instead. `None`: a signal's cleanup removed it already.
        let mut left = match LIVE.take(self.key) {
            Some(handles) => remove_tree(&handles),
            None => Vec::new(),
        };
        if let Some(handles) = self.state_key.take().and_then(|key| LIVE.take(key)) {
            left.extend(remove_tree(&handles));
        }
        left
    }
}

/// Removes a sandbox by its handles. The contents go through the handle, so they are this
/// sandbox's whatever its name now refers to; then the name is removed only if it still is this
/// (now empty) folder, and an empty folder is all `rmdir` can remove anyway.
pub(super) fn remove_tree(handles: &Handles) -> Vec<String> {
    let _ = rustix::fs::fchmod(handles.base.as_fd(), Mode::from_raw_mode(0o700));
    let mut pass = 1;
    loop {
        let mut left = Vec::new();
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
            return left;
        }
        match rustix::fs::unlinkat(
            handles.parent.as_fd(),
            &*handles.name,
            rustix::fs::AtFlags::REMOVEDIR,
        ) {
            Ok(()) => return left,
            // Something was made in it meanwhile: a signal's cleanup empties a sandbox while
            // its worker (which no signal stops) may still be making its `memories/` or a
            // canary. Empty it again.
            Err(rustix::io::Errno::NOTEMPTY) if pass < REMOVAL_PASSES => pass += 1,
            Err(e) => {
                left.push(format!("{}: {e}", handles.path.display()));
                return left;
            }
        }
    }
}

/// How many times a sandbox is emptied before its folder is given up as not removable.
const REMOVAL_PASSES: usize = 4;

impl Drop for Sandbox {
    fn drop(&mut self) {
        // Nobody is left to tell what could not be removed: `remove` reports it.
        let _ = self.remove_now();
    }
}
