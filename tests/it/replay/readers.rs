//! Every transcript shape is read into the same calls; malformed files get errors naming the
//! file, the line (and column for JSON) and what was expected.

use memspec::transcript::{self, Format};
use serde_json::json;

use super::{fixture, read, snap};

/// `(id suffix, name, input command, recorded is_error)` of the first calls, for comparing shapes.
fn shape(name: &str) -> Vec<(String, String, String, Option<bool>)> {
    read(name)
        .calls
        .iter()
        .map(|c| {
            (
                c.id.chars().rev().take(4).collect(),
                c.name.clone(),
                c.input
                    .get("command")
                    .and_then(|v| v.as_str())
                    .unwrap_or("")
                    .to_string(),
                c.recorded.as_ref().map(|r| r.is_error),
            )
        })
        .collect()
}

#[test]
fn every_conversation_shape_reads_the_same_calls() {
    let expected = shape("request.json");
    assert_eq!(expected.len(), 8, "{expected:?}");
    assert_eq!(expected[6].1, "get_weather");
    for (name, format) in [
        ("request.json", Format::Request),
        ("messages.json", Format::Messages),
        ("messages.jsonl", Format::Jsonl),
        ("claude-code.jsonl", Format::Jsonl),
        ("exchanges.jsonl", Format::Exchanges),
        ("exchanges.json", Format::Exchanges),
        // Streamed responses: SSE text and arrays of events, put back together.
        ("exchanges-streamed.jsonl", Format::Exchanges),
    ] {
        assert_eq!(read(name).format, format, "{name}");
        assert_eq!(shape(name), expected, "{name}");
        // Results given as lists of text blocks read as the same text as plain strings.
        let texts: Vec<_> = read(name)
            .calls
            .iter()
            .map(|c| c.recorded.clone())
            .collect();
        let plain: Vec<_> = read("request.json")
            .calls
            .iter()
            .map(|c| c.recorded.clone())
            .collect();
        assert_eq!(texts, plain, "{name}");
    }
}

#[test]
fn other_tools_are_kept_but_not_memory_calls() {
    let transcript = read("request.json");
    let other = &transcript.calls[6];
    assert!(!other.is_memory());
    assert_eq!(other.input, json!({"city": "Lyon"}));
    assert_eq!(transcript.memory_calls().count(), 7);
}

#[test]
fn tool_use_is_paired_with_its_result_by_id() {
    let transcript = read("request.json");
    let first = &transcript.calls[0];
    assert!(first.id.starts_with("toolu_01"));
    let recorded = first
        .recorded
        .as_ref()
        .map(|r| r.text.as_str())
        .unwrap_or("");
    assert!(
        recorded.starts_with("Here're the files and directories"),
        "{recorded}"
    );
    // Lines point at the tool_use block in the pretty-printed request body.
    let line = first.line.unwrap_or(0);
    let text = std::fs::read_to_string(fixture("request.json")).unwrap_or_default();
    let block: Vec<&str> = text.lines().skip(line - 1).take(3).collect();
    assert!(
        block.iter().any(|l| l.contains("\"type\": \"tool_use\"")),
        "line {line}: {block:?}"
    );
}

#[test]
fn sessions_and_inputs_read_in_order() {
    let session = read("session.jsonl");
    assert_eq!(session.format, Format::Session);
    assert_eq!(session.calls.len(), 7);
    assert!(session.calls.iter().all(|c| c.recorded.is_some()));
    assert_eq!(session.session.as_ref().map(|h| h.memspec_session), Some(1));
    let inputs = read("inputs.jsonl");
    assert_eq!(inputs.format, Format::Inputs);
    let same: Vec<_> = session.calls.iter().map(|c| c.input.clone()).collect();
    let given: Vec<_> = inputs.calls.iter().map(|c| c.input.clone()).collect();
    assert_eq!(same, given);
    assert!(inputs.calls.iter().all(|c| c.recorded.is_none()));
}

#[test]
fn the_fifty_step_transcript() {
    let transcript = read("sdk-python-50.request.json");
    assert_eq!(transcript.format, Format::Request);
    assert_eq!(transcript.memory_calls().count(), 50);
    assert_eq!(transcript.calls.len(), 52);
    assert!(transcript.memory_calls().all(|c| c.recorded.is_some()));
}

#[test]
fn a_forced_format_wins_over_detection() {
    let forced = transcript::read(&fixture("messages.jsonl"), Some(Format::Jsonl));
    assert!(forced.is_ok());
    let wrong = transcript::read(&fixture("request.json"), Some(Format::Jsonl));
    let message = wrong
        .map(|_| String::new())
        .unwrap_or_else(|e| e.to_string());
    assert!(
        message.starts_with("tests/fixtures/transcripts/request.json:1:1:"),
        "{message}"
    );
}

#[test]
fn malformed_transcripts_name_file_line_and_what_was_expected() {
    let mut out = String::new();
    for name in [
        "empty.json",
        "syntax.json",
        "syntax.jsonl",
        "no-role.json",
        "tool-use-no-id.jsonl",
        "result-content-number.json",
        "is-error-string.jsonl",
        "session-version.jsonl",
        "session-order.jsonl",
        "session-result.jsonl",
        "unknown.json",
        "no-memory.json",
        "exchange-no-response.jsonl",
        "stream-bad-input.jsonl",
        "inputs-not-object.jsonl",
        "missing.json",
    ] {
        let path = fixture(&format!("malformed/{name}"));
        match transcript::read(&path, None) {
            Ok(t) => panic!("{name} read as {:?}", t.format),
            Err(e) => out.push_str(&format!("{e}\n\n")),
        }
    }
    snap("malformed_transcripts", &out);
}
