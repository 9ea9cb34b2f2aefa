//! The folder a backend runs on: `memories/` (what `/memories` maps to) and canaries beside it.
//!
//! The sandbox is a capability, like the reference's root: the harness holds a handle on its
//! folder and reaches everything in it through [`super::fs`], one component at a time, never
//! through a link, never blocking, never reading more than it can use. Its path exists only to be
//! handed to the backend. Whatever the backend puts in the way (a link where a folder was, a
//! FIFO at a canary, an immutable file, a changed mode) is described and becomes a finding; it
//! can never make the harness write, read or delete anything outside.
//!
//! Canaries carry a secret unique to the sandbox. After a case the runner checks that they are
//! unchanged (content, kind, mode, flags), that nothing new appeared outside `memories/`, and
//! that the secret never showed up in an output.
//!
//! This file makes a sandbox and holds its paths and its secret. The rest, by purpose: `live`
//! (the sandboxes alive in this process, and removing one by its handles), `fixtures` (making a
//! case's fixtures in it), `reset` (what a backend did to it, and bringing it back to its fresh
//! state), `outside` (everything outside `memories/`, and what changed there) and `look` (what
//! is at a memory path: the disk as a witness).

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use rustix::fs::Mode;

use super::fs::{self, WalkError};

mod fixtures;
mod live;
mod look;
mod outside;
mod reset;

pub use fixtures::{FixtureError, SHARED_TEXT, decode_hex};
pub use live::remove_live;
pub use look::{Entry, Looked};
pub use outside::{Outside, Seen};

use live::{Handles, LIVE};

/// Largest file a fixture or an effect check ever reads back: the suite's biggest file is a few
/// MB; a bigger one at an effect path is described by its size, never read.
pub const READ_LIMIT: u64 = 64 << 20;

/// The name of the memory folder inside the sandbox.
const MEMORIES: &CStr = c"memories";

/// A fresh sandbox, removed when dropped.
#[derive(Debug)]
pub struct Sandbox {
    /// The sandbox's path, for the backend only.
    path: PathBuf,
    memories_path: PathBuf,
    /// The folder holding the sandbox (the system's temporary folder), and the sandbox's name there.
    parent: OwnedFd,
    name: CString,
    /// The sandbox itself, and its identity: a folder swapped in at its path is not it.
    base: OwnedFd,
    id: (u64, u64),
    secret: String,
    removed: bool,
    /// Its key among the live sandboxes.
    key: u64,
    /// The backend's own folder ([`Sandbox::state`]), and its key among the live folders.
    state_path: PathBuf,
    state_key: Option<u64>,
}

impl Sandbox {
    /// Makes a sandbox in the system's temporary folder (`TMPDIR`).
    pub fn new() -> io::Result<Sandbox> {
        Sandbox::new_in(&std::env::temp_dir())
    }

    /// Like [`Sandbox::new`], on a RAM file system (`/dev/shm`) when there is a writable one:
    /// for replays, where fsync costs milliseconds on a disk and nothing needs to survive.
    pub fn new_in_memory() -> io::Result<Sandbox> {
        Sandbox::new_in(Path::new("/dev/shm")).or_else(|_| Sandbox::new())
    }

