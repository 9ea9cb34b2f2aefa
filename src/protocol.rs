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

/// An image a tool result shows Claude: an `image` content block of the Messages API.
///
/// [`ToolResult::text`] stays the result's text for comparisons; a result that carries an image
/// has [`Image::describe`] as its text, so that tools comparing texts see which image (its type
/// and size) without holding its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// The block's `media_type`, such as `image/png`.
    pub media_type: String,
    /// The image's bytes (base64 on the wire).
    pub data: Vec<u8>,
}

impl Image {
    /// The text that stands for the image where a text is compared: `[image/png, 1234 bytes]`.
    pub fn describe(&self) -> String {
        format!("[{}, {} bytes]", self.media_type, self.data.len())
    }

    /// The content block, as in a Messages API `tool_result`:
    /// `{"type": "image", "source": {"type": "base64", "media_type": …, "data": …}}`.
    pub fn to_block(&self) -> Value {
        serde_json::json!({
            "type": "image",
            "source": {
                "type": "base64",
                "media_type": self.media_type,
                "data": base64::encode(&self.data),
            }
        })
    }

    /// Reads an `image` content block with a base64 source; the error says what is wrong.
    pub fn from_block(block: &Value) -> Result<Image, String> {
        let source = block
            .get("source")
            .ok_or_else(|| format!("image block has no `source`: {block}"))?;
        match source.get("type").and_then(Value::as_str) {
            Some("base64") => {}
            Some(other) => {
                return Err(format!(
                    "image block's source type is `{other}`; a backend must send `base64`"
                ));
            }
            None => return Err(format!("image block's source has no `type`: {block}")),
        }
        let media_type = match source.get("media_type") {
            Some(Value::String(t)) if !t.is_empty() => t.clone(),
            _ => return Err("image block's source needs a `media_type` string".to_string()),
        };
        let data = match source.get("data") {
            Some(Value::String(d)) => base64::decode(d)
                .ok_or_else(|| "image block's `data` is not valid base64".to_string())?,
            _ => return Err("image block's source needs a `data` string".to_string()),
        };
        Ok(Image { media_type, data })
    }
}

/// Standard base64 (RFC 4648, `+/`, padded), as the Messages API's image sources use. Small
/// enough to write here rather than take a dependency for.
pub mod base64 {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    /// Encodes `bytes`, padded with `=`.
    pub fn encode(bytes: &[u8]) -> String {
        let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                chunk.get(1).copied().unwrap_or(0),
                chunk.get(2).copied().unwrap_or(0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
                if i <= chunk.len() {
                    out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    /// Decodes padded standard base64; `None` for any other character, a length that is not a
    /// multiple of 4, misplaced padding or non-zero bits after the last byte.
    pub fn decode(text: &str) -> Option<Vec<u8>> {
        let bytes = text.as_bytes();
        if !bytes.len().is_multiple_of(4) {
            return None;
        }
        let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
        let quads = bytes.chunks(4);
        let last = quads.len().saturating_sub(1);
        for (index, quad) in quads.enumerate() {
            let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
            if pad > 2 || (pad > 0 && index != last) {
                return None;
            }
            let mut n = 0u32;
            for &c in &quad[..4 - pad] {
                n = (n << 6) | u32::from(value(c)?);
            }
            n <<= 6 * pad as u32;
            let got = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            // Bits below the last whole byte must be zero, so that every text decodes to one
            // byte string and a byte string has one encoding.
            if (pad == 1 && got[2] != 0) || (pad == 2 && (got[1] != 0 || got[2] != 0)) {
                return None;
            }
            out.extend_from_slice(&got[..3 - pad]);
        }
        Some(out)
    }

    fn value(c: u8) -> Option<u8> {
        match c {
            b'A'..=b'Z' => Some(c - b'A'),
            b'a'..=b'z' => Some(c - b'a' + 26),
            b'0'..=b'9' => Some(c - b'0' + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn round_trips_every_length_and_refuses_bad_text() {
            let cases: [(&[u8], &str); 5] = [
                (b"", ""),
                (b"f", "Zg=="),
                (b"fo", "Zm8="),
                (b"foo", "Zm9v"),
                (b"foob", "Zm9vYg=="),
            ];
            for (raw, text) in cases {
                assert_eq!(encode(raw), text);
                assert_eq!(decode(text).as_deref(), Some(raw));
            }
            let all: Vec<u8> = (0..=255).collect();
            assert_eq!(decode(&encode(&all)), Some(all));
            for bad in [
                "Zg=", "Z===", "Zg==Zg==", "Zh==", "Zm9v\n", "Zm-v", "====", "Zm9",
            ] {
                assert_eq!(decode(bad), None, "{bad}");
            }
        }
    }
}

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
