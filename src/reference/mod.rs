//! The reference backend: the spec made executable.
//!
//! It follows the spec to the letter where the spec speaks (its strings live in [`messages`]),
//! decides where the spec is silent (each decision is in `spec/decisions.json`), says with every
//! answer which of those rules it follows ([`Answer`]), and cannot be
//! made to touch anything outside its root: [`path`] refuses traversal spellings and [`confine`]
//! walks the filesystem relative to an open root handle without ever following a symlink.

pub mod confine;
mod edit;
mod listing;
mod manage;
pub mod messages;
pub mod path;
pub mod strings;
pub mod text;
pub mod users;
mod view;

use std::path::{Path, PathBuf};

use cap_std::fs::Dir;
use serde_json::Value;

use crate::protocol::{Command, Image, ToolResult};
use crate::spec::{Revision, RuleId};
use confine::{Occupant, Root, WalkError};
use messages::Said;
use path::MemoryPath;

/// Why the reference could not start.
#[derive(Debug, thiserror::Error)]
pub enum ReferenceError {
    /// The memories folder could not be created or opened.
    #[error("cannot open the memories folder {path}: {source}")]
    OpenRoot {
        /// The folder that `/memories` maps to.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A user's folder in a store of many users could not be made or opened, or the user id is
    /// refused (too long).
    #[error("cannot open the memories of user \"{user}\" in the store {store}: {source}")]
    OpenUser {
        /// The store's folder.
        store: PathBuf,
        /// The user id, escaped for printing.
        user: String,
        /// Why.
        source: std::io::Error,
    },
}

/// The reference's answer to one input, with the rule it follows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// What the reference answers.
    pub result: ToolResult,
    /// The rule the answer follows: the spec's rule that prescribes its string or format
    /// (`view.missing`, `create.success`, `view.dir.header` for a listing), or the decision behind
    /// it (`decide.symlinks`, `decide.malformed-input`, `decide.io-failure`). Always a rule of
    /// the spec: every one is in [`crate::spec::known::ALL`].
    pub rule: RuleId,
}

/// The reference's whole reply to one input: its [`Answer`], and the image it shows when it
/// shows one (a view of a PNG or JPEG file, `decide.image-view`). The answer's text then
/// describes the image ([`Image::describe`]); a protocol that can carry content blocks sends
/// the image instead (`memspec serve`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The answer and the rule it follows.
    pub answer: Answer,
    /// The image shown, if any.
    pub image: Option<Image>,
}

/// The reference backend over one memories folder.
#[derive(Debug)]
pub struct Reference {
    root: Root,
    revision: Revision,
}

impl Reference {
    /// Opens the folder that `/memories` maps to, creating it if it does not exist, and behaves
    /// as the current revision of the page (`ga-2026`) asks.
    pub fn open(memories: &Path) -> Result<Reference, ReferenceError> {
        Reference::open_as(memories, Revision::Ga2026)
    }

    /// Opens the folder that `/memories` maps to, creating it if it does not exist, and behaves
    /// as `revision` of the page asks: under `ga-2026`, a view of a long file without
    /// `view_range` is cut at 16,000 characters with a notice naming the range that reads on
    /// (`decide.long-views`); under `beta-2025` it is shown whole.
    pub fn open_as(memories: &Path, revision: Revision) -> Result<Reference, ReferenceError> {
        let root = Root::open(memories).map_err(|source| ReferenceError::OpenRoot {
            path: memories.to_path_buf(),
            source,
        })?;
        Ok(Reference { root, revision })
    }

    /// Opens user `user`'s memories in a store of many users (the folder `store`, created if
    /// needed): the folder [`users::folder_name`] names inside it, created if needed and never
    /// reached through a link. Behaves as `revision` of the page asks.
    pub fn open_user(
        store: &Path,
        user: &str,
        revision: Revision,
    ) -> Result<Reference, ReferenceError> {
        let opened = users::folder_name(user)
            .map_err(std::io::Error::from)
            .and_then(|name| Root::open_in(store, &name));
        let root = opened.map_err(|source| ReferenceError::OpenUser {
            store: store.to_path_buf(),
            user: user.escape_debug().to_string(),
            source,
        })?;
        Ok(Reference { root, revision })
    }

