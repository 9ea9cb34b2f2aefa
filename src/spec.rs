//! The spec's rules and the reference's decisions, loaded from `spec/rules.json` and
//! `spec/decisions.json`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::builtin::{self, Source};
use crate::suite::case::Level;

/// The id of a rule of `spec/` (`create.no-overwrite`, `decide.final-newline`).
///
/// Made only by [`Spec::id`], which knows the id, or as one of the [`known`] ids the code itself
/// names, every one of which [`Spec`] refuses to load without; so a finding never names a rule
/// the spec does not have, and a rewording of a message cannot change which rule is meant.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RuleId(Cow<'static, str>);

impl RuleId {
    /// One of the ids the code names; listed in [`known::ALL`], checked when a spec loads.
    const fn known(id: &'static str) -> RuleId {
        RuleId(Cow::Borrowed(id))
    }

    /// The id as written in `spec/`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether it names a decision of the reference (`decide.*`): never graded above INFO.
    pub fn is_decision(&self) -> bool {
        self.0.starts_with("decide.")
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<str> for RuleId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for RuleId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// The rule ids the code names itself, rather than reading them from a case.
pub mod known {
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
    /// The order of a listing's entries (open).
    pub const LISTING_ORDER: RuleId = RuleId::known("decide.listing-order");
    /// Whether a final newline starts a numbered line (open).
    pub const FINAL_NEWLINE: RuleId = RuleId::known("decide.final-newline");

    /// Every id above; a spec without one of them is refused.
    pub const ALL: &[RuleId] = &[
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
}

/// A rule: a sentence of the spec (MUST / SHOULD) or a decision of the reference (INFO).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Stable id (`create.no-overwrite`, `decide.final-newline`).
    pub id: RuleId,
    /// Grading level.
    pub level: Level,
    /// Where in the doc it comes from (for decisions: "decision").
    pub section: String,
    /// The quoted sentence (for decisions: the decision).
    pub text: String,
    /// One plain line.
    pub summary: String,
}

/// All rules by id.
#[derive(Debug, Clone, Default)]
pub struct Spec {
    rules: BTreeMap<String, Rule>,
}

/// Why the spec files could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A file is not what the schema describes.
    #[error("{path} is not a valid spec file: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong, with line and column.
        message: String,
    },
    /// Two rules share an id.
    #[error("rule id `{0}` is defined twice in spec/")]
    Duplicate(String),
    /// A decision is graded above INFO: decisions are the reference's choices, never the spec's.
    #[error(
        "decision `{0}` in spec/decisions.json has a level above INFO; a decision only informs"
    )]
    DecisionAboveInfo(String),
    /// A rule the code relies on is missing.
    #[error("spec/ has no rule `{0}`, which memspec's own checks name")]
    Missing(String),
}

#[derive(Deserialize)]
struct RulesFile {
    rules: Vec<RawRule>,
}

#[derive(Deserialize)]
struct RawRule {
    id: String,
    level: Level,
    #[serde(default)]
    section: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    summary: String,
}

#[derive(Deserialize)]
struct DecisionsFile {
    decisions: Vec<RawDecision>,
}

#[derive(Deserialize)]
struct RawDecision {
    id: String,
    #[serde(default = "info")]
    level: Level,
    #[serde(default)]
    question: String,
    decision: String,
}

fn info() -> Level {
    Level::Info
}

impl Spec {
    /// Loads `rules.json` and `decisions.json` from `dir`.
    pub fn load(dir: &Path) -> Result<Spec, SpecError> {
        let rules = dir.join("rules.json");
        let decisions = dir.join("decisions.json");
        Spec::parse((&rules, &read(&rules)?), (&decisions, &read(&decisions)?))
    }

    /// The spec compiled into this binary ([`crate::builtin`]).
    pub fn builtin() -> Result<Spec, SpecError> {
        Spec::parse(
            (Path::new("built-in spec/rules.json"), builtin::RULES),
            (
                Path::new("built-in spec/decisions.json"),
                builtin::DECISIONS,
            ),
        )
    }

    /// Loads the spec from `source`.
    pub fn load_from(source: &Source) -> Result<Spec, SpecError> {
        match source {
            Source::Builtin => Spec::builtin(),
            Source::Dir(dir) => Spec::load(dir),
        }
    }

    /// Parses the texts of `rules.json` and `decisions.json`, each with the path named in errors.
    fn parse(rules: (&Path, &str), decisions: (&Path, &str)) -> Result<Spec, SpecError> {
        let rules: RulesFile = parse_json(rules.0, rules.1)?;
        let decisions: DecisionsFile = parse_json(decisions.0, decisions.1)?;
        let mut spec = Spec::default();
        for raw in rules.rules {
            spec.insert(Rule {
                id: RuleId(Cow::Owned(raw.id)),
                level: raw.level,
                section: raw.section,
                text: raw.text,
                summary: raw.summary,
            })?;
        }
        for raw in decisions.decisions {
            if raw.level != Level::Info || !raw.id.starts_with("decide.") {
                return Err(SpecError::DecisionAboveInfo(raw.id));
            }
            spec.insert(Rule {
                id: RuleId(Cow::Owned(raw.id)),
                level: raw.level,
                section: "decision of the reference".to_string(),
                text: raw.decision,
                summary: raw.question,
            })?;
        }
        if let Some(missing) = known::ALL.iter().find(|id| spec.get(id.as_str()).is_none()) {
            return Err(SpecError::Missing(missing.to_string()));
        }
        Ok(spec)
    }

    fn insert(&mut self, rule: Rule) -> Result<(), SpecError> {
        let id = rule.id.as_str().to_string();
        if rule.level != Level::Info && rule.id.is_decision() {
            return Err(SpecError::DecisionAboveInfo(id));
        }
        if self.rules.contains_key(&id) {
            return Err(SpecError::Duplicate(id));
        }
        self.rules.insert(id, rule);
        Ok(())
    }

    /// The checked id of the rule spelled `id`, if the spec has it.
    pub fn id(&self, id: &str) -> Option<RuleId> {
        self.rules.get(id).map(|r| r.id.clone())
    }

    /// The level of a rule: what a check of it is graded at.
    pub fn level(&self, id: &RuleId) -> Level {
        // Every RuleId comes from this spec or from `known`, checked at load; a decision is
        // INFO whatever happens.
        match self.rules.get(id.as_str()) {
            Some(rule) => rule.level,
            None if id.is_decision() => Level::Info,
            None => Level::Must,
        }
    }

    /// The rule with this id.
    pub fn get(&self, id: &str) -> Option<&Rule> {
        self.rules.get(id)
    }

    /// All rules, by id.
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules.values()
    }
}

fn read(path: &Path) -> Result<String, SpecError> {
    std::fs::read_to_string(path).map_err(|source| SpecError::Read {
        path: path.to_path_buf(),
        source,
    })
}

fn parse_json<T: serde::de::DeserializeOwned>(path: &Path, text: &str) -> Result<T, SpecError> {
    serde_json::from_str(text).map_err(|e| SpecError::Parse {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}
