//! Running cases against a backend: selection, isolation, checks, parallelism.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::case::{Level, Step, TextExpectation};
use super::grade::{CallRecord, CaseResult, Check, Finding, Outcome, Phase};
use super::load::{Always, Graded, LoadedCase, Suite};
use super::matcher;
use crate::backend::{Backend, BackendSpec};
use crate::exec::{FixtureError, Outside, Sandbox};
use crate::protocol::ToolResult;

/// Which cases to run. Empty lists select everything.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Id patterns; `*` matches any run of characters.
    pub ids: Vec<String>,
    /// Areas (file areas such as `create`).
    pub areas: Vec<String>,
    /// Rule ids; a case is selected when it names one.
    pub rules: Vec<String>,
    /// Levels.
    pub levels: Vec<Level>,
    /// Only attack cases.
    pub hostile_only: bool,
}

impl Selection {
    /// Whether `case` is selected.
    pub fn selects(&self, case: &LoadedCase) -> bool {
        (self.ids.is_empty() || self.ids.iter().any(|p| glob(p, &case.case.id)))
            && (self.areas.is_empty() || self.areas.contains(&case.area))
            && (self.rules.is_empty() || case.case.rules.iter().any(|r| self.rules.contains(r)))
            && (self.levels.is_empty() || self.levels.contains(&case.level))
            && (!self.hostile_only || case.case.hostile)
    }

    /// The selected cases, in suite order.
    pub fn apply<'a>(&self, suite: &'a Suite) -> Vec<&'a LoadedCase> {
        suite.cases.iter().filter(|c| self.selects(c)).collect()
    }
}

/// `*` matches any run of characters; everything else is literal.
pub fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Cases run at once.
    pub jobs: usize,
    /// Per-call timeout.
    pub timeout: Duration,
    /// Extra time for the first call of each backend process (start-up).
    pub startup: Duration,
    /// SHOULD misses fail.
    pub strict: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            // Cases wait on fsync and on backend processes more than on the CPU: two per core.
            jobs: 2 * std::thread::available_parallelism().map_or(2, usize::from),
            timeout: Duration::from_secs(10),
            startup: crate::backend::DEFAULT_STARTUP,
            strict: false,
        }
    }
}

/// Backend processes that exit without reading anything, none of the run's having ever read a
/// request, after which the run stops: the backend never starts, and every case would say so.
pub const NEVER_STARTED_LIMIT: usize = 3;

/// Cases in a row that broke the same way, none of the run's having ended normally, after
/// which the run stops: every case would say the same thing.
pub const SAME_BREAK_LIMIT: usize = 8;

/// Why a run stopped before its end.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// Every backend process exited before reading its first request.
    #[error(
        "the backend exited before answering its first call, {times} times{}; check the --backend command",
        stderr_note(.stderr)
    )]
    NeverStarted {
        /// Processes that died that way.
        times: usize,
        /// What the first of them wrote to stderr.
        stderr: String,
    },
    /// Every case so far broke the same way.
    #[error("every case broke the same way, {times} in a row, so the run stopped: {reason}")]
    BrokeAlike {
        /// Cases that broke that way.
        times: usize,
        /// How the first of them broke.
        reason: String,
    },
}

fn stderr_note(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        " (it wrote nothing to stderr)".to_string()
    } else {
        format!(": {}", stderr.trim())
    }
}

/// What the workers of a run learn about whether the backend starts at all.
#[derive(Debug, Default)]
pub struct Starts {
    /// A process read a request (answered or not): the backend starts.
    started: std::sync::atomic::AtomicBool,
    unread_exits: AtomicUsize,
    first_stderr: Mutex<Option<String>>,
    /// A case ended without breaking: the backend works, at least sometimes.
    worked: std::sync::atomic::AtomicBool,
    /// How the cases so far broke (the first reason and its kind), and how many in a row.
    alike: Mutex<Option<(String, String, usize)>>,
}