    /// The revision of the page the reference follows.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// Runs one raw tool input (the `input` of a `tool_use` block). Never panics; every problem
    /// is an `is_error` result.
    pub fn call(&self, input: &Value) -> ToolResult {
        self.answer(input).result
    }

    /// Runs one raw tool input and says which rule the answer follows. Never panics; every
    /// problem is an `is_error` result.
    pub fn answer(&self, input: &Value) -> Answer {
        self.reply(input).answer
    }

    /// Runs one raw tool input: the answer, the rule it follows and the image it shows, if
    /// any. Never panics; every problem is an `is_error` result.
    pub fn reply(&self, input: &Value) -> Reply {
        match Command::parse(input) {
            Ok(command) => self.execute_reply(&command),
            Err(message) => reply(Err(refused_input(input, message))),
        }
    }

    /// Runs one raw tool input and writes its answer's text into `out`, byte for byte the text
    /// of [`Reference::call`]; says whether the answer is an error. A view of a long file is
    /// written as the file is read, never held whole in memory (`memspec call`). `Err` when
    /// writing fails, or when a file changed while it was being written out: what `out` got is
    /// then not an answer.
    pub fn call_to(&self, input: &Value, out: &mut dyn std::io::Write) -> std::io::Result<bool> {
        let result = match Command::parse(input) {
            Ok(Command::View { path, view_range }) => {
                match view::view_to(self, &path, view_range, out)? {
                    None => return Ok(false),
                    Some(outcome) => reply(outcome).answer.result,
                }
            }
            _ => self.call(input),
        };
        out.write_all(result.text.as_bytes())?;
        Ok(result.is_error)
    }

    /// Runs one validated command.
    pub fn execute(&self, command: &Command) -> ToolResult {
        self.execute_answer(command).result
    }

    /// Runs one validated command and says which rule the answer follows.
    pub fn execute_answer(&self, command: &Command) -> Answer {
        self.execute_reply(command).answer
    }

    /// Runs one validated command: the answer, the rule it follows and the image it shows.
    pub fn execute_reply(&self, command: &Command) -> Reply {
        let outcome = match command {
            Command::View { path, view_range } => view::view(self, path, *view_range),
            Command::Create { path, file_text } => edit::create(self, path, file_text),
            Command::StrReplace {
                path,
                old_str,
                new_str,
            } => edit::str_replace(self, path, old_str, new_str),
            Command::Insert {
                path,
                insert_line,
                insert_text,
            } => edit::insert(self, path, *insert_line, insert_text),
            Command::Delete { path } => manage::delete(self, path),
            Command::Rename { old_path, new_path } => manage::rename(self, old_path, new_path),
        };
        reply(outcome)
    }

    /// Forgets every memory: empties the memories folder and keeps it (the `reset` control of
    /// protocol v1). It works on the folder opened at start, never on its path: a folder swapped
    /// for a symlink since then cannot redirect the wipe to the link's target. Links inside are
    /// unlinked, never followed; folders of any depth are removed without recursion.
    pub fn reset(&self) -> std::io::Result<()> {
        let _lock = self.root.lock()?;
        confine::empty_dir(self.root.dir())
    }

    fn root(&self) -> &Root {
        &self.root
    }
}

/// A command's outcome: success or error, each with the rule its text follows.
type Outcome = Result<Said, Said>;

fn reply(outcome: Outcome) -> Reply {
    let (said, is_error) = match outcome {
        Ok(said) => (said, false),
        Err(said) => (said, true),
    };
    let Said { text, rule, image } = said;
    let result = if is_error {
        ToolResult::error(text)
    } else {
        ToolResult::ok(text)
    };
    Reply {
        answer: Answer { result, rule },
        image,
    }
}

