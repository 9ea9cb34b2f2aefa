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

use std::collections::BTreeMap;
use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use rustix::fs::{FileType, Mode};

use super::fs::{self, Kind, Meta, ReadError, WalkError};
use super::plant::{Fixture, FixtureKind};

/// Largest file a fixture or an effect check ever reads back: the suite's biggest file is a few
/// MB; a bigger one at an effect path is described by its size, never read.
pub const READ_LIMIT: u64 = 64 << 20;

/// Files outside `memories/` whose content is compared byte for byte (the canaries are tiny); a
/// larger file there is compared by size and modification time.
const OUTSIDE_CONTENT_LIMIT: u64 = 4 << 10;

/// Entries recorded outside `memories/`; past that, a flood is summarised, not listed.
const OUTSIDE_ENTRY_LIMIT: usize = 10_000;

/// Folders a walk of the sandbox holds open at once.
const OPEN_FOLDER_LIMIT: usize = 64;

/// The name of the memory folder inside the sandbox.
const MEMORIES: &CStr = c"memories";

/// The folder beside `memories/` for files outside the root that are not canaries: targets of
/// hard-link fixtures (`{base}/shared/<name>`), made on demand.
const SHARED: &str = "shared";

/// What a file in [`SHARED`] holds: no secret, so that reading it is no leak.
pub const SHARED_TEXT: &str = "a file outside /memories, hard-linked into it\n";

/// The temporary folders alive in this process, so that a signal ending it can remove them:
/// drops never run when a process exits, and a killed run would leave a sandbox per worker
/// behind in `TMPDIR`.
#[derive(Debug, Default)]
struct Live {
    /// Keys handed out so far.
    next: u64,
    /// Sandboxes by key: duplicated handles, removed the way [`Sandbox::remove`] does.
    sandboxes: BTreeMap<u64, Handles>,
}

/// What removing a sandbox takes, without the sandbox.
#[derive(Debug)]
struct Handles {
    path: PathBuf,
    parent: OwnedFd,
    name: CString,
    base: OwnedFd,
    id: (u64, u64),
}

static LIVE: Mutex<Live> = Mutex::new(Live {
    next: 0,
    sandboxes: BTreeMap::new(),
});

/// Set once [`remove_live`] ran: no temporary folder is made after it.
static CLOSING: AtomicBool = AtomicBool::new(false);

fn live() -> MutexGuard<'static, Live> {
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
    left.extend(crate::backend::cleanup::remove_folders());
    left
}

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
}

/// What one entry outside `memories/` looked like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    /// What it is.
    pub kind: Kind,
    /// Permission bits.
    pub mode: u32,
    /// Whether it is immutable or append-only.
    pub immutable: bool,
    /// Size in bytes.
    pub size: u64,
    /// A file's content when small, a link's target; otherwise empty.
    pub content: Vec<u8>,
    /// Modification and status change times, for files too large to compare by content.
    pub mtime: ((i64, u32), (i64, u32)),
}

/// Everything outside `memories/`, by path relative to the sandbox.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outside {
    /// Entries by relative path.
    pub entries: BTreeMap<PathBuf, Seen>,
    /// Entries past [`OUTSIDE_ENTRY_LIMIT`], not recorded.
    pub more: usize,
}

