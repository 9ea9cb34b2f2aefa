//! The reference backend called directly, without a process or a protocol in between.

use std::path::Path;

use serde_json::Value;

use super::{Backend, BackendError};
use crate::protocol::ToolResult;
use crate::reference::Reference;
use crate::spec::Revision;

/// The reference, in process: the suite's default and fastest backend.
#[derive(Debug)]
pub struct InProcess {
    reference: Reference,
}

impl InProcess {
    /// Opens the reference over `memories`, following `revision`.
    pub fn open(memories: &Path, revision: Revision) -> Result<InProcess, BackendError> {
        let reference =
            Reference::open_as(memories, revision).map_err(|e| BackendError::Spawn {
                command: "reference".to_string(),
                reason: e.to_string(),
            })?;
        Ok(InProcess { reference })
    }

    /// Opens the reference as user `user` of the store `store` ([`Reference::open_user`]).
    pub fn open_user(
        store: &Path,
        user: &str,
        revision: Revision,
    ) -> Result<InProcess, BackendError> {
        let reference =
            Reference::open_user(store, user, revision).map_err(|e| BackendError::Spawn {
                command: "reference".to_string(),
                reason: e.to_string(),
            })?;
        Ok(InProcess { reference })
    }
}

impl Backend for InProcess {
    fn call(&mut self, input: &Value) -> Result<ToolResult, BackendError> {
        Ok(self.reference.call(input))
    }

    fn reset(&mut self) -> Result<bool, BackendError> {
        // Keeping the sandbox saves making a temporary folder and canaries for every case. The
        // folder is emptied through the handle the reference serves, never by path.
        self.reference.reset().map_err(|e| BackendError::Send {
            reason: format!("cannot empty the memories folder: {e}"),
            stderr: String::new(),
        })?;
        Ok(true)
    }

    fn shutdown(&mut self) -> Option<String> {
        None
    }
}
