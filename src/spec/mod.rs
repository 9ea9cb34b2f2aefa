//! The spec's rules and the reference's decisions, loaded from `spec/rules.json` and
//! `spec/decisions.json`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::builtin::{self, Source};

pub mod file;
mod graded;
mod level;
mod revision;
use file::{DecisionsFile, RawEntry, RawRule, RulesFile};
pub use graded::{Always, Graded};
pub use level::Level;
pub use revision::{Revision, UnknownRevision};

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
    /// A view of a long file cut at 16,000 characters, with the notice naming the next range.
    pub const LONG_VIEWS: RuleId = RuleId::known("decide.long-views");
    /// A view of a PNG or JPEG file: an image block.
    pub const IMAGE_VIEW: RuleId = RuleId::known("decide.image-view");

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

    /// Every id above; a spec without one of them is refused.
    pub const ALL: &[RuleId] = &[
        VIEW_VIEW_RANGE,
        KEY_VALUE_FOLDERS,
        VIEW_DIR_DEPTH,
        VIEW_DIR_SIZES,
        CONCURRENCY_NO_LOST_UPDATE,
        CONCURRENCY_ONE_CREATE,
        CONCURRENCY_REAL_STATES,
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
}

/// A rule: a sentence of the spec (MUST / SHOULD) or a decision of the reference (INFO), as it
/// holds in one revision of the page.
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
    /// `quoted` (the page says it) or `derived` (it follows from what the page says); empty for
    /// decisions.
    pub basis: String,
    /// A remark on the rule in this revision.
    pub note: String,
    /// The change of `../shared/spec-revisions/ga-2026.md` that made the rule what it is in this
    /// revision (`A7`), if one did.
    pub change: Option<String>,
}

/// A revision of the page as `spec/rules.json` describes it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RevisionInfo {
    /// `beta-2025`, `ga-2026`.
    pub id: Revision,
    /// One line.
    pub title: String,
    /// The page's address.
    #[schemars(extend("format" = "uri"))]
    pub source: String,
    /// The stored copy the quotes were checked against.
    pub copy: String,
    /// The first date the text was seen (YYYY-MM-DD).
    #[schemars(extend("format" = "date"))]
    pub from: String,
    /// The last date it was seen, if it was replaced (YYYY-MM-DD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date"))]
    pub until: Option<String>,
    /// What it is.
    pub note: String,
    /// The changes from the revision before that no rule carries: what Claude or the caller is
    /// told, wording of labels.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<PageChange>,
}

/// A change of the page that no rule carries.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PageChange {
    /// Its id in the revision note (`A4`, `B1`).
    #[schemars(regex(pattern = crate::schema::CHANGE_ID))]
    pub id: String,
    /// `client` (for the caller or the model) or `wording`.
    #[schemars(extend("enum" = ["client", "wording"]))]
    pub kind: String,
    /// One line.
    pub title: String,
    /// The page's new words.
    pub quote: String,
    /// What it means for a backend and for memspec.
    pub effect: String,
}

/// The rules of one revision of the spec, by id.
#[derive(Debug, Clone, Default)]
pub struct Spec {
    revision: Revision,
    rules: BTreeMap<String, Rule>,
    /// Ids that are not rules in this revision but are graded as another one (a GA rule that the
    /// beta page left to a decision).
    graded_as: BTreeMap<String, RuleId>,
    /// Ids that exist only in other revisions, with why.
    elsewhere: BTreeMap<String, String>,
    revisions: Vec<RevisionInfo>,
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
    #[error("spec/ has no rule `{0}` under {1}, which memspec's own checks name")]
    Missing(String, Revision),
    /// A rule's entry for a revision is not one of the three forms.
    #[error("rule `{id}` in spec/rules.json: its entry for {revision} {problem}")]
    BadRevisionEntry {
        /// The rule.
        id: String,
        /// The revision.
        revision: String,
        /// What is wrong.
        problem: String,
    },
    /// `spec/rules.json` does not describe a revision memspec knows.
    #[error("spec/rules.json has no entry for revision {0} in `revisions`")]
    NoRevision(Revision),
}

impl Spec {
    /// Loads `rules.json` and `decisions.json` from `dir`, as they hold in `revision`.
    pub fn load(dir: &Path, revision: Revision) -> Result<Spec, SpecError> {
        let rules = dir.join("rules.json");
        let decisions = dir.join("decisions.json");
        Spec::parse(
            (&rules, &read(&rules)?),
            (&decisions, &read(&decisions)?),
            revision,
        )
    }

