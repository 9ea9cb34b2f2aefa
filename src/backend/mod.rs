//! Backends under test: the in-process reference, or any program speaking protocol v1.

mod cgroup;
pub mod cleanup;
pub mod embedded;
mod inprocess;
mod lines;
mod stdio;
pub mod wire;

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::protocol::ToolResult;
use crate::spec::Revision;

pub use inprocess::InProcess;
pub use stdio::Stdio;

/// Something that answers memory tool calls.
pub trait Backend: Send {
    /// Sends one tool input and waits for the result.
    fn call(&mut self, input: &Value) -> Result<ToolResult, BackendError>;
    /// From the next call on, a call not answered within `timeout` (plus the start-up allowance
    /// of a first call) is a timeout: a case whose point is an answer at once waits less than
    /// `--timeout`. The in-process reference never waits, and ignores it.
    fn set_call_timeout(&mut self, _timeout: Duration) {}
    /// Makes sure the process has started (a `hello` control, within the start-up allowance),
    /// so that a short [`Backend::set_call_timeout`] is not spent on an interpreter's start.
    fn warm_up(&mut self) -> Result<(), BackendError> {
        Ok(())
    }
    /// Asks the backend to forget every memory (`{"control": "reset"}`), so that one process can
    /// serve many cases. `Ok(false)` means the backend does not support it.
    fn reset(&mut self) -> Result<bool, BackendError>;
    /// After a [`Backend::reset`] that answered no: why, as the backend said it (its `error`),
    /// so that the report can say once why every case starts a new process.
    fn reset_refusal(&self) -> Option<String> {
        None
    }
    /// Whether the backend process exited before reading anything sent to it: it never started
    /// (a wrong command, a missing file, a failing import), as opposed to crashing on an input.
    fn exited_unread(&self) -> bool {
        false
    }
    /// A new case starts on this (kept-alive) backend: what it writes to stderr from now on is
    /// what errors of this case quote.
    fn begin_case(&mut self) {}
    /// Stops the backend; returns the last lines it wrote to stderr during the current case, if
    /// any.
    fn shutdown(&mut self) -> Option<String>;
    /// After [`Backend::shutdown`]: a line the backend wrote that no request asked for, if any.
    fn unread_output(&mut self) -> Option<String> {
        None
    }
    /// The id of the process group the backend's processes run in (its own, made by `setsid`),
    /// for tracing and killing them; `None` for a backend in memspec's own process.
    fn process_group(&self) -> Option<i32> {
        None
    }
}

/// How a backend broke: every variant is a verdict about one case, never a harness crash.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BackendError {
    /// The command could not be started.
    #[error("could not start the backend `{command}`: {reason}")]
    Spawn {
        /// The command line after substitution.
        command: String,
        /// What the operating system said.
        reason: String,
    },
    /// The backend exited (or closed stdout) before answering.
    #[error("the backend exited before answering ({status}){}", stderr_tail(.stderr))]
    Crashed {
        /// Exit status as text (`exit status: 1`, `signal: 9`).
        status: String,
        /// Last lines of its stderr during the current case.
        stderr: String,
    },
    /// No answer within the per-call timeout (plus the start-up allowance on a first call).
    #[error("the backend did not answer within {}", timeout_text(*.call, *.startup))]
    Timeout {
        /// The per-call timeout.
        call: Duration,
        /// The start-up allowance added because this was the process's first request; zero
        /// otherwise.
        startup: Duration,
    },
    /// The backend did not read the request within the timeout: its input pipe stayed full.
    #[error(
        "the backend did not read its request within {}",
        timeout_text(*.call, *.startup)
    )]
    Unread {
        /// The per-call timeout.
        call: Duration,
        /// The start-up allowance of a first request; zero otherwise.
        startup: Duration,
    },
    /// The backend wrote a line that is not a protocol reply.
    #[error("the backend wrote something that is not a protocol v1 reply: {detail}; line: {line}")]
    Garbage {
        /// What is wrong with it.
        detail: String,
        /// The offending line, shortened.
        line: String,
    },
    /// The reply's id is not the request's.
    #[error("the backend answered request {expected} with id {got}; line: {line}")]
    WrongId {
        /// The id sent.
        expected: u64,
        /// The id received.
        got: String,
        /// The offending line, shortened.
        line: String,
    },
    /// The backend wrote more than one reply, or a reply larger than the limit.
    #[error("the backend flooded its output: {detail}")]
    Flood {
        /// What was too much.
        detail: String,
    },
    /// Writing to the backend failed (it closed stdin or died).
    #[error("could not send the request to the backend: {reason}{}", stderr_tail(.stderr))]
    Send {
        /// What the operating system said.
        reason: String,
        /// Last lines of its stderr.
        stderr: String,
    },
}

