//! The JSON Schemas of memspec's files, generated from the Rust types that read or write them
//! (`schemars`), so that the types are the one source of each format.
//!
//! - `cases.schema.json`: a `cases/*.json` file ([`crate::suite::case::CaseFile`]), as written,
//!   with its `$each` elements.
//! - `rules.schema.json`, `decisions.schema.json`, `lineages.schema.json`: the files of `spec/`.
//! - `report.schema.json`: what `memspec check --format json` prints
//!   ([`crate::report::formats::JsonReport`]).
//!
//! `memspec spec schemas --write spec` writes them; a test checks that the committed files are
//! exactly [`all`]. What a schema cannot say (ids unique, references that resolve, templates
//! whose placeholders are explained) is checked by the loaders and by `spec/validate.py`.

use std::borrow::Cow;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::Value;

/// A rule id: a stable dotted slug of lower-case words joined by `-`, at least two segments,
/// each starting with a letter (`create.no-overwrite`, `decide.final-newline`).
pub const RULE_ID: &str = r"^[a-z][a-z0-9]*(-[a-z0-9]+)*(\.[a-z][a-z0-9]*(-[a-z0-9]+)*)+$";

/// A decision id: a rule id under `decide.`.
pub const DECISION_ID: &str =
    r"^decide\.[a-z][a-z0-9]*(-[a-z0-9]+)*(\.[a-z][a-z0-9]*(-[a-z0-9]+)*)*$";

/// A lower-case slug: an area, a dialect's name, a lineage's id.
pub const SLUG: &str = r"^[a-z][a-z0-9-]*$";

/// A case id: its area, a dot, and a lower-case slug.
pub const CASE_ID: &str = r"^[a-z][a-z0-9-]*\.[a-z0-9][a-z0-9._-]*$";

/// Bytes written as hex digit pairs, whitespace allowed between them.
pub const HEX: &str = r"^(\s*[0-9a-fA-F]{2})*\s*$";

/// A change of the revision note (`A4`, `B1`).
pub const CHANGE_ID: &str = r"^[AB][0-9]+$";

/// One schema file: its name in `spec/` and its text (pretty JSON ending in a newline).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaFile {
    /// `cases.schema.json`, ...
    pub name: &'static str,
    /// The schema, as written to the file.
    pub text: String,
}

/// Every schema, in a fixed order.
pub fn all() -> Vec<SchemaFile> {
    let read = SchemaSettings::draft2020_12().for_deserialize();
    let written = SchemaSettings::draft2020_12().for_serialize();
    vec![
        file(
            "cases.schema.json",
            "https://memspec.invalid/spec/cases.schema.json",
            "memspec case file",
            read.clone()
                .into_generator()
                .into_root_schema_for::<crate::suite::case::CaseFile>(),
        ),
        file(
            "rules.schema.json",
            "urn:memspec:spec:rules:1",
            "memspec spec rules",
            read.clone()
                .into_generator()
                .into_root_schema_for::<crate::spec::file::RulesFile>(),
        ),
        file(
            "decisions.schema.json",
            "urn:memspec:spec:decisions:1",
            "memspec reference decisions",
            read.clone()
                .into_generator()
                .into_root_schema_for::<crate::spec::file::DecisionsFile>(),
        ),
        file(
            "lineages.schema.json",
            "urn:memspec:spec:lineages:1",
            "memspec known lineages",
            read.into_generator()
                .into_root_schema_for::<crate::judge::lineage::LineagesFile>(),
        ),
        file(
            "report.schema.json",
            "urn:memspec:report:1",
            "memspec check report (JSON)",
            written
                .into_generator()
                .into_root_schema_for::<crate::report::formats::JsonReport<'static>>(),
        ),
    ]
}

