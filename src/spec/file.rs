//! The format of `spec/rules.json` and `spec/decisions.json` as written: what [`super::Spec`]
//! reads, and the source of `spec/rules.schema.json` and `spec/decisions.schema.json`
//! ([`crate::schemas`]). Every field of the files is here, also those only people and other
//! tools read, so that a misspelt field is refused rather than ignored.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;

use super::{Level, Revision, RevisionInfo, RuleId};
use crate::schema;

/// The rules of the memory tool (`memory_20250818`) documentation page, one per testable
/// sentence.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesFile {
    /// Version of this file format.
    #[schemars(extend("const" = 1))]
    pub schema: u32,
    /// The page the rules come from.
    pub spec: SpecPage,
    /// The revisions of the page the rules come from, oldest first. A rule holds as written in
    /// every revision unless its `in` says otherwise.
    #[schemars(length(min = 1))]
    pub revisions: Vec<RevisionInfo>,
    /// The rules.
    #[schemars(length(min = 1))]
    pub rules: Vec<RawRule>,
    /// Rule ids that were removed. An id is never reused, so a retired id stays here for good.
    #[serde(default)]
    pub retired: Vec<Retired>,
}

/// The page the rules quote.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpecPage {
    /// The tool's type.
    #[schemars(extend("const" = "memory_20250818"))]
    pub tool: String,
    /// The page's title.
    pub title: Option<String>,
    /// Canonical address of the page the rules quote.
    #[schemars(extend("format" = "uri"))]
    pub source: String,
    /// Date the quoted text was taken (YYYY-MM-DD).
    #[schemars(extend("format" = "date"))]
    pub retrieved: String,
    /// Language of the rules' `text`.
    pub quote_lang: Option<QuoteLang>,
    /// The copy of the page in this project the rules were checked against.
    pub seed: Option<String>,
    /// How the quotes were taken.
    pub source_note: Option<String>,
}

/// Language of a quoted `text`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum QuoteLang {
    /// Quoted from the English page.
    #[serde(rename = "en")]
    En,
    /// Translated from the Chinese seed.
    #[serde(rename = "zh-translated")]
    ZhTranslated,
}

/// A command of the memory tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CommandName {
    /// `view`.
    View,
    /// `create`.
    Create,
    /// `str_replace`.
    StrReplace,
    /// `insert`.
    Insert,
    /// `delete`.
    Delete,
    /// `rename`.
    Rename,
}

/// One rule: a testable sentence of the page.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("dependentRequired" = { "placeholders": ["template"] }))]
#[schemars(rename = "Rule")]
pub struct RawRule {
    /// Stable dotted slug; never reused, never under `decide.` (the decisions' prefix).
    #[schemars(
        regex(pattern = schema::RULE_ID),
        extend("not" = { "pattern": r"^decide\." })
    )]
    pub id: String,
    /// MUST: safety and semantics, a miss fails the run. SHOULD: the spec's exact strings and
    /// formats, a miss warns (fails with --strict).
    #[schemars(with = "RuleLevel")]
    pub level: Level,
    /// The page's section path in English, headings joined with ' > '.
    #[schemars(length(min = 1))]
    pub section: String,
    /// The sentence(s) of the page the rule rests on, quoted.
    #[schemars(length(min = 1))]
    pub text: String,
    /// The exact string the rule prescribes, with {placeholders}; `\t` and `\n` are real tab and
    /// newline characters.
    #[schemars(length(min = 1))]
    pub template: Option<String>,
    /// What each {placeholder} of `template` stands for.
    #[serde(default)]
    #[schemars(extend("propertyNames" = { "pattern": "^[a-z_]+$" }))]
    pub placeholders: BTreeMap<String, String>,
    /// One plain line: what a backend must or should do.
    #[schemars(length(min = 1))]
    pub summary: String,
    /// The commands the rule applies to.
    #[serde(default)]
    #[schemars(length(min = 1), extend("uniqueItems" = true))]
    pub commands: Vec<CommandName>,
    /// `quoted`: the page says it. `derived`: it follows from what the page says (explained in
    /// `summary` or `note`).
    #[schemars(with = "Basis")]
    pub basis: String,
    /// Language of `text`, when not the file's.
    pub quote_lang: Option<QuoteLang>,
    /// A verbatim example from the page.
    pub example: Option<String>,
    /// A remark on the rule.
    #[serde(default)]
    pub note: String,
    /// The change of `../shared/spec-revisions/ga-2026.md` (A1…A14) that made the rule what it
    /// is.
    #[schemars(regex(pattern = schema::CHANGE_ID))]
    pub change: Option<String>,
    /// Per revision id, how the rule differs there.
    #[serde(default, rename = "in")]
    #[schemars(schema_with = "by_revision::<RawEntry>")]
    pub revisions: BTreeMap<String, RawEntry>,
}

