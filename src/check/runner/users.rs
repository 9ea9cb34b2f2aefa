//! A case of many users (`users.*`): the backend started once per user on one fresh store, each
//! call made as its user, the effects read through each user's own `view`, and the store's
//! surroundings watched for anything a user's process changed outside it.
//!
//! A user id the backend refuses at start (its process exits before reading anything, while
//! another user's is served) is a fine answer: the case is then not checked, and says so.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::RunOptions;
use super::calls::{Budget, observe, run_calls};
use super::case::timeouts;
use crate::backend::BackendSpec;
use crate::exec::disk_look::DiskLook;
use crate::exec::{Fault, Session};
use crate::judge::grade::CaseResult;
use crate::judge::{CaseCall, CaseLedger};
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
    // for every user. Last user first: the cases list the plain id first and the one that
    // breaks a naive mapping after it, and an id whose mapping names the whole store (`.`)
    // would otherwise empty the plain user's folder before the case began, which the case's
    // own calls are there to show.
    let mut failed = None;
    for session in sessions.iter_mut().rev() {
        if let Err(fault) = session.start_forgetting() {
            failed.get_or_insert(fault);
        }
    }
    if let Some(fault) = failed {
        let refused = refused_user(&sessions);
        return refused_or(fault, refused, sessions, ledger, result);
    }
    result.start_time = opening.elapsed();
    // Each call's changes below `{memories}` are the judge's witness of whose folder it touched
    // (a store kept elsewhere changes nothing there); calls made at once cannot be told apart.
    let look =
        (!loaded.case.together).then(|| Arc::new(Mutex::new(DiskLook::of(sessions[0].sandbox()))));
    for session in &mut sessions {
        session.watch_outside();
        if let Some(look) = &look {
            session.look_at_disk(Arc::clone(look));
        }
    }
    let budget = Budget {
        limit: options.case_budget,
        started: Instant::now(),
    };
    if let Err(fault) = run_calls(loaded, ledger, &mut sessions, false, &budget, result) {
        let refused = refused_user(&sessions);
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

/// The user whose process exited before reading anything while another user's was served:
/// the backend refused that id at start. `None` when no process did, or every one did (a
/// backend that never starts is broken, whatever the id).
fn refused_user(sessions: &[Session]) -> Option<String> {
    let served = sessions.iter().any(|session| !session.exited_unread());
    let refused = sessions.iter().find(|session| session.exited_unread())?;
    served.then(|| refused.user().unwrap_or_default().to_string())
}

/// After a fault: when `refused` names a user whose process exited before reading anything
/// while another user's was served, the backend refused that id at start (not checked, INFO);
/// anything else stays the fault. The sessions are ended either way.
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
