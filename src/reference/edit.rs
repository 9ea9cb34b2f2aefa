//! `create`, `str_replace` and `insert`: the commands that write file content.

use std::fmt::Write as _;
use std::io;

use memchr::memmem::Finder;

use super::confine::{self, Occupant, WalkError};
use super::messages::{self, Said};
use super::{Located, Outcome, Reference, locate, parse, read_refusal, refuse_leaf, text};

/// Lines of context shown around an edit, as in the text editor tool.
const SNIPPET_CONTEXT: usize = 4;

pub(super) fn create(reference: &Reference, spelled: &str, file_text: &str) -> Outcome {
    let path = parse(spelled)?;
    let Some(name) = path.components().last() else {
        return Err(messages::create_exists(spelled));
    };
    if path.has_trailing_slash() {
        return Err(messages::create_trailing_slash(spelled));
    }
    let _lock = reference
        .root()
        .lock()
        .map_err(|e| messages::io_failure("create", spelled, &e))?;
    let parent = reference
        .root()
        .parent_of(path.components(), true)
        .map_err(|e| match e {
            WalkError::NotDir { at } | WalkError::Missing { at } => {
                messages::create_parent_not_dir(spelled, &path.prefix_display(at + 1))
            }
            WalkError::Symlink { at } => {
                messages::symlink_refused(spelled, &path.prefix_display(at + 1))
            }
            WalkError::Io(err) => messages::io_failure("create", spelled, &err),
        })?;
    match confine::create_file(&parent, name, file_text.as_bytes()) {
        Ok(()) => Ok(messages::create_ok(spelled)),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(messages::create_exists(spelled)),
        Err(e) => Err(messages::io_failure("create", spelled, &e)),
    }
}

pub(super) fn str_replace(
    reference: &Reference,
    spelled: &str,
    old_str: &str,
    new_str: &str,
) -> Outcome {
    let _lock = reference
        .root()
        .lock()
        .map_err(|e| messages::io_failure("str_replace", spelled, &e))?;
    let (located, content) = read_text(
        reference,
        spelled,
        messages::str_replace_missing,
        messages::str_replace_on_dir,
    )?;
    if old_str.is_empty() {
        return Err(messages::str_replace_empty_old(spelled));
    }
    let at = match occurrences(&content, old_str) {
        Occurrences::None => return Err(messages::str_replace_not_found(old_str, spelled)),
        Occurrences::Many { lines } => return Err(messages::str_replace_multiple(old_str, &lines)),
        Occurrences::One(at) => at,
    };
    let mut edited = String::with_capacity(content.len() - old_str.len() + new_str.len());
    edited.push_str(&content[..at]);
    edited.push_str(new_str);
    edited.push_str(&content[at + old_str.len()..]);
    write_back(&located, spelled, "str_replace", &edited)?;

    let first_changed = 1 + memchr::memchr_iter(b'\n', &content.as_bytes()[..at]).count();
    let last_changed = first_changed + new_str.bytes().filter(|&b| b == b'\n').count();
    let n_lines = text::line_count(&edited);
    let from = first_changed.saturating_sub(SNIPPET_CONTEXT).max(1);
    let to = (last_changed + SNIPPET_CONTEXT).min(n_lines);
    let mut out = messages::str_replace_ok();
    if from <= to {
        let shown = text::lines(&edited).skip(from - 1).take(to + 1 - from);
        text::push_numbered(&mut out.text, from, shown);
    }
    Ok(out)
}

pub(super) fn insert(
    reference: &Reference,
    spelled: &str,
    insert_line: i128,
    insert_text: &str,
) -> Outcome {
    let _lock = reference
        .root()
        .lock()
        .map_err(|e| messages::io_failure("insert", spelled, &e))?;
    let (located, content) = read_text(
        reference,
        spelled,
        messages::insert_missing,
        messages::insert_on_dir,
    )?;
    let n_lines = text::line_count(&content);
    let line = usize::try_from(insert_line)
        .ok()
        .filter(|&l| l <= n_lines)
        .ok_or_else(|| messages::insert_invalid_line(insert_line, n_lines))?;
    let split = text::line_start(&content, line + 1);
    let mut edited = String::with_capacity(content.len() + insert_text.len() + 2);
    edited.push_str(&content[..split]);
    // Inserted text becomes whole lines (`decide.insert-lines`).
    if !edited.is_empty() && !edited.ends_with('\n') && !insert_text.is_empty() {
        edited.push('\n');
    }
    edited.push_str(insert_text);
    if !insert_text.is_empty() && !insert_text.ends_with('\n') && split < content.len() {
        edited.push('\n');
    }
    edited.push_str(&content[split..]);
    write_back(&located, spelled, "insert", &edited)?;
    Ok(messages::insert_ok(spelled))
}

