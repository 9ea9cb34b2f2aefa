//! Every string the reference returns, in one place.
//!
//! The first group is the spec's own text, byte for byte, including its inconsistent `Error: `
//! prefixes (view's missing-path message has none, str_replace's has one; insert's lacks "Please
//! provide a valid path."). The second group is what the reference decided where the spec is
//! silent; each of those starts with `Error: `, the prefix most of the spec's errors carry, and is
//! recorded with its reason in `spec/decisions.json`.

// ---- The spec's strings -------------------------------------------------------------------

/// Header of a folder listing.
pub fn view_dir_header(path: &str) -> String {
    format!(
        "Here're the files and directories up to 2 levels deep in {path}, excluding hidden items and node_modules:"
    )
}

/// Header of a file view.
pub fn view_file_header(path: &str) -> String {
    format!("Here's the content of {path} with line numbers:")
}

/// A file with more than 999,999 lines.
pub fn view_too_many_lines(path: &str) -> String {
    format!("File {path} exceeds maximum line limit of 999,999 lines.")
}

/// view of a missing path (no `Error: ` prefix, as the spec writes it).
pub fn view_missing(path: &str) -> String {
    format!("The path {path} does not exist. Please provide a valid path.")
}

/// create succeeded.
pub fn create_ok(path: &str) -> String {
    format!("File created successfully at: {path}")
}

/// create onto an existing entry.
pub fn create_exists(path: &str) -> String {
    format!("Error: File {path} already exists")
}

/// str_replace succeeded; a numbered snippet follows on the next lines.
pub const STR_REPLACE_OK: &str = "The memory file has been edited.";

/// str_replace on a missing path or a folder.
pub fn str_replace_missing(path: &str) -> String {
    format!("Error: The path {path} does not exist. Please provide a valid path.")
}

/// str_replace whose `old_str` does not occur.
pub fn str_replace_not_found(old_str: &str, path: &str) -> String {
    format!("No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}.")
}

/// str_replace whose `old_str` occurs more than once; `lines` is already joined with `, `.
pub fn str_replace_multiple(old_str: &str, lines: &str) -> String {
    format!(
        "No replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: {lines}. Please ensure it is unique"
    )
}

/// insert succeeded.
pub fn insert_ok(path: &str) -> String {
    format!("The file {path} has been edited.")
}

/// insert on a missing path or a folder.
pub fn insert_missing(path: &str) -> String {
    format!("Error: The path {path} does not exist")
}

/// insert with `insert_line` outside `[0, n_lines]`.
pub fn insert_invalid_line(insert_line: i128, n_lines: usize) -> String {
    format!(
        "Error: Invalid `insert_line` parameter: {insert_line}. It should be within the range of lines of the file: [0, {n_lines}]"
    )
}

/// delete succeeded.
pub fn delete_ok(path: &str) -> String {
    format!("Successfully deleted {path}")
}

/// delete of a missing path.
pub fn delete_missing(path: &str) -> String {
    format!("Error: The path {path} does not exist")
}

/// rename succeeded.
pub fn rename_ok(old_path: &str, new_path: &str) -> String {
    format!("Successfully renamed {old_path} to {new_path}")
}

/// rename of a missing source.
pub fn rename_missing(old_path: &str) -> String {
    format!("Error: The path {old_path} does not exist")
}

/// rename onto an existing destination.
pub fn rename_exists(new_path: &str) -> String {
    format!("Error: The destination {new_path} already exists")
}

// ---- The reference's decisions (spec/decisions.json) --------------------------------------

/// A path refused by the grammar in [`super::path`].
pub fn invalid_path(path: &str, reason: &str) -> String {
    format!(
        "Error: The path {} is not a valid memory path: {reason}.",
        printable(path)
    )
}

/// A path that meets a symbolic link; the reference never follows one.
pub fn symlink_refused(path: &str, link: &str) -> String {
    format!(
        "Error: The path {path} goes through the symbolic link {link}; the memory tool does not follow symbolic links."
    )
}

/// A path that names something other than a file or folder (FIFO, socket, device).
pub fn not_regular(path: &str) -> String {
    format!("Error: The path {path} is not a regular file or folder.")
}

/// A file with other hard links, whose other names may lie outside the root.
pub fn hard_linked(path: &str) -> String {
    format!(
        "Error: The file {path} has other hard links, which may lie outside /memories; the memory tool does not read or edit it."
    )
}

/// A file whose bytes are not UTF-8; read-only refusal so that no edit can corrupt it.
pub fn not_utf8(path: &str) -> String {
    format!(
        "Error: The file {path} is not valid UTF-8 text; the memory tool only reads and edits UTF-8 text files."
    )
}

/// `view_range` on a folder (text editor tool wording).
pub fn view_range_on_dir() -> &'static str {
    "Error: The `view_range` parameter is not allowed when `path` points to a directory."
}

/// `view_range` start outside `[1, n_lines]` (text editor tool wording).
pub fn view_range_bad_start(start: i128, end: i128, n_lines: usize) -> String {
    format!(
        "Error: Invalid `view_range`: [{start}, {end}]. Its first element `{start}` should be within the range of lines of the file: [1, {n_lines}]"
    )
}

/// `view_range` end past the last line (text editor tool wording).
pub fn view_range_bad_end(start: i128, end: i128, n_lines: usize) -> String {
    format!(
        "Error: Invalid `view_range`: [{start}, {end}]. Its second element `{end}` should be smaller than the number of lines in the file: `{n_lines}`"
    )
}

/// `view_range` end before its start (text editor tool wording).
pub fn view_range_reversed(start: i128, end: i128) -> String {
    format!(
        "Error: Invalid `view_range`: [{start}, {end}]. Its second element `{end}` should be larger or equal than its first `{start}`"
    )
}

/// create with a trailing slash: it would name a folder.
pub fn create_trailing_slash(path: &str) -> String {
    format!("Error: The path {path} ends with a slash; create makes files, not folders.")
}

/// create below something that is not a folder.
pub fn create_parent_not_dir(path: &str, parent: &str) -> String {
    format!("Error: Cannot create {path}: {parent} is not a folder.")
}

/// str_replace with an empty `old_str`, which would match everywhere.
pub fn str_replace_empty_old(path: &str) -> String {
    format!("Error: No replacement was performed on {path}: `old_str` must not be empty.")
}

/// delete of `/memories` in any spelling (the official SDK helpers' wording, with the prefix).
pub const DELETE_ROOT: &str = "Error: Cannot delete the /memories directory itself";

/// rename of `/memories` in any spelling (the official SDK helpers' wording, with the prefix).
pub const RENAME_ROOT: &str = "Error: Cannot rename the /memories directory itself";

/// rename of a folder into itself or below itself.
pub fn rename_into_itself(old_path: &str, new_path: &str) -> String {
    format!("Error: Cannot move {old_path} into itself ({new_path}).")
}

/// rename of a file onto a path with a trailing slash, which names a folder.
pub fn rename_trailing_slash(old_path: &str, new_path: &str) -> String {
    format!(
        "Error: Cannot rename {old_path} to {new_path}: the destination ends with a slash, which names a folder, and {old_path} is a file."
    )
}

/// rename whose destination's parent is a file.
pub fn rename_parent_not_dir(new_path: &str, parent: &str) -> String {
    format!("Error: Cannot rename to {new_path}: {parent} is not a folder.")
}

/// An operating-system error the spec has no words for; carries no host path.
pub fn io_failure(command: &str, path: &str, err: &std::io::Error) -> String {
    format!("Error: The {command} of {path} failed: {err}")
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
