//! Every string the reference returns, in one place.
//!
//! The first group is the spec's own text, byte for byte, including its inconsistent `Error: `
//! prefixes (view's missing-path message has none, str_replace's has one; insert's lacks "Please
//! provide a valid path."). The second group is what the reference decided where the spec is
//! silent; each of those starts with `Error: `, the prefix most of the spec's errors carry, and is
//! recorded with its reason in `spec/decisions.json`.
//!
//! Each function returns a [`Said`]: the text together with the rule it follows, so that whoever
//! needs to know which rule an answer follows (replay, when it names the rule a difference
//! breaks) reads it here instead of searching the text. A rewording changes the text only.

use crate::diff::thousands;
use crate::protocol::Image;
use crate::spec::{RuleId, known};

/// A text of the reference and the rule it follows: the spec's rule that prescribes the string
/// or format, or the decision (`decide.*`) behind a string the reference chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    /// What the reference answers.
    pub text: String,
    /// The rule that text follows.
    pub rule: RuleId,
    /// The image shown instead of the text where content blocks can carry it (a view of a
    /// PNG or JPEG file); the text then describes it.
    pub image: Option<Image>,
}

fn said(text: impl Into<String>, rule: RuleId) -> Said {
    Said {
        text: text.into(),
        rule,
        image: None,
    }
}

// ---- The spec's strings -------------------------------------------------------------------

/// Header of a folder listing; the listed lines follow (`view.dir.header`).
pub fn view_dir_header(path: &str) -> Said {
    said(
        format!(
            "Here're the files and directories up to 2 levels deep in {path}, excluding hidden items and node_modules:"
        ),
        known::VIEW_DIR_HEADER,
    )
}

/// Header of a file view; the numbered lines follow (`view.file.header`).
pub fn view_file_header(path: &str) -> Said {
    said(
        format!("Here's the content of {path} with line numbers:"),
        known::VIEW_FILE_HEADER,
    )
}

/// A file with more than 999,999 lines.
pub fn view_too_many_lines(path: &str) -> Said {
    said(
        format!("File {path} exceeds maximum line limit of 999,999 lines."),
        known::VIEW_LINE_LIMIT_MESSAGE,
    )
}

/// view of a missing path (no `Error: ` prefix, as the spec writes it).
pub fn view_missing(path: &str) -> Said {
    said(
        format!("The path {path} does not exist. Please provide a valid path."),
        known::VIEW_MISSING,
    )
}

/// create succeeded.
pub fn create_ok(path: &str) -> Said {
    said(
        format!("File created successfully at: {path}"),
        known::CREATE_SUCCESS,
    )
}

/// create onto an existing entry (a file, a folder or `/memories` itself).
pub fn create_exists(path: &str) -> Said {
    said(
        format!("Error: File {path} already exists"),
        known::CREATE_EXISTS,
    )
}

/// str_replace succeeded; a numbered snippet follows on the next lines.
pub fn str_replace_ok() -> Said {
    said(
        "The memory file has been edited.",
        known::STR_REPLACE_SUCCESS,
    )
}

/// str_replace on a missing path.
pub fn str_replace_missing(path: &str) -> Said {
    said(
        format!("Error: The path {path} does not exist. Please provide a valid path."),
        known::STR_REPLACE_MISSING,
    )
}

/// str_replace on a folder: the does-not-exist error, as the spec prescribes for folders.
pub fn str_replace_on_dir(path: &str) -> Said {
    said(str_replace_missing(path).text, known::STR_REPLACE_DIRECTORY)
}

/// str_replace whose `old_str` does not occur.
pub fn str_replace_not_found(old_str: &str, path: &str) -> Said {
    said(
        format!(
            "No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}."
        ),
        known::STR_REPLACE_NOT_FOUND,
    )
}

/// str_replace whose `old_str` occurs more than once; `lines` is already joined with `, `.
pub fn str_replace_multiple(old_str: &str, lines: &str) -> Said {
    said(
        format!(
            "No replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: {lines}. Please ensure it is unique"
        ),
        known::STR_REPLACE_MULTIPLE,
    )
}

/// insert succeeded.
pub fn insert_ok(path: &str) -> Said {
    said(
        format!("The file {path} has been edited."),
        known::INSERT_SUCCESS,
    )
}

/// insert on a missing path.
pub fn insert_missing(path: &str) -> Said {
    said(
        format!("Error: The path {path} does not exist"),
        known::INSERT_MISSING,
    )
}

/// insert on a folder: the does-not-exist error, as the spec prescribes for folders.
pub fn insert_on_dir(path: &str) -> Said {
    said(insert_missing(path).text, known::INSERT_DIRECTORY)
}

