//! Removing whole trees a backend may have made hostile: no recursion, a bounded number of open
//! folders, links removed and never followed, permissions and immutable flags lifted where the
//! harness may, and a time budget against a process that keeps writing.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use rustix::fs::{AtFlags, IFlags, Mode, OFlags};
use rustix::io::Errno;

use super::{NodeKind, READ_FLAGS, entries, meta_at, meta_of, open_dir_at};

/// Passes over one folder when entries keep appearing while it is removed (a process still
/// writing): after that many, what is left is reported instead of chased forever.
const REMOVE_PASSES: usize = 4;

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
    if meta.kind != NodeKind::Dir {
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
                    if kind == NodeKind::Dir {
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
        && matches!(meta.kind, NodeKind::File | NodeKind::Dir)
    {
        let open = if meta.kind == NodeKind::Dir {
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
    use crate::exec::fs::{create_new_at, open_test_dir, reopen_dir};

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
        let root = open_test_dir(tmp.path());
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
        let root = open_test_dir(tmp.path());
        assert_eq!(remove(root.as_fd(), c"t", true)?, Vec::<String>::new());
        assert_eq!(std::fs::read(victim.join("keep.txt"))?, b"keep");
        Ok(())
    }
}
