//! `memspec record`: one backend's answers to a transcript's memory calls, as a session that
//! later replays check against (snapshot regression).

use std::path::Path;
use std::time::Duration;

use super::scratch;
use crate::backend::{BackendSpec, DEFAULT_STARTUP, Timeouts};
use crate::spec::Revision;
use crate::transcript::Transcript;
use crate::transcript::session::{self, Session, SessionHeader, SessionSeed};

/// Why a session could not be recorded.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// A scratch folder could not be made or seeded.
    #[error(transparent)]
    Folder(#[from] scratch::SeedError),
    /// The backend could not be started clean.
    #[error(transparent)]
    Start(#[from] scratch::StartError),
    /// The backend broke: a golden file of a broken run would pin the breakage.
    #[error("the backend broke at step {step} ({call}): {reason}; nothing was written")]
    Broke {
        /// 1-based memory call number.
        step: usize,
        /// The call, summarised.
        call: String,
        /// How it broke.
        reason: String,
    },
}

/// Runs every memory call of `transcript` against `backend` in a fresh (optionally seeded)
/// folder and returns the session. The seed (a folder, a description or a golden file, see
/// [`scratch::Seed::load`]) is kept in the header as its description, so that replays of the
/// session start from the same store wherever they run; so is `user`, the user of a store of
/// many users the calls are made as (a backend that takes a user is started as that user).
pub fn record(
    transcript: &Transcript,
    backend: &BackendSpec,
    seed: Option<&Path>,
    timeout: Duration,
    revision: Revision,
    user: Option<&str>,
) -> Result<Session, RecordError> {
    let timeouts = Timeouts {
        call: timeout,
        startup: DEFAULT_STARTUP,
    };
    let seed = scratch::Named::load(seed)?;
    // The golden file keeps the seed itself: a replay of it plants it again.
    let (mut running, _planted) = scratch::clean_session(backend, seed.as_ref(), timeouts, user)?;
    let mut steps = Vec::new();
    for (i, call) in transcript.memory_calls().enumerate() {
        match running.call(&call.input) {
            Ok(result) => steps.push((call.input.clone(), result)),
            Err(fault) => {
                return Err(RecordError::Broke {
                    step: i + 1,
                    call: call.summary(),
                    reason: fault.to_string(),
                });
            }
        }
    }
    running.discard();
    Ok(Session {
        header: SessionHeader {
            memspec_session: session::VERSION,
            backend: backend.label(),
            created: session::now_rfc3339(),
            seed: seed.map(|s| Box::new(SessionSeed::Content(s.seed.to_value()))),
            revision: Some(revision),
            // Only a backend of many users was started as the user; on any other the calls
            // were made on its one store, which a replay must not read as a user's.
            user: user.filter(|_| backend.takes_user()).map(str::to_string),
            amended: Vec::new(),
        },
        steps,
    })
}
