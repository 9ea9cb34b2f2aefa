//! The second wall: every filesystem access happens relative to an open handle on the root,
//! one component at a time, without following symbolic links.
//!
//! `cap-std` gives the sandbox (no absolute path, no `..`, nothing above the root can even be
//! named), and each component is opened with `O_NOFOLLOW`, so a symlink, planted before or swapped
//! in during an operation, is refused instead of followed. Writes go to a hidden temp file that is
//! fsynced and then renamed into place, with `RENAME_NOREPLACE` when the destination must not
//! exist.

use std::ffi::{OsStr, OsString};
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use cap_fs_ext::{DirExt, FollowSymlinks, MetadataExt, OpenOptionsFollowExt};
use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};
use rustix::fs::{FlockOperation, Mode, OFlags, RenameFlags};

/// Prefix of temp files; hidden, so never listed.
const TEMP_PREFIX: &str = ".memspec-tmp-";

/// What a name in a folder is, looked at without following it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occupant {
    /// Nothing by that name.
    Missing,
    /// A regular file.
    File,
    /// A folder.
    Dir,
    /// A symbolic link (never followed).
    Symlink,
    /// A FIFO, socket or device.
    Special,
}

/// Why walking down to a path's parent folder stopped.
#[derive(Debug)]
pub enum WalkError {
    /// Component `at` does not exist.
    Missing { at: usize },
    /// Component `at` exists but is not a folder.
    NotDir { at: usize },
    /// Component `at` is a symbolic link.
    Symlink { at: usize },
    /// The operating system refused.
    Io(io::Error),
}

/// An open memory root.
#[derive(Debug)]
pub struct Root {
    dir: Dir,
    /// The root opened for reading at start: the open file description [`Root::lock`] locks.
    /// It is this `Root`'s own, so every other opening of the folder (another process, another
    /// `Root`) is excluded by `flock`; the mutex excludes the threads sharing this `Root`, which
    /// `flock` on one file description would not. Kept open so that a lock costs `flock` twice
    /// rather than an open, a `flock` and a close.
    lock_file: Mutex<std::fs::File>,
}

impl Root {
    /// Opens (creating if needed) the folder that `/memories` maps to.
    pub fn open(path: &Path) -> io::Result<Root> {
        std::fs::create_dir_all(path)?;
        let dir = Dir::open_ambient_dir(path, ambient_authority())?;
        // cap-std opens folders with O_PATH, which flock refuses: open "." for reading instead.
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let lock_file = std::fs::File::from(rustix::fs::openat(&dir, ".", flags, Mode::empty())?);
        Ok(Root {
            dir,
            lock_file: Mutex::new(lock_file),
        })
    }

    /// Opens (creating if needed) the folder `name` (one path component, never `..`) inside
    /// the folder at `store` (created if needed), without following a link at `name`: a user's
    /// folder in a store of many users ([`super::users`]).
    pub fn open_in(store: &Path, name: &str) -> io::Result<Root> {
        std::fs::create_dir_all(store)?;
        let store = Dir::open_ambient_dir(store, ambient_authority())?;
        single_component(OsStr::new(name))?;
        match rustix::fs::mkdirat(&store, name, Mode::from_raw_mode(0o755)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(e.into()),
        }
        let dir = open_dir_readable(&store, OsStr::new(name))?;
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let lock_file = std::fs::File::from(rustix::fs::openat(&dir, ".", flags, Mode::empty())?);
        Ok(Root {
            dir,
            lock_file: Mutex::new(lock_file),
        })
    }

