//! The case model: what a `cases/*.json` file holds.
//!
//! A case is data so that any language's test runner can read it (the JSON-Schema-Test-Suite
//! lesson). Its id is a stable slug that is never renumbered; baselines and reports join on it.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::exec::plant::Fixture;
use crate::schema::{self, NoEach, NoGenerator};
use crate::spec::{Revision, RuleId};

/// One `cases/<area>.json` file of the memspec conformance suite (see `cases/README.md`): the
/// cases of one area, as written, with their `$each` elements.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseFile {
    /// Points at the JSON Schema, for editors.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The area every case in the file belongs to (`view-file`, `create`, `paths`, ...); case
    /// ids start with it and a dot.
    #[schemars(regex(pattern = schema::SLUG))]
    pub area: String,
    /// What the area covers.
    #[serde(default)]
    pub description: String,
    /// The cases, in file order.
    #[schemars(length(min = 1))]
    pub cases: Vec<Case>,
}

/// One case: fixtures, setup calls, steps with expectations, and effects.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Stable slug, `area.what-it-checks`; never renumbered.
    #[schemars(regex(pattern = schema::CASE_ID))]
    pub id: String,
    /// One sentence: what the case checks.
    #[schemars(length(min = 1))]
    pub title: String,
    /// Ids of the rules in `spec/` it checks; the first is the rule of every check that names
    /// none itself. A check's level is its rule's: levels live in `spec/` only.
    #[schemars(with = "Vec<RuleId>", length(min = 1))]
    pub rules: Vec<String>,
    /// The revisions of the page the case applies to (default: every revision); a case of
    /// something only one revision says is not run under the other.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(min = 1), extend("uniqueItems" = true))]
    pub revisions: Vec<Revision>,
    /// Whether the case is an attack (counted separately; confinement checks are always run).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hostile: bool,
    /// The most seconds each call of the case may take before the backend counts as blocked,
    /// when fewer than `--timeout`: for a case whose point is that the backend answers at once
    /// (a named pipe it must not open), not how fast it is, so that a backend that blocks costs
    /// the run these seconds and not the whole `--timeout`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 60))]
    pub answer_within: Option<u64>,
    /// Files, folders and links made in the memories folder before the backend starts (a case
    /// with fixtures is skipped for a backend that does not keep its memories in that folder).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixtures: Vec<Fixture>,
    /// Tool calls run first; each must succeed (`is_error: false`), under its command's rule
    /// unless it names another. An element `{"$each": {"count": N, "item": CALL}}` stands for N
    /// calls (see `EachSetupCall`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<SetupElement>")]
    pub setup: Vec<SetupCall>,
    /// Whether the backend is restarted between the setup and the steps: stopped as a deploy
    /// stops it (stdin closed, then its process group killed) and started again on the same
    /// store, as a later conversation finds it. The effects are then read through the new
    /// process's own `view`, on a folder too (`restart.*` cases, rule `persistence.restart`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub restart: bool,
    /// The users of a case of a store shared by many users (`users.*` cases, rule
    /// `users.isolated`), in order: the backend is started once per user on one store (as
    /// `{user}` and `MEMSPEC_USER`), and each setup call, step and effect names the user it is
    /// made as, the first by default. Such a case runs only on a backend that takes a user (its
    /// command names `{user}`, or the reference), has no fixtures, reads its effects through
    /// each user's own `view`, and is never a `restart` case.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(min = 2), extend("uniqueItems" = true))]
    pub users: Vec<String>,
    /// In a case of many users, whether the users' steps are made at once: each user's in
    /// order, every user's after one barrier, so that their calls interleave however the
    /// backend serves them. Users kept apart answer the same whatever the interleaving, so
    /// each step is judged as written.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub together: bool,
    /// The calls under test, in order.
    #[schemars(length(min = 1))]
    pub steps: Vec<Step>,
    /// Checks of the memories folder after the steps (filesystem backends only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<Effect>,
}

