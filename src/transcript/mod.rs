//! Transcripts: conversations in which Claude called the memory tool, read from the formats
//! users have on disk, into one model: the ordered tool calls, each with the result recorded in
//! the conversation when there is one.
//!
//! - [`Format::Request`]: a Messages API request body (`model`, `tools`, `messages`).
//! - [`Format::Messages`]: a bare `messages` array.
//! - [`Format::Jsonl`]: JSON Lines, one message per line (API messages, or lines wrapping one in
//!   `message` as Claude Code and `claude -p --output-format stream-json` write them).
//! - [`Format::Exchanges`]: a log of `{"request": ..., "response": ...}` pairs, as JSON Lines or
//!   a JSON array; tool calls come from the responses, their results from the next request. A
//!   streamed response (its SSE text, or its events as an array) is put back together.
//! - [`Format::Session`]: memspec's own recorded sessions (see [`session`]).
//! - [`Format::Inputs`]: JSON Lines of bare tool inputs, one `{"command": ...}` per line.
//!
//! A `tool_use` block named `memory` is paired with its `tool_result` by id; calls to other
//! tools are kept, in order, so that the replay can show them, but are never replayed.

mod detect;
mod error;
mod exchange;
mod inputs;
mod jsonl;
mod locate;
mod messages;
mod request;
pub mod session;
mod stream;

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

pub use error::TranscriptError;
pub use session::SessionHeader;

use crate::protocol::ToolResult;

/// The name of the memory tool in `tools` and in `tool_use` blocks.
pub const MEMORY_TOOL: &str = "memory";

/// The transcript formats memspec reads (also the values of `--transcript-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// A Messages API request body: `{"model", "tools", "messages"}`.
    Request,
    /// A bare array of Messages API messages.
    Messages,
    /// JSON Lines, one message per line.
    Jsonl,
    /// A log of request/response pairs (JSON Lines or a JSON array).
    Exchanges,
    /// memspec's recorded session (golden file).
    Session,
    /// JSON Lines of bare tool inputs.
    Inputs,
}

impl Format {
    /// Every format, in the order detection tries them.
    pub const ALL: [Format; 6] = [
        Format::Session,
        Format::Request,
        Format::Messages,
        Format::Exchanges,
        Format::Jsonl,
        Format::Inputs,
    ];

    /// Short name, as `--transcript-format` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Request => "request",
            Format::Messages => "messages",
            Format::Jsonl => "jsonl",
            Format::Exchanges => "exchanges",
            Format::Session => "session",
            Format::Inputs => "inputs",
        }
    }

    /// Whether the format records the tool's answers: a call without one in such a transcript
    /// has no recorded answer (a `tool_use` with no `tool_result`), whereas JSON Lines of bare
    /// inputs never have any.
    pub fn records_answers(self) -> bool {
        self != Format::Inputs
    }

    /// What the format is, for people.
    pub fn describe(self) -> &'static str {
        match self {
            Format::Request => "Messages API request body",
            Format::Messages => "messages array",
            Format::Jsonl => "JSON Lines of messages",
            Format::Exchanges => "request/response log",
            Format::Session => "memspec session",
            Format::Inputs => "JSON Lines of tool inputs",
        }
    }
}

/// One tool call of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCall {
    /// The `tool_use` id (`toolu_...`), or `step-N` where the format has none.
    pub id: String,
    /// The tool's name; only `memory` calls are replayed.
    pub name: String,
    /// The `input` of the `tool_use` block, verbatim.
    pub input: Value,
    /// The `tool_result` the conversation recorded for it, if any.
    pub recorded: Option<ToolResult>,
    /// 1-based line of the source where the call appears, when known.
    pub line: Option<usize>,
    /// The user the conversation was held for, when the transcript names one (a request's
    /// `metadata.user_id`): in an application serving many users, whose memories the call
    /// reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
}

impl ToolCall {
    /// Whether this is a call to the memory tool (and so is replayed).
    pub fn is_memory(&self) -> bool {
        self.name == MEMORY_TOOL
    }

    /// `command path` of a memory call (`view /memories/notes.md`), for lists and reports.
    pub fn summary(&self) -> String {
        if !self.is_memory() {
            return self.name.clone();
        }
        let field = |key: &str| self.input.get(key).and_then(Value::as_str);
        let command = field("command").unwrap_or("?");
        match (field("path"), field("old_path"), field("new_path")) {
            (Some(path), _, _) => format!("{command} {path}"),
            (None, Some(old), Some(new)) => format!("{command} {old} → {new}"),
            _ => command.to_string(),
        }
    }
}

