//! `memspec fuzz`: random sequences of the six commands, run on the backend under test and on the
//! in-process reference of the same revision, compared on the facts any correct backend shares
//! ([`facts`]); a divergence is shrunk to a minimal sequence ([`shrink`]) and kept as a case and
//! a transcript ([`keep`]). With several clients, the same backend is raced against itself on one
//! store ([`race`]).
//!
//! Every sequence runs through the replay engine, which runs backends for `replay` too (sessions,
//! restarts, confinement and folder checks); nothing here starts a backend any other way. Runs
//! are deterministic from the seed: sequence `k` of seed `s` is the same in every run.

pub mod action;
pub mod generate;
pub mod keep;
pub mod shrink;
pub mod trial;
pub mod users;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::backend::{BackendSpec, DEFAULT_STARTUP, Timeouts};
use crate::events::{Event, Sink, Stage};
use crate::exec::Fault;
use crate::judge::model::Oracle;
use crate::judge::{Fact, Finding};
use crate::race;
use crate::rng::Rng;
use crate::spec::{Revision, Spec};
use action::Action;
use generate::Generator;
use trial::{Located, Store};

/// How long a fuzz run goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// Until this much time has passed.
    Time(Duration),
    /// Until this many tool calls were made.
    Steps(usize),
}

/// Everything `fuzz` needs.
#[derive(Debug, Clone)]
pub struct FuzzOptions {
    /// The backend under test.
    pub backend: BackendSpec,
    /// The seed of the whole run.
    pub seed: u64,
    /// When to stop.
    pub budget: Budget,
    /// Per-call timeout.
    pub timeout: Duration,
    /// Sequences run at once.
    pub jobs: usize,
    /// Clients racing on one store; 1 runs sequences, 2 or more runs the races.
    pub clients: usize,
    /// Users of one store each sequence's steps are made as (`--users`; below 2, one store of
    /// one user).
    pub users: usize,
    /// Go on after the first finding, keeping one per kind and rule.
    pub keep_going: bool,
    /// Shrink what is found (else it is kept as found, cut after the finding).
    pub shrink: bool,
    /// Where shrunk cases and transcripts are written.
    pub out: Option<PathBuf>,
}