    /// The root folder itself.
    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// Takes the root's exclusive lock until the guard drops: against other processes and other
    /// `Root`s (`flock`), and against other threads using this one (a mutex).
    pub fn lock(&self) -> io::Result<LockGuard<'_>> {
        // A thread that panicked while holding the mutex left nothing half-done in it: the
        // file is only ever locked and unlocked, and its guard's drop unlocked it.
        let held = self
            .lock_file
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        rustix::fs::flock(&*held, FlockOperation::LockExclusive)?;
        Ok(LockGuard { held })
    }

    /// Opens the folder holding `components`' last element, walking without following links.
    /// With `create`, missing folders are made on the way.
    pub fn parent_of(&self, components: &[String], create: bool) -> Result<Dir, WalkError> {
        let parents = components
            .split_last()
            .map_or(&[][..], |(_, parents)| parents);
        // The folder reached so far; `None` for the root, which is walked from without a copy
        // of its handle (only returned as one when the path has no parent folder).
        let mut reached: Option<Dir> = None;
        for (at, name) in parents.iter().enumerate() {
            let current = reached.as_ref().unwrap_or(&self.dir);
            let next = match current.open_dir_nofollow(name) {
                Ok(next) => next,
                Err(err) => match kind_of(current, name) {
                    Occupant::Missing if create => {
                        match current.create_dir(name) {
                            Ok(()) => {}
                            // Someone else made it meanwhile: open whatever is there now.
                            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                            Err(e) => return Err(WalkError::Io(e)),
                        }
                        current
                            .open_dir_nofollow(name)
                            .map_err(|e| classify(current, name, at, e))?
                    }
                    Occupant::Missing => return Err(WalkError::Missing { at }),
                    Occupant::Symlink => return Err(WalkError::Symlink { at }),
                    Occupant::File | Occupant::Special => return Err(WalkError::NotDir { at }),
                    Occupant::Dir => return Err(WalkError::Io(err)),
                },
            };
            reached = Some(next);
        }
        match reached {
            Some(dir) => Ok(dir),
            None => self.dir.try_clone().map_err(WalkError::Io),
        }
    }
}

fn classify(dir: &Dir, name: &str, at: usize, err: io::Error) -> WalkError {
    match kind_of(dir, name) {
        Occupant::Missing => WalkError::Missing { at },
        Occupant::Symlink => WalkError::Symlink { at },
        Occupant::File | Occupant::Special => WalkError::NotDir { at },
        Occupant::Dir => WalkError::Io(err),
    }
}

/// Opens the folder `name` of `dir` for reading its entries, without following a symlink: one
/// `openat` with `O_NOFOLLOW | O_DIRECTORY`. `name` must be `.` (`dir` itself) or a single
/// component (never `..` or anything with a `/`), as folder entries and validated path
/// components are; anything else is refused, so the open cannot leave `dir`.
///
/// `cap-std`'s `open_dir_nofollow` opens with `O_PATH`, which cannot be read: listing such a
/// handle costs three more system calls (it reopens `.` twice).
pub fn open_dir_readable(dir: &Dir, name: &OsStr) -> io::Result<Dir> {
    single_component(name)?;
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = openat_noatime(dir.as_fd(), name, flags)?;
    Ok(Dir::from_std_file(std::fs::File::from(fd)))
}

/// Refuses anything but `.` or one path component, so that an `openat` cannot leave its folder.
fn single_component(name: &OsStr) -> io::Result<()> {
    let bytes = name.as_encoded_bytes();
    if bytes.is_empty() || bytes == b".." || bytes.contains(&b'/') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a single path component",
        ));
    }
    Ok(())
}

/// `openat(dir, name, flags)` asking the kernel to leave the access time alone (`O_NOATIME`)
/// where it lets us. A read that updates it dirties the inode of every file viewed and every
/// folder listed, and the next `fsync` in that folder writes it out: on ext4 without a journal,
/// one more synchronous write for about every view, which the harness's own looks would add to
/// a backend's writes too. Only the file's owner may ask (`EPERM` otherwise); then the file is
/// opened as usual, access time and all.
pub fn openat_noatime<P: rustix::path::Arg + Copy>(
    dir: BorrowedFd<'_>,
    name: P,
    flags: OFlags,
) -> rustix::io::Result<OwnedFd> {
    match rustix::fs::openat(dir, name, flags | OFlags::NOATIME, Mode::empty()) {
        Err(rustix::io::Errno::PERM) => rustix::fs::openat(dir, name, flags, Mode::empty()),
        opened => opened,
    }
}

/// Seconds of the access time of `path`, read without touching it.
#[cfg(test)]
pub(crate) fn atime(path: &std::path::Path) -> i64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).unwrap().atime()
}

/// Sets the access time of `path` an hour before its modification time: under `relatime`
/// (the usual mount option) or `strictatime`, the next read would then update it.
#[cfg(test)]
pub(crate) fn age_atime(path: &std::path::Path) {
    use std::os::unix::fs::MetadataExt;
    let mtime = std::fs::symlink_metadata(path).unwrap().mtime();
    let old = rustix::fs::Timespec {
        tv_sec: mtime - 3600,
        tv_nsec: 0,
    };
    let times = rustix::fs::Timestamps {
        last_access: old,
        last_modification: rustix::fs::Timespec {
            tv_sec: mtime,
            tv_nsec: 0,
        },
    };
    rustix::fs::utimensat(rustix::fs::CWD, path, &times, rustix::fs::AtFlags::empty()).unwrap();
}

