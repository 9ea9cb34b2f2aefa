//! `memspec check`: load the spec and the suite, select, run, apply a baseline, report.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub mod baseline;
mod folder;
mod recheck;

pub mod runner;

use baseline::{Baseline, BaselineError};
use runner::{RunError, RunOptions, Selection};

use crate::backend::BackendSpec;
use crate::builtin::Source;
use crate::events::{Event, Sink, Stage};
use crate::judge::grade::CaseResult;
use crate::spec::{Revision, Spec, SpecError};
use crate::suite::load::{self, Suite, SuiteError};

/// Everything `check` needs.
#[derive(Debug, Clone)]
pub struct CheckConfig {
    /// The backend under test.
    pub backend: BackendSpec,
    /// Which cases.
    pub selection: Selection,
    /// Jobs, timeout, strictness.
    pub options: RunOptions,
    /// Accepted deviations to apply.
    pub baseline: Option<PathBuf>,
    /// After a run on several workers, run the cases that failed or broke again, one at a
    /// time, and note those that do not fail alone (see [`RECHECK_FLOOR`]).
    pub recheck: bool,
    /// With 2 or more, the races of [`crate::race`] are run after the cases, with this
    /// many processes of the backend on one store, and reported as `race.*` results.
    pub clients: usize,
    /// Whether the crash lane of [`crate::crash`] runs after the cases (`--crash`, or
    /// `--area crash`), reported as `crash.*` results.
    pub crash: bool,
}

/// The least time a recheck may take: it starts no case once as long as the run itself took
/// has passed, or this, whichever is longer, so that a short run still gets its recheck and a
/// long one at most doubles.
pub const RECHECK_FLOOR: Duration = Duration::from_secs(10);

/// Case ids a recheck note names before `and N more`.
pub(crate) const RECHECK_IDS_SHOWN: usize = 5;

/// Failed cases rechecked first, spread over them: when none of these passes alone, the rest are
/// not rechecked, so that a backend whose failures are its own pays for a few cases only.
pub const RECHECK_SAMPLE: usize = 16;

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
    /// A `--area`, `--rule` or `--case` value names nothing in the suite.
    #[error(transparent)]
    Selection(#[from] SelectionError),
    /// The selection matched no case: never a pass.
    #[error(
        "the selection matched no case out of {total}: no case meets --case, --area, --rule, --level and --hostile together"
    )]
    EmptySelection {
        /// Cases in the suite.
        total: usize,
    },
}

/// A selection value that names nothing, so the selection could never be what was meant.
#[derive(Debug, thiserror::Error)]
pub enum SelectionError {
    /// No case has this area.
    #[error("unknown area {area:?}; known areas: {}", .known.join(", "))]
    UnknownArea {
        /// The value given.
        area: String,
        /// The areas of the suite.
        known: Vec<String>,
    },
    /// No case names this rule.
    #[error("unknown rule {rule:?}; {}", rule_hint(.similar, *.total))]
    UnknownRule {
        /// The value given.
        rule: String,
        /// The rules checked by the suite that share its first segment (`create.` …).
        similar: Vec<String>,
        /// How many rules the suite checks.
        total: usize,
    },
    /// No case id matches this pattern.
    #[error("--case {pattern:?} matches no case id; `memspec cases list` lists them")]
    NoCaseId {
        /// The pattern given.
        pattern: String,
    },
}

fn rule_hint(similar: &[String], total: usize) -> String {
    if similar.is_empty() {
        format!("`memspec spec coverage` lists the {total} rule ids")
    } else {
        format!("rules with that prefix: {}", similar.join(", "))
    }
}