/// Why a fuzz run could not give a verdict.
#[derive(Debug, thiserror::Error)]
pub enum FuzzError {
    /// The in-process reference could not open its scratch folder.
    #[error(transparent)]
    Reference(#[from] crate::reference::ReferenceError),
    /// The backend broke on every call from its first: it never started.
    #[error("the backend never answered; the first time: {0}")]
    NeverStarted(String),
    /// The replay engine could not run a sequence.
    #[error("the harness could not replay a sequence: {0}")]
    Replay(String),
    /// The backend's store held memories where it should have been empty (after a `reset`,
    /// or on a fresh start): no sequence can be judged on it.
    #[error(transparent)]
    Dirty(crate::exec::Dirty),
    /// Anything else of the harness's.
    #[error("harness: {0}")]
    Harness(String),
    /// A kept case or transcript could not be written.
    #[error("cannot write {path}: {message}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

/// A divergence found, shrunk and kept.
#[derive(Debug, Clone, Serialize)]
pub struct Discovery {
    /// What differs, as shown by the shrunk sequence.
    pub found: Finding,
    /// The sequence (0-based) it was found in: rerun with the same seed to see it again.
    pub sequence: usize,
    /// Steps of the sequence as found, up to the finding.
    pub found_after: usize,
    /// The shrunk steps, described.
    pub steps: Vec<String>,
    /// The users of the store the steps were made as (none for a store of one user).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub users: Vec<String>,
    /// The shrunk steps themselves.
    #[serde(skip)]
    pub actions: Vec<Action>,
    /// Replays shrinking took.
    pub shrink_trials: usize,
    /// The step (0-based, of the shrunk steps) that shows it.
    pub at_step: usize,
    /// The call (0-based, of the shrunk steps' calls: a fill is many) that shows it.
    pub at_call: usize,
    /// The kept case and transcript.
    #[serde(skip)]
    pub kept: Option<keep::Kept>,
    /// Where they were written: the case, and the transcript when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<(PathBuf, Option<PathBuf>)>,
    /// Why there is no case to keep, and how to see it again (a race is no sequence of steps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_kept: Option<String>,
    /// For races: the calls and answers.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub log: Vec<String>,
}

/// What a fuzz run did and found.
#[derive(Debug, Clone, Serialize)]
pub struct FuzzReport {
    /// The backend, as labelled.
    pub backend: String,
    /// The revision both sides follow.
    pub revision: Revision,
    /// The run's seed.
    pub seed: u64,
    /// Clients per store.
    pub clients: usize,
    /// Users per store.
    pub users: usize,
    /// Sequences (or races) run.
    pub sequences: usize,
    /// Tool calls made on the backend.
    pub steps: usize,
    /// Sequences that stopped early at a point the spec leaves open, per reason.
    pub open: BTreeMap<String, usize>,
    /// Races not run, per reason (a setup the store refused, clients that share no store).
    pub races_not_run: BTreeMap<String, usize>,
    /// Divergences found, one per kind and rule, in the order found.
    pub divergences: Vec<Discovery>,
    /// Findings seen again after the first of their kind and rule.
    pub repeats: usize,
    /// Wall-clock time.
    #[serde(serialize_with = "millis")]
    pub elapsed: Duration,
    /// Time the backend took answering (summed over workers).
    #[serde(serialize_with = "millis")]
    pub backend_time: Duration,
    /// Whether the backend broke (crashed, hung, spoke garbage) in any sequence.
    pub broke: bool,
}

/// The seed of sequence `index` of a run seeded `seed`.
pub fn sequence_seed(seed: u64, index: usize) -> u64 {
    Rng::new(seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64()
}

/// Shared state of the workers.
struct Run<'a> {
    options: &'a FuzzOptions,
    spec: &'a Spec,
    started: Instant,
    next: AtomicUsize,
    steps: AtomicUsize,
    stop: AtomicBool,
    state: Mutex<State>,
    events: &'a dyn Sink,
}

#[derive(Default)]
struct State {
    sequences: usize,
    open: BTreeMap<String, usize>,
    races_not_run: BTreeMap<String, usize>,
    divergences: Vec<Discovery>,
    repeats: usize,
    backend_time: Duration,
    broke: bool,
    error: Option<FuzzError>,
}

impl Run<'_> {
    fn over(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
            || match self.options.budget {
                Budget::Time(limit) => self.started.elapsed() >= limit,
                Budget::Steps(limit) => self.steps.load(Ordering::SeqCst) >= limit,
            }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A worker that panicked leaves the counts as they were: still worth reporting.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn fail(&self, error: FuzzError) {
        self.lock().error.get_or_insert(error);
        self.stop.store(true, Ordering::SeqCst);
    }

    fn counted(&self, calls: usize) {
        let total = self.steps.fetch_add(calls, Ordering::SeqCst) + calls;
        self.events.event(Event::Progress {
            done: total,
            last: None,
        });
    }

    /// Records a finding; says whether the run goes on.
    fn record(&self, divergence: Discovery) {
        let mut state = self.lock();
        let key = (divergence.found.differs(), divergence.found.rule.clone());
        if state
            .divergences
            .iter()
            .any(|d| (d.found.differs(), d.found.rule.clone()) == key)
        {
            state.repeats += 1;
        } else {
            state.broke |= divergence.found.differs() == Fact::Broke;
            state.divergences.push(divergence);
        }
        if !self.options.keep_going {
            self.stop.store(true, Ordering::SeqCst);
        }
    }
}

/// Runs the fuzzer until its budget is spent (or, without `keep_going`, the first divergence is
/// shrunk and kept); `events` is told [`Stage::Fuzz`] with the step budget (0 for a time
/// budget), then the number of calls made so far.
pub fn fuzz(
    options: &FuzzOptions,
    spec: &Spec,
    events: &dyn Sink,
) -> Result<FuzzReport, FuzzError> {
    events.event(Event::Started {
        stage: Stage::Fuzz,
        total: match options.budget {
            Budget::Steps(steps) => steps,
            Budget::Time(_) => 0,
        },
    });
    let run = Run {
        options,
        spec,
        started: Instant::now(),
        next: AtomicUsize::new(0),
        steps: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        state: Mutex::new(State::default()),
        events,
    };
    let jobs = options.jobs.max(1);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                // The worker's backend session, reset between sequences.
                let mut kept = None;
                while !run.over() {
                    let index = run.next.fetch_add(1, Ordering::SeqCst);
                    let result = if options.clients > 1 {
                        race_once(&run, index)
                    } else {
                        sequence_once(&run, index, &mut kept)
                    };
                    match result {
                        // With several workers the memories may be another worker's.
                        Err(FuzzError::Dirty(mut dirty)) => {
                            dirty.workers = jobs;
                            run.fail(FuzzError::Dirty(dirty));
                        }
                        Err(error) => run.fail(error),
                        Ok(_) => {}
                    }
                }
                if let Some(session) = kept {
                    session.discard();
                }
            });
        }
    });
    let state = run.state.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(error) = state.error {
        return Err(error);
    }
    let mut divergences = state.divergences;
    if let Some(dir) = &options.out {
        std::fs::create_dir_all(dir).map_err(|e| FuzzError::Write {
            path: dir.clone(),
            message: e.to_string(),
        })?;
        for divergence in &mut divergences {
            if let Some(kept) = &divergence.kept {
                divergence.files = Some(keep::write(kept, dir)?);
            }
        }
    }
    Ok(FuzzReport {
        backend: options.backend.label(),
        revision: spec.revision(),
        seed: options.seed,
        clients: options.clients,
        users: options.users,
        sequences: state.sequences,
        steps: run.steps.load(Ordering::SeqCst),
        open: state.open,
        races_not_run: state.races_not_run,
        divergences,
        repeats: state.repeats,
        elapsed: run.started.elapsed(),
        backend_time: state.backend_time,
        broke: state.broke,
    })
}

