//! The replay loop: one call at a time to both backends, then the comparisons.

use std::os::fd::AsFd;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use super::scratch;
use super::verdict::{self, Divergence, Pair, Results, StepVerdict};
use super::{
    Answer, FILE_CONTENT_LIMIT, FileDifference, Replay, ReplayError, ReplayOptions, Step, Trees,
};
use crate::backend::{BackendSpec, DEFAULT_STARTUP, Timeouts};
use crate::exec::tree::{Difference, Scanner, Touched, Tree, compare_paths};
use crate::exec::{Fault, Sandbox, Session, fs};
use crate::judge::grade::Check;
use crate::judge::rules;
use crate::judge::{compare, confinement};
use crate::reference::Reference;
use crate::spec::Level;
use crate::spec::{Always, Graded};
use crate::spec::{Spec, known};
use crate::transcript::Transcript;

/// Replays every memory call of `transcript`; `progress` is told (done, total) as it goes.
pub fn replay(
    transcript: Transcript,
    options: &ReplayOptions,
    spec: Option<&Spec>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Replay, ReplayError> {
    // The backend under test, started clean, and again after it breaks (on the same folder,
    // so a filesystem backend keeps its state), until it has broken too often in a row.
    let seed = scratch::Named::load(options.seed.as_deref())?;
    let (mut backend, notes) =
        scratch::clean_session(&options.backend, seed.as_ref(), timeouts(options))?;
    let replayed = replay_in(transcript, options, spec, progress, &mut backend);
    backend.discard();
    replayed.map(|replayed| Replay {
        planted: notes,
        ..replayed
    })
}

/// The timeouts a replay's backend gets.
pub fn timeouts(options: &ReplayOptions) -> Timeouts {
    Timeouts {
        call: options.timeout,
        startup: DEFAULT_STARTUP,
    }
}

/// [`replay`] on a session the caller keeps: its sandbox as the backend's starting point (the
/// caller planted or reset it), its process reused if running. The fuzzer keeps one per worker
/// and resets it between sequences, so that a backend that starts slowly starts once.
pub fn replay_in(
    transcript: Transcript,
    options: &ReplayOptions,
    spec: Option<&Spec>,
    progress: &mut dyn FnMut(usize, usize),
    backend: &mut Session,
) -> Result<Replay, ReplayError> {
    let started = Instant::now();
    let reference_box = scratch::seeded(options.seed.as_deref())?;
    let reference = Reference::open_as(reference_box.memories(), options.revision)?;
    let on_folder = options.backend.runs_on_folder();
    backend.begin_case();
    backend.watch_outside();
    let always = confinement_rules(spec);
    let trusted = matches!(options.backend, BackendSpec::Reference(_));
    let mut folders = Folders::new(backend.sandbox(), &reference_box, on_folder, !trusted);
    let total = transcript.calls.len();
    let mut steps = Vec::with_capacity(total);
    // What each side's store is, as far as it differs from the reference's.
    let mut backend_drift = Drift::default();
    let mut recorded_drift = Drift::default();
    // Whether the backend ever answered, and its first fault: a backend that breaks on every
    // call from the first never started, and the replay stops with one message.
    let mut answered = false;
    let mut first_fault: Option<String> = None;
    let unanswered = transcript.format.records_answers();
    // The last call the backend acknowledged that changed its store: what a file found gone
    // afterwards is blamed on.
    let mut last_change: Option<Value> = None;
    for (index, call) in transcript.calls.iter().enumerate() {
        progress(index, total);
        if !call.is_memory() {
            steps.push(Step {
                backend: None,
                reference: None,
                verdict: StepVerdict::not_replayed(&call.name),
                changed: false,
                trees: None,
                files: Vec::new(),
                backend_micros: 0,
            });
            continue;
        }
        let call_started = Instant::now();
        let answer = match backend.call(&call.input) {
            Ok(result) => {
                answered = true;
                Answer::Result(result)
            }
            Err(Fault::GaveUp { breaks }) if !answered => {
                return Err(ReplayError::NeverStarted {
                    command: options.backend.label(),
                    breaks,
                    first: first_fault.unwrap_or_default(),
                });
            }
            Err(fault @ Fault::GaveUp { .. }) => Answer::NotRun(format!("not replayed: {fault}")),
            Err(Fault::Harness(message)) => return Err(ReplayError::Harness(message)),
            Err(fault @ Fault::Backend(_)) => {
                let told = fault.to_string();
                first_fault.get_or_insert_with(|| told.clone());
                Answer::Broke(told)
            }
        };
        let backend_micros = call_started.elapsed().as_micros() as u64;
        let reference_answer = reference.answer(&call.input);
        let before = Arc::clone(&folders.reference);
        let reference_change = change_of(&call.input, Some(&reference_answer.result));
        // A backend under test is looked at whole after every call (what its folder's watch saw
        // change, or a whole scan): changing what it should not is exactly what is looked for.
        // The in-process reference is the spec.
        let backend_change = if trusted {
            change_of(&call.input, answer.result())
        } else {
            Change::Unknown
        };
        let roots = (backend.sandbox(), &reference_box);
        let backend_before = folders.backend.clone();
        let (trees, tree_change) =
            folders.after_step(index, roots, &reference_change, &backend_change);
        // A path that leaves `/memories` only once decoded, kept by the backend as a literal
        // name in its folder (before or after the step), did not escape.
        let literal = |relative: &str| {
            [backend_before.as_deref(), trees.backend.as_deref()]
                .into_iter()
                .flatten()
                .any(|tree| tree.get(relative).is_some())
        };
        let files = tree_change
            .as_deref()
            .map(|paths| file_differences(paths, roots))
            .unwrap_or_default();
        let changed = match (&call.recorded, answer.result()) {
            (Some(recorded), Some(result)) => recorded != result,
            _ => false,
        };
        let number = index + 1;
        let mut verdict = match answer.result() {
            None => {
                let mut broke = StepVerdict::broke(match &answer {
                    Answer::Broke(why) | Answer::NotRun(why) => why.clone(),
                    Answer::Result(_) => String::new(),
                });
                // The recording is judged whatever the backend did.
                if let (Some(recorded), false) = (&call.recorded, options.check) {
                    let results = Results {
                        input: &call.input,
                        recorded: None,
                        backend: recorded,
                        reference: &reference_answer,
                    };
                    broke.divergences = verdict::compare(results, spec, false)
                        .into_iter()
                        .map(|mut d| {
                            d.pair = Pair::RecordedReference;
                            d.finding.message = d.finding.message.replace("backend", "recorded");
                            d
                        })
                        .collect();
                    if let Some(found) = rules::host_leak(&call.input, &recorded.text) {
                        broke.divergences.push(verdict::leak(
                            Pair::RecordedReference,
                            &found,
                            spec,
                        ));
                    }
                }
                broke
            }
            Some(result) => {
                let results = Results {
                    input: &call.input,
                    recorded: call.recorded.as_ref(),
                    backend: result,
                    reference: &reference_answer,
                };
                // A store that is not a folder shows no facts of an escape: a path that reads
                // literally as a name inside `/memories` is taken as that name, as `check`
                // takes it (only a folder's tree can show it went elsewhere).
                let literal: &dyn Fn(&str) -> bool = if on_folder { &literal } else { &|_| true };
                let mut divergences = verdict::compare_with(results, spec, options.check, literal);
                if !options.check
                    && !on_folder
                    && let Some(lost) = compare::lost_on_read(
                        &call.input,
                        &reference_answer,
                        result,
                        last_change.as_ref(),
                        spec,
                    )
                {
                    // The flag that came with it only restates the loss.
                    divergences.retain(|d| {
                        d.pair != Pair::BackendReference || d.finding.check != Check::IsError
                    });
                    divergences.push(Divergence::of_backend(lost));
                }
                if !options.check
                    && let Some(sizes) =
                        verdict::listing_sizes(&call.input, result, &trees.reference, spec)
                {
                    divergences.push(sizes);
                }
                if !options.check {
                    let outside = divergences
                        .iter()
                        .find(|d| d.security && d.pair == Pair::BackendReference)
                        .map(|d| d.finding.rule.clone());
                    if let Some(paths) = tree_change {
                        let mut effect =
                            tree_divergence(&call.input, &reference_answer, &before, &paths, spec);
                        // What a path outside `/memories` did to the folder is that escape's
                        // effect, under its rule: not a create that wrote the wrong place.
                        if let Some(rule) = outside {
                            effect.finding.level = rules::level(spec, &rule, Level::Must);
                            effect.finding.rule = rule;
                            effect.security = true;
                        }
                        divergences.push(effect);
                    }
                    let mut breaches = backend.check_answer(&call.input, result);
                    // The in-process reference cannot reach outside its root (its own tests
                    // attack that); checking it here would only cost time on long replays.
                    if !trusted {
                        breaches.extend(backend.check_sandbox().breaches);
                    }
                    let confined =
                        confinement::findings(breaches, &always, None, "after this step");
                    let leaked = confined
                        .iter()
                        .any(|f| matches!(f.check, Check::HostPath | Check::Leak));
                    divergences.extend(confined.into_iter().map(Divergence::of_backend));
                    // A host path other than the sandbox's (a resolved link, another root).
                    if !leaked && let Some(found) = rules::host_leak(&call.input, &result.text) {
                        divergences.push(verdict::leak(Pair::BackendReference, &found, spec));
                    }
                }
                StepVerdict::graded(divergences, options.check)
            }
        };
        if !options.check {
            let command = call
                .input
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or("");
            let paths = rules::memory_paths(&call.input);
            let reference_failed = reference_answer.result.is_error;
            let at = At {
                number,
                command,
                paths: &paths,
                reference_failed,
            };
            backend_drift.mark(Pair::BackendReference, &at, &mut verdict.divergences);
            if on_folder {
                backend_drift.follow_folder(&at, &folders.differences);
            } else {
                backend_drift.follow_outcome(
                    Pair::BackendReference,
                    &at,
                    answer.result().map(|r| r.is_error),
                    &verdict.divergences,
                );
            }
            recorded_drift.mark(Pair::RecordedReference, &at, &mut verdict.divergences);
            recorded_drift.follow_outcome(
                Pair::RecordedReference,
                &at,
                call.recorded.as_ref().map(|r| r.is_error),
                &verdict.divergences,
            );
        }
        if let Some(result) = answer.result()
            && !result.is_error
            && CHANGES_STORE.contains(
                &call
                    .input
                    .get("command")
                    .and_then(Value::as_str)
                    .unwrap_or(""),
            )
        {
            last_change = Some(call.input.clone());
        }
        if call.recorded.is_none() && unanswered && verdict.reason.is_none() {
            verdict.reason = Some(NO_RECORDED_ANSWER.to_string());
        }
        steps.push(Step {
            backend: Some(answer),
            reference: Some(Answer::Result(reference_answer.result)),
            verdict,
            changed,
            trees: Some(trees),
            files,
            backend_micros,
        });
    }
    progress(total, total);
    Ok(Replay {
        transcript,
        backend: options.backend.label(),
        on_folder,
        check: options.check,
        revision: options.revision,
        seed: options.seed.clone(),
        planted: Vec::new(),
        steps,
        elapsed: started.elapsed(),
    })
}

/// The reason of a step whose `tool_use` has no `tool_result` in the transcript.
pub const NO_RECORDED_ANSWER: &str =
    "no recorded answer: the transcript has no tool_result for this call";

/// Commands that change the store: a divergence on one is where a drift starts.
const CHANGES_STORE: [&str; 5] = ["create", "str_replace", "insert", "delete", "rename"];

/// One step, as the drift sees it.
struct At<'a> {
    /// 1-based.
    number: usize,
    command: &'a str,
    /// The memory paths it names, relative to the root (`""` the root).
    paths: &'a [String],
    reference_failed: bool,
}