/// One setup call: a tool input, or a tool input with the rule under which it must succeed.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SetupCall {
    /// `{"input": {...}, "user": "u10"}`: a call made as one of the case's `users`; with a
    /// `rule`, the rule that makes it succeed (as for a plain call otherwise).
    AsUser {
        /// The tool input.
        #[schemars(schema_with = "tool_input")]
        input: Value,
        /// Which of the case's `users` makes it.
        user: String,
        /// The rule that makes it succeed, when not its command's own.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(with = "Option<RuleId>")]
        rule: Option<String>,
        /// Read only to refuse it (the lint says why): a call of one of many users is never
        /// planted, since where that user's memories lie is the backend's choice.
        #[serde(default, skip_serializing)]
        #[schemars(skip)]
        plant: Option<bool>,
    },
    /// `{"input": {"command": "create", ...}, "plant": true}`: a create whose file the case
    /// needs and does not test the making of (a folder of 1,500 files for a listing). On a
    /// backend that keeps its memories in the folder the harness writes the file itself, as it
    /// makes fixtures; any other backend gets the create call. Only a `create` of a
    /// `/memories/...` path with a `file_text` can be planted.
    Planted {
        /// The `create` input.
        #[schemars(schema_with = "tool_input")]
        input: Value,
        /// Always `true`.
        #[schemars(extend("const" = true))]
        plant: bool,
    },
    /// `{"input": {...}, "rule": "decide.hidden-direct"}`: where a backend may refuse the call
    /// under a decision (a hidden name), the rule says so, and the case is then not checked.
    Ruled {
        /// The tool input.
        #[schemars(schema_with = "tool_input")]
        input: Value,
        /// The rule that makes it succeed.
        #[schemars(with = "RuleId")]
        rule: String,
    },
    /// A tool input; it must succeed under its command's own rule (create →
    /// `create.writes-file-text`, str_replace → `str-replace.replaces`, insert →
    /// `insert.inserts`, delete → `delete.removes`, rename → `rename.moves`, view →
    /// `view.file.content`). In any tool input, `{"$repeat": {"line": L, "count": N,
    /// "final_newline": B}}` stands for the text of N copies of L, each followed by `\n` (the
    /// last one only if B, default true).
    #[schemars(schema_with = "tool_call")]
    Plain(Value),
}

/// A tool input in a setup call: an object, with no `$each` in it.
fn tool_input(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "object", "allOf": [generator.subschema_for::<NoEach>()] })
}

/// A plain setup call: a tool input object with its `command`, with no `$each` in it.
fn tool_call(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "object",
        "required": ["command"],
        "allOf": [generator.subschema_for::<NoEach>()],
    })
}

/// An element of a case's `setup` as a file has it: a setup call, or an `$each` standing for
/// several.
#[derive(JsonSchema)]
#[schemars(untagged)]
pub enum SetupElement {
    /// One setup call.
    Call(SetupCall),
    /// Several.
    Each(EachSetupCall),
}

/// Stands for `count` setup calls: `item` with every `{i}` in its strings (values, not keys, at
/// any depth) replaced by 1, 2, …, `count` in decimal, in that order. Expanded when the case is
/// loaded ([`expand_each`]), before `$repeat` and `{{base}}`.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct EachSetupCall {
    /// How many, and of what.
    #[schemars(rename = "$each")]
    pub each: EachOf<SetupCall>,
}

/// An element of a list of lines (an effect's `lines`, a listing's `lines`) as a file has it: a
/// line, or an `$each` standing for several.
#[derive(JsonSchema)]
#[schemars(untagged)]
pub enum LineElement {
    /// One line.
    Line(String),
    /// Several.
    Each(EachLine),
}

/// Stands for `count` lines: `item` with every `{i}` replaced by 1, 2, …, `count` in decimal, in
/// that order. Expanded when the case is loaded ([`expand_each`]).
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct EachLine {
    /// How many, and of what.
    #[schemars(rename = "$each")]
    pub each: EachOf<String>,
}

