//! One trial: a sequence of actions replayed on the backend under test by the replay engine
//! (the one that runs every backend: sessions, restarts, confinement and folder checks), each
//! step judged on facts against an in-process reference that runs the same calls.

use std::time::Duration;

use super::FuzzError;
use super::action::{Action, owners};
use crate::backend::BackendSpec;
use crate::exec::{self, Fault, Reset, Session};
use crate::judge::Finding;
use crate::judge::compare::Answer;
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
    /// The backend's answer to each call (`None`: not made), its sandbox's path written
    /// `{base}`, so that two trials on two sandboxes can be compared.
    pub answers: Vec<Option<Answer>>,
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

/// The transcript of a sequence: its tool inputs in order, as JSON Lines of bare inputs; in a
/// store of several `users`, each call names the user its step is made as.
pub fn transcript(actions: &[Action], source: &str, users: &[String]) -> Transcript {
    let calls = owners(actions)
        .into_iter()
        .zip(actions.iter().flat_map(Action::calls))
        .map(|((_, user), input)| {
            let user = (users.len() > 1)
                .then(|| users.get(user).cloned())
                .flatten();
            (user, input)
        })
        .enumerate()
        .map(|(i, (user, input))| ToolCall {
            id: format!("step-{}", i + 1),
            name: MEMORY_TOOL.to_string(),
            input,
            recorded: None,
            line: Some(i + 1),
            user,
        })
        .collect();
    Transcript {
        source: source.to_string(),
        format: Format::Inputs,
        calls,
        session: None,
    }
}

/// The reference's answers to every call of `actions`, and the store after each, in order;
/// each user's calls run on that user's own reference.
pub fn reference_run(actions: &[Action], spec: &Spec) -> Result<Vec<Expected>, FuzzError> {
    let mut oracles: Vec<Oracle> = Vec::new();
    let mut expected = Vec::new();
    for action in actions {
        while oracles.len() <= action.user() {
            oracles.push(Oracle::new(spec.revision())?);
        }
        let oracle = &mut oracles[action.user()];
        expected.extend(action.calls().into_iter().map(|input| oracle.step(input)));
    }
    Ok(expected)
}

