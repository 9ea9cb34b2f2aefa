//! A session of a backend on a fresh sandbox that starts clean, planted from a named seed,
//! and why one could not be made.

use std::path::Path;

use super::{Seed, SeedError, planted};
use crate::backend::{BackendSpec, Timeouts};
use crate::exec::{Fault, Reset, Session};

/// A session of `backend` on a fresh sandbox that starts clean (see [`Session::start_clean`]),
/// then planted from `seed`: replays, recordings and fuzz trials judge a backend
/// on the store they describe, never on what an earlier run left in a store kept elsewhere.
/// A backend that does not start now is left to its first call, which says how it broke.
///
/// On a backend that keeps its memories elsewhere (`--not-on-folder`), the seed's files are
/// planted through the tool, one `create` each; the notes returned say what was planted so and
/// what could not be (an empty folder, a link, bytes that are not text, a refused create).
///
/// `user` names the user of a backend of many users it serves (see
/// [`BackendSpec::takes_user`]); a backend of one store ignores it.
pub fn clean_session(
    backend: &BackendSpec,
    seed: Option<&Named>,
    timeouts: Timeouts,
    user: Option<&str>,
) -> Result<(Session, Vec<String>), StartError> {
    let sandbox = planted(None, "")?;
    let mut session = Session::on(sandbox, backend, timeouts);
    let user = user.filter(|_| backend.takes_user());
    if let Some(user) = user {
        // One user of a store of many: the backend forgets that user's memories, and the
        // sandbox (new, and holding that user's folder) is left as it is.
        session = session.as_user(user);
        match session.start_forgetting() {
            Err(Fault::Harness(message)) => {
                session.discard();
                return Err(StartError::Harness(message));
            }
            Err(Fault::Dirty(dirty)) => {
                session.discard();
                return Err(StartError::Dirty(dirty));
            }
            // A backend that broke says how on its first call.
            Ok(()) | Err(Fault::Backend(_) | Fault::GaveUp { .. }) => {}
        }
        // Where that user's memories lie is the backend's choice: a seed is told by calls.
        let notes = match seed {
            Some(Named { seed, .. }) => seed.plant_through_tool(&mut session),
            None => Vec::new(),
        };
        return Ok((session, notes));
    }
    match session.start_clean() {
        Ok(Reset::Tampered(found)) => {
            session.discard();
            return Err(StartError::Tampered(found.join("; ")));
        }
        Err(Fault::Harness(message)) => {
            session.discard();
            return Err(StartError::Harness(message));
        }
        Ok(Reset::Dirty(dirty)) | Err(Fault::Dirty(dirty)) => {
            session.discard();
            return Err(StartError::Dirty(dirty));
        }
        Ok(Reset::Clean | Reset::Refused(_)) | Err(Fault::Backend(_) | Fault::GaveUp { .. }) => {}
    }
    let mut notes = Vec::new();
    if let Some(Named { seed, name }) = seed {
        if let Err(e) = seed.plant(session.sandbox(), name) {
            session.discard();
            return Err(e.into());
        }
        // A store kept elsewhere learns the seed the way Claude would tell it: by calls.
        if !backend.runs_on_folder() {
            notes = seed.plant_through_tool(&mut session);
        }
    }
    Ok((session, notes))
}

/// A seed with the name errors give it (the path it was read from).
#[derive(Debug, Clone)]
pub struct Named {
    /// The seed.
    pub seed: Seed,
    /// Its path, as given.
    pub name: String,
}

impl Named {
    /// The seed at `path`, if one is given (see [`Seed::load`]).
    pub fn load(path: Option<&Path>) -> Result<Option<Named>, SeedError> {
        path.map(|path| {
            Ok(Named {
                seed: Seed::load(path)?,
                name: path.display().to_string(),
            })
        })
        .transpose()
    }
}

/// Why a clean session could not be made.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The seed or the sandbox.
    #[error(transparent)]
    Seed(#[from] SeedError),
    /// The backend, told to forget its memories before the first call, left something in the
    /// sandbox that no memory backend makes (a link, a FIFO, a file the harness cannot remove).
    #[error(
        "the backend, told to forget its memories before the first call, tampered with its sandbox: {0}"
    )]
    Tampered(String),
    /// The backend's store held memories where it should have been empty.
    #[error(transparent)]
    Dirty(crate::exec::Dirty),
    /// The harness could not run the backend.
    #[error("the harness could not run the backend: {0}")]
    Harness(String),
}
