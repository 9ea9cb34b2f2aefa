//! `view`: a folder listing two levels deep, or a file with line numbers.

use std::ffi::{OsStr, OsString};
use std::io::{self, Read, Seek, Write};

use cap_fs_ext::DirExt;
use cap_std::fs::{Dir, File, MetadataExt as _};

use super::confine::{self, Kind};
use super::messages::{self, Said};
use super::{Located, Outcome, Reference, locate, read_refusal, refuse_leaf, text};
use crate::protocol::Image;
use crate::spec::Revision;

pub(super) fn view(reference: &Reference, spelled: &str, range: Option<(i128, i128)>) -> Outcome {
    let located = locate(reference, spelled, messages::view_missing)?;
    view_located(reference, &located, spelled, range)
}

/// Files at least this long are written out by [`view_to`] as they are read.
const STREAM_MIN: u64 = 1 << 20;
/// The size of each read of a file written out as it is read.
const STREAM_CHUNK: usize = 1 << 20;

/// [`view`], writing the answer's text into `out` when it is a long file's lines: such a file is
/// read twice in [`STREAM_CHUNK`]s, once to decide the answer ([`text::Scan`]: UTF-8, line count,
/// range) and once to write its lines ([`text::NumberedWriter`]), so a 999,999-line view never
/// holds the file or its numbered text in memory. The text written is exactly the [`view`]
/// answer's. `Ok(None)`: the view was written; `Ok(Some(answer))`: nothing was written, the
/// answer is the caller's to write (every error, folders, images, short files and views that
/// `ga-2026` cuts, which are short). `Err`: writing failed, or the file changed while it was
/// written out.
pub(super) fn view_to(
    reference: &Reference,
    spelled: &str,
    range: Option<(i128, i128)>,
    out: &mut dyn Write,
) -> io::Result<Option<Outcome>> {
    let located = match locate(reference, spelled, messages::view_missing) {
        Ok(located) => located,
        Err(refusal) => return Ok(Some(Err(refusal))),
    };
    let name = match (&located.name, located.kind) {
        (Some(name), Kind::File) if range.is_some() || !has_image_name(name) => name,
        _ => return Ok(Some(view_located(reference, &located, spelled, range))),
    };
    let refusal = |e| read_refusal(e, spelled, "view", messages::view_missing);
    let (mut file, size) = match confine::open_file(&located.parent, name) {
        Ok(opened) => opened,
        Err(e) => return Ok(Some(Err(refusal(e)))),
    };
    let revision = reference.revision();
    if size < STREAM_MIN || (range.is_none() && revision == Revision::Ga2026) {
        return Ok(Some(show_file(file, size, name, spelled, range, revision)));
    }
    let mut chunk = vec![0; STREAM_CHUNK];
    let scanned = (|| {
        let before = file.metadata()?;
        let mut scan = text::Scan::default();
        loop {
            let n = read_some(&mut file, &mut chunk)?;
            if n == 0 {
                return Ok((before, scan));
            }
            scan.feed(&chunk[..n]);
        }
    })();
    let (before, scan) = match scanned {
        Ok(scanned) => scanned,
        Err(e) => return Ok(Some(Err(refusal(confine::ReadError::Io(e))))),
    };
    let Some(n_lines) = scan.finish() else {
        return Ok(Some(Err(messages::not_utf8(spelled))));
    };
    let (first, last) = match shown_lines(n_lines, range, spelled) {
        Ok(shown) => shown,
        Err(refusal) => return Ok(Some(Err(refusal))),
    };
    if let Err(e) = file.rewind() {
        return Ok(Some(Err(refusal(confine::ReadError::Io(e)))));
    }
    out.write_all(messages::view_file_header(spelled).text.as_bytes())?;
    let mut lines = text::NumberedWriter::new(out, first, last);
    loop {
        let n = read_some(&mut file, &mut chunk)?;
        if n == 0 || !lines.feed(&chunk[..n])? {
            break;
        }
    }
    let (_, fed) = lines.finish()?;
    let after = file.metadata()?;
    let stamp = |m: &cap_std::fs::Metadata| {
        (
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        )
    };
    if fed < last || stamp(&before) != stamp(&after) {
        return Err(io::Error::other(format!(
            "{spelled} changed while it was being viewed: what was written is not one state of it"
        )));
    }
    Ok(None)
}