impl Starts {
    /// Notes what a backend process did before it was stopped; `stderr` is its excerpt.
    fn saw(&self, backend: &dyn Backend, stderr: Option<&str>) {
        if backend.exited_unread() {
            if let Ok(mut first) = self.first_stderr.lock() {
                first.get_or_insert_with(|| stderr.unwrap_or_default().to_string());
            }
            self.unread_exits.fetch_add(1, Ordering::Relaxed);
        } else {
            self.started.store(true, Ordering::Relaxed);
        }
    }

    /// Notes how a case ended: normally (`None`), or broken for `reason`.
    fn ended(&self, reason: Option<&str>) {
        let Some(reason) = reason else {
            self.worked.store(true, Ordering::Relaxed);
            return;
        };
        // A harness fault says nothing about the backend.
        if reason.starts_with("harness:") {
            return;
        }
        let kind = break_kind(reason);
        if let Ok(mut alike) = self.alike.lock() {
            match alike.as_mut() {
                Some((_, seen, count)) if *seen == kind => *count += 1,
                _ => *alike = Some((reason.to_string(), kind, 1)),
            }
        }
    }

    /// Whether the run should stop, and why.
    fn verdict(&self) -> Option<RunError> {
        if !self.worked.load(Ordering::Relaxed)
            && let Ok(alike) = self.alike.lock()
            && let Some((reason, _, times)) = alike.as_ref()
            && *times >= SAME_BREAK_LIMIT
        {
            return Some(RunError::BrokeAlike {
                times: *times,
                reason: reason.clone(),
            });
        }
        let times = self.unread_exits.load(Ordering::Relaxed);
        if self.started.load(Ordering::Relaxed) || times < NEVER_STARTED_LIMIT {
            return None;
        }
        let stderr = self
            .first_stderr
            .lock()
            .ok()
            .and_then(|first| first.clone())
            .unwrap_or_default();
        Some(RunError::NeverStarted { times, stderr })
    }
}

/// What kind of break a reason describes: its words before the first detail (`(`, `:`, `;`), so
/// that two crashes with different exit codes or stderr are the same kind.
fn break_kind(reason: &str) -> String {
    let end = reason.find(['(', ':', ';']).unwrap_or(reason.len());
    reason[..end].trim().to_string()
}

/// Runs `cases` against `backend`, `options.jobs` at a time; `progress` sees each result as it
/// completes. Results come back in the order of `cases`. The run stops early, with an error,
/// when [`NEVER_STARTED_LIMIT`] backend processes exited before reading anything and none of
/// the others ever read a request.
pub fn run(
    cases: &[&LoadedCase],
    backend: &BackendSpec,
    options: &RunOptions,
    progress: &(dyn Fn(&CaseResult) + Sync),
) -> Result<Vec<CaseResult>, RunError> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<CaseResult>>> = Mutex::new(vec![None; cases.len()]);
    let workers = options.jobs.clamp(1, cases.len().max(1));
    let reuse = Reuse::default();
    let starts = Starts::default();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let mut session = None;
                loop {
                    if starts.verdict().is_some() {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    let result = run_case_in(case, backend, options, &mut session, &reuse, &starts);
                    if result.outcome != Outcome::Skip {
                        starts.ended(if result.outcome == Outcome::Error {
                            Some(result.reason.as_deref().unwrap_or_default())
                        } else {
                            None
                        });
                    }
                    progress(&result);
                    if let Ok(mut slots) = results.lock() {
                        slots[i] = Some(result);
                    }
                }
                if let Some(mut session) = session {
                    session.backend.shutdown();
                }
            });
        }
    });
    if let Some(error) = starts.verdict() {
        return Err(error);
    }
    Ok(results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect())
}

/// A backend process kept across cases, with the sandbox it was started on.
pub struct Session {
    sandbox: Sandbox,
    backend: Box<dyn Backend>,
}

