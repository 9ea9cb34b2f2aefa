//! JSON Lines of bare tool inputs (`{"command": "view", "path": "/memories"}` per line): what
//! `memspec record` takes when there is no conversation, only the calls.

use serde_json::Value;

use super::jsonl::lines;
use super::{Context, MEMORY_TOOL, ToolCall, TranscriptError};

const INPUT: &str =
    "one memory tool input per line, like {\"command\": \"view\", \"path\": \"/memories\"}";

/// Reads JSON Lines of tool inputs.
pub(crate) fn read(text: &str, ctx: &Context<'_>) -> Result<Vec<ToolCall>, TranscriptError> {
    let mut calls = Vec::new();
    for (n, line) in lines(text) {
        let input: Value = serde_json::from_str(line).map_err(|e| ctx.json(n - 1, &e, INPUT))?;
        if !input.is_object() {
            return Err(ctx.shape(n, "the line is not a JSON object", INPUT));
        }
        calls.push(ToolCall {
            id: format!("step-{}", calls.len() + 1),
            name: MEMORY_TOOL.to_string(),
            input,
            recorded: None,
            line: Some(n),
            user: None,
        });
    }
    Ok(calls)
}