/// One `read`, retried when interrupted.
fn read_some(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match file.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

/// [`view`] of a path found.
fn view_located(
    reference: &Reference,
    located: &Located,
    spelled: &str,
    range: Option<(i128, i128)>,
) -> Outcome {
    if let Some(refusal) = refuse_leaf(located, spelled, messages::view_missing) {
        return Err(refusal);
    }
    match (&located.name, located.kind) {
        (None, _) => list(
            reference.root().dir(),
            spelled,
            &located.path.to_string(),
            range,
        ),
        (Some(name), Kind::Dir) => {
            let dir = located
                .parent
                .open_dir_nofollow(name)
                .map_err(|e| messages::io_failure("view", spelled, &e))?;
            list(&dir, spelled, &located.path.to_string(), range)
        }
        (Some(name), _) => view_file(&located.parent, name, spelled, range, reference.revision()),
    }
}

fn view_file(
    parent: &Dir,
    name: &str,
    spelled: &str,
    range: Option<(i128, i128)>,
    revision: Revision,
) -> Outcome {
    let refusal = |e| read_refusal(e, spelled, "view", messages::view_missing);
    let (file, size) = confine::open_file(parent, name).map_err(refusal)?;
    show_file(file, size, name, spelled, range, revision)
}

/// [`view_file`] of the file opened, `size` bytes long.
fn show_file(
    mut file: File,
    size: u64,
    name: &str,
    spelled: &str,
    range: Option<(i128, i128)>,
    revision: Revision,
) -> Outcome {
    let refusal = |e| read_refusal(e, spelled, "view", messages::view_missing);
    let mut bytes = Vec::new();
    // An image is shown only to a view of the whole file (`decide.image-view`): with
    // `view_range`, any file is text.
    if range.is_none() && has_image_name(name) {
        // One byte past the limit tells an image too big to show, without reading it all.
        (&mut file)
            .take(messages::MAX_IMAGE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| refusal(confine::ReadError::Io(e)))?;
        if let Some(media_type) = image_type(&bytes) {
            let read = bytes.len() as u64;
            if read > messages::MAX_IMAGE_BYTES {
                return Err(messages::image_too_big(spelled, size.max(read)));
            }
            return Ok(messages::view_image(Image {
                media_type: media_type.to_string(),
                data: bytes,
            }));
        }
        // An image name on bytes that are no image: the file is text like any other.
    }
    bytes.reserve((size as usize).saturating_sub(bytes.len()));
    confine::read_rest(&mut file, &mut bytes).map_err(|e| refusal(confine::ReadError::Io(e)))?;
    let content = std::str::from_utf8(&bytes).map_err(|_| messages::not_utf8(spelled))?;
    let n_lines = text::line_count(content);
    let (first, last) = shown_lines(n_lines, range, spelled)?;
    if range.is_none()
        && revision == Revision::Ga2026
        && let Some(cut) = cut_view(content, spelled, n_lines)
    {
        return Ok(cut);
    }
    let mut view = messages::view_file_header(spelled);
    view.text.reserve(content.len() + 8 * n_lines);
    let shown = text::lines(content).skip(first - 1).take(last + 1 - first);
    text::push_numbered(&mut view.text, first, shown);
    Ok(view)
}

/// The lines a view of a file of `n_lines` lines shows, 1-indexed and inclusive, or why it
/// shows none.
fn shown_lines(
    n_lines: usize,
    range: Option<(i128, i128)>,
    spelled: &str,
) -> Result<(usize, usize), Said> {
    if n_lines > text::MAX_LINES {
        return Err(messages::view_too_many_lines(spelled));
    }
    match range {
        None => Ok((1, n_lines)),
        Some((start, end)) => check_range(start, end, n_lines),
    }
}

/// The view of a file longer than [`messages::VIEW_CHAR_BUDGET`] characters under `ga-2026`
/// (`decide.long-views`): the whole lines within its first 16,000 characters, then the notice
/// naming the next range. `None` when the file is not that long. Reads at most a budget's worth
/// of characters past line-finding, whatever the file's size.
fn cut_view(content: &str, spelled: &str, n_lines: usize) -> Option<messages::Said> {
    let budget = messages::VIEW_CHAR_BUDGET;
    // Every line fits when the whole text does, newlines included: no more characters than
    // bytes. Most files are that short, and counting their characters is most of a view's work.
    if content.len() <= budget {
        return None;
    }
    let shown = whole_lines_within(content, 1, n_lines, budget);
    if shown == n_lines {
        return None;
    }
    // The next part: as many whole lines as fit in the next budget, and at least one, so that
    // a line longer than the budget can still be read (a ranged view is never cut).
    let next_end = shown + whole_lines_within(content, shown + 1, n_lines, budget).max(1);
    let mut view = messages::view_file_header(spelled);
    text::push_numbered(&mut view.text, 1, text::lines(content).take(shown));
    let notice = messages::view_truncated(spelled, shown, n_lines, next_end);
    view.text.push_str(&notice.text);
    view.rule = notice.rule;
    Some(view)
}

/// How many lines from line `first` on fit whole in `budget` characters, each counted with its
/// newline (a last line without one has none), Unicode scalar values as the characters.
fn whole_lines_within(content: &str, first: usize, n_lines: usize, budget: usize) -> usize {
    let final_newline = content.ends_with('\n');
    let mut room = budget;
    let mut count = 0;
    let lines = text::lines(content).skip(first.saturating_sub(1));
    for (number, line) in (first..).zip(lines) {
        let newline = usize::from(number < n_lines || final_newline);
        // Counted only up to the room left: a huge line costs no more than the budget.
        let chars = line.chars().take(room + 1).count();
        let cost = chars + newline;
        if cost > room {
            break;
        }
        room -= cost;
        count += 1;
    }
    count
}

/// Whether `name` ends in `.png`, `.jpg` or `.jpeg`, in any case, after a non-empty stem.
fn has_image_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".png", ".jpg", ".jpeg"]
        .iter()
        .any(|ext| lower.len() > ext.len() && lower.ends_with(ext))
}

