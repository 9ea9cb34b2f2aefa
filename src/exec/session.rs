//! One backend process and the sandbox it runs on: what `check`, `matrix`, `replay` and `record`
//! all do with a backend under test.
//!
//! A [`Session`] starts the process on its sandbox, sends calls, asks for `reset` and audits the
//! sandbox after it, starts the process again on the same sandbox after it broke (up to
//! [`RESTART_LIMIT`] breaks in a row), and ends with [`Session::discard`]: the process group is
//! killed, then the sandbox removed. Every failure is a [`Fault`]: the backend's (a verdict about
//! it) or the harness's (no verdict at all).
//!
//! The confinement checks are here too, one set for every command: canary content or the
//! sandbox's host path in an answer ([`Session::check_answer`]), and anything changed outside
//! `memories/` or done to the sandbox itself ([`Session::check_sandbox`]). They are facts
//! ([`Breach`]); the judge grades them (`crate::judge::confinement`).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;

use super::disk_look::DiskLook;
use super::{Look, Moment};
use super::{Outside, Sandbox};
use crate::backend::{Backend, BackendError, BackendSpec, Place, Timeouts};
use crate::protocol::ToolResult;

/// Breaks in a row (a call that failed, a process that would not start) after which a session
/// starts its backend no more.
pub const RESTART_LIMIT: usize = 3;

/// Things a backend did to its sandbox that are reported at once (at most this many).
const TAMPERING_SHOWN: usize = 8;

/// Why a call, a start or a reset did not give an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    /// The backend crashed, hung, spoke garbage or could not be started: a verdict about it.
    #[error(transparent)]
    Backend(#[from] Broke),
    /// The backend broke [`RESTART_LIMIT`] times in a row and is not started again.
    #[error("the backend broke {breaks} times in a row and was not restarted again")]
    GaveUp {
        /// Breaks in a row.
        breaks: usize,
    },
    /// The harness could not do its part (make a sandbox, a fixture, read a case): no verdict
    /// about the backend at all.
    #[error("harness: {0}")]
    Harness(String),
    /// The store held memories where it should have been empty (after a `reset`, or on a fresh
    /// start): no case can be judged on it, and the run stops.
    #[error(transparent)]
    Dirty(#[from] super::Dirty),
}

/// How the backend broke, with what it wrote to stderr meanwhile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}{}", stderr_note(.stderr.as_deref(), .reason))]
pub struct Broke {
    /// What went wrong, as the backend module says it.
    pub reason: String,
    /// The last lines the process wrote to stderr during the current case, if any.
    pub stderr: Option<String>,
    /// Whether it broke by not answering (or not reading its request) in time.
    pub timed_out: bool,
}

impl Broke {
    /// How `error` broke the backend, with its stderr.
    pub fn of(error: &BackendError, stderr: Option<String>) -> Broke {
        Broke {
            reason: error.to_string(),
            stderr,
            timed_out: matches!(
                error,
                BackendError::Timeout { .. } | BackendError::Unread { .. }
            ),
        }
    }
}

fn stderr_note(stderr: Option<&str>, reason: &str) -> String {
    match stderr.map(str::trim) {
        Some(tail) if !tail.is_empty() && !reason.contains("stderr:") => {
            format!("; stderr: {tail}")
        }
        _ => String::new(),
    }
}

/// What a `reset` came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reset {
    /// The backend forgot everything and the sandbox is as fresh as a new one.
    Clean,
    /// The backend does not support `reset` (it said no, or broke answering): why, when it said.
    Refused(Option<String>),
    /// The backend said ok, but left this in the harness's way: neither the process nor the
    /// sandbox can be used again.
    Tampered(Vec<String>),
    /// The backend said ok, and the sandbox is fresh, but `/memories` still lists memories (see
    /// [`Session::look_for_leftovers`]): nothing can be judged on this store.
    Dirty(super::Dirty),
}

/// How a process ended when it was stopped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stopped {
    /// The last lines it wrote to stderr during the current case.
    pub stderr: Option<String>,
    /// A line it wrote that no request asked for.
    pub unread_output: Option<String>,
}