/// Whether backends of this run support the `reset` control, learnt once for all workers.
///
/// A worker's first backend is asked `reset` before its first case. `ok: true` keeps one process
/// per worker for the whole run; anything else (a "no", garbage, a crash) switches the run to a
/// fresh process per case, and that probed process is replaced before the case starts, so a
/// backend without the control costs one extra start, never a wrong verdict.
#[derive(Debug, Default)]
pub struct Reuse {
    /// 0 unknown, 1 supported, 2 unsupported.
    state: std::sync::atomic::AtomicU8,
}

impl Reuse {
    const SUPPORTED: u8 = 1;
    const UNSUPPORTED: u8 = 2;

    fn unsupported(&self) -> bool {
        self.state.load(Ordering::Relaxed) == Self::UNSUPPORTED
    }

    fn known(&self) -> bool {
        self.state.load(Ordering::Relaxed) != 0
    }

    fn learn(&self, supported: bool) {
        let state = if supported {
            Self::SUPPORTED
        } else {
            Self::UNSUPPORTED
        };
        // The first answer wins; a later "no" from a broken process still ends reuse.
        if !supported || !self.known() {
            self.state.store(state, Ordering::Relaxed);
        }
    }
}

/// Runs one case in a fresh sandbox with a fresh backend.
pub fn run_case(loaded: &LoadedCase, backend: &BackendSpec, options: &RunOptions) -> CaseResult {
    run_case_in(
        loaded,
        backend,
        options,
        &mut None,
        &Reuse::default(),
        &Starts::default(),
    )
}

/// Runs one case, reusing `session` when the backend supports `reset`.
pub fn run_case_in(
    loaded: &LoadedCase,
    backend: &BackendSpec,
    options: &RunOptions,
    session: &mut Option<Session>,
    reuse: &Reuse,
    starts: &Starts,
) -> CaseResult {
    let started = Instant::now();
    let case = &loaded.case;
    let mut result = CaseResult {
        id: case.id.clone(),
        area: loaded.area.clone(),
        title: case.title.clone(),
        level: loaded.level,
        hostile: case.hostile,
        rules: case.rules.clone(),
        outcome: Outcome::Pass,
        reason: None,
        findings: Vec::new(),
        calls: Vec::new(),
        duration: Duration::ZERO,
        start_time: Duration::ZERO,
        baselined: None,
    };
    if !case.fixtures.is_empty() && !backend.runs_on_folder() {
        result.outcome = Outcome::Skip;
        result.reason = Some(
            "needs filesystem fixtures, and the backend is declared as not storing its memories in the given folder"
                .to_string(),
        );
        return result;
    }
    match execute(
        loaded,
        backend,
        options,
        session,
        reuse,
        starts,
        &mut result,
    ) {
        Ok(()) => result.outcome = CaseResult::graded(&result.findings, options.strict),
        Err(reason) => {
            result.outcome = Outcome::Error;
            result.reason = Some(reason);
        }
    }
    result.duration = started.elapsed();
    result
}

/// Why a case could not start on a backend.
#[derive(Debug)]
enum Prepare {
    /// The backend broke, or the harness could not make a sandbox: the case errors.
    Broke(String),
    /// The backend left something in the harness's way (found after its `reset`): a finding of
    /// this case; the process and its sandbox are not used again.
    Tampered(Vec<String>),
}

/// Things the backend left in the sandbox that the harness reports (at most this many).
const TAMPERING_SHOWN: usize = 8;

