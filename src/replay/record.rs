//! `memspec record`: one backend's answers to a transcript's memory calls, as a session that
//! later replays check against (snapshot regression).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::scratch::Scratch;
use crate::backend::BackendSpec;
use crate::transcript::Transcript;
use crate::transcript::session::{self, Session, SessionHeader};

/// Why a session could not be recorded.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// A scratch folder could not be made.
    #[error("cannot make a scratch folder for the recording: {0}")]
    Scratch(std::io::Error),
    /// The seed folder could not be copied.
    #[error(
        "cannot copy the seed folder {path}: {source}; --seed takes a folder whose contents become /memories"
    )]
    Seed {
        /// The seed folder.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
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
/// folder and returns the session.
pub fn record(
    transcript: &Transcript,
    backend: &BackendSpec,
    seed: Option<&Path>,
    timeout: Duration,
) -> Result<Session, RecordError> {
    let scratch = Scratch::new().map_err(RecordError::Scratch)?;
    if let Some(seed) = seed {
        scratch.seed(seed).map_err(|source| RecordError::Seed {
            path: seed.to_path_buf(),
            source,
        })?;
    }
    let broke =
        |step: usize, call: &crate::transcript::ToolCall, reason: String| RecordError::Broke {
            step,
            call: call.summary(),
            reason,
        };
    let mut running: Option<Box<dyn crate::backend::Backend>> = None;
    let mut steps = Vec::new();
    for (i, call) in transcript.memory_calls().enumerate() {
        let backend = match running.as_mut() {
            Some(backend) => backend,
            None => running.insert(
                backend
                    .start(scratch.base(), scratch.memories(), timeout)
                    .map_err(|e| broke(i + 1, call, e.to_string()))?,
            ),
        };
        match backend.call(&call.input) {
            Ok(result) => steps.push((call.input.clone(), result)),
            Err(e) => {
                let stderr = backend.shutdown().unwrap_or_default();
                let reason = if stderr.trim().is_empty() || e.to_string().contains("stderr:") {
                    e.to_string()
                } else {
                    format!("{e}; stderr: {}", stderr.trim())
                };
                return Err(broke(i + 1, call, reason));
            }
        }
    }
    if let Some(mut backend) = running {
        backend.shutdown();
    }
    Ok(Session {
        header: SessionHeader {
            memspec_session: session::VERSION,
            backend: backend.label(),
            created: session::now_rfc3339(),
            seed: seed.map(|s| s.display().to_string()),
            amended: Vec::new(),
        },
        steps,
    })
}
