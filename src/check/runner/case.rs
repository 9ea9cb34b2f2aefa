//! One case's run: a session on a sandbox (a fresh one, or the worker's after a `reset`), the
//! case's fixtures, its calls (see `calls`), what the backend did to the sandbox, and the
//! case's outcome.

use std::time::{Duration, Instant};

use super::calls::{Budget, observe, run_calls};
use super::{Reuse, RunError, RunOptions, Starts};
use crate::backend::{BackendSpec, Timeouts};
use crate::exec::plant::{Fixture, FixtureKind};
use crate::exec::{Broke, Fault, FixtureError, Look, Moment, Reset, Session};
use crate::judge::grade::{CaseResult, Outcome};
use crate::judge::{self, CaseCall, CaseLedger, Next, Observation};
use crate::suite::case::SetupCall;
use crate::suite::load::LoadedCase;

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
        hostile: case.hostile,
        ..CaseResult::new(
            case.id.clone(),
            loaded.area.clone(),
            case.title.clone(),
            loaded.level,
            case.rules.clone(),
        )
    };
    let mut ledger = CaseLedger::new(loaded, backend.runs_on_folder());
    let skipped = ledger
        .skipped()
        .or_else(|| (ledger.of_users() && !backend.takes_user()).then(|| NO_USER.to_string()));
    if let Some(reason) = skipped {
        result.outcome = Outcome::Skip;
        result.reason = Some(reason);
        return Ok(result);
    }
    let ran = if ledger.of_users() {
        super::users::execute(loaded, &mut ledger, backend, options, &mut result)
    } else {
        execute(
            loaded,
            &mut ledger,
            backend,
            options,
            session,
            reuse,
            starts,
            &mut result,
        )
    };
    match ran {
        Err(Fault::Harness(message)) => {
            return Err(RunError::Harness {
                case: case.id.clone(),
                message,
            });
        }
        Err(Fault::Dirty(mut dirty)) => {
            dirty.workers = options.jobs;
            return Err(RunError::Dirty(dirty));
        }
        _ => {}
    }
    let broke = ran.as_ref().err();
    let findings = std::mem::take(&mut result.findings);
    let ended = CaseCall::Ended { findings, broke };
    let judgement =
        judge::step(Observation::Case(&mut ledger, ended)).map_err(|fault| RunError::Harness {
            case: case.id.clone(),
            message: fault.to_string(),
        })?;
    result.findings = judgement.findings;
    result.choices = ledger.into_choices();
    match (judgement.next, broke) {
        (Next::Broke, Some(fault)) => {
            result.outcome = Outcome::Error;
            result.timed_out = matches!(fault, Fault::Backend(broke) if broke.timed_out);
            result.reason = Some(fault.to_string());
        }
        (_, broke) => {
            result.outcome = CaseResult::graded(&result.findings, options.strict);
            result.reason = broke.map(|fault| format!("broke: {fault}"));
        }
    }
    result.duration = started.elapsed();
    Ok(result)
}

/// Why the users lane is not run on a backend that takes no user.
pub const NO_USER: &str = "users lane not run: the backend takes no user (its command has no `{user}`), so it is checked as a store of one user; a backend that serves many users on one store names `{user}` in its command (and gets MEMSPEC_USER), or with --python or --node is run with --per-user";

/// Why a case could not start on a backend.
#[derive(Debug)]
enum Prepare {
    /// The backend broke (the case errors), or the harness could not make a sandbox.
    Fault(Fault),
    /// The backend left something in the harness's way (found after its `reset`): a finding of
    /// this case; the process and its sandbox are not used again.
    Tampered(Vec<String>),
}