/// Holds the root's exclusive lock.
#[derive(Debug)]
pub struct LockGuard<'a> {
    held: MutexGuard<'a, std::fs::File>,
}

impl Drop for LockGuard<'_> {
    fn drop(&mut self) {
        // Unlocking a file we hold open cannot fail; were it to, closing the file (when the
        // `Root` drops) would release the lock all the same.
        let _ = rustix::fs::flock(&*self.held, FlockOperation::Unlock);
    }
}

/// What `name` in `dir` is, without following a link. Errors other than "not found" count as
/// missing only when the name really cannot be looked at.
pub fn kind_of(dir: &Dir, name: &str) -> Occupant {
    match dir.symlink_metadata(name) {
        Ok(meta) => {
            let ft = meta.file_type();
            if ft.is_symlink() {
                Occupant::Symlink
            } else if ft.is_dir() {
                Occupant::Dir
            } else if ft.is_file() {
                Occupant::File
            } else {
                Occupant::Special
            }
        }
        Err(_) => Occupant::Missing,
    }
}

/// Why a file could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// It is not a regular file (a FIFO or socket swapped in, a folder).
    NotRegular,
    /// It has more than one hard link: another name for it may lie outside the root.
    HardLinked,
    /// The operating system refused.
    Io(io::Error),
}

impl From<io::Error> for ReadError {
    fn from(err: io::Error) -> Self {
        ReadError::Io(err)
    }
}

/// Reads a regular file without following a link and without blocking on a FIFO swapped in.
/// A file with other hard links is refused: its other names may be outside the root, so
/// reading or editing it would read or edit outside. The reference itself never makes one.
pub fn read_file(dir: &Dir, name: &str) -> Result<Vec<u8>, ReadError> {
    let (mut file, len) = open_file(dir, name)?;
    let mut bytes = Vec::with_capacity(len as usize);
    read_rest(&mut file, &mut bytes)?;
    Ok(bytes)
}

/// Appends the rest of `file` to `bytes`, whose spare capacity should already hold it (the size
/// [`open_file`] returned). A file that grew meanwhile is read whole all the same.
pub fn read_rest(file: &mut cap_std::fs::File, bytes: &mut Vec<u8>) -> io::Result<usize> {
    /// A file seen only as a reader: `File::read_to_end` would ask the kernel for the file's
    /// size and position again (`statx` and `lseek`) before reading, though the caller knows it.
    struct Plain<'a>(&'a mut cap_std::fs::File);
    impl Read for Plain<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.0.read(buf)
        }
    }
    Plain(file).read_to_end(bytes)
}

/// Opens a regular file for reading as [`read_file`] does (no link followed, no FIFO waited
/// on, no hard-linked file) and returns it with its size, so that a caller can read as little
/// of it as it needs.
pub fn open_file(dir: &Dir, name: &str) -> Result<(cap_std::fs::File, u64), ReadError> {
    single_component(OsStr::new(name))?;
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let fd = openat_noatime(dir.as_fd(), name, flags).map_err(io::Error::from)?;
    let file = cap_std::fs::File::from_std(std::fs::File::from(fd));
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular);
    }
    if meta.nlink() > 1 {
        return Err(ReadError::HardLinked);
    }
    Ok((file, meta.len()))
}

