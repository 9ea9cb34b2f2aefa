//! The lines of protocol v1: requests from the harness, replies from the backend, and the
//! `content` of a tool result.

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::base64;

/// The protocol version this crate speaks, as `hello` reports it.
pub const PROTOCOL_VERSION: u32 = 1;

/// One line from the harness to a backend: `{"id": 1, "input": {...}}` (a tool call) or
/// `{"id": 2, "control": "reset"}` (a control request).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// Correlation id, echoed in the reply.
    pub id: u64,
    /// The tool input: exactly the `input` of the `tool_use` block, malformed ones included.
    /// Absent for a control request. `"input": null` is a (malformed) tool input, not an absent
    /// one, so it is kept as `Some(Value::Null)`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub input: Option<Value>,
    /// A control request: `reset` forgets every memory, `hello` asks who is there. Any other
    /// name is answered `ok: false`. When a line has both, the control wins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control: Option<String>,
}

fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl Request {
    /// A tool call: `{"id": id, "input": input}`.
    pub fn tool_call(id: u64, input: Value) -> Request {
        Request {
            id,
            input: Some(input),
            control: None,
        }
    }

    /// A control request: `{"id": id, "control": name}` (`"reset"` or `"hello"`).
    pub fn control_request(id: u64, name: impl Into<String>) -> Request {
        Request {
            id,
            input: None,
            control: Some(name.into()),
        }
    }
}

/// What a backend answers to one tool call: the `content` Claude sees and whether it is an
/// error (`is_error`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// The `content` of the `tool_result` block.
    pub content: Content,
    /// The `is_error` flag of the `tool_result` block.
    pub is_error: bool,
}

impl ToolResult {
    /// A successful result with `text` as its content.
    pub fn ok(text: impl Into<String>) -> ToolResult {
        ToolResult {
            content: Content::Text(text.into()),
            is_error: false,
        }
    }

    /// An error result (`is_error: true`) with `text` as its content. The memory tool's
    /// errors start with `Error: ` where the spec words them so.
    pub fn error(text: impl Into<String>) -> ToolResult {
        ToolResult {
            content: Content::Text(text.into()),
            is_error: true,
        }
    }

    /// A successful result showing one image (an `image` content block), as a `view` of a PNG
    /// or JPEG file may answer.
    pub fn image(image: Image) -> ToolResult {
        ToolResult {
            content: Content::Blocks(vec![Block::Image(image)]),
            is_error: false,
        }
    }
}

/// `Ok(text)` is a success, `Err(text)` an error: handlers can use `?` on their own
/// `Result<String, String>` and return `result.into()`.
impl<T: Into<String>, E: Into<String>> From<Result<T, E>> for ToolResult {
    fn from(result: Result<T, E>) -> ToolResult {
        match result {
            Ok(text) => ToolResult::ok(text),
            Err(text) => ToolResult::error(text),
        }
    }
}

/// A tool result's `content`: a string, or a list of content blocks as in a Messages API
/// `tool_result`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// `"content": "..."`.
    Text(String),
    /// `"content": [{"type": "text", ...}, {"type": "image", ...}]`.
    Blocks(Vec<Block>),
}

impl From<String> for Content {
    fn from(text: String) -> Content {
        Content::Text(text)
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Content {
        Content::Text(text.to_string())
    }
}

impl Content {
    /// Reads a reply's `content`: a string as is, or a list of `text` blocks and `image` blocks
    /// with a base64 source. Anything else is refused, and the error says what is wrong.
    pub fn from_value(value: &Value) -> Result<Content, ContentError> {
        match value {
            Value::String(text) => Ok(Content::Text(text.clone())),
            Value::Array(blocks) => blocks
                .iter()
                .map(Block::from_value)
                .collect::<Result<Vec<Block>, ContentError>>()
                .map(Content::Blocks),
            other => Err(ContentError::NotContent(other.clone())),
        }
    }
}

impl Serialize for Content {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Content::Text(text) => serializer.serialize_str(text),
            Content::Blocks(blocks) => serializer.collect_seq(blocks),
        }
    }
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Content, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Content::from_value(&value).map_err(serde::de::Error::custom)
    }
}

/// One content block of a tool result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// `{"type": "text", "text": "..."}`.
    Text(String),
    /// `{"type": "image", "source": {"type": "base64", "media_type": "...", "data": "..."}}`.
    Image(Image),
}

impl Block {
    /// Reads one content block: a `text` block with a `text` string, or an `image` block with
    /// a base64 source.
    pub fn from_value(block: &Value) -> Result<Block, ContentError> {
        match (block.get("type").and_then(Value::as_str), block.get("text")) {
            (Some("text"), Some(Value::String(text))) => Ok(Block::Text(text.clone())),
            (Some("image"), _) => Image::from_block(block).map(Block::Image),
            _ => Err(ContentError::NotABlock(block.clone())),
        }
    }
}

impl Serialize for Block {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Block::Text(text) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", text)?;
                map.end()
            }
            Block::Image(image) => image.serialize(serializer),
        }
    }
}