/// The body of an `$each`.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields, inline)]
pub struct EachOf<T: JsonSchema> {
    /// How many elements it stands for.
    #[schemars(range(min = 1, max = EACH_MAX))]
    pub count: u64,
    /// The element, with `{i}` where its number goes; it holds neither `$each` nor `$repeat`.
    #[schemars(schema_with = "no_generator::<T>")]
    pub item: T,
}

/// `T`, holding no generator.
fn no_generator<T: JsonSchema>(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "allOf": [generator.subschema_for::<T>(), generator.subschema_for::<NoGenerator>()]
    })
}

impl SetupCall {
    /// The tool input.
    pub fn input(&self) -> &Value {
        match self {
            SetupCall::AsUser { input, .. }
            | SetupCall::Planted { input, .. }
            | SetupCall::Ruled { input, .. }
            | SetupCall::Plain(input) => input,
        }
    }

    /// The tool input, to change in place (generated texts are made at load).
    pub fn input_mut(&mut self) -> &mut Value {
        match self {
            SetupCall::AsUser { input, .. }
            | SetupCall::Planted { input, .. }
            | SetupCall::Ruled { input, .. }
            | SetupCall::Plain(input) => input,
        }
    }

    /// Whether it asks to be planted (`"plant": true`), whoever makes it.
    pub fn asks_to_plant(&self) -> bool {
        match self {
            SetupCall::Planted { plant, .. } => *plant,
            SetupCall::AsUser { plant, .. } => plant.is_some(),
            SetupCall::Ruled { .. } | SetupCall::Plain(_) => false,
        }
    }

    /// The user it is made as, in a case of many users (`None`: the first).
    pub fn user(&self) -> Option<&str> {
        match self {
            SetupCall::AsUser { user, .. } => Some(user),
            SetupCall::Planted { .. } | SetupCall::Ruled { .. } | SetupCall::Plain(_) => None,
        }
    }

    /// What the harness writes itself on a backend on the folder, for a planted create: the
    /// path below `memories/` and the text. `None` for any other call, and for a plant that is
    /// not `"plant": true` on a create of a `/memories/...` path with a `file_text` (which the
    /// lint rejects).
    pub fn planted(&self) -> Option<(&str, &str)> {
        let SetupCall::Planted { input, plant: true } = self else {
            return None;
        };
        if input.get("command")?.as_str()? != "create" {
            return None;
        }
        let path = input.get("path")?.as_str()?.strip_prefix("/memories/")?;
        Some((path, input.get("file_text")?.as_str()?))
    }

    /// The rule it names, if any.
    pub fn rule(&self) -> Option<&str> {
        match self {
            SetupCall::Ruled { rule, .. } => Some(rule),
            SetupCall::AsUser { rule, .. } => rule.as_deref(),
            SetupCall::Planted { .. } | SetupCall::Plain(_) => None,
        }
    }
}

/// The rule a successful call of `command` follows: what a setup call that fails breaks.
pub fn command_rule(command: &str) -> &'static str {
    match command {
        "view" => "view.file.content",
        "str_replace" => "str-replace.replaces",
        "insert" => "insert.inserts",
        "delete" => "delete.removes",
        "rename" => "rename.moves",
        _ => "create.writes-file-text",
    }
}

