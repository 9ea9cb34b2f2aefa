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

use schemars::Schema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

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