/// Whose store a trial runs on.
pub enum Store<'a> {
    /// The store of one user: the worker's session, reset and reused when the backend can wipe
    /// its store (a Python backend's start-up costs more than a whole sequence), else replaced
    /// by a fresh one.
    One(&'a mut Option<Session>),
    /// A new store shared by these users (the ids of [`Action::user`]), served once per user,
    /// each step made on its user's process.
    Users(&'a [String]),
    /// A new store of these users, every user's memories forgotten (a store kept elsewhere, a
    /// database or a server, holds what an earlier trial left), then the steps, all made as
    /// `user`, on a fresh process of that user alone: what that user's calls give with no other
    /// user at work.
    Alone {
        /// The store's users.
        users: &'a [String],
        /// The one who makes the calls (0-based).
        user: usize,
    },
}

/// Replays `actions` on `backend` and judges every step until the first finding or open point,
/// against `expected` when the generator kept what the reference answered as it made the
/// sequence (a shrunk candidate is run on a reference anew), on `store`. A backend that
/// refuses a user's id at start makes the trial open, not a finding.
pub fn run(
    actions: &[Action],
    expected: Option<Vec<Expected>>,
    backend: &BackendSpec,
    spec: &Spec,
    timeout: Duration,
    store: Store<'_>,
) -> Result<Trial, FuzzError> {
    let options = ReplayOptions {
        backend: backend.clone(),
        seed: None,
        timeout,
        check: false,
        revision: spec.revision(),
        user: None,
    };
    let (users, alone) = match &store {
        Store::One(_) => (&[][..], None),
        Store::Users(users) => (*users, None),
        Store::Alone { users, user } => (*users, Some(*user)),
    };
    let transcript = transcript(actions, "fuzz", users);
    let base;
    let replayed = if let Store::One(kept) = store {
        let mut session = reused(kept, backend, &options)?;
        base = session.sandbox().base().to_path_buf();
        let replayed = replay::replay_in(
            transcript,
            &options,
            Some(spec),
            &crate::events::Quiet,
            &mut session,
        );
        *kept = Some(session);
        replayed
    } else {
        let mut sessions = exec::users::sessions(backend, users, replay::timeouts(&options))
            .map_err(|fault| FuzzError::Harness(fault.to_string()))?;
        if let Err(fault) = exec::users::start(&mut sessions) {
            let refused = exec::users::refused(&sessions);
            Session::discard_all(sessions);
            return match (fault, refused) {
                (Fault::Harness(message), _) => Err(FuzzError::Harness(message)),
                (Fault::Dirty(dirty), _) => Err(FuzzError::Dirty(dirty)),
                (Fault::Backend(_), Some(user)) => Ok(Trial {
                    calls: 0,
                    found: None,
                    open: Some(format!(
                        "the backend refused user id {} at start",
                        judge::shown_user(&user)
                    )),
                    backend_time: Duration::ZERO,
                    answers: Vec::new(),
                }),
                (fault, _) => Err(FuzzError::NeverStarted(fault.to_string())),
            };
        }
        base = sessions[0].sandbox().base().to_path_buf();
        // Alone: every process stopped once it forgot its user's memories; the one user's
        // starts again, afresh, on its first call.
        let mut serving = match alone {
            Some(user) if user < sessions.len() => {
                for session in &mut sessions {
                    session.stop();
                }
                vec![sessions.remove(user)]
            }
            _ => std::mem::take(&mut sessions),
        };
        let replayed = replay::replay_users_in(
            transcript,
            &options,
            Some(spec),
            &crate::events::Quiet,
            &mut serving,
        );
        Session::discard_all(serving);
        Session::discard_all(sessions);
        replayed
    };
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
    let mut trial = judged(actions, &replayed.steps, &expected, spec)?;
    let base = base.to_string_lossy();
    trial.answers = replayed
        .steps
        .into_iter()
        .map(|step| {
            step.backend.map(|answer| match answer {
                Answer::Result(mut result) => {
                    result.text = result.text.replace(&*base, "{base}");
                    Answer::Result(result)
                }
                other => other,
            })
        })
        .collect();
    Ok(trial)
}

/// The worker's session reset and reused when the backend can wipe its store, else a fresh one
/// that starts clean.
fn reused(
    kept: &mut Option<Session>,
    backend: &BackendSpec,
    options: &ReplayOptions,
) -> Result<Session, FuzzError> {
    if let Some(mut session) = kept.take() {
        if session.reset() == Reset::Clean {
            return Ok(session);
        }
        session.discard();
    }
    Ok(
        scratch::clean_session(backend, None, replay::timeouts(options), None)
            .map_err(|e| match e {
                scratch::StartError::Dirty(dirty) => FuzzError::Dirty(dirty),
                e => FuzzError::Harness(e.to_string()),
            })?
            .0,
    )
}

/// Every replayed step judged on facts against what the reference of its user answered, until
/// the first finding or open point.
fn judged(
    actions: &[Action],
    steps: &[replay::Step],
    expected: &[Expected],
    spec: &Spec,
) -> Result<Trial, FuzzError> {
    let owners = owners(actions);
    let backend_time = Duration::from_micros(steps.iter().map(|s| s.backend_micros).sum());
    let mut trial = Trial {
        calls: 0,
        found: None,
        open: None,
        backend_time,
        answers: Vec::new(),
    };
    let empty = crate::judge::model::Model::default();
    // Each user's store before the step, as that user's reference holds it.
    let users = actions.iter().map(|a| a.user() + 1).max().unwrap_or(1);
    let mut before = vec![&empty; users];
    for (index, (step, expected)) in steps.iter().zip(expected).enumerate() {
        trial.calls = index + 1;
        let (action, user) = owners.get(index).copied().unwrap_or((0, 0));
        let stores = Stores {
            before: before[user],
            after: &expected.model,
        };
        before[user] = &expected.model;
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
                action,
                call: index,
            });
            break;
        }
    }
    Ok(trial)
}
