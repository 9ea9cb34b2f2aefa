//! Backend protocol v1: JSON Lines over stdio.
//!
//! harness → backend: `{"id": 1, "input": {...}}` or `{"id": 2, "control": "reset"}`;
//! backend → harness: `{"id": 1, "content": "..." | [{"type": "text", "text": "..."}], "is_error": false}`
//! (the list may also hold `{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "..."}}`
//! blocks, as in a Messages API `tool_result`)
//! or, for a control, `{"id": 2, "ok": true}`.
//!
//! The lines themselves are the `memspec-protocol` crate's types, the ones `memspec serve` and
//! Rust backends write: [`Request`] is its request, and [`content`] reads a reply's `content`
//! with its parser. What stays here is the harness's reading of a reply: the text to compare.

use memspec_protocol::Block;
use serde_json::Value;

use crate::protocol::Image;

pub use memspec_protocol::{PROTOCOL_VERSION, Request};

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
    let blocks = match memspec_protocol::Content::from_value(content) {
        Ok(memspec_protocol::Content::Text(text)) => {
            return Ok(Content {
                text,
                images: Vec::new(),
            });
        }
        Ok(memspec_protocol::Content::Blocks(blocks)) => blocks,
        Err(e) => return Err(e.to_string()),
    };
    let mut read = Content::default();
    for block in blocks {
        match block {
            Block::Text(text) => read.text.push_str(&text),
            Block::Image(image) => {
                read.text.push_str(&image.describe());
                read.images.push(image);
            }
        }
    }
    Ok(read)
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
