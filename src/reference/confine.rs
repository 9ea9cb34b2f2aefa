//! The second wall: every filesystem access happens relative to an open handle on the root,
//! one component at a time, without following symbolic links.
//!
//! `cap-std` gives the sandbox (no absolute path, no `..`, nothing above the root can even be
//! named), and each component is opened with `O_NOFOLLOW`, so a symlink, planted before or swapped
//! in during an operation, is refused instead of followed. Writes go to a hidden temp file that is
//! fsynced and then renamed (or linked, when the destination must not exist) into place.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use cap_fs_ext::{
    DirExt, FollowSymlinks, MetadataExt, OpenOptionsFollowExt, OpenOptionsMaybeDirExt,
};
use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};
use rustix::fs::{FlockOperation, RenameFlags};

/// Prefix of temp files; hidden, so never listed.
const TEMP_PREFIX: &str = ".memspec-tmp-";

/// What a name in a folder is, looked at without following it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
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
}

impl Root {
    /// Opens (creating if needed) the folder that `/memories` maps to.
    pub fn open(path: &Path) -> io::Result<Root> {
        std::fs::create_dir_all(path)?;
        let dir = Dir::open_ambient_dir(path, ambient_authority())?;
        Ok(Root { dir })
    }

    /// The root folder itself.
    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// Takes the root's exclusive lock until the guard drops. Uses a fresh open file
    /// description so that the lock excludes other threads of this process as well as other
    /// processes.
    pub fn lock(&self) -> io::Result<LockGuard> {
        // cap-std opens folders with O_PATH, which flock refuses: open "." for reading instead.
        let mut options = OpenOptions::new();
        options.read(true).maybe_dir(true);
        let handle = self.dir.open_with(".", &options)?;
        rustix::fs::flock(handle.as_fd(), FlockOperation::LockExclusive)?;
        Ok(LockGuard { _handle: handle })
    }

    /// Opens the folder holding `components`' last element, walking without following links.
    /// With `create`, missing folders are made on the way.
    pub fn parent_of(&self, components: &[String], create: bool) -> Result<Dir, WalkError> {
        let mut current = self.dir.try_clone().map_err(WalkError::Io)?;
        let Some((_, parents)) = components.split_last() else {
            return Ok(current);
        };
        for (at, name) in parents.iter().enumerate() {
            current = match current.open_dir_nofollow(name) {
                Ok(next) => next,
                Err(err) => match kind_of(&current, name) {
                    Kind::Missing if create => {
                        match current.create_dir(name) {
                            Ok(()) => {}
                            // Someone else made it meanwhile: open whatever is there now.
                            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                            Err(e) => return Err(WalkError::Io(e)),
                        }
                        current
                            .open_dir_nofollow(name)
                            .map_err(|e| classify(&current, name, at, e))?
                    }
                    Kind::Missing => return Err(WalkError::Missing { at }),
                    Kind::Symlink => return Err(WalkError::Symlink { at }),
                    Kind::File | Kind::Special => return Err(WalkError::NotDir { at }),
                    Kind::Dir => return Err(WalkError::Io(err)),
                },
            };
        }
        Ok(current)
    }
}

fn classify(dir: &Dir, name: &str, at: usize, err: io::Error) -> WalkError {
    match kind_of(dir, name) {
        Kind::Missing => WalkError::Missing { at },
        Kind::Symlink => WalkError::Symlink { at },
        Kind::File | Kind::Special => WalkError::NotDir { at },
        Kind::Dir => WalkError::Io(err),
    }
}

/// Holds the root's exclusive lock.
#[derive(Debug)]
pub struct LockGuard {
    // Closing the last descriptor of the open file description releases the lock.
    _handle: cap_std::fs::File,
}

/// What `name` in `dir` is, without following a link. Errors other than "not found" count as
/// missing only when the name really cannot be looked at.
pub fn kind_of(dir: &Dir, name: &str) -> Kind {
    match dir.symlink_metadata(name) {
        Ok(meta) => {
            let ft = meta.file_type();
            if ft.is_symlink() {
                Kind::Symlink
            } else if ft.is_dir() {
                Kind::Dir
            } else if ft.is_file() {
                Kind::File
            } else {
                Kind::Special
            }
        }
        Err(_) => Kind::Missing,
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
    let mut options = OpenOptions::new();
    options
        .read(true)
        .follow(FollowSymlinks::No)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    let mut file = dir.open_with(name, &options)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular);
    }
    if meta.nlink() > 1 {
        return Err(ReadError::HardLinked);
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Writes `bytes` to a new hidden temp file in `dir`, fsynced, and returns its name.
fn write_temp(dir: &Dir, bytes: &[u8]) -> io::Result<String> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    loop {
        let name = format!(
            "{TEMP_PREFIX}{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
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
    })
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
    .map_err(io::Error::from)
}

/// Deletes `name` in `dir`: a file or a link is unlinked (a link's target is untouched), a folder
/// is removed with everything in it.
pub fn delete(dir: &Dir, name: &str, kind: Kind) -> io::Result<()> {
    match kind {
        Kind::Dir => remove_tree(dir, name),
        _ => dir.remove_file_or_symlink(name),
    }
}

/// Removes the folder `name` in `dir` with everything in it. Like `Dir::remove_dir_all` it never
/// follows a link, but its to-do list lives on the heap rather than the call stack: renames can
/// nest folders deeper than any stack, and the recursive removal overflowed it.
fn remove_tree(dir: &Dir, name: &str) -> io::Result<()> {
    let mut pending: Vec<(Rc<Dir>, OsString)> = vec![(Rc::new(dir.try_clone()?), name.into())];
    while let Some((parent, name)) = pending.last().cloned() {
        let folder = Rc::new(parent.open_dir_nofollow(&name)?);
        // Read the whole folder before changing it.
        let mut children = Vec::new();
        for entry in folder.entries()? {
            let entry = entry?;
            children.push((entry.file_name(), entry.file_type()?.is_dir()));
        }
        let mut subfolders = Vec::new();
        for (child, is_dir) in children {
            if is_dir {
                subfolders.push((Rc::clone(&folder), child));
            } else {
                folder.remove_file_or_symlink(&child)?;
            }
        }
        if subfolders.is_empty() {
            // Its subfolders, if it had any, are gone: the folder is empty now.
            parent.remove_dir(&name)?;
            pending.pop();
        } else {
            pending.extend(subfolders);
        }
    }
    Ok(())
}