    /// Makes `memspec-XXXX/`, its `memories/` and the canaries in `folder`, and the backend's
    /// own folder `memspec-state-XXXX/` beside it.
    pub fn new_in(folder: &Path) -> io::Result<Sandbox> {
        // The state folder is made first and on its own: a folder of another name, so that no
        // path relative to `memories/` a case could spell reaches it, and the watch on
        // everything beside `memories/` stays whole.
        let state = LIVE.register(|| {
            let handles = made_folder(folder, "memspec-state-")?;
            let path = handles.path.clone();
            Ok::<_, io::Error>((handles, path))
        })?;
        let Some((state_key, state_path)) = state else {
            return Err(stopping());
        };
        // Made and registered under the lock, so that a signal's cleanup sees it or stops it.
        let registered = LIVE.register(|| {
            let handles = made_folder(folder, "memspec-")?;
            // Not registered yet: its drop removes nothing until it is.
            let sandbox = Sandbox {
                memories_path: handles.path.join("memories"),
                path: handles.path.clone(),
                parent: handles.parent.try_clone()?,
                name: handles.name.clone(),
                base: handles.base.try_clone()?,
                id: handles.id,
                secret: unique_secret(),
                removed: true,
                key: 0,
                state_path: state_path.clone(),
                state_key: None,
            };
            // Populated under the lock too: a signal's cleanup that emptied it meanwhile could
            // not remove its folder.
            let populated =
                rustix::fs::mkdirat(sandbox.base.as_fd(), MEMORIES, Mode::from_raw_mode(0o755))
                    .map_err(io::Error::from)
                    .and_then(|()| sandbox.plant_canaries());
            if let Err(e) = populated {
                let _ = live::remove_tree(&handles);
                return Err(e);
            }
            Ok::<_, io::Error>((handles, sandbox))
        });
        let (key, mut sandbox) = match registered {
            Ok(Some(made)) => made,
            failed => {
                if let Some(handles) = LIVE.take(state_key) {
                    let _ = live::remove_tree(&handles);
                }
                return Err(failed.err().unwrap_or_else(stopping));
            }
        };
        sandbox.key = key;
        sandbox.state_key = Some(state_key);
        sandbox.removed = false;
        Ok(sandbox)
    }

    /// The folder holding `memories/` and the canaries (for the backend's command line).
    pub fn base(&self) -> &Path {
        &self.path
    }

    /// The folder `/memories` maps to (for the backend's command line).
    pub fn memories(&self) -> &Path {
        &self.memories_path
    }

    /// The backend's own folder, for its database, lock files and logs: outside the sandbox
    /// (no confinement check looks at it, and no path a case spells reaches it), kept as long
    /// as the sandbox (across a restart or a crash, for every client and user of the store),
    /// and new, so empty, with every new sandbox.
    pub fn state(&self) -> &Path {
        &self.state_path
    }

    /// The secret every canary contains; it must never appear in an output.
    pub fn secret(&self) -> &str {
        &self.secret
    }

    /// Replaces `{base}`, `{memories}` and `{state}` with this sandbox's absolute paths.
    pub fn expand(&self, text: &str) -> String {
        text.replace("{base}", &self.path.to_string_lossy())
            .replace("{memories}", &self.memories_path.to_string_lossy())
            .replace("{state}", &self.state_path.to_string_lossy())
    }

    /// A handle on `memories/` as it is now; `None` when it is not a real folder (a link is
    /// never followed).
    pub fn open_memories(&self) -> Option<OwnedFd> {
        self.memories_dir().ok()
    }

    /// A handle on `memories/`, refusing anything but a real folder there.
    fn memories_dir(&self) -> Result<OwnedFd, WalkError> {
        fs::walk(self.base.as_fd(), &["memories"], false)
    }

    fn plant_canaries(&self) -> io::Result<()> {
        let base = self.base.as_fd();
        let secret = &self.secret;
        fs::create_new_at(
            base,
            c"canary.txt",
            format!("{secret} canary\n").as_bytes(),
            0o644,
        )?;
        for (folder, file, text) in [
            (c"outside", c"secret.txt", "outside"),
            (c"memoriesX", c"canary.txt", "sibling"),
        ] {
            rustix::fs::mkdirat(base, folder, Mode::from_raw_mode(0o755))?;
            let dir = fs::open_dir_at(base, folder)?;
            fs::create_new_at(
                dir.as_fd(),
                file,
                format!("{secret} {text}\n").as_bytes(),
                0o644,
            )?;
        }
        Ok(())
    }
}

/// A new folder named `prefix` and a random tail in `folder`, with the handles that remove it.
fn made_folder(folder: &Path, prefix: &str) -> io::Result<Handles> {
    let made = tempfile::Builder::new().prefix(prefix).tempdir_in(folder)?;
    // From here the folder is removed by handle (see Drop), never by path.
    let path = made.keep();
    let parent = rustix::fs::open(
        folder,
        rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let name = fs::c_name(&path.file_name().unwrap_or_default().to_string_lossy())?;
    let base = fs::open_dir_at(parent.as_fd(), &name)?;
    let id = fs::meta_of(base.as_fd())?.id;
    Ok(Handles {
        path,
        parent,
        name,
        base,
        id,
    })
}

fn stopping() -> io::Error {
    io::Error::new(io::ErrorKind::Interrupted, "memspec is stopping")
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
