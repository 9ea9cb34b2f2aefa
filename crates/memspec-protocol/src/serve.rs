//! The serve loop: request lines in, reply lines out, your [`MemoryHandler`] in between.

use std::io::{self, BufRead, BufReader, Write};

use serde_json::Value;

use crate::message::{ControlReply, Reply, Request, ToolResult};

/// A backend of the memory tool, as the serve loop drives it.
///
/// Only [`call`](MemoryHandler::call) is required. Any closure
/// `FnMut(&serde_json::Value) -> R` where `R: Into<ToolResult>` is a handler too (without
/// `reset`), so `|input: &Value| my_store.handle(input)` can be served as it is.
pub trait MemoryHandler {
    /// Answers one tool call. `input` is exactly the `input` of Claude's `tool_use` block,
    /// whatever it holds: a string, `null`, an object without `command` or with fields of the
    /// wrong type must be answered with an error result, never a panic. A panic ends the
    /// process, and memspec reports the case as broken.
    fn call(&mut self, input: &Value) -> ToolResult;

    /// Forgets every memory, as for a new conversation (the memories folder itself, if the
    /// backend uses one, stays). `Err(why)` refuses, and `why` is quoted in memspec's report.
    ///
    /// Optional, but worth it: a backend that resets serves every case of a memspec worker in
    /// one process, while one that refuses (the default) is started afresh for each case.
    fn reset(&mut self) -> Result<(), String> {
        Err("reset is not supported by this backend".to_string())
    }

    /// Who answers `hello`: a name and version, such as `my-backend 1.2.0`.
    fn name(&self) -> String {
        concat!("memspec-protocol ", env!("CARGO_PKG_VERSION"), " backend").to_string()
    }
}

impl<F, R> MemoryHandler for F
where
    F: FnMut(&Value) -> R,
    R: Into<ToolResult>,
{
    fn call(&mut self, input: &Value) -> ToolResult {
        self(input).into()
    }
}

/// Longest request line the serve loop accepts by default, in bytes, without its newline:
/// 64 MiB.
///
/// Generous on purpose: a `create` of a 100 KiB+ file whose every byte JSON escapes as
/// `\u00XX` is 6 times its size. A longer line is answered with a protocol error (`id` null)
/// and skipped without being kept, so the loop never holds more than this much of one line in
/// memory, whatever it is sent. [`ServeOptions::max_line`] changes it.
pub const MAX_REQUEST_LINE: usize = 64 << 20;

/// Largest line buffer kept from one request to the next: a huge line's buffer is not kept
/// for the small ones that follow.
const KEPT_LINE_CAPACITY: usize = 1 << 20;

/// How the serve loop reads its input.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServeOptions {
    /// Longest request line accepted, in bytes without the newline ([`MAX_REQUEST_LINE`] by
    /// default).
    pub max_line: usize,
}

impl Default for ServeOptions {
    fn default() -> ServeOptions {
        ServeOptions {
            max_line: MAX_REQUEST_LINE,
        }
    }
}

impl ServeOptions {
    /// The defaults.
    pub fn new() -> ServeOptions {
        ServeOptions::default()
    }

    /// Accepts request lines of at most `bytes` bytes.
    pub fn max_line(mut self, bytes: usize) -> ServeOptions {
        self.max_line = bytes;
        self
    }
}

