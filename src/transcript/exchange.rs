//! A log of request/response pairs, as an app that wraps the Messages API writes it: JSON Lines
//! of `{"request": {...}, "response": {...}}`, or a JSON array of them.
//!
//! Each response's `tool_use` blocks are calls; a call's result is the `tool_result` with its id
//! in the first later request (the next one, normally). Earlier requests repeat the history, so
//! tool_use blocks inside requests are not calls of their own.
//!
//! A response may be streamed: the SSE text as a string, or its events as an array (see
//! [`super::stream`]).

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::Value;

use super::jsonl::lines;
use super::locate::Positions;
use super::messages::{Pairing, tool_result};
use super::stream;
use super::{Context, ToolCall, TranscriptError};
use crate::protocol::json_type;

const PAIR: &str = "a request/response pair {\"request\": {\"messages\": [...]}, \"response\": {\"content\": [...]} or a streamed response's SSE text or events}";

/// One pair and where it is.
struct Pair<'a> {
    value: &'a Value,
    label: String,
    /// Line of the pair, or of a value inside it given its pointer below the pair.
    line: Box<dyn Fn(&str) -> usize + 'a>,
}

/// Reads a request/response log.
pub(crate) fn read(text: &str, ctx: &Context<'_>) -> Result<Vec<ToolCall>, TranscriptError> {
    match serde_json::from_str::<Value>(text) {
        Ok(whole) => {
            let positions = Positions::index(text, 6);
            let pairs: Vec<Pair<'_>> = match &whole {
                Value::Array(items) => items
                    .iter()
                    .enumerate()
                    .map(|(i, value)| {
                        let positions = &positions;
                        Pair {
                            value,
                            label: format!("pair [{i}]"),
                            line: Box::new(move |inner: &str| {
                                positions.line(&format!("/{i}{inner}"))
                            }),
                        }
                    })
                    .collect(),
                Value::Object(_) => vec![Pair {
                    value: &whole,
                    label: "the pair".to_string(),
                    line: Box::new(|inner: &str| positions.line(inner)),
                }],
                other => {
                    return Err(ctx.shape(
                        1,
                        format!("the document is {}", json_type(other)),
                        PAIR,
                    ));
                }
            };
            calls(&pairs, ctx)
        }
        Err(_) => {
            let mut values = Vec::new();
            for (n, line) in lines(text) {
                let value: Value =
                    serde_json::from_str(line).map_err(|e| ctx.json(n - 1, &e, PAIR))?;
                values.push((n, value));
            }
            let pairs: Vec<Pair<'_>> = values
                .iter()
                .map(|(n, value)| Pair {
                    value,
                    label: "the pair".to_string(),
                    line: Box::new(move |_: &str| *n),
                })
                .collect();
            calls(&pairs, ctx)
        }
    }
}

fn calls(pairs: &[Pair<'_>], ctx: &Context<'_>) -> Result<Vec<ToolCall>, TranscriptError> {
    let mut pairing = Pairing::default();
    // Index of the pair whose response made each call.
    let mut origin = Vec::new();
    for (i, pair) in pairs.iter().enumerate() {
        for (j, block) in response_blocks(pair, ctx)?.iter().enumerate() {
            if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                let line = (pair.line)(&format!("/response/content/{j}"));
                pairing.tool_use(
                    block,
                    line,
                    &format!("{}.response.content[{j}]", pair.label),
                    ctx,
                )?;
                origin.push(i);
            }
        }
    }
    let mut calls = pairing.finish();
    let by_id: HashMap<String, usize> = calls
        .iter()
        .enumerate()
        .rev()
        .map(|(i, call)| (call.id.clone(), i))
        .collect();
    for (i, pair) in pairs.iter().enumerate() {
        for (m, message) in request_messages(pair, ctx)?.iter().enumerate() {
            let Some(Value::Array(blocks)) = message.get("content") else {
                continue;
            };
            for (b, block) in blocks.iter().enumerate() {
                if block.get("type").and_then(Value::as_str) != Some("tool_result") {
                    continue;
                }
                let line = (pair.line)(&format!("/request/messages/{m}"));
                let label = format!("{}.request.messages[{m}].content[{b}]", pair.label);
                let (id, result) = tool_result(block, line, &label, ctx)?;
                let Some(&c) = by_id.get(id) else { continue };
                if origin[c] < i && calls[c].recorded.is_none() {
                    calls[c].recorded = Some(result);
                }
            }
        }
    }
    Ok(calls)
}

/// The response's content blocks; an error response (no `content`) has none, and a streamed
/// one (SSE text, or its events as an array) is put back together first.
fn response_blocks<'a>(
    pair: &Pair<'a>,
    ctx: &Context<'_>,
) -> Result<Cow<'a, [Value]>, TranscriptError> {
    let Some(response) = pair.value.get("response") else {
        return Err(ctx.shape(
            (pair.line)(""),
            format!("{} has no \"response\"", pair.label),
            PAIR,
        ));
    };
    match stream::content(response) {
        Ok(Some(blocks)) => return Ok(Cow::Owned(blocks)),
        Ok(None) => {}
        Err(why) => {
            return Err(ctx.shape(
                (pair.line)("/response"),
                format!("{}.response (streamed), {why}", pair.label),
                PAIR,
            ));
        }
    }
    match response.get("content") {
        Some(Value::Array(blocks)) => Ok(Cow::Borrowed(blocks)),
        None if response.is_object() => Ok(Cow::Borrowed(&[])),
        _ => Err(ctx.shape(
            (pair.line)("/response"),
            format!(
                "{}.response is not a Messages API response (no \"content\" list)",
                pair.label
            ),
            PAIR,
        )),
    }
}

fn request_messages<'a>(
    pair: &Pair<'a>,
    ctx: &Context<'_>,
) -> Result<&'a [Value], TranscriptError> {
    match pair.value.get("request").and_then(|r| r.get("messages")) {
        Some(Value::Array(messages)) => Ok(messages),
        _ => Err(ctx.shape(
            (pair.line)(""),
            format!("{} has no \"request\" with a \"messages\" list", pair.label),
            PAIR,
        )),
    }
}
