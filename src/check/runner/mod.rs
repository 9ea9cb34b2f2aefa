//! Running cases against a backend: selection, isolation, checks, parallelism.
//!
//! This file holds the run loop: cases handed to `jobs` workers, what a run gives back
//! ([`Ran`]) and why it stops early ([`RunError`]), and whether one backend process serves a
//! worker's cases ([`Reuse`]). The rest, by concern: `select` (which cases), `options` (how to
//! run), `starts` (whether the backend starts at all, and cases that break alike), `case` (one
//! case on its session and sandbox) and `calls` (a case's calls and the effects read back).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::backend::BackendSpec;
use crate::judge::grade::{CaseResult, Outcome};
use crate::suite::load::LoadedCase;

mod calls;
mod case;
mod options;
mod select;
mod starts;
mod users;

pub use case::{run_case, run_case_in};
pub use options::{DEFAULT_CASE_BUDGET, RunOptions, default_jobs, jobs};
pub use select::{Selection, glob};
pub use starts::{NEVER_STARTED_LIMIT, SAME_BREAK_LIMIT, Starts};

/// Why a run stopped before its end.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// Every backend process exited before reading its first request.
    #[error(
        "the backend exited before answering its first call, {times} times{}; check the --backend command",
        stderr_note(.stderr)
    )]
    NeverStarted {
        /// Processes that died that way.
        times: usize,
        /// What the first of them wrote to stderr.
        stderr: String,
    },
    /// Every case so far broke the same way.
    #[error("every case broke the same way, {times} in a row, so the run stopped: {reason}")]
    BrokeAlike {
        /// Cases that broke that way.
        times: usize,
        /// How the first of them broke.
        reason: String,
    },
    /// The store held memories after a `reset`, or on a fresh start: no case can be judged on
    /// it (see [`crate::exec::leftovers`]).
    #[error(transparent)]
    Dirty(crate::exec::Dirty),
    /// The harness could not run a case (make a sandbox or a fixture, apply a matcher): not
    /// a verdict about the backend, and nothing the rest of the run could be trusted after.
    #[error("the harness could not run the case {case}: {message}")]
    Harness {
        /// The case's id.
        case: String,
        /// What the harness could not do.
        message: String,
    },
}

fn stderr_note(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        " (it wrote nothing to stderr)".to_string()
    } else {
        format!(": {}", stderr.trim())
    }
}

/// Runs `cases` against `backend`, `options.jobs` at a time, the heaviest first
/// ([`LoadedCase::weight`]); `progress` sees each result as it completes. Results come back in
/// the order of `cases`. The run stops early, with an error,
/// when [`NEVER_STARTED_LIMIT`] backend processes exited before reading anything and none of
/// the others ever read a request, or when the harness could not run a case.
pub fn run(
    cases: &[&LoadedCase],
    backend: &BackendSpec,
    options: &RunOptions,
    progress: &(dyn Fn(&CaseResult) + Sync),
) -> Result<Vec<CaseResult>, RunError> {
    run_noted(cases, backend, options, progress).map(|ran| ran.results)
}

/// What a run gave: the results, and what the report should say once about how it ran.
#[derive(Debug, Clone, Default)]
pub struct Ran {
    /// One result per case run, in the order of the cases.
    pub results: Vec<CaseResult>,
    /// How the run went that is no case's result (one process per case, and why).
    pub notes: Vec<String>,
}

/// [`run`], with the run's notes.
pub fn run_noted(
    cases: &[&LoadedCase],
    backend: &BackendSpec,
    options: &RunOptions,
    progress: &(dyn Fn(&CaseResult) + Sync),
) -> Result<Ran, RunError> {
    run_until(cases, backend, options, None, progress)
}

/// [`run_noted`] that starts no case once `deadline` has passed (a case already running
/// finishes): the results are those of the cases that ran, still in the order of `cases`. For
/// extra work a run may do within a budget, such as rechecking its failures alone.
pub fn run_until(
    cases: &[&LoadedCase],
    backend: &BackendSpec,
    options: &RunOptions,
    deadline: Option<Instant>,
    progress: &(dyn Fn(&CaseResult) + Sync),
) -> Result<Ran, RunError> {
    let next = AtomicUsize::new(0);
    // The heaviest cases first, so that none is started last and left running alone while the
    // other workers idle; the results keep the order of `cases`.
    let mut order: Vec<usize> = (0..cases.len()).collect();
    order.sort_by_cached_key(|&i| std::cmp::Reverse(cases[i].weight()));
    let results: Mutex<Vec<Option<CaseResult>>> = Mutex::new(vec![None; cases.len()]);
    let workers = options.jobs.clamp(1, cases.len().max(1));
    let reuse = Reuse::default();
    let starts = Starts::default();
    let harness: Mutex<Option<RunError>> = Mutex::new(None);
    let harness_failed = || harness.lock().map_or(true, |h| h.is_some());
    std::thread::scope(|scope| {
        for worker in 0..workers {
            let (next, order, results, reuse, starts, harness) =
                (&next, &order, &results, &reuse, &starts, &harness);
            let harness_failed = &harness_failed;
            // Each worker's processes are told which worker starts them, so that backends
            // with a fixed database file can keep one store per worker.
            let backend = backend.for_worker(worker);
            scope.spawn(move || {
                let backend = &backend;
                let mut session = None;
                loop {
                    if starts.verdict().is_some()
                        || harness_failed()
                        || deadline.is_some_and(|d| Instant::now() >= d)
                    {
                        break;
                    }
                    let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    let Some(case) = cases.get(i) else { break };
                    let result =
                        match run_case_in(case, backend, options, &mut session, reuse, starts) {
                            Ok(result) => result,
                            Err(error) => {
                                if let Ok(mut first) = harness.lock() {
                                    first.get_or_insert(error);
                                }
                                break;
                            }
                        };
                    if result.outcome != Outcome::Skip {
                        starts.ended(if result.outcome == Outcome::Error {
                            Some(result.reason.as_deref().unwrap_or_default())
                        } else {
                            None
                        });
                    }
                    progress(&result);
                    if let Ok(mut slots) = results.lock() {
                        slots[i] = Some(result);
                    }
                }
                if let Some(session) = session {
                    session.discard();
                }
            });
        }
    });
    if let Some(error) = harness.into_inner().ok().flatten() {
        return Err(error);
    }
    if let Some(error) = starts.verdict() {
        return Err(error);
    }
    Ok(Ran {
        results: results
            .into_inner()
            .unwrap_or_default()
            .into_iter()
            .flatten()
            .collect(),
        notes: reuse.note().into_iter().collect(),
    })
}