/// insert with `insert_line` outside `[0, n_lines]`.
pub fn insert_invalid_line(insert_line: i128, n_lines: usize) -> Said {
    said(
        format!(
            "Error: Invalid `insert_line` parameter: {insert_line}. It should be within the range of lines of the file: [0, {n_lines}]"
        ),
        known::INSERT_INVALID_LINE,
    )
}

/// delete succeeded.
pub fn delete_ok(path: &str) -> Said {
    said(
        format!("Successfully deleted {path}"),
        known::DELETE_SUCCESS,
    )
}

/// delete of a missing path.
pub fn delete_missing(path: &str) -> Said {
    said(
        format!("Error: The path {path} does not exist"),
        known::DELETE_MISSING,
    )
}

/// rename succeeded.
pub fn rename_ok(old_path: &str, new_path: &str) -> Said {
    said(
        format!("Successfully renamed {old_path} to {new_path}"),
        known::RENAME_SUCCESS,
    )
}

/// rename of a missing source.
pub fn rename_missing(old_path: &str) -> Said {
    said(
        format!("Error: The path {old_path} does not exist"),
        known::RENAME_MISSING,
    )
}

/// rename onto an existing destination (`/memories` itself included, `decide.root-rename`).
pub fn rename_exists(new_path: &str) -> Said {
    said(
        format!("Error: The destination {new_path} already exists"),
        known::RENAME_EXISTS,
    )
}

// ---- The reference's decisions (spec/decisions.json) --------------------------------------

/// A path refused by the grammar in [`super::path`].
pub fn invalid_path(path: &str, reason: &str) -> Said {
    said(
        format!(
            "Error: The path {} is not a valid memory path: {reason}.",
            printable(path)
        ),
        known::PATH_GRAMMAR,
    )
}

/// A path that meets a symbolic link; the reference never follows one.
pub fn symlink_refused(path: &str, link: &str) -> Said {
    said(
        format!(
            "Error: The path {path} goes through the symbolic link {link}; the memory tool does not follow symbolic links."
        ),
        known::SYMLINKS,
    )
}

/// A path that names something other than a file or folder (FIFO, socket, device).
pub fn not_regular(path: &str) -> Said {
    said(
        format!("Error: The path {path} is not a regular file or folder."),
        known::SPECIAL_FILES,
    )
}

/// A file with other hard links, whose other names may lie outside the root.
pub fn hard_linked(path: &str) -> Said {
    said(
        format!(
            "Error: The file {path} has other hard links, which may lie outside /memories; the memory tool does not read or edit it."
        ),
        known::HARD_LINKS,
    )
}

/// A file whose bytes are not UTF-8; read-only refusal so that no edit can corrupt it.
pub fn not_utf8(path: &str) -> Said {
    said(
        format!(
            "Error: The file {path} is not valid UTF-8 text; the memory tool only reads and edits UTF-8 text files."
        ),
        known::NON_UTF8,
    )
}

/// `view_range` that is not a list of two integers; `text` is the parser's ([`Command::parse`]).
///
/// [`Command::parse`]: crate::protocol::Command::parse
pub fn view_range_malformed(text: String) -> Said {
    said(text, known::VIEW_RANGE)
}

/// `view_range` on a folder (text editor tool wording).
pub fn view_range_on_dir() -> Said {
    said(
        "Error: The `view_range` parameter is not allowed when `path` points to a directory.",
        known::VIEW_RANGE,
    )
}

/// `view_range` start outside `[1, n_lines]` (text editor tool wording).
pub fn view_range_bad_start(start: i128, end: i128, n_lines: usize) -> Said {
    said(
        format!(
            "Error: Invalid `view_range`: [{start}, {end}]. Its first element `{start}` should be within the range of lines of the file: [1, {n_lines}]"
        ),
        known::VIEW_RANGE,
    )
}

/// `view_range` end past the last line (text editor tool wording).
pub fn view_range_bad_end(start: i128, end: i128, n_lines: usize) -> Said {
    said(
        format!(
            "Error: Invalid `view_range`: [{start}, {end}]. Its second element `{end}` should be smaller than the number of lines in the file: `{n_lines}`"
        ),
        known::VIEW_RANGE,
    )
}

/// `view_range` end before its start (text editor tool wording).
pub fn view_range_reversed(start: i128, end: i128) -> Said {
    said(
        format!(
            "Error: Invalid `view_range`: [{start}, {end}]. Its second element `{end}` should be larger or equal than its first `{start}`"
        ),
        known::VIEW_RANGE,
    )
}

/// How many characters of a file a view without `view_range` shows under `ga-2026`: Claude's
/// tool description says view "truncates the text view of files longer than 16,000 characters".
pub const VIEW_CHAR_BUDGET: usize = 16_000;