/// Locates a file for a read-modify-write command and reads it as UTF-8. `missing` and
/// `on_dir` word the command's errors for a missing path and for a folder.
fn read_text(
    reference: &Reference,
    spelled: &str,
    missing: fn(&str) -> Said,
    on_dir: fn(&str) -> Said,
) -> Result<(Located, String), Said> {
    let located = locate(reference, spelled, missing)?;
    if let Some(refusal) = refuse_leaf(&located, spelled, missing) {
        return Err(refusal);
    }
    // A folder, including /memories itself, "does not exist" as a file (the spec's wording).
    let (Some(name), Occupant::File) = (&located.name, located.kind) else {
        return Err(on_dir(spelled));
    };
    let bytes = confine::read_file(&located.parent, name)
        .map_err(|e| read_refusal(e, spelled, "read", missing))?;
    let content = String::from_utf8(bytes).map_err(|_| messages::not_utf8(spelled))?;
    Ok((located, content))
}

fn write_back(located: &Located, spelled: &str, command: &str, content: &str) -> Result<(), Said> {
    let Some(name) = &located.name else {
        return Err(messages::io_failure(
            command,
            spelled,
            &io::ErrorKind::IsADirectory.into(),
        ));
    };
    confine::replace_file(&located.parent, name, content.as_bytes())
        .map_err(|e| messages::io_failure(command, spelled, &e))
}

/// Where `old_str` occurs in a file: as much as str_replace needs to know, and no more.
#[derive(Debug, PartialEq, Eq)]
enum Occurrences {
    /// Nowhere (or `old_str` is empty).
    None,
    /// Exactly once, at this byte offset.
    One(usize),
    /// More than once: the distinct lines on which an occurrence starts, ascending, joined with
    /// `, ` as the message shows them.
    Many { lines: String },
}

/// Finds `needle` in `haystack`, overlapping occurrences included (`decide.str-replace-occurrences`:
/// every position where it starts counts, so `aa` occurs twice in `aaa`).
///
/// Linear in the file and the needle whatever their shape, and it allocates nothing but the line
/// list of the message: this runs under the root's lock, and a naive scan that restarts one byte
/// after each hit is quadratic on a repetitive file (20,000 `a`s in 400,000 took 31 s).
/// Byte offsets are character boundaries: a UTF-8 needle can only match where a character starts.
fn occurrences(haystack: &str, needle: &str) -> Occurrences {
    if needle.is_empty() {
        return Occurrences::None;
    }
    let (hay, finder) = (haystack.as_bytes(), Finder::new(needle.as_bytes()));
    let Some(first) = find_from(&finder, hay, 0) else {
        return Occurrences::None;
    };
    match find_from(&finder, hay, first + 1) {
        None => Occurrences::One(first),
        Some(second) => Occurrences::Many {
            lines: starting_lines(hay, &finder, first, second),
        },
    }
}

/// The first occurrence at or after `from`.
fn find_from(finder: &Finder<'_>, hay: &[u8], from: usize) -> Option<usize> {
    let at = finder.find(hay.get(from..)?)?;
    Some(from + at)
}

/// The distinct lines on which the occurrences of the finder's needle start, given its first two
/// occurrences, joined with `, `.
///
/// Only the first occurrence on each line matters, so the search skips to the next line after
/// each one it notes. That alone is still quadratic when occurrences overlap densely across
/// lines (`a\n` repeated, searched for 10,000 `a\n`s), so overlaps are handled through the
/// needle's smallest period `p`:
/// - two consecutive occurrences at most `m/2` apart (`m` the needle's length) are exactly `p`
///   apart (Fine and Wilf: a smaller period would put an occurrence between them);
/// - from an occurrence on, the text keeps period `p` up to some point (a "run", found with one
///   comparison of the text with itself shifted by `p`); the occurrences in the run are every
///   `p` bytes, and there is none in between;
/// - the next occurrence after a run overlaps its last one by less than `m - p`, so the search
///   for it costs no more than the distance it moves forward.
///
/// Every byte is thus looked at a bounded number of times.
fn starting_lines(hay: &[u8], finder: &Finder<'_>, first: usize, second: usize) -> String {
    let m = finder.needle().len();
    let mut lines = LineList::new(hay);
    lines.add(first);
    let mut pos = first;
    // The occurrence right after `pos`, when known.
    let mut next = Some(second);
    let mut period = None;
    loop {
        let p = match period {
            Some(p) => p,
            None => {
                // The occurrence right after `pos` if it overlaps `pos` by half the needle or
                // more (it gives the period), else the first occurrence on a later line.
                let q = match next.take() {
                    Some(q) => q,
                    None => {
                        let Some(from) = next_line_start(hay, pos) else {
                            break;
                        };
                        let Some(r) = find_from(finder, hay, from) else {
                            break;
                        };
                        if r - pos <= m / 2 {
                            find_from(finder, hay, pos + 1).unwrap_or(r)
                        } else {
                            r
                        }
                    }
                };
                if q - pos > m / 2 {
                    lines.add(q);
                    pos = q;
                    continue;
                }
                period = Some(q - pos);
                q - pos
            }
        };
        // The run from `pos`: the text repeats with period `p` up to `run_end`, so the
        // occurrences are `pos`, `pos + p`, ... up to `last`.
        let run_end = pos + m + common_prefix(&hay[pos + m..], &hay[pos + m - p..]);
        let last = pos + (run_end - m - pos) / p * p;
        let mut at = pos;
        while let Some(newline) = memchr::memchr(b'\n', &hay[at..last]) {
            let line_start = at + newline + 1;
            at = pos + (line_start - pos).div_ceil(p) * p;
            if at > last {
                break;
            }
            lines.add(at);
        }
        // No occurrence lies in (last, last + p]; one on the same line as `last` adds nothing.
        let Some(line_start) = next_line_start(hay, last) else {
            break;
        };
        let Some(r) = find_from(finder, hay, line_start.max(last + p + 1)) else {
            break;
        };
        lines.add(r);
        pos = r;
    }
    lines.text
}

