//! `memspec serve`: the reference backend speaking protocol v1 on any reader and writer.
//!
//! The protocol itself (request and reply lines, bounded reading, controls, malformed lines) is
//! the `memspec-protocol` crate's serve loop, the one Rust backends use: here the reference is
//! a [`MemoryHandler`] like any other.

use std::io::{self, BufRead, Write};
use std::path::Path;

use memspec_protocol::{Block, Content, MemoryHandler};
use rustix::fs::{Mode, OFlags};
use serde_json::Value;

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

impl From<memspec_protocol::ServeError> for ServeError {
    fn from(error: memspec_protocol::ServeError) -> ServeError {
        let io = error.io_error();
        ServeError::Io(io::Error::new(io.kind(), error))
    }
}

/// Longest request line `serve` accepts, in bytes, without its newline: 64 MiB, the
/// `memspec-protocol` serve loop's limit ([`memspec_protocol::MAX_REQUEST_LINE`]).
///
/// Generous on purpose: a `create` of a 100 KiB+ file whose every byte JSON escapes as `\u00XX`
/// is 6 times its size, and the harness's own replies may be 256 MiB. A longer line is answered
/// with a protocol error and skipped without being kept: `serve` never holds more than this much
/// of one line in memory, whatever it is sent.
pub const MAX_REQUEST_LINE: usize = memspec_protocol::MAX_REQUEST_LINE;

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
    output: impl Write,
) -> Result<(), ServeError> {
    let mut reference = Reference::open_as(memories, revision)?;
    memspec_protocol::serve(&mut reference, input, output)?;
    Ok(())
}

/// Serves user `user` of the store `store` (a folder shared by many users, each user's memories
/// in a folder of their own inside it, see [`Reference::open_user`]), as [`serve_as`] does. An id
/// the reference refuses (over 80 bytes) stops it before it reads anything.
pub fn serve_user(
    store: &Path,
    user: &str,
    revision: Revision,
    input: impl BufRead,
    output: impl Write,
) -> Result<(), ServeError> {
    let mut reference = Reference::open_user(store, user, revision)?;
    memspec_protocol::serve(&mut reference, input, output)?;
    Ok(())
}

/// The reference as a protocol v1 backend: what `memspec serve` runs.
impl MemoryHandler for Reference {
    fn call(&mut self, input: &Value) -> memspec_protocol::ToolResult {
        let reply = self.reply(input);
        let result = reply.answer.result;
        // An image goes as the one content block of the reply, as in a Messages API
        // tool_result; the result's text only describes it, for comparisons.
        let content = match reply.image {
            None => Content::Text(result.text),
            Some(image) => Content::Blocks(vec![Block::Image(image)]),
        };
        memspec_protocol::ToolResult {
            content,
            is_error: result.is_error,
        }
    }

    fn reset(&mut self) -> Result<(), String> {
        Reference::reset(self).map_err(|e| e.to_string())
    }

    fn name(&self) -> String {
        concat!("memspec-reference ", env!("CARGO_PKG_VERSION")).to_string()
    }
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
