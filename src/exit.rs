//! How a run ends, as a class every error knows: the CLI turns it into the process's exit code
//! (one table, docs/reference/exit-codes.md, checked against the binary by a test), so that no
//! command maps an error to a code by hand, and a harness fault is never reported as the
//! backend's.

/// The class of a run's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Exit {
    /// 0: conformant, or the command did what was asked.
    Success,
    /// 1: not conformant (a MUST failure; a SHOULD one with `--strict`; a baseline that differs).
    NotConformant,
    /// 2: the user's to fix: arguments, case, spec, seed or baseline files, an empty selection.
    Usage,
    /// 3: the backend broke (crashed, hung, spoke garbage) or never started.
    BackendBroke,
    /// 4: the harness failed; never blamed on the backend.
    Internal,
}

impl Exit {
    /// The process exit code.
    pub const fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::NotConformant => 1,
            Exit::Usage => 2,
            Exit::BackendBroke => 3,
            Exit::Internal => 4,
        }
    }
}

/// An error that knows how the run ends because of it.
pub trait Classified {
    /// The class of the end it causes.
    fn exit(&self) -> Exit;
}

impl Classified for crate::check::CheckError {
    fn exit(&self) -> Exit {
        use crate::check::CheckError;
        use crate::check::runner::RunError;
        match self {
            CheckError::Run(RunError::Harness { .. }) => Exit::Internal,
            CheckError::Run(_) => Exit::BackendBroke,
            _ => Exit::Usage,
        }
    }
}

impl Classified for crate::replay::scratch::SeedError {
    fn exit(&self) -> Exit {
        if self.is_usage() {
            Exit::Usage
        } else {
            Exit::Internal
        }
    }
}

impl Classified for crate::replay::scratch::StartError {
    fn exit(&self) -> Exit {
        use crate::replay::scratch::StartError;
        match self {
            StartError::Seed(e) => e.exit(),
            // What the backend did to its sandbox before the first call.
            StartError::Tampered(_) | StartError::Dirty(_) => Exit::BackendBroke,
            StartError::Harness(_) => Exit::Internal,
        }
    }
}

impl Classified for crate::replay::ReplayError {
    fn exit(&self) -> Exit {
        use crate::replay::ReplayError;
        match self {
            ReplayError::Folder(e) => e.exit(),
            ReplayError::Start(e) => e.exit(),
            ReplayError::NeverStarted { .. } => Exit::BackendBroke,
            ReplayError::Reference(_) | ReplayError::Harness(_) => Exit::Internal,
        }
    }
}

impl Classified for crate::replay::record::RecordError {
    fn exit(&self) -> Exit {
        use crate::replay::record::RecordError;
        match self {
            RecordError::Folder(e) => e.exit(),
            RecordError::Start(e) => e.exit(),
            RecordError::Broke { .. } => Exit::BackendBroke,
        }
    }
}

impl Classified for crate::fuzz::FuzzError {
    fn exit(&self) -> Exit {
        use crate::fuzz::FuzzError;
        match self {
            FuzzError::NeverStarted(_) | FuzzError::Dirty(_) => Exit::BackendBroke,
            _ => Exit::Internal,
        }
    }
}
