//! Effects observed through the tool: what a case checks on disk, read back with the backend's
//! own `view`, so that a backend that is not a folder (a database, a key-value store) has its
//! effects checked too, and a folder backend has a second witness.
//!
//! Only facts are compared, never a format the spec leaves open: a file's lines whatever the
//! width of their numbers, a folder by the path it lists, a missing path by the error flag or
//! by an answer that says so. What the witness cannot read (a numbering it does not know, `\r`
//! hidden at line ends) is said to be unverified, with why: never a failed effect.
//!
//! `read_back.rs` reads an effect back through the tool (`ends.rs` probes the two ends of a file
//! too long to probe whole), `compare.rs` judges an answer against an effect, and `answer.rs`
//! reads what an answer's words say (absent, cut, numbered lines).

mod answer;
mod compare;
mod ends;
mod read_back;

pub use answer::{
    announces_cut, excerpt, file_lines, known_file_lines, numbered_lines, opening, opening_without,
    says_absent, size_holds, without_path,
};
pub use compare::{judge, ranged_view_differs};
pub use read_back::{
    MAX_PAGES, PLAIN_VIEW_LIMIT, PROBE_MAX_BYTES, Probing, READ_BACK_MAX_LINES, read_back,
    setup_files, view_of,
};

/// What the tool can tell about an effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    /// The answer agrees with the effect.
    Holds,
    /// It does not: what the answer shows instead.
    Differs(String),
    /// A file or folder that should be there is not (the view failed or said so): what the
    /// answer says.
    Missing(String),
    /// The bytes are right (a probe through the tool found them), but the view shows other
    /// lines: the reader is wrong, not the writer (what it shows, with how it was told).
    ViewWrong(String),
    /// The answer cannot tell (a view in a numbering the witness does not read, line ends the
    /// view hides): why, with the answer's first line. Never a failed effect.
    Unverified(String),
    /// The file holds the start of what was acknowledged and not its end (probed where the
    /// view could not show it): the store kept a cut copy, and the rest of the memory is lost.
    Cut(String),
}
