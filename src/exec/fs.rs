//! Filesystem access to folders a backend can touch, which is hostile ground: a name is looked
//! at one component at a time from an open handle, never through a symbolic link (`O_NOFOLLOW`);
//! nothing is opened before its type is known, and opens never block (`O_NONBLOCK`), so a FIFO
//! or a device is described, never waited on; reads are bounded by what the caller can use; trees
//! are removed without recursion and with a bounded number of open files, whatever their depth.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use rustix::buffer::spare_capacity;
use rustix::fs::{AtFlags, FileType, IFlags, Mode, OFlags, StatxAttributes, StatxFlags};
use rustix::io::Errno;

use crate::reference::confine::openat_noatime;

/// How folders are opened: for listing, never through a link, never blocking.
const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::NONBLOCK)
    .union(OFlags::CLOEXEC);

/// How regular files are opened for reading (their type was checked first).
const READ_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::NOFOLLOW)
    .union(OFlags::NONBLOCK)
    .union(OFlags::NOCTTY)
    .union(OFlags::CLOEXEC);

/// Passes over one folder when entries keep appearing while it is removed (a process still
/// writing): after that many, what is left is reported instead of chased forever.
const REMOVE_PASSES: usize = 4;

/// What a name is, looked at without following it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A regular file.
    File,
    /// A folder.
    Dir,
    /// A symbolic link.
    Symlink,
    /// A named pipe.
    Fifo,
    /// A Unix socket.
    Socket,
    /// A character or block device.
    Device,
}

impl Kind {
    /// The kind in words, with its article: `a symbolic link`.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::File => "a file",
            Kind::Dir => "a folder",
            Kind::Symlink => "a symbolic link",
            Kind::Fifo => "a FIFO",
            Kind::Socket => "a socket",
            Kind::Device => "a device",
        }
    }

    fn of(file_type: FileType) -> Kind {
        match file_type {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Dir,
            FileType::Symlink => Kind::Symlink,
            FileType::Fifo => Kind::Fifo,
            FileType::Socket => Kind::Socket,
            _ => Kind::Device,
        }
    }
}

/// What `statx` says of a name, without following it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    /// What it is.
    pub kind: Kind,
    /// Permission bits (`0o644`).
    pub mode: u32,
    /// Size in bytes.
    pub size: u64,
    /// The device and inode: its identity.
    pub id: (u64, u64),
    /// Hard links to it.
    pub nlink: u32,
    /// Whether it is immutable (`chattr +i`) or append-only (`chattr +a`).
    pub immutable: bool,
    /// Last modification, (seconds, nanoseconds).
    pub mtime: (i64, u32),
    /// Last status change (a write, a `touch` of the mtime, a chmod).
    pub ctime: (i64, u32),
}

fn meta_from(stat: &rustix::fs::Statx) -> Meta {
    let kind = Kind::of(FileType::from_raw_mode(u32::from(stat.stx_mode)));
    let sticky = StatxAttributes::IMMUTABLE | StatxAttributes::APPEND;
    Meta {
        kind,
        mode: u32::from(stat.stx_mode) & 0o7777,
        size: stat.stx_size,
        id: (
            (u64::from(stat.stx_dev_major) << 32) | u64::from(stat.stx_dev_minor),
            stat.stx_ino,
        ),
        nlink: stat.stx_nlink,
        immutable: stat.stx_attributes.intersects(sticky),
        mtime: (stat.stx_mtime.tv_sec, stat.stx_mtime.tv_nsec),
        ctime: (stat.stx_ctime.tv_sec, stat.stx_ctime.tv_nsec),
    }
}

/// What is at `name` in `dir`, not following a link; `None` when nothing is.
pub fn meta_at(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<Option<Meta>> {
    match rustix::fs::statx(
        dir,
        name,
        AtFlags::SYMLINK_NOFOLLOW | AtFlags::NO_AUTOMOUNT,
        StatxFlags::BASIC_STATS,
    ) {
        Ok(stat) => Ok(Some(meta_from(&stat))),
        Err(Errno::NOENT) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// What an open handle is.
pub fn meta_of(fd: BorrowedFd<'_>) -> io::Result<Meta> {
    let stat = rustix::fs::statx(
        fd,
        c"",
        AtFlags::EMPTY_PATH | AtFlags::SYMLINK_NOFOLLOW,
        StatxFlags::BASIC_STATS,
    )?;
    Ok(meta_from(&stat))
}

/// A name for a path component; NUL bytes cannot be one.
pub fn c_name(name: &str) -> io::Result<CString> {
    CString::new(name).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{name:?} contains a NUL byte"),
        )
    })
}