/// Sequence lengths: short ones find shallow bugs fast, longer ones reach deep states.
const LENGTHS: (usize, usize) = (6, 36);

/// Limits of one shrink.
const SHRINK: shrink::Limits = shrink::Limits {
    trials: 400,
    time: Duration::from_secs(60),
};

fn sequence_once(
    run: &Run<'_>,
    index: usize,
    kept: &mut Option<crate::exec::Session>,
) -> Result<(), FuzzError> {
    let seed = sequence_seed(run.options.seed, index);
    let users = users::ids(index, run.options.users);
    let mut generator = Generator::new(seed, run.spec.revision());
    let mut oracles = (0..users.len().max(1))
        .map(|_| Oracle::new(run.spec.revision()))
        .collect::<Result<Vec<_>, _>>()?;
    let mut rng = Rng::new(seed);
    let length = rng.between(LENGTHS.0, LENGTHS.1);
    let (actions, expected) = generator.sequence_of_users(&mut oracles, run.spec, length);
    drop(oracles);
    let store = match users.is_empty() {
        true => Store::One(kept),
        false => Store::Users(&users),
    };
    let tried = trial::run(
        &actions,
        Some(expected),
        &run.options.backend,
        run.spec,
        run.options.timeout,
        store,
    )?;
    run.counted(tried.calls);
    {
        let mut state = run.lock();
        state.sequences += 1;
        state.backend_time += tried.backend_time;
        if let Some(why) = &tried.open {
            *state.open.entry(why.clone()).or_insert(0) += 1;
        }
    }
    // Beside other users, a call answered otherwise than in its user's calls made alone is a
    // crossing, whatever the reference says (a backend's own faults are the same in both).
    let crossing = match users.is_empty() {
        true => None,
        false => users::crossing(run, &actions, &tried.answers, &users)?,
    };
    let (first, crossing) = match (crossing, tried.found) {
        (Some(crossed), _) => (crossed, true),
        (None, Some(found)) => (found, false),
        (None, None) => return Ok(()),
    };
    let found_after = first.action + 1;
    // Shrinking replays on the same backend; its calls count toward the steps made, not the
    // budget (a finding is always shrunk to the end). A crossing stays one.
    let mut trial = |candidate: &[Action]| -> Option<Located> {
        let store = match users.is_empty() {
            true => Store::One(kept),
            false => Store::Users(&users),
        };
        let tried = trial::run(
            candidate,
            None,
            &run.options.backend,
            run.spec,
            run.options.timeout,
            store,
        )
        .ok()?;
        run.counted(tried.calls);
        match crossing {
            true => users::crossing(run, candidate, &tried.answers, &users)
                .ok()
                .flatten(),
            false => tried.found,
        }
    };
    let (mut actions, mut shown, shrink_trials) = if run.options.shrink {
        shrink::shrink(actions, first, SHRINK, &mut trial)
    } else {
        let mut actions = actions;
        actions.truncate(first.action + 1);
        (actions, first, 0)
    };
    if !crossing && !users.is_empty() {
        // The user's own fault (perhaps of that id only): kept as that user's steps alone.
        (actions, shown) = users::own_fault(run, &actions, shown, &users)?;
    }
    let kept = keep::keep(&actions, &shown, run.spec, &users)?;
    run.record(Discovery {
        steps: actions.iter().map(|a| a.described_as(&users)).collect(),
        users,
        at_step: shown.action,
        at_call: shown.call,
        found: shown.found,
        sequence: index,
        found_after,
        actions,
        shrink_trials,
        kept: Some(kept),
        files: None,
        not_kept: None,
        log: Vec::new(),
    });
    Ok(())
}