/// `12.0 s (killed)`, or for a new process's first request `40.0 s (10.0 s + 30.0 s start-up
/// allowance for a new process; killed)`, so that the total matches the flags given.
fn timeout_text(call: Duration, startup: Duration) -> String {
    let total = (call + startup).as_secs_f64();
    if startup.is_zero() {
        format!("{total:.1} s (killed)")
    } else {
        format!(
            "{total:.1} s ({:.1} s + {:.1} s start-up allowance for a new process; killed)",
            call.as_secs_f64(),
            startup.as_secs_f64()
        )
    }
}

fn stderr_tail(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        String::new()
    } else {
        format!("; stderr: {}", stderr.trim())
    }
}

/// Extra time the first call of a backend process gets by default, for the process to start
/// (Python importing `anthropic` takes about 2 s, more on a loaded machine).
pub const DEFAULT_STARTUP: Duration = Duration::from_secs(30);

/// How long to wait for a backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Per call.
    pub call: Duration,
    /// Added to the first call of each process, which also waits for it to start.
    pub startup: Duration,
}

/// What a command names the user with whom it starts, in a store shared by many users.
pub const USER_PLACEHOLDER: &str = "{user}";

/// The user a backend of many users is started as outside the users lane (every other case,
/// replay, fuzz): one store of one user, named so.
pub const DEFAULT_USER: &str = "memspec";

/// Where a backend process runs: the sandbox (`base`, holding `memories`, what `/memories` maps
/// to) and the backend's own folder beside it (`state`, for its database, locks and logs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place<'a> {
    /// The sandbox: `{base}` and `MEMSPEC_BASE`.
    pub base: &'a Path,
    /// The memories folder in it: `{memories}` and `MEMSPEC_MEMORIES`.
    pub memories: &'a Path,
    /// The backend's own folder, outside the sandbox: `{state}` and `MEMSPEC_STATE`.
    pub state: &'a Path,
}

/// Who starts a backend process, besides its sandbox: which worker of a parallel run, and as
/// which user of a store shared by many users.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Starter<'a> {
    /// Passed as `MEMSPEC_WORKER`.
    pub worker: Option<usize>,
    /// Passed as `{user}` and `MEMSPEC_USER`.
    pub user: Option<&'a str>,
}

/// Which backend to run cases against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackendSpec {
    /// The built-in reference, in process, following the given revision of the page.
    Reference(Revision),
    /// A program speaking protocol v1; `{memories}` and `{base}` are replaced by paths,
    /// `{user}` by the id of the user it serves (see [`BackendSpec::takes_user`]).
    Command {
        /// The command line, run by `sh -c`.
        template: String,
        /// Whether the backend stores its memories in the given folder, so that filesystem
        /// fixtures and effects apply.
        on_folder: bool,
        /// What reports call it, when not the command line itself: a command naming a temporary
        /// file (an embedded adapter) would otherwise name a new path in every report and
        /// baseline.
        label: Option<String>,
        /// Which worker of a parallel run starts it, passed as `MEMSPEC_WORKER` (`0`, `1`, …) so
        /// that a backend with a fixed database file can keep one store per worker.
        worker: Option<usize>,
    },
}

impl BackendSpec {
    /// A command backend; it runs on the folder when its command line names `{memories}` or
    /// `{base}` (unless told otherwise).
    pub fn command(template: &str, on_folder: Option<bool>) -> BackendSpec {
        let names_folder = template.contains("{memories}") || template.contains("{base}");
        // A backend of many users keeps each user's memories where its mapping says, not in
        // `{memories}` itself: fixtures and the disk do not show its store.
        let names_user = template.contains(USER_PLACEHOLDER);
        BackendSpec::Command {
            template: template.to_string(),
            on_folder: on_folder.unwrap_or(names_folder && !names_user),
            label: None,
            worker: None,
        }
    }

