//! Messages API messages to tool calls: `tool_use` blocks in order, each paired with the
//! `tool_result` of the same id.
//!
//! A call's input and result are taken out of the parsed messages rather than copied: a
//! result can be a million lines, and the messages are dropped once read.

use std::collections::HashMap;

use serde_json::Value;

use super::{Context, ToolCall, TranscriptError};
use crate::protocol::{ToolResult, json_type};

/// What a message must look like, for error messages.
pub(crate) const MESSAGE: &str = "a Messages API message {\"role\": \"user\" | \"assistant\", \"content\": a string or a list of content blocks}";

/// Where a message sits in the source.
pub(crate) struct Place<'a> {
    /// JSON location for people (`messages[3]`, `line 7`).
    pub(crate) label: String,
    /// Line of the message, and of its content blocks by index when known.
    pub(crate) line_of: &'a dyn Fn(Option<usize>) -> usize,
}

/// Collects tool calls from messages and pairs results with them by id.
#[derive(Default)]
pub(crate) struct Pairing {
    calls: Vec<ToolCall>,
    by_id: HashMap<String, usize>,
}

impl Pairing {
    /// Reads one message's tool_use and tool_result blocks, taking their inputs and results.
    pub(crate) fn message(
        &mut self,
        message: &mut Value,
        place: &Place<'_>,
        ctx: &Context<'_>,
    ) -> Result<(), TranscriptError> {
        let line = (place.line_of)(None);
        let Value::Object(map) = message else {
            return Err(ctx.shape(
                line,
                format!("{} is {}, not a message", place.label, json_type(message)),
                MESSAGE,
            ));
        };
        if !map.get("role").is_some_and(Value::is_string) {
            return Err(ctx.shape(line, format!("{} has no \"role\"", place.label), MESSAGE));
        }
        let blocks = match map.get_mut("content") {
            Some(Value::String(_)) => return Ok(()),
            Some(Value::Array(blocks)) => blocks,
            Some(other) => {
                return Err(ctx.shape(
                    line,
                    format!("{}.content is {}", place.label, json_type(other)),
                    MESSAGE,
                ));
            }
            None => {
                return Err(ctx.shape(
                    line,
                    format!("{} has no \"content\"", place.label),
                    MESSAGE,
                ));
            }
        };
        for (i, block) in blocks.iter_mut().enumerate() {
            let at = (place.line_of)(Some(i));
            let label = format!("{}.content[{i}]", place.label);
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use") => self.tool_use(block, at, &label, ctx)?,
                Some("tool_result") => self.tool_result(block, at, &label, ctx)?,
                Some(_) => {}
                None => {
                    return Err(ctx.shape(
                        at,
                        format!("{label} has no \"type\""),
                        "a content block {\"type\": \"text\" | \"tool_use\" | \"tool_result\" | ...}",
                    ));
                }
            }
        }
        Ok(())
    }

    /// A `tool_use` block, its input taken out of it.
    pub(crate) fn tool_use(
        &mut self,
        block: &mut Value,
        line: usize,
        label: &str,
        ctx: &Context<'_>,
    ) -> Result<(), TranscriptError> {
        const TOOL_USE: &str = "a tool_use block {\"type\": \"tool_use\", \"id\": \"toolu_...\", \"name\": \"memory\", \"input\": {...}}";
        let id = string_field(block, "id").ok_or_else(|| {
            ctx.shape(
                line,
                format!("{label}: a tool_use block without a string \"id\""),
                TOOL_USE,
            )
        })?;
        let name = string_field(block, "name").ok_or_else(|| {
            ctx.shape(
                line,
                format!("{label}: tool_use {id} has no string \"name\""),
                TOOL_USE,
            )
        })?;
        let (id, name) = (id.to_string(), name.to_string());
        let input = block.get_mut("input").map(Value::take).ok_or_else(|| {
            ctx.shape(
                line,
                format!("{label}: tool_use {id} has no \"input\""),
                TOOL_USE,
            )
        })?;
        self.by_id.entry(id.clone()).or_insert(self.calls.len());
        self.calls.push(ToolCall {
            id,
            name,
            input,
            recorded: None,
            line: Some(line),
            user: None,
        });
        Ok(())
    }

    /// A `tool_result` block: recorded on the call of the same id, if there is one and it has
    /// no result yet (an unknown id is a result of a call made before the transcript begins).
    pub(crate) fn tool_result(
        &mut self,
        block: &mut Value,
        line: usize,
        label: &str,
        ctx: &Context<'_>,
    ) -> Result<(), TranscriptError> {
        let (id, result) = tool_result(block, line, label, ctx)?;
        if let Some(call) = self.by_id.get(&id).and_then(|i| self.calls.get_mut(*i))
            && call.recorded.is_none()
        {
            call.recorded = Some(result);
        }
        Ok(())
    }

    /// The calls, in order.
    pub(crate) fn finish(self) -> Vec<ToolCall> {
        self.calls
    }
}

/// Reads a `tool_result` block: its `tool_use_id` and its result, whose text is taken out of
/// the block.
pub(crate) fn tool_result(
    block: &mut Value,
    line: usize,
    label: &str,
    ctx: &Context<'_>,
) -> Result<(String, ToolResult), TranscriptError> {
    const TOOL_RESULT: &str = "a tool_result block {\"type\": \"tool_result\", \"tool_use_id\": \"toolu_...\", \"content\": a string or a list of blocks, \"is_error\": true | false}";
    let id = string_field(block, "tool_use_id")
        .ok_or_else(|| {
            ctx.shape(
                line,
                format!("{label}: a tool_result block without a string \"tool_use_id\""),
                TOOL_RESULT,
            )
        })?
        .to_string();
    let is_error = match block.get("is_error") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(flag)) => *flag,
        Some(other) => {
            return Err(ctx.shape(
                line,
                format!(
                    "{label}: \"is_error\" of tool_result {id} is {}",
                    json_type(other)
                ),
                TOOL_RESULT,
            ));
        }
    };
    let text = match block.get_mut("content") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => std::mem::take(text),
        // One text block (the usual case) becomes the result's text as it is: collecting
        // Strings reuses the first one.
        Some(Value::Array(blocks)) => blocks.iter_mut().map(block_text).collect(),
        Some(other) => {
            return Err(ctx.shape(
                line,
                format!(
                    "{label}: \"content\" of tool_result {id} is {}",
                    json_type(other)
                ),
                TOOL_RESULT,
            ));
        }
    };
    Ok((id, ToolResult { text, is_error }))
}

/// The text a content block contributes to a tool result (taken out of it); what is not text
/// is named, so that it still shows (and differs) in a comparison.
fn block_text(block: &mut Value) -> String {
    if block.get("type").and_then(Value::as_str) == Some("text")
        && let Some(Value::String(text)) = block.get_mut("text")
    {
        return std::mem::take(text);
    }
    match block.get("type").and_then(Value::as_str) {
        Some(kind) => format!("[{kind} block]"),
        None => block.to_string(),
    }
}

fn string_field<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    value.get(key).and_then(Value::as_str)
}