/// Whether an input naming memory path `a` reads or writes what is at memory path `b`: the
/// same path, one below the other (a listing of a folder above, a file in a moved folder).
fn touches(a: &str, b: &str) -> bool {
    let below =
        |x: &str, y: &str| x.len() > y.len() && x.starts_with(y) && x[y.len()..].starts_with('/');
    a == b || a.is_empty() || b.is_empty() || below(a, b) || below(b, a)
}

/// The memory paths whose state differs between one side (the backend, the recording) and the
/// reference, each with the step (1-based) that first made it differ; and the wording
/// differences that side showed where the stores agreed.
///
/// The rule: a difference (above INFO, not in the security lane) at a later step whose input
/// names a drifted path, a folder above one or a path below one follows from the earliest
/// such path's step, unless it is a text difference under a (command, rule) this side already
/// showed on an equal store: that wording would differ without the drift.
#[derive(Debug, Default)]
struct Drift {
    paths: std::collections::BTreeMap<String, usize>,
    wording: std::collections::HashSet<(String, String)>,
}

impl Drift {
    fn cause(&self, at: &At<'_>) -> Option<usize> {
        self.paths
            .iter()
            .filter(|(drifted, _)| at.paths.iter().any(|p| touches(p, drifted)))
            .map(|(_, step)| *step)
            .filter(|step| *step < at.number)
            .min()
    }

