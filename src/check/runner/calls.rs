//! A case's calls on its session: the setup, the steps, and the effects read back (from the
//! disk for a folder backend, else through the backend's own `view`), within the case's time
//! budget; every call recorded in the case's result.

use std::sync::Barrier;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::exec::{Fault, Sandbox, Session};
use crate::judge::disk;
use crate::judge::grade::{CallRecord, CaseResult, Phase};
use crate::judge::witness::{self, Probing, Seen};
use crate::judge::{self, CaseCall, CaseLedger, Next, Observation};
use crate::protocol::ToolResult;
use crate::suite::case::EffectKind;
use crate::suite::load::LoadedCase;

/// A case's time budget: past it, no further call of the case is made.
pub(super) struct Budget {
    pub(super) limit: Duration,
    pub(super) started: Instant,
}

impl Budget {
    /// Past the budget before call `made` (0-based over setup and steps): what to tell the judge.
    fn spent(&self, made: usize) -> Option<CaseCall<'static>> {
        let elapsed = self.started.elapsed();
        (elapsed > self.limit).then_some(CaseCall::OutOfTime {
            made,
            limit: self.limit,
            elapsed,
        })
    }
}

/// Tells the judge what was observed; its findings go into the case's result.
pub(super) fn observe(
    ledger: &mut CaseLedger<'_>,
    call: CaseCall<'_>,
    result: &mut CaseResult,
) -> Result<Next, Fault> {
    let judgement = judge::step(Observation::Case(ledger, call))?;
    result.findings.extend(judgement.findings);
    Ok(judgement.next)
}

/// The session of `user` among a case's sessions (one per user of a case of many users, else
/// one): the first for `None`.
fn as_user<'s>(sessions: &'s mut [Session], user: Option<&str>) -> Result<&'s mut Session, Fault> {
    let found = match user {
        None => sessions.first_mut(),
        Some(user) => sessions.iter_mut().find(|s| s.user() == Some(user)),
    };
    found.ok_or_else(|| Fault::Harness(format!("the case has no session for user {user:?}")))
}

/// Makes the case's calls and reads back what the judge asks for, telling the judge each thing
/// it saw (`probes`: the store is no folder, so bytes its view hides are probed, see
/// [`witness::Probing`]); stops where the judge says the rest cannot be checked. `sessions` holds one session,
/// or one per user of a case of many users (each call is made as its user; with `together`,
/// the users' steps at once).
pub(super) fn run_calls(
    loaded: &LoadedCase,
    ledger: &mut CaseLedger<'_>,
    sessions: &mut [Session],
    on_folder: bool,
    probes: bool,
    budget: &Budget,
    result: &mut CaseResult,
) -> Result<(), Fault> {
    if matches!(
        run_setup(loaded, ledger, sessions, on_folder, budget, result)?,
        Next::Stop
    ) {
        return Ok(());
    }
    let steps = if loaded.case.together {
        run_steps_together(loaded, ledger, sessions, budget, result)?
    } else {
        run_steps(loaded, ledger, sessions, on_folder, probes, budget, result)?
    };
    if matches!(steps, Next::Stop) {
        return Ok(());
    }
    read_effects(ledger, sessions, effects_probing(loaded, probes), result)
}

/// How the effects are probed (`probes`: the store is no folder, so bytes its view hides are
/// probed): across a restart both sides are read through one witness, probed alike, and only
/// where the view differs, since a probe is one more write before the restart.
fn effects_probing(loaded: &LoadedCase, probes: bool) -> Probing {
    match (probes, loaded.case.restart) {
        (false, _) => Probing::Never,
        (true, true) => before_steps(loaded),
        (true, false) => Probing::Hidden,
    }
}

/// The setup calls, and the files they made read back; [`Next::Stop`] when the rest of the case
/// cannot be checked.
fn run_setup(
    loaded: &LoadedCase,
    ledger: &mut CaseLedger<'_>,
    sessions: &mut [Session],
    on_folder: bool,
    budget: &Budget,
    result: &mut CaseResult,
) -> Result<Next, Fault> {
    for (i, call_input) in loaded.case.setup.iter().enumerate() {
        let session = as_user(sessions, call_input.user())?;
        if on_folder && call_input.planted().is_some() {
            // The harness made it with the fixtures.
            continue;
        }
        if let Some(spent) = budget.spent(i) {
            observe(ledger, spent, result)?;
            return Ok(Next::Stop);
        }
        let input = expand_input(call_input.input(), session.sandbox());
        let answer = call(session, Phase::Setup, &input, result)?;
        let breaches = session.check_answer(&input, &answer);
        let seen = CaseCall::Setup {
            index: i,
            input: &input,
            answer: &answer,
            breaches,
            changed: session.take_changes(),
        };
        if matches!(observe(ledger, seen, result)?, Next::Stop) {
            return Ok(Next::Stop);
        }
    }
    for (index, path, expect) in ledger.setup_reads() {
        let user = loaded.case.setup.get(index).and_then(|call| call.user());
        let session = as_user(sessions, user)?;
        let seen = witness_of(
            session,
            on_folder,
            before_steps(loaded),
            &path,
            &expect,
            result,
        )?;
        let call = CaseCall::SetupFile {
            index,
            path: &path,
            expect: &expect,
            seen,
        };
        observe(ledger, call, result)?;
    }
    Ok(Next::Go)
}