fn race_once(run: &Run<'_>, index: usize) -> Result<(), FuzzError> {
    let seed = sequence_seed(run.options.seed, index);
    let mut rng = Rng::new(seed);
    let race = race::RACES[index % race::RACES.len()];
    let timeouts = Timeouts {
        call: run.options.timeout,
        startup: DEFAULT_STARTUP,
    };
    let mut sessions =
        match race::start_clients(&run.options.backend, run.options.clients, timeouts) {
            Ok(sessions) => sessions,
            Err(Fault::Harness(message)) => return Err(FuzzError::Harness(message)),
            Err(Fault::Dirty(dirty)) => return Err(FuzzError::Dirty(dirty)),
            Err(fault) => return Err(FuzzError::NeverStarted(fault.to_string())),
        };
    // As in `check`: clients that share no store cannot race (each would be right alone).
    let (raced, shared) = match race::shares_store(&mut sessions, &mut rng) {
        Ok(Ok(())) => (race::run(race, &mut sessions, run.spec, &mut rng), true),
        Ok(Err(why)) => (Ok(race::Raced::not_run(race, why)), false),
        Err(fault) => (Err(fault), true),
    };
    crate::exec::Session::discard_all(sessions);
    let raced = match raced {
        Ok(raced) => raced,
        Err(Fault::Harness(message)) => return Err(FuzzError::Harness(message)),
        Err(Fault::Dirty(dirty)) => return Err(FuzzError::Dirty(dirty)),
        Err(fault) => {
            run.counted(1);
            run.lock().sequences += 1;
            run.record(Discovery {
                found: Finding::broke(fault.to_string()),
                sequence: index,
                found_after: 0,
                steps: vec![format!("race {race}")],
                users: Vec::new(),
                actions: Vec::new(),
                shrink_trials: 0,
                at_step: 0,
                at_call: 0,
                kept: None,
                files: None,
                not_kept: Some(race_rerun(race, run.options.clients)),
                log: Vec::new(),
            });
            return Ok(());
        }
    };
    // A race not run made its setup call at least: counted, so a step budget ends.
    run.counted(raced.calls.max(1));
    run.lock().sequences += 1;
    if let Some(why) = raced.not_run {
        *run.lock().races_not_run.entry(why).or_insert(0) += 1;
        if !shared {
            // Clients that share no store never will: no race can run, so the run ends.
            run.stop.store(true, Ordering::SeqCst);
        }
        return Ok(());
    }
    // The race's worst finding above INFO (a race the witness could not read is no divergence).
    let found = raced
        .found
        .into_iter()
        .filter(|f| f.level != crate::spec::Level::Info)
        .find(|f| f.follows.is_none());
    if let Some(found) = found {
        run.record(Discovery {
            found,
            sequence: index,
            found_after: 1,
            steps: vec![format!(
                "race {} with {} clients",
                raced.race, run.options.clients
            )],
            users: Vec::new(),
            actions: Vec::new(),
            shrink_trials: 0,
            at_step: 0,
            at_call: 0,
            kept: None,
            files: None,
            not_kept: Some(race_rerun(race, run.options.clients)),
            log: raced.log,
        });
    }
    Ok(())
}