/// A transcript: where it comes from and its tool calls in order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Transcript {
    /// The file, as given.
    pub source: String,
    /// The format it was read as.
    pub format: Format,
    /// Every tool call, in conversation order.
    pub calls: Vec<ToolCall>,
    /// The header of a recorded session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionHeader>,
}

impl Transcript {
    /// The memory tool calls.
    pub fn memory_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.calls.iter().filter(|c| c.is_memory())
    }

    /// The users its memory calls name, each once, in the order they first appear.
    pub fn users(&self) -> Vec<&str> {
        let mut users: Vec<&str> = Vec::new();
        for user in self.memory_calls().filter_map(|c| c.user.as_deref()) {
            if !users.contains(&user) {
                users.push(user);
            }
        }
        users
    }

    /// Keeps the calls made for `user` and those that name no user (a transcript of one
    /// conversation names none); the others are another user's, with a store of their own.
    pub fn keep_user(&mut self, user: &str) {
        self.calls
            .retain(|call| call.user.as_deref().is_none_or(|named| named == user));
    }
}

/// `metadata.user_id` of a Messages API request: the end user the application made it for.
pub(crate) fn request_user(request: &Value) -> Option<String> {
    let user = request.get("metadata")?.get("user_id")?.as_str()?;
    // An id is a name, not a document: a longer one is not taken for one.
    (user.len() <= MAX_USER_ID).then(|| user.to_string())
}

/// The longest `metadata.user_id` taken as a user's id, in bytes (the API allows 256).
const MAX_USER_ID: usize = 256;

/// Reads a transcript file, detecting its format unless `format` forces one.
pub fn read(path: &Path, format: Option<Format>) -> Result<Transcript, TranscriptError> {
    let source = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| TranscriptError::Read {
        path: source.clone(),
        source: e,
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let (line, column) = locate::line_column(&String::from_utf8_lossy(e.as_bytes()), offset);
        TranscriptError::Json {
            path: source.clone(),
            line,
            column,
            message: "invalid UTF-8".to_string(),
            expected: "a UTF-8 JSON or JSON Lines transcript",
        }
    })?;
    parse(&text, &source, format)
}

/// Parses transcript text; `source` names it in errors.
pub fn parse(
    text: &str,
    source: &str,
    format: Option<Format>,
) -> Result<Transcript, TranscriptError> {
    // Detection parses a whole document anyway: its reader takes it rather than parse again.
    let (format, document) = match format {
        Some(format) => (format, None),
        None => detect::detect(text, source)?,
    };
    let ctx = Context { source };
    let (calls, session) = match format {
        Format::Request => (request::read_request(text, document, &ctx)?, None),
        Format::Messages => (request::read_messages(text, document, &ctx)?, None),
        Format::Jsonl => (jsonl::read(text, &ctx)?, None),
        Format::Exchanges => (exchange::read(text, document, &ctx)?, None),
        Format::Session => {
            let (header, calls) = session::read(text, &ctx)?;
            (calls, Some(header))
        }
        Format::Inputs => (inputs::read(text, &ctx)?, None),
    };
    let transcript = Transcript {
        source: source.to_string(),
        format,
        calls,
        session,
    };
    if transcript.memory_calls().next().is_none() {
        return Err(TranscriptError::NoMemoryCalls {
            path: source.to_string(),
            format: format.describe(),
            other: transcript.calls.len(),
        });
    }
    Ok(transcript)
}

/// What every reader needs to word its errors.
pub(crate) struct Context<'a> {
    source: &'a str,
}

impl Context<'_> {
    /// The whole document: the one detection parsed, else `text` parsed now.
    fn document(
        &self,
        text: &str,
        parsed: Option<Value>,
        expected: &'static str,
    ) -> Result<Value, TranscriptError> {
        match parsed {
            Some(document) => Ok(document),
            None => serde_json::from_str(text).map_err(|e| self.json(0, &e, expected)),
        }
    }

    fn shape(&self, line: usize, problem: impl Into<String>, expected: &str) -> TranscriptError {
        TranscriptError::Shape {
            path: self.source.to_string(),
            line,
            problem: problem.into(),
            expected: expected.to_string(),
        }
    }

    fn json(
        &self,
        line_offset: usize,
        error: &serde_json::Error,
        expected: &'static str,
    ) -> TranscriptError {
        TranscriptError::Json {
            path: self.source.to_string(),
            line: line_offset + error.line(),
            column: error.column(),
            message: error_message(error),
            expected,
        }
    }
}

/// serde_json's message without its trailing ` at line L column C` (the error says it already).
fn error_message(error: &serde_json::Error) -> String {
    let text = error.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}
