//! After a run on several workers: the cases that failed or broke, run again one at a time.
//!
//! A case can fail with `-j N` and not alone for two reasons, told apart by how it failed. A case
//! whose only fault was a call past `--timeout` was late, and a busy machine (the other workers'
//! processes on the same cores) makes a case late with no fault of the backend's: when it passes
//! alone, its result is the lone run's. Anything else may be the backend's processes sharing one
//! store, one worker's `reset` wiping another's case: the verdict stays the run's, and a note says
//! how to give each worker a store of its own.

use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

use super::{CheckConfig, RECHECK_FLOOR, RECHECK_IDS_SHOWN, RECHECK_SAMPLE, runner};
use crate::check::runner::RunOptions;
use crate::events::{Event, Sink, Stage};
use crate::judge::grade::{CaseResult, Outcome};
use crate::suite::load::LoadedCase;

/// Reruns the cases of `selected` whose results failed or broke on `workers` workers, one at a
/// time on a single worker, with fresh processes and the same options, within the time the run
/// took (`elapsed`, at least [`RECHECK_FLOOR`]): first [`RECHECK_SAMPLE`] of them, then, if one of
/// those passes alone, the others. A result that only timed out and passes alone is replaced in
/// `results` by the lone one. Returns the notes for the report.
pub(super) fn recheck(
    selected: &[&LoadedCase],
    results: &mut [CaseResult],
    config: &CheckConfig,
    workers: usize,
    elapsed: Duration,
    events: &dyn Sink,
) -> Vec<String> {
    let failed: BTreeSet<&str> = results
        .iter()
        .filter(|r| fails(r))
        .map(|r| r.id.as_str())
        .collect();
    let failed: Vec<&LoadedCase> = selected
        .iter()
        .copied()
        .filter(|c| failed.contains(c.case.id.as_str()))
        .collect();
    let Some(better) = run_alone(&failed, config, events, elapsed) else {
        return Vec::new();
    };
    let late: BTreeSet<&str> = results
        .iter()
        .filter(|r| r.outcome == Outcome::Error && r.timed_out)
        .map(|r| r.id.as_str())
        .collect();
    let (on_time, other): (Vec<CaseResult>, Vec<CaseResult>) = better
        .alone
        .into_iter()
        .partition(|r| late.contains(r.id.as_str()));
    let mut notes = Vec::new();
    if !on_time.is_empty() {
        notes.push(format!(
            "{} with -j {workers} did not answer within --timeout ({} s), and did alone (-j 1): {}; a busy machine (or the backend's other processes) made them late, so their results are the lone run's; -j 1 or a longer --timeout spares the wait",
            count(on_time.len(), "case"),
            config.options.timeout.as_secs_f64(),
            ids(&on_time)
        ));
        let mut lone: HashMap<String, CaseResult> =
            on_time.into_iter().map(|r| (r.id.clone(), r)).collect();
        for result in results.iter_mut() {
            if let Some(alone) = lone.remove(&result.id) {
                *result = alone;
            }
        }
    }
    if !other.is_empty() {
        let how_many = if better.rechecked < failed.len() {
            format!(
                "{} of the {} cases rechecked alone, within the time the run took (of the {} that failed or broke with -j {workers}),",
                other.len(),
                better.rechecked,
                failed.len()
            )
        } else {
            format!(
                "{} of the {} cases that failed or broke with -j {workers}",
                other.len(),
                failed.len()
            )
        };
        notes.push(format!(
            "{how_many} neither fail nor break when run alone, one at a time (-j 1): {}; the workers' backend processes may share one store kept outside {{state}} (a fixed database file or server), one worker's `reset` wiping another's case: keep the store in {{state}} (MEMSPEC_STATE, one per sandbox), or name one per worker after MEMSPEC_WORKER (docs/reference/protocol.md); if the store is in {{state}} already, the failures depend on timing or order; the verdict stays the -j {workers} run's",
            ids(&other)
        ));
    }
    notes
}

fn fails(result: &CaseResult) -> bool {
    matches!(result.outcome, Outcome::Fail | Outcome::Error)
}

/// The lone reruns that neither failed nor broke, in suite order, and how many ran.
struct Better {
    alone: Vec<CaseResult>,
    rechecked: usize,
}

/// Reruns `failed` alone; `None` when none of them passes alone (or the recheck stopped early:
/// every case broke alike, the backend no longer starts, the harness failed; the run's own
/// report then stands as it is).
fn run_alone(
    failed: &[&LoadedCase],
    config: &CheckConfig,
    events: &dyn Sink,
    elapsed: Duration,
) -> Option<Better> {
    if failed.is_empty() {
        return None;
    }
    events.event(Event::Started {
        stage: Stage::Recheck,
        total: failed.len(),
    });
    let progress = |result: &CaseResult| events.event(Event::Case(result));
    let progress = &progress;
    let options = RunOptions {
        jobs: 1,
        ..config.options.clone()
    };
    let deadline = Instant::now() + elapsed.max(RECHECK_FLOOR);
    let sampled = RECHECK_SAMPLE.min(failed.len());
    let in_sample: BTreeSet<usize> = (0..sampled).map(|i| i * failed.len() / sampled).collect();
    let (mut sample, mut rest) = (Vec::new(), Vec::new());
    for (i, case) in failed.iter().copied().enumerate() {
        if in_sample.contains(&i) {
            sample.push(case);
        } else {
            rest.push(case);
        }
    }
    let mut alone = runner::run_until(&sample, &config.backend, &options, Some(deadline), progress)
        .ok()?
        .results;
    if alone.iter().all(fails) {
        return None;
    }
    if !rest.is_empty()
        && let Ok(more) =
            runner::run_until(&rest, &config.backend, &options, Some(deadline), progress)
    {
        alone.extend(more.results);
    }
    // In the order of the suite, whichever phase rechecked them.
    let order: HashMap<&str, usize> = failed
        .iter()
        .enumerate()
        .map(|(i, c)| (c.case.id.as_str(), i))
        .collect();
    alone.sort_by_key(|r| order.get(r.id.as_str()).copied().unwrap_or(usize::MAX));
    let rechecked = alone.len();
    alone.retain(|r| !fails(r));
    Some(Better { alone, rechecked })
}

fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The first [`RECHECK_IDS_SHOWN`] ids, with their outcome when not a pass.
fn ids(results: &[CaseResult]) -> String {
    let mut ids: Vec<String> = results
        .iter()
        .take(RECHECK_IDS_SHOWN)
        .map(|r| match r.outcome {
            Outcome::Pass => r.id.clone(),
            other => format!("{} ({})", r.id, other.as_str()),
        })
        .collect();
    if results.len() > RECHECK_IDS_SHOWN {
        ids.push(format!("and {} more", results.len() - RECHECK_IDS_SHOWN));
    }
    ids.join(", ")
}