/// Replaces every `{"$repeat": {"line": L, "count": N, "final_newline": B}}` in a tool input
/// by the text it describes (N copies of L, each followed by `\n`, the last one only if B,
/// default true), so that a case can make a big file with a tool call. `Err` says what is wrong.
pub fn expand_generated(value: &mut Value) -> Result<(), String> {
    match value {
        Value::Object(map) if map.contains_key("$repeat") => {
            let spec = map.get("$repeat").cloned().unwrap_or_default();
            if map.len() != 1 {
                return Err("`$repeat` must be the only key of its object".to_string());
            }
            let line = spec.get("line").and_then(Value::as_str);
            let count = spec.get("count").and_then(Value::as_u64);
            let (Some(line), Some(count)) = (line, count) else {
                return Err("`$repeat` needs a string `line` and a number `count`".to_string());
            };
            let final_newline = spec
                .get("final_newline")
                .and_then(Value::as_bool)
                .unwrap_or(true);
            // 64 MiB: what the reference accepts on one request line.
            let size = (line.len() as u64 + 1).saturating_mul(count);
            if size > 64 << 20 {
                return Err(format!("`$repeat` makes {size} bytes, over 64 MiB"));
            }
            let mut text = String::with_capacity(size as usize);
            for i in 0..count {
                text.push_str(line);
                if final_newline || i + 1 < count {
                    text.push('\n');
                }
            }
            *value = Value::String(text);
            Ok(())
        }
        Value::Object(map) => map.values_mut().try_for_each(expand_generated),
        Value::Array(items) => items.iter_mut().try_for_each(expand_generated),
        _ => Ok(()),
    }
}

/// The most elements one `$each` stands for: enough for a folder of a few thousand entries,
/// small enough that a case file cannot make the loader build millions of calls.
pub const EACH_MAX: u64 = 10_000;

/// The placeholder an `$each` item's strings carry: the element's number, 1 to `count`.
const EACH_INDEX: &str = "{i}";

/// Expands every `{"$each": {"count": N, "item": T}}` in the arrays of a raw case that may hold
/// one: `setup`, an effect's `lines` (in `effects` and in a step's `or`), and a `listing`'s
/// `lines` (in a step's `text` and in its dialects' texts). Such an element stands for N
/// elements, `T` with every `{i}` in its strings (values, not keys, at any depth) replaced by
/// 1, 2, …, N in decimal, in that order. N is an integer from 1 to [`EACH_MAX`]; `T` holds no
/// `$each` and no `$repeat`; an `$each` anywhere else is an error. `Err` says what is wrong.
///
/// It runs on the case's JSON before the case is read, so that the rest of the harness only
/// ever sees plain elements (a 1,500-entry folder is 1,500 setup calls, written once).
pub fn expand_each(case: &mut Value) -> Result<(), String> {
    if let Some(setup) = case.get_mut("setup") {
        expand_list(setup)?;
    }
    if let Some(Value::Array(effects)) = case.get_mut("effects") {
        for effect in effects {
            expand_field(effect, "lines")?;
        }
    }
    if let Some(Value::Array(steps)) = case.get_mut("steps") {
        for step in steps {
            if let Some(text) = step.get_mut("text") {
                expand_listing(text)?;
            }
            if let Some(Value::Array(dialects)) = step.get_mut("dialects") {
                for dialect in dialects {
                    if let Some(text) = dialect.get_mut("text") {
                        expand_listing(text)?;
                    }
                }
            }
            if let Some(Value::Array(effects)) = step
                .get_mut("or")
                .and_then(|alternative| alternative.get_mut("effects"))
            {
                for effect in effects {
                    expand_field(effect, "lines")?;
                }
            }
        }
    }
    if holds_key(case, "$each") {
        return Err(
            "`$each` is allowed only as an element of `setup`, of an effect's `lines` or of a listing's `lines`"
                .to_string(),
        );
    }
    Ok(())
}

fn expand_listing(text: &mut Value) -> Result<(), String> {
    match text.get_mut("listing") {
        Some(listing) => expand_field(listing, "lines"),
        None => Ok(()),
    }
}

fn expand_field(object: &mut Value, field: &str) -> Result<(), String> {
    match object.get_mut(field) {
        Some(list) => expand_list(list),
        None => Ok(()),
    }
}

