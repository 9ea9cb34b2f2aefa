#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod base64;
mod message;
mod serve;

pub use message::{
    Block, Content, ContentError, ControlReply, Image, MALFORMED_PREFIX, PROTOCOL_VERSION, Reply,
    Request, ToolResult,
};
pub use serve::{
    MAX_REQUEST_LINE, MemoryHandler, ServeError, ServeOptions, serve, serve_stdio, serve_with,
};

/// `serde_json`, as this crate uses it: [`MemoryHandler::call`] takes a [`serde_json::Value`].
pub use serde_json;
