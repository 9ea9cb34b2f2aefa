//! Filesystem access to folders a backend can touch, which is hostile ground: a name is looked
//! at one component at a time from an open handle, never through a symbolic link (`O_NOFOLLOW`);
//! nothing is opened before its type is known, and opens never block (`O_NONBLOCK`), so a FIFO
//! or a device is described, never waited on; reads are bounded by what the caller can use; trees
//! are removed without recursion and with a bounded number of open files, whatever their depth.
//!
//! The pieces: `walk.rs` (down a relative path), `read.rs` (bounded reads of regular files) and
//! `remove.rs` (whole trees, without recursion). What a name is, folder listings and new files are
//! here.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{BorrowedFd, OwnedFd};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, StatxAttributes, StatxFlags};
use rustix::io::Errno;

use crate::reference::confine::openat_noatime;

mod read;
mod remove;
mod walk;

pub use read::{ReadError, read_at, read_prefix};
pub use remove::{chmod_dir_nofollow, remove};
pub use walk::{WalkError, components, walk};

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

/// What a name is, looked at without following it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
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

impl NodeKind {
    /// The kind in words, with its article: `a symbolic link`.
    pub fn describe(self) -> &'static str {
        match self {
            NodeKind::File => "a file",
            NodeKind::Dir => "a folder",
            NodeKind::Symlink => "a symbolic link",
            NodeKind::Fifo => "a FIFO",
            NodeKind::Socket => "a socket",
            NodeKind::Device => "a device",
        }
    }

    fn of(file_type: FileType) -> NodeKind {
        match file_type {
            FileType::RegularFile => NodeKind::File,
            FileType::Directory => NodeKind::Dir,
            FileType::Symlink => NodeKind::Symlink,
            FileType::Fifo => NodeKind::Fifo,
            FileType::Socket => NodeKind::Socket,
            _ => NodeKind::Device,
        }
    }
}

/// What `statx` says of a name, without following it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    /// What it is.
    pub kind: NodeKind,
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
    let kind = NodeKind::of(FileType::from_raw_mode(u32::from(stat.stx_mode)));
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

/// Where the symbolic link `name` in `dir` points (never followed).
pub fn link_target(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<String> {
    let target = rustix::fs::readlinkat(dir, name, Vec::new())?;
    Ok(String::from_utf8_lossy(target.as_bytes()).into_owned())
}

/// The names in an open folder (without `.` and `..`), with their types as the folder says.
pub fn entries(dir: BorrowedFd<'_>) -> io::Result<Vec<(CString, NodeKind)>> {
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
            known => NodeKind::of(known),
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