/// A fixture could not be made.
#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    /// The fixture itself is wrong (a path leaving `memories/`, bad hex): the suite's fault.
    #[error("fixture {path:?}: {reason}")]
    Invalid {
        /// The fixture's path.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// Something the backend put there is in the way.
    #[error("{0}")]
    InTheWay(String),
    /// The operating system refused.
    #[error("fixture {path:?}: {source}")]
    Io {
        /// The fixture's path.
        path: String,
        /// What it said.
        source: io::Error,
    },
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

    /// Makes `memspec-XXXX/`, its `memories/` and the canaries in `folder`.
    pub fn new_in(folder: &Path) -> io::Result<Sandbox> {
        // Made and registered under the lock, so that a signal's cleanup sees it or stops it.
        let mut live = live();
        if CLOSING.load(Ordering::SeqCst) {
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "memspec is stopping",
            ));
        }
        let made = tempfile::Builder::new()
            .prefix("memspec-")
            .tempdir_in(folder)?;
        // From here the sandbox is removed by handle (see Drop), never by path.
        let path = made.keep();
        let parent = rustix::fs::open(
            folder,
            rustix::fs::OFlags::RDONLY
                | rustix::fs::OFlags::DIRECTORY
                | rustix::fs::OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let name = fs::c_name(&path.file_name().unwrap_or_default().to_string_lossy())?;
        let base = fs::open_dir_at(parent.as_fd(), &name)?;
        let id = fs::meta_of(base.as_fd())?.id;
        let key = live.next;
        live.next += 1;
        live.sandboxes.insert(
            key,
            Handles {
                path: path.clone(),
                parent: parent.try_clone()?,
                name: name.clone(),
                base: base.try_clone()?,
                id,
            },
        );
        drop(live);
        let sandbox = Sandbox {
            memories_path: path.join("memories"),
            path,
            parent,
            name,
            base,
            id,
            secret: unique_secret(),
            removed: false,
            key,
        };
        rustix::fs::mkdirat(sandbox.base.as_fd(), MEMORIES, Mode::from_raw_mode(0o755))?;
        sandbox.plant_canaries()?;
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

    /// The secret every canary contains; it must never appear in an output.
    pub fn secret(&self) -> &str {
        &self.secret
    }

    /// Replaces `{base}` and `{memories}` with this sandbox's absolute paths.
    pub fn expand(&self, text: &str) -> String {
        text.replace("{base}", &self.path.to_string_lossy())
            .replace("{memories}", &self.memories_path.to_string_lossy())
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

    /// What the backend did to the sandbox's structure, in words: the sandbox's path no longer
    /// names its folder, or `memories/` is not a folder. Empty when nothing.
    pub fn audit(&self) -> Vec<String> {
        let mut found = Vec::new();
        match fs::meta_at(self.parent.as_fd(), &self.name) {
            Ok(Some(meta)) if meta.id == self.id => {}
            Ok(Some(meta)) if meta.kind == Kind::Symlink => found.push(format!(
                "the sandbox folder {} was replaced by a symbolic link to {}",
                self.path.display(),
                fs::link_target(self.parent.as_fd(), &self.name).unwrap_or_default()
            )),
            Ok(Some(meta)) => found.push(format!(
                "the sandbox folder {} was replaced by {}",
                self.path.display(),
                meta.kind.describe()
            )),
            Ok(None) => found.push(format!(
                "the sandbox folder {} was moved or deleted",
                self.path.display()
            )),
            Err(e) => found.push(format!(
                "the sandbox folder {} cannot be looked at: {e}",
                self.path.display()
            )),
        }
        match fs::meta_at(self.base.as_fd(), MEMORIES) {
            // A backend may remove and make its folder again (a reset); only what is not a
            // folder is in the way.
            Ok(Some(meta)) if meta.kind == Kind::Dir => {}
            Ok(Some(meta)) if meta.kind == Kind::Symlink => found.push(format!(
                "the memories folder was replaced by a symbolic link to {}",
                fs::link_target(self.base.as_fd(), MEMORIES).unwrap_or_default()
            )),
            Ok(Some(meta)) => found.push(format!(
                "the memories folder was replaced by {}",
                meta.kind.describe()
            )),
            Ok(None) | Err(_) => {}
        }
        found
    }

    /// Objects in `memories/` that no memory backend makes (links, FIFOs, sockets, devices),
    /// described: after a `reset` answered `ok`, they are what the backend left in the way of
    /// the next case's fixtures. At most `limit` are named.
    pub fn specials_in_memories(&self, limit: usize) -> Vec<String> {
        let mut found = Vec::new();
        let Ok(root) = self.memories_dir() else {
            return found;
        };
        let mut queue: Vec<(OwnedFd, String)> = vec![(root, String::new())];
        let mut visited = 0usize;
        while let Some((dir, prefix)) = queue.pop() {
            let Ok(listing) = fs::entries(dir.as_fd()) else {
                continue;
            };
            for (name, kind) in listing {
                visited += 1;
                let shown = format!("{prefix}{}", name.to_string_lossy());
                match kind {
                    Kind::Dir if visited < OUTSIDE_ENTRY_LIMIT && queue.len() < 64 => {
                        if let Ok(child) = fs::open_dir_at(dir.as_fd(), &name) {
                            queue.push((child, format!("{shown}/")));
                        }
                    }
                    Kind::Dir | Kind::File => {}
                    Kind::Symlink => found.push(format!(
                        "a symbolic link at memories/{shown} (to {})",
                        fs::link_target(dir.as_fd(), &name).unwrap_or_default()
                    )),
                    other => found.push(format!("{} at memories/{shown}", other.describe())),
                }
                if found.len() >= limit {
                    return found;
                }
            }
        }
        found
    }

    /// Brings the sandbox back to its fresh state: `memories/` emptied (made again if the
    /// backend replaced it), everything else replaced by fresh canaries. Returns what could not
    /// be removed, described; nothing is ever followed.
    pub fn clear(&self) -> io::Result<Vec<String>> {
        let mut left = Vec::new();
        for (name, _) in fs::entries(self.base.as_fd())? {
            if name.as_c_str() == MEMORIES
                && let Ok(memories) = self.memories_dir()
            {
                // Whatever mode or flags the backend gave its folder, the next case starts
                // from a plain one.
                let _ = rustix::fs::fchmod(memories.as_fd(), Mode::from_raw_mode(0o755));
                for (entry, _) in fs::entries(memories.as_fd())? {
                    left.extend(fs::remove(memories.as_fd(), &entry, true)?);
                }
                continue;
            }
            left.extend(fs::remove(self.base.as_fd(), &name, true)?);
        }
        if fs::meta_at(self.base.as_fd(), MEMORIES)?.is_none() {
            rustix::fs::mkdirat(self.base.as_fd(), MEMORIES, Mode::from_raw_mode(0o755))?;
        }
        if left.is_empty() {
            self.plant_canaries()?;
        }
        Ok(left)
    }

    /// Removes the sandbox now; returns what could not be removed, described.
    pub fn remove(mut self) -> Vec<String> {
        self.remove_now()
    }

    fn remove_now(&mut self) -> Vec<String> {
        if self.removed {
            return Vec::new();
        }
        self.removed = true;
        // Forgotten first: a signal's cleanup must not race this removal with its own.
        let handles = live().sandboxes.remove(&self.key);
        match handles {
            Some(handles) => remove_tree(&handles),
            // Already removed by a signal's cleanup.
            None => Vec::new(),
        }
    }

    /// Makes a fixture inside `memories/`, never through anything the backend put there: a
    /// name already taken is [`FixtureError::InTheWay`].
    pub fn apply(&self, fixture: &Fixture) -> Result<(), FixtureError> {
        self.plant(Some("memories"), fixture, b"")
    }

    /// Makes a file or a folder outside `memories/`, beside the canaries (`path` is relative to
    /// the sandbox's folder): a seed's "files outside the root". A file starts with the
    /// sandbox's secret, so that a backend showing one is caught as leaking a canary, and it is
    /// watched like one (made before the backend starts, so changing it is a change outside).
    pub fn apply_outside(&self, fixture: &Fixture) -> Result<(), FixtureError> {
        let invalid = |reason: &str| FixtureError::Invalid {
            path: fixture.path.clone(),
            reason: reason.to_string(),
        };
        match &fixture.kind {
            FixtureKind::Text(_)
            | FixtureKind::BytesHex(_)
            | FixtureKind::Repeat { .. }
            | FixtureKind::Dir(_) => {}
            FixtureKind::Symlink(_) | FixtureKind::Hardlink(_) | FixtureKind::Fifo(_) => {
                return Err(invalid(
                    "outside the memories folder only files and folders are made",
                ));
            }
        }
        // `memories` is the backend's folder: nothing outside may be made in it or in its place.
        if fixture.path.split('/').next() == Some("memories") {
            return Err(invalid(
                "is in the memories folder; outside entries go beside it",
            ));
        }
        let marker = format!("{} ", self.secret);
        self.plant(None, fixture, marker.as_bytes())
    }

    /// Makes a fixture below `area` (`memories`, or the sandbox's folder itself); a file's
    /// content starts with `prefix`.
    fn plant(
        &self,
        area: Option<&str>,
        fixture: &Fixture,
        prefix: &[u8],
    ) -> Result<(), FixtureError> {
        let invalid = |reason: &str| FixtureError::Invalid {
            path: fixture.path.clone(),
            reason: reason.to_string(),
        };
        // Refused by the operating system in a folder the backend had the run of (a mode or a
        // flag it set) is in the way as much as a link would be; anything else is the harness's.
        let io_error = |source: io::Error| {
            if matches!(
                source.kind(),
                io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem
            ) {
                FixtureError::InTheWay(format!(
                    "the harness cannot make the fixture {:?}: {source}",
                    fixture.path
                ))
            } else {
                FixtureError::Io {
                    path: fixture.path.clone(),
                    source,
                }
            }
        };
        let parts = fs::components(&fixture.path)
            .map_err(|_| invalid("must be a plain relative path inside memories/"))?;
        let Some((last, parents)) = parts.split_last() else {
            return Err(invalid("is empty"));
        };
        let mut full: Vec<&str> = area.into_iter().collect();
        full.extend_from_slice(parents);
        let dir = fs::walk(self.base.as_fd(), &full, true).map_err(|e| match e {
            WalkError::Blocked { at, kind } => FixtureError::InTheWay(format!(
                "{} at {at}, where the harness makes the fixture {:?}",
                kind.describe(),
                fixture.path
            )),
            WalkError::NotPlain(_) => invalid("must be a plain relative path inside memories/"),
            WalkError::Io { source, .. } => io_error(source),
            missing @ WalkError::Missing { .. } => io_error(io::Error::other(missing.to_string())),
        })?;
        let name = fs::c_name(last).map_err(|_| invalid("contains a NUL byte"))?;
        let write = |bytes: &[u8]| {
            if prefix.is_empty() {
                fs::create_new_at(dir.as_fd(), &name, bytes, 0o644)
            } else {
                fs::create_new_at(dir.as_fd(), &name, &[prefix, bytes].concat(), 0o644)
            }
        };
        let made = match &fixture.kind {
            FixtureKind::Text(text) => write(text.as_bytes()),
            FixtureKind::BytesHex(hex) => {
                let bytes = decode_hex(hex).map_err(|e| invalid(&e.to_string()))?;
                write(&bytes)
            }
            FixtureKind::Repeat {
                line,
                count,
                final_newline,
            } => {
                let mut content = String::with_capacity((line.len() + 1) * count);
                for _ in 0..*count {
                    content.push_str(line);
                    content.push('\n');
                }
                if !final_newline {
                    content.pop();
                }
                write(content.as_bytes())
            }
            FixtureKind::Dir(_) => {
                rustix::fs::mkdirat(dir.as_fd(), &*name, Mode::from_raw_mode(0o755))
                    .map_err(io::Error::from)
            }
            FixtureKind::Symlink(target) => {
                rustix::fs::symlinkat(self.expand(target), dir.as_fd(), &*name)
                    .map_err(io::Error::from)
            }
            FixtureKind::Hardlink(target) => {
                self.hard_link(target, dir.as_fd(), &name, &invalid)?
            }
            FixtureKind::Fifo(_) => rustix::fs::mknodat(
                dir.as_fd(),
                &*name,
                FileType::Fifo,
                Mode::from_raw_mode(0o644),
                0,
            )
            .map_err(io::Error::from),
        };
        match made {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let what = fs::meta_at(dir.as_fd(), &name)
                    .ok()
                    .flatten()
                    .map_or("something", |meta| meta.kind.describe());
                Err(FixtureError::InTheWay(format!(
                    "{what} already at {}{}, where the harness makes a fixture",
                    area.map_or(String::new(), |area| format!("{area}/")),
                    fixture.path
                )))
            }
            Err(e) => Err(io_error(e)),
        }
    }

    /// A hard link to a file of the sandbox, named from `{base}` (`{base}/outside/secret.txt`).
    fn hard_link(
        &self,
        target: &str,
        dir: BorrowedFd<'_>,
        name: &CStr,
        invalid: &dyn Fn(&str) -> FixtureError,
    ) -> Result<io::Result<()>, FixtureError> {
        let relative = target
            .strip_prefix("{base}/")
            .ok_or_else(|| invalid("a hard link's target must start with {base}/"))?;
        let parts =
            fs::components(relative).map_err(|_| invalid("the hard link's target is not plain"))?;
        let Some((last, parents)) = parts.split_last() else {
            return Err(invalid("the hard link's target is empty"));
        };
        let from_name = fs::c_name(last).map_err(|_| invalid("contains a NUL byte"))?;
        if parents == [SHARED] {
            // A file outside the root that is no canary: reading it through a hard link is
            // the reference's decision, not a leak; writing it is still a change outside.
            if let Err(e) = self.make_shared(&from_name) {
                return Ok(Err(e));
            }
        }
        let from = match fs::walk(self.base.as_fd(), parents, false) {
            Ok(from) => from,
            Err(e) => return Ok(Err(io::Error::other(e.to_string()))),
        };
        Ok(rustix::fs::linkat(
            from.as_fd(),
            &*from_name,
            dir,
            name,
            rustix::fs::AtFlags::empty(),
        )
        .map_err(io::Error::from))
    }

    /// `shared/<name>` beside `memories/`, made once, holding [`SHARED_TEXT`].
    fn make_shared(&self, name: &CStr) -> io::Result<()> {
        match rustix::fs::mkdirat(self.base.as_fd(), SHARED, Mode::from_raw_mode(0o755)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(e.into()),
        }
        let dir = fs::open_dir_at(self.base.as_fd(), c"shared")?;
        match fs::create_new_at(dir.as_fd(), name, SHARED_TEXT.as_bytes(), 0o644) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(e),
            _ => Ok(()),
        }
    }

    /// Everything in the sandbox outside `memories/`: kinds, modes, flags, and the content of
    /// small files; walked without recursion, at most [`OUTSIDE_ENTRY_LIMIT`] entries.
    pub fn outside(&self) -> Outside {
        let mut outside = Outside::default();
        let Ok(start) = fs::reopen_dir(self.base.as_fd()) else {
            return outside;
        };
        let mut queue: Vec<(OwnedFd, PathBuf)> = vec![(start, PathBuf::new())];
        while let Some((dir, prefix)) = queue.pop() {
            let Ok(listing) = fs::entries(dir.as_fd()) else {
                continue;
            };
            for (name, _) in listing {
                if prefix.as_os_str().is_empty() && name.as_c_str() == MEMORIES {
                    // `memories/` itself is the backend's; only what it is matters here.
                    if let Ok(Some(meta)) = fs::meta_at(dir.as_fd(), &name)
                        && meta.kind != Kind::Dir
                    {
                        outside
                            .entries
                            .insert(PathBuf::from("memories"), seen(dir.as_fd(), &name, &meta));
                    }
                    continue;
                }
                if outside.entries.len() >= OUTSIDE_ENTRY_LIMIT {
                    outside.more += 1;
                    continue;
                }
                let path = prefix.join(name.to_string_lossy().as_ref());
                let Ok(Some(meta)) = fs::meta_at(dir.as_fd(), &name) else {
                    continue;
                };
                // Bound the open folders: folders past the limit are recorded, not entered.
                if meta.kind == Kind::Dir {
                    if queue.len() >= OPEN_FOLDER_LIMIT {
                        outside.more += 1;
                    } else if let Ok(child) = fs::open_dir_at(dir.as_fd(), &name) {
                        queue.push((child, path.clone()));
                    }
                }
                outside
                    .entries
                    .insert(path, seen(dir.as_fd(), &name, &meta));
            }
        }
        outside
    }

    /// What changed between two [`Sandbox::outside`] snapshots, in words; `None` when nothing.
    pub fn describe_changes(before: &Outside, after: &Outside) -> Option<String> {
        if before == after {
            return None;
        }
        let mut changes = Vec::new();
        for (path, was) in &before.entries {
            match after.entries.get(path) {
                None => changes.push(format!("{} deleted", path.display())),
                Some(now) if now != was => {
                    changes.push(format!("{} changed ({})", path.display(), change(was, now)));
                }
                Some(_) => {}
            }
        }
        for (path, now) in after
            .entries
            .iter()
            .filter(|(p, _)| !before.entries.contains_key(*p))
        {
            changes.push(format!("{} created ({})", path.display(), now.describe()));
        }
        if after.more > before.more {
            changes.push(format!("{} more entries", after.more - before.more));
        }
        Some(changes.join(", "))
    }

    /// What is at `memory_path` (`/memories/…`), looked at without following any link: the
    /// disk as the witness of a folder backend's effects. `Err` for a path that is not below
    /// `/memories` or not plain, or a folder that cannot be opened.
    pub fn look(&self, memory_path: &str) -> Result<Looked, String> {
        let relative = memory_path
            .strip_prefix("/memories")
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
            .ok_or_else(|| format!("effect path {memory_path:?} is not below /memories"))?
            .trim_start_matches('/');
        let mut parts = vec!["memories"];
        if !relative.is_empty() {
            parts.extend(
                fs::components(relative)
                    .map_err(|_| format!("effect path {memory_path:?} is not plain"))?,
            );
        }
        let Some((last, parents)) = parts.split_last() else {
            return Err("an empty effect path".to_string());
        };
        let dir = match fs::walk(self.base.as_fd(), parents, false) {
            Ok(dir) => dir,
            Err(WalkError::Missing { .. }) => {
                return Ok(Looked::Nothing(
                    "nothing (a folder above it is missing)".to_string(),
                ));
            }
            Err(WalkError::Blocked { at, kind }) => {
                return Ok(Looked::Nothing(format!(
                    "{} at {at}, not a folder",
                    kind.describe()
                )));
            }
            Err(e) => return Err(e.to_string()),
        };
        let name = fs::c_name(last).map_err(|e| e.to_string())?;
        match fs::meta_at(dir.as_fd(), &name).map_err(|e| e.to_string())? {
            None => Ok(Looked::Nothing("nothing".to_string())),
            Some(meta) => Ok(Looked::Entry(Entry { dir, name, meta })),
        }
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

impl Seen {
    /// The entry in words: `a file of 12 bytes, mode 644`.
    pub fn describe(&self) -> String {
        let what = match self.kind {
            Kind::File => format!("a file of {} bytes", self.size),
            Kind::Symlink => format!(
                "a symbolic link to {}",
                String::from_utf8_lossy(&self.content)
            ),
            other => other.describe().to_string(),
        };
        let flags = if self.immutable { ", immutable" } else { "" };
        format!("{what}, mode {:03o}{flags}", self.mode)
    }
}

/// How an entry changed, in words: `mode 644 → 000`.
fn change(was: &Seen, now: &Seen) -> String {
    let mut parts = Vec::new();
    if was.kind != now.kind {
        parts.push(format!("now {}", now.kind.describe()));
    }
    if was.mode != now.mode {
        parts.push(format!("mode {:03o} → {:03o}", was.mode, now.mode));
    }
    if was.immutable != now.immutable {
        parts.push(if now.immutable {
            "made immutable".to_string()
        } else {
            "no longer immutable".to_string()
        });
    }
    if was.kind == now.kind && (was.size != now.size || was.content != now.content) {
        parts.push(format!("content, {} → {} bytes", was.size, now.size));
    } else if was.kind == now.kind && was.mtime != now.mtime {
        parts.push("modified".to_string());
    }
    parts.join(", ")
}

fn seen(dir: BorrowedFd<'_>, name: &CStr, meta: &Meta) -> Seen {
    let content = match meta.kind {
        Kind::File if meta.size <= OUTSIDE_CONTENT_LIMIT => {
            fs::read_at(dir, name, OUTSIDE_CONTENT_LIMIT).unwrap_or_default()
        }
        Kind::Symlink => fs::link_target(dir, name)
            .map(String::into_bytes)
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    Seen {
        kind: meta.kind,
        mode: meta.mode,
        immutable: meta.immutable,
        size: if meta.kind == Kind::File {
            meta.size
        } else {
            0
        },
        content,
        mtime: if meta.kind == Kind::File && meta.size > OUTSIDE_CONTENT_LIMIT {
            (meta.mtime, meta.ctime)
        } else {
            ((0, 0), (0, 0))
        },
    }
}

/// What [`Sandbox::look`] found at a memory path.
#[derive(Debug)]
pub enum Looked {
    /// Nothing there (or a folder above it missing or not a folder), in words.
    Nothing(String),
    /// Something there.
    Entry(Entry),
}

/// An entry found by [`Sandbox::look`], held by its folder's handle: reading it follows no link.
#[derive(Debug)]
pub struct Entry {
    dir: OwnedFd,
    name: CString,
    meta: Meta,
}

impl Entry {
    /// What kind of entry.
    pub fn kind(&self) -> Kind {
        self.meta.kind
    }

    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.meta.size
    }

    /// A regular file's bytes, when it holds at most `max`; `None` otherwise.
    pub fn read(&self, max: u64) -> Option<Vec<u8>> {
        (self.meta.kind == Kind::File)
            .then(|| fs::read_at(self.dir.as_fd(), &self.name, max).ok())
            .flatten()
    }

    /// A symbolic link's target.
    pub fn link_target(&self) -> Option<String> {
        fs::link_target(self.dir.as_fd(), &self.name).ok()
    }

    /// What it is, in words, for a failed effect: a small file's content, a big one's size.
    pub fn describe(&self) -> String {
        describe(self.dir.as_fd(), &self.name, Some(&self.meta))
    }
}

/// What is at `name`, in words, for a failed effect: a small file's content, a big one's size.
fn describe(dir: BorrowedFd<'_>, name: &CStr, meta: Option<&Meta>) -> String {
    const SHOWN: u64 = 4096;
    let Some(meta) = meta else {
        return "nothing".to_string();
    };
    match meta.kind {
        Kind::Symlink => format!(
            "a symbolic link to {}",
            fs::link_target(dir, name).unwrap_or_default()
        ),
        Kind::File => match fs::read_at(dir, name, SHOWN) {
            Ok(bytes) => format!("a file containing {:?}", String::from_utf8_lossy(&bytes)),
            Err(ReadError::TooBig { size }) => {
                format!("a file of {size} bytes (too large to show)")
            }
            Err(e) => format!("a file that cannot be read ({e})"),
        },
        other => other.describe().to_string(),
    }
}

/// Decodes `bytes_hex` (whitespace allowed between digits).
pub fn decode_hex(hex: &str) -> io::Result<Vec<u8>> {
    let digits: Vec<u8> = hex.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "bytes_hex has an odd number of digits",
        ));
    }
    digits
        .chunks(2)
        .map(|pair| {
            let text = std::str::from_utf8(pair).unwrap_or("zz");
            u8::from_str_radix(text, 16).map_err(|_| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("bad hex byte {text:?}"),
                )
            })
        })
        .collect()
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
