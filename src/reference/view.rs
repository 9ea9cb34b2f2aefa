//! `view`: a folder listing two levels deep, or a file with line numbers.

use std::io::{self, Read, Seek, Write};

use cap_std::fs::{Dir, File, MetadataExt as _};

use super::confine::{self, Occupant};
use super::messages::{self, Said};
use super::{Located, Outcome, Reference, listing, locate, read_refusal, refuse_leaf, text};
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
        (Some(name), Occupant::File) if range.is_some() || !has_image_name(name) => name,
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
        (None, _) | (Some(_), Occupant::Dir) => {
            listing::list_located(reference, located, spelled, range)
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

    /// Views and reads leave access times alone: updating them would dirty inodes, written out
    /// by the next fsync in the folder.
    #[test]
    fn views_leave_access_times_alone() {
        let dir = tempfile::tempdir().unwrap();
        let notes = dir.path().join("notes");
        std::fs::create_dir(&notes).unwrap();
        std::fs::write(notes.join("a.md"), "one\ntwo\n").unwrap();
        let reference = Reference::open(dir.path()).unwrap();
        let paths = [dir.path().to_path_buf(), notes.clone(), notes.join("a.md")];
        for path in &paths {
            confine::age_atime(path);
        }
        let before: Vec<i64> = paths.iter().map(|p| confine::atime(p)).collect();
        for input in [
            serde_json::json!({"command": "view", "path": "/memories"}),
            serde_json::json!({"command": "view", "path": "/memories/notes"}),
            serde_json::json!({"command": "view", "path": "/memories/notes/a.md"}),
        ] {
            assert!(!reference.call(&input).is_error, "{input}");
        }
        let after: Vec<i64> = paths.iter().map(|p| confine::atime(p)).collect();
        assert_eq!(before, after);
    }
}
