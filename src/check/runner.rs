//! Running cases against a backend: selection, isolation, checks, parallelism.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::backend::{BackendSpec, Timeouts};
use crate::exec::{Broke, Fault, FixtureError, Reset, Sandbox, Session};
use crate::judge::answers;
use crate::judge::confinement::{self, tampering};
use crate::judge::disk;
use crate::judge::effects::{self, Before};
use crate::judge::grade::{CallRecord, CaseResult, Check, Choice, Finding, Outcome, Phase};
use crate::judge::witness::{self, Seen};
use crate::protocol::ToolResult;
use crate::spec::Graded;
use crate::spec::known;
use crate::suite::case::{Effect, EffectKind, Level};
use crate::suite::load::{LoadedCase, Suite};

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

    /// Whether the race `race.{name}` of `check --clients N` is selected: it is in area `races`,
    /// checks the `concurrency.*` rules at SHOULD, and is no attack.
    pub fn selects_race(&self, name: &str) -> bool {
        let id = format!("race.{name}");
        (self.ids.is_empty() || self.ids.iter().any(|p| glob(p, &id)))
            && (self.areas.is_empty() || self.areas.iter().any(|a| a == "races"))
            && (self.rules.is_empty()
                || crate::check::race::RULES
                    .iter()
                    .any(|r| self.rules.iter().any(|s| s == r.as_str())))
            && (self.levels.is_empty() || self.levels.contains(&Level::Should))
            && !self.hostile_only
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
    /// The most time one case may take: past it, its remaining calls are not made and the case
    /// says so (INFO, with the time), so that no case takes minutes on a slow backend.
    pub case_budget: Duration,
}

/// `--case-budget` when not given: the slowest case of the suite (1,500 setup files) takes a few
/// seconds on the reference and under a minute on the slowest recipe.
pub const DEFAULT_CASE_BUDGET: Duration = Duration::from_secs(120);