    /// Marks `pair`'s differences at `at` that follow from an earlier step.
    fn mark(&mut self, pair: Pair, at: &At<'_>, divergences: &mut [Divergence]) {
        let cause = self.cause(at);
        for divergence in divergences
            .iter_mut()
            .filter(|d| d.pair == pair && d.counts() && !d.security)
        {
            let text = divergence.finding.check == Check::Text;
            let key = (at.command.to_string(), divergence.finding.rule.to_string());
            match cause {
                Some(step) if !(text && self.wording.contains(&key)) => {
                    divergence.cascade_of = Some(step);
                }
                Some(_) => {}
                None if text => {
                    self.wording.insert(key);
                }
                None => {}
            }
        }
    }

    /// After a step of a backend on a folder: the folders' own differences say what drifts.
    fn follow_folder(&mut self, at: &At<'_>, differences: &[(String, Difference)]) {
        let cause = self.cause(at).unwrap_or(at.number);
        let mut now = std::collections::BTreeMap::new();
        for (path, _) in differences {
            let step = self.paths.get(path).copied().unwrap_or(cause);
            now.insert(path.clone(), step);
        }
        self.paths = now;
    }

    /// After a step of a side without a folder: its outcomes say what drifts. A command that
    /// changes the store and came out otherwise than the reference's drifts the paths it
    /// names; a MUST difference that follows nothing shows that those paths already differ;
    /// a create, delete or rename that both sides did brings a path back in line, or moves
    /// its drift.
    fn follow_outcome(
        &mut self,
        pair: Pair,
        at: &At<'_>,
        failed: Option<bool>,
        divergences: &[Divergence],
    ) {
        let Some(failed) = failed else {
            return;
        };
        let cause = self.cause(at).unwrap_or(at.number);
        let differs = CHANGES_STORE.contains(&at.command) && failed != at.reference_failed;
        let shows = divergences.iter().any(|d| {
            d.pair == pair
                && !d.security
                && d.cascade_of.is_none()
                && d.finding.level == Level::Must
        });
        if differs || shows {
            for path in at.paths {
                self.paths.entry(path.clone()).or_insert(cause);
            }
            return;
        }
        if failed || at.reference_failed {
            return;
        }
        match (at.command, at.paths) {
            ("create", [path]) => {
                self.paths.remove(path);
            }
            ("delete", [path]) => self
                .paths
                .retain(|p, _| !touches(path, p) || p.len() < path.len()),
            ("rename", [old, new]) => {
                let moved: Vec<(String, usize)> = self
                    .paths
                    .iter()
                    .filter(|(p, _)| touches(old, p) && p.len() >= old.len())
                    .map(|(p, step)| (format!("{new}{}", &p[old.len()..]), *step))
                    .collect();
                self.paths
                    .retain(|p, _| !(touches(old, p) && p.len() >= old.len()));
                self.paths.extend(moved);
            }
            _ => {}
        }
    }
}

