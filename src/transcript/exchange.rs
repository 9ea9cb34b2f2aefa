//! A log of request/response pairs, as an app that wraps the Messages API writes it: JSON Lines
//! of `{"request": {...}, "response": {...}}`, or a JSON array of them.
//!
//! Each response's `tool_use` blocks are calls; a call's result is the `tool_result` with its id
//! in the first later request (the next one, normally). Earlier requests repeat the history, so
//! tool_use blocks inside requests are not calls of their own.
//!
//! A response may be streamed: the SSE text as a string, or its events as an array (see
//! [`super::stream`]).

use std::collections::HashMap;

use serde_json::Value;

use super::jsonl::lines;
use super::locate::Positions;
use super::messages::{Pairing, tool_result};
use super::stream;
use super::{Context, ToolCall, TranscriptError};
use crate::protocol::json_type;

const PAIR: &str = "a request/response pair {\"request\": {\"messages\": [...]}, \"response\": {\"content\": [...]} or a streamed response's SSE text or events}";

/// One pair and where it is; calls' inputs and results are taken out of it.
struct Pair<'a> {
    value: &'a mut Value,
    label: String,
    /// Line of the pair, or of a value inside it given its pointer below the pair.
    line: Box<dyn Fn(&str) -> usize + 'a>,
}

/// Reads a request/response log (`document`: `text` already parsed as one JSON document, if
/// it was).
pub(crate) fn read(
    text: &str,
    document: Option<Value>,
    ctx: &Context<'_>,
) -> Result<Vec<ToolCall>, TranscriptError> {
    let whole = match document {
        Some(document) => Ok(document),
        None => serde_json::from_str::<Value>(text),
    };
    match whole {
        Ok(mut whole) => {
            let positions = Positions::index(text, 6);
            let mut pairs: Vec<Pair<'_>> = match &mut whole {
                Value::Array(items) => items
                    .iter_mut()
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
                whole @ Value::Object(_) => vec![Pair {
                    value: whole,
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
            calls(&mut pairs, ctx)
        }
        Err(_) => {
            let mut values = Vec::new();
            for (n, line) in lines(text) {
                let value: Value =
                    serde_json::from_str(line).map_err(|e| ctx.json(n - 1, &e, PAIR))?;
                values.push((n, value));
            }
            let mut pairs: Vec<Pair<'_>> = values
                .iter_mut()
                .map(|(n, value)| {
                    let n = *n;
                    Pair {
                        value,
                        label: "the pair".to_string(),
                        line: Box::new(move |_: &str| n),
                    }
                })
                .collect();
            calls(&mut pairs, ctx)
        }
    }
}

fn calls(pairs: &mut [Pair<'_>], ctx: &Context<'_>) -> Result<Vec<ToolCall>, TranscriptError> {
    let mut pairing = Pairing::default();
    // Index of the pair whose response made each call.
    let mut origin = Vec::new();
    for (i, pair) in pairs.iter_mut().enumerate() {
        for (j, block) in response_blocks(pair, ctx)?.iter_mut().enumerate() {
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
    // Each call is its pair's request's user's (the request that was answered with it).
    for (call, &pair) in calls.iter_mut().zip(&origin) {
        call.user = pairs[pair]
            .value
            .get("request")
            .and_then(super::request_user);
    }
    let by_id: HashMap<String, usize> = calls
        .iter()
        .enumerate()
        .rev()
        .map(|(i, call)| (call.id.clone(), i))
        .collect();
    for (i, pair) in pairs.iter_mut().enumerate() {
        let line = &pair.line;
        let label = &pair.label;
        for (m, message) in request_messages(pair.value, line, label, ctx)?
            .iter_mut()
            .enumerate()
        {
            let Some(Value::Array(blocks)) = message.get_mut("content") else {
                continue;
            };
            for (b, block) in blocks.iter_mut().enumerate() {
                if block.get("type").and_then(Value::as_str) != Some("tool_result") {
                    continue;
                }
                let at = line(&format!("/request/messages/{m}"));
                let label = format!("{label}.request.messages[{m}].content[{b}]");
                let (id, result) = tool_result(block, at, &label, ctx)?;
                let Some(&c) = by_id.get(&id) else { continue };
                if origin[c] < i && calls[c].recorded.is_none() {
                    calls[c].recorded = Some(result);
                }
            }
        }
    }
    Ok(calls)
}

/// The response's content blocks, taken out of it; an error response (no `content`) has none,
/// and a streamed one (SSE text, or its events as an array) is put back together first.
fn response_blocks(pair: &mut Pair<'_>, ctx: &Context<'_>) -> Result<Vec<Value>, TranscriptError> {
    let Some(response) = pair.value.get_mut("response") else {
        return Err(ctx.shape(
            (pair.line)(""),
            format!("{} has no \"response\"", pair.label),
            PAIR,
        ));
    };
    match stream::content(response) {
        Ok(Some(blocks)) => return Ok(blocks),
        Ok(None) => {}
        Err(why) => {
            return Err(ctx.shape(
                (pair.line)("/response"),
                format!("{}.response (streamed), {why}", pair.label),
                PAIR,
            ));
        }
    }
    if let Some(Value::Array(blocks)) = response.get_mut("content") {
        return Ok(std::mem::take(blocks));
    }
    match response.get("content") {
        None if response.is_object() => Ok(Vec::new()),
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

/// The request's messages of a pair (`value`), which `line` and `label` place.
fn request_messages<'v>(
    value: &'v mut Value,
    line: &dyn Fn(&str) -> usize,
    label: &str,
    ctx: &Context<'_>,
) -> Result<&'v mut [Value], TranscriptError> {
    match value.get_mut("request").and_then(|r| r.get_mut("messages")) {
        Some(Value::Array(messages)) => Ok(messages),
        _ => Err(ctx.shape(
            line(""),
            format!("{label} has no \"request\" with a \"messages\" list"),
            PAIR,
        )),
    }
}
