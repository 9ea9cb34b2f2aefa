//! Every string the reference answers, as a catalogue for authors of a backend (`memspec spec
//! strings`). It is built by calling [`super::messages`] itself with placeholders for what an
//! answer echoes (`{path}`, `{old_str}`), so it cannot drift from what the reference says; a
//! number an answer counts is shown with an example value, named in `when`.

use serde::Serialize;

use super::messages as m;
use super::path::PathRejection;

/// One string of the catalogue.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// The command that answers it (`view`, `create`, …, or `any` for a path of any command).
    pub command: &'static str,
    /// When it is answered.
    pub when: String,
    /// Whether it is an error (`is_error: true`).
    pub is_error: bool,
    /// The rule it follows: the page's rule for the spec's own strings, the decision
    /// (`decide.*`) behind one the reference chose.
    pub rule: String,
    /// The text, with placeholders.
    pub text: String,
}

fn entry(command: &'static str, when: impl Into<String>, is_error: bool, said: m::Said) -> Entry {
    Entry {
        command,
        when: when.into(),
        is_error,
        rule: said.rule.to_string(),
        text: said.text,
    }
}

/// Every reason a path is refused for, in the order the grammar checks them.
const REJECTIONS: [PathRejection; 8] = [
    PathRejection::OutsideMemories,
    PathRejection::DotSegment,
    PathRejection::Backslash,
    PathRejection::ControlCharacter,
    PathRejection::EncodedTraversal,
    PathRejection::LookAlike,
    PathRejection::TooLong,
    PathRejection::ComponentTooLong,
];

