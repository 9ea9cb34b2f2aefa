//! A folder described as a seed: its files, empty folders, links and FIFOs, read without
//! following a link.

use std::ffi::CStr;
use std::io;
use std::os::fd::AsFd;
use std::path::Path;

use rustix::fs::{Mode, OFlags};

use super::seed::invalid;
use super::{SEED_BYTES_LIMIT, SEED_ENTRY_LIMIT, Seed, SeedError};
use crate::exec::fs::{self, NodeKind, ReadError};
use crate::exec::plant::{Fixture, FixtureKind};

impl Seed {
    /// Describes a folder: files (as text when UTF-8, else hex bytes), empty folders, symbolic
    /// links (as links, never followed) and FIFOs, in name order. Bounded like any seed; a
    /// socket, a device, a name or a link target that is not UTF-8 is refused.
    pub fn from_folder(path: &Path) -> Result<Seed, SeedError> {
        let name = path.display().to_string();
        let read_error = |source: io::Error| SeedError::Read {
            path: path.to_path_buf(),
            source,
        };
        let root = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| read_error(e.into()))?;
        let mut seed = Seed::default();
        let mut bytes = 0u64;
        let mut seen = 0usize;
        // Folders still to list, by relative path, opened one at a time from the root (a deep
        // tree holds no handles open).
        let mut pending = vec![String::new()];
        while let Some(folder) = pending.pop() {
            let parts = if folder.is_empty() {
                Vec::new()
            } else {
                fs::components(&folder).map_err(|e| read_error(io::Error::other(e.to_string())))?
            };
            let dir = fs::walk(root.as_fd(), &parts, false)
                .map_err(|e| read_error(io::Error::other(e.to_string())))?;
            let mut listing = fs::entries(dir.as_fd()).map_err(read_error)?;
            listing.sort_by(|a, b| a.0.cmp(&b.0));
            if listing.is_empty() && !folder.is_empty() {
                seed.memories.push(Fixture {
                    path: folder.clone(),
                    kind: FixtureKind::Dir(true),
                });
            }
            let mut folders = Vec::new();
            for (entry, kind) in listing {
                seen += 1;
                if seen > SEED_ENTRY_LIMIT {
                    return Err(invalid(
                        &name,
                        &format!("the folder holds over {SEED_ENTRY_LIMIT} entries"),
                    ));
                }
                let shown = entry.to_string_lossy();
                let relative = if folder.is_empty() {
                    shown.to_string()
                } else {
                    format!("{folder}/{shown}")
                };
                let refuse = |reason: String| SeedError::Entry {
                    seed: name.clone(),
                    entry: format!("{relative:?}"),
                    reason,
                };
                if entry.to_str().is_err() {
                    return Err(refuse("the name is not UTF-8".to_string()));
                }
                let kind = match kind {
                    NodeKind::Dir => {
                        folders.push(relative);
                        continue;
                    }
                    NodeKind::File => {
                        let content = fs::read_at(dir.as_fd(), &entry, SEED_BYTES_LIMIT - bytes)
                            .map_err(|e| match e {
                                ReadError::TooBig { .. } => refuse(format!(
                                    "brings the seed over {SEED_BYTES_LIMIT} bytes (64 MiB)"
                                )),
                                other => refuse(format!("cannot be read: {other}")),
                            })?;
                        bytes += content.len() as u64;
                        match String::from_utf8(content) {
                            Ok(text) => FixtureKind::Text(text),
                            Err(e) => FixtureKind::BytesHex(hex(e.as_bytes())),
                        }
                    }
                    NodeKind::Symlink => {
                        let target = link_target(dir.as_fd(), &entry)
                            .map_err(|e| refuse(format!("the link cannot be read: {e}")))?
                            .ok_or_else(|| refuse("the link's target is not UTF-8".to_string()))?;
                        bytes += target.len() as u64;
                        if bytes > SEED_BYTES_LIMIT {
                            return Err(refuse(format!(
                                "brings the seed over {SEED_BYTES_LIMIT} bytes (64 MiB)"
                            )));
                        }
                        FixtureKind::Symlink(target)
                    }
                    NodeKind::Fifo => FixtureKind::Fifo(true),
                    other => {
                        return Err(refuse(format!(
                            "{} has no place in a seed (files, folders, links and FIFOs)",
                            other.describe()
                        )));
                    }
                };
                seed.memories.push(Fixture {
                    path: relative,
                    kind,
                });
            }
            // Popped in name order.
            pending.extend(folders.into_iter().rev());
        }
        // In path order, however the walk went: a recorded seed diffs well. An empty folder
        // is the only folder listed, so no entry has to come before another.
        seed.memories.sort_by(|a, b| a.path.cmp(&b.path));
        seed.check(&name)?;
        Ok(seed)
    }
}

/// Where a link points, as UTF-8 (`None` when it is not: a lossy target would be another link).
fn link_target(dir: std::os::fd::BorrowedFd<'_>, name: &CStr) -> io::Result<Option<String>> {
    let target = rustix::fs::readlinkat(dir, name, Vec::new())?;
    Ok(target.into_string().ok())
}

/// Lower-case hex digits, two per byte.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    out
}