/// Takes the worker's session if the backend could be reset, else starts a fresh one. A sandbox
/// is checked after every `reset`: a backend that left a link, a FIFO or anything else in the
/// harness's way is reported for this case, and neither its process nor its sandbox is reused.
fn open_session(
    backend_spec: &BackendSpec,
    options: &RunOptions,
    session: &mut Option<Session>,
    reuse: &Reuse,
    starts: &Starts,
) -> Result<Session, Prepare> {
    if let Some(mut used) = session.take() {
        if !reuse.unsupported() {
            match used.backend.reset() {
                Ok(true) => {
                    let tampered = after_reset(&used.sandbox);
                    if !tampered.is_empty() {
                        discard(used);
                        return Err(Prepare::Tampered(tampered));
                    }
                    // Errors of this case quote its own stderr, not the earlier cases'.
                    used.backend.begin_case();
                    return Ok(used);
                }
                Ok(false) | Err(_) => reuse.learn(false),
            }
        }
        discard(used);
    }
    let mut fresh = start_session(backend_spec, options).map_err(Prepare::Broke)?;
    if !reuse.known() {
        match fresh.backend.reset() {
            Ok(true) => {
                reuse.learn(true);
                let tampered = after_reset(&fresh.sandbox);
                if !tampered.is_empty() {
                    discard(fresh);
                    return Err(Prepare::Tampered(tampered));
                }
            }
            Ok(false) | Err(_) => {
                reuse.learn(false);
                // The probe may have confused a backend that knows no controls: start anew.
                let stderr = fresh.backend.shutdown();
                starts.saw(fresh.backend.as_ref(), stderr.as_deref());
                if let Some(error) = starts.verdict() {
                    return Err(Prepare::Broke(error.to_string()));
                }
                fresh = start_session(backend_spec, options).map_err(Prepare::Broke)?;
            }
        }
    }
    Ok(fresh)
}

/// After a `reset` answered `ok`: what the backend did to the sandbox, or left in
/// `memories/` that no memory backend makes; then the sandbox is brought back to its fresh
/// state. Anything that cannot be removed is reported too.
fn after_reset(sandbox: &Sandbox) -> Vec<String> {
    let mut found = sandbox.audit();
    found.extend(
        sandbox
            .specials_in_memories(TAMPERING_SHOWN)
            .into_iter()
            .map(|what| format!("after `reset` answered ok, {what} was left")),
    );
    if found.is_empty() {
        match sandbox.clear() {
            Ok(left) => found.extend(left.into_iter().map(cannot_remove)),
            Err(e) => found.push(format!("the harness cannot empty the sandbox: {e}")),
        }
    }
    found.truncate(TAMPERING_SHOWN);
    found
}

/// Ends a session that will not be used again: its process group is killed and its sandbox
/// removed. Returns what could not be removed, described.
fn discard(mut session: Session) -> Vec<String> {
    session.backend.shutdown();
    // The backend is gone before its folder is: nothing is racing the removal any more.
    drop(session.backend);
    session.sandbox.remove()
}

fn start_session(backend_spec: &BackendSpec, options: &RunOptions) -> Result<Session, String> {
    let sandbox = Sandbox::new().map_err(|e| format!("harness: cannot make a sandbox: {e}"))?;
    let backend = backend_spec
        .start_with(
            sandbox.base(),
            sandbox.memories(),
            crate::backend::Timeouts {
                call: options.timeout,
                startup: options.startup,
            },
        )
        .map_err(|e| e.to_string())?;
    Ok(Session { sandbox, backend })
}

