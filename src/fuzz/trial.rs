//! One trial: a sequence of actions replayed on the backend under test by the replay engine
//! (the one that runs every backend: sessions, restarts, confinement and folder checks), each
//! step judged on facts against an in-process reference that runs the same calls.

use std::time::Duration;

use super::FuzzError;
use super::generate::Action;
use crate::backend::BackendSpec;
use crate::exec::{Reset, Session};
use crate::judge::Finding;
use crate::judge::facts::Stores;
use crate::judge::model::{Expected, Oracle};
use crate::judge::{self, Facts, Next, Observation};
use crate::replay::scratch;
use crate::replay::{self, ReplayOptions};
use crate::spec::Spec;
use crate::transcript::{Format, MEMORY_TOOL, ToolCall, Transcript};

/// What a trial came to.
#[derive(Debug, Clone)]
pub struct Trial {
    /// Tool calls made.
    pub calls: usize,
    /// The first fact that differs, if one does.
    pub found: Option<Located>,
    /// Why judging stopped early: an open point where the stores may rightly differ.
    pub open: Option<String>,
    /// Time the backend took.
    pub backend_time: Duration,
}

/// A finding and where it is.
#[derive(Debug, Clone)]
pub struct Located {
    /// The fact that differs.
    pub found: Finding,
    /// The action (0-based) whose call showed it.
    pub action: usize,
    /// The call (0-based, over the expanded actions).
    pub call: usize,
}

/// The transcript of a sequence: its tool inputs in order, as JSON Lines of bare inputs.
pub fn transcript(actions: &[Action], source: &str) -> Transcript {
    let calls = actions
        .iter()
        .flat_map(Action::calls)
        .enumerate()
        .map(|(i, input)| ToolCall {
            id: format!("step-{}", i + 1),
            name: MEMORY_TOOL.to_string(),
            input,
            recorded: None,
            line: Some(i + 1),
            user: None,
        })
        .collect();
    Transcript {
        source: source.to_string(),
        format: Format::Inputs,
        calls,
        session: None,
    }
}

/// The reference's answers to every call of `actions`, and the store after each, in order.
pub fn reference_run(actions: &[Action], spec: &Spec) -> Result<Vec<Expected>, FuzzError> {
    let mut oracle = Oracle::new(spec.revision())?;
    Ok(actions
        .iter()
        .flat_map(Action::calls)
        .map(|input| oracle.step(input))
        .collect())
}

/// Replays `actions` on `backend` and judges every step until the first finding or open point,
/// against `expected` when the generator kept what the reference answered as it made the
/// sequence (a shrunk candidate is run on a reference anew). `kept` is the worker's session: reset and reused when the backend can wipe its store (a
/// Python backend's start-up costs more than a whole sequence), else replaced by a fresh one.
pub fn run(
    actions: &[Action],
    expected: Option<Vec<Expected>>,
    backend: &BackendSpec,
    spec: &Spec,
    timeout: Duration,
    kept: &mut Option<Session>,
) -> Result<Trial, FuzzError> {
    let options = ReplayOptions {
        backend: backend.clone(),
        seed: None,
        timeout,
        check: false,
        revision: spec.revision(),
        user: None,
    };
    let reused = match kept.take() {
        Some(mut session) => {
            if session.reset() == Reset::Clean {
                Some(session)
            } else {
                session.discard();
                None
            }
        }
        None => None,
    };
    let mut session = match reused {
        Some(session) => session,
        None => {
            scratch::clean_session(backend, None, replay::timeouts(&options), None)
                .map_err(|e| FuzzError::Harness(e.to_string()))?
                .0
        }
    };
    let replayed = replay::replay_in(
        transcript(actions, "fuzz"),
        &options,
        Some(spec),
        &crate::events::Quiet,
        &mut session,
    );
    *kept = Some(session);
    let replayed = match replayed {
        Ok(replayed) => replayed,
        Err(replay::ReplayError::NeverStarted { first, .. }) => {
            return Err(FuzzError::NeverStarted(first));
        }
        Err(e) => return Err(FuzzError::Replay(e.to_string())),
    };
    let expected = match expected {
        Some(expected) => expected,
        None => reference_run(actions, spec)?,
    };
    // Which action each call belongs to.
    let owners: Vec<usize> = actions
        .iter()
        .enumerate()
        .flat_map(|(i, a)| std::iter::repeat_n(i, a.len()))
        .collect();
    let backend_time = Duration::from_micros(replayed.steps.iter().map(|s| s.backend_micros).sum());
    let mut trial = Trial {
        calls: 0,
        found: None,
        open: None,
        backend_time,
    };
    let empty = crate::judge::model::Model::default();
    let mut before = &empty;
    for (index, (step, expected)) in replayed.steps.iter().zip(&expected).enumerate() {
        trial.calls = index + 1;
        let stores = Stores {
            before,
            after: &expected.model,
        };
        before = &expected.model;
        let seen = Facts {
            input: &expected.input,
            backend: step.backend.as_ref(),
            findings: &step.verdict.divergences,
            reference: &expected.answer,
            stores,
            spec,
        };
        let judgement = judge::step(Observation::Facts(seen))
            .map_err(|fault| FuzzError::Harness(fault.to_string()))?;
        if let Next::Open(why) = judgement.next {
            trial.open = Some(why);
            break;
        }
        if let Some(found) = judgement.findings.into_iter().next() {
            trial.found = Some(Located {
                found,
                action: owners.get(index).copied().unwrap_or(0),
                call: index,
            });
            break;
        }
    }
    Ok(trial)
}
