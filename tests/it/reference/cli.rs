//! The `memspec call` and `memspec serve` commands, run as real processes.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use super::Sandbox;

fn memspec() -> Command {
    Command::new(env!("CARGO_BIN_EXE_memspec"))
}

fn call(memories: &Path, input: &str, extra: &[&str]) -> Output {
    memspec()
        .arg("call")
        .arg(input)
        .arg("--memories")
        .arg(memories)
        .args(extra)
        .output()
        .expect("run memspec call")
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).expect("utf-8 output")
}

#[test]
fn call_prints_the_text_and_exits_0_on_success() {
    let sb = Sandbox::new();
    let out = call(
        &sb.mem,
        r#"{"command":"create","path":"/memories/a.txt","file_text":"hi\n"}"#,
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        "File created successfully at: /memories/a.txt\n"
    );
    assert_eq!(text(&out.stderr), "");
    let out = call(
        &sb.mem,
        r#"{"command":"view","path":"/memories/a.txt"}"#,
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        "Here's the content of /memories/a.txt with line numbers:\n     1\thi\n"
    );
}

#[test]
fn call_exits_1_on_a_tool_error() {
    let sb = Sandbox::new();
    let out = call(
        &sb.mem,
        r#"{"command":"view","path":"/memories/nope"}"#,
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "The path /memories/nope does not exist. Please provide a valid path.\n"
    );
    // Valid JSON that is not a tool input is a tool error too, not a usage error.
    let out = call(&sb.mem, "[1, 2]", &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "Error: The tool input must be a JSON object, got an array.\n"
    );
}

#[test]
fn call_json_prints_a_reply_object() {
    let sb = Sandbox::new();
    let out = call(
        &sb.mem,
        r#"{"command":"create","path":"/memories/a.txt","file_text":"x"}"#,
        &["--json"],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        "{\"content\":\"File created successfully at: /memories/a.txt\",\"is_error\":false}\n"
    );
    let out = call(
        &sb.mem,
        r#"{"command":"create","path":"/memories/a.txt","file_text":"x"}"#,
        &["--json"],
    );
    assert_eq!(out.status.code(), Some(1));
    let reply: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        reply,
        json!({"content": "Error: File /memories/a.txt already exists", "is_error": true})
    );
}