/// A handle on the folder at `path`, for the tests of what scans and watches a folder they made.
#[cfg(test)]
pub(crate) fn open_test_dir(path: &std::path::Path) -> OwnedFd {
    rustix::fs::open(path, DIR_FLAGS, Mode::empty()).unwrap_or_else(|e| panic!("{e}"))
}

/// Opens the folder `name` in `dir`; a link or anything not a folder is refused, never followed.
pub fn open_dir_at(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<OwnedFd> {
    // Looking leaves the backend's access times as they were.
    Ok(openat_noatime(dir, name, DIR_FLAGS)?)
}

/// A new handle on the folder `dir` itself.
pub fn reopen_dir(dir: BorrowedFd<'_>) -> io::Result<OwnedFd> {
    open_dir_at(dir, c".")
}

/// Why a walk down a relative path stopped.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    /// A component does not exist.
    #[error("{at} does not exist")]
    Missing {
        /// The path up to and including the missing component.
        at: String,
    },
    /// A component is not a folder (a link, a file, a FIFO...): it is never walked through.
    #[error("{at} is {}", .kind.describe())]
    Blocked {
        /// The path up to and including that component.
        at: String,
        /// What is there.
        kind: Kind,
    },
    /// The path is not a plain relative path (`..`, `.`, empty components, NUL).
    #[error("{0:?} is not a plain relative path")]
    NotPlain(String),
    /// The operating system refused.
    #[error("{at}: {source}")]
    Io {
        /// Where.
        at: String,
        /// What it said.
        source: io::Error,
    },
}

/// The components of a plain relative path (`a/b/c`), refusing `.`, `..` and empty ones.
pub fn components(path: &str) -> Result<Vec<&str>, WalkError> {
    let parts: Vec<&str> = path.split('/').collect();
    if parts
        .iter()
        .any(|p| p.is_empty() || *p == "." || *p == ".." || p.contains('\0'))
    {
        return Err(WalkError::NotPlain(path.to_string()));
    }
    Ok(parts)
}

/// Walks from `root` down the folders `parts`, one component at a time without following a link;
/// with `create`, missing folders are made (mode 0755) on the way.
pub fn walk(root: BorrowedFd<'_>, parts: &[&str], create: bool) -> Result<OwnedFd, WalkError> {
    let io_at = |at: &str, source: io::Error| WalkError::Io {
        at: at.to_string(),
        source,
    };
    let mut current = reopen_dir(root).map_err(|e| io_at(".", e))?;
    let mut so_far = String::new();
    for part in parts {
        if !so_far.is_empty() {
            so_far.push('/');
        }
        so_far.push_str(part);
        let name = c_name(part).map_err(|_| WalkError::NotPlain(so_far.clone()))?;
        let next = match open_dir_at(current.as_fd(), &name) {
            Ok(next) => next,
            Err(e) => match meta_at(current.as_fd(), &name).map_err(|e| io_at(&so_far, e))? {
                None if create => {
                    match rustix::fs::mkdirat(current.as_fd(), &*name, Mode::from_raw_mode(0o755)) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(e) => return Err(io_at(&so_far, e.into())),
                    }
                    open_dir_at(current.as_fd(), &name)
                        .map_err(|e| blocked_or(current.as_fd(), &name, &so_far, e))?
                }
                None => return Err(WalkError::Missing { at: so_far }),
                Some(meta) if meta.kind != Kind::Dir => {
                    return Err(WalkError::Blocked {
                        at: so_far,
                        kind: meta.kind,
                    });
                }
                Some(_) => return Err(io_at(&so_far, e)),
            },
        };
        current = next;
    }
    Ok(current)
}

fn blocked_or(dir: BorrowedFd<'_>, name: &CStr, at: &str, e: io::Error) -> WalkError {
    match meta_at(dir, name) {
        Ok(Some(meta)) if meta.kind != Kind::Dir => WalkError::Blocked {
            at: at.to_string(),
            kind: meta.kind,
        },
        Ok(None) => WalkError::Missing { at: at.to_string() },
        _ => WalkError::Io {
            at: at.to_string(),
            source: e,
        },
    }
}

