//! Streamed responses: an app that calls the Messages API with `"stream": true` logs the
//! server-sent events rather than a message. They are put back together here into the content
//! blocks the same response has unstreamed, the way the SDKs' stream helpers do: each block opens
//! with `content_block_start`, grows by `content_block_delta` (`text_delta`, `input_json_delta`,
//! `thinking_delta`, ...), and a `tool_use` block's input is the JSON its `partial_json` pieces
//! spell, `{}` when there were none. Only blocks that stopped count: a stream cut off or ended
//! by an `error` event keeps what finished before.
//!
//! Two spellings are read: the raw SSE text (`event: ...` / `data: {...}` lines, as a string),
//! and the events' `data` objects as a JSON array.

use serde_json::{Map, Value};

/// The content blocks of a streamed response, or `None` when `response` is not a stream (it is
/// then a message, read as it is). The error says which event is wrong and how.
pub(crate) fn content(response: &Value) -> Result<Option<Vec<Value>>, String> {
    match response {
        Value::String(text) => {
            let events = sse_events(text)?;
            assemble(events.iter().map(|(at, event)| (*at, event))).map(Some)
        }
        Value::Array(events) => assemble(
            events
                .iter()
                .enumerate()
                .map(|(i, event)| (Where::Index(i), event)),
        )
        .map(Some),
        _ => Ok(None),
    }
}

/// Where an event is, for errors (formatted only when one is reported).
#[derive(Debug, Clone, Copy)]
enum Where {
    /// The line of SSE text its data starts on.
    Line(usize),
    /// Its index in an array of events.
    Index(usize),
}

impl std::fmt::Display for Where {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Where::Line(line) => write!(f, "the event at line {line} of the stream"),
            Where::Index(i) => write!(f, "event [{i}]"),
        }
    }
}

/// The `data` of each event of SSE text, labelled with the line it starts on. Comments
/// (`:`-lines), `event:`, `id:` and `retry:` fields carry nothing the data does not repeat.
fn sse_events(text: &str) -> Result<Vec<(Where, Value)>, String> {
    let mut events = Vec::new();
    let mut data: Vec<&str> = Vec::new();
    let mut start = 0;
    let mut flush = |data: &mut Vec<&str>, start: usize| -> Result<(), String> {
        if data.is_empty() {
            return Ok(());
        }
        let joined = data.join("\n");
        data.clear();
        let at = Where::Line(start);
        let value = serde_json::from_str(&joined)
            .map_err(|e| format!("{at}: its data is not JSON ({e})"))?;
        events.push((at, value));
        Ok(())
    };
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() {
            flush(&mut data, start)?;
            continue;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        if field == "data" {
            if data.is_empty() {
                start = i + 1;
            }
            data.push(value.strip_prefix(' ').unwrap_or(value));
        }
    }
    flush(&mut data, start)?;
    if events.is_empty() {
        return Err(
            "the response is a string with no `data:` lines; expected a message object \
                    or a streamed response (SSE text)"
                .to_string(),
        );
    }
    Ok(events)
}

/// A block being streamed: the block so far, and for `tool_use` the input's JSON text so far.
struct Open {
    block: Map<String, Value>,
    partial_json: String,
}

fn assemble<'a>(
    events: impl IntoIterator<Item = (Where, &'a Value)>,
) -> Result<Vec<Value>, String> {
    let mut blocks: Vec<Option<Open>> = Vec::new();
    let mut done: Vec<Option<Value>> = Vec::new();
    for (label, event) in events {
        let kind = event.get("type").and_then(Value::as_str).unwrap_or("");
        let index = || -> Result<usize, String> {
            event
                .get("index")
                .and_then(Value::as_u64)
                .and_then(|i| usize::try_from(i).ok())
                .ok_or_else(|| format!("{label}: {kind} has no \"index\""))
        };
        match kind {
            "content_block_start" => {
                let i = index()?;
                let Some(Value::Object(block)) = event.get("content_block") else {
                    return Err(format!(
                        "{label}: content_block_start has no \"content_block\" object"
                    ));
                };
                if blocks.len() <= i {
                    blocks.resize_with(i + 1, || None);
                    done.resize_with(i + 1, || None);
                }
                blocks[i] = Some(Open {
                    block: block.clone(),
                    partial_json: String::new(),
                });
            }
            "content_block_delta" => {
                let i = index()?;
                let Some(open) = blocks.get_mut(i).and_then(Option::as_mut) else {
                    return Err(format!(
                        "{label}: a delta for block {i}, which was not started"
                    ));
                };
                let delta = event.get("delta").unwrap_or(&Value::Null);
                apply(open, delta).map_err(|why| format!("{label}: {why}"))?;
            }
            "content_block_stop" => {
                let i = index()?;
                let Some(open) = blocks.get_mut(i).and_then(Option::take) else {
                    return Err(format!("{label}: block {i} stops but was not started"));
                };
                done[i] = Some(finish(open).map_err(|why| format!("{label}: {why}"))?);
            }
            // The server gave up mid-stream (overloaded, say): what finished before stands.
            "error" => break,
            // message_start, message_delta, message_stop, ping: nothing a block is made of.
            _ => {}
        }
    }
    // A block that never stopped (the stream was cut off, or ended in an error) is dropped: an
    // app runs a tool call only once its message is complete.
    Ok(done.into_iter().flatten().collect())
}

