//! One request written and its one reply line read, against one deadline: a hang is a timeout,
//! a crash the end of the stream, a line nobody asked for a flood; and the decoding of a reply.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::{Backend, BackendError, Stdio, WaitTimeout};
use crate::backend::lines::Next;
use crate::backend::wire::{self, Request};
use crate::protocol::ToolResult;

/// How often a wait for a reply looks whether the process is still there.
const EXIT_POLL: Duration = Duration::from_millis(100);

/// Why a request could not be written.
enum Sent {
    /// The pipe is closed.
    Closed(std::io::Error),
    /// The backend did not read it before the deadline (its input pipe stayed full).
    Unread,
}

/// What a backend wrote that no request asked for, in words (a line, or why the stream broke).
pub(super) fn unasked(next: Next) -> Option<String> {
    match next {
        Next::Line(line) => Some(shorten(&line)),
        Next::Broken(detail) => Some(detail),
        Next::Waiting | Next::Closed => None,
    }
}

pub(super) fn shorten(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let mut short: String = text.chars().take(200).collect();
    if text.chars().count() > 200 {
        short.push('…');
    }
    short
}

/// Whether `line` is a JSON object with the id `id`: a reply to that request, well formed or not.
fn answers(line: &[u8], id: u64) -> bool {
    serde_json::from_slice::<Value>(line)
        .is_ok_and(|reply| reply.get("id") == Some(&Value::from(id)))
}

/// Decodes one reply line for request `id`.
pub fn parse_reply(line: &[u8], id: u64) -> Result<ToolResult, BackendError> {
    let garbage = |detail: String| BackendError::Garbage {
        detail,
        line: shorten(line),
    };
    let reply: Value =
        serde_json::from_slice(line).map_err(|e| garbage(format!("not JSON ({e})")))?;
    let Value::Object(reply) = reply else {
        return Err(garbage("a reply must be a JSON object".to_string()));
    };
    let got = reply.get("id").cloned().unwrap_or(Value::Null);
    if got != id {
        return Err(BackendError::WrongId {
            expected: id,
            got: got.to_string(),
            line: shorten(line),
        });
    }
    // The SDK runners send `content: null` for a tool that returned nothing: Claude sees an
    // empty result, so that is what is graded. A reply without the field at all is garbage.
    let text = match reply.get("content") {
        None => return Err(garbage("the reply has no `content`".to_string())),
        Some(Value::Null) => String::new(),
        Some(content) => wire::content_text(content).map_err(garbage)?,
    };
    let is_error = match reply.get("is_error") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(flag)) => *flag,
        Some(other) => {
            return Err(garbage(format!(
                "`is_error` must be a boolean, got {other}"
            )));
        }
    };
    Ok(ToolResult { text, is_error })
}

impl Stdio {
    /// Sends one request line and waits for its reply line.
    pub(super) fn exchange(&mut self, request: &Request) -> Result<Vec<u8>, BackendError> {
        // A line waiting before the request is sent answers nothing: the previous reply flooded.
        if let Some(extra) = self.unread_output() {
            self.kill();
            return Err(BackendError::Flood {
                detail: format!("a line after the previous reply: {extra}"),
            });
        }
        let mut line = serde_json::to_vec(request).map_err(|e| BackendError::Send {
            reason: e.to_string(),
            stderr: String::new(),
        })?;
        line.push(b'\n');
        // The first call also waits for the process to start (an interpreter, imports). One
        // deadline covers writing the request and reading the reply.
        let startup = if self.answered {
            Duration::ZERO
        } else {
            self.startup
        };
        let deadline = Instant::now() + self.timeout + startup;
        match self.send(&line, deadline) {
            Ok(()) => {}
            Err(Sent::Closed(e)) => {
                // A closed pipe usually means the process is gone: report it as a crash if so.
                if self.child.wait_timeout_ms(200).is_some() {
                    return Err(self.crashed(true));
                }
                return Err(BackendError::Send {
                    reason: e.to_string(),
                    stderr: self.stderr_text(),
                });
            }
            Err(Sent::Unread) => {
                self.kill();
                return Err(BackendError::Unread {
                    call: self.timeout,
                    startup,
                });
            }
        }
        let reply = loop {
            let now = Instant::now();
            if now >= deadline {
                self.kill();
                return Err(BackendError::Timeout {
                    call: self.timeout,
                    startup,
                });
            }
            match self.lines.next((deadline - now).min(EXIT_POLL)) {
                Next::Line(reply) => {
                    self.answered = true;
                    break reply;
                }
                Next::Broken(detail) => {
                    self.kill();
                    return Err(BackendError::Flood { detail });
                }
                Next::Closed => return Err(self.crashed(false)),
                Next::Waiting => {
                    // The process exited, yet stdout is still open (a child of its holds it):
                    // no answer can come any more. A reply already on its way gets a moment.
                    if matches!(self.child.try_wait(), Ok(Some(_))) {
                        if let Next::Line(reply) = self.lines.next(EXIT_POLL) {
                            self.answered = true;
                            break reply;
                        }
                        let crash = self.crashed(false);
                        self.kill();
                        return Err(crash);
                    }
                }
            }
        };
        // A line that is no reply to this request (a log line, a stray print) is the offender,
        // whatever follows it: the caller's decoding quotes it. Looking behind it first would
        // quote the valid reply that came next as "the extra line", and only when that reply
        // happened to be read already, so the same fault would read two ways at random.
        if !answers(&reply, request.id) {
            return Ok(reply);
        }
        // One request, one line: anything already waiting behind the reply is a flood.
        if let Some(extra) = unasked(self.lines.next(Duration::ZERO)) {
            self.kill();
            return Err(BackendError::Flood {
                detail: format!("an extra line after the reply: {extra}"),
            });
        }
        Ok(reply)
    }

    /// Writes a whole request line before `deadline`, never blocking.
    fn send(&mut self, line: &[u8], deadline: Instant) -> Result<(), Sent> {
        let Some(stdin) = self.stdin.as_ref() else {
            return Err(Sent::Closed(std::io::ErrorKind::BrokenPipe.into()));
        };
        let mut rest = line;
        while !rest.is_empty() {
            match rustix::io::write(stdin, rest) {
                Ok(n) => rest = &rest[n..],
                Err(rustix::io::Errno::INTR) => {}
                Err(rustix::io::Errno::AGAIN) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(Sent::Unread);
                    }
                    let mut fds = [rustix::event::PollFd::new(
                        stdin,
                        rustix::event::PollFlags::OUT,
                    )];
                    let timeout = rustix::event::Timespec::try_from(left.min(EXIT_POLL)).unwrap_or(
                        rustix::event::Timespec {
                            tv_sec: 0,
                            tv_nsec: 100_000_000,
                        },
                    );
                    let _ = rustix::event::poll(&mut fds, Some(&timeout));
                }
                Err(e) => return Err(Sent::Closed(e.into())),
            }
        }
        Ok(())
    }

    pub(super) fn next_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }
}