/// The steps, one after another; [`Next::Stop`] when the rest of the case cannot be checked.
fn run_steps(
    loaded: &LoadedCase,
    ledger: &mut CaseLedger<'_>,
    sessions: &mut [Session],
    on_folder: bool,
    probes: bool,
    budget: &Budget,
    result: &mut CaseResult,
) -> Result<Next, Fault> {
    if loaded.case.restart {
        // What the store holds just before the event, through the witness that reads it
        // after: the judge grades only what changed across the restart.
        let seen = effects_seen(ledger, sessions, effects_probing(loaded, probes), result)?;
        observe(ledger, CaseCall::BeforeRestart(seen), result)?;
        // A later conversation: the process stops as a deploy stops it, and the first step
        // starts a new one on the same store.
        for session in sessions.iter_mut() {
            session.stop();
        }
    }
    for (i, step) in loaded.case.steps.iter().enumerate() {
        if let Some(spent) = budget.spent(loaded.case.setup.len() + i) {
            observe(ledger, spent, result)?;
            return Ok(Next::Stop);
        }
        let session = as_user(sessions, step.user.as_deref())?;
        let input = expand_input(&step.input, session.sandbox());
        let answer = call(session, Phase::Step, &input, result)?;
        let breaches = session.check_answer(&input, &answer);
        let changed = session.take_changes();
        let seen = CaseCall::Step {
            index: i,
            input: &input,
            answer: &answer,
            breaches,
            base: session.sandbox().base(),
            changed,
        };
        match observe(ledger, seen, result)? {
            next @ (Next::Stop | Next::Effects) => return Ok(next),
            Next::ReadBack { path, expect } => {
                let seen = witness_of(
                    session,
                    on_folder,
                    before_steps(loaded),
                    &path,
                    &expect,
                    result,
                )?;
                let created = CaseCall::Created {
                    index: i,
                    path: &path,
                    expect: &expect,
                    seen,
                };
                observe(ledger, created, result)?;
            }
            Next::Go | Next::Open(_) | Next::Broke => {}
        }
    }
    Ok(Next::Go)
}