/// The notice that ends a view cut at [`VIEW_CHAR_BUDGET`] (`decide.long-views`), appended
/// after the last line shown. `shown` lines of `n_lines` were shown; the next part is lines
/// `shown + 1 ..= next_end` (`next_end == n_lines` when the rest fits in one part). It names
/// the exact `view_range` to send next, as Claude would write it, and the file's line count.
pub fn view_truncated(path: &str, shown: usize, n_lines: usize, next_end: usize) -> Said {
    let next = shown + 1;
    let what = if shown == 0 {
        format!(
            "this view shows none of them: line 1 alone is longer than {} characters",
            thousands(VIEW_CHAR_BUDGET)
        )
    } else {
        format!(
            "this view shows lines 1-{shown}, the whole lines within its first {} characters",
            thousands(VIEW_CHAR_BUDGET)
        )
    };
    let how = if next_end >= n_lines {
        format!("To read the rest, view {path} with \"view_range\": [{next}, -1].")
    } else {
        format!(
            "To read on, view {path} with \"view_range\": [{next}, {next_end}] for the next part, or [{next}, -1] for everything to the end."
        )
    };
    said(
        format!("\n\n[Truncated: the file has {n_lines} lines and {what}. {how}]"),
        known::LONG_VIEWS,
    )
}

/// Largest image file a view shows, in bytes: 3.75 MiB, whose base64 form is exactly the
/// 5 MiB (5,242,880 bytes of base64) that the Messages API accepts for one image.
pub const MAX_IMAGE_BYTES: u64 = 3_932_160;

/// A view of an image file (`decide.image-view`): the image, described in the text.
pub fn view_image(image: Image) -> Said {
    Said {
        text: image.describe(),
        rule: known::IMAGE_VIEW,
        image: Some(image),
    }
}

/// A view of an image file over [`MAX_IMAGE_BYTES`].
pub fn image_too_big(path: &str, size: u64) -> Said {
    said(
        format!(
            "Error: The image {path} is {} bytes; the memory tool shows images of at most {} bytes (3.75 MiB), since a larger one exceeds the 5 MB image limit of the Messages API once encoded.",
            thousands(usize::try_from(size).unwrap_or(usize::MAX)),
            thousands(MAX_IMAGE_BYTES as usize)
        ),
        known::IMAGE_VIEW,
    )
}

/// create with a trailing slash: it would name a folder.
pub fn create_trailing_slash(path: &str) -> Said {
    said(
        format!("Error: The path {path} ends with a slash; create makes files, not folders."),
        known::CREATE_TRAILING_SLASH,
    )
}

/// create below something that is not a folder.
pub fn create_parent_not_dir(path: &str, parent: &str) -> Said {
    said(
        format!("Error: Cannot create {path}: {parent} is not a folder."),
        known::CREATE_PARENT_NOT_FOLDER,
    )
}

/// str_replace with an empty `old_str`, which would match everywhere.
pub fn str_replace_empty_old(path: &str) -> Said {
    said(
        format!("Error: No replacement was performed on {path}: `old_str` must not be empty."),
        known::STR_REPLACE_EMPTY_OLD_STR,
    )
}

/// delete of `/memories` in any spelling (the official SDK helpers' wording, with the prefix).
pub fn delete_root() -> Said {
    said(
        "Error: Cannot delete the /memories directory itself",
        known::ROOT_DELETE,
    )
}

/// rename of `/memories` in any spelling (the official SDK helpers' wording, with the prefix).
pub fn rename_root() -> Said {
    said(
        "Error: Cannot rename the /memories directory itself",
        known::ROOT_RENAME,
    )
}

/// rename of a folder into itself or below itself.
pub fn rename_into_itself(old_path: &str, new_path: &str) -> Said {
    said(
        format!("Error: Cannot move {old_path} into itself ({new_path})."),
        known::RENAME_INTO_ITSELF,
    )
}

/// rename of a file onto a path with a trailing slash, which names a folder.
pub fn rename_trailing_slash(old_path: &str, new_path: &str) -> Said {
    said(
        format!(
            "Error: Cannot rename {old_path} to {new_path}: the destination ends with a slash, which names a folder, and {old_path} is a file."
        ),
        known::TRAILING_SLASH,
    )
}

/// rename whose destination's parent is a file.
pub fn rename_parent_not_dir(new_path: &str, parent: &str) -> Said {
    said(
        format!("Error: Cannot rename to {new_path}: {parent} is not a folder."),
        known::RENAME_PARENTS,
    )
}

/// An operating-system error the spec has no words for; carries no host path.
pub fn io_failure(command: &str, path: &str, err: &std::io::Error) -> Said {
    said(
        format!("Error: The {command} of {path} failed: {err}"),
        known::IO_FAILURE,
    )
}

/// Input that is not a valid command; `text` is the parser's ([`Command::parse`]).
///
/// [`Command::parse`]: crate::protocol::Command::parse
pub fn malformed_input(text: String) -> Said {
    said(text, known::MALFORMED_INPUT)
}

