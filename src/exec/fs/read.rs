//! Bounded reads of regular files: anything else is described, never opened, and a file larger
//! than the caller can use is not read.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use rustix::buffer::spare_capacity;
use rustix::io::Errno;

use super::{NodeKind, READ_FLAGS, meta_at, meta_of, openat_noatime};

/// Why a bounded read gave no bytes.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Nothing is there.
    #[error("nothing is there")]
    Missing,
    /// Something other than a regular file is there; it was not opened.
    #[error("{} is there", .0.describe())]
    NotFile(NodeKind),
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
    if meta.kind != NodeKind::File {
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
    if meta.kind != NodeKind::File {
        return Err(ReadError::NotFile(meta.kind));
    }
    let fd = match openat_noatime(dir, name, READ_FLAGS) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Err(ReadError::Missing),
        Err(Errno::LOOP) => return Err(ReadError::NotFile(NodeKind::Symlink)),
        Err(e) => return Err(ReadError::Io(e.into())),
    };
    // Swapped between the look and the open: judge what was opened.
    let opened = meta_of(fd.as_fd())?;
    if opened.kind != NodeKind::File {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::fs::{entries, open_dir_at, open_test_dir};
    use rustix::fs::{FileType, Mode};

    #[test]
    fn a_fifo_is_described_never_opened() -> io::Result<()> {
        let tmp = tempfile::tempdir()?;
        let root = open_test_dir(tmp.path());
        rustix::fs::mknodat(
            root.as_fd(),
            c"pipe",
            FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        )?;
        assert!(matches!(
            read_at(root.as_fd(), c"pipe", 100),
            Err(ReadError::NotFile(NodeKind::Fifo))
        ));
        Ok(())
    }

    #[test]
    fn a_big_file_is_not_read() -> io::Result<()> {
        let tmp = tempfile::tempdir()?;
        let file = std::fs::File::create(tmp.path().join("big"))?;
        file.set_len(3 << 30)?;
        let root = open_test_dir(tmp.path());
        assert!(matches!(
            read_at(root.as_fd(), c"big", 1 << 20),
            Err(ReadError::TooBig { size }) if size == 3 << 30
        ));
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