/// The steps of a case of many users made `together`: each user's in order, the users' at once
/// (after a barrier), then told to the judge in the case's order. Users kept apart answer the
/// same however their calls interleave. [`Next::Stop`] when the rest cannot be checked.
fn run_steps_together(
    loaded: &LoadedCase,
    ledger: &mut CaseLedger<'_>,
    sessions: &mut [Session],
    budget: &Budget,
    result: &mut CaseResult,
) -> Result<Next, Fault> {
    let steps = &loaded.case.steps;
    let barrier = Barrier::new(sessions.len());
    // Per user: (step, input, answer, record), in the user's own order.
    type Made = Vec<(usize, Value, Result<ToolResult, Fault>, CallRecord)>;
    let first = sessions.first().and_then(Session::user).map(str::to_string);
    let first = first.as_deref();
    let made = std::thread::scope(|scope| {
        let handles: Vec<_> = sessions
            .iter_mut()
            .map(|session| {
                let barrier = &barrier;
                scope.spawn(move || {
                    let mine: Vec<usize> = (0..steps.len())
                        .filter(|&i| steps[i].user.as_deref().or(first) == session.user())
                        .collect();
                    barrier.wait();
                    let mut made = Made::new();
                    for i in mine {
                        // Past the case's budget, no user makes a further call.
                        if budget.started.elapsed() > budget.limit {
                            break;
                        }
                        let input = expand_input(&steps[i].input, session.sandbox());
                        let (answer, record) = timed_call(session, Phase::Step, &input);
                        let broke = answer.is_err();
                        made.push((i, input, answer, record));
                        if broke {
                            break;
                        }
                    }
                    made
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .map_err(|_| Fault::Harness("a user's thread panicked".to_string()))
            })
            .collect::<Result<Vec<Made>, Fault>>()
    })?;
    let mut made: Vec<_> = made.into_iter().flatten().collect();
    made.sort_by_key(|(i, ..)| *i);
    let count = made.len();
    // Every call made is in the case's record, those after a fault too, in the case's order.
    let made: Vec<_> = made
        .into_iter()
        .map(|(i, input, answer, record)| {
            result.calls.push(record);
            (i, input, answer)
        })
        .collect();
    for (i, input, answer) in made {
        let answer = answer?;
        let session = as_user(sessions, steps[i].user.as_deref())?;
        let breaches = session.check_answer(&input, &answer);
        // Calls made at once cannot be told apart on disk: no changes are given.
        let seen = CaseCall::Step {
            index: i,
            input: &input,
            answer: &answer,
            breaches,
            base: session.sandbox().base(),
            changed: None,
        };
        if matches!(observe(ledger, seen, result)?, Next::Stop) {
            return Ok(Next::Stop);
        }
    }
    if count < steps.len()
        && let Some(spent) = budget.spent(loaded.case.setup.len() + count)
    {
        observe(ledger, spent, result)?;
        return Ok(Next::Stop);
    }
    Ok(Next::Go)
}

/// The effects, read back as the judge asks, and told to it.
fn read_effects(
    ledger: &mut CaseLedger<'_>,
    sessions: &mut [Session],
    probing: Probing,
    result: &mut CaseResult,
) -> Result<(), Fault> {
    let seen = effects_seen(ledger, sessions, probing, result)?;
    observe(ledger, CaseCall::Effects(seen), result)?;
    Ok(())
}

/// What each effect's path holds now, in the order of [`CaseLedger::effect_reads`].
fn effects_seen(
    ledger: &CaseLedger<'_>,
    sessions: &mut [Session],
    probing: Probing,
    result: &mut CaseResult,
) -> Result<Vec<Seen>, Fault> {
    // On a folder the disk is the effects' witness (the backend's `view` is judged as a view by
    // the cases that view, not a second time here); any other store, and any store across a
    // restart, is asked with its own `view`.
    let from_disk = !ledger.effects_through_view();
    let mut seen = Vec::new();
    for (path, expect, user) in ledger.effect_reads() {
        let session = as_user(sessions, user.as_deref())?;
        seen.push(witness_of(
            session, from_disk, probing, &path, &expect, result,
        )?);
    }
    Ok(seen)
}

/// How a file read back before the steps are done is probed: as the effects are, but in a
/// restart case only where its view differs, since a probe is one more write before the
/// restart (a store that commits a write when the next one comes would then keep it).
fn before_steps(loaded: &LoadedCase) -> Probing {
    if loaded.case.restart {
        Probing::WhenDiffers
    } else {
        Probing::Hidden
    }
}

/// What `path` holds: the disk says on a folder, else the backend's own `view` (read in pages
/// for a long file).
fn witness_of(
    session: &mut Session,
    on_folder: bool,
    probing: Probing,
    path: &str,
    expect: &EffectKind,
    result: &mut CaseResult,
) -> Result<Seen, Fault> {
    if on_folder {
        Ok(disk::see(session.sandbox(), path, expect))
    } else {
        read_back(session, path, expect, probing, result)
    }
}

/// Reads an effect back with the backend's own `view` (several views for a long file whose
/// plain view is cut, see [`witness::read_back`]).
fn read_back(
    session: &mut Session,
    path: &str,
    expect: &EffectKind,
    probing: Probing,
    result: &mut CaseResult,
) -> Result<Seen, Fault> {
    witness::read_back(path, expect, probing, |input| {
        call(session, Phase::Witness, input, result)
    })
}

fn call(
    session: &mut Session,
    phase: Phase,
    input: &Value,
    result: &mut CaseResult,
) -> Result<ToolResult, Fault> {
    let (answer, record) = timed_call(session, phase, input);
    result.calls.push(record);
    answer
}

/// One call, timed, and its record.
fn timed_call(
    session: &mut Session,
    phase: Phase,
    input: &Value,
) -> (Result<ToolResult, Fault>, CallRecord) {
    let started = Instant::now();
    let answer = session.call(input);
    let record = CallRecord {
        phase,
        input: input.clone(),
        result: answer.as_ref().ok().cloned(),
        error: answer.as_ref().err().map(|fault| match fault {
            Fault::Backend(broke) => broke.reason.clone(),
            other => other.to_string(),
        }),
        backend_time: started.elapsed(),
        user: session.user().map(str::to_string),
    };
    (answer, record)
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