/// Where the line after the one holding `pos` starts, if there is a newline after `pos`.
fn next_line_start(hay: &[u8], pos: usize) -> Option<usize> {
    memchr::memchr(b'\n', hay.get(pos..)?).map(|at| pos + at + 1)
}

/// Length of the common prefix of `a` and `b`, compared a block at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// The distinct line numbers of ascending offsets, written as the message lists them.
struct LineList<'a> {
    hay: &'a [u8],
    /// The line of `scanned`, 1-indexed.
    line: usize,
    scanned: usize,
    /// The last line written, 0 before the first.
    written: usize,
    text: String,
}

impl<'a> LineList<'a> {
    fn new(hay: &'a [u8]) -> LineList<'a> {
        LineList {
            hay,
            line: 1,
            scanned: 0,
            written: 0,
            text: String::new(),
        }
    }

    /// Notes an occurrence at `pos`, at or after the previous one.
    fn add(&mut self, pos: usize) {
        let between = self.hay.get(self.scanned..pos).unwrap_or_default();
        self.line += memchr::memchr_iter(b'\n', between).count();
        self.scanned = pos.max(self.scanned);
        if self.line != self.written {
            if self.written != 0 {
                self.text.push_str(", ");
            }
            // Writing to a String cannot fail.
            let _ = write!(self.text, "{}", self.line);
            self.written = self.line;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, slowly: every position where `needle` starts, and their distinct lines.
    fn naive(haystack: &str, needle: &str) -> Occurrences {
        let starts: Vec<usize> = (0..haystack.len())
            .filter(|&i| haystack.is_char_boundary(i) && haystack[i..].starts_with(needle))
            .collect();
        match starts[..] {
            [] => Occurrences::None,
            [at] => Occurrences::One(at),
            _ => {
                let mut lines: Vec<usize> = starts
                    .iter()
                    .map(|&at| 1 + haystack[..at].matches('\n').count())
                    .collect();
                lines.dedup();
                let lines = lines.iter().map(usize::to_string).collect::<Vec<_>>();
                Occurrences::Many {
                    lines: lines.join(", "),
                }
            }
        }
    }

    #[test]
    fn counts_overlapping_occurrences() {
        let many = |lines: &str| Occurrences::Many {
            lines: lines.to_string(),
        };
        assert_eq!(occurrences("aaa", "aa"), many("1"));
        assert_eq!(occurrences("x x\nx", "x"), many("1, 2"));
        assert_eq!(occurrences("héhé", "é"), many("1"));
        assert_eq!(occurrences("abc", "d"), Occurrences::None);
        assert_eq!(occurrences("abc", "bc"), Occurrences::One(1));
        assert_eq!(occurrences("abc", ""), Occurrences::None);
    }

    /// Every text of up to 8 characters over `a`, `b` and a newline, against every needle of up
    /// to 4: the fast search agrees with the definition, periods and runs included.
    #[test]
    fn agrees_with_the_definition_exhaustively() {
        fn all(alphabet: &[char], max: usize) -> Vec<String> {
            let mut out = vec![String::new()];
            let mut last = vec![String::new()];
            for _ in 0..max {
                last = last
                    .iter()
                    .flat_map(|s| alphabet.iter().map(move |&c| format!("{s}{c}")))
                    .collect();
                out.extend(last.iter().cloned());
            }
            out
        }
        let texts = all(&['a', 'b', '\n'], 8);
        let needles = all(&['a', 'b', '\n'], 4);
        for needle in needles.iter().filter(|n| !n.is_empty()) {
            for text in &texts {
                assert_eq!(
                    occurrences(text, needle),
                    naive(text, needle),
                    "{needle:?} in {text:?}"
                );
            }
        }
    }

    #[test]
    fn agrees_with_the_definition_on_long_periodic_texts() {
        let cases = [
            ("a".repeat(3000), "a".repeat(700)),
            ("a\n".repeat(1500), "a\n".repeat(300)),
            ("ab\nab\nabab\n".repeat(200), "ab\nab".to_string()),
            (
                format!("{}b{}", "aab".repeat(400), "aab".repeat(300)),
                "aabaab".to_string(),
            ),
            ("aabaa\naabaa".repeat(100), "aabaa".to_string()),
            ("é\né".repeat(500), "é\né\né".to_string()),
        ];
        for (text, needle) in cases {
            assert_eq!(
                occurrences(&text, &needle),
                naive(&text, &needle),
                "{needle:?}"
            );
        }
    }
}
