//! The replay loop: one call at a time to both backends, then the comparisons.
//!
//! This file holds the loop and its entry points; what the loop looks at after each step has a
//! file each:
//!
//! - `folders`: both memory folders, scanned after each step, and where they differ.
//! - `differences`: a difference between the folders as a divergence, and its files as shown.

mod differences;
mod folders;

use std::sync::Arc;
use std::time::Instant;

use super::scratch;
use super::verdict::StepVerdict;
use super::{Answer, Replay, ReplayError, ReplayOptions, Step};
use crate::backend::{BackendSpec, DEFAULT_STARTUP, Timeouts};
use crate::events::{Event, Sink, Stage};
use crate::exec::{Fault, Sandbox, Session};
use crate::judge::{self, Observation, ReplayLedger, Replayed, Witness};
use crate::reference::Reference;
use crate::spec::Spec;
use crate::transcript::Transcript;
use differences::file_differences;
use folders::{Change, Folders, change_of};

/// Replays every memory call of `transcript`; `events` is told [`Stage::Steps`] with their
/// number, then how many are done as it goes.
pub fn replay(
    transcript: Transcript,
    options: &ReplayOptions,
    spec: Option<&Spec>,
    events: &dyn Sink,
) -> Result<Replay, ReplayError> {
    // The backend under test, started clean, and again after it breaks (on the same folder,
    // so a filesystem backend keeps its state), until it has broken too often in a row.
    let seed = scratch::Named::load(options.seed.as_deref())?;
    let (mut backend, notes) = scratch::clean_session(
        &options.backend,
        seed.as_ref(),
        timeouts(options),
        options.user.as_deref(),
    )?;
    let replayed = replay_in(transcript, options, spec, events, &mut backend);
    backend.discard();
    replayed.map(|replayed| Replay {
        planted: notes,
        ..replayed
    })
}

/// The timeouts a replay's backend gets.
pub fn timeouts(options: &ReplayOptions) -> Timeouts {
    Timeouts {
        call: options.timeout,
        startup: DEFAULT_STARTUP,
    }
}

/// [`replay`] on a session the caller keeps: its sandbox as the backend's starting point (the
/// caller planted or reset it), its process reused if running. The fuzzer keeps one per worker
/// and resets it between sequences, so that a backend that starts slowly starts once.
pub fn replay_in(
    transcript: Transcript,
    options: &ReplayOptions,
    spec: Option<&Spec>,
    events: &dyn Sink,
    backend: &mut Session,
) -> Result<Replay, ReplayError> {
    replay_users_in(
        transcript,
        options,
        spec,
        events,
        std::slice::from_mut(backend),
    )
}

/// One user's side of a replay: the reference that user's calls run on (each user's store is
/// their own), both folders as far as they are compared, and the judge's ledger of that
/// user's steps.
struct Lane<'s> {
    reference_box: Sandbox,
    reference: Reference,
    folders: Folders,
    ledger: ReplayLedger<'s>,
}