/// A breach of confinement the session saw: a fact, graded by the judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Breach {
    /// The answer shows the host path of the sandbox (the input did not spell it): the answer.
    HostPath(String),
    /// The answer shows the content of a canary file outside `memories/`: the answer.
    CanaryShown(String),
    /// Something outside `memories/` was created, changed or deleted.
    Outside {
        /// The changes, one line.
        changes: String,
        /// What was there before, rendered.
        before: String,
        /// What is there now, rendered.
        after: String,
    },
    /// Something the backend did to the sandbox's own structure.
    Tampered(String),
}

/// What the sandbox check found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Confined {
    /// The breaches, new since the last check.
    pub breaches: Vec<Breach>,
    /// Whether something outside `memories/` changed or the sandbox was tampered with: such a
    /// sandbox is not to be used for anything else.
    pub damaged: bool,
}

/// A backend process on its sandbox.
pub struct Session {
    /// Declared before the sandbox, so dropped (killed) before it is removed.
    backend: Option<Box<dyn Backend>>,
    /// Shared with the other clients of the same store ([`Session::client`]); removed with the
    /// last of them.
    sandbox: Arc<Sandbox>,
    spec: BackendSpec,
    timeouts: Timeouts,
    /// A shorter wait for the current case's calls ([`Session::answer_within`]).
    call_limit: Option<Duration>,
    /// Breaks since the last answer.
    breaks: usize,
    /// Whether the last process stopped had exited before reading anything.
    exited_unread: bool,
    /// Outside `memories/` at the last look.
    outside: Outside,
    /// Tampering already reported.
    reported: Vec<String>,
    /// The user it serves in a store shared by many users ([`Session::client_as`]).
    user: Option<String>,
    /// The look at the store's disk shared by every user's session, when each call's changes
    /// are wanted ([`Session::look_at_disk`]).
    disk: Option<Arc<Mutex<DiskLook>>>,
    /// What the last call changed on disk, by that look.
    changed: Option<Vec<String>>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("backend", &self.spec.label())
            .field("sandbox", &self.sandbox.base())
            .field("running", &self.backend.is_some())
            .field("breaks", &self.breaks)
            .finish()
    }
}

impl Session {
    /// A fresh sandbox in the system's temporary folder (for the in-process reference, on a RAM
    /// file system when there is one), with the backend started on it.
    pub fn start(spec: &BackendSpec, timeouts: Timeouts) -> Result<Session, Fault> {
        let mut session = Session::unstarted(spec, timeouts)?;
        session.running()?;
        Ok(session)
    }

    /// A fresh sandbox as [`Session::start`] makes it, with the backend not yet started (its
    /// first call starts it).
    pub fn unstarted(spec: &BackendSpec, timeouts: Timeouts) -> Result<Session, Fault> {
        // The reference fsyncs every write (decide.durability), which a sandbox thrown away
        // after its case does not need and which costs milliseconds per create on a busy disk
        // (the 1,500 creates of scale.wide-folder took seconds): as replays do, its sandboxes
        // live in /dev/shm. Other backends keep TMPDIR, where their users expect them.
        let sandbox = match spec {
            BackendSpec::Reference(_) => Sandbox::new_in_memory(),
            _ => Sandbox::new(),
        }
        .map_err(|e| Fault::Harness(format!("cannot make a sandbox: {e}")))?;
        Ok(Session::on(sandbox, spec, timeouts))
    }

    /// The backend on `sandbox` (made and filled by the caller), started by the first call.
    pub fn on(sandbox: Sandbox, spec: &BackendSpec, timeouts: Timeouts) -> Session {
        let outside = sandbox.outside();
        Session {
            backend: None,
            sandbox: Arc::new(sandbox),
            spec: spec.clone(),
            timeouts,
            call_limit: None,
            breaks: 0,
            exited_unread: false,
            outside,
            reported: Vec::new(),
            user: None,
            disk: None,
            changed: None,
        }
    }

    /// The sandbox the backend runs on.
    pub fn sandbox(&self) -> &Sandbox {
        &self.sandbox
    }

    /// Another client of the same store: a second process of the same backend on the same
    /// sandbox (started by its first call), as two agents sharing one memory store run. The
    /// sandbox is removed when the last client is discarded.
    pub fn client(&self) -> Session {
        Session {
            backend: None,
            sandbox: Arc::clone(&self.sandbox),
            spec: self.spec.clone(),
            timeouts: self.timeouts,
            call_limit: self.call_limit,
            breaks: 0,
            exited_unread: false,
            outside: self.sandbox.outside(),
            reported: Vec::new(),
            user: self.user.clone(),
            disk: self.disk.clone(),
            changed: None,
        }
    }

