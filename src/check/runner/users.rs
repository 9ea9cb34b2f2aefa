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
use crate::exec::{Fault, Session, users};
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
    let opening = Instant::now();
    let mut sessions = users::sessions(backend, &loaded.case.users, timeouts(options))?;
    // A store kept elsewhere (a database, a server) starts without an earlier case's memories,
    // for every user.
    if let Err(fault) = users::start(&mut sessions) {
        let refused = users::refused(&sessions);
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
    if let Err(fault) = run_calls(
        loaded,
        ledger,
        &mut sessions,
        false,
        !backend.runs_on_folder(),
        &budget,
        result,
    ) {
        let refused = users::refused(&sessions);
        return refused_or(fault, refused, sessions, ledger, result);
    }
    // Every user's process works on the one sandbox: the first session's look covers them all.
    let breaches = sessions[0].check_sandbox().breaches;
    observe(ledger, CaseCall::Sandbox(breaches), result)?;
    let left = Session::discard_all(sessions);
    let seen = CaseCall::Tampered {
        found: &left,
        when: "after the case's steps",
    };
    observe(ledger, seen, result)?;
    Ok(())
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
    let left = Session::discard_all(sessions);
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
