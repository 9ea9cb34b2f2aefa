//! `create`, `str_replace` and `insert`: the commands that write file content.

use std::io;

use super::confine::{self, Kind, WalkError};
use super::{
    Located, Outcome, Reference, locate, messages, parse, read_refusal, refuse_leaf, text,
};

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
    let (located, content) = read_text(reference, spelled, messages::str_replace_missing)?;
    if old_str.is_empty() {
        return Err(messages::str_replace_empty_old(spelled));
    }
    let positions = occurrences(&content, old_str);
    let Some(&at) = positions.first() else {
        return Err(messages::str_replace_not_found(old_str, spelled));
    };
    if positions.len() > 1 {
        let lines = starting_lines(&content, &positions)
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        return Err(messages::str_replace_multiple(old_str, &lines));
    }
    let mut edited = String::with_capacity(content.len() - old_str.len() + new_str.len());
    edited.push_str(&content[..at]);
    edited.push_str(new_str);
    edited.push_str(&content[at + old_str.len()..]);
    write_back(&located, spelled, "str_replace", &edited)?;

    let first_changed = 1 + content[..at].bytes().filter(|&b| b == b'\n').count();
    let last_changed = first_changed + new_str.bytes().filter(|&b| b == b'\n').count();
    let n_lines = text::line_count(&edited);
    let from = first_changed.saturating_sub(SNIPPET_CONTEXT).max(1);
    let to = (last_changed + SNIPPET_CONTEXT).min(n_lines);
    let mut out = String::from(messages::STR_REPLACE_OK);
    if from <= to {
        let shown = text::lines(&edited).skip(from - 1).take(to + 1 - from);
        text::push_numbered(&mut out, from, shown);
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
    let (located, content) = read_text(reference, spelled, messages::insert_missing)?;
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

/// Locates a file for a read-modify-write command and reads it as UTF-8.
fn read_text(
    reference: &Reference,
    spelled: &str,
    missing: fn(&str) -> String,
) -> Result<(Located, String), String> {
    let located = locate(reference, spelled, missing)?;
    if let Some(refusal) = refuse_leaf(&located, spelled, missing) {
        return Err(refusal);
    }
    // A folder, including /memories itself, "does not exist" as a file (the spec's wording).
    let (Some(name), Kind::File) = (&located.name, located.kind) else {
        return Err(missing(spelled));
    };
    let bytes = confine::read_file(&located.parent, name)
        .map_err(|e| read_refusal(e, spelled, "read", missing))?;
    let content = String::from_utf8(bytes).map_err(|_| messages::not_utf8(spelled))?;
    Ok((located, content))
}

fn write_back(
    located: &Located,
    spelled: &str,
    command: &str,
    content: &str,
) -> Result<(), String> {
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

/// Byte offsets of every occurrence of `needle`, overlapping ones included
/// (`decide.str-replace-occurrences`).
fn occurrences(haystack: &str, needle: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let step = needle.chars().next().map_or(1, char::len_utf8);
    let mut from = 0;
    while let Some(offset) = haystack[from..].find(needle) {
        found.push(from + offset);
        from += offset + step;
        if from > haystack.len() {
            break;
        }
    }
    found
}

/// The distinct 1-indexed lines on which the occurrences at `positions` (ascending) start.
fn starting_lines(content: &str, positions: &[usize]) -> Vec<usize> {
    let mut lines: Vec<usize> = Vec::new();
    let (mut line, mut scanned) = (1, 0);
    for &pos in positions {
        line += content[scanned..pos]
            .bytes()
            .filter(|&b| b == b'\n')
            .count();
        scanned = pos;
        if lines.last() != Some(&line) {
            lines.push(line);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_overlapping_occurrences() {
        assert_eq!(occurrences("aaa", "aa"), [0, 1]);
        assert_eq!(occurrences("x x\nx", "x"), [0, 2, 4]);
        assert_eq!(occurrences("héhé", "é"), [1, 4]);
        assert!(occurrences("abc", "d").is_empty());
        assert_eq!(starting_lines("x x\nx", &[0, 2, 4]), [1, 2]);
    }
}