/// A hidden name for a temp file or a folder being deleted. The process id makes names unlikely
/// to collide with another process's; it is asked once (a `getpid` per write otherwise).
/// O_EXCL (or `RENAME_NOREPLACE`) is what guarantees a fresh entry: a name taken anyway, even by
/// a forked child that kept this id, only moves on to the next number.
fn temp_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    static PID: OnceLock<u32> = OnceLock::new();
    let pid = *PID.get_or_init(std::process::id);
    format!(
        "{TEMP_PREFIX}{pid}-{}",
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// Writes `bytes` to a new hidden temp file in `dir`, fsynced, and returns its name.
fn write_temp(dir: &Dir, bytes: &[u8]) -> io::Result<String> {
    loop {
        let name = temp_name();
        let mut options = OpenOptions::new();
        options
            .write(true)
            .create_new(true)
            .follow(FollowSymlinks::No);
        let mut file = match dir.open_with(&name, &options) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        let written = file.write_all(bytes).and_then(|()| file.sync_all());
        if let Err(e) = written {
            let _ = dir.remove_file(&name);
            return Err(e);
        }
        return Ok(name);
    }
}

/// Atomically replaces `name` in `dir` with `bytes` (temp file, fsync, rename).
pub fn replace_file(dir: &Dir, name: &str, bytes: &[u8]) -> io::Result<()> {
    let temp = write_temp(dir, bytes)?;
    dir.rename(&temp, dir, name).inspect_err(|_| {
        let _ = dir.remove_file(&temp);
    })?;
    sync_dir(dir);
    Ok(())
}

/// Flushes a folder's entries (a name added, moved or removed) to disk, as the file's own bytes
/// were: best effort, since a folder that cannot be synced has still been changed.
fn sync_dir(dir: &Dir) {
    let _ = rustix::fs::fsync(dir);
}

/// Atomically creates `name` in `dir` with `bytes`; fails with `AlreadyExists` if anything,
/// even a dangling symlink, has that name (`renameat2` with `RENAME_NOREPLACE`).
pub fn create_file(dir: &Dir, name: &str, bytes: &[u8]) -> io::Result<()> {
    let temp = write_temp(dir, bytes)?;
    rename_no_replace(dir, &temp, dir, name).inspect_err(|_| {
        let _ = dir.remove_file(&temp);
    })
}

/// Renames without replacing: fails with `AlreadyExists` when the destination exists.
pub fn rename_no_replace(from: &Dir, from_name: &str, to: &Dir, to_name: &str) -> io::Result<()> {
    rustix::fs::renameat_with(
        from.as_fd(),
        from_name,
        to.as_fd(),
        to_name,
        RenameFlags::NOREPLACE,
    )
    .map_err(io::Error::from)?;
    sync_dir(to);
    if !std::ptr::eq(from, to) {
        sync_dir(from);
    }
    Ok(())
}

/// Deletes `name` in `dir`: a file or a link is unlinked (a link's target is untouched), a folder
/// is removed with everything in it.
///
/// A folder is first renamed to a hidden temp name, in one step, and removed from there: killed
/// mid-way, the delete has happened whole (what is left is hidden, never listed), not half.
pub fn delete(dir: &Dir, name: &str, kind: Occupant) -> io::Result<()> {
    match kind {
        Occupant::Dir => {
            let mut doomed = temp_name();
            loop {
                match rename_no_replace(dir, name, dir, &doomed) {
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => doomed = temp_name(),
                    done => break done?,
                }
            }
            // The folder is gone from every listing and path once renamed: the delete has
            // happened. What cannot be removed now stays hidden, and is no error of the delete.
            let _ = walk_tree(dir, OsStr::new(&doomed), &mut Remove);
            Ok(())
        }
        _ => {
            dir.remove_file_or_symlink(name)?;
            sync_dir(dir);
            Ok(())
        }
    }
}

/// Removes everything in `dir`, keeping `dir` itself: the `reset` control. It works on the open
/// handle, never on a path, so a root folder swapped for a symlink after the reference opened
/// it cannot redirect the wipe; links inside are unlinked, never followed.
pub fn empty_dir(dir: &Dir) -> io::Result<()> {
    for name in Remove.enter(dir)? {
        match walk_tree(dir, &name, &mut Remove) {
            // Gone meanwhile: nothing left to remove.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            other => other?,
        }
    }
    Ok(())
}

/// What a folder is, as the kernel knows it: how a walk going back up recognises the folder it
/// came from.
type Identity = (u64, u64);

fn identity(dir: &Dir) -> io::Result<Identity> {
    let meta = dir.dir_metadata()?;
    Ok((meta.dev(), meta.ino()))
}

/// What [`walk_tree`] does in each folder.
pub(crate) trait Visit {
    /// Handles the entries of the open folder `dir` and returns the names of the subfolders to
    /// walk into (never symlinks).
    fn enter(&mut self, dir: &Dir) -> io::Result<Vec<OsString>>;
    /// Everything below the folder `name` of `parent` has been visited.
    fn leave(&mut self, parent: &Dir, name: &OsStr) -> io::Result<()>;
    /// A subfolder that [`Visit::enter`] returned could not be opened: `Ok` skips it, `Err`
    /// stops the walk with that error.
    fn unopenable(&mut self, error: io::Error) -> io::Result<()>;
}

/// One folder on the way from the walked folder down to the current one.
struct Frame {
    /// Its name in its parent.
    name: OsString,
    identity: Identity,
    /// Its subfolders not visited yet.
    pending: Vec<OsString>,
}

/// Walks the folder `name` in `top` depth first, calling `visit` in every folder below it,
/// never following a symlink (every folder is opened with `O_NOFOLLOW`).
///
/// The depth is unbounded (each rename can stack one deep tree onto another), so the walk keeps
/// its path on the heap, not the call stack, and holds a bounded number of descriptors rather
/// than one per level: the walked folder and the current one. Going back up opens the current
/// folder's `..` and checks that it is the folder the walk came down from (device and inode);
/// if a concurrent rename moved things, it walks down again from `top` by name, checking every
/// folder the same way, and stops with an error if the tree is no longer the one it walked.
pub(crate) fn walk_tree(top: &Dir, name: &OsStr, visit: &mut impl Visit) -> io::Result<()> {
    let walked = open_dir_readable(top, name)?;
    let mut frames = vec![Frame {
        name: name.to_owned(),
        identity: identity(&walked)?,
        pending: visit.enter(&walked)?,
    }];
    // The current folder when it is below `walked`; `None` when it is `walked` itself, which
    // stays open so that returning to it (the common case in a wide, shallow tree) costs nothing.
    let mut deeper: Option<Dir> = None;
    loop {
        let current = deeper.as_ref().unwrap_or(&walked);
        let Some(frame) = frames.last_mut() else {
            return Ok(());
        };
        if let Some(child) = frame.pending.pop() {
            let opened =
                open_dir_readable(current, &child).and_then(|sub| Ok((identity(&sub)?, sub)));
            match opened {
                Ok((identity, sub)) => {
                    let pending = visit.enter(&sub)?;
                    frames.push(Frame {
                        name: child,
                        identity,
                        pending,
                    });
                    deeper = Some(sub);
                }
                Err(e) => visit.unopenable(e)?,
            }
            continue;
        }
        // Everything below the current folder is done: leave it from its parent.
        let Some(done) = frames.pop() else {
            return Ok(());
        };
        match frames.len() {
            0 => return visit.leave(top, &done.name),
            1 => {
                visit.leave(&walked, &done.name)?;
                deeper = None;
            }
            _ => {
                let parent = reopen_parent(current, top, &frames)?;
                visit.leave(&parent, &done.name)?;
                deeper = Some(parent);
            }
        }
    }
}

/// Opens the parent of `current`, which must be the last of `frames` (the walked folder is
/// `frames[0]`, in `top`).
fn reopen_parent(current: &Dir, top: &Dir, frames: &[Frame]) -> io::Result<Dir> {
    let Some(want) = frames.last().map(|f| f.identity) else {
        return Err(changed());
    };
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    if let Ok(fd) = rustix::fs::openat(current.as_fd(), "..", flags, Mode::empty()) {
        let up = Dir::from_std_file(std::fs::File::from(fd));
        if identity(&up)? == want {
            return Ok(up);
        }
    }
    // `..` is not where the walk came from: something was renamed meanwhile. Walk down again.
    let mut dir = top.try_clone()?;
    for frame in frames {
        dir = open_dir_readable(&dir, &frame.name)?;
        if identity(&dir)? != frame.identity {
            return Err(changed());
        }
    }
    Ok(dir)
}

fn changed() -> io::Error {
    io::Error::other("the folder tree changed while it was being walked")
}

/// The walk of a removal: unlink every non-folder (symlinks included, never followed), then
/// remove each folder once it is empty.
struct Remove;

impl Visit for Remove {
    fn enter(&mut self, dir: &Dir) -> io::Result<Vec<OsString>> {
        // Read the whole folder before changing it.
        let mut children = Vec::new();
        for entry in dir.entries()? {
            let entry = entry?;
            children.push((entry.file_name(), entry.file_type()?.is_dir()));
        }
        let mut subfolders = Vec::new();
        for (child, is_dir) in children {
            if is_dir {
                subfolders.push(child);
            } else {
                match dir.remove_file_or_symlink(&child) {
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    other => other?,
                }
            }
        }
        Ok(subfolders)
    }

    fn leave(&mut self, parent: &Dir, name: &OsStr) -> io::Result<()> {
        parent.remove_dir(name)
    }

    fn unopenable(&mut self, error: io::Error) -> io::Result<()> {
        // A subfolder that vanished meanwhile needs no removing; anything else is a failure.
        if error.kind() == io::ErrorKind::NotFound {
            Ok(())
        } else {
            Err(error)
        }
    }
}
