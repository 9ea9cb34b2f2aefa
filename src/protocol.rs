//! The memory tool's input model and the result a backend returns.
//!
//! Inputs arrive as raw JSON (`input` of a `tool_use` block). They are parsed by hand rather than
//! with `#[derive(Deserialize)]` so that every malformed input gets a precise, model-readable
//! error message instead of a serde diagnostic.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What a backend answers for one tool call: the text Claude sees and whether it is an error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ToolResult {
    /// The `content` of the `tool_result` block, as text.
    #[schemars(with = "crate::schema::JsonText")]
    pub text: String,
    /// The `is_error` flag of the `tool_result` block.
    pub is_error: bool,
}

impl ToolResult {
    /// A successful result.
    pub fn ok(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_error: false,
        }
    }

    /// An error result (`is_error: true`).
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_error: true,
        }
    }
}

/// An image a tool result shows Claude (an `image` content block): the `memspec-protocol`
/// crate's, so that the harness reads images exactly as backends write them.
///
/// [`ToolResult::text`] stays the result's text for comparisons; a result that carries an image
/// has [`Image::describe`] as its text, so that tools comparing texts see which image (its type
/// and size) without holding its bytes.
pub use memspec_protocol::Image;

/// Standard base64 (RFC 4648, `+/`, padded), as the Messages API's image sources use: the
/// `memspec-protocol` crate's.
pub use memspec_protocol::base64;

/// The six commands of `memory_20250818`, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Show a folder listing or a file with line numbers.
    View {
        /// Path as Claude spelled it.
        path: String,
        /// Optional `[start, end]`, 1-indexed, `end == -1` meaning end of file.
        view_range: Option<(i128, i128)>,
    },
    /// Create a new file; never overwrites.
    Create {
        /// Path as Claude spelled it.
        path: String,
        /// The whole content of the new file.
        file_text: String,
    },
    /// Replace the single occurrence of `old_str` with `new_str`.
    StrReplace {
        /// Path as Claude spelled it.
        path: String,
        /// Text that must occur exactly once.
        old_str: String,
        /// Replacement text.
        new_str: String,
    },
    /// Insert text after line `insert_line` (0 = at the top).
    Insert {
        /// Path as Claude spelled it.
        path: String,
        /// Line after which to insert; lossless for any JSON integer.
        insert_line: i128,
        /// Text to insert.
        insert_text: String,
    },
    /// Delete a file or, recursively, a folder.
    Delete {
        /// Path as Claude spelled it.
        path: String,
    },
    /// Rename or move a file or folder; never overwrites.
    Rename {
        /// Source path as Claude spelled it.
        old_path: String,
        /// Destination path as Claude spelled it.
        new_path: String,
    },
}

/// The command names, in the order the spec documents them.
pub const COMMAND_NAMES: [&str; 6] = [
    "view",
    "create",
    "str_replace",
    "insert",
    "delete",
    "rename",
];

impl Command {
    /// The command's wire name (`"str_replace"`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Command::View { .. } => "view",
            Command::Create { .. } => "create",
            Command::StrReplace { .. } => "str_replace",
            Command::Insert { .. } => "insert",
            Command::Delete { .. } => "delete",
            Command::Rename { .. } => "rename",
        }
    }

    /// Parses a raw tool input. The error is the exact message the reference returns to Claude.
    pub fn parse(input: &Value) -> Result<Command, String> {
        let Value::Object(map) = input else {
            return Err(format!(
                "Error: The tool input must be a JSON object, got {}.",
                json_type(input)
            ));
        };
        let command = match map.get("command") {
            None => return Err("Error: Missing required parameter `command`.".to_string()),
            Some(Value::String(s)) => s.as_str(),
            Some(other) => {
                return Err(format!(
                    "Error: Parameter `command` must be a string, got {}.",
                    json_type(other)
                ));
            }
        };
        let fields = Fields { map, command };
        Ok(match command {
            "view" => Command::View {
                path: fields.string("path")?,
                view_range: fields.view_range()?,
            },
            "create" => Command::Create {
                path: fields.string("path")?,
                file_text: fields.string("file_text")?,
            },
            "str_replace" => Command::StrReplace {
                path: fields.string("path")?,
                old_str: fields.string("old_str")?,
                // Optional, as in the text editor tool: omitting it deletes `old_str`.
                new_str: fields.optional_string("new_str")?.unwrap_or_default(),
            },
            "insert" => Command::Insert {
                path: fields.string("path")?,
                insert_line: fields.integer("insert_line")?,
                insert_text: fields.string("insert_text")?,
            },
            "delete" => Command::Delete {
                path: fields.string("path")?,
            },
            "rename" => Command::Rename {
                old_path: fields.string("old_path")?,
                new_path: fields.string("new_path")?,
            },
            unknown => {
                return Err(format!(
                    "Error: Unknown command `{unknown}`. Valid commands are: {}.",
                    COMMAND_NAMES.join(", ")
                ));
            }
        })
    }
}

struct Fields<'a> {
    map: &'a Map<String, Value>,
    command: &'a str,
}

impl Fields<'_> {
    fn required(&self, field: &str) -> Result<&Value, String> {
        self.map.get(field).ok_or_else(|| {
            format!(
                "Error: Missing required parameter `{field}` for command `{}`.",
                self.command
            )
        })
    }

    fn string(&self, field: &str) -> Result<String, String> {
        match self.required(field)? {
            Value::String(s) => Ok(s.clone()),
            other => Err(wrong_type(field, "a string", other)),
        }
    }

    fn optional_string(&self, field: &str) -> Result<Option<String>, String> {
        match self.map.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(wrong_type(field, "a string", other)),
        }
    }

    fn integer(&self, field: &str) -> Result<i128, String> {
        let value = self.required(field)?;
        as_integer(value).ok_or_else(|| wrong_type(field, "an integer", value))
    }

    fn view_range(&self) -> Result<Option<(i128, i128)>, String> {
        match self.map.get("view_range") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) if items.len() == 2 => {
                match (as_integer(&items[0]), as_integer(&items[1])) {
                    (Some(start), Some(end)) => Ok(Some((start, end))),
                    _ => Err(INVALID_VIEW_RANGE.to_string()),
                }
            }
            Some(_) => Err(INVALID_VIEW_RANGE.to_string()),
        }
    }
}

/// Wording of the text editor tool, which the spec names as the model for the memory tool's errors.
const INVALID_VIEW_RANGE: &str =
    "Error: Invalid `view_range`. It should be a list of two integers.";

fn as_integer(value: &Value) -> Option<i128> {
    let Value::Number(n) = value else { return None };
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

fn wrong_type(field: &str, expected: &str, got: &Value) -> String {
    format!(
        "Error: Parameter `{field}` must be {expected}, got {}.",
        json_type(got)
    )
}

/// The JSON type of a value, as a user would name it in an error message.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a non-integer number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
