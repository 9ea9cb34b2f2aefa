//! How a run goes: [`RunOptions`] (jobs, timeouts, strictness, the case budget) and their
//! defaults.

use std::time::Duration;

use crate::backend::BackendSpec;

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Cases run at once.
    pub jobs: usize,
    /// Per-call timeout.
    pub timeout: Duration,
    /// Extra time for the first call of each backend process (start-up).
    pub startup: Duration,
    /// SHOULD misses fail.
    pub strict: bool,
    /// The most time one case may take: past it, its remaining calls are not made and the case
    /// says so (INFO, with the time), so that no case takes minutes on a slow backend.
    pub case_budget: Duration,
}

/// `--case-budget` when not given: the slowest case of the suite (1,500 setup files) takes a few
/// seconds on the reference and under a minute on the slowest recipe.
pub const DEFAULT_CASE_BUDGET: Duration = Duration::from_secs(120);

/// Cases run at once against `backend` when `--jobs` is not given. A backend program keeps a
/// case waiting on its process and on fsync more than on the CPU: two cases per core. The
/// in-process reference never waits, so more cases than cores only take turns on them (and
/// each case's time then counts the turns of others).
pub fn default_jobs(backend: &BackendSpec) -> usize {
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    match backend {
        BackendSpec::Reference(_) => cores,
        _ => 2 * cores,
    }
}

/// Cases run at once against `backend`: `requested` (`--jobs`), at least one, or else
/// [`default_jobs`].
pub fn jobs(requested: Option<usize>, backend: &BackendSpec) -> usize {
    requested.unwrap_or_else(|| default_jobs(backend)).max(1)
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            // As for a backend program (`default_jobs`).
            jobs: 2 * std::thread::available_parallelism().map_or(2, usize::from),
            timeout: Duration::from_secs(10),
            startup: crate::backend::DEFAULT_STARTUP,
            strict: false,
            case_budget: DEFAULT_CASE_BUDGET,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{BackendSpec, default_jobs};
    use crate::spec::Revision;

    /// The in-process reference never waits, so more cases than cores would only take turns;
    /// a backend program waits on its process and the disk.
    #[test]
    fn the_reference_runs_a_case_per_core_a_program_two() {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        assert_eq!(
            default_jobs(&BackendSpec::Reference(Revision::Ga2026)),
            cores
        );
        let program = BackendSpec::command("python3 backend.py {memories}", None);
        assert_eq!(default_jobs(&program), 2 * cores);
    }
}
