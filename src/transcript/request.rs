//! A Messages API request body (`{"model", "tools", "messages"}`) and a bare `messages` array:
//! one JSON document, usually pretty-printed, whose messages hold the whole conversation.

use serde_json::Value;

use super::locate::Positions;
use super::messages::{Pairing, Place};
use super::{Context, ToolCall, TranscriptError};
use crate::protocol::json_type;

const REQUEST: &str =
    "a Messages API request body {\"model\": ..., \"tools\": [...], \"messages\": [...]}";
const MESSAGES: &str = "a JSON array of Messages API messages";

/// Reads a request body.
pub(crate) fn read_request(
    text: &str,
    ctx: &Context<'_>,
) -> Result<Vec<ToolCall>, TranscriptError> {
    let value: Value = serde_json::from_str(text).map_err(|e| ctx.json(0, &e, REQUEST))?;
    let positions = Positions::index(text, 4);
    let Some(messages) = value.get("messages") else {
        return Err(ctx.shape(
            1,
            format!("the document is {} without \"messages\"", json_type(&value)),
            REQUEST,
        ));
    };
    let Value::Array(messages) = messages else {
        return Err(ctx.shape(
            positions.line("/messages"),
            format!("\"messages\" is {}", json_type(messages)),
            REQUEST,
        ));
    };
    calls(messages, "/messages", "messages", &positions, ctx)
}

/// Reads a bare messages array.
pub(crate) fn read_messages(
    text: &str,
    ctx: &Context<'_>,
) -> Result<Vec<ToolCall>, TranscriptError> {
    let value: Value = serde_json::from_str(text).map_err(|e| ctx.json(0, &e, MESSAGES))?;
    let Value::Array(messages) = &value else {
        return Err(ctx.shape(
            1,
            format!("the document is {}", json_type(&value)),
            MESSAGES,
        ));
    };
    let positions = Positions::index(text, 3);
    calls(messages, "", "messages", &positions, ctx)
}

/// Tool calls of `messages`, found at `pointer` in the document.
pub(crate) fn calls(
    messages: &[Value],
    pointer: &str,
    label: &str,
    positions: &Positions,
    ctx: &Context<'_>,
) -> Result<Vec<ToolCall>, TranscriptError> {
    let mut pairing = Pairing::default();
    for (i, message) in messages.iter().enumerate() {
        let line_of = |block: Option<usize>| match block {
            None => positions.line(&format!("{pointer}/{i}")),
            Some(b) => positions.line(&format!("{pointer}/{i}/content/{b}")),
        };
        let place = Place {
            label: format!("{label}[{i}]"),
            line_of: &line_of,
        };
        pairing.message(message, &place, ctx)?;
    }
    Ok(pairing.finish())
}
