//! Telling the formats apart by their first value: a whole JSON document is a request body, a
//! messages array or a pair log; otherwise the first line says what the JSON Lines are.
//!
//! A whole document is handed on with the format, so that its reader does not parse it again:
//! a transcript holding a million-line result is parsed once, and its texts are held once.

use serde_json::Value;

use super::jsonl::lines;
use super::{Format, TranscriptError};
use crate::protocol::json_type;

/// The format of `text`, and the document it parsed as when it is one JSON document (`None`
/// for JSON Lines).
pub(crate) fn detect(text: &str, source: &str) -> Result<(Format, Option<Value>), TranscriptError> {
    let unknown = |line: usize, why: String| TranscriptError::Unknown {
        path: source.to_string(),
        line,
        why,
    };
    let Some((first_line, first)) = lines(text).next() else {
        return Err(unknown(1, "the file is empty".to_string()));
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) => match items.first() {
            None => Err(unknown(1, "an empty JSON array".to_string())),
            Some(item) => match classify(item, true) {
                Some(format) => Ok((format, Some(Value::Array(items)))),
                None => Err(unknown(
                    1,
                    format!("a JSON array whose first item is {}", describe(item)),
                )),
            },
        },
        Ok(value) => match classify(&value, false) {
            Some(format) => Ok((format, Some(value))),
            None => Err(unknown(
                first_line,
                format!("a JSON document that is {}", describe(&value)),
            )),
        },
        Err(whole) => {
            let Ok(value) = serde_json::from_str::<Value>(first) else {
                // Neither a document nor lines: report the document's syntax error, which has
                // the position that matters for a pretty-printed file.
                return Err(TranscriptError::Json {
                    path: source.to_string(),
                    line: whole.line(),
                    column: whole.column(),
                    message: super::error_message(&whole),
                    expected: "a JSON document or JSON Lines",
                });
            };
            // The first line stands alone: JSON Lines. Claude Code sessions may open with lines
            // that carry no message (summaries, snapshots), so look a little further.
            classify(&value, false)
                .or_else(|| {
                    lines(text).skip(1).take(LOOKAHEAD).find_map(|(_, line)| {
                        serde_json::from_str::<Value>(line)
                            .ok()
                            .and_then(|v| classify(&v, false))
                            .filter(|f| *f == Format::Jsonl)
                    })
                })
                .map(|format| (format, None))
                .ok_or_else(|| {
                    unknown(
                        first_line,
                        format!("JSON Lines whose first line is {}", describe(&value)),
                    )
                })
        }
    }
}

/// Lines looked at past the first when it carries no message.
const LOOKAHEAD: usize = 50;

/// The format a value starts; `in_array` when it is the first item of a top-level array.
fn classify(value: &Value, in_array: bool) -> Option<Format> {
    let Value::Object(map) = value else {
        return None;
    };
    let has = |key: &str| map.contains_key(key);
    Some(if has("memspec_session") && !in_array {
        Format::Session
    } else if has("request") && has("response") {
        Format::Exchanges
    } else if has("messages") && !in_array {
        Format::Request
    } else if has("role") || has("message") {
        if in_array {
            Format::Messages
        } else {
            Format::Jsonl
        }
    } else if has("command") && !in_array {
        Format::Inputs
    } else {
        return None;
    })
}

/// A value in a few words, for detection errors.
fn describe(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let keys: Vec<String> = map.keys().take(5).map(|k| format!("\"{k}\"")).collect();
            if keys.is_empty() {
                "an empty object".to_string()
            } else {
                format!("an object with {}", keys.join(", "))
            }
        }
        other => json_type(other).to_string(),
    }
}