/// The media type of an image by its first bytes: the PNG signature or the JPEG start of image.
/// The Messages API refuses an image block whose media type does not match its data, so the
/// bytes decide, not the name.
fn image_type(bytes: &[u8]) -> Option<&'static str> {
    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";
    const JPEG: &[u8] = b"\xff\xd8\xff";
    if bytes.starts_with(PNG) {
        Some("image/png")
    } else if bytes.starts_with(JPEG) {
        Some("image/jpeg")
    } else {
        None
    }
}

/// Validates `view_range` in the text editor tool's order; returns 1-indexed inclusive bounds.
fn check_range(start: i128, end: i128, n_lines: usize) -> Result<(usize, usize), Said> {
    let n = n_lines as i128;
    if start < 1 || start > n {
        return Err(messages::view_range_bad_start(start, end, n_lines));
    }
    if end > n {
        return Err(messages::view_range_bad_end(start, end, n_lines));
    }
    if end != -1 && end < start {
        return Err(messages::view_range_reversed(start, end));
    }
    let last = if end == -1 { n } else { end };
    // Both bounds are within 1..=n_lines here.
    Ok((start as usize, last as usize))
}

/// One listed entry below the listed folder.
struct Entry {
    path: String,
    is_dir: bool,
    size: u64,
}