/// Replaces each `$each` element of `list` (if it is an array) by the elements it stands for.
fn expand_list(list: &mut Value) -> Result<(), String> {
    let Value::Array(items) = list else {
        return Ok(());
    };
    if !items.iter().any(|item| item.get("$each").is_some()) {
        return Ok(());
    }
    let mut expanded = Vec::with_capacity(items.len());
    for item in items.drain(..) {
        match item.get("$each") {
            Some(each) => {
                if item.as_object().is_some_and(|map| map.len() != 1) {
                    return Err("`$each` must be the only key of its object".to_string());
                }
                let (count, template) = each_parts(each)?;
                for i in 1..=count {
                    expanded.push(substitute(template, &i.to_string()));
                }
            }
            None => expanded.push(item),
        }
    }
    *items = expanded;
    Ok(())
}

/// The `count` and `item` of an `$each`, checked.
fn each_parts(each: &Value) -> Result<(u64, &Value), String> {
    let Some(map) = each.as_object() else {
        return Err("`$each` must be an object with `count` and `item`".to_string());
    };
    if let Some(other) = map.keys().find(|key| *key != "count" && *key != "item") {
        return Err(format!(
            "`$each` has an unknown key `{other}` (it has exactly `count` and `item`)"
        ));
    }
    let count = map.get("count").and_then(Value::as_u64);
    let (Some(count), Some(item)) = (count, map.get("item")) else {
        return Err("`$each` needs an integer `count` and an `item`".to_string());
    };
    if !(1..=EACH_MAX).contains(&count) {
        return Err(format!(
            "`$each` has `count` {count}; it must be from 1 to {EACH_MAX}"
        ));
    }
    // One generator at a time: a nested one could multiply sizes past any bound.
    if holds_key(item, "$each") || holds_key(item, "$repeat") {
        return Err("an `$each` item may hold neither `$each` nor `$repeat`".to_string());
    }
    Ok((count, item))
}

/// `value` with every `{i}` in its strings (not its keys) replaced by `index`.
fn substitute(value: &Value, index: &str) -> Value {
    match value {
        Value::String(text) => Value::String(text.replace(EACH_INDEX, index)),
        Value::Array(items) => Value::Array(items.iter().map(|v| substitute(v, index)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, v)| (key.clone(), substitute(v, index)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Whether an object anywhere in `value` has the key `key`.
fn holds_key(value: &Value, key: &str) -> bool {
    match value {
        Value::Object(map) => map.contains_key(key) || map.values().any(|v| holds_key(v, key)),
        Value::Array(items) => items.iter().any(|v| holds_key(v, key)),
        _ => false,
    }
}

/// One call and what must come back: `is_error`, `text` or `must_not_contain`, at least one.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("anyOf" = [
    { "required": ["is_error"] },
    { "required": ["text"] },
    { "required": ["must_not_contain"] }
]))]
pub struct Step {
    /// The tool input, sent as is: any JSON value, so that malformed inputs can be tested
    /// (`{{base}}` in strings becomes the sandbox's absolute path; no `$each` in it).
    #[schemars(with = "NoEach")]
    pub input: Value,
    /// Which of the case's `users` makes the call (default: the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// The expected `is_error` flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// The rule that makes `is_error` what it is (default: the case's first rule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<RuleId>")]
    pub is_error_rule: Option<String>,
    /// The expected text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<TextExpectation>,
    /// The rule that prescribes the text (default: the case's first rule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<RuleId>")]
    pub text_rule: Option<String>,
    /// Known variants of the text that official implementations return, each named.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dialects: Vec<Dialect>,
    /// Substrings the text must not contain (MUST): leaked host paths, outside content.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(inner(length(min = 1)))]
    pub must_not_contain: Vec<String>,
    /// Another outcome that a revision allows (GA: `create` may overwrite an existing file).
    #[serde(default, rename = "or", skip_serializing_if = "Option::is_none")]
    pub alternative: Option<Alternative>,
}

/// Another outcome of a step that a revision of the page allows besides the expected one.
///
/// It applies only under revisions in which its `rule` holds. A backend whose answer has the
/// alternative's `is_error` has chosen it: the step's text is not checked (the page gives no words
/// for it), the alternative's effects replace the case's effects on the same paths, and the report
/// says which choice the backend made (INFO).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Alternative {
    /// The rule that allows it (`create.may-overwrite`); its effects are graded under it.
    #[schemars(with = "RuleId")]
    pub rule: String,
    /// The choice's name, as the report shows it (`overwrites`).
    pub choice: String,
    /// The `is_error` flag of an answer that takes this choice.
    pub is_error: bool,
    /// What holds afterwards instead of the case's effects on these paths.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<Effect>,
}

