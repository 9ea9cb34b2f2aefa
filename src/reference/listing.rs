//! The folder listing of `view`: two levels deep, sizes summed at any depth.
//!
//! A listing of `/memories` reads every folder and sizes every file below it, so it is most of
//! a mixed workload's CPU. Folders are therefore read with raw `getdents64` into one buffer per
//! listing (`cap-std`'s iterator reopens each folder twice and allocates per entry), file sizes
//! come from one `statx` each, and lines are written straight into the answer.

use std::ffi::{CStr, OsStr, OsString};
use std::fmt::Write as _;
use std::io;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::os::fd::{AsFd, BorrowedFd};

use cap_std::fs::Dir;
use rustix::fs::{AtFlags, FileType, RawDir, StatxFlags};

use super::confine;
use super::messages;
use super::{Located, Outcome, Reference};

/// Bytes of `getdents64` buffer: a folder of a few hundred entries in one call.
const DIRENT_BUFFER: usize = 32 << 10;

/// The listing of the folder `located` (or `/memories` itself), as `view` shows it; a folder
/// has no lines to range over.
pub(super) fn list_located(
    reference: &Reference,
    located: &Located,
    spelled: &str,
    range: Option<(i128, i128)>,
) -> Outcome {
    let opened = match &located.name {
        // `/memories` itself: its handle is `O_PATH`, which cannot be read.
        None => confine::open_dir_readable(reference.root().dir(), OsStr::new(".")),
        Some(name) => confine::open_dir_readable(&located.parent, OsStr::new(name)),
    };
    let dir = opened.map_err(|e| messages::io_failure("view", spelled, &e))?;
    if range.is_some() {
        return Err(messages::view_range_on_dir());
    }
    list(&dir, spelled, &located.path.to_string())
}

/// Lists the open, readable folder `dir`, spelled `canonical` in the listing.
fn list(dir: &Dir, spelled: &str, canonical: &str) -> Outcome {
    let mut tree = Tree {
        paths: String::from(canonical),
        entries: Vec::new(),
        buffer: DirentBuffer::new(),
    };
    let total = walk(dir, 0..canonical.len(), 1, &mut tree)
        .map_err(|e| messages::io_failure("view", spelled, &e))?;
    let mut listing = messages::view_dir_header(spelled);
    // Each line is its size (at most 7 bytes), a tab, its path and maybe a slash.
    listing
        .text
        .reserve(tree.paths.len() + 10 * (tree.entries.len() + 1));
    push_line(&mut listing.text, total, canonical, false);
    for entry in &tree.entries {
        let path = tree.paths.get(entry.path.clone()).unwrap_or_default();
        push_line(&mut listing.text, entry.size, path, entry.is_dir);
    }
    Ok(listing)
}

/// What a listing has found so far.
struct Tree {
    /// Every listed path, one after the other: entries hold ranges of it, so that a listing of
    /// hundreds of files does not allocate a string for each.
    paths: String,
    /// The listed entries below the listed folder, in the listing's order.
    entries: Vec<Entry>,
    buffer: DirentBuffer,
}

/// One listed entry below the listed folder.
struct Entry {
    /// Its path, in [`Tree::paths`].
    path: Range<usize>,
    is_dir: bool,
    size: u64,
}

fn push_line(out: &mut String, size: u64, path: &str, is_dir: bool) {
    out.push('\n');
    push_human_size(out, size);
    out.push('\t');
    out.push_str(path);
    if is_dir {
        out.push('/');
    }
}