/// Why serving stopped before the end of its input.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// Reading a request failed.
    #[error("cannot read a request: {0}")]
    Read(#[source] io::Error),
    /// Writing a reply failed, for example because the harness went away (a broken pipe).
    #[error("cannot write a reply: {0}")]
    Write(#[source] io::Error),
}

impl ServeError {
    /// The I/O error underneath.
    pub fn io_error(&self) -> &io::Error {
        match self {
            ServeError::Read(e) | ServeError::Write(e) => e,
        }
    }

    /// Whether the harness went away (the reply could not be written to a closed pipe): not a
    /// fault of the backend, nothing is left to answer.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, ServeError::Write(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// Serves protocol v1 on this process's stdin and stdout until stdin ends: the whole `main` of
/// a backend. Replies are flushed one by one.
pub fn serve_stdio<H: MemoryHandler + ?Sized>(handler: &mut H) -> Result<(), ServeError> {
    let stdin = io::stdin().lock();
    let stdout = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
    serve(handler, stdin, stdout)
}

/// Serves requests from `input` until it ends, one reply line per request line, each written
/// and flushed before the next request is read. Blank lines are skipped without a reply.
pub fn serve<H: MemoryHandler + ?Sized>(
    handler: &mut H,
    input: impl BufRead,
    output: impl Write,
) -> Result<(), ServeError> {
    serve_with(handler, input, output, &ServeOptions::default())
}

/// [`serve`], with `options`.
///
/// Every line gets an answer, whatever it holds, and the loop goes on: a line that is not
/// UTF-8, not JSON or has no integer `id` gets a [`Reply::Malformed`] (with the line's `id`
/// when it can be read); a line longer than [`ServeOptions::max_line`] is read to its end
/// without being kept and gets a [`Reply::Malformed`] with `id` null. Only reading or writing
/// failing stops the loop early.
pub fn serve_with<H: MemoryHandler + ?Sized>(
    handler: &mut H,
    input: impl BufRead,
    mut output: impl Write,
    options: &ServeOptions,
) -> Result<(), ServeError> {
    // A bigger buffer than stdin's 8 KiB: a 100 KiB create arrives in a few reads.
    let mut input = BufReader::with_capacity(1 << 16, input);
    let mut line = Vec::new();
    loop {
        let reply = match read_line(&mut input, &mut line, options.max_line)
            .map_err(ServeError::Read)?
        {
            Line::End => return Ok(()),
            Line::TooLong => Reply::Malformed {
                id: Value::Null,
                reason: format!(
                    "the request line is longer than {} bytes, the limit of this backend; it was skipped",
                    options.max_line
                ),
            },
            Line::Read => match std::str::from_utf8(&line) {
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => answer(handler, text),
                // serde_json would refuse it too, without a word about why.
                Err(e) => Reply::Malformed {
                    id: Value::Null,
                    reason: format!("the request line is not valid UTF-8 ({e})"),
                },
            },
        };
        if line.capacity() > KEPT_LINE_CAPACITY {
            line = Vec::new();
        }
        write_reply(&mut output, &reply).map_err(ServeError::Write)?;
    }
}

/// Writes one reply line and flushes it.
fn write_reply(output: &mut impl Write, reply: &Reply) -> io::Result<()> {
    serde_json::to_writer(&mut *output, reply).map_err(io::Error::from)?;
    output.write_all(b"\n")?;
    output.flush()
}

/// The reply to one request line (UTF-8, not blank).
fn answer<H: MemoryHandler + ?Sized>(handler: &mut H, line: &str) -> Reply {
    let request: Request = match serde_json::from_str(line) {
        Ok(request) => request,
        Err(e) => {
            let id = serde_json::from_str::<Value>(line)
                .ok()
                .and_then(|v| v.get("id").cloned())
                .unwrap_or(Value::Null);
            return Reply::Malformed {
                id,
                reason: e.to_string(),
            };
        }
    };
    let id = request.id;
    match (request.control.as_deref(), request.input) {
        (Some("hello"), _) => Reply::Control(ControlReply::hello(id, handler.name())),
        (Some("reset"), _) => Reply::Control(match handler.reset() {
            Ok(()) => ControlReply::ok(id),
            Err(why) => ControlReply::refused(id, why),
        }),
        (Some(other), _) => Reply::Control(ControlReply::refused(
            id,
            format!("unknown control `{other}`"),
        )),
        (None, Some(input)) => Reply::Tool {
            id,
            result: handler.call(&input),
        },
        (None, None) => Reply::Tool {
            id,
            result: ToolResult::error("Error: protocol request has neither `input` nor `control`."),
        },
    }
}

/// What [`read_line`] found.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A line is in the buffer, without its `\n` (or `\r\n`).
    Read,
    /// A line over the limit was read and thrown away, up to its newline.
    TooLong,
    /// The input ended.
    End,
}

/// Reads one line into `line` (cleared first), never more than `limit` bytes of it: once a line
/// is over the limit, the rest of it is consumed chunk by chunk and dropped. The last line may
/// lack its newline.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>, limit: usize) -> io::Result<Line> {
    line.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            // End of input: a last line without a newline still counts.
            return Ok(match (any, too_long) {
                (false, _) => Line::End,
                (true, true) => Line::TooLong,
                (true, false) => Line::Read,
            });
        }
        any = true;
        let (part, used, complete) = match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => (&chunk[..at], at + 1, true),
            None => (chunk, chunk.len(), false),
        };
        if !too_long {
            if line.len() + part.len() > limit {
                too_long = true;
                *line = Vec::new();
            } else {
                line.extend_from_slice(part);
            }
        }
        input.consume(used);
        if complete {
            if too_long {
                return Ok(Line::TooLong);
            }
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(Line::Read);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The lines `read_line` finds in `bytes` with a line limit of `limit`.
    fn lines_of(bytes: &[u8], limit: usize) -> Vec<(Line, Vec<u8>)> {
        // A tiny buffer, so that lines span many chunks.
        let mut input = BufReader::with_capacity(3, bytes);
        let mut line = Vec::new();
        let mut out = Vec::new();
        loop {
            let got = read_line(&mut input, &mut line, limit).unwrap_or(Line::End);
            if got == Line::End {
                return out;
            }
            assert!(line.len() <= limit);
            out.push((got, line.clone()));
        }
    }

    #[test]
    fn reads_lines_across_chunks_with_or_without_a_final_newline() {
        let got = lines_of(b"ab\r\ncdefg\n\nlast", 64);
        let want: Vec<(Line, Vec<u8>)> = vec![
            (Line::Read, b"ab".to_vec()),
            (Line::Read, b"cdefg".to_vec()),
            (Line::Read, b"".to_vec()),
            (Line::Read, b"last".to_vec()),
        ];
        assert_eq!(got, want);
        assert!(lines_of(b"", 64).is_empty());
    }

    #[test]
    fn skips_a_line_over_the_limit_and_keeps_the_next() {
        let got = lines_of(b"12345\nok\n123456789\nfine\n1234567", 5);
        let want: Vec<(Line, Vec<u8>)> = vec![
            (Line::Read, b"12345".to_vec()),
            (Line::Read, b"ok".to_vec()),
            (Line::TooLong, Vec::new()),
            (Line::Read, b"fine".to_vec()),
            (Line::TooLong, Vec::new()),
        ];
        assert_eq!(got, want);
    }

    /// A handler that echoes the command and counts resets.
    #[derive(Default)]
    struct Echo {
        resets: usize,
    }

    impl MemoryHandler for Echo {
        fn call(&mut self, input: &Value) -> ToolResult {
            match input.get("command").and_then(Value::as_str) {
                Some(command) => ToolResult::ok(command),
                None => ToolResult::error("Error: no command"),
            }
        }

        fn reset(&mut self) -> Result<(), String> {
            self.resets += 1;
            Ok(())
        }

        fn name(&self) -> String {
            "echo 1".to_string()
        }
    }

    /// The replies `handler` writes for `input`, parsed.
    fn replies(
        handler: &mut dyn MemoryHandler,
        input: &[u8],
        options: &ServeOptions,
    ) -> Vec<Value> {
        let mut output = Vec::new();
        if let Err(e) = serve_with(handler, input, &mut output, options) {
            panic!("serve failed: {e}");
        }
        String::from_utf8_lossy(&output)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
            .collect()
    }

    #[test]
    fn answers_every_kind_of_line_and_goes_on() {
        let mut echo = Echo::default();
        let input = [
            r#"{"id": 1, "control": "hello"}"#,
            r#"{"id": 2, "input": {"command": "view"}}"#,
            "",
            "  \r",
            r#"{"id": 3, "input": "view"}"#,
            "not json",
            r#"{"id": "x", "input": {}}"#,
            r#"{"id": 4}"#,
            r#"{"id": 5, "control": "reset", "input": {"command": "view"}}"#,
            r#"{"id": 6, "control": "dance"}"#,
            "\u{1}{\"id\": 7}",
        ]
        .join("\n");
        let mut bytes = input.into_bytes();
        bytes.extend_from_slice(b"\n\xff{\"id\": 8}\n{\"id\": 9, \"input\": {\"command\": \"x\"}}");
        let got = replies(&mut echo, &bytes, &ServeOptions::new());
        let malformed = |id: Value, got: &Value| {
            assert_eq!(got["id"], id, "{got}");
            assert_eq!(got["is_error"], json!(true), "{got}");
            let text = got["content"].as_str().unwrap_or_default();
            assert!(text.starts_with(crate::MALFORMED_PREFIX), "{got}");
        };
        assert_eq!(got.len(), 11, "{got:#?}");
        assert_eq!(
            got[0],
            json!({"id": 1, "ok": true, "protocol": 1, "backend": "echo 1"})
        );
        assert_eq!(
            got[1],
            json!({"id": 2, "content": "view", "is_error": false})
        );
        assert_eq!(
            got[2],
            json!({"id": 3, "content": "Error: no command", "is_error": true})
        );
        malformed(Value::Null, &got[3]);
        malformed(json!("x"), &got[4]);
        assert_eq!(
            got[5],
            json!({"id": 4, "content": "Error: protocol request has neither `input` nor `control`.", "is_error": true})
        );
        assert_eq!(got[6], json!({"id": 5, "ok": true}));
        assert_eq!(
            got[7],
            json!({"id": 6, "ok": false, "error": "unknown control `dance`"})
        );
        malformed(Value::Null, &got[8]);
        malformed(Value::Null, &got[9]);
        assert!(
            got[9]["content"]
                .as_str()
                .is_some_and(|t| t.contains("not valid UTF-8"))
        );
        assert_eq!(got[10], json!({"id": 9, "content": "x", "is_error": false}));
        assert_eq!(echo.resets, 1);
    }

    #[test]
    fn a_line_over_the_limit_is_answered_and_skipped() {
        let mut echo = Echo::default();
        let long = format!(
            "{{\"id\": 1, \"input\": {{\"command\": \"{}\"}}}}\n{{\"id\": 2, \"input\": {{\"command\": \"ok\"}}}}\n",
            "x".repeat(100)
        );
        let got = replies(
            &mut echo,
            long.as_bytes(),
            &ServeOptions::new().max_line(64),
        );
        assert_eq!(got.len(), 2);
        assert_eq!(got[0]["id"], Value::Null);
        assert!(
            got[0]["content"]
                .as_str()
                .is_some_and(|t| t.contains("longer than 64 bytes")),
            "{}",
            got[0]
        );
        assert_eq!(got[1], json!({"id": 2, "content": "ok", "is_error": false}));
    }

    #[test]
    fn a_closure_is_a_handler_that_refuses_reset() {
        let mut calls = 0;
        let mut handler = |input: &Value| -> Result<String, String> {
            calls += 1;
            input
                .get("path")
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| "Error: no path".to_string())
        };
        let got = replies(
            &mut handler,
            b"{\"id\": 1, \"input\": {\"path\": \"/memories\"}}\n{\"id\": 2, \"control\": \"reset\"}\n{\"id\": 3, \"input\": 7}\n",
            &ServeOptions::new(),
        );
        assert_eq!(
            got,
            [
                json!({"id": 1, "content": "/memories", "is_error": false}),
                json!({"id": 2, "ok": false, "error": "reset is not supported by this backend"}),
                json!({"id": 3, "content": "Error: no path", "is_error": true}),
            ]
        );
        assert_eq!(calls, 2);
    }

    #[test]
    fn a_closed_output_stops_the_loop_with_a_write_error() {
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::from(io::ErrorKind::BrokenPipe))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut echo = Echo::default();
        let got = serve(
            &mut echo,
            &b"{\"id\": 1, \"control\": \"hello\"}\n"[..],
            Closed,
        );
        assert!(
            got.as_ref().is_err_and(ServeError::is_broken_pipe),
            "{got:?}"
        );
    }
}
