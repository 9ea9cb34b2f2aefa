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

/// Reads a request body (`document`: `text` already parsed, if it was).
pub(crate) fn read_request(
    text: &str,
    document: Option<Value>,
    ctx: &Context<'_>,
) -> Result<Vec<ToolCall>, TranscriptError> {
    let mut value = ctx.document(text, document, REQUEST)?;
    let user = super::request_user(&value);
    let positions = Positions::index(text, 4);
    let messages = match value.get_mut("messages") {
        Some(Value::Array(messages)) => messages,
        Some(other) => {
            return Err(ctx.shape(
                positions.line("/messages"),
                format!("\"messages\" is {}", json_type(other)),
                REQUEST,
            ));
        }
        None => {
            return Err(ctx.shape(
                1,
                format!("the document is {} without \"messages\"", json_type(&value)),
                REQUEST,
            ));
        }
    };
    let mut calls = calls(messages, "/messages", "messages", &positions, ctx)?;
    for call in &mut calls {
        call.user.clone_from(&user);
    }
    Ok(calls)
}

/// Reads a bare messages array (`document`: `text` already parsed, if it was).
pub(crate) fn read_messages(
    text: &str,
    document: Option<Value>,
    ctx: &Context<'_>,
) -> Result<Vec<ToolCall>, TranscriptError> {
    let mut value = ctx.document(text, document, MESSAGES)?;
    let Value::Array(messages) = &mut value else {
        return Err(ctx.shape(
            1,
            format!("the document is {}", json_type(&value)),
            MESSAGES,
        ));
    };
    let positions = Positions::index(text, 3);
    calls(messages, "", "messages", &positions, ctx)
}

/// Tool calls of `messages`, found at `pointer` in the document; their inputs and results are
/// taken out of it, not copied.
pub(crate) fn calls(
    messages: &mut [Value],
    pointer: &str,
    label: &str,
    positions: &Positions,
    ctx: &Context<'_>,
) -> Result<Vec<ToolCall>, TranscriptError> {
    let mut pairing = Pairing::default();
    for (i, message) in messages.iter_mut().enumerate() {
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