/// [`replay_in`] for several users of one store (`fuzz --users`): `sessions` serve one user
/// each on one sandbox, and each call is made on the session of its user
/// ([`ToolCall::user`](crate::transcript::ToolCall)) and judged against that user's own
/// reference. With one session, every call is made on it.
pub fn replay_users_in(
    transcript: Transcript,
    options: &ReplayOptions,
    spec: Option<&Spec>,
    events: &dyn Sink,
    sessions: &mut [Session],
) -> Result<Replay, ReplayError> {
    let started = Instant::now();
    if sessions.is_empty() {
        return Err(ReplayError::Harness(
            "a replay needs a session of the backend".to_string(),
        ));
    }
    // A user's memories are wherever the backend's mapping puts them: read through its tool.
    let on_folder = options.backend.runs_on_folder()
        && options.user.is_none()
        && sessions.iter().all(|session| session.user().is_none());
    let trusted = matches!(options.backend, BackendSpec::Reference(_));
    let mut lanes = Vec::with_capacity(sessions.len());
    for session in sessions.iter_mut() {
        let reference_box = scratch::seeded(options.seed.as_deref())?;
        let reference = Reference::open_as(reference_box.memories(), options.revision)?;
        session.begin_case();
        session.watch_outside();
        let folders = Folders::new(session.sandbox(), &reference_box, on_folder, !trusted);
        lanes.push(Lane {
            reference_box,
            reference,
            folders,
            // How the replay is graded, and what each side's store is as far as it differs
            // from the reference's.
            ledger: ReplayLedger::new(spec, options.check),
        });
    }
    let total = transcript.calls.len();
    let mut steps = Vec::with_capacity(total);
    events.event(Event::Started {
        stage: Stage::Steps,
        total,
    });
    // Whether the backend ever answered, and its first fault: a backend that breaks on every
    // call from the first never started, and the replay stops with one message.
    let mut answered = false;
    let mut first_fault: Option<String> = None;
    let unanswered = transcript.format.records_answers();
    for (index, call) in transcript.calls.iter().enumerate() {
        events.event(Event::Progress {
            done: index,
            last: None,
        });
        if !call.is_memory() {
            steps.push(Step {
                backend: None,
                reference: None,
                verdict: StepVerdict::not_replayed(&call.name),
                changed: false,
                trees: None,
                files: Vec::new(),
                backend_micros: 0,
            });
            continue;
        }
        let lane = lane_of(call.user.as_deref(), sessions)?;
        let (
            backend,
            Lane {
                reference_box,
                reference,
                folders,
                ledger,
            },
        ) = (&mut sessions[lane], &mut lanes[lane]);
        let call_started = Instant::now();
        let answer = match backend.call(&call.input) {
            Ok(result) => {
                answered = true;
                Answer::Result(result)
            }
            Err(Fault::GaveUp { breaks }) if !answered => {
                return Err(ReplayError::NeverStarted {
                    command: options.backend.label(),
                    breaks,
                    first: first_fault.unwrap_or_default(),
                });
            }
            Err(fault @ Fault::GaveUp { .. }) => Answer::NotRun(format!("not replayed: {fault}")),
            Err(Fault::Harness(message)) => return Err(ReplayError::Harness(message)),
            Err(Fault::Dirty(dirty)) => return Err(super::scratch::StartError::Dirty(dirty).into()),
            Err(fault @ Fault::Backend(_)) => {
                let told = fault.to_string();
                first_fault.get_or_insert_with(|| told.clone());
                Answer::Broke(told)
            }
        };
        let backend_micros = call_started.elapsed().as_micros() as u64;
        let reference_answer = reference.answer(&call.input);
        let before = Arc::clone(&folders.reference);
        let reference_change = change_of(&call.input, Some(&reference_answer.result));
        // A backend under test is looked at whole after every call (what its folder's watch saw
        // change, or a whole scan): changing what it should not is exactly what is looked for.
        // The in-process reference is the spec.
        let backend_change = if trusted {
            change_of(&call.input, answer.result())
        } else {
            Change::Unknown
        };
        let roots = (backend.sandbox(), &*reference_box);
        let backend_before = folders.backend.clone();
        let (trees, tree_changed) =
            folders.after_step(index, roots, &reference_change, &backend_change);
        // A path that leaves `/memories` only once decoded, kept by the backend as a literal
        // name in its folder (before or after the step), did not escape.
        let literal = |relative: &str| {
            [backend_before.as_deref(), trees.backend.as_deref()]
                .into_iter()
                .flatten()
                .any(|tree| tree.get(relative).is_some())
        };
        let files = if tree_changed {
            file_differences(&folders.differences, roots)
        } else {
            Vec::new()
        };
        let changed = match (&call.recorded, answer.result()) {
            (Some(recorded), Some(result)) => recorded != result,
            _ => false,
        };
        let breaches = match answer.result() {
            Some(result) if !options.check => {
                let mut breaches = backend.check_answer(&call.input, result);
                // The in-process reference cannot reach outside its root (its own tests
                // attack that); checking it here would only cost time on long replays.
                if !trusted {
                    breaches.extend(backend.check_sandbox().breaches);
                }
                breaches
            }
            _ => Vec::new(),
        };
        let witness = if on_folder {
            Witness::Folder {
                before: &before,
                after: &trees.reference,
                changed: tree_changed,
                literal: &literal,
                differences: &folders.differences,
            }
        } else {
            Witness::Tool {
                after: &trees.reference,
                last_change: ledger.last_change().map(|i| &transcript.calls[i].input),
            }
        };
        let seen = Replayed {
            index,
            input: &call.input,
            answer: &answer,
            recorded: call.recorded.as_ref(),
            reference: &reference_answer,
            witness,
            breaches,
        };
        let findings = judge::step(Observation::Replayed(ledger, seen))
            .map_err(|fault| ReplayError::Harness(fault.to_string()))?
            .findings;
        let mut verdict = match &answer {
            Answer::Result(_) => StepVerdict::graded(findings, options.check),
            Answer::Broke(why) | Answer::NotRun(why) => {
                let mut broke = StepVerdict::broke(why.clone());
                broke.divergences = findings;
                broke
            }
        };
        if call.recorded.is_none() && unanswered && verdict.reason.is_none() {
            verdict.reason = Some(NO_RECORDED_ANSWER.to_string());
        }
        steps.push(Step {
            backend: Some(answer),
            reference: Some(Answer::Result(reference_answer.result)),
            verdict,
            changed,
            trees: Some(trees),
            files,
            backend_micros,
        });
    }
    events.event(Event::Progress {
        done: total,
        last: None,
    });
    Ok(Replay {
        transcript,
        backend: options.backend.label(),
        on_folder,
        check: options.check,
        revision: options.revision,
        seed: options.seed.clone(),
        planted: Vec::new(),
        steps,
        elapsed: started.elapsed(),
    })
}

/// The session (and lane) of the call made as `user`: the only one, when there is one.
fn lane_of(user: Option<&str>, sessions: &[Session]) -> Result<usize, ReplayError> {
    if sessions.len() <= 1 {
        return Ok(0);
    }
    sessions
        .iter()
        .position(|session| session.user().is_some_and(|u| Some(u) == user))
        .ok_or_else(|| {
            ReplayError::Harness(format!(
                "a call made as user {} has no session of that user",
                user.map_or_else(|| "(none)".to_string(), judge::shown_user)
            ))
        })
}

/// The reason of a step whose `tool_use` has no `tool_result` in the transcript.
pub const NO_RECORDED_ANSWER: &str =
    "no recorded answer: the transcript has no tool_result for this call";