/// How a step's text is matched.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TextExpectation {
    /// Exactly this string; whitespace is explicit (`\t`, `\n`).
    Exact(String),
    /// A structured matcher.
    Matcher(Matcher),
}

/// Matchers for what the spec leaves free.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Matcher {
    /// A template: literal text with placeholders `{size}` (a human-readable size), `{any}`
    /// (anything within one line), `{lines}` (anything at all, across lines, possibly nothing)
    /// and `{int}`.
    /// `{{` and `}}` are literal braces.
    Template(String),
    /// A folder listing: the header line exactly, then the given lines (templates) in any order.
    Listing {
        /// The first line.
        header: String,
        /// The remaining lines, each a template; compared as a set. An element
        /// `{"$each": {"count": N, "item": TEMPLATE}}` stands for N of them.
        #[schemars(with = "Vec<LineElement>")]
        lines: Vec<String>,
    },
    /// The text starts with this prefix (used where the spec fixes only the opening).
    Prefix(String),
}

/// A named, known variant of the expected text.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dialect {
    /// Short name shown in reports (`python-sdk`, `typescript-sdk`).
    #[schemars(regex(pattern = schema::SLUG))]
    pub name: String,
    /// The variant's text (exact or matcher).
    pub text: TextExpectation,
}

/// A check of the memories folder after the steps; paths are spelled `/memories/...`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Effect {
    /// The path checked, `/memories` or below it, never through `..`.
    #[schemars(
        regex(pattern = r"^/memories(/.*)?$"),
        extend("not" = { "pattern": r"(^|/)\.\.(/|$)" })
    )]
    pub path: String,
    /// Which of the case's `users` it is read as, through that user's `view` (default: the
    /// first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// What must hold.
    #[serde(flatten)]
    pub expect: EffectKind,
    /// The rule that makes it hold (default: the case's first rule).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<RuleId>")]
    pub rule: Option<String>,
}