    /// The spec compiled into this binary ([`crate::builtin`]), as it holds in `revision`.
    pub fn builtin(revision: Revision) -> Result<Spec, SpecError> {
        Spec::parse(
            (Path::new("built-in spec/rules.json"), builtin::RULES),
            (
                Path::new("built-in spec/decisions.json"),
                builtin::DECISIONS,
            ),
            revision,
        )
    }

    /// Loads the spec from `source`, as it holds in `revision`.
    pub fn load_from(source: &Source, revision: Revision) -> Result<Spec, SpecError> {
        match source {
            Source::Builtin => Spec::builtin(revision),
            Source::Dir(dir) => Spec::load(dir, revision),
        }
    }

    /// Parses the texts of `rules.json` and `decisions.json`, each with the path named in errors.
    fn parse(
        rules: (&Path, &str),
        decisions: (&Path, &str),
        revision: Revision,
    ) -> Result<Spec, SpecError> {
        let rules: RulesFile = parse_json(rules.0, rules.1)?;
        let decisions: DecisionsFile = parse_json(decisions.0, decisions.1)?;
        if !rules.revisions.iter().any(|r| r.id == revision) {
            return Err(SpecError::NoRevision(revision));
        }
        let mut spec = Spec {
            revision,
            revisions: rules.revisions,
            ..Spec::default()
        };
        for raw in rules.rules {
            spec.insert_rule(raw)?;
        }
        for raw in decisions.decisions {
            if raw.level != Level::Info || !raw.id.starts_with("decide.") {
                return Err(SpecError::DecisionAboveInfo(raw.id));
            }
            if !raw.revisions.is_empty() && !raw.revisions.contains(&revision) {
                let only: Vec<&str> = raw.revisions.iter().map(|r| r.id()).collect();
                let why = format!("the reference decides it only under {}", only.join(", "));
                spec.elsewhere.insert(raw.id, why);
                continue;
            }
            if let Some(retired) = raw.retired_in.get(revision.id()) {
                let by = retired.by.join(", ");
                spec.elsewhere.insert(
                    raw.id,
                    format!("{} (see {by})", retired.reason.trim_end_matches('.')),
                );
                continue;
            }
            spec.insert(Rule {
                id: RuleId(Cow::Owned(raw.id)),
                level: raw.level,
                section: "decision of the reference".to_string(),
                text: raw.decision,
                summary: raw.question,
                basis: String::new(),
                note: raw.reason,
                change: raw.change,
            })?;
        }
        for (id, target) in &spec.graded_as {
            if !spec.rules.contains_key(target.as_str()) {
                return Err(SpecError::BadRevisionEntry {
                    id: id.clone(),
                    revision: revision.to_string(),
                    problem: format!(
                        "grades it as `{target}`, which is not a rule or decision here"
                    ),
                });
            }
        }
        // A known id may belong to another revision only (the reference never names it here).
        let missing = known::ALL
            .iter()
            .find(|id| spec.get(id.as_str()).is_none() && spec.elsewhere(id.as_str()).is_none());
        if let Some(missing) = missing {
            return Err(SpecError::Missing(missing.to_string(), revision));
        }
        Ok(spec)
    }