/// Lists `dir`, whose path is `prefix` in [`Tree::paths`], into `tree` down to depth 2 and
/// returns the total size of its visible files at any depth (`decide.folder-size`). Symlinks are
/// neither listed nor followed.
fn walk(dir: &Dir, prefix: Range<usize>, depth: usize, tree: &mut Tree) -> io::Result<u64> {
    let (names, mut children) = visible_children(dir.as_fd(), &mut tree.buffer)?;
    let name_of = |child: &Child| names.get(child.name.clone()).unwrap_or_default();
    children.sort_unstable_by(|a, b| name_of(a).as_bytes().cmp(name_of(b).as_bytes()));
    let mut total = 0u64;
    for child in &children {
        let name = name_of(child);
        let start = tree.paths.len();
        tree.paths.extend_from_within(prefix.clone());
        tree.paths.push('/');
        tree.paths.push_str(name);
        let path = start..tree.paths.len();
        match child.kind {
            ChildKind::File { size } => {
                total = total.saturating_add(size);
                if depth <= 2 {
                    tree.entries.push(Entry {
                        path,
                        is_dir: false,
                        size,
                    });
                }
            }
            ChildKind::Dir => {
                let slot = tree.entries.len();
                if depth <= 2 {
                    tree.entries.push(Entry {
                        path: path.clone(),
                        is_dir: true,
                        size: 0,
                    });
                }
                // An unreadable or vanished subfolder counts as empty rather than failing the
                // view.
                let size = if depth >= 2 {
                    // Nothing below depth 2 is listed: only sizes, summed without recursion.
                    subtree_size(dir, OsStr::new(name), &mut tree.buffer)
                } else {
                    match confine::open_dir_readable(dir, OsStr::new(name)) {
                        // The recursion stops at depth 2, so the stack stays shallow.
                        Ok(sub) => walk(&sub, path, depth + 1, tree).unwrap_or(0),
                        Err(_) => 0,
                    }
                };
                if let Some(entry) = tree.entries.get_mut(slot).filter(|_| depth <= 2) {
                    entry.size = size;
                }
                total = total.saturating_add(size);
            }
        }
    }
    Ok(total)
}

/// Total size of the visible files below the folder `name` of `parent` at any depth, as [`walk`]
/// counts them. Folders can be nested deeper than any stack or descriptor limit (each rename can
/// stack one deep nesting onto another), so this is [`confine::walk_tree`]: iterative, with a
/// bounded number of open descriptors. A folder that cannot be read counts as empty.
fn subtree_size(parent: &Dir, name: &OsStr, buffer: &mut DirentBuffer) -> u64 {
    let mut size = Size { total: 0, buffer };
    // A walk stopped by a concurrent rename keeps what it had summed.
    let _ = confine::walk_tree(parent, name, &mut size);
    size.total
}

/// The walk of [`subtree_size`]: the running total.
struct Size<'a> {
    total: u64,
    buffer: &'a mut DirentBuffer,
}

impl confine::Visit for Size<'_> {
    fn enter(&mut self, dir: &Dir) -> io::Result<Vec<OsString>> {
        let Ok((names, children)) = visible_children(dir.as_fd(), self.buffer) else {
            return Ok(Vec::new());
        };
        let mut subfolders = Vec::new();
        for child in children {
            match child.kind {
                ChildKind::File { size } => self.total = self.total.saturating_add(size),
                ChildKind::Dir => {
                    subfolders.push(names.get(child.name).unwrap_or_default().into());
                }
            }
        }
        Ok(subfolders)
    }

    fn leave(&mut self, _parent: &Dir, _name: &OsStr) -> io::Result<()> {
        Ok(())
    }

    fn unopenable(&mut self, _error: io::Error) -> io::Result<()> {
        Ok(())
    }
}

/// A visible entry of a folder: a regular file with its size, or a folder.
struct Child {
    /// Its name, in the names [`visible_children`] returns.
    name: Range<usize>,
    kind: ChildKind,
}

enum ChildKind {
    File { size: u64 },
    Dir,
}

/// The reusable `getdents64` buffer of one listing.
struct DirentBuffer(Vec<u8>);

impl DirentBuffer {
    fn new() -> DirentBuffer {
        DirentBuffer(Vec::with_capacity(DIRENT_BUFFER))
    }

    fn space(&mut self) -> &mut [MaybeUninit<u8>] {
        self.0.spare_capacity_mut()
    }
}

/// The visible regular files and folders of the open, readable folder `dir`, in no order. Names
/// that are hidden (`.` first), `node_modules` or not UTF-8 (Claude cannot spell them) are left
/// out, and so are symlinks (never followed), FIFOs, sockets and devices. A file that vanishes
/// before its size is read counts as 0 bytes. The names are one string, which each child holds a
/// range of.
fn visible_children(
    dir: BorrowedFd<'_>,
    buffer: &mut DirentBuffer,
) -> io::Result<(String, Vec<Child>)> {
    let mut names = String::new();
    let mut children = Vec::new();
    let mut entries = RawDir::new(dir, buffer.space());
    while let Some(entry) = entries.next() {
        let entry = entry?;
        let c_name = entry.file_name();
        let Ok(name) = c_name.to_str() else {
            continue;
        };
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        let kind = match entry.file_type() {
            FileType::RegularFile => ChildKind::File {
                size: stat_size(dir, c_name).map_or(0, |(_, size)| size),
            },
            FileType::Directory => ChildKind::Dir,
            // The file system does not say: ask, without following a link.
            FileType::Unknown => match stat_size(dir, c_name)? {
                (FileType::RegularFile, size) => ChildKind::File { size },
                (FileType::Directory, _) => ChildKind::Dir,
                _ => continue,
            },
            _ => continue,
        };
        let start = names.len();
        names.push_str(name);
        children.push(Child {
            name: start..names.len(),
            kind,
        });
    }
    Ok((names, children))
}

