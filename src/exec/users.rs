//! The sessions of a store shared by many users: one process per user on one sandbox, started
//! so that no user's start empties another's memories, and the refusal of an id at start told
//! apart from a backend that never starts. `check`'s users lane and `fuzz --users` run users
//! through here.

use super::{Fault, Session};
use crate::backend::{BackendSpec, Timeouts};

/// One fresh sandbox served as each of `users`, in order; the processes not yet started. `Err`
/// only when the harness cannot make the sandbox (or `users` is empty).
pub fn sessions(
    backend: &BackendSpec,
    users: &[String],
    timeouts: Timeouts,
) -> Result<Vec<Session>, Fault> {
    let Some((first_user, others)) = users.split_first() else {
        return Err(Fault::Harness(
            "a store of many users lists no user".to_string(),
        ));
    };
    let first = Session::unstarted(backend, timeouts)?.as_user(first_user);
    let mut sessions: Vec<Session> = others.iter().map(|user| first.client_as(user)).collect();
    sessions.insert(0, first);
    Ok(sessions)
}

/// Starts every user's process and has it forget that user's memories (a store kept elsewhere
/// starts without an earlier run's). Last user first: the cases list the plain id first and
/// the one that breaks a naive mapping after it, and an id whose mapping names the whole store
/// (`.`) would otherwise empty the plain user's folder before the calls began, which the calls
/// are there to show. Every process is tried; the first fault is returned.
pub fn start(sessions: &mut [Session]) -> Result<(), Fault> {
    let mut failed = None;
    for session in sessions.iter_mut().rev() {
        if let Err(fault) = session.start_forgetting() {
            failed.get_or_insert(fault);
        }
    }
    failed.map_or(Ok(()), Err)
}

/// The user whose process exited before reading anything while another user's was served:
/// the backend refused that id at start, a fine answer for an id it does not serve. `None`
/// when no process did, or every one did (a backend that never starts is broken, whatever the
/// id).
pub fn refused(sessions: &[Session]) -> Option<String> {
    let served = sessions.iter().any(|session| !session.exited_unread());
    let refused = sessions.iter().find(|session| session.exited_unread())?;
    served.then(|| refused.user().unwrap_or_default().to_string())
}