/// The rules confinement findings are graded under, as `check` grades them: the spec's levels
/// when it is loaded, MUST without it.
fn confinement_rules(spec: Option<&Spec>) -> Always {
    let graded = |rule| Graded {
        level: rules::level(spec, &rule, Level::Must),
        rule,
    };
    Always {
        confinement: graded(known::CONFINEMENT),
        host_paths: graded(known::NO_HOST_PATHS),
    }
}

/// Files shown for a folder difference: the first few, both sides read again.
const FILES_SHOWN: usize = 4;

fn file_differences(
    paths: &[(String, Difference)],
    (backend, reference): (&Sandbox, &Sandbox),
) -> Vec<FileDifference> {
    // Never through a link, never more than is shown.
    let read = |root: &Sandbox, path: &str| {
        let memories = root.open_memories()?;
        let parts = fs::components(path).ok()?;
        let (last, parents) = parts.split_last()?;
        let dir = fs::walk(memories.as_fd(), parents, false).ok()?;
        let bytes = fs::read_prefix(
            dir.as_fd(),
            &fs::c_name(last).ok()?,
            FILE_CONTENT_LIMIT as u64,
        )
        .ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    };
    paths
        .iter()
        .map(|(path, _)| FileDifference {
            path: format!("/memories/{path}"),
            backend: read(backend, path),
            reference: read(reference, path),
        })
        .filter(|f| f.backend.is_some() || f.reference.is_some())
        .take(FILES_SHOWN)
        .collect()
}

