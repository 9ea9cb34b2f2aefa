//! Walking down a relative path from an open folder, one component at a time, never through a
//! link.

use std::ffi::CStr;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use rustix::fs::Mode;
use rustix::io::Errno;

use super::{NodeKind, c_name, meta_at, open_dir_at, reopen_dir};

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
        kind: NodeKind,
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
                Some(meta) if meta.kind != NodeKind::Dir => {
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
        Ok(Some(meta)) if meta.kind != NodeKind::Dir => WalkError::Blocked {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::fs::open_test_dir;

    #[test]
    fn walks_refuse_links_and_dotdot() -> io::Result<()> {
        let tmp = tempfile::tempdir()?;
        std::fs::create_dir_all(tmp.path().join("a/b"))?;
        std::os::unix::fs::symlink("/", tmp.path().join("a/l"))?;
        let root = open_test_dir(tmp.path());
        assert!(walk(root.as_fd(), &["a", "b"], false).is_ok());
        assert!(matches!(
            walk(root.as_fd(), &["a", "l"], false),
            Err(WalkError::Blocked {
                kind: NodeKind::Symlink,
                ..
            })
        ));
        assert!(components("a/../b").is_err());
        Ok(())
    }
}