fn list(dir: &Dir, spelled: &str, canonical: &str, range: Option<(i128, i128)>) -> Outcome {
    if range.is_some() {
        return Err(messages::view_range_on_dir());
    }
    let mut entries = Vec::new();
    let total = walk(dir, canonical, 1, &mut entries)
        .map_err(|e| messages::io_failure("view", spelled, &e))?;
    let mut listing = messages::view_dir_header(spelled);
    push_line(&mut listing.text, total, canonical, false);
    for entry in &entries {
        push_line(&mut listing.text, entry.size, &entry.path, entry.is_dir);
    }
    Ok(listing)
}

fn push_line(out: &mut String, size: u64, path: &str, is_dir: bool) {
    out.push('\n');
    out.push_str(&human_size(size));
    out.push('\t');
    out.push_str(path);
    if is_dir {
        out.push('/');
    }
}

/// Lists `dir` into `entries` down to depth 2 and returns the total size of its visible files at
/// any depth (`decide.folder-size`). Symlinks are neither listed nor followed.
fn walk(dir: &Dir, prefix: &str, depth: usize, entries: &mut Vec<Entry>) -> io::Result<u64> {
    let mut children = Vec::new();
    for entry in dir.entries()? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            // A name that is not UTF-8 cannot be spelled by Claude; leave it out.
            continue;
        };
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        children.push((name, entry));
    }
    children.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut total = 0u64;
    for (name, entry) in children {
        let kind = entry.file_type()?;
        let path = format!("{prefix}/{name}");
        if kind.is_file() {
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            total = total.saturating_add(size);
            if depth <= 2 {
                entries.push(Entry {
                    path,
                    is_dir: false,
                    size,
                });
            }
        } else if kind.is_dir() {
            let slot = entries.len();
            if depth <= 2 {
                entries.push(Entry {
                    path: path.clone(),
                    is_dir: true,
                    size: 0,
                });
            }
            // An unreadable or vanished subfolder counts as empty rather than failing the view.
            let size = if depth >= 2 {
                // Nothing below depth 2 is listed: only sizes, summed without recursion.
                subtree_size(dir, &name)
            } else {
                match dir.open_dir_nofollow(&name) {
                    // The recursion stops at depth 2, so the stack stays shallow.
                    Ok(sub) => walk(&sub, &path, depth + 1, entries).unwrap_or(0),
                    Err(_) => 0,
                }
            };
            if depth <= 2 {
                entries[slot].size = size;
            }
            total = total.saturating_add(size);
        }
    }
    Ok(total)
}

/// Total size of the visible files below the folder `name` of `parent` at any depth, as [`walk`]
/// counts them. Folders can be nested deeper than any stack or descriptor limit (each rename can
/// stack one deep nesting onto another), so this is [`confine::walk_tree`]: iterative, with a
/// bounded number of open descriptors. A folder that cannot be read counts as empty.
fn subtree_size(parent: &Dir, name: &str) -> u64 {
    let mut size = Size(0);
    // A walk stopped by a concurrent rename keeps what it had summed.
    let _ = confine::walk_tree(parent, name.as_ref(), &mut size);
    size.0
}

/// The walk of [`subtree_size`]: the running total.
struct Size(u64);