/// Runs the case; `Err` is a broken backend or harness, with the reason.
fn execute(
    loaded: &LoadedCase,
    backend_spec: &BackendSpec,
    options: &RunOptions,
    session_slot: &mut Option<Session>,
    reuse: &Reuse,
    starts: &Starts,
    result: &mut CaseResult,
) -> Result<(), String> {
    let case = &loaded.case;
    let opening = Instant::now();
    let mut session = match open_session(backend_spec, options, session_slot, reuse, starts) {
        Ok(session) => session,
        Err(Prepare::Broke(reason)) => return Err(reason),
        Err(Prepare::Tampered(found)) => {
            result.start_time = opening.elapsed();
            sandbox_findings(
                result,
                &loaded.always.confinement,
                &found,
                "while the case was being prepared",
            );
            return Ok(());
        }
    };
    result.start_time = opening.elapsed();
    for fixture in &case.fixtures {
        match session.sandbox.apply(fixture) {
            Ok(()) => {}
            Err(FixtureError::InTheWay(what)) => {
                let mut found = vec![what];
                found.extend(discard(session).into_iter().map(cannot_remove));
                sandbox_findings(
                    result,
                    &loaded.always.confinement,
                    &found,
                    "while the harness made the case's fixtures",
                );
                return Ok(());
            }
            Err(e) => return Err(format!("harness: cannot make fixture: {e}")),
        }
    }
    let outside_before = session.sandbox.outside();
    let ran = run_calls(
        loaded,
        &session.sandbox,
        session.backend.as_mut(),
        options,
        result,
    );
    if let Err(reason) = ran {
        // A broken backend is never reused.
        let stderr = session.backend.shutdown();
        starts.saw(session.backend.as_ref(), stderr.as_deref());
        let left = discard(session);
        sandbox_findings(
            result,
            &loaded.always.confinement,
            &left.into_iter().map(cannot_remove).collect::<Vec<_>>(),
            "after the backend broke",
        );
        return Err(match stderr {
            Some(tail) if !reason.contains("stderr:") => {
                format!("{reason}; stderr: {}", tail.trim())
            }
            _ => reason,
        });
    }
    starts.saw(session.backend.as_ref(), None);
    let sandbox = &session.sandbox;
    if backend_spec.runs_on_folder() {
        for (effect, graded) in case.effects.iter().zip(&loaded.effects) {
            if let Err(found) = sandbox.check_effect(&effect.path, &effect.expect) {
                result.findings.push(Finding {
                    check: Check::Effect,
                    level: graded.level,
                    rule: graded.rule.clone(),
                    step: None,
                    message: format!(
                        "after the steps, {} should be {}",
                        effect.path,
                        describe_effect(&effect.expect)
                    ),
                    expected: Some(describe_effect(&effect.expect)),
                    actual: Some(found),
                    dialect: None,
                    expected_shown: None,
                    follows: None,
                });
            }
        }
    }
    let outside_after = sandbox.outside();
    let outside_changed = Sandbox::describe_changes(&outside_before, &outside_after);
    if let Some(changes) = &outside_changed {
        result.findings.push(Finding {
            check: Check::Outside,
            level: loaded.always.confinement.level,
            rule: loaded.always.confinement.rule.clone(),
            step: None,
            message: format!(
                "something outside the memories folder was created, changed or deleted: {}",
                shorten_list(changes)
            ),
            expected: Some(render_outside(&outside_before)),
            actual: Some(render_outside(&outside_after)),
            dialect: None,
            expected_shown: None,
            follows: None,
        });
    }
    let tampered = sandbox.audit();
    if reuse.unsupported() || !tampered.is_empty() || outside_changed.is_some() {
        // One process per case, or a sandbox the backend damaged: a new process on a new
        // sandbox for the next case. Whatever a lone process wrote after its last reply is a
        // flood of this case.
        session.backend.shutdown();
        let extra = session.backend.unread_output();
        let mut found = tampered;
        found.extend(discard(session).into_iter().map(cannot_remove));
        sandbox_findings(
            result,
            &loaded.always.confinement,
            &found,
            "after the case's steps",
        );
        if let Some(extra) = extra.filter(|_| reuse.unsupported()) {
            return Err(format!(
                "the backend flooded its output: a line after the last reply: {extra}"
            ));
        }
    } else {
        *session_slot = Some(session);
    }
    Ok(())
}

fn cannot_remove(what: String) -> String {
    format!("the harness cannot remove {what} from the sandbox")
}

