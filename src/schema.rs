//! The building blocks of memspec's JSON Schemas that the types of every layer name in their
//! `#[schemars]` attributes: id patterns, markers, maps, and the form a report's text takes.
//! The schema files themselves are made by [`crate::schema_files`], above the layers whose types
//! they describe.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;

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

/// A text of the JSON report too long to hold whole (over 4,096 characters): its ends, its
/// length and its hash. `--full-texts` writes the text instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct BoundedText {
    /// The first 1,024 characters.
    pub head: String,
    /// The last 1,024 characters.
    pub tail: String,
    /// The whole text's length, in characters.
    pub length: usize,
    /// The SHA-256 of the whole text (UTF-8), in lower-case hex.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub sha256: String,
}

/// The schema of a text of the JSON report: a string, or a [`BoundedText`] where the string was
/// too long (see `crate::report::text::bound_json`).
pub struct JsonText;

impl JsonSchema for JsonText {
    fn schema_name() -> Cow<'static, str> {
        "JsonText".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A text: a string, or, when it is longer than 4,096 characters and the report was not asked for --full-texts, its bounded form.",
            "oneOf": [{ "type": "string" }, generator.subschema_for::<BoundedText>()],
        })
    }
}
