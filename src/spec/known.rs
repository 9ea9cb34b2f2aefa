//! The rule ids the code names itself, rather than reading them from a case.

use super::RuleId;

/// Nothing outside the memory folder is read, written, listed, renamed or deleted.
pub const CONFINEMENT: RuleId = RuleId::known("confinement.all-operations");
/// Error texts name memory paths, never host paths.
pub const NO_HOST_PATHS: RuleId = RuleId::known("errors.no-host-paths");
/// Every error carries `is_error: true`.
pub const IS_ERROR_FLAG: RuleId = RuleId::known("errors.is-error-flag");
/// Every input gets an answer.
pub const TERMINATES: RuleId = RuleId::known("errors.terminates");

// ---- The spec's strings and formats the reference's answers follow (`spec/rules.json`).

/// A folder listing: its header line, then the listed lines.
pub const VIEW_DIR_HEADER: RuleId = RuleId::known("view.dir.header");
/// A file view: its header line, then the numbered lines.
pub const VIEW_FILE_HEADER: RuleId = RuleId::known("view.file.header");
/// A file of more than 999,999 lines.
pub const VIEW_LINE_LIMIT_MESSAGE: RuleId = RuleId::known("view.file.line-limit.message");
/// view of a path that does not exist.
pub const VIEW_MISSING: RuleId = RuleId::known("view.missing");
/// A successful create.
pub const CREATE_SUCCESS: RuleId = RuleId::known("create.success");
/// create onto an existing path.
pub const CREATE_EXISTS: RuleId = RuleId::known("create.exists");
/// A successful str_replace.
pub const STR_REPLACE_SUCCESS: RuleId = RuleId::known("str-replace.success");
/// str_replace on a path that does not exist.
pub const STR_REPLACE_MISSING: RuleId = RuleId::known("str-replace.missing");
/// str_replace on a folder.
pub const STR_REPLACE_DIRECTORY: RuleId = RuleId::known("str-replace.directory");
/// str_replace whose `old_str` does not occur.
pub const STR_REPLACE_NOT_FOUND: RuleId = RuleId::known("str-replace.not-found");
/// str_replace whose `old_str` occurs more than once.
pub const STR_REPLACE_MULTIPLE: RuleId = RuleId::known("str-replace.multiple");
/// A successful insert.
pub const INSERT_SUCCESS: RuleId = RuleId::known("insert.success");
/// insert on a path that does not exist.
pub const INSERT_MISSING: RuleId = RuleId::known("insert.missing");
/// insert on a folder.
pub const INSERT_DIRECTORY: RuleId = RuleId::known("insert.directory");
/// insert with `insert_line` out of range.
pub const INSERT_INVALID_LINE: RuleId = RuleId::known("insert.invalid-line");
/// A successful delete.
pub const DELETE_SUCCESS: RuleId = RuleId::known("delete.success");
/// delete of a path that does not exist.
pub const DELETE_MISSING: RuleId = RuleId::known("delete.missing");
/// A successful rename.
pub const RENAME_SUCCESS: RuleId = RuleId::known("rename.success");
/// rename of a source that does not exist.
pub const RENAME_MISSING: RuleId = RuleId::known("rename.missing");
/// rename onto an existing destination.
pub const RENAME_EXISTS: RuleId = RuleId::known("rename.exists");

// ---- The reference's decisions its answers follow where the spec is silent (`spec/decisions.json`).

