//! A case of many users (`users.*`): the backend started once per user on one fresh store, each
//! call made as its user, the effects read through each user's own `view`, and the store's
//! surroundings watched for anything a user's process changed outside it.
//!
//! A user id the backend refuses at start (its process exits before reading anything, while the
//! case's first user is served) is a fine answer: the case is then not checked, and says so.

use std::time::Instant;

use super::RunOptions;
use super::calls::{Budget, observe, read_effects, run_calls, run_setup, run_steps_together};
use super::case::timeouts;
use crate::backend::BackendSpec;
use crate::exec::{Fault, Session};
use crate::judge::grade::CaseResult;
use crate::judge::{CaseCall, CaseLedger, Next};
use crate::suite::load::LoadedCase;

/// Runs a case of many users on fresh sessions (never reused: each case's store is new); `Err`
/// is a broken backend or harness.
pub(super) fn execute(
    loaded: &LoadedCase,
    ledger: &mut CaseLedger<'_>,
    backend: &BackendSpec,
    options: &RunOptions,
    result: &mut CaseResult,
) -> Result<(), Fault> {
    let users = &loaded.case.users;
    let Some((first_user, others)) = users.split_first() else {
        return Err(Fault::Harness(
            "a case of many users lists no user".to_string(),
        ));
    };
    let opening = Instant::now();
    let first = Session::unstarted(backend, timeouts(options))?.as_user(first_user);
    let mut sessions: Vec<Session> = others.iter().map(|user| first.client_as(user)).collect();
    sessions.insert(0, first);
    // A store kept elsewhere (a database, a server) starts without an earlier case's memories,
    // for every user. A folder store is new with its sandbox, and is not reset: a user whose
    // mapping names the whole store (the id `.`) would empty the other users' folders, which
    // the case's own calls are there to show.
    for at in 0..sessions.len() {
        let started = if backend.runs_on_folder() {
            sessions[at].warm_up()
        } else {
            sessions[at].start_forgetting()
        };
        if let Err(fault) = started {
            let refused = (at > 0).then(|| sessions[at].user().unwrap_or_default().to_string());
            return refused_or(fault, refused, sessions, ledger, result);
        }
    }
    result.start_time = opening.elapsed();
    for session in &mut sessions {
        session.watch_outside();
    }
    let budget = Budget {
        limit: options.case_budget,
        started: Instant::now(),
    };
    let ran = if loaded.case.together {
        together(loaded, ledger, &mut sessions, &budget, result)
    } else {
        run_calls(loaded, ledger, &mut sessions, false, &budget, result)
    };
    if let Err(fault) = ran {
        // A process that exited before reading anything, started by its user's first call.
        let refused = match sessions.split_first() {
            Some((first, others)) if !first.exited_unread() => others
                .iter()
                .find(|session| session.exited_unread())
                .and_then(|session| session.user().map(str::to_string)),
            _ => None,
        };
        return refused_or(fault, refused, sessions, ledger, result);
    }
    // Every user's process works on the one sandbox: the first session's look covers them all.
    let breaches = sessions[0].check_sandbox().breaches;
    observe(ledger, CaseCall::Sandbox(breaches), result)?;
    let left = discard(sessions);
    let seen = CaseCall::Tampered {
        found: &left,
        when: "after the case's steps",
    };
    observe(ledger, seen, result)?;
    Ok(())
}

/// The case's setup, its steps made at once by every user, then its effects.
fn together(
    loaded: &LoadedCase,
    ledger: &mut CaseLedger<'_>,
    sessions: &mut [Session],
    budget: &Budget,
    result: &mut CaseResult,
) -> Result<(), Fault> {
    if matches!(
        run_setup(loaded, ledger, sessions, false, budget, result)?,
        Next::Stop
    ) {
        return Ok(());
    }
    if matches!(
        run_steps_together(loaded, ledger, sessions, result)?,
        Next::Stop
    ) {
        return Ok(());
    }
    read_effects(ledger, sessions, result)
}

/// After a fault: when `refused` names a user other than the first whose process could not
/// start or exited before reading anything (while the first user's was served), the backend
/// refused that id at start (not checked, INFO); anything else stays the fault. The sessions
/// are ended either way.
fn refused_or(
    fault: Fault,
    refused: Option<String>,
    sessions: Vec<Session>,
    ledger: &mut CaseLedger<'_>,
    result: &mut CaseResult,
) -> Result<(), Fault> {
    let refused = refused.filter(|_| matches!(fault, Fault::Backend(_)));
    let left = discard(sessions);
    let seen = CaseCall::Tampered {
        found: &left,
        when: "after the backend broke",
    };
    observe(ledger, seen, result)?;
    match refused {
        Some(user) => {
            let why = fault.to_string();
            observe(ledger, CaseCall::RefusedUser { user: &user, why }, result)?;
            Ok(())
        }
        None => Err(fault),
    }
}

/// Ends every session; what could not be removed from the sandbox.
fn discard(sessions: Vec<Session>) -> Vec<String> {
    sessions.into_iter().flat_map(Session::discard).collect()
}