/// The refusal of an input that is not a valid command. The parser's only refusal that is not
/// about the input's shape is a malformed `view_range` (`decide.view-range`): told apart by
/// whether the same input without `view_range` parses, not by the message's words.
fn refused_input(input: &Value, text: String) -> Said {
    let view_range_only = match input {
        Value::Object(map) if map.contains_key("view_range") => {
            let mut without = map.clone();
            without.remove("view_range");
            Command::parse(&Value::Object(without)).is_ok()
        }
        _ => false,
    };
    if view_range_only {
        messages::view_range_malformed(text)
    } else {
        messages::malformed_input(text)
    }
}

/// A path parsed and located: its parent folder (open), its last component and what it is.
struct Located {
    path: MemoryPath,
    parent: Dir,
    /// `None` for `/memories` itself.
    name: Option<String>,
    kind: Occupant,
}

/// Parses `spelled` and finds it under the root. `missing` words the command's not-found error.
fn locate(
    reference: &Reference,
    spelled: &str,
    missing: fn(&str) -> Said,
) -> Result<Located, Said> {
    let path = parse(spelled)?;
    let parent = reference
        .root()
        .parent_of(path.components(), false)
        .map_err(|e| walk_error(e, &path, spelled, "lookup", missing))?;
    let (name, kind) = match path.components().last() {
        None => (None, Occupant::Dir),
        Some(name) => {
            let mut kind = confine::kind_of(&parent, name);
            // A trailing slash asks for a folder; on a file, FIFO, socket or device it finds
            // nothing (ENOTDIR, `decide.trailing-slash`). A symlink keeps its kind: the commands
            // refuse `link/` with the symlink error, since it asks for the link's target.
            if path.has_trailing_slash() && matches!(kind, Occupant::File | Occupant::Special) {
                kind = Occupant::Missing;
            }
            (Some(name.clone()), kind)
        }
    };
    Ok(Located {
        path,
        parent,
        name,
        kind,
    })
}

fn parse(spelled: &str) -> Result<MemoryPath, Said> {
    MemoryPath::parse(spelled).map_err(|why| messages::invalid_path(spelled, why.reason()))
}

fn walk_error(
    error: WalkError,
    path: &MemoryPath,
    spelled: &str,
    verb: &str,
    missing: fn(&str) -> Said,
) -> Said {
    match error {
        WalkError::Missing { .. } | WalkError::NotDir { .. } => missing(spelled),
        WalkError::Symlink { at } => {
            messages::symlink_refused(spelled, &path.prefix_display(at + 1))
        }
        WalkError::Io(err) => messages::io_failure(verb, spelled, &err),
    }
}

/// The message for a file that could not be read.
fn read_refusal(
    error: confine::ReadError,
    spelled: &str,
    verb: &str,
    missing: fn(&str) -> Said,
) -> Said {
    match error {
        confine::ReadError::NotRegular => messages::not_regular(spelled),
        confine::ReadError::HardLinked => messages::hard_linked(spelled),
        confine::ReadError::Io(e) if e.kind() == std::io::ErrorKind::NotFound => missing(spelled),
        confine::ReadError::Io(e) => messages::io_failure(verb, spelled, &e),
    }
}

/// Refusal for a leaf that is a symlink or a special file, shared by the commands that read.
fn refuse_leaf(located: &Located, spelled: &str, missing: fn(&str) -> Said) -> Option<Said> {
    match located.kind {
        Occupant::Missing => Some(missing(spelled)),
        Occupant::Symlink => Some(messages::symlink_refused(
            spelled,
            &located.path.to_string(),
        )),
        Occupant::Special => Some(messages::not_regular(spelled)),
        Occupant::File | Occupant::Dir => None,
    }
}