/// A path refused by the grammar.
pub const PATH_GRAMMAR: RuleId = RuleId::known("decide.path-grammar");
/// A path through a symbolic link.
pub const SYMLINKS: RuleId = RuleId::known("decide.symlinks");
/// A FIFO, socket or device.
pub const SPECIAL_FILES: RuleId = RuleId::known("decide.special-files");
/// A file with other hard links.
pub const HARD_LINKS: RuleId = RuleId::known("decide.hard-links");
/// A file whose bytes are not UTF-8.
pub const NON_UTF8: RuleId = RuleId::known("decide.non-utf8");
/// A `view_range` refused: malformed, out of range, reversed, on a folder.
pub const VIEW_RANGE: RuleId = RuleId::known("decide.view-range");
/// create of a path ending with a slash.
pub const CREATE_TRAILING_SLASH: RuleId = RuleId::known("decide.create-trailing-slash");
/// create below something that is not a folder.
pub const CREATE_PARENT_NOT_FOLDER: RuleId = RuleId::known("decide.create-parent-not-folder");
/// str_replace with an empty `old_str`.
pub const STR_REPLACE_EMPTY_OLD_STR: RuleId = RuleId::known("decide.str-replace-empty-old-str");
/// delete of `/memories` itself.
pub const ROOT_DELETE: RuleId = RuleId::known("decide.root-delete");
/// rename of `/memories` itself.
pub const ROOT_RENAME: RuleId = RuleId::known("decide.root-rename");
/// rename of a folder into itself.
pub const RENAME_INTO_ITSELF: RuleId = RuleId::known("decide.rename-into-itself");
/// rename of a file onto a path ending with a slash.
pub const TRAILING_SLASH: RuleId = RuleId::known("decide.trailing-slash");
/// rename below something that is not a folder.
pub const RENAME_PARENTS: RuleId = RuleId::known("decide.rename-parents");
/// An operating-system error the spec has no words for.
pub const IO_FAILURE: RuleId = RuleId::known("decide.io-failure");
/// Input that is not a valid command.
pub const MALFORMED_INPUT: RuleId = RuleId::known("decide.malformed-input");
/// A view of a long file cut at 16,000 characters, with the notice naming the next range.
pub const LONG_VIEWS: RuleId = RuleId::known("decide.long-views");
/// A view of a PNG or JPEG file: an image block.
pub const IMAGE_VIEW: RuleId = RuleId::known("decide.image-view");
/// A write beyond a limit (a long path, a large text) refused cleanly.
pub const LIMITS: RuleId = RuleId::known("decide.limits");

// ---- Rules replay names for a difference from the reference's answer.

/// The documented strings, when no finer rule applies.
pub const RECOMMENDED_STRINGS: RuleId = RuleId::known("commands.recommended-strings");
/// A listing names what is in the folder.
pub const VIEW_DIR_CONTENTS: RuleId = RuleId::known("view.dir.contents");
/// A listing line: size, tab, full path.
pub const VIEW_DIR_ENTRY_LINE: RuleId = RuleId::known("view.dir.entry-line");
/// A listing line separates size and path with one tab.
pub const VIEW_DIR_TAB_SEPARATOR: RuleId = RuleId::known("view.dir.tab-separator");
/// A file view shows the file's lines verbatim.
pub const VIEW_FILE_CONTENT: RuleId = RuleId::known("view.file.content");
/// A file view line: number, tab, content.
pub const VIEW_FILE_LINE_FORMAT: RuleId = RuleId::known("view.file.line-format");
/// Line numbers padded to 6 characters.
pub const VIEW_FILE_NUMBER_WIDTH: RuleId = RuleId::known("view.file.number-width");
/// One tab after the line number.
pub const VIEW_FILE_NUMBER_SEPARATOR: RuleId = RuleId::known("view.file.number-separator");
/// create writes `file_text`.
pub const CREATE_WRITES_FILE_TEXT: RuleId = RuleId::known("create.writes-file-text");
/// create never replaces anything.
pub const CREATE_NO_OVERWRITE: RuleId = RuleId::known("create.no-overwrite");
/// str_replace replaces the one occurrence.
pub const STR_REPLACE_REPLACES: RuleId = RuleId::known("str-replace.replaces");
/// str_replace replaces only a unique occurrence.
pub const STR_REPLACE_EXACTLY_ONE: RuleId = RuleId::known("str-replace.exactly-one");
/// The snippet after str_replace's success sentence.
pub const STR_REPLACE_SNIPPET: RuleId = RuleId::known("str-replace.snippet");
/// insert puts the text at the line.
pub const INSERT_INSERTS: RuleId = RuleId::known("insert.inserts");
/// insert refuses a line out of range.
pub const INSERT_LINE_RANGE: RuleId = RuleId::known("insert.line-range");
/// delete removes the entry.
pub const DELETE_REMOVES: RuleId = RuleId::known("delete.removes");
/// delete of a folder removes everything in it.
pub const DELETE_RECURSIVE: RuleId = RuleId::known("delete.recursive");
/// delete never removes `/memories`.
pub const DELETE_NOT_ROOT: RuleId = RuleId::known("delete.not-root");
/// rename moves the entry.
pub const RENAME_MOVES: RuleId = RuleId::known("rename.moves");
/// rename of a folder moves its contents.
pub const RENAME_DIRECTORY: RuleId = RuleId::known("rename.directory");
/// rename never replaces the destination.
pub const RENAME_NO_OVERWRITE: RuleId = RuleId::known("rename.no-overwrite");
/// rename never moves `/memories`.
pub const RENAME_NOT_ROOT: RuleId = RuleId::known("rename.not-root");
/// Which errors start with `Error: ` (a dialect).
pub const ERROR_PREFIX: RuleId = RuleId::known("decide.error-prefix");
/// The format of a listing's sizes (a dialect).
pub const SIZE_FORMAT: RuleId = RuleId::known("decide.size-format");
/// Whether a folder exists on its own in a store of keys (open).
pub const KEY_VALUE_FOLDERS: RuleId = RuleId::known("decide.key-value-folders");
/// The order of a listing's entries (open).
pub const LISTING_ORDER: RuleId = RuleId::known("decide.listing-order");
/// Whether a final newline starts a numbered line (open).
pub const FINAL_NEWLINE: RuleId = RuleId::known("decide.final-newline");