/// An image a tool result shows Claude: an `image` content block of the Messages API, its
/// bytes base64-encoded on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    /// The block's `media_type`, such as `image/png`.
    pub media_type: String,
    /// The image's bytes (base64 on the wire).
    pub data: Vec<u8>,
}

impl Image {
    /// A short text that stands for the image, naming its type and size:
    /// `[image/png, 1234 bytes]`. memspec compares this where it compares texts.
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
    pub fn from_block(block: &Value) -> Result<Image, ContentError> {
        let source = block
            .get("source")
            .ok_or_else(|| ContentError::NoSource(block.clone()))?;
        match source.get("type").and_then(Value::as_str) {
            Some("base64") => {}
            Some(other) => return Err(ContentError::SourceType(other.to_string())),
            None => return Err(ContentError::NoSourceType(block.clone())),
        }
        let media_type = match source.get("media_type") {
            Some(Value::String(t)) if !t.is_empty() => t.clone(),
            _ => return Err(ContentError::NoMediaType),
        };
        let data = match source.get("data") {
            Some(Value::String(d)) => base64::decode(d).ok_or(ContentError::BadBase64)?,
            _ => return Err(ContentError::NoData),
        };
        Ok(Image { media_type, data })
    }
}

impl Serialize for Image {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Source<'a>(&'a Image);
        impl Serialize for Source<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(Some(3))?;
                map.serialize_entry("type", "base64")?;
                map.serialize_entry("media_type", &self.0.media_type)?;
                map.serialize_entry("data", &base64::encode(&self.0.data))?;
                map.end()
            }
        }
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("type", "image")?;
        map.serialize_entry("source", &Source(self))?;
        map.end()
    }
}

/// Why a reply's `content` is not protocol v1 content.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ContentError {
    /// Neither a string nor a list.
    #[error("`content` must be a string or a list of text and image blocks, got {0}")]
    NotContent(Value),
    /// A list item that is neither a text block nor an image block.
    #[error("content block is not a text or image block: {0}")]
    NotABlock(Value),
    /// An image block without `source`.
    #[error("image block has no `source`: {0}")]
    NoSource(Value),
    /// An image source of another type than `base64` (a URL, a file id).
    #[error("image block's source type is `{0}`; a backend must send `base64`")]
    SourceType(String),
    /// An image source without `type`.
    #[error("image block's source has no `type`: {0}")]
    NoSourceType(Value),
    /// An image source without a non-empty `media_type` string.
    #[error("image block's source needs a `media_type` string")]
    NoMediaType,
    /// An image source without a `data` string.
    #[error("image block's source needs a `data` string")]
    NoData,
    /// An image source whose `data` is not padded standard base64.
    #[error("image block's `data` is not valid base64")]
    BadBase64,
}

/// One line from a backend to the harness.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// The answer to a tool call: `{"id": 1, "content": ..., "is_error": false}`.
    Tool {
        /// The request's id.
        id: u64,
        /// The result.
        result: ToolResult,
    },
    /// The answer to a control request: `{"id": 2, "ok": true}`.
    Control(ControlReply),
    /// The answer to a line that is not a request (not JSON, not UTF-8, no integer `id`, too
    /// long): `{"id": null, "content": "Error: malformed protocol request: …", "is_error": true}`,
    /// with the line's `id` when it has one.
    Malformed {
        /// The line's `id` as it was sent, or `null` when it has none that can be read.
        id: Value,
        /// What is wrong with the line.
        reason: String,
    },
}

/// The text that starts the `content` of a [`Reply::Malformed`].
pub const MALFORMED_PREFIX: &str = "Error: malformed protocol request: ";

impl Serialize for Reply {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Reply::Tool { id, result } => {
                let mut map = serializer.serialize_map(Some(3))?;
                map.serialize_entry("id", id)?;
                map.serialize_entry("content", &result.content)?;
                map.serialize_entry("is_error", &result.is_error)?;
                map.end()
            }
            Reply::Control(control) => control.serialize(serializer),
            Reply::Malformed { id, reason } => {
                let mut map = serializer.serialize_map(Some(3))?;
                map.serialize_entry("id", id)?;
                map.serialize_entry("content", &format!("{MALFORMED_PREFIX}{reason}"))?;
                map.serialize_entry("is_error", &true)?;
                map.end()
            }
        }
    }
}