/// Adds a delta to an open block.
fn apply(open: &mut Open, delta: &Value) -> Result<(), String> {
    let kind = delta.get("type").and_then(Value::as_str).unwrap_or("");
    let append = |block: &mut Map<String, Value>, field: &str, key: &str| -> Result<(), String> {
        let piece = delta
            .get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{kind} has no \"{key}\" string"))?;
        let so_far = block
            .entry(field)
            .or_insert_with(|| Value::String(String::new()));
        match so_far {
            Value::String(text) => text.push_str(piece),
            _ => *so_far = Value::String(piece.to_string()),
        }
        Ok(())
    };
    match kind {
        "input_json_delta" => {
            let piece = delta
                .get("partial_json")
                .and_then(Value::as_str)
                .ok_or("input_json_delta has no \"partial_json\" string")?;
            open.partial_json.push_str(piece);
            Ok(())
        }
        "text_delta" => append(&mut open.block, "text", "text"),
        "thinking_delta" => append(&mut open.block, "thinking", "thinking"),
        "signature_delta" => append(&mut open.block, "signature", "signature"),
        // Citations and deltas of later API versions do not touch tool calls.
        _ => Ok(()),
    }
}

/// The finished block: a tool_use gets the input its JSON pieces spell.
fn finish(open: Open) -> Result<Value, String> {
    let mut block = open.block;
    let streams_input = matches!(
        block.get("type").and_then(Value::as_str),
        Some("tool_use" | "server_tool_use")
    );
    if streams_input && !open.partial_json.trim().is_empty() {
        let input: Value = serde_json::from_str(&open.partial_json).map_err(|e| {
            let id = block.get("id").and_then(Value::as_str).unwrap_or("?");
            format!("the input of tool_use {id}, joined from its input_json_delta pieces, is not JSON ({e})")
        })?;
        block.insert("input".to_string(), input);
    }
    Ok(Value::Object(block))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::content;

    const SSE: &str = "event: message_start\n\
data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"content\":[]}}\n\
\n\
event: content_block_start\n\
data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\
\n\
: a comment\n\
event: content_block_delta\n\
data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me \"}}\n\
\n\
data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"look.\"}}\n\
\n\
data: {\"type\":\"content_block_stop\",\"index\":0}\n\
\n\
event: ping\n\
data: {\"type\":\"ping\"}\n\
\n\
data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"memory\",\"input\":{}}}\n\
\n\
data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"command\\\": \\\"vi\"}}\n\
\n\
data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"ew\\\", \\\"path\\\": \\\"/memories\\\"}\"}}\n\
\n\
data: {\"type\":\"content_block_stop\",\"index\":1}\n\
\n\
data: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"other\",\"input\":{}}}\n\
\n\
data: {\"type\":\"content_block_stop\",\"index\":2}\n\
\n\
event: message_stop\n\
data: {\"type\":\"message_stop\"}\n";

    fn expected() -> serde_json::Value {
        json!([
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "memory",
             "input": {"command": "view", "path": "/memories"}},
            {"type": "tool_use", "id": "toolu_2", "name": "other", "input": {}},
        ])
    }

    #[test]
    fn sse_text_is_put_back_together() {
        let blocks = content(&json!(SSE)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(json!(blocks), expected());
    }

    #[test]
    fn an_array_of_events_reads_the_same() {
        let events: Vec<serde_json::Value> = SSE
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap_or_else(|e| panic!("{e}")))
            .collect();
        let blocks = content(&json!(events)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(json!(blocks), expected());
    }

    #[test]
    fn a_message_is_not_a_stream() {
        assert_eq!(content(&json!({"content": []})), Ok(None));
    }

    #[test]
    fn only_blocks_that_stopped_count() {
        let events = json!([
            {"type": "content_block_start", "index": 0,
             "content_block": {"type": "tool_use", "id": "toolu_1", "name": "memory", "input": {}}},
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_start", "index": 1,
             "content_block": {"type": "tool_use", "id": "toolu_2", "name": "memory", "input": {}}},
            {"type": "content_block_delta", "index": 1,
             "delta": {"type": "input_json_delta", "partial_json": "{\"comm"}},
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        ]);
        let blocks = content(&events).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            json!(blocks),
            json!([{"type": "tool_use", "id": "toolu_1", "name": "memory", "input": {}}])
        );
    }

    #[test]
    fn broken_streams_say_which_event() {
        let cases = [
            (
                json!("data: {nope\n\n"),
                "the event at line 1 of the stream: its data is not JSON",
            ),
            (
                json!([{"type": "content_block_delta", "index": 3,
                        "delta": {"type": "text_delta", "text": "x"}}]),
                "event [0]: a delta for block 3, which was not started",
            ),
            (
                json!([
                    {"type": "content_block_start", "index": 0,
                     "content_block": {"type": "tool_use", "id": "toolu_9", "input": {}}},
                    {"type": "content_block_delta", "index": 0,
                     "delta": {"type": "input_json_delta", "partial_json": "{\"command\""}},
                    {"type": "content_block_stop", "index": 0},
                ]),
                "event [2]: the input of tool_use toolu_9, joined from its input_json_delta pieces, is not JSON",
            ),
            (json!("just text"), "no `data:` lines"),
        ];
        for (response, expected) in cases {
            let error = content(&response).expect_err("a broken stream");
            assert!(error.contains(expected), "{error}");
        }
    }
}