/// Why a race is kept as no case, and how to run it again.
fn race_rerun(race: &str, clients: usize) -> String {
    format!(
        "a race is no sequence of steps, so no case or transcript is kept; `memspec check` with the same backend and `--clients {clients} --case race.{race}` runs it again (it shows only when the clients' calls meet)"
    )
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_millis() as u64)
}

/// Sequences ever run by one generator must not depend on anything but the seed.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_are_deterministic_from_the_seed() {
        let spec = Spec::builtin(Revision::Ga2026).expect("spec");
        let make = |seed| {
            let mut oracle = Oracle::new(Revision::Ga2026).expect("oracle");
            Generator::new(seed, Revision::Ga2026)
                .sequence(&mut oracle, &spec, 30)
                .0
        };
        assert_eq!(make(sequence_seed(7, 3)), make(sequence_seed(7, 3)));
        assert_ne!(make(sequence_seed(7, 3)), make(sequence_seed(7, 4)));
    }

    /// The forms the suite sends that real stores get wrong are sent by the fuzzer too (issue
    /// 29): a view to the end of a file, a path with a trailing slash, `insert_line` at both
    /// ends of a file of lines.
    #[test]
    fn the_forms_the_suite_sends_are_generated() {
        let spec = Spec::builtin(Revision::Ga2026).expect("spec");
        let mut seen = std::collections::BTreeSet::new();
        for index in 0..40 {
            let mut oracle = Oracle::new(Revision::Ga2026).expect("oracle");
            let (actions, _) = Generator::new(sequence_seed(3, index), Revision::Ga2026).sequence(
                &mut oracle,
                &spec,
                60,
            );
            let mut model = Oracle::new(Revision::Ga2026).expect("oracle");
            for input in actions.iter().flat_map(Action::calls) {
                let field = |name: &str| input.get(name).and_then(serde_json::Value::as_str);
                let lines = field("path")
                    .and_then(|path| model.model().files.get(path))
                    .map_or(0, |text| text.lines().count());
                let at = input.get("insert_line").and_then(serde_json::Value::as_u64);
                if input.get("view_range").and_then(|r| r.get(1)) == Some(&serde_json::json!(-1)) {
                    seen.insert("view to the end");
                }
                if ["path", "old_path", "new_path"]
                    .iter()
                    .any(|name| field(name).is_some_and(|p| p.len() > 1 && p.ends_with('/')))
                {
                    seen.insert("trailing slash");
                }
                match at {
                    Some(0) if lines > 0 => seen.insert("insert at the start"),
                    Some(n) if lines > 0 && n as usize == lines => seen.insert("insert at the end"),
                    _ => false,
                };
                model.apply(&input);
            }
        }
        assert_eq!(
            seen.into_iter().collect::<Vec<_>>(),
            [
                "insert at the end",
                "insert at the start",
                "trailing slash",
                "view to the end"
            ]
        );
    }

    /// A trial judges a new sequence against what the generator's reference answered while it
    /// made it, and a shrunk one against a reference run anew: the two must be the same.
    #[test]
    fn the_generators_answers_are_a_fresh_references() {
        for revision in [Revision::Ga2026, Revision::Beta2025] {
            let spec = Spec::builtin(revision).expect("spec");
            for index in 0..40 {
                let mut oracle = Oracle::new(revision).expect("oracle");
                let (actions, expected) = Generator::new(sequence_seed(11, index), revision)
                    .sequence(&mut oracle, &spec, 36);
                let fresh = trial::reference_run(&actions, &spec).expect("reference run");
                assert_eq!(expected, fresh, "sequence {index} under {revision:?}");
            }
        }
    }
}
