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
//!
//! Here: starting and ending the process, and the [`Backend`] calls. `exchange.rs` writes a
//! request and reads its reply; `stderr.rs` keeps the tail of the process's stderr for reports.

use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio as Pipe};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::Value;

use super::cgroup::Cgroup;
use super::lines::Lines;
use super::wire::Request;
use super::{Backend, BackendError, Place, Starter, Timeouts};
use crate::protocol::ToolResult;

mod exchange;
mod stderr;

use exchange::{parse_reply, shorten, unasked};
use stderr::{StderrTail, keep_tail};

/// A running backend process.
pub struct Stdio {
    child: Child,
    /// The cgroup holding the process and all it starts, when one could be made.
    cgroup: Option<Cgroup>,
    stdin: Option<ChildStdin>,
    lines: Lines,
    stderr: Arc<Mutex<StderrTail>>,
    /// The read end of the stderr pipe, duplicated, to see what the tail's thread has not
    /// read yet ([`Backend::begin_case`]).
    stderr_pipe: Option<OwnedFd>,
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

/// How long a new case waits for stderr written before it to be read (see
/// [`Backend::begin_case`]).
const STDERR_CATCH_UP: Duration = Duration::from_millis(200);

/// Quotes a word for `sh`.
fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Replaces `{memories}`, `{base}` and `{state}` in a command line with shell-quoted paths.
pub fn substitute(template: &str, place: Place<'_>) -> String {
    template
        .replace(
            "{memories}",
            &shell_quote(&place.memories.to_string_lossy()),
        )
        .replace("{base}", &shell_quote(&place.base.to_string_lossy()))
        .replace("{state}", &shell_quote(&place.state.to_string_lossy()))
}

/// [`substitute`], and `{user}` replaced by the shell-quoted user id.
fn substitute_user(template: &str, place: Place<'_>, user: &str) -> String {
    let line = substitute(template, place);
    line.replace(super::USER_PLACEHOLDER, &shell_quote(user))
}

impl Stdio {
    /// Starts `template` (run by `sh -c`, with `{memories}`, `{base}`, `{state}` and `{user}`
    /// substituted and `MEMSPEC_MEMORIES` / `MEMSPEC_BASE` / `MEMSPEC_STATE` set,
    /// `MEMSPEC_WORKER` when a worker of a run starts it, `MEMSPEC_USER` when it serves a user
    /// of a shared store).
    pub fn spawn(
        template: &str,
        place: Place<'_>,
        timeouts: Timeouts,
        starter: Starter<'_>,
    ) -> Result<Stdio, BackendError> {
        let Starter { worker, user } = starter;
        // A backend of many users started for one store serves the default user.
        let user = user.or_else(|| {
            template
                .contains(super::USER_PLACEHOLDER)
                .then_some(super::DEFAULT_USER)
        });
        let command_line = substitute_user(template, place, user.unwrap_or_default());
        let Place {
            base,
            memories,
            state,
        } = place;
        let cgroup = Cgroup::create();
        let procs = cgroup.as_ref().map(|c| c.procs().to_owned());
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(&command_line)
            .env("MEMSPEC_MEMORIES", memories)
            .env("MEMSPEC_BASE", base)
            .env("MEMSPEC_STATE", state)
            .current_dir(std::env::current_dir().unwrap_or_else(|_| base.to_path_buf()))
            .stdin(Pipe::piped())
            .stdout(Pipe::piped())
            .stderr(Pipe::piped());
        match worker {
            Some(worker) => command.env("MEMSPEC_WORKER", worker.to_string()),
            // Never one inherited from a memspec that runs this one: it would name another run's store.
            None => command.env_remove("MEMSPEC_WORKER"),
        };
        match user {
            Some(user) => command.env("MEMSPEC_USER", user),
            None => command.env_remove("MEMSPEC_USER"),
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
        let spawned = super::cleanup::start_unless_stopping(|| command.spawn())
            .unwrap_or_else(|| Err(std::io::Error::other("the run is being stopped")));
        let mut child = spawned.map_err(|e| BackendError::Spawn {
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
        let stderr_pipe = stderr.as_fd().try_clone_to_owned().ok();
        thread::spawn(move || keep_tail(stderr, &tail_writer));
        Ok(Stdio {
            stdin,
            child,
            cgroup,
            lines,
            stderr: tail,
            stderr_pipe,
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

    /// The crash error; `unsent` when the request could not even be written (no reader left).
    pub(super) fn crashed(&mut self, unsent: bool) -> BackendError {
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
    pub(super) fn kill(&mut self) {
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

impl Backend for Stdio {
    fn process_group(&self) -> Option<i32> {
        // `setsid` in the child made its pid the group's id.
        i32::try_from(self.child.id()).ok()
    }

    fn set_call_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    fn warm_up(&mut self) -> Result<(), BackendError> {
        if self.answered {
            return Ok(());
        }
        // Any reply will do: a backend that knows no controls answers no, which still shows
        // that it has started.
        let id = self.next_id();
        self.exchange(&Request {
            id,
            input: None,
            control: Some("hello".to_string()),
        })
        .map(|_| ())
    }

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
        // What the process wrote before its last reply may still be in the pipe, unread by
        // the tail's thread: a moment for it, so that it is not taken for this case's. Only
        // which lines a report quotes depends on it, never a verdict.
        if let Some(pipe) = &self.stderr_pipe {
            let deadline = std::time::Instant::now() + STDERR_CATCH_UP;
            let mut waited = false;
            while rustix::io::ioctl_fionread(pipe).is_ok_and(|pending| pending > 0)
                && std::time::Instant::now() < deadline
            {
                waited = true;
                thread::sleep(Duration::from_millis(1));
            }
            // Read from the pipe is not kept yet: the thread's append comes right after.
            if waited {
                thread::sleep(Duration::from_millis(2));
            }
        }
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