/// Why a bounded read gave no bytes.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Nothing is there.
    #[error("nothing is there")]
    Missing,
    /// Something other than a regular file is there; it was not opened.
    #[error("{} is there", .0.describe())]
    NotFile(Kind),
    /// The file is larger than the caller can use; it was not read.
    #[error("a file of {size} bytes is there")]
    TooBig {
        /// Its size.
        size: u64,
    },
    /// The operating system refused.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Bytes a read asks for at most at a time.
const READ_CHUNK: usize = 64 << 10;

/// The bytes of the regular file `name` in `dir`, at most `max` of them: a larger file is
/// [`ReadError::TooBig`] and is not read. Anything but a regular file is never opened.
pub fn read_at(dir: BorrowedFd<'_>, name: &CStr, max: u64) -> Result<Vec<u8>, ReadError> {
    let meta = meta_at(dir, name)?.ok_or(ReadError::Missing)?;
    if meta.kind != Kind::File {
        return Err(ReadError::NotFile(meta.kind));
    }
    if meta.size > max {
        return Err(ReadError::TooBig { size: meta.size });
    }
    let fd = open_file(dir, name)?;
    read_bounded(fd.as_fd(), max)
}

/// The first `n` bytes (or fewer) of the regular file `name` in `dir`, whatever its size.
pub fn read_prefix(dir: BorrowedFd<'_>, name: &CStr, n: u64) -> Result<Vec<u8>, ReadError> {
    let fd = open_file(dir, name)?;
    let target = usize::try_from(n).unwrap_or(usize::MAX);
    let mut bytes = Vec::new();
    while bytes.len() < target {
        // Read straight into the buffer's spare room: nothing zeroed first, a chunk at a time.
        bytes.reserve((target - bytes.len()).min(READ_CHUNK));
        match rustix::io::read(fd.as_fd(), spare_capacity(&mut bytes)) {
            Ok(0) => break,
            Ok(_) | Err(Errno::INTR) => {}
            Err(e) => return Err(ReadError::Io(e.into())),
        }
    }
    // The room may have been larger than asked for.
    bytes.truncate(target);
    Ok(bytes)
}

/// Opens a regular file for reading, having checked what it is first and again once open.
fn open_file(dir: BorrowedFd<'_>, name: &CStr) -> Result<OwnedFd, ReadError> {
    let meta = meta_at(dir, name)?.ok_or(ReadError::Missing)?;
    if meta.kind != Kind::File {
        return Err(ReadError::NotFile(meta.kind));
    }
    let fd = match openat_noatime(dir, name, READ_FLAGS) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Err(ReadError::Missing),
        Err(Errno::LOOP) => return Err(ReadError::NotFile(Kind::Symlink)),
        Err(e) => return Err(ReadError::Io(e.into())),
    };
    // Swapped between the look and the open: judge what was opened.
    let opened = meta_of(fd.as_fd())?;
    if opened.kind != Kind::File {
        return Err(ReadError::NotFile(opened.kind));
    }
    Ok(fd)
}

/// Reads an open file up to `max` bytes; more than that (it grew) is [`ReadError::TooBig`].
fn read_bounded(fd: BorrowedFd<'_>, max: u64) -> Result<Vec<u8>, ReadError> {
    let cap = usize::try_from(max.min(1 << 20)).unwrap_or(1 << 20);
    let mut bytes = Vec::with_capacity(cap);
    loop {
        if bytes.len() == bytes.capacity() {
            bytes.reserve(READ_CHUNK);
        }
        // Straight into the buffer's spare room: nothing zeroed first.
        match rustix::io::read(fd, spare_capacity(&mut bytes)) {
            Ok(0) => return Ok(bytes),
            Ok(_) => {
                if bytes.len() as u64 > max {
                    return Err(ReadError::TooBig {
                        size: bytes.len() as u64,
                    });
                }
            }
            Err(Errno::INTR) => {}
            Err(Errno::AGAIN) => {
                return Err(ReadError::Io(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    "the file would block",
                )));
            }
            Err(e) => return Err(ReadError::Io(e.into())),
        }
    }
}