impl confine::Visit for Size {
    fn enter(&mut self, dir: &Dir) -> io::Result<Vec<OsString>> {
        let mut subfolders = Vec::new();
        let Ok(children) = dir.entries() else {
            return Ok(subfolders);
        };
        for entry in children.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if name.starts_with('.') || name == "node_modules" {
                continue;
            }
            match entry.file_type() {
                Ok(kind) if kind.is_file() => {
                    let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                    self.0 = self.0.saturating_add(size);
                }
                Ok(kind) if kind.is_dir() => subfolders.push(name.into()),
                _ => {}
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

/// Human-readable size, 1024-based: `512B`, `1.0K`, `1.5K`, `4.0K`, `1.2M` (`decide.size-format`).
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["K", "M", "G", "T", "P", "E"];
    if bytes < 1024 {
        return format!("{bytes}B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    // Move up a unit when rounding to one decimal would print 1024.0.
    while value >= 1023.95 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1}{}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_names_and_signatures() {
        for name in ["a.png", "A.PNG", "b.jpg", "c.JpEg", "x.y.jpeg"] {
            assert!(has_image_name(name), "{name}");
        }
        for name in [".png", "png", "a.png.txt", "a.gif", "a.jpe"] {
            assert!(!has_image_name(name), "{name}");
        }
        assert_eq!(image_type(b"\x89PNG\r\n\x1a\nrest"), Some("image/png"));
        assert_eq!(image_type(b"\xff\xd8\xff\xe0"), Some("image/jpeg"));
        assert_eq!(image_type(b"\x89PNG"), None);
        assert_eq!(image_type(b"hello"), None);
    }

    #[test]
    fn whole_lines_count_characters_not_bytes() {
        // 4 lines of 3 characters (6 bytes each) + newline: 4 characters each.
        let content = "éée\néée\néée\néée";
        assert_eq!(whole_lines_within(content, 1, 4, 16), 4);
        // The last line has no newline: 4 + 4 + 4 + 3 characters.
        assert_eq!(whole_lines_within(content, 1, 4, 15), 4);
        assert_eq!(whole_lines_within(content, 1, 4, 14), 3);
        assert_eq!(whole_lines_within(content, 2, 4, 8), 2);
        assert_eq!(whole_lines_within(content, 1, 4, 3), 0);
        assert_eq!(whole_lines_within("", 1, 0, 10), 0);
    }

    /// A view written out by [`Reference::call_to`] is byte for byte the text of
    /// [`Reference::call`], and so is the answer that is not written out, in both revisions.
    #[test]
    fn written_views_are_the_answers() {
        let dir = tempfile::tempdir().unwrap();
        // Longer than STREAM_MIN, with characters cut by the chunk boundaries.
        let line = "é漢字 😀 word\n";
        let long = line.repeat((STREAM_MIN as usize / line.len()) * 3 + 7);
        std::fs::write(dir.path().join("long.txt"), &long).unwrap();
        std::fs::write(dir.path().join("open.txt"), long.trim_end()).unwrap();
        let mut bad = long.clone().into_bytes();
        bad[STREAM_CHUNK + 1] = 0xff;
        std::fs::write(dir.path().join("bad.txt"), bad).unwrap();
        std::fs::write(
            dir.path().join("many.txt"),
            "x\n".repeat(text::MAX_LINES + 1),
        )
        .unwrap();
        std::fs::write(dir.path().join("short.txt"), "a\nb\n").unwrap();
        let ranges = [
            None,
            Some((2, -1)),
            Some((1000, 90_000)),
            Some((5, 4)),
            Some((0, 3)),
        ];
        for revision in Revision::ALL {
            let reference = Reference::open_as(dir.path(), revision).unwrap();
            for name in ["long", "open", "bad", "many", "short", "missing"] {
                for range in ranges {
                    let mut input = serde_json::json!({"command": "view", "path": format!("/memories/{name}.txt")});
                    if let Some((a, b)) = range {
                        input["view_range"] = serde_json::json!([a, b]);
                    }
                    let want = reference.call(&input);
                    let mut out = Vec::new();
                    let is_error = reference.call_to(&input, &mut out).unwrap();
                    assert_eq!(is_error, want.is_error, "{revision} {input}");
                    assert!(out == want.text.as_bytes(), "{revision} {input}");
                }
            }
        }
    }

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
            assert_eq!(human_size(bytes), want, "{bytes}");
        }
    }
}