/// What an effect checks.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EffectKind {
    /// A regular file with exactly this content.
    FileText(String),
    /// A regular file with exactly these bytes, hex-encoded (for non-UTF-8 content).
    FileBytesHex(#[schemars(regex(pattern = schema::HEX))] String),
    /// A regular file with exactly one of these byte strings, hex-encoded (where the spec allows
    /// more than one result, such as refusing an edit of a non-UTF-8 file or making it byte-wise).
    FileBytesHexOneOf(
        #[schemars(length(min = 1), inner(regex(pattern = schema::HEX)))] Vec<String>,
    ),
    /// A regular file whose lines are exactly these: split at `\n`, a final `\n` ending the
    /// last line rather than starting one (whether a file ends with one is often a decision).
    /// An element `{"$each": {"count": N, "item": LINE}}` stands for N lines.
    Lines(#[schemars(with = "Vec<LineElement>")] Vec<String>),
    /// A regular file (any content).
    File(#[schemars(schema_with = "schema::always_true")] bool),
    /// A folder.
    Dir(#[schemars(schema_with = "schema::always_true")] bool),
    /// Nothing at that path.
    Absent(#[schemars(schema_with = "schema::always_true")] bool),
    /// A symbolic link pointing at this target (as written in the fixture, `{base}` and
    /// `{memories}` expanded).
    Symlink(String),
}

/// Cases indexed by id, with the file each came from.
pub type CaseIndex = BTreeMap<String, (String, Case)>;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_expands_setup_listings_and_effect_lines_in_order() {
        let mut case = json!({
            "setup": [
                {"command": "create", "path": "/memories/a", "file_text": "a"},
                {"$each": {"count": 3, "item": {"command": "create", "path": "/memories/w/f{i}.txt", "file_text": "{i}\n"}}},
                {"$each": {"count": 1, "item": {"input": {"command": "view", "path": "/memories/{i}"}, "rule": "r"}}}
            ],
            "steps": [{
                "input": {"command": "view", "path": "/memories/w"},
                "text": {"listing": {"header": "H", "lines": ["{size}\t/memories/w", {"$each": {"count": 2, "item": "{size}\t/memories/w/f{i}.txt"}}]}},
                "dialects": [{"name": "d", "text": {"listing": {"header": "h", "lines": [{"$each": {"count": 2, "item": "x{i}{i}"}}]}}}],
                "or": {"rule": "r", "choice": "c", "is_error": false, "effects": [{"path": "/memories/x", "lines": [{"$each": {"count": 2, "item": "same"}}]}]}
            }],
            "effects": [{"path": "/memories/big", "lines": ["first", {"$each": {"count": 2, "item": "L"}}, "last"]}]
        });
        assert_eq!(expand_each(&mut case), Ok(()));
        let setup = case["setup"].as_array().map(Vec::len);
        assert_eq!(setup, Some(5));
        assert_eq!(case["setup"][3]["path"], "/memories/w/f3.txt");
        assert_eq!(case["setup"][3]["file_text"], "3\n");
        assert_eq!(case["setup"][4]["input"]["path"], "/memories/1");
        assert_eq!(
            case["steps"][0]["text"]["listing"]["lines"],
            json!([
                "{size}\t/memories/w",
                "{size}\t/memories/w/f1.txt",
                "{size}\t/memories/w/f2.txt"
            ])
        );
        assert_eq!(
            case["steps"][0]["dialects"][0]["text"]["listing"]["lines"],
            json!(["x11", "x22"])
        );
        assert_eq!(
            case["steps"][0]["or"]["effects"][0]["lines"],
            json!(["same", "same"])
        );
        assert_eq!(
            case["effects"][0]["lines"],
            json!(["first", "L", "L", "last"])
        );
    }

    #[test]
    fn each_is_refused_when_malformed_or_elsewhere() {
        let refused = |mut case: Value| expand_each(&mut case).is_err();
        let each = |spec: Value| json!({"setup": [{"$each": spec}]});
        assert!(refused(each(json!({"count": 0, "item": {}}))));
        assert!(refused(each(json!({"count": EACH_MAX + 1, "item": {}}))));
        assert!(refused(each(json!({"count": -1, "item": {}}))));
        assert!(refused(each(json!({"count": 1.5, "item": {}}))));
        assert!(refused(each(json!({"count": 2}))));
        assert!(refused(each(json!({"count": 2, "item": {}, "from": 0}))));
        assert!(refused(each(json!([2]))));
        assert!(refused(each(
            json!({"count": 2, "item": {"file_text": {"$repeat": {"line": "x", "count": 2}}}})
        )));
        assert!(refused(each(
            json!({"count": 2, "item": {"$each": {"count": 2, "item": {}}}})
        )));
        assert!(refused(
            json!({"setup": [{"$each": {"count": 1, "item": {}}, "rule": "r"}]})
        ));
        assert!(refused(
            json!({"steps": [{"input": {"$each": {"count": 1, "item": {}}}}]})
        ));
        assert!(refused(
            json!({"effects": [{"path": "/memories/a", "file_text": {"$each": {"count": 1, "item": "x"}}}]})
        ));
        assert!(!refused(each(json!({"count": EACH_MAX, "item": "{i}"}))));
    }

    #[test]
    fn each_leaves_keys_and_other_braces_alone() {
        let mut case =
            json!({"setup": [{"$each": {"count": 2, "item": {"{i}": "{size} {i} {{base}} {j}"}}}]});
        assert_eq!(expand_each(&mut case), Ok(()));
        assert_eq!(case["setup"][1], json!({"{i}": "{size} 2 {{base}} {j}"}));
    }
}