    /// Another client of the same store serving user `user` (see
    /// [`BackendSpec::takes_user`]): the backend started as that user on the same sandbox, by
    /// its first call.
    pub fn client_as(&self, user: &str) -> Session {
        Session {
            user: Some(user.to_string()),
            ..self.client()
        }
    }

    /// This session's process (not yet started) as user `user` of the store.
    pub fn as_user(mut self, user: &str) -> Session {
        self.stop();
        self.user = Some(user.to_string());
        self
    }

    /// The user it serves, in a store shared by many users.
    pub fn user(&self) -> Option<&str> {
        self.user.as_deref()
    }

    /// From now on, each answered call looks at `memories/` through `look` (shared with the
    /// other users' sessions of the store, whose calls are made one at a time) and keeps what
    /// changed since the last look, for [`Session::take_changes`].
    pub fn look_at_disk(&mut self, look: Arc<Mutex<DiskLook>>) {
        self.disk = Some(look);
    }

    /// What the last answered call changed below `memories/` (relative paths), when this
    /// session looks at its disk.
    pub fn take_changes(&mut self) -> Option<Vec<String>> {
        self.changed.take()
    }

    /// The running process, started (again, on the same sandbox) when there is none, unless it
    /// broke [`RESTART_LIMIT`] times in a row.
    fn running(&mut self) -> Result<&mut Box<dyn Backend>, Fault> {
        if self.backend.is_none() {
            if super::children::stopping() {
                return Err(Fault::Harness("the run is being stopped".to_string()));
            }
            if self.breaks >= RESTART_LIMIT {
                return Err(Fault::GaveUp {
                    breaks: self.breaks,
                });
            }
            let place = Place {
                base: self.sandbox.base(),
                memories: self.sandbox.memories(),
                state: self.sandbox.state(),
            };
            match self
                .spec
                .start_as(place, self.timeouts, self.user.as_deref())
            {
                Ok(backend) => self.backend = Some(backend),
                Err(e) => {
                    self.breaks += 1;
                    return Err(Fault::Backend(Broke::of(&e, None)));
                }
            }
        }
        self.backend
            .as_mut()
            .ok_or_else(|| Fault::Harness("the backend is not running".to_string()))
    }

    /// Calls from now on wait at most `limit` (when shorter than the session's timeout), or the
    /// whole timeout again with `None`: for a case whose point is an answer at once. With a
    /// limit, a process that has not answered yet is first seen to start (within the start-up
    /// allowance), so that the limit measures the calls and not the start.
    pub fn answer_within(&mut self, limit: Option<Duration>) -> Result<(), Fault> {
        self.call_limit = limit;
        if limit.is_none() {
            return Ok(());
        }
        self.warm_up()
    }

    /// A backend that broke: counted, stopped (its stderr goes in the fault), and started
    /// again on the same sandbox by the next call.
    fn broke(&mut self, error: &BackendError) -> Fault {
        self.breaks += 1;
        let stopped = self.stop();
        Fault::Backend(Broke::of(error, stopped.stderr))
    }

    /// Sends one tool input. A backend that breaks is stopped (its stderr is in the fault) and
    /// started again on the same sandbox by the next call.
    pub fn call(&mut self, input: &Value) -> Result<ToolResult, Fault> {
        let timeout = self
            .call_limit
            .map_or(self.timeouts.call, |limit| limit.min(self.timeouts.call));
        let backend = self.running()?;
        backend.set_call_timeout(timeout);
        let answer = backend.call(input);
        match answer {
            Ok(result) => {
                self.breaks = 0;
                self.changed = self.disk.as_ref().map(|look| {
                    // Each look is a whole scan: one a panicking thread left is as good.
                    let mut look = look.lock().unwrap_or_else(PoisonError::into_inner);
                    look.changes(&self.sandbox)
                });
                Ok(result)
            }
            Err(e) => Err(self.broke(&e)),
        }
    }