/// Refuses a selection value that matches no case on its own: a typo in `--area` or `--rule`
/// should name the known values, not report an empty selection.
fn validate(
    selection: &Selection,
    suite: &Suite,
    races: bool,
    crash: bool,
) -> Result<(), SelectionError> {
    // With `--clients N` the races are results too, and with `--crash` the crash scenarios:
    // their areas, rules and ids select.
    let mut lane_ids: Vec<String> = if races {
        crate::race::RACES
            .iter()
            .map(|r| format!("race.{r}"))
            .collect()
    } else {
        Vec::new()
    };
    if crash {
        lane_ids.extend(crash_ids());
    }
    let mut areas: BTreeSet<&str> = suite.cases.iter().map(|c| c.area.as_str()).collect();
    if races {
        areas.insert("races");
    }
    if crash {
        areas.insert("crash");
    }
    if let Some(area) = selection.areas.iter().find(|a| !areas.contains(a.as_str())) {
        return Err(SelectionError::UnknownArea {
            area: area.clone(),
            known: areas.iter().map(|a| (*a).to_string()).collect(),
        });
    }
    let mut rules: BTreeSet<&str> = suite
        .cases
        .iter()
        .flat_map(|c| c.case.rules.iter().map(String::as_str))
        .collect();
    if races {
        rules.extend(crate::spec::known::RACE_RULES.iter().map(|r| r.as_str()));
    }
    if crash {
        rules.extend(crate::spec::known::CRASH_RULES.iter().map(|r| r.as_str()));
    }
    if let Some(rule) = selection.rules.iter().find(|r| !rules.contains(r.as_str())) {
        let prefix = rule.split('.').next().unwrap_or_default();
        let similar = rules
            .iter()
            .filter(|r| r.split('.').next() == Some(prefix))
            .map(|r| (*r).to_string())
            .collect();
        return Err(SelectionError::UnknownRule {
            rule: rule.clone(),
            similar,
            total: rules.len(),
        });
    }
    if let Some(pattern) = selection.ids.iter().find(|p| {
        !suite.cases.iter().any(|c| runner::glob(p, &c.case.id))
            && !lane_ids.iter().any(|id| runner::glob(p, id))
    }) {
        return Err(SelectionError::NoCaseId {
            pattern: pattern.clone(),
        });
    }
    Ok(())
}

/// The backend the crash lane kills: the reference runs as `memspec serve`, a process of its
/// own, since the one in memspec's process cannot be killed.
fn crash_backend(backend: &BackendSpec) -> BackendSpec {
    match backend {
        BackendSpec::Reference(revision) => {
            let exe = std::env::current_exe()
                .map_or_else(|_| "memspec".to_string(), |p| p.display().to_string());
            BackendSpec::command(
                &format!(
                    "'{}' serve {{memories}} --revision {}",
                    exe.replace('\'', r"'\''"),
                    revision.id()
                ),
                Some(true),
            )
            .with_label("reference (memspec serve)")
        }
        other => other.clone(),
    }
}

/// The ids of the crash lane's scenarios.
fn crash_ids() -> Vec<String> {
    crate::crash::scenario::all()
        .iter()
        .map(|s| format!("crash.{}", s.id))
        .collect()
}

/// The loaded spec and suite.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// Rules and decisions.
    pub spec: Spec,
    /// All cases.
    pub suite: Suite,
}

/// Loads the spec and the suite as they hold in `revision`.
pub fn load(spec: &Source, cases: &Source, revision: Revision) -> Result<Loaded, CheckError> {
    let spec = Spec::load_from(spec, revision)?;
    let suite = load::load_from(cases, &spec)?;
    Ok(Loaded { spec, suite })
}

/// A finished `check`: what its report shows, before the report layer adds how to rerun it.
#[derive(Debug, Clone)]
pub struct CheckRun {
    /// The backend, as labelled.
    pub backend: String,
    /// The revision the run was judged by.
    pub revision: Revision,
    /// Whether SHOULD misses failed.
    pub strict: bool,
    /// One result per selected case, in suite order, then the races.
    pub results: Vec<CaseResult>,
    /// Baseline problems: stale entries, unknown cases, changed outcomes.
    pub baseline_problems: Vec<String>,
    /// Wall-clock time of the run.
    pub elapsed: Duration,
    /// Cases run at once.
    pub workers: usize,
    /// How the run went that is no case's result.
    pub notes: Vec<String>,
}