fn tree_divergence(
    input: &Value,
    reference: &crate::reference::Answer,
    before: &Tree,
    paths: &[(String, Difference)],
    spec: Option<&Spec>,
) -> Divergence {
    let rule = rules::tree_rule(input, reference, Some(before));
    let shown: Vec<String> = paths
        .iter()
        .take(4)
        .map(|(path, how)| {
            let how = match how {
                Difference::OnlyFirst => "only in the backend's",
                Difference::OnlySecond => "missing from the backend's",
                Difference::Content => "content differs",
            };
            format!("/memories/{path} ({how})")
        })
        .collect();
    let more = paths.len().saturating_sub(shown.len());
    // The backend took the other option of a decision the reference refused under (a name the
    // reference's grammar refuses, say): what it made besides is that option's, not a fault.
    // Anything lost or changed is still one.
    let other_option = reference.result.is_error
        && rules::level(spec, &reference.rule, Level::Must) == Level::Info
        && paths
            .iter()
            .all(|(_, how)| matches!(how, Difference::OnlyFirst));
    let (level, rule) = if other_option {
        (Level::Info, reference.rule.clone())
    } else {
        (
            rule.as_ref()
                .map_or(Level::Must, |r| rules::level(spec, r, Level::Must)),
            // A command without a rule of its own for the folder: the rule its answer follows.
            rule.unwrap_or_else(|| reference.rule.clone()),
        )
    };
    Divergence::new(
        Pair::BackendReference,
        Check::Effect,
        level,
        rule,
        format!(
            "after this step the memory folders differ: {}{}",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ),
    )
}

/// Both memory folders, scanned after each step, and where they differ.
struct Folders {
    on_folder: bool,
    backend_scan: Scanner,
    reference_scan: Scanner,
    backend: Option<Arc<Tree>>,
    reference: Arc<Tree>,
    differences: Vec<(String, Difference)>,
    differ_since: Option<usize>,
}

impl Folders {
    /// `watched`: the backend's folder is followed by change notification (a backend under
    /// test; the in-process reference says itself what each call changed).
    fn new(
        backend_root: &Sandbox,
        reference_root: &Sandbox,
        on_folder: bool,
        watched: bool,
    ) -> Folders {
        let mut backend_scan = if watched {
            Scanner::watching()
        } else {
            Scanner::default()
        };
        let mut reference_scan = Scanner::default();
        let backend = on_folder.then(|| {
            let root = backend_root.open_memories();
            Arc::new(backend_scan.scan(root.as_ref().map(AsFd::as_fd)))
        });
        let root = reference_root.open_memories();
        let reference = Arc::new(reference_scan.scan(root.as_ref().map(AsFd::as_fd)));
        Folders {
            on_folder,
            backend_scan,
            reference_scan,
            backend,
            reference,
            differences: Vec::new(),
            differ_since: None,
        }
    }