/// Whether backends of this run support the `reset` control, learnt once for all workers.
///
/// A worker's first backend is asked `reset` before its first case. `ok: true` keeps one process
/// per worker for the whole run; anything else (a "no", garbage, a crash) switches the run to a
/// fresh process per case, and that probed process is replaced before the case starts, so a
/// backend without the control costs one extra start, never a wrong verdict.
#[derive(Debug, Default)]
pub struct Reuse {
    /// 0 unknown, 1 supported, 2 unsupported.
    state: std::sync::atomic::AtomicU8,
    /// Why the first "no" came, as the backend said it: the report says it once.
    why: Mutex<Option<String>>,
}

impl Reuse {
    const SUPPORTED: u8 = 1;
    const UNSUPPORTED: u8 = 2;

    pub(super) fn unsupported(&self) -> bool {
        self.state.load(Ordering::Relaxed) == Self::UNSUPPORTED
    }

    pub(super) fn known(&self) -> bool {
        self.state.load(Ordering::Relaxed) != 0
    }

    pub(super) fn learn(&self, supported: bool) {
        let state = if supported {
            Self::SUPPORTED
        } else {
            Self::UNSUPPORTED
        };
        // The first answer wins; a later "no" from a broken process still ends reuse.
        if !supported || !self.known() {
            self.state.store(state, Ordering::Relaxed);
        }
    }

    /// Learns a "no", and why (the first reason given is kept).
    pub(super) fn refused(&self, why: Option<String>) {
        if !self.unsupported()
            && let Ok(mut first) = self.why.lock()
        {
            *first = Some(why.unwrap_or_default());
        }
        self.learn(false);
    }

    /// What the report says when the run went one process per case: `None` when processes
    /// were reused (or the run never learnt).
    pub fn note(&self) -> Option<String> {
        if !self.unsupported() {
            return None;
        }
        let why = self.why.lock().ok().and_then(|why| why.clone());
        Some(match why.as_deref().map(str::trim) {
            Some(why) if !why.is_empty() => {
                format!("the backend cannot reset its store ({why}): one process per case")
            }
            _ => "the backend does not answer `reset` with ok: one process per case".to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::{RunOptions, run};
    use crate::backend::BackendSpec;
    use crate::builtin::Source;
    use crate::check::load;
    use crate::spec::Revision;

    /// A heavy case started last keeps one worker busy while the others idle: the 100 KiB file
    /// case starts before the small one listed before it, and the results keep suite order.
    #[test]
    fn the_heaviest_case_starts_first_and_results_keep_their_order() {
        let loaded = load(&Source::Builtin, &Source::Builtin, Revision::Ga2026);
        let Ok(loaded) = loaded else {
            panic!("the built-in suite loads");
        };
        let ids = ["create.new-file", "scale.big-file.edited"];
        let cases: Vec<_> = ids
            .iter()
            .filter_map(|id| loaded.suite.cases.iter().find(|c| c.case.id == *id))
            .collect();
        assert_eq!(cases.len(), 2, "both cases are in the suite");
        assert!(cases[1].weight() > cases[0].weight());
        let started = Mutex::new(Vec::new());
        let options = RunOptions {
            jobs: 1,
            ..RunOptions::default()
        };
        let results = run(
            &cases,
            &BackendSpec::Reference(Revision::Ga2026),
            &options,
            &|result| started.lock().map_or((), |mut s| s.push(result.id.clone())),
        );
        let results: Vec<String> = results
            .map(|r| r.into_iter().map(|r| r.id).collect())
            .unwrap_or_default();
        assert_eq!(results, ids);
        let started = started.into_inner().unwrap_or_default();
        assert_eq!(started, ["scale.big-file.edited", "create.new-file"]);
    }
}