/// Where the symbolic link `name` in `dir` points (never followed).
pub fn link_target(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<String> {
    let target = rustix::fs::readlinkat(dir, name, Vec::new())?;
    Ok(String::from_utf8_lossy(target.as_bytes()).into_owned())
}

/// The names in an open folder (without `.` and `..`), with their types as the folder says.
pub fn entries(dir: BorrowedFd<'_>) -> io::Result<Vec<(CString, Kind)>> {
    let mut out = Vec::new();
    let listing = rustix::fs::Dir::read_from(dir)?;
    for entry in listing {
        let entry = entry?;
        let name = entry.file_name();
        if name == c"." || name == c".." {
            continue;
        }
        let kind = match entry.file_type() {
            FileType::Unknown => match meta_at(dir, name)? {
                Some(meta) => meta.kind,
                None => continue,
            },
            known => Kind::of(known),
        };
        out.push((name.to_owned(), kind));
    }
    Ok(out)
}

/// Writes a new file `name` in `dir`; fails if anything is there already (never written
/// through a link planted there).
pub fn create_new_at(dir: BorrowedFd<'_>, name: &CStr, bytes: &[u8], mode: u32) -> io::Result<()> {
    let flags = OFlags::WRONLY
        | OFlags::CREATE
        | OFlags::EXCL
        | OFlags::NOFOLLOW
        | OFlags::NONBLOCK
        | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(dir, name, flags, Mode::from_raw_mode(mode))?;
    let mut rest = bytes;
    while !rest.is_empty() {
        match rustix::io::write(&fd, rest) {
            Ok(n) => rest = &rest[n..],
            Err(Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// How long one removal may take: a process still alive (one that escaped the harness) can grow
/// a tree as fast as it is removed; after that, what is left is reported instead of chased.
const REMOVE_BUDGET: std::time::Duration = std::time::Duration::from_secs(30);

/// Removes whatever is at `name` in `dir`: a folder with everything below it, without recursion
/// and holding at most three folders open, whatever the depth; never following a link (links are
/// removed, not their targets). Permissions and immutable flags a backend set below `name` are
/// lifted where the harness may (its own files), and on `dir` itself only when `own_dir` (never
/// on the folder the sandbox lives in); what still cannot be removed within [`REMOVE_BUDGET`] is
/// returned, described.
pub fn remove(dir: BorrowedFd<'_>, name: &CStr, own_dir: bool) -> io::Result<Vec<String>> {
    let mut left = Vec::new();
    let Some(meta) = meta_at(dir, name)? else {
        return Ok(left);
    };
    if meta.kind != Kind::Dir {
        unlink(dir, name, false, own_dir, &mut left);
        return Ok(left);
    }
    struct Frame {
        name: CString,
        id: (u64, u64),
        pending: Vec<CString>,
        passes: usize,
    }
    let started = std::time::Instant::now();
    let mut current = open_dir_lifting(dir, name)?;
    let mut stack = vec![Frame {
        name: name.to_owned(),
        id: meta_of(current.as_fd())?.id,
        pending: Vec::new(),
        passes: 0,
    }];
    loop {
        if started.elapsed() > REMOVE_BUDGET {
            left.push(format!(
                "{} (still changing after {} s of removal)",
                name.to_string_lossy(),
                REMOVE_BUDGET.as_secs()
            ));
            return Ok(left);
        }
        let Some(top) = stack.last_mut() else {
            return Ok(left);
        };
        if let Some(child) = top.pending.pop() {
            match open_dir_lifting(current.as_fd(), &child) {
                Ok(fd) => {
                    let id = meta_of(fd.as_fd())?.id;
                    stack.push(Frame {
                        name: child,
                        id,
                        pending: Vec::new(),
                        passes: 0,
                    });
                    current = fd;
                }
                // It changed kind or went away meanwhile: whatever it is now, remove that.
                Err(_) => unlink(current.as_fd(), &child, false, true, &mut left),
            }
            continue;
        }
        // List the folder (again, until it is seen empty: entries may appear meanwhile): files
        // go at once, folders are visited one at a time.
        if top.passes < REMOVE_PASSES {
            top.passes += 1;
            let listing = entries(current.as_fd())?;
            if !listing.is_empty() {
                for (child, kind) in listing {
                    if kind == Kind::Dir {
                        top.pending.push(child);
                    } else {
                        unlink(current.as_fd(), &child, false, true, &mut left);
                    }
                }
                continue;
            }
        }
        let Some(done) = stack.pop() else {
            return Ok(left);
        };
        let Some(parent) = stack.last() else {
            drop(current);
            unlink(dir, &done.name, true, own_dir, &mut left);
            return Ok(left);
        };
        // Climb back through `..` (which needs search permission on this folder, that a backend
        // may have taken away), and check it is the folder that was descended from: a tree
        // moved meanwhile must not lead the removal anywhere else.
        let _ = rustix::fs::fchmod(current.as_fd(), Mode::from_raw_mode(0o700));
        let up = match open_dir_at(current.as_fd(), c"..") {
            Ok(up) if meta_of(up.as_fd()).is_ok_and(|m| m.id == parent.id) => up,
            _ => {
                left.push(format!(
                    "{} (its folder was moved or locked while it was being removed)",
                    done.name.to_string_lossy()
                ));
                return Ok(left);
            }
        };
        current = up;
        unlink(current.as_fd(), &done.name, true, true, &mut left);
    }
}

/// Opens a folder for removal; a folder a backend made unreadable (chmod 000) is made readable
/// again first (the harness owns it), through a handle on the folder itself, so that a link
/// swapped in at its name is never what is changed.
fn open_dir_lifting(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<OwnedFd> {
    match open_dir_at(dir, name) {
        Err(e) if e.raw_os_error() == Some(Errno::ACCESS.raw_os_error()) => {
            chmod_dir_nofollow(dir, name, 0o700)?;
            open_dir_at(dir, name)
        }
        other => other,
    }
}

/// Changes the mode of the folder `name` in `dir`, never through a link: the folder is opened
/// with `O_PATH | O_NOFOLLOW` (which needs no permission on it) and changed through its
/// `/proc/self/fd` entry, which names the opened folder itself.
pub fn chmod_dir_nofollow(dir: BorrowedFd<'_>, name: &CStr, mode: u32) -> io::Result<()> {
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(dir, name, flags, Mode::empty())?;
    let path = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&fd));
    rustix::fs::chmod(path.as_str(), Mode::from_raw_mode(mode))?;
    Ok(())
}

/// Unlinks one name; on a refusal lifts what a backend may have set (a read-only folder, an
/// immutable or append-only flag) and tries once more. `lift_dir` says whether `dir` itself is
/// the harness's to change (never the folder the sandbox lives in). Failures are recorded in
/// `left`.
fn unlink(dir: BorrowedFd<'_>, name: &CStr, is_dir: bool, lift_dir: bool, left: &mut Vec<String>) {
    let flags = if is_dir {
        AtFlags::REMOVEDIR
    } else {
        AtFlags::empty()
    };
    match rustix::fs::unlinkat(dir, name, flags) {
        Ok(()) | Err(Errno::NOENT) => return,
        Err(Errno::ACCESS | Errno::PERM) => {}
        Err(e) => {
            left.push(format!("{}: {e}", name.to_string_lossy()));
            return;
        }
    }
    // The folder itself may be read-only or immutable, or the entry immutable.
    if lift_dir {
        let _ = rustix::fs::fchmod(dir, Mode::from_raw_mode(0o700));
        lift_flags(dir);
    }
    if let Ok(Some(meta)) = meta_at(dir, name)
        && meta.immutable
        && matches!(meta.kind, Kind::File | Kind::Dir)
    {
        let open = if meta.kind == Kind::Dir {
            open_dir_at(dir, name)
        } else {
            rustix::fs::openat(dir, name, READ_FLAGS, Mode::empty()).map_err(io::Error::from)
        };
        if let Ok(fd) = open
            && meta_of(fd.as_fd()).is_ok_and(|opened| opened.id == meta.id)
        {
            lift_flags(fd.as_fd());
        }
    }
    if let Err(e) = rustix::fs::unlinkat(dir, name, flags)
        && e != Errno::NOENT
    {
        let why = match meta_at(dir, name) {
            Ok(Some(meta)) if meta.immutable => "immutable".to_string(),
            _ => e.to_string(),
        };
        left.push(format!("{} ({why})", name.to_string_lossy()));
    }
}

/// Clears the immutable and append-only flags of an open file or folder, where allowed.
fn lift_flags(fd: BorrowedFd<'_>) {
    if let Ok(flags) = rustix::fs::ioctl_getflags(fd) {
        let sticky = IFlags::IMMUTABLE | IFlags::APPEND;
        if flags.intersects(sticky) {
            let _ = rustix::fs::ioctl_setflags(fd, flags - sticky);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree_depth(root: BorrowedFd<'_>, depth: usize) -> io::Result<()> {
        let mut current = reopen_dir(root)?;
        for _ in 0..depth {
            rustix::fs::mkdirat(current.as_fd(), c"d", Mode::from_raw_mode(0o755))?;
            create_new_at(current.as_fd(), c"f", b"x", 0o644)?;
            current = open_dir_at(current.as_fd(), c"d")?;
        }
        Ok(())
    }

    #[test]
    fn removes_a_tree_deeper_than_any_stack_and_open_file_limit() -> io::Result<()> {
        let tmp = tempfile::tempdir()?;
        let root = rustix::fs::open(tmp.path(), DIR_FLAGS, Mode::empty())?;
        rustix::fs::mkdirat(root.as_fd(), c"t", Mode::from_raw_mode(0o755))?;
        let top = open_dir_at(root.as_fd(), c"t")?;
        tree_depth(top.as_fd(), 5000)?;
        drop(top);
        assert_eq!(remove(root.as_fd(), c"t", true)?, Vec::<String>::new());
        assert!(meta_at(root.as_fd(), c"t")?.is_none());
        Ok(())
    }

    #[test]
    fn links_are_removed_not_followed() -> io::Result<()> {
        let tmp = tempfile::tempdir()?;
        let victim = tmp.path().join("victim");
        std::fs::create_dir(&victim)?;
        std::fs::write(victim.join("keep.txt"), "keep")?;
        std::fs::create_dir(tmp.path().join("t"))?;
        std::os::unix::fs::symlink(&victim, tmp.path().join("t/link"))?;
        let root = rustix::fs::open(tmp.path(), DIR_FLAGS, Mode::empty())?;
        assert_eq!(remove(root.as_fd(), c"t", true)?, Vec::<String>::new());
        assert_eq!(std::fs::read(victim.join("keep.txt"))?, b"keep");
        Ok(())
    }

    #[test]
    fn a_fifo_is_described_never_opened() -> io::Result<()> {
        let tmp = tempfile::tempdir()?;
        let root = rustix::fs::open(tmp.path(), DIR_FLAGS, Mode::empty())?;
        rustix::fs::mknodat(
            root.as_fd(),
            c"pipe",
            FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        )?;
        assert!(matches!(
            read_at(root.as_fd(), c"pipe", 100),
            Err(ReadError::NotFile(Kind::Fifo))
        ));
        Ok(())
    }

    #[test]
    fn a_big_file_is_not_read() -> io::Result<()> {
        let tmp = tempfile::tempdir()?;
        let file = std::fs::File::create(tmp.path().join("big"))?;
        file.set_len(3 << 30)?;
        let root = rustix::fs::open(tmp.path(), DIR_FLAGS, Mode::empty())?;
        assert!(matches!(
            read_at(root.as_fd(), c"big", 1 << 20),
            Err(ReadError::TooBig { size }) if size == 3 << 30
        ));
        Ok(())
    }

    #[test]
    fn walks_refuse_links_and_dotdot() -> io::Result<()> {
        let tmp = tempfile::tempdir()?;
        std::fs::create_dir_all(tmp.path().join("a/b"))?;
        std::os::unix::fs::symlink("/", tmp.path().join("a/l"))?;
        let root = rustix::fs::open(tmp.path(), DIR_FLAGS, Mode::empty())?;
        assert!(walk(root.as_fd(), &["a", "b"], false).is_ok());
        assert!(matches!(
            walk(root.as_fd(), &["a", "l"], false),
            Err(WalkError::Blocked {
                kind: Kind::Symlink,
                ..
            })
        ));
        assert!(components("a/../b").is_err());
        Ok(())
    }

    /// The harness's looks leave a backend's access times alone.
    #[test]
    fn looking_leaves_access_times_alone() -> io::Result<()> {
        use crate::reference::confine::{age_atime, atime};
        let tmp = tempfile::tempdir()?;
        let sub = tmp.path().join("sub");
        std::fs::create_dir(&sub)?;
        std::fs::write(sub.join("f"), "text")?;
        for path in [&sub, &sub.join("f")] {
            age_atime(path);
        }
        let before = (atime(&sub), atime(&sub.join("f")));
        let root = open_test_dir(tmp.path());
        let dir = open_dir_at(root.as_fd(), c"sub")?;
        assert_eq!(entries(dir.as_fd())?.len(), 1);
        assert!(matches!(read_at(dir.as_fd(), c"f", 100), Ok(bytes) if bytes == b"text"));
        assert_eq!(before, (atime(&sub), atime(&sub.join("f"))));
        Ok(())
    }
}
