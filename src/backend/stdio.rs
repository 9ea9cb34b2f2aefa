//! A backend program speaking protocol v1 over its stdin and stdout.
//!
//! Replies are read as whole lines in the calling thread against a deadline ([`Lines`]), so that
//! a hang is a timeout, a crash is the end of the stream, and a flood is a line over the limit
//! or a line nobody asked for. Requests are written without blocking, against the same deadline
//! as the reply, so a backend that stops reading is a timeout too; a backend that exits while a
//! child of its keeps stdout open is seen to have exited.
//!
//! The program runs in a session of its own (`setsid`): no controlling terminal (it cannot
//! write to the user's terminal or change its modes), and one process group, killed whole when
//! the process's life ends, so that whatever it started (`sh -c python ...`, a forgotten worker)
//! goes with it. Where the machine allows, a cgroup also holds it ([`super::cgroup`]), which
//! reaches even a child that made a session of its own.

use std::io::{BufReader, Read};
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio as Pipe};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::cgroup::Cgroup;
use super::lines::{Lines, Next};
use super::wire::{self, Request};
use super::{Backend, BackendError, Timeouts};
use crate::protocol::ToolResult;

/// How much of stderr is kept, so that one case's output is usually there whole.
const STDERR_TAIL_BYTES: usize = 16 << 10;
/// How much of a case's stderr an error report quotes (its last whole lines).
const STDERR_EXCERPT_BYTES: usize = 2048;

/// The last bytes a process wrote to stderr, and how many it wrote in all.
#[derive(Debug, Default)]
struct StderrTail {
    bytes: Vec<u8>,
    total: u64,
    /// Whether the reader reached the end of the stream (every writer is gone).
    closed: bool,
}

/// How often a wait for a reply looks whether the process is still there.
const EXIT_POLL: Duration = Duration::from_millis(100);

/// Why a request could not be written.
enum Sent {
    /// The pipe is closed.
    Closed(std::io::Error),
    /// The backend did not read it before the deadline (its input pipe stayed full).
    Unread,
}

/// How long an exited process's last stderr may take to reach the reader thread.
const STDERR_SETTLE: Duration = Duration::from_millis(500);

/// A running backend process.
pub struct Stdio {
    child: Child,
    /// The cgroup holding the process and all it starts, when one could be made.
    cgroup: Option<Cgroup>,
    stdin: Option<ChildStdin>,
    lines: Lines,
    stderr: Arc<Mutex<StderrTail>>,
    /// Stderr bytes written before the current case: a kept-alive process's earlier cases are
    /// not this case's story.
    case_start: u64,
    timeout: Duration,
    startup: Duration,
    next_id: u64,
    /// Whether a reply came back yet (the first call also waits for start-up).
    answered: bool,
    /// Whether the process was seen to exit without reading anything sent to it.
    exited_unread: bool,
    /// Whether the process and its group were killed: once only, since a group killed again
    /// after its last member is gone names an id the system may have given out anew.
    killed: bool,
    /// Why the last `reset` answered no, as the backend said it.
    refusal: Option<String>,
}

impl std::fmt::Debug for Stdio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stdio")
            .field("pid", &self.child.id())
            .finish()
    }
}

/// Quotes a path for `sh`.
fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.to_string_lossy().replace('\'', r"'\''"))
}

/// Replaces `{memories}` and `{base}` in a command line with shell-quoted paths.
pub fn substitute(template: &str, base: &Path, memories: &Path) -> String {
    template
        .replace("{memories}", &shell_quote(memories))
        .replace("{base}", &shell_quote(base))
}

