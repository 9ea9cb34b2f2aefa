//! `memspec serve`: the reference backend speaking protocol v1 on any reader and writer.

use std::io::{self, BufRead, Write};
use std::path::Path;

use serde_json::{Value, json};

use crate::backend::wire::{PROTOCOL_VERSION, Request};
use crate::protocol::ToolResult;
use crate::reference::{Reference, ReferenceError};

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

/// Serves requests from `input` until end of input, one reply line per request line.
pub fn serve(
    memories: &Path,
    input: impl BufRead,
    mut output: impl Write,
) -> Result<(), ServeError> {
    let reference = Reference::open(memories)?;
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        match answer(&reference, memories, &line) {
            Answer::Result { id, result } => serde_json::to_writer(
                &mut output,
                &ResultReply {
                    id,
                    content: &result.text,
                    is_error: result.is_error,
                },
            ),
            Answer::Other(value) => serde_json::to_writer(&mut output, &value),
        }
        .map_err(io::Error::from)?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
    Ok(())
}

/// What to write back for one request line.
enum Answer {
    /// A tool result, written without copying its text (a 999,999-line view is ~40 MB).
    Result { id: u64, result: ToolResult },
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

fn answer(reference: &Reference, memories: &Path, line: &str) -> Answer {
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
        (Some("reset"), _) => match wipe(memories) {
            Ok(()) => json!({"id": request.id, "ok": true}),
            Err(e) => json!({"id": request.id, "ok": false, "error": e.to_string()}),
        },
        (Some(other), _) => {
            json!({"id": request.id, "ok": false, "error": format!("unknown control `{other}`")})
        }
        (None, Some(input)) => {
            return Answer::Result {
                id,
                result: reference.call(input),
            };
        }
        (None, None) => {
            let result =
                ToolResult::error("Error: protocol request has neither `input` nor `control`.");
            return Answer::Result { id, result };
        }
    })
}

/// Empties the memories folder, keeping the folder itself. Symlinks are removed, not followed.
pub fn wipe(memories: &Path) -> io::Result<()> {
    for entry in std::fs::read_dir(memories)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            std::fs::remove_dir_all(entry.path())?;
        } else {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}