pub(super) fn timeouts(options: &RunOptions) -> Timeouts {
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
                // Errors of this case quote its own stderr, not the earlier cases' (see
                // `execute`).
                Reset::Clean => return Ok(used),
                Reset::Tampered(found) => {
                    used.discard();
                    return Err(Prepare::Tampered(found));
                }
                Reset::Dirty(dirty) => {
                    used.discard();
                    return Err(Prepare::Fault(Fault::Dirty(dirty)));
                }
                Reset::Refused(why) => reuse.refused(why),
            }
        }
        used.discard();
    }
    let mut fresh = Session::start(backend_spec, timeouts(options)).map_err(Prepare::Fault)?;
    if !reuse.unsupported() {
        // The first process of a run learns whether the backend resets; every later one is
        // reset too, so that a store kept elsewhere starts without the other workers' cases.
        match fresh.reset() {
            Reset::Clean => {
                reuse.learn(true);
                return Ok(fresh);
            }
            Reset::Tampered(found) => {
                reuse.learn(true);
                fresh.discard();
                return Err(Prepare::Tampered(found));
            }
            Reset::Dirty(dirty) => {
                fresh.discard();
                return Err(Prepare::Fault(Fault::Dirty(dirty)));
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
                        timed_out: false,
                    })));
                }
                fresh = Session::start(backend_spec, timeouts(options)).map_err(Prepare::Fault)?;
            }
        }
    }
    // A process that cannot reset works on the new sandbox and `{state}` it was started on:
    // a store that is not empty there lives where memspec does not empty it.
    match fresh.look_for_leftovers(Moment::FreshStart) {
        Look::Empty | Look::Unseen(_) => Ok(fresh),
        Look::Dirty(dirty) => {
            fresh.discard();
            Err(Prepare::Fault(Fault::Dirty(dirty)))
        }
        Look::Tampered(found) => {
            fresh.discard();
            Err(Prepare::Tampered(found))
        }
    }
}

/// Runs the case; `Err` is a broken backend or harness.
#[allow(clippy::too_many_arguments)]
fn execute(
    loaded: &LoadedCase,
    ledger: &mut CaseLedger<'_>,
    backend_spec: &BackendSpec,
    options: &RunOptions,
    session_slot: &mut Option<Session>,
    reuse: &Reuse,
    starts: &Starts,
    result: &mut CaseResult,
) -> Result<(), Fault> {
    let case = &loaded.case;
    let opening = Instant::now();
    let mut session = match open_session(backend_spec, options, session_slot, reuse, starts) {
        // What the process wrote for the harness's reset and look is no case's story.
        Ok(mut session) => {
            session.begin_case();
            session
        }
        Err(Prepare::Fault(fault)) => return Err(fault),
        Err(Prepare::Tampered(found)) => {
            result.start_time = opening.elapsed();
            let seen = CaseCall::Tampered {
                found: &found,
                when: "while the case was being prepared",
            };
            observe(ledger, seen, result)?;
            return Ok(());
        }
    };
    result.start_time = opening.elapsed();
    // A planted setup create is a fixture on a backend on the folder (see `SetupCall::Planted`).
    let planted = case
        .setup
        .iter()
        .filter_map(SetupCall::planted)
        .filter(|_| backend_spec.runs_on_folder())
        .map(|(path, text)| Fixture {
            path: path.to_string(),
            kind: FixtureKind::Text(text.to_string()),
        });
    for fixture in case.fixtures.iter().cloned().chain(planted) {
        match session.sandbox().apply(&fixture) {
            Ok(()) => {}
            Err(FixtureError::InTheWay(what)) => {
                let mut found = vec![what];
                found.extend(session.discard());
                let seen = CaseCall::Tampered {
                    found: &found,
                    when: "while the harness made the case's fixtures",
                };
                observe(ledger, seen, result)?;
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
    };
    let ran = session
        .answer_within(case.answer_within.map(Duration::from_secs))
        .and_then(|()| {
            run_calls(
                loaded,
                ledger,
                std::slice::from_mut(&mut session),
                backend_spec.runs_on_folder(),
                !backend_spec.runs_on_folder(),
                &budget,
                result,
            )
        });
    if let Err(fault) = ran {
        // A broken backend is never reused.
        if let Fault::Backend(broke) = &fault {
            starts.saw(session.exited_unread(), broke.stderr.as_deref());
        }
        let left = session.discard();
        let seen = CaseCall::Tampered {
            found: &left,
            when: "after the backend broke",
        };
        observe(ledger, seen, result)?;
        return Err(fault);
    }
    starts.saw(session.exited_unread(), None);
    let confined = session.check_sandbox();
    observe(ledger, CaseCall::Sandbox(confined.breaches), result)?;
    if reuse.unsupported() || confined.damaged {
        // One process per case, or a sandbox the backend damaged: a new process on a new
        // sandbox for the next case. Whatever a lone process wrote after its last reply is a
        // flood of this case.
        let stopped = session.stop();
        let left = session.discard();
        let seen = CaseCall::Tampered {
            found: &left,
            when: "after the case's steps",
        };
        observe(ledger, seen, result)?;
        if let Some(extra) = stopped.unread_output.filter(|_| reuse.unsupported()) {
            return Err(Fault::Backend(Broke {
                reason: format!(
                    "the backend flooded its output: a line after the last reply: {extra}"
                ),
                stderr: None,
                timed_out: false,
            }));
        }
    } else {
        *session_slot = Some(session);
    }
    Ok(())
}