    /// Asks the backend to forget every memory, then audits the sandbox and brings it back to
    /// its fresh state: what the backend did to it, or left in `memories/` that no memory
    /// backend makes, is [`Reset::Tampered`], as is anything the harness cannot remove.
    pub fn reset(&mut self) -> Reset {
        // The next case waits as long as its own calls need.
        self.call_limit = None;
        let Some(backend) = self.backend.as_mut() else {
            return Reset::Refused(None);
        };
        backend.set_call_timeout(self.timeouts.call);
        match backend.reset() {
            Ok(true) => {}
            Ok(false) => return Reset::Refused(backend.reset_refusal()),
            Err(e) => return Reset::Refused(Some(format!("it broke answering: {e}"))),
        }
        let mut found = self.sandbox.audit();
        found.extend(
            self.sandbox
                .specials_in_memories(TAMPERING_SHOWN)
                .into_iter()
                .map(|what| format!("after `reset` answered ok, {what} was left")),
        );
        if found.is_empty() {
            match self.sandbox.clear() {
                Ok(left) => found.extend(left.into_iter().map(cannot_remove)),
                Err(e) => found.push(format!("the harness cannot empty the sandbox: {e}")),
            }
        }
        found.truncate(TAMPERING_SHOWN);
        if !found.is_empty() {
            return Reset::Tampered(found);
        }
        let look = self.look_for_leftovers(Moment::Reset);
        self.outside = self.sandbox.outside();
        self.reported.clear();
        match look {
            Look::Dirty(dirty) => Reset::Dirty(dirty),
            Look::Tampered(found) => Reset::Tampered(found),
            Look::Empty | Look::Unseen(_) => Reset::Clean,
        }
    }

    /// Starts the backend and has it forget every memory, as `check` does before each case: a
    /// store kept elsewhere (a database file, a server) must not carry an earlier run's
    /// memories into this one. A backend that knows no `reset` is stopped again, so that the
    /// probe cannot confuse its first real call (which starts it afresh), and its fresh store
    /// is looked at. `Err` when the backend could not be started, or its store is not empty
    /// ([`Fault::Dirty`]).
    pub fn start_clean(&mut self) -> Result<Reset, Fault> {
        self.running()?;
        match self.reset() {
            Reset::Dirty(dirty) => Err(Fault::Dirty(dirty)),
            refused @ Reset::Refused(_) => {
                self.stop();
                match self.look_for_leftovers(Moment::FreshStart) {
                    Look::Dirty(dirty) => Err(Fault::Dirty(dirty)),
                    Look::Tampered(found) => Ok(Reset::Tampered(found)),
                    Look::Empty | Look::Unseen(_) => Ok(refused),
                }
            }
            reset => Ok(reset),
        }
    }

    /// Starts the backend and has it forget its memories (`reset`) without touching the
    /// sandbox, which is new: as [`Session::start_clean`] for one of several users of a store,
    /// whose folders in the sandbox the other users' processes may already hold open. A
    /// backend that knows no `reset` is stopped again, so that the probe cannot confuse its
    /// first real call. `Err` only when the backend could not be started or did not answer.
    pub fn start_forgetting(&mut self) -> Result<(), Fault> {
        self.warm_up()?;
        let call = self.timeouts.call;
        let backend = self.running()?;
        backend.set_call_timeout(call);
        if matches!(backend.reset(), Ok(true)) {
            self.expect_empty(Moment::Reset)
        } else {
            self.stop();
            self.expect_empty(Moment::FreshStart)
        }
    }

    /// Starts the backend and sees it answer (a `hello` control, within the start-up allowance).
    pub fn warm_up(&mut self) -> Result<(), Fault> {
        let started = self.running()?.warm_up();
        started.map_err(|e| self.broke(&e))
    }

    /// A new case starts on this process: its errors quote what it writes to stderr from now on.
    pub fn begin_case(&mut self) {
        if let Some(backend) = self.backend.as_mut() {
            backend.begin_case();
        }
    }

    /// Whether the process (the running one, or the last one stopped) exited before reading
    /// anything sent to it: the backend never started.
    pub fn exited_unread(&self) -> bool {
        self.backend
            .as_ref()
            .map_or(self.exited_unread, |b| b.exited_unread())
    }

    /// Whether the backend keeps its memories in the sandbox's folder, so that the disk is a
    /// witness of its store.
    pub fn sandbox_is_store(&self) -> bool {
        self.spec.runs_on_folder()
    }

