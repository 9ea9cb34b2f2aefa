//! Backend protocol v1: JSON Lines over stdio.
//!
//! harness → backend: `{"id": 1, "input": {...}}` or `{"id": 2, "control": "reset"}`;
//! backend → harness: `{"id": 1, "content": "..." | [{"type": "text", "text": "..."}], "is_error": false}`
//! (the list may also hold `{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "..."}}`
//! blocks, as in a Messages API `tool_result`)
//! or, for a control, `{"id": 2, "ok": true}`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::Image;

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

/// A reply's `content`, read: the text Claude would read, and the images it would see.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Content {
    /// The text blocks concatenated, each image block standing as [`Image::describe`] at its
    /// place, so that a text comparison still tells one image (type, size) from another.
    pub text: String,
    /// The image blocks, in order.
    pub images: Vec<Image>,
}

/// Reads a reply's `content`: a string as is, or a list of content blocks as in a Messages API
/// `tool_result` (`text` blocks concatenated, `image` blocks with a base64 source kept, each
/// described in the text). Anything else is a protocol violation, described in the error.
pub fn content(content: &Value) -> Result<Content, String> {
    match content {
        Value::String(s) => Ok(Content {
            text: s.clone(),
            images: Vec::new(),
        }),
        Value::Array(blocks) => {
            let mut read = Content::default();
            for block in blocks {
                match (block.get("type").and_then(Value::as_str), block.get("text")) {
                    (Some("text"), Some(Value::String(t))) => read.text.push_str(t),
                    (Some("image"), _) => {
                        let image = Image::from_block(block)?;
                        read.text.push_str(&image.describe());
                        read.images.push(image);
                    }
                    _ => {
                        return Err(format!(
                            "content block is not a text or image block: {block}"
                        ));
                    }
                }
            }
            Ok(read)
        }
        other => Err(format!(
            "`content` must be a string or a list of text and image blocks, got {other}"
        )),
    }
}

/// Turns a reply's `content` into the text Claude would read: a string as is, a list of text
/// blocks concatenated, an image block as [`Image::describe`] (see [`content`]). Anything else
/// is a protocol violation, described in the error.
pub fn content_text(value: &Value) -> Result<String, String> {
    content(value).map(|read| read.text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_strings_text_blocks_and_image_blocks() {
        assert_eq!(content_text(&json!("plain")).as_deref(), Ok("plain"));
        let blocks = json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]);
        assert_eq!(content_text(&blocks).as_deref(), Ok("ab"));
        let image = json!([
            {"type": "text", "text": "see: "},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw=="}}
        ]);
        let read = content(&image).expect("an image block is content");
        assert_eq!(read.text, "see: [image/png, 4 bytes]");
        assert_eq!(
            read.images,
            [Image {
                media_type: "image/png".to_string(),
                data: vec![0x89, b'P', b'N', b'G'],
            }]
        );
    }

    #[test]
    fn refuses_what_is_not_content() {
        for bad in [
            json!(3),
            json!({"type": "text", "text": "a"}),
            json!([{"type": "text"}]),
            json!([{"type": "tool_use"}]),
            json!([{"type": "image"}]),
            json!([{"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}]),
            json!([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "not base64!"}}]),
            json!([{"type": "image", "source": {"type": "base64", "data": "iVBORw=="}}]),
        ] {
            assert!(content(&bad).is_err(), "{bad}");
        }
    }
}