impl Stdio {
    /// Starts `template` (run by `sh -c`, with `{memories}` and `{base}` substituted and
    /// `MEMSPEC_MEMORIES` / `MEMSPEC_BASE` set, and `MEMSPEC_WORKER` when a worker of a run
    /// starts it).
    pub fn spawn(
        template: &str,
        base: &Path,
        memories: &Path,
        timeouts: Timeouts,
        worker: Option<usize>,
    ) -> Result<Stdio, BackendError> {
        let command_line = substitute(template, base, memories);
        let cgroup = Cgroup::create();
        let procs = cgroup.as_ref().map(|c| c.procs().to_owned());
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(&command_line)
            .env("MEMSPEC_MEMORIES", memories)
            .env("MEMSPEC_BASE", base)
            .current_dir(std::env::current_dir().unwrap_or_else(|_| base.to_path_buf()))
            .stdin(Pipe::piped())
            .stdout(Pipe::piped())
            .stderr(Pipe::piped());
        match worker {
            Some(worker) => command.env("MEMSPEC_WORKER", worker.to_string()),
            // Never one inherited from a memspec that runs this one: it would name another run's store.
            None => command.env_remove("MEMSPEC_WORKER"),
        };
        // SAFETY: the closure runs in the child between fork and exec, where only
        // async-signal-safe calls are allowed: `setsid`, `open` and `write` are plain system
        // calls through rustix, and nothing here allocates (the path was made before the fork).
        unsafe {
            command.pre_exec(move || {
                rustix::process::setsid()?;
                if let Some(procs) = &procs {
                    // Joining is best effort: without it the session and group still hold.
                    if let Ok(fd) = rustix::fs::open(
                        procs.as_c_str(),
                        rustix::fs::OFlags::WRONLY | rustix::fs::OFlags::CLOEXEC,
                        rustix::fs::Mode::empty(),
                    ) {
                        let _ = rustix::io::write(&fd, b"0");
                    }
                }
                Ok(())
            });
        }
        let mut child = command.spawn().map_err(|e| BackendError::Spawn {
            command: command_line.clone(),
            reason: e.to_string(),
        })?;
        let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
            return Err(BackendError::Spawn {
                command: command_line,
                reason: "no pipes".to_string(),
            });
        };
        let stdin = child.stdin.take();
        if let Some(stdin) = &stdin {
            // Writes never block: a backend that stops reading is a timeout, not a hang.
            let _ = rustix::fs::fcntl_setfl(stdin, rustix::fs::OFlags::NONBLOCK);
        }
        let lines = Lines::new(OwnedFd::from(stdout));
        let tail = Arc::new(Mutex::new(StderrTail::default()));
        let tail_writer = Arc::clone(&tail);
        thread::spawn(move || keep_tail(stderr, &tail_writer));
        Ok(Stdio {
            stdin,
            child,
            cgroup,
            lines,
            stderr: tail,
            case_start: 0,
            timeout: timeouts.call,
            startup: timeouts.startup,
            next_id: 1,
            answered: false,
            exited_unread: false,
            killed: false,
            refusal: None,
        })
    }

    /// What the process wrote to stderr during the current case, as whole lines. Once the
    /// process has exited, its last lines may still be on their way through the reader thread
    /// (a loaded machine): wait for the end of the stream, briefly, so they are not lost.
    fn stderr_text(&mut self) -> String {
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            let started = std::time::Instant::now();
            while started.elapsed() < STDERR_SETTLE
                && self.stderr.lock().is_ok_and(|tail| !tail.closed)
            {
                thread::sleep(Duration::from_millis(5));
            }
        }
        match self.stderr.lock() {
            Ok(tail) => excerpt(
                &tail.bytes,
                tail.total,
                self.case_start,
                STDERR_EXCERPT_BYTES,
            ),
            Err(_) => String::new(),
        }
    }

    /// The crash error; `unsent` when the request could not even be written (no reader left).
    fn crashed(&mut self, unsent: bool) -> BackendError {
        // Give the process a moment to be reaped so that the status is known.
        let status = match self.child.wait_timeout_ms(200) {
            Some(status) => {
                // Bytes still in the stdin pipe were never read: the program never got as far as
                // its loop (a wrong command, a missing file, a failing import), unlike one that
                // read a request and crashed on it.
                let unread = unsent
                    || self.stdin.as_ref().is_some_and(|stdin| {
                        rustix::io::ioctl_fionread(stdin).is_ok_and(|n| n > 0)
                    });
                self.exited_unread = !self.answered && unread;
                status
            }
            None => "still running, stdout closed".to_string(),
        };
        BackendError::Crashed {
            status,
            stderr: self.stderr_text(),
        }
    }

    /// Kills the process, its whole group (its session's, made by `setsid`), and its cgroup.
    /// Called at the end of every process's life, whether or not the process itself is still
    /// there: a child it left behind is still in the group.
    fn kill(&mut self) {
        if std::mem::replace(&mut self.killed, true) {
            return;
        }
        let pid = self.child.id() as i32;
        if let Some(pid) = rustix::process::Pid::from_raw(pid) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        if let Some(cgroup) = &self.cgroup {
            cgroup.kill();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

trait WaitTimeout {
    fn wait_timeout_ms(&mut self, ms: u64) -> Option<String>;
}

impl WaitTimeout for Child {
    fn wait_timeout_ms(&mut self, ms: u64) -> Option<String> {
        for _ in 0..ms / 10 {
            if let Ok(Some(status)) = self.try_wait() {
                return Some(status.to_string());
            }
            thread::sleep(Duration::from_millis(10));
        }
        None
    }
}

/// What a backend wrote that no request asked for, in words (a line, or why the stream broke).
fn unasked(next: Next) -> Option<String> {
    match next {
        Next::Line(line) => Some(shorten(&line)),
        Next::Broken(detail) => Some(detail),
        Next::Waiting | Next::Closed => None,
    }
}

fn keep_tail(stderr: impl Read, tail: &Mutex<StderrTail>) {
    let mut reader = BufReader::new(stderr);
    let mut chunk = [0u8; 4096];
    loop {
        let n = match reader.read(&mut chunk) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Ok(0) | Err(_) => {
                if let Ok(mut tail) = tail.lock() {
                    tail.closed = true;
                }
                return;
            }
            Ok(n) => n,
        };
        if let Ok(mut tail) = tail.lock() {
            tail.bytes.extend_from_slice(&chunk[..n]);
            tail.total += n as u64;
            if tail.bytes.len() > STDERR_TAIL_BYTES {
                let cut = tail.bytes.len() - STDERR_TAIL_BYTES;
                tail.bytes.drain(..cut);
            }
        }
    }
}

/// The whole lines written since byte `since` of a stream whose last bytes are `tail` (out of
/// `total`), at most about `max` bytes of them, the last ones. A line begun before `since` or
/// only partly kept is dropped, so the excerpt never starts mid-word or mid-character; a cut is
/// said at the front.
fn excerpt(tail: &[u8], total: u64, since: u64, max: usize) -> String {
    let kept_from = total.saturating_sub(tail.len() as u64);
    let (mut text, mut cut) = if since >= kept_from {
        let start = usize::try_from(since - kept_from)
            .unwrap_or(tail.len())
            .min(tail.len());
        let text = &tail[start..];
        // The case began in the middle of a line of the one before: that line is not its own.
        let mid_line = start > 0 && tail[start - 1] != b'\n';
        (if mid_line { after_newline(text) } else { text }, false)
    } else {
        (after_newline(tail), true)
    };
    if text.len() > max {
        text = after_newline(&text[text.len() - max..]);
        cut = true;
    }
    let text = String::from_utf8_lossy(text);
    let text = text.trim();
    match (cut, text.is_empty()) {
        (_, true) => String::new(),
        (true, false) => format!("[earlier lines cut]\n{text}"),
        (false, false) => text.to_string(),
    }
}

/// What follows the first newline; nothing when there is none (a partial line).
fn after_newline(bytes: &[u8]) -> &[u8] {
    match memchr::memchr(b'\n', bytes) {
        Some(i) => &bytes[i + 1..],
        None => &[],
    }
}

fn shorten(line: &[u8]) -> String {
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
    fn exchange(&mut self, request: &Request) -> Result<Vec<u8>, BackendError> {
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

    fn next_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }
}

impl Backend for Stdio {
    fn call(&mut self, input: &Value) -> Result<ToolResult, BackendError> {
        let id = self.next_id();
        let reply = self.exchange(&Request {
            id,
            input: Some(input.clone()),
            control: None,
        })?;
        parse_reply(&reply, id)
    }

    fn reset(&mut self) -> Result<bool, BackendError> {
        let id = self.next_id();
        let reply = self.exchange(&Request {
            id,
            input: None,
            control: Some("reset".to_string()),
        })?;
        let value: Value = serde_json::from_slice(&reply).map_err(|e| BackendError::Garbage {
            detail: format!("not a JSON reply to `reset` ({e})"),
            line: shorten(&reply),
        })?;
        if value.get("id") != Some(&Value::from(id)) {
            return Err(BackendError::WrongId {
                expected: id,
                got: value.get("id").map_or("none".into(), Value::to_string),
                line: shorten(&reply),
            });
        }
        // A backend without the control answers anything but `ok: true`; that is a "no".
        let ok = value.get("ok") == Some(&Value::Bool(true));
        self.refusal = match value.get("error") {
            _ if ok => None,
            Some(Value::String(why)) => Some(shorten(why.as_bytes())),
            Some(other) if !other.is_null() => Some(shorten(other.to_string().as_bytes())),
            _ => None,
        };
        Ok(ok)
    }

    fn reset_refusal(&self) -> Option<String> {
        self.refusal.clone()
    }

    fn exited_unread(&self) -> bool {
        self.exited_unread
    }

    fn begin_case(&mut self) {
        self.case_start = self.stderr.lock().map_or(0, |tail| tail.total);
    }

    fn unread_output(&mut self) -> Option<String> {
        // Once the process has exited its last lines may still be in the pipe: a moment for
        // them; the stream ends as soon as they are read.
        let exited = matches!(self.child.try_wait(), Ok(Some(_)));
        let wait = if exited {
            Duration::from_millis(200)
        } else {
            Duration::ZERO
        };
        unasked(self.lines.next(wait))
    }

    fn shutdown(&mut self) -> Option<String> {
        // Closing stdin asks the backend to exit; a short grace period, then the group is killed.
        drop(self.stdin.take());
        let _ = self.child.wait_timeout_ms(500);
        // Always: whatever the process started is still in its group even when it is gone.
        self.kill();
        let tail = self.stderr_text();
        (!tail.trim().is_empty()).then_some(tail)
    }
}

impl Drop for Stdio {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::excerpt;

    #[test]
    fn the_excerpt_is_the_cases_whole_lines() {
        let stream = b"old traceback\nKeyError: 'x'\nnew line one\nnew line two\n";
        let since = stream.len() as u64 - 26;
        let total = stream.len() as u64;
        assert_eq!(
            excerpt(stream, total, since, 2048),
            "new line one\nnew line two"
        );
        // Marked in the middle of a line: the rest of that line belongs to the case before.
        assert_eq!(
            excerpt(stream, total, 5, 2048),
            "KeyError: 'x'\nnew line one\nnew line two"
        );
        assert_eq!(excerpt(stream, total, total, 2048), "");
    }

    #[test]
    fn a_long_excerpt_is_cut_at_a_line_start() {
        let stream = "é\n".repeat(100) + "last line\n";
        let bytes = stream.as_bytes();
        let total = bytes.len() as u64;
        let text = excerpt(bytes, total, 0, 20);
        assert!(text.starts_with("[earlier lines cut]\n"), "{text}");
        assert!(text.ends_with("é\nlast line"), "{text}");
        assert!(!text.contains('\u{FFFD}'), "{text}");
        // Only the last bytes kept: the partial first line is dropped too.
        let kept = &bytes[bytes.len() - 11..];
        assert_eq!(
            excerpt(kept, total, 0, 2048),
            "[earlier lines cut]\nlast line"
        );
    }
}