/// A `view_range` view shows the requested lines.
pub const VIEW_VIEW_RANGE: RuleId = RuleId::known("view.view-range");
/// `view_range` `[start, -1]` shows the lines from `start` to the end. A GA rule, graded as
/// a decision under beta-2025: not in [`ALL`]; resolve it with [`super::Spec::id`].
pub const VIEW_RANGE_TO_END: RuleId = RuleId::known("view.view-range.to-end");
/// A listing goes two levels deep.
pub const VIEW_DIR_DEPTH: RuleId = RuleId::known("view.dir.depth");
/// A listing's sizes are human-readable (and, read as numbers, the files' byte counts).
pub const VIEW_DIR_SIZES: RuleId = RuleId::known("view.dir.sizes-human-readable");
/// Concurrent clients: an acknowledged write is never lost.
pub const CONCURRENCY_NO_LOST_UPDATE: RuleId = RuleId::known("concurrency.no-lost-update");
/// Concurrent clients: two creates of one path are not both acknowledged (beta-2025).
pub const CONCURRENCY_ONE_CREATE: RuleId = RuleId::known("concurrency.one-create");
/// Concurrent clients: every read shows a state some order of the calls made.
pub const CONCURRENCY_REAL_STATES: RuleId = RuleId::known("concurrency.real-states");
/// A restart on the same store keeps every memory at its path with its bytes.
pub const PERSISTENCE_RESTART: RuleId = RuleId::known("persistence.restart");
/// In a store shared by many users, nothing crosses from one user's `/memories` to another's.
pub const USERS_ISOLATED: RuleId = RuleId::known("users.isolated");
/// A backend may keep its memories in its process only (a new process starts empty).
pub const PROCESS_STORE: RuleId = RuleId::known("decide.process-store");
/// A write killed at any point leaves its state before or after, whole (the crash lane).
pub const DURABILITY_CRASH: RuleId = RuleId::known("durability.crash");
/// After a crash, nothing but memories shows in a listing (the crash lane).
pub const DURABILITY_CRASH_LEFTOVERS: RuleId = RuleId::known("durability.crash-leftovers");
/// Whether a write is flushed to disk before its answer (the crash lane, INFO).
pub const DECIDE_CRASH_FSYNC: RuleId = RuleId::known("decide.crash-fsync");
/// The rule of the lines a `view` with a `view_range` of `end` shows, which are facts (MUST)
/// whatever the view's wording: [`VIEW_RANGE_TO_END`] for `[start, -1]`, else
/// [`VIEW_VIEW_RANGE`]. `check`, `replay` and `fuzz` grade ranged views by it.
pub fn view_range_rule(end: Option<i64>) -> RuleId {
    if end == Some(-1) {
        VIEW_RANGE_TO_END
    } else {
        VIEW_VIEW_RANGE
    }
}