    /// The same backend, called `label` in reports instead of by its command line.
    pub fn with_label(self, label: impl Into<String>) -> BackendSpec {
        match self {
            BackendSpec::Command {
                template,
                on_folder,
                worker,
                ..
            } => BackendSpec::Command {
                template,
                on_folder,
                label: Some(label.into()),
                worker,
            },
            reference @ BackendSpec::Reference(_) => reference,
        }
    }

    /// The same backend, declared (`Some(false)`: `--not-on-folder`) to keep or not keep its
    /// memories in the given folder; `None` leaves the guess from the command line.
    pub fn on_folder(self, on_folder: Option<bool>) -> BackendSpec {
        match (self, on_folder) {
            (
                BackendSpec::Command {
                    template,
                    label,
                    worker,
                    ..
                },
                Some(on_folder),
            ) => BackendSpec::Command {
                template,
                on_folder,
                label,
                worker,
            },
            (spec, _) => spec,
        }
    }

    /// The same backend, started by worker `worker` of a run (its processes see
    /// `MEMSPEC_WORKER=worker`).
    pub fn for_worker(&self, worker: usize) -> BackendSpec {
        match self {
            BackendSpec::Command {
                template,
                on_folder,
                label,
                ..
            } => BackendSpec::Command {
                template: template.clone(),
                on_folder: *on_folder,
                label: label.clone(),
                worker: Some(worker),
            },
            reference @ BackendSpec::Reference(_) => reference.clone(),
        }
    }

    /// The same command started once per user of a store shared by many users: ` --user={user}`
    /// added to its command line and label (what `--per-user` does to a `--python` or
    /// `--node` backend, whose adapter passes the id to the factory). A command that already
    /// names `{user}`, and the reference, are returned as they are. Like any command that names
    /// `{user}` ([`BackendSpec::command`]), it is not taken to keep its memories in `{memories}`
    /// itself, though the adapter's command names `{base}`.
    pub fn per_user(self) -> BackendSpec {
        match self {
            BackendSpec::Command {
                template,
                label,
                worker,
                ..
            } if !template.contains(USER_PLACEHOLDER) => BackendSpec::Command {
                // `=`: an id starting with `-` is still the option's value.
                template: format!("{template} --user={USER_PLACEHOLDER}"),
                on_folder: false,
                label: label.map(|label| format!("{label} --user={USER_PLACEHOLDER}")),
                worker,
            },
            spec => spec,
        }
    }

    /// Short name for reports.
    pub fn label(&self) -> String {
        match self {
            BackendSpec::Reference(_) => "reference (in process)".to_string(),
            BackendSpec::Command {
                label: Some(label), ..
            } => label.clone(),
            BackendSpec::Command { template, .. } => template.clone(),
        }
    }

    /// Whether filesystem fixtures and effects apply.
    pub fn runs_on_folder(&self) -> bool {
        match self {
            BackendSpec::Reference(_) => true,
            BackendSpec::Command { on_folder, .. } => *on_folder,
        }
    }

    /// Starts the backend over a sandbox as user `user` of a store shared by many users (see
    /// [`BackendSpec::takes_user`]): a command gets the id as `{user}` and `MEMSPEC_USER`; the
    /// reference serves that user's folder inside `memories` (`crate::reference::users`).
    /// `None` starts it as a backend of one store.
    pub fn start_as(
        &self,
        place: Place<'_>,
        timeouts: Timeouts,
        user: Option<&str>,
    ) -> Result<Box<dyn Backend>, BackendError> {
        match self {
            BackendSpec::Reference(revision) => Ok(Box::new(match user {
                None => InProcess::open(place.memories, *revision)?,
                Some(user) => InProcess::open_user(place.memories, user, *revision)?,
            })),
            BackendSpec::Command {
                template, worker, ..
            } => Ok(Box::new(Stdio::spawn(
                template,
                place,
                timeouts,
                Starter {
                    worker: *worker,
                    user,
                },
            )?)),
        }
    }

    /// Whether the backend serves many users on one store, each with a `/memories` of their
    /// own: the reference does, and a command does when it names `{user}` (it then gets each
    /// user's id there and in `MEMSPEC_USER`).
    pub fn takes_user(&self) -> bool {
        match self {
            BackendSpec::Reference(_) => true,
            BackendSpec::Command { template, .. } => template.contains(USER_PLACEHOLDER),
        }
    }
}
