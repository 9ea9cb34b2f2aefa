//! `memspec serve`: the reference backend speaking protocol v1 on any reader and writer.

use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

use rustix::fs::{Mode, OFlags};
use serde_json::{Value, json};

use crate::backend::wire::{PROTOCOL_VERSION, Request};
use crate::protocol::{Image, ToolResult};
use crate::reference::{Reference, ReferenceError};
use crate::spec::Revision;

/// Why serving stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The reference could not open its folder.
    #[error(transparent)]
    Reference(#[from] ReferenceError),
    /// Reading requests or writing replies failed (for example the harness went away).
    #[error("protocol stream failed: {0}")]
    Io(#[from] io::Error),
}

/// Longest request line `serve` accepts, in bytes, without its newline: 64 MiB.
///
/// Generous on purpose: a `create` of a 100 KiB+ file whose every byte JSON escapes as `\u00XX`
/// is 6 times its size, and the harness's own replies may be 256 MiB. A longer line is answered
/// with a protocol error and skipped without being kept: `serve` never holds more than this much
/// of one line in memory, whatever it is sent.
pub const MAX_REQUEST_LINE: usize = 64 << 20;

/// Serves requests from `input` until end of input, one reply line per request line, as the
/// current revision of the page (`ga-2026`) asks.
pub fn serve(memories: &Path, input: impl BufRead, output: impl Write) -> Result<(), ServeError> {
    serve_as(memories, Revision::default(), input, output)
}

/// Serves requests from `input` until end of input, one reply line per request line, with the
/// reference behaving as `revision` of the page asks ([`Reference::open_as`]).
pub fn serve_as(
    memories: &Path,
    revision: Revision,
    input: impl BufRead,
    mut output: impl Write,
) -> Result<(), ServeError> {
    let reference = Reference::open_as(memories, revision)?;
    // A bigger buffer than stdin's 8 KiB: a 100 KiB create arrives in a few reads.
    let mut input = BufReader::with_capacity(1 << 16, input);
    let mut line = Vec::new();
    loop {
        let answer = match read_line(&mut input, &mut line, MAX_REQUEST_LINE)? {
            Line::End => return Ok(()),
            Line::TooLong => protocol_error(format!(
                "the request line is longer than {MAX_REQUEST_LINE} bytes, the limit of memspec serve; it was skipped"
            )),
            Line::Read => match std::str::from_utf8(&line) {
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => answer(&reference, text),
                // serde_json would refuse it too, without a word about why.
                Err(e) => protocol_error(format!("the request line is not valid UTF-8 ({e})")),
            },
        };
        // A huge line's buffer is not kept for the small ones that follow.
        if line.capacity() > KEPT_LINE_CAPACITY {
            line = Vec::new();
        }
        match answer {
            Answer::Result {
                id,
                result,
                image: None,
            } => serde_json::to_writer(
                &mut output,
                &ResultReply {
                    id,
                    content: &result.text,
                    is_error: result.is_error,
                },
            ),
            // An image goes as the one content block of the reply, as in a Messages API
            // tool_result; its text only describes it, for comparisons.
            Answer::Result {
                id,
                result,
                image: Some(image),
            } => serde_json::to_writer(
                &mut output,
                &json!({"id": id, "content": [image.to_block()], "is_error": result.is_error}),
            ),
            Answer::Other(value) => serde_json::to_writer(&mut output, &value),
        }
        .map_err(io::Error::from)?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
}

/// Largest line buffer kept from one request to the next.
const KEPT_LINE_CAPACITY: usize = 1 << 20;

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
        let (part, used, complete) = match memchr::memchr(b'\n', chunk) {
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

/// A protocol error reply: the request's id is unknown, so it is `null`, as for malformed JSON.
fn protocol_error(why: String) -> Answer {
    Answer::Other(
        json!({"id": null, "content": format!("Error: malformed protocol request: {why}"), "is_error": true}),
    )
}

/// What to write back for one request line.
enum Answer {
    /// A tool result, written without copying its text (a 999,999-line view is ~40 MB), and
    /// the image it shows, if any.
    Result {
        id: u64,
        result: ToolResult,
        image: Option<Image>,
    },
    /// Anything else: controls and protocol errors, small.
    Other(Value),
}

/// A tool result reply, borrowing the text.
#[derive(serde::Serialize)]
struct ResultReply<'a> {
    id: u64,
    content: &'a str,
    is_error: bool,
}

fn answer(reference: &Reference, line: &str) -> Answer {
    let request: Request = match serde_json::from_str(line) {
        Ok(request) => request,
        Err(e) => {
            let id = serde_json::from_str::<Value>(line)
                .ok()
                .and_then(|v| v.get("id").cloned())
                .unwrap_or(Value::Null);
            return Answer::Other(
                json!({"id": id, "content": format!("Error: malformed protocol request: {e}"), "is_error": true}),
            );
        }
    };
    let id = request.id;
    Answer::Other(match (request.control.as_deref(), &request.input) {
        (Some("hello"), _) => json!({
            "id": request.id, "ok": true, "protocol": PROTOCOL_VERSION,
            "backend": concat!("memspec-reference ", env!("CARGO_PKG_VERSION")),
        }),
        (Some("reset"), _) => match reference.reset() {
            Ok(()) => json!({"id": request.id, "ok": true}),
            Err(e) => json!({"id": request.id, "ok": false, "error": e.to_string()}),
        },
        (Some(other), _) => {
            json!({"id": request.id, "ok": false, "error": format!("unknown control `{other}`")})
        }
        (None, Some(input)) => {
            let reply = reference.reply(input);
            return Answer::Result {
                id,
                result: reply.answer.result,
                image: reply.image,
            };
        }
        (None, None) => {
            let result =
                ToolResult::error("Error: protocol request has neither `input` nor `control`.");
            return Answer::Result {
                id,
                result,
                image: None,
            };
        }
    })
}

/// Empties the memories folder at `memories`, keeping the folder itself. Symlinks are removed,
/// not followed, and the folder itself is opened without following a symlink, so a folder
/// swapped for a link is refused rather than emptied through it.
///
/// Prefer [`Reference::reset`], which works on the folder the reference opened at start and so
/// does not depend on the path at all.
pub fn wipe(memories: &Path) -> io::Result<()> {
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(rustix::fs::CWD, memories, flags, Mode::empty())?;
    let dir = cap_std::fs::Dir::from_std_file(std::fs::File::from(fd));
    crate::reference::confine::empty_dir(&dir)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