/// The rules the races of `check --clients` and `fuzz --clients` check (no case of the
/// suite does; `spec coverage` names the races).
pub static RACE_RULES: [RuleId; 3] = [
    CONCURRENCY_NO_LOST_UPDATE,
    CONCURRENCY_ONE_CREATE,
    CONCURRENCY_REAL_STATES,
];

/// The rules the crash lane (`check --crash`) checks; no case of the suite does.
pub static CRASH_RULES: [RuleId; 3] = [
    DURABILITY_CRASH,
    DURABILITY_CRASH_LEFTOVERS,
    DECIDE_CRASH_FSYNC,
];

/// Every id above; a spec without one of them is refused.
pub const ALL: &[RuleId] = &[
    VIEW_VIEW_RANGE,
    KEY_VALUE_FOLDERS,
    VIEW_DIR_DEPTH,
    VIEW_DIR_SIZES,
    CONCURRENCY_NO_LOST_UPDATE,
    CONCURRENCY_ONE_CREATE,
    CONCURRENCY_REAL_STATES,
    PERSISTENCE_RESTART,
    USERS_ISOLATED,
    PROCESS_STORE,
    DURABILITY_CRASH,
    DURABILITY_CRASH_LEFTOVERS,
    DECIDE_CRASH_FSYNC,
    CONFINEMENT,
    NO_HOST_PATHS,
    IS_ERROR_FLAG,
    TERMINATES,
    VIEW_DIR_HEADER,
    VIEW_FILE_HEADER,
    VIEW_LINE_LIMIT_MESSAGE,
    VIEW_MISSING,
    CREATE_SUCCESS,
    CREATE_EXISTS,
    STR_REPLACE_SUCCESS,
    STR_REPLACE_MISSING,
    STR_REPLACE_DIRECTORY,
    STR_REPLACE_NOT_FOUND,
    STR_REPLACE_MULTIPLE,
    INSERT_SUCCESS,
    INSERT_MISSING,
    INSERT_DIRECTORY,
    INSERT_INVALID_LINE,
    DELETE_SUCCESS,
    DELETE_MISSING,
    RENAME_SUCCESS,
    RENAME_MISSING,
    RENAME_EXISTS,
    PATH_GRAMMAR,
    SYMLINKS,
    SPECIAL_FILES,
    HARD_LINKS,
    NON_UTF8,
    VIEW_RANGE,
    CREATE_TRAILING_SLASH,
    CREATE_PARENT_NOT_FOLDER,
    STR_REPLACE_EMPTY_OLD_STR,
    ROOT_DELETE,
    ROOT_RENAME,
    RENAME_INTO_ITSELF,
    TRAILING_SLASH,
    RENAME_PARENTS,
    IO_FAILURE,
    MALFORMED_INPUT,
    LONG_VIEWS,
    IMAGE_VIEW,
    RECOMMENDED_STRINGS,
    VIEW_DIR_CONTENTS,
    VIEW_DIR_ENTRY_LINE,
    VIEW_DIR_TAB_SEPARATOR,
    VIEW_FILE_CONTENT,
    VIEW_FILE_LINE_FORMAT,
    VIEW_FILE_NUMBER_WIDTH,
    VIEW_FILE_NUMBER_SEPARATOR,
    CREATE_WRITES_FILE_TEXT,
    CREATE_NO_OVERWRITE,
    STR_REPLACE_REPLACES,
    STR_REPLACE_EXACTLY_ONE,
    STR_REPLACE_SNIPPET,
    INSERT_INSERTS,
    INSERT_LINE_RANGE,
    DELETE_REMOVES,
    DELETE_RECURSIVE,
    DELETE_NOT_ROOT,
    RENAME_MOVES,
    RENAME_DIRECTORY,
    RENAME_NO_OVERWRITE,
    RENAME_NOT_ROOT,
    ERROR_PREFIX,
    SIZE_FORMAT,
    LISTING_ORDER,
    FINAL_NEWLINE,
];