/// One MUST finding per thing the backend did to the sandbox.
fn sandbox_findings(result: &mut CaseResult, rule: &Graded, found: &[String], when: &str) {
    for what in found {
        result.findings.push(Finding {
            check: Check::Sandbox,
            level: rule.level,
            rule: rule.rule.clone(),
            step: None,
            message: format!("the backend tampered with its sandbox ({when}): {what}"),
            expected: None,
            actual: Some(what.clone()),
            dialect: None,
            expected_shown: None,
            follows: None,
        });
    }
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

fn run_calls(
    loaded: &LoadedCase,
    sandbox: &Sandbox,
    backend: &mut dyn Backend,
    _options: &RunOptions,
    result: &mut CaseResult,
) -> Result<(), String> {
    for (i, (call_input, rule)) in loaded.case.setup.iter().zip(&loaded.setup).enumerate() {
        let input = expand_input(call_input.input(), sandbox);
        let answer = call(backend, Phase::Setup, &input, result)?;
        check_leak(&loaded.always, sandbox, &input, &answer, None, result);
        if answer.is_error {
            result.findings.push(Finding {
                check: Check::Setup,
                level: rule.level,
                rule: rule.rule.clone(),
                step: None,
                message: format!(
                    "setup call {} returned an error, so the case could not be checked",
                    i + 1
                ),
                expected: Some("a successful result".to_string()),
                actual: Some(answer.text),
                dialect: None,
                expected_shown: None,
                follows: None,
            });
            return Ok(());
        }
    }
    for (i, step) in loaded.case.steps.iter().enumerate() {
        let input = expand_input(&step.input, sandbox);
        let answer = call(backend, Phase::Step, &input, result)?;
        check_leak(&loaded.always, sandbox, &input, &answer, Some(i), result);
        check_step(loaded, sandbox, step, i, &answer, result)?;
    }
    Ok(())
}

fn call(
    backend: &mut dyn Backend,
    phase: Phase,
    input: &Value,
    result: &mut CaseResult,
) -> Result<ToolResult, String> {
    let started = Instant::now();
    let answer = backend.call(input);
    let backend_time = started.elapsed();
    let (answer, error) = match answer {
        Ok(answer) => (Some(answer), None),
        Err(e) => (None, Some(e.to_string())),
    };
    result.calls.push(CallRecord {
        phase,
        input: input.clone(),
        result: answer.clone(),
        error: error.clone(),
        backend_time,
    });
    match (answer, error) {
        (Some(answer), _) => Ok(answer),
        (None, error) => Err(error.unwrap_or_default()),
    }
}

/// Replaces `{{base}}` in the input's strings with the sandbox's absolute path.
fn expand_input(input: &Value, sandbox: &Sandbox) -> Value {
    match input {
        Value::String(s) if s.contains("{{base}}") => {
            Value::String(s.replace("{{base}}", &sandbox.base().to_string_lossy()))
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| expand_input(v, sandbox)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), expand_input(v, sandbox)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn check_leak(
    always: &Always,
    sandbox: &Sandbox,
    input: &Value,
    answer: &ToolResult,
    step: Option<usize>,
    result: &mut CaseResult,
) {
    // A host path in an error tells Claude (and whoever reads the transcript) where the
    // memories live; unless the input itself spelled that path, it leaked.
    let base = sandbox.base().to_string_lossy();
    let asked = input.to_string().contains(base.as_ref());
    if !asked && answer.text.contains(base.as_ref()) {
        result.findings.push(Finding {
            check: Check::HostPath,
            level: always.host_paths.level,
            rule: always.host_paths.rule.clone(),
            step,
            message: "the output reveals the host path of the memories folder".to_string(),
            expected: None,
            actual: Some(answer.text.clone()),
            dialect: None,
            expected_shown: None,
            follows: None,
        });
    }
    if answer.text.contains(sandbox.secret()) {
        result.findings.push(Finding {
            check: Check::Leak,
            level: always.confinement.level,
            rule: always.confinement.rule.clone(),
            step,
            message: "the output contains the content of a canary file outside the memories folder"
                .to_string(),
            expected: None,
            actual: Some(answer.text.clone()),
            dialect: None,
            expected_shown: None,
            follows: None,
        });
    }
}

fn check_step(
    loaded: &LoadedCase,
    sandbox: &Sandbox,
    step: &Step,
    index: usize,
    answer: &ToolResult,
    result: &mut CaseResult,
) -> Result<(), String> {
    let rules = &loaded.steps[index];
    if let Some(expected) = step.is_error
        && answer.is_error != expected
    {
        result.findings.push(Finding {
            check: Check::IsError,
            level: rules.is_error.level,
            rule: rules.is_error.rule.clone(),
            step: Some(index),
            message: format!(
                "is_error should be {expected}, the backend said {}",
                answer.is_error
            ),
            expected: Some(expected.to_string()),
            actual: Some(answer.is_error.to_string()),
            dialect: None,
            expected_shown: None,
            follows: None,
        });
    }
    for forbidden in &step.must_not_contain {
        let forbidden = forbidden.replace("{{base}}", &sandbox.base().to_string_lossy());
        if answer.text.contains(forbidden.as_str()) {
            result.findings.push(Finding {
                check: Check::MustNotContain,
                level: rules.must_not_contain.level,
                rule: rules.must_not_contain.rule.clone(),
                step: Some(index),
                message: format!("the output must not contain {forbidden:?}"),
                expected: None,
                actual: Some(answer.text.clone()),
                dialect: None,
                expected_shown: None,
                follows: None,
            });
        }
    }
    let Some(expected) = &step.text else {
        return Ok(());
    };
    if matcher::matches(expected, &answer.text).map_err(|e| format!("harness: {e}"))? {
        return Ok(());
    }
    let dialect = known_dialect(step, expected, &answer.text)?;
    result.findings.push(Finding {
        check: Check::Text,
        level: rules.text.level,
        rule: rules.text.rule.clone(),
        step: Some(index),
        message: match &dialect {
            Some(name) => format!("the text is the known `{name}` dialect, not the spec's"),
            None => "the text differs from the expected one".to_string(),
        },
        expected: Some(matcher::describe(expected)),
        actual: Some(answer.text.clone()),
        dialect,
        expected_shown: matcher::aligned(expected, &answer.text)?,
        follows: None,
    });
    Ok(())
}

/// Names the dialect `actual` is written in: one of the step's own, or a plain `Error: `
/// prefix added or missing (the official SDKs' runners differ exactly there).
fn known_dialect(
    step: &Step,
    expected: &TextExpectation,
    actual: &str,
) -> Result<Option<String>, String> {
    // Several official implementations may share one text: name them all.
    let mut names = Vec::new();
    for dialect in &step.dialects {
        if matcher::matches(&dialect.text, actual).map_err(|e| format!("harness: {e}"))? {
            names.push(dialect.name.as_str());
        }
    }
    if !names.is_empty() {
        return Ok(Some(names.join(" / ")));
    }
    if let TextExpectation::Exact(text) = expected {
        if text.strip_prefix("Error: ") == Some(actual) {
            return Ok(Some("error-prefix-missing".to_string()));
        }
        if actual.strip_prefix("Error: ") == Some(text.as_str()) {
            return Ok(Some("error-prefix-added".to_string()));
        }
    }
    Ok(None)
}

fn describe_effect(expect: &super::case::EffectKind) -> String {
    use super::case::EffectKind;
    match expect {
        EffectKind::FileText(text) => format!("a file containing {text:?}"),
        EffectKind::FileBytesHex(hex) => format!("a file of bytes {hex}"),
        EffectKind::FileBytesHexOneOf(hexes) => format!("a file of bytes {}", hexes.join(" or ")),
        EffectKind::Lines(lines) => format!("a file of the lines {lines:?}"),
        EffectKind::File(_) => "a file".to_string(),
        EffectKind::Dir(_) => "a folder".to_string(),
        EffectKind::Absent(_) => "nothing".to_string(),
        EffectKind::Symlink(target) => format!("a symbolic link to {target}"),
    }
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

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn globs() {
        assert!(glob("paths.*", "paths.dotdot.view"));
        assert!(glob("*.view", "paths.dotdot.view"));
        assert!(glob("*dotdot*", "paths.dotdot.view"));
        assert!(!glob("create.*", "paths.dotdot.view"));
        assert!(glob("exact", "exact"));
    }
}
