//! JSON Lines of messages: one Messages API message per line, or a line wrapping one in
//! `message` (Claude Code sessions, `claude -p --output-format stream-json`). Lines that carry
//! no message (`{"type": "summary"}`, `{"type": "system", "subtype": "init"}`, results) are
//! skipped.

use serde_json::Value;

use super::messages::{MESSAGE, Pairing, Place};
use super::{Context, ToolCall, TranscriptError};

const LINE: &str = "one JSON message per line";

/// Reads JSON Lines of messages.
pub(crate) fn read(text: &str, ctx: &Context<'_>) -> Result<Vec<ToolCall>, TranscriptError> {
    let mut pairing = Pairing::default();
    for (n, line) in lines(text) {
        let mut value: Value = serde_json::from_str(line).map_err(|e| ctx.json(n - 1, &e, LINE))?;
        let message = if value.get("role").is_some() {
            &mut value
        } else if value.get("message").is_some_and(Value::is_object) {
            &mut value["message"]
        } else if value
            .as_object()
            .is_some_and(|map| map.contains_key("type"))
        {
            continue;
        } else {
            return Err(ctx.shape(n, "the line has neither \"role\" nor \"message\"", MESSAGE));
        };
        let line_of = |_: Option<usize>| n;
        let place = Place {
            label: "message".to_string(),
            line_of: &line_of,
        };
        pairing.message(message, &place, ctx)?;
    }
    Ok(pairing.finish())
}

/// Non-blank lines with their 1-based numbers.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line))
        .filter(|(_, line)| !line.trim().is_empty())
}