    /// Scans what each folder's change says; returns the trees and, when the difference
    /// between them changed with this step (and they differ), the differing paths.
    fn after_step(
        &mut self,
        index: usize,
        (backend_root, reference_root): (&Sandbox, &Sandbox),
        reference: &Change,
        backend: &Change,
    ) -> (Trees, Option<Vec<(String, Difference)>>) {
        let (tree, reference_paths) = rescan(
            &mut self.reference_scan,
            reference_root,
            &self.reference,
            reference,
        );
        self.reference = tree;
        let mut change = None;
        let nothing = matches!((reference, backend), (Change::Nothing, Change::Nothing));
        if self.on_folder && !nothing {
            let previous = self.backend.clone().unwrap_or_default();
            let (backend, backend_paths) =
                rescan(&mut self.backend_scan, backend_root, &previous, backend);
            let now = match (reference_paths, backend_paths) {
                // Only where either side changed can the differences have.
                (Some(mut paths), Some(more)) => {
                    paths.extend(more);
                    let touched = Touched::new(&paths);
                    let mut now: Vec<(String, Difference)> = self
                        .differences
                        .iter()
                        .filter(|(path, _)| !touched.contains(path))
                        .cloned()
                        .collect();
                    now.extend(backend.differences_at(&self.reference, &touched));
                    now.sort_by(|a, b| compare_paths(&a.0, &b.0));
                    now
                }
                _ => backend.differences(&self.reference),
            };
            if now != self.differences {
                self.differ_since = (!now.is_empty()).then_some(index);
                if !now.is_empty() {
                    change = Some(now.clone());
                }
                self.differences = now;
            }
            self.backend = Some(backend);
        }
        let trees = Trees {
            backend: self.backend.clone(),
            reference: Arc::clone(&self.reference),
            differ_since: self.differ_since,
        };
        (trees, change)
    }
}

/// What a call can have changed in a folder, as far as a backend trusted to be the spec
/// tells: nothing (a view, an error), the paths it names, or anything.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Change {
    /// Nothing changed.
    Nothing,
    /// Only these paths (relative to the memory folder) and what is below them.
    Paths(Vec<String>),
    /// Anything may have: scan everything.
    Unknown,
}

/// The change a successful create, str_replace, insert, delete or rename makes: the paths it
/// names. A path spelled in a way this cannot follow (`..`, `.`) means a full scan.
fn change_of(input: &Value, result: Option<&crate::protocol::ToolResult>) -> Change {
    let command = input.get("command").and_then(Value::as_str).unwrap_or("");
    match result {
        None => return Change::Unknown,
        Some(r) if r.is_error || command == "view" => return Change::Nothing,
        Some(_) => {}
    }
    let fields: &[&str] = match command {
        "rename" => &["old_path", "new_path"],
        _ => &["path"],
    };
    let mut paths = Vec::new();
    for field in fields {
        let Some(path) = input.get(*field).and_then(Value::as_str) else {
            return Change::Unknown;
        };
        let Some(rest) = path.strip_prefix("/memories") else {
            return Change::Unknown;
        };
        let parts: Vec<&str> = rest.split('/').filter(|p| !p.is_empty()).collect();
        if parts
            .iter()
            .any(|p| *p == "." || *p == ".." || p.contains('\\'))
        {
            return Change::Unknown;
        }
        paths.push(parts.join("/"));
    }
    Change::Paths(paths)
}

/// Scans again as far as `change` says, sharing the previous tree when nothing changed (most
/// calls are views); with the paths the new tree may differ at (`None`: anywhere).
fn rescan(
    scanner: &mut Scanner,
    root: &Sandbox,
    previous: &Arc<Tree>,
    change: &Change,
) -> (Arc<Tree>, Option<Vec<String>>) {
    if matches!(change, Change::Nothing) {
        return (Arc::clone(previous), Some(Vec::new()));
    }
    // Opened anew each time, never through a link: the backend may have replaced its folder.
    let handle = root.open_memories();
    let handle = handle.as_ref().map(AsFd::as_fd);
    let (tree, paths) = match change {
        Change::Nothing => return (Arc::clone(previous), Some(Vec::new())),
        Change::Paths(paths) => (scanner.update(handle, previous, paths), Some(paths.clone())),
        // What the folder's watch saw change, if it kept track; else everything.
        Change::Unknown => match scanner.changed(handle) {
            Some(paths) if paths.is_empty() => return (Arc::clone(previous), Some(paths)),
            Some(paths) => (scanner.update(handle, previous, &paths), Some(paths)),
            None => (scanner.scan(handle), None),
        },
    };
    // A path named empty is the root: anything.
    let paths = paths.filter(|paths| !paths.iter().any(String::is_empty));
    if tree == **previous {
        (Arc::clone(previous), paths)
    } else {
        (Arc::new(tree), paths)
    }
}