    /// Adds a rule of `rules.json` as it holds in this spec's revision.
    fn insert_rule(&mut self, mut raw: RawRule) -> Result<(), SpecError> {
        if let Some(unknown) = raw
            .revisions
            .keys()
            .find(|k| k.parse::<Revision>().is_err())
        {
            return Err(SpecError::BadRevisionEntry {
                id: raw.id,
                revision: unknown.clone(),
                problem: "names a revision memspec does not know".to_string(),
            });
        }
        let RawEntry {
            level,
            section,
            text,
            summary,
            basis,
            note,
            change,
            graded_as,
            absent,
        } = raw.revisions.remove(self.revision.id()).unwrap_or_default();
        let changes = level.is_some()
            || section.is_some()
            || text.is_some()
            || summary.is_some()
            || basis.is_some()
            || note.is_some()
            || change.is_some();
        match (graded_as, absent) {
            (Some(target), None) if !changes => {
                self.graded_as
                    .insert(raw.id, RuleId(Cow::Owned(target)));
                Ok(())
            }
            (None, Some(why)) if !changes => {
                self.elsewhere.insert(raw.id, why);
                Ok(())
            }
            (None, None) => self.insert(Rule {
                id: RuleId(Cow::Owned(raw.id)),
                level: level.unwrap_or(raw.level),
                section: section.unwrap_or(raw.section),
                text: text.unwrap_or(raw.text),
                summary: summary.unwrap_or(raw.summary),
                basis: basis.unwrap_or(raw.basis),
                note: note.unwrap_or(raw.note),
                change: change.or(raw.change),
            }),
            _ => Err(SpecError::BadRevisionEntry {
                id: raw.id,
                revision: self.revision.to_string(),
                problem: "mixes `as` or `absent` with other fields; it is either changed, graded as another rule, or absent".to_string(),
            }),
        }
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

    /// The revision of the page these rules are.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// What `spec/rules.json` says about each revision, oldest first.
    pub fn revisions(&self) -> &[RevisionInfo] {
        &self.revisions
    }

    /// What `spec/rules.json` says about this spec's revision.
    pub fn revision_info(&self) -> Option<&RevisionInfo> {
        self.revisions.iter().find(|r| r.id == self.revision)
    }

    /// The checked id of the rule spelled `id` as it is graded in this revision: the rule
    /// itself, or the decision a GA rule falls back to under a revision that left it open.
    pub fn id(&self, id: &str) -> Option<RuleId> {
        self.rules
            .get(id)
            .map(|r| r.id.clone())
            .or_else(|| self.graded_as.get(id).cloned())
    }

    /// Why `id` is not a rule of this revision, when it is one of another revision.
    pub fn elsewhere(&self, id: &str) -> Option<&str> {
        self.elsewhere.get(id).map(String::as_str)
    }

    /// The rule `id` is graded as in this revision, when it is not a rule of its own here.
    pub fn graded_as(&self, id: &str) -> Option<&RuleId> {
        self.graded_as.get(id)
    }

    /// The ids graded as `target` in this revision (the GA rules the beta page left to it).
    pub fn graded_as_it<'a>(&'a self, target: &'a str) -> impl Iterator<Item = &'a str> {
        self.graded_as
            .iter()
            .filter(move |(_, t)| t.as_str() == target)
            .map(|(id, _)| id.as_str())
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

impl schemars::JsonSchema for RuleId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RuleId".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "The id of a rule of spec/rules.json or, under `decide.`, of a decision of spec/decisions.json: a stable dotted slug of lower-case words joined by '-', at least two segments, each starting with a letter.",
            "type": "string",
            "pattern": crate::schema::RULE_ID,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-in files, with one rule's entry for ga-2026 replaced by `entry`.
    fn with_entry(entry: serde_json::Value) -> Result<Spec, SpecError> {
        let mut rules: serde_json::Value =
            serde_json::from_str(builtin::RULES).map_err(|e| SpecError::Parse {
                path: PathBuf::from("rules.json"),
                message: e.to_string(),
            })?;
        if let Some(rule) = rules["rules"]
            .as_array_mut()
            .and_then(|r| r.iter_mut().find(|r| r["id"] == "view.view-range.to-end"))
        {
            rule["in"]["ga-2026"] = entry;
        }
        Spec::parse(
            (Path::new("rules.json"), &rules.to_string()),
            (Path::new("decisions.json"), builtin::DECISIONS),
            Revision::Ga2026,
        )
    }

    #[test]
    fn an_entry_is_changed_graded_as_or_absent_never_a_mix() {
        let graded = with_entry(serde_json::json!({"as": "decide.view-range"}))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            graded.id("view.view-range.to-end").map(|r| r.to_string()),
            Some("decide.view-range".to_string())
        );
        let changed =
            with_entry(serde_json::json!({"level": "MUST"})).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            changed.get("view.view-range.to-end").map(|r| r.level),
            Some(Level::Must)
        );
        for mixed in [
            serde_json::json!({"as": "decide.view-range", "section": "x"}),
            serde_json::json!({"absent": "why", "note": "x"}),
            serde_json::json!({"as": "decide.view-range", "absent": "why"}),
        ] {
            assert!(
                matches!(
                    with_entry(mixed.clone()),
                    Err(SpecError::BadRevisionEntry { .. })
                ),
                "{mixed}"
            );
        }
    }

    #[test]
    fn both_revisions_of_the_built_in_spec_load() {
        for revision in Revision::ALL {
            let spec = Spec::builtin(revision).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(spec.revision(), revision);
        }
    }
}