/// How a rule differs in one revision: it is changed (any field given replaces the rule's own),
/// it is graded `as` a decision (the revision left it open), or it is `absent` (with why).
#[derive(Debug, Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("oneOf" = [
    { "required": ["as"], "maxProperties": 1 },
    { "required": ["absent"], "maxProperties": 1 },
    { "not": { "anyOf": [{ "required": ["as"] }, { "required": ["absent"] }] } }
]))]
#[schemars(rename = "RevisionEntry")]
pub struct RawEntry {
    /// The level in this revision.
    #[schemars(with = "Option<RuleLevel>")]
    pub level: Option<Level>,
    /// The section in this revision.
    pub section: Option<String>,
    /// The quoted text in this revision.
    pub text: Option<String>,
    /// The summary in this revision.
    pub summary: Option<String>,
    /// The basis in this revision.
    #[schemars(with = "Option<Basis>")]
    pub basis: Option<String>,
    /// The note in this revision.
    pub note: Option<String>,
    /// The change of the revision note that made the rule what it is in this revision.
    #[schemars(regex(pattern = schema::CHANGE_ID))]
    pub change: Option<String>,
    /// The decision the rule is graded as in this revision (the revision left it open).
    #[serde(rename = "as")]
    #[schemars(regex(pattern = schema::DECISION_ID))]
    pub graded_as: Option<String>,
    /// Why the rule does not exist in this revision.
    pub absent: Option<String>,
}

/// A rule or decision id that was removed; never reused.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Retired {
    /// The id.
    #[schemars(with = "RuleId")]
    pub id: String,
    /// When (YYYY-MM-DD).
    #[schemars(extend("format" = "date"))]
    pub retired: String,
    /// Why.
    #[schemars(length(min = 1))]
    pub reason: String,
    /// The ids that took its place.
    #[serde(default)]
    #[schemars(with = "Vec<RuleId>")]
    pub replaced_by: Vec<String>,
}

/// What the reference backend decides where the memory tool's page is silent, with the reason
/// and what the official SDK helpers do.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DecisionsFile {
    /// Version of this file format.
    #[schemars(extend("const" = 1))]
    pub schema: u32,
    /// The decisions.
    #[schemars(length(min = 1))]
    pub decisions: Vec<RawDecision>,
    /// Decision ids that were removed; never reused.
    #[serde(default)]
    pub retired: Vec<Retired>,
}

/// How settled a decision is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DecisionStatus {
    /// Settled and implemented by the reference.
    Final,
    /// Settled, recorded while writing spec/ (not in the original list).
    Added,
    /// How the reference behaves today, flagged for revisiting.
    Open,
}

/// One decision of the reference.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Decision")]
pub struct RawDecision {
    /// Stable dotted slug under `decide.`; never reused.
    #[schemars(regex(pattern = schema::DECISION_ID))]
    pub id: String,
    /// Always INFO: a difference from a decision informs; it never fails a run.
    #[schemars(extend("const" = "INFO"))]
    pub level: Level,
    /// How settled it is.
    pub status: DecisionStatus,
    /// What the page leaves open.
    #[schemars(length(min = 1))]
    pub question: String,
    /// What the reference does.
    #[schemars(length(min = 1))]
    pub decision: String,
    /// Why.
    #[schemars(length(min = 1))]
    pub reason: String,
    /// Strings this decision introduces, with {placeholders}.
    #[serde(default)]
    pub messages: Vec<Message>,
    /// Inputs and what the reference answers.
    #[serde(default)]
    pub examples: Vec<Example>,
    /// What anthropic (Python) 2.12 BetaLocalFilesystemMemoryTool does.
    #[schemars(length(min = 1))]
    pub python_sdk: String,
    /// What @anthropic-ai/sdk 1.12 BetaLocalFilesystemMemoryTool does.
    #[schemars(length(min = 1))]
    pub typescript_sdk: String,
    /// Ids of the related rules in rules.json.
    #[schemars(
        with = "Vec<RuleId>",
        length(min = 1),
        extend("uniqueItems" = true)
    )]
    pub rules: Vec<String>,
    /// Revisions whose page states what the decision settled: there it is the rule(s) in `by`,
    /// and the decision does not exist.
    #[serde(default)]
    #[schemars(schema_with = "by_revision::<RawRetirement>")]
    pub retired_in: BTreeMap<String, RawRetirement>,
    /// The revisions in which the reference decides it (default: every revision); elsewhere the
    /// decision does not exist.
    #[serde(default)]
    #[schemars(length(min = 1), extend("uniqueItems" = true))]
    pub revisions: Vec<Revision>,
    /// The change of `../shared/spec-revisions/ga-2026.md` (A1…A14) the decision answers.
    #[schemars(regex(pattern = schema::CHANGE_ID))]
    pub change: Option<String>,
}

/// A string a decision introduces.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Message {
    /// When the reference says it.
    #[schemars(length(min = 1))]
    pub when: String,
    /// The string, with {placeholders}.
    #[schemars(length(min = 1))]
    pub template: String,
}

/// An input and what the reference answers.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Example {
    /// The input.
    pub input: String,
    /// The answer.
    pub output: String,
}

/// A revision in which the page states what a decision settled.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Retirement")]
pub struct RawRetirement {
    /// The rules that state it there.
    #[schemars(with = "Vec<RuleId>", length(min = 1))]
    pub by: Vec<String>,
    /// Why.
    pub reason: String,
}

/// A rule's level: MUST or SHOULD, never INFO (the decisions').
pub struct RuleLevel;

impl JsonSchema for RuleLevel {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "RuleLevel".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "enum": ["MUST", "SHOULD"] })
    }
}

/// Whether the page says a rule (`quoted`) or it follows from what the page says (`derived`).
pub struct Basis;

impl JsonSchema for Basis {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "Basis".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "enum": ["quoted", "derived"] })
    }
}

/// A map keyed by revision id (`beta-2025`, `ga-2026`) to `V`.
fn by_revision<V: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    crate::schema::keyed_by::<super::Revision, V>(generator)
}