/// The answer to a control request: `{"id": 2, "ok": true}`; for `hello` also `protocol` and
/// `backend`; for a refusal `ok: false` and, optionally, why (`error`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControlReply {
    /// The request's id.
    pub id: u64,
    /// Whether the control was carried out. Anything but `true` means "not supported": for
    /// `reset`, the harness then starts a fresh process for every case.
    pub ok: bool,
    /// The protocol version (`hello` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<u32>,
    /// Who answers (`hello` only), such as `my-backend 1.2.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
    /// Why the control was refused (`ok: false` only); memspec quotes it in its report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ControlReply {
    /// `{"id": id, "ok": true}`.
    pub fn ok(id: u64) -> ControlReply {
        ControlReply {
            id,
            ok: true,
            protocol: None,
            backend: None,
            error: None,
        }
    }

    /// `{"id": id, "ok": true, "protocol": 1, "backend": backend}`: the answer to `hello`.
    pub fn hello(id: u64, backend: impl Into<String>) -> ControlReply {
        ControlReply {
            protocol: Some(PROTOCOL_VERSION),
            backend: Some(backend.into()),
            ..ControlReply::ok(id)
        }
    }

    /// `{"id": id, "ok": false, "error": error}`.
    pub fn refused(id: u64, error: impl Into<String>) -> ControlReply {
        ControlReply {
            ok: false,
            error: Some(error.into()),
            ..ControlReply::ok(id)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(reply: &Reply) -> String {
        serde_json::to_string(reply).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn replies_are_written_in_field_order() {
        let text = Reply::Tool {
            id: 1,
            result: ToolResult::ok("done"),
        };
        assert_eq!(line(&text), r#"{"id":1,"content":"done","is_error":false}"#);
        let image = Reply::Tool {
            id: 2,
            result: ToolResult::image(Image {
                media_type: "image/png".to_string(),
                data: vec![0x89, b'P', b'N', b'G'],
            }),
        };
        assert_eq!(
            line(&image),
            r#"{"id":2,"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw=="}}],"is_error":false}"#
        );
        assert_eq!(
            line(&Reply::Control(ControlReply::hello(3, "me 1.0"))),
            r#"{"id":3,"ok":true,"protocol":1,"backend":"me 1.0"}"#
        );
        assert_eq!(
            line(&Reply::Control(ControlReply::refused(4, "no"))),
            r#"{"id":4,"ok":false,"error":"no"}"#
        );
        assert_eq!(
            line(&Reply::Malformed {
                id: Value::Null,
                reason: "not JSON".to_string()
            }),
            r#"{"id":null,"content":"Error: malformed protocol request: not JSON","is_error":true}"#
        );
        let blocks = Content::Blocks(vec![Block::Text("a".to_string())]);
        assert_eq!(
            serde_json::to_value(&blocks).ok(),
            Some(json!([{"type": "text", "text": "a"}]))
        );
    }

    #[test]
    fn an_image_block_is_the_same_written_either_way() {
        let image = Image {
            media_type: "image/jpeg".to_string(),
            data: (0..=255).collect(),
        };
        assert_eq!(serde_json::to_value(&image).ok(), Some(image.to_block()));
        assert_eq!(Image::from_block(&image.to_block()), Ok(image.clone()));
        assert_eq!(image.describe(), "[image/jpeg, 256 bytes]");
    }

    #[test]
    fn requests_keep_a_null_input_apart_from_a_missing_one() {
        let read = |text: &str| serde_json::from_str::<Request>(text).ok();
        assert_eq!(
            read(r#"{"id": 1, "input": null}"#),
            Some(Request::tool_call(1, Value::Null))
        );
        assert_eq!(
            read(r#"{"id": 2, "control": "reset"}"#),
            Some(Request::control_request(2, "reset"))
        );
        assert_eq!(
            read(r#"{"id": 3}"#),
            Some(Request {
                id: 3,
                input: None,
                control: None
            })
        );
        assert_eq!(read(r#"{"id": "x", "input": {}}"#), None);
        assert_eq!(
            serde_json::to_string(&Request::tool_call(4, json!({"command": "view"}))).ok(),
            Some(r#"{"id":4,"input":{"command":"view"}}"#.to_string())
        );
    }

    #[test]
    fn reads_content_and_says_what_is_wrong() {
        assert_eq!(
            Content::from_value(&json!("plain")),
            Ok(Content::Text("plain".to_string()))
        );
        let read = Content::from_value(&json!([
            {"type": "text", "text": "see: "},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw=="}}
        ]));
        assert_eq!(
            read,
            Ok(Content::Blocks(vec![
                Block::Text("see: ".to_string()),
                Block::Image(Image {
                    media_type: "image/png".to_string(),
                    data: vec![0x89, b'P', b'N', b'G'],
                }),
            ]))
        );
        let error = |value: Value| {
            Content::from_value(&value)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert_eq!(
            error(json!(3)),
            "`content` must be a string or a list of text and image blocks, got 3"
        );
        assert_eq!(
            error(json!([{"type": "text"}])),
            r#"content block is not a text or image block: {"type":"text"}"#
        );
        assert_eq!(
            error(json!([{"type": "image", "source": {"type": "url", "url": "u"}}])),
            "image block's source type is `url`; a backend must send `base64`"
        );
        assert_eq!(
            error(
                json!([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "no!"}}])
            ),
            "image block's `data` is not valid base64"
        );
    }

    #[test]
    fn results_come_from_results() {
        let ok: Result<String, String> = Ok("fine".to_string());
        assert_eq!(ToolResult::from(ok), ToolResult::ok("fine"));
        assert_eq!(
            ToolResult::from(Err::<&str, _>("Error: no")),
            ToolResult::error("Error: no")
        );
    }
}
