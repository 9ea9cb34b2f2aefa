//! Backend protocol v1: JSON Lines over stdio.
//!
//! harness → backend: `{"id": 1, "input": {...}}` or `{"id": 2, "control": "reset"}`;
//! backend → harness: `{"id": 1, "content": "..." | [{"type": "text", "text": "..."}], "is_error": false}`
//! or, for a control, `{"id": 2, "ok": true}`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol version this module speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// One line from the harness to a backend.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Request {
    /// Correlation id, echoed in the reply.
    pub id: u64,
    /// The tool input (absent for a control request). `"input": null` is a (malformed) tool
    /// input, not an absent one, so it is kept as `Some(Value::Null)`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub input: Option<Value>,
    /// A control request: `reset` wipes the memories folder, `hello` asks who is there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control: Option<String>,
}

fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// Turns a reply's `content` into the text Claude would read: a string as is, a list of text
/// blocks concatenated. Anything else is a protocol violation, described in the error.
pub fn content_text(content: &Value) -> Result<String, String> {
    match content {
        Value::String(s) => Ok(s.clone()),
        Value::Array(blocks) => {
            let mut text = String::new();
            for block in blocks {
                match (block.get("type").and_then(Value::as_str), block.get("text")) {
                    (Some("text"), Some(Value::String(t))) => text.push_str(t),
                    _ => return Err(format!("content block is not a text block: {block}")),
                }
            }
            Ok(text)
        }
        other => Err(format!(
            "`content` must be a string or a list of text blocks, got {other}"
        )),
    }
}