/// The schema with `$schema`, `$id`, `title` and `description` first, as pretty JSON, its
/// descriptions read as prose rather than Rust documentation.
fn file(name: &'static str, id: &str, title: &str, schema: Schema) -> SchemaFile {
    let mut value = schema.to_value();
    unwrap_descriptions(&mut value);
    let mut ordered = serde_json::Map::new();
    if let Value::Object(map) = &mut value {
        for (key, first) in [
            ("$schema", map.remove("$schema")),
            ("$id", Some(Value::from(id))),
            ("title", Some(Value::from(title))),
            ("description", map.remove("description")),
        ] {
            if let Some(first) = first {
                ordered.insert(key.to_string(), first);
            }
        }
        map.remove("title");
        ordered.append(map);
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(ordered))
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    text.push('\n');
    SchemaFile { name, text }
}

/// Every `description` in `value` with its lines joined (paragraphs kept) and its Rust links
/// (`` [`Name`] ``) written as code: a doc comment is wrapped at 100 columns, a schema's
/// reader wraps it as they like.
fn unwrap_descriptions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                match item {
                    Value::String(text) if key == "description" => *text = prose(text),
                    _ => unwrap_descriptions(item),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}

/// `doc` as prose: lines joined with a space within a paragraph, `` [`x`] `` as `` `x` ``.
fn prose(doc: &str) -> String {
    let paragraphs: Vec<String> = doc
        .split("\n\n")
        .map(|paragraph| {
            paragraph
                .lines()
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let text = paragraphs.join("\n\n");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(start) = rest.find("[`") {
        let after = &rest[start + 1..];
        match after.find("`]") {
            Some(end) if !after[1..end].contains('`') => {
                out.push_str(&rest[..start]);
                out.push_str(&after[..=end]);
                rest = &after[end + 2..];
            }
            _ => {
                out.push_str(&rest[..start + 2]);
                rest = &rest[start + 2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `true`: the only value a marker (`"dir": true`) takes; `false` would mean nothing.
pub(crate) fn always_true(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "const": true })
}

/// A map from `K` (a string enumeration) to `V`.
pub(crate) fn keyed_by<K: JsonSchema, V: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "propertyNames": generator.subschema_for::<K>(),
        "additionalProperties": generator.subschema_for::<V>(),
    })
}

/// A map keyed by revision id (`beta-2025`, `ga-2026`) to `V`.
pub(crate) fn by_revision<V: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    keyed_by::<crate::spec::Revision, V>(generator)
}

impl JsonSchema for crate::spec::RuleId {
    fn schema_name() -> Cow<'static, str> {
        "RuleId".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The id of a rule of spec/rules.json or, under `decide.`, of a decision of spec/decisions.json: a stable dotted slug of lower-case words joined by '-', at least two segments, each starting with a letter.",
            "type": "string",
            "pattern": RULE_ID,
        })
    }
}

/// Any JSON value in which no object has a `$each` key: a tool input, where `$each` may not
/// stand (only `setup`, an effect's `lines` and a listing's `lines` hold one).
pub struct NoEach;

impl JsonSchema for NoEach {
    fn schema_name() -> Cow<'static, str> {
        "NoEach".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let itself = generator.subschema_for::<NoEach>();
        json_schema!({
            "description": "Any JSON value in which no object has a `$each` key (`$each` stands only as an element of `setup`, of an effect's `lines` or of a listing's `lines`).",
            "anyOf": [
                { "type": ["string", "number", "boolean", "null"] },
                { "type": "array", "items": itself },
                {
                    "type": "object",
                    "not": { "required": ["$each"] },
                    "additionalProperties": itself,
                },
            ],
        })
    }
}

/// Any JSON value in which no object has a `$each` or `$repeat` key: what an `$each` item is
/// made of (generators do not nest, so sizes stay bounded).
pub struct NoGenerator;

impl JsonSchema for NoGenerator {
    fn schema_name() -> Cow<'static, str> {
        "NoGenerator".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let itself = generator.subschema_for::<NoGenerator>();
        json_schema!({
            "description": "Any JSON value in which no object has a `$each` or `$repeat` key.",
            "anyOf": [
                { "type": ["string", "number", "boolean", "null"] },
                { "type": "array", "items": itself },
                {
                    "type": "object",
                    "not": { "anyOf": [{ "required": ["$each"] }, { "required": ["$repeat"] }] },
                    "additionalProperties": itself,
                },
            ],
        })
    }
}