/// Paths are echoed as Claude spelled them, but control characters are escaped so that an
/// error about a NUL byte is itself printable.
pub fn printable(path: &str) -> std::borrow::Cow<'_, str> {
    if path.chars().any(char::is_control) {
        let mut out = String::with_capacity(path.len() + 8);
        for c in path.chars() {
            if c.is_control() {
                out.extend(c.escape_default());
            } else {
                out.push(c);
            }
        }
        std::borrow::Cow::Owned(out)
    } else {
        std::borrow::Cow::Borrowed(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Revision, Spec};

    /// Every message the reference can answer, one of each.
    fn every_message() -> Vec<Said> {
        let p = "/memories/a";
        let err = std::io::Error::other("boom");
        vec![
            view_dir_header(p),
            view_file_header(p),
            view_too_many_lines(p),
            view_missing(p),
            create_ok(p),
            create_exists(p),
            str_replace_ok(),
            str_replace_missing(p),
            str_replace_on_dir(p),
            str_replace_not_found("x", p),
            str_replace_multiple("x", "1, 2"),
            insert_ok(p),
            insert_missing(p),
            insert_on_dir(p),
            insert_invalid_line(9, 1),
            delete_ok(p),
            delete_missing(p),
            rename_ok(p, p),
            rename_missing(p),
            rename_exists(p),
            invalid_path(p, "why"),
            symlink_refused(p, p),
            not_regular(p),
            hard_linked(p),
            not_utf8(p),
            view_range_malformed(String::new()),
            view_range_on_dir(),
            view_range_bad_start(0, 1, 1),
            view_range_bad_end(1, 2, 1),
            view_range_reversed(2, 1),
            create_trailing_slash(p),
            create_parent_not_dir(p, p),
            str_replace_empty_old(p),
            delete_root(),
            rename_root(),
            rename_into_itself(p, p),
            rename_trailing_slash(p, p),
            rename_parent_not_dir(p, p),
            io_failure("view", p, &err),
            malformed_input(String::new()),
            image_too_big(p, 1 << 30),
        ]
    }

    /// The reference's texts that are not errors but follow a decision.
    fn every_notice() -> Vec<Said> {
        let png = Image {
            media_type: "image/png".to_string(),
            data: vec![0; 3],
        };
        vec![view_truncated("/memories/a", 3, 9, 6), view_image(png)]
    }

    #[test]
    fn truncation_notice_names_the_next_range_and_the_line_count() {
        let p = "/memories/big.txt";
        assert_eq!(
            view_truncated(p, 380, 2000, 760).text,
            "\n\n[Truncated: the file has 2000 lines and this view shows lines 1-380, the whole lines within its first 16,000 characters. To read on, view /memories/big.txt with \"view_range\": [381, 760] for the next part, or [381, -1] for everything to the end.]"
        );
        assert_eq!(
            view_truncated(p, 380, 500, 500).text,
            "\n\n[Truncated: the file has 500 lines and this view shows lines 1-380, the whole lines within its first 16,000 characters. To read the rest, view /memories/big.txt with \"view_range\": [381, -1].]"
        );
        assert_eq!(
            view_truncated(p, 0, 3, 1).text,
            "\n\n[Truncated: the file has 3 lines and this view shows none of them: line 1 alone is longer than 16,000 characters. To read on, view /memories/big.txt with \"view_range\": [1, 1] for the next part, or [1, -1] for everything to the end.]"
        );
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(3_932_160), "3,932,160");
    }

    /// Every rule an answer can follow is a rule of the built-in spec, and one the code names
    /// (so a spec without it is refused at load).
    #[test]
    fn every_rule_said_is_in_the_built_in_spec() {
        for revision in Revision::ALL {
            let spec = Spec::builtin(revision).expect("built-in spec");
            for said in every_message().into_iter().chain(every_notice()) {
                // A rule of another revision only (the long-view notice is ga-2026's) is known.
                let known = spec.get(said.rule.as_str()).is_some()
                    || spec.elsewhere(said.rule.as_str()).is_some();
                assert!(
                    known,
                    "{:?} follows {}, which spec/ lacks under {revision}",
                    said.text, said.rule
                );
            }
        }
        for said in every_message().into_iter().chain(every_notice()) {
            assert!(
                known::ALL.contains(&said.rule),
                "{} is not in known::ALL",
                said.rule
            );
        }
    }

    /// Decisions are the reference's wordings, each starting with `Error: ` (the module's
    /// promise); the spec's own strings are the rest.
    #[test]
    fn decisions_word_errors_with_the_prefix() {
        for said in every_message() {
            if said.rule.is_decision() && !said.text.is_empty() {
                assert!(said.text.starts_with("Error: "), "{:?}", said.text);
            }
        }
    }
}