/// Cases run at once against `backend` when `--jobs` is not given. A backend program keeps a
/// case waiting on its process and on fsync more than on the CPU: two cases per core. The
/// in-process reference never waits, so more cases than cores only take turns on them (and
/// each case's time then counts the turns of others).
pub fn default_jobs(backend: &BackendSpec) -> usize {
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    match backend {
        BackendSpec::Reference(_) => cores,
        _ => 2 * cores,
    }
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            // As for a backend program (`default_jobs`).
            jobs: 2 * std::thread::available_parallelism().map_or(2, usize::from),
            timeout: Duration::from_secs(10),
            startup: crate::backend::DEFAULT_STARTUP,
            strict: false,
            case_budget: DEFAULT_CASE_BUDGET,
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
    /// The harness could not run a case (make a sandbox or a fixture, apply a matcher): not
    /// a verdict about the backend, and nothing the rest of the run could be trusted after.
    #[error("the harness could not run the case {case}: {message}")]
    Harness {
        /// The case's id.
        case: String,
        /// What the harness could not do.
        message: String,
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
    /// Notes what a backend process did before it was stopped (whether it exited before
    /// reading anything); `stderr` is its excerpt.
    fn saw(&self, exited_unread: bool, stderr: Option<&str>) {
        if exited_unread {
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
/// the others ever read a request, or when the harness could not run a case.
pub fn run(
    cases: &[&LoadedCase],
    backend: &BackendSpec,
    options: &RunOptions,
    progress: &(dyn Fn(&CaseResult) + Sync),
) -> Result<Vec<CaseResult>, RunError> {
    run_noted(cases, backend, options, progress).map(|ran| ran.results)
}

/// What a run gave: the results, and what the report should say once about how it ran.
#[derive(Debug, Clone, Default)]
pub struct Ran {
    /// One result per case run, in the order of the cases.
    pub results: Vec<CaseResult>,
    /// How the run went that is no case's result (one process per case, and why).
    pub notes: Vec<String>,
}

/// [`run`], with the run's notes.
pub fn run_noted(
    cases: &[&LoadedCase],
    backend: &BackendSpec,
    options: &RunOptions,
    progress: &(dyn Fn(&CaseResult) + Sync),
) -> Result<Ran, RunError> {
    run_until(cases, backend, options, None, progress)
}

/// [`run_noted`] that starts no case once `deadline` has passed (a case already running
/// finishes): the results are those of the cases that ran, still in the order of `cases`. For
/// extra work a run may do within a budget, such as rechecking its failures alone.
pub fn run_until(
    cases: &[&LoadedCase],
    backend: &BackendSpec,
    options: &RunOptions,
    deadline: Option<Instant>,
    progress: &(dyn Fn(&CaseResult) + Sync),
) -> Result<Ran, RunError> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<CaseResult>>> = Mutex::new(vec![None; cases.len()]);
    let workers = options.jobs.clamp(1, cases.len().max(1));
    let reuse = Reuse::default();
    let starts = Starts::default();
    let harness: Mutex<Option<RunError>> = Mutex::new(None);
    let harness_failed = || harness.lock().map_or(true, |h| h.is_some());
    std::thread::scope(|scope| {
        for worker in 0..workers {
            let (next, results, reuse, starts, harness) =
                (&next, &results, &reuse, &starts, &harness);
            let harness_failed = &harness_failed;
            // Each worker's processes are told which worker starts them, so that backends
            // with a fixed database file can keep one store per worker.
            let backend = backend.for_worker(worker);
            scope.spawn(move || {
                let backend = &backend;
                let mut session = None;
                loop {
                    if starts.verdict().is_some()
                        || harness_failed()
                        || deadline.is_some_and(|d| Instant::now() >= d)
                    {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    let result =
                        match run_case_in(case, backend, options, &mut session, reuse, starts) {
                            Ok(result) => result,
                            Err(error) => {
                                if let Ok(mut first) = harness.lock() {
                                    first.get_or_insert(error);
                                }
                                break;
                            }
                        };
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
                if let Some(session) = session {
                    session.discard();
                }
            });
        }
    });
    if let Some(error) = harness.into_inner().ok().flatten() {
        return Err(error);
    }
    if let Some(error) = starts.verdict() {
        return Err(error);
    }
    Ok(Ran {
        results: results
            .into_inner()
            .unwrap_or_default()
            .into_iter()
            .flatten()
            .collect(),
        notes: reuse.note().into_iter().collect(),
    })
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
    /// Why the first "no" came, as the backend said it: the report says it once.
    why: Mutex<Option<String>>,
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

    /// Learns a "no", and why (the first reason given is kept).
    fn refused(&self, why: Option<String>) {
        if !self.unsupported()
            && let Ok(mut first) = self.why.lock()
        {
            *first = Some(why.unwrap_or_default());
        }
        self.learn(false);
    }

    /// What the report says when the run went one process per case: `None` when processes
    /// were reused (or the run never learnt).
    pub fn note(&self) -> Option<String> {
        if !self.unsupported() {
            return None;
        }
        let why = self.why.lock().ok().and_then(|why| why.clone());
        Some(match why.as_deref().map(str::trim) {
            Some(why) if !why.is_empty() => {
                format!("the backend cannot reset its store ({why}): one process per case")
            }
            _ => "the backend does not answer `reset` with ok: one process per case".to_string(),
        })
    }
}

/// Runs one case in a fresh sandbox with a fresh backend; `Err` is a harness fault.
pub fn run_case(
    loaded: &LoadedCase,
    backend: &BackendSpec,
    options: &RunOptions,
) -> Result<CaseResult, RunError> {
    run_case_in(
        loaded,
        backend,
        options,
        &mut None,
        &Reuse::default(),
        &Starts::default(),
    )
}

/// Runs one case, reusing `session` when the backend supports `reset`. A backend that broke
/// makes an `error` outcome; a harness that could not run the case is `Err`.
pub fn run_case_in(
    loaded: &LoadedCase,
    backend: &BackendSpec,
    options: &RunOptions,
    session: &mut Option<Session>,
    reuse: &Reuse,
    starts: &Starts,
) -> Result<CaseResult, RunError> {
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
        choices: Vec::new(),
    };
    if !case.fixtures.is_empty() && !backend.runs_on_folder() {
        result.outcome = Outcome::Skip;
        result.reason = Some(format!(
            "needs {} on disk, which no tool call can make, and the backend does not store its memories in a folder",
            effects::fixture_kinds(&case.fixtures)
        ));
        return Ok(result);
    }
    let planted = effects::planted_from_outside(&case.fixtures);
    match execute(
        loaded,
        backend,
        options,
        session,
        reuse,
        starts,
        &mut result,
    ) {
        Ok(()) => {
            if let Some((rule, what)) = &planted {
                effects::hostile_environment(&mut result.findings, rule, what);
            }
            result.outcome = CaseResult::graded(&result.findings, options.strict);
        }
        Err(Fault::Harness(message)) => {
            return Err(RunError::Harness {
                case: case.id.clone(),
                message,
            });
        }
        // Breaking on an object no tool call can make (hanging on a FIFO) is this case's
        // finding in the hostile-environment tier, not the run's headline.
        Err(fault) if planted.is_some() => {
            let (rule, what) = planted.unwrap_or((known::SPECIAL_FILES, String::new()));
            result.findings.push(Finding {
                check: Check::Sandbox,
                level: Level::Info,
                rule,
                step: None,
                message: format!(
                    "hostile environment: the backend broke on {what} planted from outside"
                ),
                expected: None,
                actual: Some(fault.to_string()),
                dialect: None,
                expected_shown: None,
                follows: None,
            });
            result.outcome = CaseResult::graded(&result.findings, options.strict);
            result.reason = Some(format!("broke: {fault}"));
        }
        Err(fault) => {
            result.outcome = Outcome::Error;
            result.reason = Some(fault.to_string());
        }
    }
    result.duration = started.elapsed();
    Ok(result)
}

/// Why a case could not start on a backend.
#[derive(Debug)]
enum Prepare {
    /// The backend broke (the case errors), or the harness could not make a sandbox.
    Fault(Fault),
    /// The backend left something in the harness's way (found after its `reset`): a finding of
    /// this case; the process and its sandbox are not used again.
    Tampered(Vec<String>),
}

fn timeouts(options: &RunOptions) -> Timeouts {
    Timeouts {
        call: options.timeout,
        startup: options.startup,
    }
}

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
            match used.reset() {
                Reset::Clean => {
                    // Errors of this case quote its own stderr, not the earlier cases'.
                    used.begin_case();
                    return Ok(used);
                }
                Reset::Tampered(found) => {
                    used.discard();
                    return Err(Prepare::Tampered(found));
                }
                Reset::Refused(why) => reuse.refused(why),
            }
        }
        used.discard();
    }
    let mut fresh = Session::start(backend_spec, timeouts(options)).map_err(Prepare::Fault)?;
    if !reuse.known() {
        match fresh.reset() {
            Reset::Clean => reuse.learn(true),
            Reset::Tampered(found) => {
                reuse.learn(true);
                fresh.discard();
                return Err(Prepare::Tampered(found));
            }
            Reset::Refused(why) => {
                reuse.refused(why);
                // The probe may have confused a backend that knows no controls: start anew.
                let stopped = fresh.stop();
                starts.saw(fresh.exited_unread(), stopped.stderr.as_deref());
                fresh.discard();
                if let Some(error) = starts.verdict() {
                    return Err(Prepare::Fault(Fault::Backend(Broke {
                        reason: error.to_string(),
                        stderr: None,
                    })));
                }
                fresh = Session::start(backend_spec, timeouts(options)).map_err(Prepare::Fault)?;
            }
        }
    }
    Ok(fresh)
}

/// Runs the case; `Err` is a broken backend or harness.
fn execute(
    loaded: &LoadedCase,
    backend_spec: &BackendSpec,
    options: &RunOptions,
    session_slot: &mut Option<Session>,
    reuse: &Reuse,
    starts: &Starts,
    result: &mut CaseResult,
) -> Result<(), Fault> {
    let case = &loaded.case;
    let confinement = &loaded.always.confinement;
    let opening = Instant::now();
    let mut session = match open_session(backend_spec, options, session_slot, reuse, starts) {
        Ok(session) => session,
        Err(Prepare::Fault(fault)) => return Err(fault),
        Err(Prepare::Tampered(found)) => {
            result.start_time = opening.elapsed();
            result.findings.extend(tampering(
                confinement,
                &found,
                "while the case was being prepared",
            ));
            return Ok(());
        }
    };
    result.start_time = opening.elapsed();
    for fixture in &case.fixtures {
        match session.sandbox().apply(fixture) {
            Ok(()) => {}
            Err(FixtureError::InTheWay(what)) => {
                let mut found = vec![what];
                found.extend(session.discard());
                result.findings.extend(tampering(
                    confinement,
                    &found,
                    "while the harness made the case's fixtures",
                ));
                return Ok(());
            }
            Err(e) => {
                session.discard();
                return Err(Fault::Harness(format!("cannot make a fixture: {e}")));
            }
        }
    }
    session.watch_outside();
    let budget = Budget {
        limit: options.case_budget,
        started: Instant::now(),
        calls: loaded.case.setup.len() + loaded.case.steps.len(),
    };
    let ran = run_calls(
        loaded,
        &mut session,
        backend_spec.runs_on_folder(),
        &budget,
        result,
    );
    if let Err(fault) = ran {
        // A broken backend is never reused.
        if let Fault::Backend(broke) = &fault {
            starts.saw(session.exited_unread(), broke.stderr.as_deref());
        }
        let left = session.discard();
        result
            .findings
            .extend(tampering(confinement, &left, "after the backend broke"));
        return Err(fault);
    }
    starts.saw(session.exited_unread(), None);
    let confined = session.check_sandbox();
    result.findings.extend(confinement::findings(
        confined.breaches,
        &loaded.always,
        None,
        "after the case's steps",
    ));
    if reuse.unsupported() || confined.damaged {
        // One process per case, or a sandbox the backend damaged: a new process on a new
        // sandbox for the next case. Whatever a lone process wrote after its last reply is a
        // flood of this case.
        let stopped = session.stop();
        let left = session.discard();
        result
            .findings
            .extend(tampering(confinement, &left, "after the case's steps"));
        if let Some(extra) = stopped.unread_output.filter(|_| reuse.unsupported()) {
            return Err(Fault::Backend(Broke {
                reason: format!(
                    "the backend flooded its output: a line after the last reply: {extra}"
                ),
                stderr: None,
            }));
        }
    } else {
        *session_slot = Some(session);
    }
    Ok(())
}

/// A case's time budget: past it, no further call of the case is made.
struct Budget {
    limit: Duration,
    started: Instant,
    /// The case's setup calls and steps.
    calls: usize,
}

impl Budget {
    /// Past the budget before call `made` (0-based over setup and steps): the INFO finding that
    /// says so, with the time.
    fn spent(&self, made: usize) -> Option<Finding> {
        let elapsed = self.started.elapsed();
        (elapsed > self.limit).then(|| {
            effects::not_checked(
                Check::Setup,
                &known::TERMINATES,
                None,
                format!(
                    "the case ran over its time budget of {} s: {made} of its {} calls took {:.1} s, and the rest was not run (--case-budget)",
                    self.limit.as_secs(),
                    self.calls,
                    elapsed.as_secs_f64()
                ),
                "the case's calls within the budget",
                format!("{made} calls in {:.1} s", elapsed.as_secs_f64()),
            )
        })
    }
}

fn run_calls(
    loaded: &LoadedCase,
    session: &mut Session,
    on_folder: bool,
    budget: &Budget,
    result: &mut CaseResult,
) -> Result<(), Fault> {
    for (i, (call_input, rule)) in loaded.case.setup.iter().zip(&loaded.setup).enumerate() {
        if let Some(spent) = budget.spent(i) {
            result.findings.push(spent);
            return Ok(());
        }
        let input = expand_input(call_input.input(), session.sandbox());
        let answer = call(session, Phase::Setup, &input, result)?;
        let leaks = confinement::findings(
            session.check_answer(&input, &answer),
            &loaded.always,
            None,
            "in an answer",
        );
        result.findings.extend(leaks);
        if answer.is_error {
            // What the setup needs is checked by the cases of its own command; here a refusal
            // (a size limit, a name length the page lets a backend set) only means that this
            // case cannot be checked.
            result.findings.push(effects::not_checked(
                Check::Setup,
                &rule.rule,
                None,
                format!(
                    "the backend refused setup call {} ({})",
                    i + 1,
                    effects::described(&input)
                ),
                "a successful result",
                answer.text,
            ));
            return Ok(());
        }
    }
    verify_setup(loaded, session, on_folder, result)?;
    let mut effects: Vec<(&Effect, &Graded)> =
        loaded.case.effects.iter().zip(&loaded.effects).collect();
    let mut before = Before::of(&loaded.case);
    for (i, step) in loaded.case.steps.iter().enumerate() {
        if let Some(spent) = budget.spent(loaded.case.setup.len() + i) {
            result.findings.push(spent);
            return Ok(());
        }
        let input = expand_input(&step.input, session.sandbox());
        let answer = call(session, Phase::Step, &input, result)?;
        let leaks = confinement::findings(
            session.check_answer(&input, &answer),
            &loaded.always,
            Some(i),
            "in an answer",
        );
        result.findings.extend(leaks);
        before.wrote(&input, answer.is_error);
        if !answer.is_error {
            verify_create(loaded, session, on_folder, i, &input, &mut before, result)?;
        }
        let allowed = loaded.alternatives.get(i).and_then(Option::as_ref);
        if let Some(allowed) = allowed {
            result.choices.push(Choice {
                rule: allowed.rule.rule.clone(),
                step: i,
                choice: allowed.choice.clone(),
                taken: answer.is_error == allowed.is_error,
            });
        }
        if step.is_error == Some(false) && answer.is_error && effects::large_write(&input) {
            result.findings.push(effects::not_checked(
                Check::IsError,
                &loaded.steps[i].is_error.rule,
                Some(i),
                format!(
                    "the backend refused a large write ({}), a limit the page lets a backend set",
                    effects::described(&input)
                ),
                "false",
                answer.text,
            ));
            return Ok(());
        }
        match allowed {
            Some(allowed) if answer.is_error == allowed.is_error => {
                // The backend took the other outcome this revision allows: the expected flag and
                // words do not apply, and what it leaves behind is the alternative's.
                answers::forbidden_content(loaded, session.sandbox(), step, i, &answer, result);
                effects.retain(|(e, _)| !allowed.effects.iter().any(|a| a.path == e.path));
                effects.extend(allowed.effects.iter().map(|e| (e, &allowed.rule)));
            }
            _ => answers::check_step(loaded, session.sandbox(), step, i, &answer, result)?,
        }
    }
    check_effects(
        &effects,
        &before,
        &loaded.writes,
        session,
        on_folder,
        result,
    )
}

/// Reads the effects: on a folder the disk is their witness (the backend's `view` is judged as
/// a view by the cases that view, not a second time here); any other store is asked with its
/// own `view`. Then [`effects::judge`] grades what was seen.
fn check_effects(
    effects: &[(&Effect, &Graded)],
    before: &Before,
    writes: &Graded,
    session: &mut Session,
    on_folder: bool,
    result: &mut CaseResult,
) -> Result<(), Fault> {
    let mut witnessed = Vec::with_capacity(effects.len());
    for &(effect, _) in effects {
        witnessed.push(if on_folder {
            disk::see(session.sandbox(), &effect.path, &effect.expect)
        } else {
            read_back(session, &effect.path, &effect.expect, result)?
        });
    }
    let findings = effects::judge(effects, &witnessed, before, writes, on_folder);
    result.findings.extend(findings);
    Ok(())
}

/// A step's successful `create` of a file that a later step edits is read back at once: a
/// create that wrote the wrong bytes is then that step's fault, under `create.writes-file-text`,
/// and what the edits leave follows from it (one fault, one root cause), instead of a wrong
/// file graded under the edit's rule.
fn verify_create(
    loaded: &LoadedCase,
    session: &mut Session,
    on_folder: bool,
    index: usize,
    input: &Value,
    before: &mut Before,
    result: &mut CaseResult,
) -> Result<(), Fault> {
    let field = |name: &str| input.get(name).and_then(Value::as_str);
    let (Some("create"), Some(path), Some(text)) =
        (field("command"), field("path"), field("file_text"))
    else {
        return Ok(());
    };
    let edited_later = loaded.case.steps.iter().skip(index + 1).any(|step| {
        matches!(
            step.input.get("command").and_then(Value::as_str),
            Some("str_replace" | "insert")
        ) && step.input.get("path").and_then(Value::as_str) == Some(path)
    });
    // Through the tool a large file is read in pages; on a folder the disk reads it at once.
    if !edited_later || (!on_folder && effects::large_write(input)) {
        return Ok(());
    }
    let expect = EffectKind::FileText(text.to_string());
    let seen = if on_folder {
        disk::see(session.sandbox(), path, &expect)
    } else {
        read_back(session, path, &expect, result)?
    };
    if matches!(seen, Seen::Differs(_)) {
        let message = format!("step {} created {path}, which should then be", index + 1);
        if let Some(mut finding) =
            effects::seen_finding(Check::Effect, &loaded.writes, message, &expect, seen)
        {
            finding.step = Some(index);
            result.findings.push(finding);
            before.create_fault(path, index);
        }
    }
    Ok(())
}

/// The most files of a setup verified through the tool.
const SETUP_VIEWS: usize = 16;

/// The files the setup calls made hold what they were given: a backend that writes `create`
/// wrong is told so once, at the setup, and what follows is marked as following from it. On a
/// folder the bytes are read; any other store is asked with `view`.
fn verify_setup(
    loaded: &LoadedCase,
    session: &mut Session,
    on_folder: bool,
    result: &mut CaseResult,
) -> Result<(), Fault> {
    let files = witness::setup_files(&loaded.case.setup);
    // Through the tool, a wide setup is verified by a sample spread over it (its first and
    // last files among them): one view per file cost a slow backend minutes on 1,500 files.
    let stride = if on_folder {
        1
    } else {
        files.len().div_ceil(SETUP_VIEWS).max(1)
    };
    let last = files.len().saturating_sub(1);
    let sample = files
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % stride == 0 || *i == last)
        .map(|(_, file)| file);
    for (index, path, expect) in sample {
        let Some(rule) = loaded.setup.get(index) else {
            continue;
        };
        let seen = if on_folder {
            // A setup file not there differs from what setup made, whatever the reason.
            match disk::see(session.sandbox(), &path, &expect) {
                Seen::Missing(found) => Seen::Differs(found),
                seen => seen,
            }
        } else {
            read_back(session, &path, &expect, result)?
        };
        let message = format!("setup call {} made {path}, which should then be", index + 1);
        if let Some(finding) = effects::seen_finding(Check::Setup, rule, message, &expect, seen) {
            result.findings.push(finding);
        }
    }
    Ok(())
}