    /// The running backend's process group (started first when there is none); `None` when the
    /// backend runs in memspec's own process.
    pub fn process_group(&mut self) -> Result<Option<i32>, Fault> {
        Ok(self.running()?.process_group())
    }

    /// Stops the process (its whole group); the sandbox stays, for a restart or a look.
    pub fn stop(&mut self) -> Stopped {
        let Some(mut backend) = self.backend.take() else {
            return Stopped::default();
        };
        let stderr = backend.shutdown();
        self.exited_unread = backend.exited_unread();
        Stopped {
            stderr,
            unread_output: backend.unread_output(),
        }
    }

    /// Ends every session of `sessions` (clients of one store, or of several): what could not
    /// be removed from their sandboxes.
    pub fn discard_all(sessions: Vec<Session>) -> Vec<String> {
        sessions.into_iter().flat_map(Session::discard).collect()
    }

    /// Ends the session: the process group is killed, then the sandbox removed. Returns what
    /// could not be removed, described as a finding's detail.
    pub fn discard(mut self) -> Vec<String> {
        self.stop();
        // The backend is gone before its folder is: nothing is racing the removal any more.
        // Another client still running keeps the sandbox; the last one removes it.
        let Session { sandbox, .. } = self;
        match Arc::try_unwrap(sandbox) {
            Ok(sandbox) => sandbox.remove().into_iter().map(cannot_remove).collect(),
            Err(_) => Vec::new(),
        }
    }

    /// The confinement checks of one answer to `input`: canary content in it, and the
    /// sandbox's host path in it unless the input spelled that path.
    pub fn check_answer(&self, input: &Value, answer: &ToolResult) -> Vec<Breach> {
        let mut breaches = Vec::new();
        // A host path in an error tells Claude (and whoever reads the transcript) where the
        // memories live; unless the input itself spelled that path, it leaked.
        let base = self.sandbox.base().to_string_lossy();
        // The input is serialized only for an answer that holds the path (a create's input can
        // be megabytes, and this runs on every call).
        if answer.text.contains(base.as_ref()) && !input.to_string().contains(base.as_ref()) {
            breaches.push(Breach::HostPath(answer.text.clone()));
        }
        if answer.text.contains(self.sandbox.secret()) {
            breaches.push(Breach::CanaryShown(answer.text.clone()));
        }
        breaches
    }

    /// Starts watching outside `memories/` from now on (after the fixtures, say).
    pub fn watch_outside(&mut self) {
        self.outside = self.sandbox.outside();
    }

    /// The confinement checks of the sandbox since the last look: what changed outside
    /// `memories/`, and what the backend did to the sandbox's structure. Each change and each
    /// tampering is reported once.
    pub fn check_sandbox(&mut self) -> Confined {
        let mut confined = Confined::default();
        let now = self.sandbox.outside();
        if let Some(changes) = Sandbox::describe_changes(&self.outside, &now) {
            confined.breaches.push(Breach::Outside {
                changes: shorten_list(&changes),
                before: render_outside(&self.outside),
                after: render_outside(&now),
            });
            confined.damaged = true;
        }
        self.outside = now;
        let tampered = self.sandbox.audit();
        confined.damaged |= !tampered.is_empty();
        let new: Vec<String> = tampered
            .into_iter()
            .filter(|what| !self.reported.contains(what))
            .collect();
        confined
            .breaches
            .extend(new.iter().cloned().map(Breach::Tampered));
        self.reported.extend(new);
        confined
    }
}

fn cannot_remove(what: String) -> String {
    format!("the harness cannot remove {what} from the sandbox")
}

/// A list of changes cut to a readable length for a one-line message.
fn shorten_list(text: &str) -> String {
    const SHOWN: usize = 400;
    if text.len() <= SHOWN {
        return text.to_string();
    }
    let cut = (0..=SHOWN)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    format!("{}…", &text[..cut])
}

fn render_outside(outside: &Outside) -> String {
    let mut lines: Vec<String> = outside
        .entries
        .iter()
        .map(|(path, what)| format!("{}: {}", path.display(), what.describe()))
        .collect();
    if outside.more > 0 {
        lines.push(format!("and {} more entries", outside.more));
    }
    lines.join("\n")
}