/// The type and size of `name` in `dir`, a link not followed: one `statx` asking for no more.
fn stat_size(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<(FileType, u64)> {
    let stat = rustix::fs::statx(
        dir,
        name,
        AtFlags::SYMLINK_NOFOLLOW,
        StatxFlags::TYPE | StatxFlags::SIZE,
    )?;
    let kind = FileType::from_raw_mode(rustix::fs::RawMode::from(stat.stx_mode));
    Ok((kind, stat.stx_size))
}

/// Appends the human-readable size of `bytes` to `out`, 1024-based: `512B`, `1.0K`, `1.5K`,
/// `4.0K`, `1.2M` (`decide.size-format`).
fn push_human_size(out: &mut String, bytes: u64) {
    const UNITS: [&str; 6] = ["K", "M", "G", "T", "P", "E"];
    // Writing to a String cannot fail.
    if bytes < 1024 {
        let _ = write!(out, "{bytes}B");
        return;
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    // Move up a unit when rounding to one decimal would print 1024.0.
    while value >= 1023.95 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    match tenths(bytes, 10 * (unit as u32 + 1)) {
        Some(tenths) => {
            let _ = write!(out, "{}.{}{}", tenths / 10, tenths % 10, UNITS[unit]);
        }
        None => {
            let _ = write!(out, "{value:.1}{}", UNITS[unit]);
        }
    }
}

/// `bytes / 2^shift` in tenths, rounded as `format!("{:.1}")` rounds that `f64` (to nearest,
/// ties to even), but with integers: formatting a float exactly is most of a listing line's
/// cost. `None` from 2^53 bytes on, where `bytes as f64` is no longer exact.
fn tenths(bytes: u64, shift: u32) -> Option<u128> {
    if bytes >= 1 << 53 {
        return None;
    }
    let scaled = u128::from(bytes) * 10;
    let (quotient, remainder) = (scaled >> shift, scaled & ((1 << shift) - 1));
    let half = 1 << (shift - 1);
    let up = remainder > half || (remainder == half && quotient % 2 == 1);
    Some(quotient + u128::from(up))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_human_readable() {
        let cases = [
            (0, "0B"),
            (1023, "1023B"),
            (1024, "1.0K"),
            (1536, "1.5K"),
            (4096, "4.0K"),
            (1_048_575, "1.0M"),
            (1_258_291, "1.2M"),
            (5 << 40, "5.0T"),
            (u64::MAX, "16.0E"),
        ];
        for (bytes, want) in cases {
            let mut got = String::new();
            push_human_size(&mut got, bytes);
            assert_eq!(got, want, "{bytes}");
        }
    }

    /// The integer rounding is the float formatting's, ties to even included (1280 bytes is
    /// exactly 1.25K, shown `1.2K`).
    #[test]
    fn sizes_round_as_floats_format() {
        let by_float = |bytes: u64| {
            let mut value = bytes as f64 / 1024.0;
            let mut unit = 0;
            while value >= 1023.95 && unit < 5 {
                value /= 1024.0;
                unit += 1;
            }
            format!("{value:.1}{}", ["K", "M", "G", "T", "P", "E"][unit])
        };
        let mut samples: Vec<u64> = (1024..300_000).collect();
        for k in 1..6 {
            let base = 1u64 << (10 * k);
            for m in 0..2_000 {
                samples.extend([m * base / 20, m * base / 20 + 1, 1023 * base + m]);
            }
        }
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            samples.push(x >> (x % 64));
        }
        for bytes in samples.into_iter().filter(|&b| b >= 1024) {
            let mut got = String::new();
            push_human_size(&mut got, bytes);
            assert_eq!(got, by_float(bytes), "{bytes}");
        }
        let mut tie = String::new();
        push_human_size(&mut tie, 1280);
        assert_eq!(tie, "1.2K");
    }
}