/// Reads an effect back with the backend's own `view` (several views for a long file whose
/// plain view is cut, see [`witness::read_back`]).
fn read_back(
    session: &mut Session,
    path: &str,
    expect: &EffectKind,
    result: &mut CaseResult,
) -> Result<Seen, Fault> {
    witness::read_back(path, expect, |input| {
        call(session, Phase::Witness, input, result)
    })
}

fn call(
    session: &mut Session,
    phase: Phase,
    input: &Value,
    result: &mut CaseResult,
) -> Result<ToolResult, Fault> {
    let started = Instant::now();
    let answer = session.call(input);
    let backend_time = started.elapsed();
    result.calls.push(CallRecord {
        phase,
        input: input.clone(),
        result: answer.as_ref().ok().cloned(),
        error: answer.as_ref().err().map(|fault| match fault {
            Fault::Backend(broke) => broke.reason.clone(),
            other => other.to_string(),
        }),
        backend_time,
    });
    answer
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

#[cfg(test)]
mod tests {
    use super::{BackendSpec, default_jobs, glob};
    use crate::spec::Revision;

    /// The in-process reference never waits, so more cases than cores would only take turns;
    /// a backend program waits on its process and the disk.
    #[test]
    fn the_reference_runs_a_case_per_core_a_program_two() {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        assert_eq!(
            default_jobs(&BackendSpec::Reference(Revision::Ga2026)),
            cores
        );
        let program = BackendSpec::command("python3 backend.py {memories}", None);
        assert_eq!(default_jobs(&program), 2 * cores);
    }

    #[test]
    fn globs() {
        assert!(glob("paths.*", "paths.dotdot.view"));
        assert!(glob("*.view", "paths.dotdot.view"));
        assert!(glob("*dotdot*", "paths.dotdot.view"));
        assert!(!glob("create.*", "paths.dotdot.view"));
        assert!(glob("exact", "exact"));
    }
}