#[test]
fn call_exits_2_on_invalid_json() {
    let sb = Sandbox::new();
    for input in ["{", "", "view /memories", "{\"command\": 'view'}"] {
        let out = call(&sb.mem, input, &[]);
        assert_eq!(out.status.code(), Some(2), "{input:?}");
        assert_eq!(text(&out.stdout), "", "{input:?}");
        assert!(
            text(&out.stderr).starts_with("memspec: the input is not valid JSON: "),
            "{input:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn call_defaults_to_a_memories_folder_in_the_working_directory() {
    let sb = Sandbox::new();
    let out = memspec()
        .current_dir(&sb.base)
        .args([
            "call",
            r#"{"command":"create","path":"/memories/here.txt","file_text":"h"}"#,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(sb.read("here.txt"), "h");
}

#[test]
fn call_with_an_unusable_memories_folder_is_an_internal_error() {
    let sb = Sandbox::new();
    let file = sb.base.join("not-a-folder");
    std::fs::write(&file, "x").unwrap();
    let out = call(&file, r#"{"command":"view","path":"/memories"}"#, &[]);
    assert_eq!(out.status.code(), Some(4));
    assert!(text(&out.stderr).starts_with("memspec: cannot open the memories folder"));
}

#[test]
fn usage_errors_exit_2() {
    let out = memspec().arg("no-such-command").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = memspec().arg("call").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Runs `memspec serve` over `memories` with `stdin` as its whole input.
fn serve(memories: &Path, stdin: &str) -> (Option<i32>, Vec<Value>, String) {
    let mut child = memspec()
        .arg("serve")
        .arg(memories)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let replies = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect();
    (out.status.code(), replies, text(&out.stderr).to_string())
}

#[test]
fn serve_answers_requests_controls_and_garbage() {
    let sb = Sandbox::new();
    let requests = [
        r#"{"id": 1, "control": "hello"}"#,
        r#"{"id": 2, "input": {"command": "create", "path": "/memories/a.txt", "file_text": "one\n"}}"#,
        "",
        "   ",
        r#"{"id": 3, "input": {"command": "view", "path": "/memories/a.txt"}}"#,
        "this is not json",
        r#"{"id": "seven", "input": {"command": "view", "path": "/memories"}}"#,
        r#"{"id": 4}"#,
        r#"{"id": 5, "input": {"command": "view", "path": "/etc/passwd"}}"#,
        r#"{"id": 6, "control": "reset"}"#,
        r#"{"id": 7, "input": {"command": "view", "path": "/memories"}}"#,
        r#"{"id": 8, "control": "dance"}"#,
        r#"{"id": 9, "input": "view"}"#,
    ];
    let (code, replies, stderr) = serve(&sb.mem, &(requests.join("\n") + "\n"));
    assert_eq!(code, Some(0), "EOF ends serve cleanly: {stderr}");
    let want = [
        json!({"id": 1, "ok": true, "protocol": 1, "backend": concat!("memspec-reference ", env!("CARGO_PKG_VERSION"))}),
        json!({"id": 2, "content": "File created successfully at: /memories/a.txt", "is_error": false}),
        json!({"id": 3, "content": "Here's the content of /memories/a.txt with line numbers:\n     1\tone", "is_error": false}),
        Value::Null, // garbage: checked below
        Value::Null, // non-integer id: checked below
        json!({"id": 4, "content": "Error: protocol request has neither `input` nor `control`.", "is_error": true}),
        json!({"id": 5, "content": "Error: The path /etc/passwd is not a valid memory path: memory paths must be /memories or start with /memories/.", "is_error": true}),
        json!({"id": 6, "ok": true}),
        json!({"id": 7, "content": "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories", "is_error": false}),
        json!({"id": 8, "ok": false, "error": "unknown control `dance`"}),
        json!({"id": 9, "content": "Error: The tool input must be a JSON object, got a string.", "is_error": true}),
    ];
    assert_eq!(
        replies.len(),
        want.len(),
        "one reply per non-blank line: {replies:#?}"
    );
    for (i, (got, want)) in replies.iter().zip(&want).enumerate() {
        if !want.is_null() {
            assert_eq!(got, want, "reply {i}");
        }
    }
    let garbage = &replies[3];
    assert_eq!(garbage["id"], Value::Null);
    assert_eq!(garbage["is_error"], json!(true));
    assert!(
        garbage["content"]
            .as_str()
            .unwrap()
            .starts_with("Error: malformed protocol request: "),
        "{garbage}"
    );
    let bad_id = &replies[4];
    assert_eq!(bad_id["id"], json!("seven"));
    assert_eq!(bad_id["is_error"], json!(true));
    // reset emptied the folder but kept it.
    assert!(sb.mem.is_dir());
    assert!(!sb.exists("a.txt"));
}

#[test]
fn serve_reset_removes_links_without_following_them() {
    let sb = Sandbox::new();
    std::fs::create_dir(sb.base.join("outside")).unwrap();
    std::fs::write(sb.base.join("outside/keep.txt"), "keep").unwrap();
    sb.symlink("../outside", "link_out");
    sb.write("d/f.txt", "x");
    sb.write(".hidden", "x");
    let (code, replies, _) = serve(&sb.mem, "{\"id\": 1, \"control\": \"reset\"}\n");
    assert_eq!(code, Some(0));
    assert_eq!(replies, [json!({"id": 1, "ok": true})]);
    assert_eq!(std::fs::read_dir(&sb.mem).unwrap().count(), 0);
    assert_eq!(
        std::fs::read_to_string(sb.base.join("outside/keep.txt")).unwrap(),
        "keep"
    );
}

#[test]
fn serve_with_empty_input_exits_0_and_creates_the_folder() {
    let sb = Sandbox::new();
    let fresh = sb.base.join("fresh/memories");
    let (code, replies, _) = serve(&fresh, "");
    assert_eq!(code, Some(0));
    assert!(replies.is_empty());
    assert!(fresh.is_dir());
}