/// Runs the selected cases; `events` is told [`Stage::Cases`] with the number of selected cases
/// first, then each result as it completes ([`Event::Case`]).
///
/// With `config.recheck`, a run on several workers in which cases failed or broke runs those
/// cases again, one at a time on one worker with fresh processes ([`Stage::Recheck`], then their
/// results): when some do not fail alone, the run says so in a note. The results, and so the
/// verdict, stay those of the run itself, but for cases that only timed out and pass alone: a
/// busy machine made them late, and their results are the lone run's.
pub fn check(
    config: &CheckConfig,
    loaded: &Loaded,
    events: &dyn Sink,
) -> Result<CheckRun, CheckError> {
    let revision = loaded.spec.revision();
    let baseline = config
        .baseline
        .as_deref()
        .map(|path| Baseline::read_for(path, revision))
        .transpose()?;
    let crash = config.crash || config.selection.asks_for_crash();
    validate(&config.selection, &loaded.suite, config.clients > 1, crash)?;
    let selected = config.selection.apply(&loaded.suite);
    let crashes: Vec<String> = if crash {
        crash_ids()
            .into_iter()
            .filter(|id| config.selection.selects_crash(id))
            .collect()
    } else {
        Vec::new()
    };
    let races: Vec<&str> = if config.clients > 1 {
        crate::race::RACES
            .into_iter()
            .filter(|race| {
                let level = crate::race::race_level(&loaded.spec);
                config.selection.selects_race(race, level)
            })
            .collect()
    } else {
        Vec::new()
    };
    if selected.is_empty() && races.is_empty() && crashes.is_empty() {
        return Err(CheckError::EmptySelection {
            total: loaded.suite.cases.len(),
        });
    }
    // One set of timeouts for the probe, the races and the crash lane, as for the cases.
    let timeouts = crate::backend::Timeouts {
        call: config.options.timeout,
        startup: config.options.startup,
    };
    // A backend guessed to be on the folder that is not is checked off it, said once.
    let (backend, off_folder) = folder::settle(&config.backend, timeouts);
    let settled;
    let config = if off_folder.is_some() {
        settled = CheckConfig {
            backend,
            ..config.clone()
        };
        &settled
    } else {
        config
    };
    events.event(Event::Started {
        stage: Stage::Cases,
        total: selected.len(),
    });
    let progress = |result: &CaseResult| events.event(Event::Case(result));
    let started = Instant::now();
    let ran = if selected.is_empty() {
        runner::Ran::default()
    } else {
        runner::run_noted(&selected, &config.backend, &config.options, &progress)?
    };
    let mut results = ran.results;
    let elapsed = started.elapsed();
    let workers = config.options.jobs.clamp(1, selected.len().max(1));
    let mut notes = ran.notes;
    notes.extend(off_folder.map(str::to_string));
    if config.recheck && workers > 1 {
        notes.extend(recheck::recheck(
            &selected,
            &mut results,
            config,
            workers,
            elapsed,
            events,
        ));
    }
    if !races.is_empty() {
        results.extend(crate::race::check_results(
            &races,
            &config.backend,
            config.clients,
            &loaded.spec,
            timeouts,
            config.options.strict,
        ));
    }
    if !crashes.is_empty() {
        results.extend(crate::crash::check_results(
            &crash_backend(&config.backend),
            &|id| crashes.iter().any(|c| c == id),
            &loaded.spec,
            timeouts,
            config.options.strict,
            config.options.jobs,
        ));
    }
    let baseline_problems = match &baseline {
        Some(baseline) => {
            let problems = baseline.apply(&loaded.suite, &mut results);
            notes.extend(baseline.notes(&results));
            problems
        }
        None => Vec::new(),
    };
    Ok(CheckRun {
        backend: config.backend.label(),
        revision,
        strict: config.options.strict,
        results,
        baseline_problems,
        // The races, when run, come after the cases and count in the run's time.
        elapsed: started.elapsed(),
        workers,
        notes,
    })
}