/// The catalogue, command by command: the spec's strings first, then the reference's own.
pub fn catalogue() -> Vec<Entry> {
    let (p, old, new) = ("{path}", "{old_path}", "{new_path}");
    let mut all = vec![
        entry(
            "view",
            "a folder: this header, then one line per entry (`{size}\\t{path}`), two levels deep",
            false,
            m::view_dir_header(p),
        ),
        entry(
            "view",
            "a file: this header, then its lines numbered (`{n:>6}\\t{line}`)",
            false,
            m::view_file_header(p),
        ),
        entry(
            "view",
            "a path that does not exist",
            true,
            m::view_missing(p),
        ),
        entry(
            "view",
            "a file of more than 999,999 lines",
            true,
            m::view_too_many_lines(p),
        ),
        entry(
            "view",
            "`view_range` on a folder",
            true,
            m::view_range_on_dir(),
        ),
        entry(
            "view",
            "`view_range` [5, 9] on a file of 3 lines",
            true,
            m::view_range_bad_start(5, 9, 3),
        ),
        entry(
            "view",
            "`view_range` [1, 9] on a file of 3 lines",
            true,
            m::view_range_bad_end(1, 9, 3),
        ),
        entry(
            "view",
            "`view_range` [3, 2]",
            true,
            m::view_range_reversed(3, 2),
        ),
        entry(
            "view",
            "(ga-2026) a file over 16,000 characters viewed without `view_range`: appended after the whole lines shown (e.g. 120 of 400 lines, the next part 121-240)",
            false,
            m::view_truncated(p, 120, 400, 240),
        ),
        entry(
            "view",
            "an image over 3,932,160 bytes (e.g. 4,000,000)",
            true,
            m::image_too_big(p, 4_000_000),
        ),
        entry("create", "success", false, m::create_ok(p)),
        entry(
            "create",
            "the path exists (a file, a folder, or /memories)",
            true,
            m::create_exists(p),
        ),
        entry(
            "create",
            "the path ends with a slash",
            true,
            m::create_trailing_slash(p),
        ),
        entry(
            "create",
            "a folder above it is a file ({parent})",
            true,
            m::create_parent_not_dir(p, "{parent}"),
        ),
        entry(
            "str_replace",
            "success: this line, then the edited lines with 4 lines around them, numbered as view numbers them",
            false,
            m::str_replace_ok(),
        ),
        entry(
            "str_replace",
            "the path does not exist, or is a folder",
            true,
            m::str_replace_missing(p),
        ),
        entry(
            "str_replace",
            "`old_str` does not occur",
            true,
            m::str_replace_not_found("{old_str}", p),
        ),
        entry(
            "str_replace",
            "`old_str` occurs more than once ({lines}: the numbers of the lines it starts on, `, `-joined)",
            true,
            m::str_replace_multiple("{old_str}", "{lines}"),
        ),
        entry(
            "str_replace",
            "`old_str` is empty",
            true,
            m::str_replace_empty_old(p),
        ),
        entry("insert", "success", false, m::insert_ok(p)),
        entry(
            "insert",
            "the path does not exist, or is a folder",
            true,
            m::insert_missing(p),
        ),
        entry(
            "insert",
            "`insert_line` 7 in a file of 3 lines (valid: 0 to the line count)",
            true,
            m::insert_invalid_line(7, 3),
        ),
        entry(
            "delete",
            "success (a folder with everything in it)",
            false,
            m::delete_ok(p),
        ),
        entry(
            "delete",
            "the path does not exist",
            true,
            m::delete_missing(p),
        ),
        entry(
            "delete",
            "/memories itself, in any spelling",
            true,
            m::delete_root(),
        ),
        entry("rename", "success", false, m::rename_ok(old, new)),
        entry(
            "rename",
            "`old_path` does not exist",
            true,
            m::rename_missing(old),
        ),
        entry(
            "rename",
            "`new_path` exists (never overwritten)",
            true,
            m::rename_exists(new),
        ),
        entry(
            "rename",
            "/memories itself, in any spelling",
            true,
            m::rename_root(),
        ),
        entry(
            "rename",
            "a folder into itself or below itself",
            true,
            m::rename_into_itself(old, new),
        ),
        entry(
            "rename",
            "a file onto a path ending with a slash",
            true,
            m::rename_trailing_slash(old, new),
        ),
        entry(
            "rename",
            "a folder above `new_path` is a file ({parent})",
            true,
            m::rename_parent_not_dir(new, "{parent}"),
        ),
    ];
    for why in REJECTIONS {
        all.push(entry(
            "any",
            format!("a path refused: {why:?}"),
            true,
            m::invalid_path(p, why.reason()),
        ));
    }
    all.extend([
        entry(
            "any",
            "a path that meets a symbolic link ({link})",
            true,
            m::symlink_refused(p, "{link}"),
        ),
        entry("any", "a FIFO, socket or device", true, m::not_regular(p)),
        entry(
            "any",
            "a file with other hard links",
            true,
            m::hard_linked(p),
        ),
        entry(
            "any",
            "a file that is not UTF-8 (view, str_replace, insert)",
            true,
            m::not_utf8(p),
        ),
    ]);
    all
}

/// The catalogue as text: command by command, each string's situation, flag and rule, then
/// its text as a JSON string (every byte shown: `\n`, `\t`, quotes escaped).
pub fn render(entries: &[Entry]) -> String {
    let mut out = String::from(
        "The strings the reference answers, byte for byte: {…} is echoed from the call (as Claude spelled it), a number is an example.\n",
    );
    let mut command = "";
    for entry in entries {
        if entry.command != command {
            command = entry.command;
            out.push_str(&format!("\n{command}\n"));
        }
        let text = serde_json::Value::String(entry.text.clone()).to_string();
        out.push_str(&format!(
            "  {} ({}, {})\n    {text}\n",
            entry.when,
            if entry.is_error {
                "is_error"
            } else {
                "success"
            },
            entry.rule
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_has_its_placeholders_and_a_rule() {
        let all = catalogue();
        assert!(all.len() > 40, "{}", all.len());
        assert!(all.iter().all(|e| !e.text.is_empty() && !e.rule.is_empty()));
        let exists = all
            .iter()
            .find(|e| e.command == "create" && e.is_error && e.when.starts_with("the path exists"))
            .map(|e| e.text.as_str());
        assert_eq!(exists, Some("Error: File {path} already exists"));
    }
}
