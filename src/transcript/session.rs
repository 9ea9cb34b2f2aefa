//! memspec's recorded sessions: the golden files of snapshot regression.
//!
//! JSON Lines: a header, then one line per memory call with the input sent and the result one
//! backend gave.
//!
//! ```text
//! {"memspec_session": 1, "backend": "reference (in process)", "created": "2026-11-22T08:00:00Z", "seed": {"memories": [{"path": "notes.md", "text": "- tea\n"}]}}
//! {"step": 1, "input": {"command": "view", "path": "/memories"}, "result": {"text": "...", "is_error": false}}
//! ```
//!
//! One line per call keeps diffs of a golden file reviewable in a pull request. A review that
//! accepts another backend's answers adds an entry to the header's `amended` list, so the file
//! never claims all its results come from the backend that first recorded it.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::jsonl::lines;
use super::{Context, MEMORY_TOOL, ToolCall, TranscriptError};
use crate::protocol::ToolResult;
use crate::spec::Revision;

/// The session format version this module reads and writes.
pub const VERSION: u64 = 1;

const HEADER: &str = "a header line {\"memspec_session\": 1, \"backend\": ..., \"created\": ...}";
const STEP: &str = "a step line {\"step\": n, \"input\": {...}, \"result\": {\"text\": \"...\", \"is_error\": false}}";

/// The first line of a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionHeader {
    /// Format version.
    pub memspec_session: u64,
    /// The backend that gave the results, as labelled on the command line.
    #[serde(default)]
    pub backend: String,
    /// When the session was recorded (RFC 3339, UTC).
    #[serde(default)]
    pub created: String,
    /// What the sandbox started with, if anything: the seed itself (its JSON description,
    /// which `replay` plants again), or, in sessions of older memspecs, the seed folder's path.
    /// Boxed: `as_deref` gives the seed, which shows itself with `Display`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<Box<SessionSeed>>,
    /// The revision of the page the session was recorded under (sessions from before revisions
    /// existed have none): `replay --check` judges by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<Revision>,
    /// The user of a store of many users the calls were made as (`record --user`): a replay
    /// of the session starts a backend that takes a user as that user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// Reviews that accepted another backend's answers into the session, oldest first: the
    /// steps named there no longer come from `backend`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub amended: Vec<Amendment>,
}

/// A session's seed, as its header keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SessionSeed {
    /// The path of the seed folder as given to `record` (older sessions): only a name, which
    /// may no longer lead anywhere, so it is shown, never planted.
    Folder(String),
    /// The seed's JSON description (`{"memories": [...], "outside": [...]}`, see
    /// [`crate::replay::scratch`]), kept as written so that a rewrite changes nothing.
    Content(Value),
}

impl std::fmt::Display for SessionSeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionSeed::Folder(path) => f.write_str(path),
            SessionSeed::Content(value) => {
                let count =
                    |key: &str| value.get(key).and_then(Value::as_array).map_or(0, Vec::len);
                write!(
                    f,
                    "a recorded seed ({} entries in /memories, {} outside)",
                    count("memories"),
                    count("outside")
                )
            }
        }
    }
}

/// One review's accepted changes: which backend's answers replaced which steps, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Amendment {
    /// The backend whose answers were accepted, as labelled on the command line.
    pub backend: String,
    /// When the review wrote them (RFC 3339, UTC).
    pub at: String,
    /// The steps that took that backend's answer (numbered as in the step lines).
    pub steps: Vec<u64>,
}

#[derive(Serialize, Deserialize)]
struct StepLine {
    step: u64,
    input: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<ToolResult>,
}

/// A session to write: the header and each call's input and result.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    /// The header.
    pub header: SessionHeader,
    /// Inputs and results, in order.
    pub steps: Vec<(Value, ToolResult)>,
}

/// Reads a session.
pub(crate) fn read(
    text: &str,
    ctx: &Context<'_>,
) -> Result<(SessionHeader, Vec<ToolCall>), TranscriptError> {
    let mut lines = lines(text);
    let Some((n, first)) = lines.next() else {
        return Err(ctx.shape(1, "the file is empty", HEADER));
    };
    let value: Value = serde_json::from_str(first).map_err(|e| ctx.json(n - 1, &e, HEADER))?;
    match value.get("memspec_session").and_then(Value::as_u64) {
        Some(VERSION) => {}
        Some(other) => {
            return Err(ctx.shape(
                n,
                format!("session format version {other} is not supported (this memspec reads version {VERSION})"),
                HEADER,
            ));
        }
        None => {
            return Err(ctx.shape(n, "the first line is not a session header", HEADER));
        }
    }
    let header: SessionHeader = serde_json::from_value(value)
        .map_err(|e| ctx.shape(n, format!("the header is malformed: {e}"), HEADER))?;
    let mut calls = Vec::new();
    for (n, line) in lines {
        let value: Value = serde_json::from_str(line).map_err(|e| ctx.json(n - 1, &e, STEP))?;
        let step: StepLine = serde_json::from_value(value)
            .map_err(|e| ctx.shape(n, format!("the step line is malformed: {e}"), STEP))?;
        let expected = calls.len() as u64 + 1;
        if step.step != expected {
            return Err(ctx.shape(
                n,
                format!("step {} where step {expected} was due", step.step),
                STEP,
            ));
        }
        calls.push(ToolCall {
            id: format!("step-{}", step.step),
            name: MEMORY_TOOL.to_string(),
            input: step.input,
            recorded: step.result,
            line: Some(n),
            user: header.user.clone(),
        });
    }
    Ok((header, calls))
}

/// The session as JSON Lines text.
pub fn render(session: &Session) -> String {
    let mut out = serde_json::to_string(&session.header).unwrap_or_default();
    out.push('\n');
    for (i, (input, result)) in session.steps.iter().enumerate() {
        let line = StepLine {
            step: i as u64 + 1,
            input: input.clone(),
            result: Some(result.clone()),
        };
        out.push_str(&serde_json::to_string(&line).unwrap_or_default());
        out.push('\n');
    }
    out
}

/// Writes a session atomically: a temporary file beside `path`, flushed, then renamed over it,
/// so that an interrupted write never leaves half a golden file.
///
/// The file gets the mode a plain `File::create` would give it: an existing file's own mode, a
/// new one `0666` less the umask (a golden file is checked in and read by others; the
/// temporary file's private `0600` must not leak into it).
pub fn write(path: &Path, session: &Session) -> Result<(), TranscriptError> {
    use std::os::unix::fs::PermissionsExt;
    let error = |source: std::io::Error| TranscriptError::Write {
        path: path.display().to_string(),
        source,
    };
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    // The kernel applies the umask to the mode given at creation, as for `File::create`: no
    // need to read the umask (setting it to read it would race other threads).
    let mut file = tempfile::Builder::new()
        .prefix(".memspec-session-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(error)?;
    if let Ok(existing) = std::fs::metadata(path)
        && existing.is_file()
    {
        let mode = existing.permissions().mode() & 0o777;
        file.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode))
            .map_err(error)?;
    }
    file.write_all(render(session).as_bytes()).map_err(error)?;
    file.as_file().sync_all().map_err(error)?;
    file.persist(path).map_err(|e| error(e.error))?;
    Ok(())
}

/// Now as RFC 3339 UTC (`2026-11-22T08:00:00Z`), for the header.
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rest = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}
