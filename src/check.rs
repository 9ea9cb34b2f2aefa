//! `memspec check`: load the spec and the suite, select, run, apply a baseline, report.

use std::path::PathBuf;
use std::time::Instant;

use crate::backend::BackendSpec;
use crate::report::Report;
use crate::spec::{Spec, SpecError};
use crate::suite::baseline::{Baseline, BaselineError};
use crate::suite::grade::CaseResult;
use crate::suite::load::{self, Suite, SuiteError};
use crate::suite::runner::{self, RunError, RunOptions, Selection};

/// Everything `check` needs.
#[derive(Debug, Clone)]
pub struct CheckConfig {
    /// Folder holding `rules.json` and `decisions.json`.
    pub spec_dir: PathBuf,
    /// Folder holding the case files.
    pub cases_dir: PathBuf,
    /// The backend under test.
    pub backend: BackendSpec,
    /// Which cases.
    pub selection: Selection,
    /// Jobs, timeout, strictness.
    pub options: RunOptions,
    /// Accepted deviations to apply.
    pub baseline: Option<PathBuf>,
}

/// Why `check` could not produce a report.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The spec files are unreadable.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The case files are unreadable or invalid.
    #[error(transparent)]
    Suite(#[from] SuiteError),
    /// The baseline is unreadable or invalid.
    #[error(transparent)]
    Baseline(#[from] BaselineError),
    /// The run stopped early: the backend never started.
    #[error(transparent)]
    Run(#[from] RunError),
    /// The selection matched no case: never a pass.
    #[error(
        "the selection matched no case out of {total}; check --case, --area, --rule and --level"
    )]
    EmptySelection {
        /// Cases in the suite.
        total: usize,
    },
}

/// The loaded spec and suite.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// Rules and decisions.
    pub spec: Spec,
    /// All cases.
    pub suite: Suite,
}

/// Loads the spec and the suite.
pub fn load(spec_dir: &std::path::Path, cases_dir: &std::path::Path) -> Result<Loaded, CheckError> {
    let spec = Spec::load(spec_dir)?;
    let suite = load::load(cases_dir, &spec)?;
    Ok(Loaded { spec, suite })
}

/// Runs the selected cases and builds the report; `progress` sees each result as it completes
/// and is told the number of selected cases first. `repro_args` are the arguments that select
/// the same backend and suite again (`--backend …`, `--not-on-folder`, `--cases …`), used in the
/// one-line command that reruns a case.
pub fn check(
    config: &CheckConfig,
    loaded: &Loaded,
    repro_args: Vec<String>,
    on_start: &dyn Fn(usize),
    progress: &(dyn Fn(&CaseResult) + Sync),
) -> Result<Report, CheckError> {
    let baseline = config.baseline.as_deref().map(Baseline::read).transpose()?;
    let selected = config.selection.apply(&loaded.suite);
    if selected.is_empty() {
        return Err(CheckError::EmptySelection {
            total: loaded.suite.cases.len(),
        });
    }
    on_start(selected.len());
    let started = Instant::now();
    let mut results = runner::run(&selected, &config.backend, &config.options, progress)?;
    let elapsed = started.elapsed();
    let baseline_problems = match &baseline {
        Some(baseline) => baseline.apply(&loaded.suite, &mut results),
        None => Vec::new(),
    };
    Ok(Report {
        backend: config.backend.label(),
        repro_args,
        strict: config.options.strict,
        results,
        baseline_problems,
        elapsed,
        workers: config.options.jobs.clamp(1, selected.len()),
    })
}
