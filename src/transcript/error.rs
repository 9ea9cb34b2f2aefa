//! Why a transcript could not be read: always the file, the line (and the column for JSON
//! syntax errors), what is wrong and what was expected there.

/// An unreadable transcript.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The text is not JSON where JSON was expected.
    #[error("{path}:{line}:{column}: not valid JSON ({message}); expected {expected}")]
    Json {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
        /// What should be there.
        expected: &'static str,
    },
    /// Valid JSON, but not the shape of the format.
    #[error("{path}:{line}: {problem}; expected {expected}")]
    Shape {
        /// The file.
        path: String,
        /// 1-based line of the offending value.
        line: usize,
        /// What is wrong, with the JSON location (`messages[3].content[1]`).
        problem: String,
        /// What should be there.
        expected: String,
    },
    /// Detection could not tell the format.
    #[error(
        "{path}:{line}: cannot tell what kind of transcript this is: {why}; expected a Messages API request body (with \"messages\"), a messages array, JSON Lines of messages, a request/response log, a memspec session or JSON Lines of tool inputs (force one with --transcript-format)"
    )]
    Unknown {
        /// The file.
        path: String,
        /// 1-based line that was looked at.
        line: usize,
        /// What was found instead.
        why: String,
    },
    /// The transcript holds no memory tool call.
    #[error(
        "{path}: no call to the memory tool in this {format} ({other} call(s) to other tools); expected tool_use blocks named \"memory\""
    )]
    NoMemoryCalls {
        /// The file.
        path: String,
        /// The format it was read as.
        format: &'static str,
        /// How many calls to other tools it has.
        other: usize,
    },
    /// A session file could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: String,
        /// What the operating system said.
        source: std::io::Error,
    },
}
