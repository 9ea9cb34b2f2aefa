//! The replay loop: one call at a time to both backends, then the comparisons.

use std::os::fd::AsFd;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use super::scratch;
use super::tree::{Difference, Scanner, Tree};
use super::verdict::{self, Divergence, Pair, Results, StepVerdict};
use super::{
    Answer, FILE_CONTENT_LIMIT, FileDifference, Replay, ReplayError, ReplayOptions, Step, Trees,
    rules,
};
use crate::backend::{BackendSpec, DEFAULT_STARTUP, Timeouts};
use crate::exec::{Fault, Sandbox, Session, fs};
use crate::reference::Reference;
use crate::spec::{Spec, known};
use crate::suite::case::Level;
use crate::suite::grade::Check;
use crate::suite::load::{Always, Graded};
use crate::transcript::Transcript;

/// Replays every memory call of `transcript`; `progress` is told (done, total) as it goes.
pub fn replay(
    transcript: Transcript,
    options: &ReplayOptions,
    spec: Option<&Spec>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Replay, ReplayError> {
    let started = Instant::now();
    let backend_box = scratch::seeded(options.seed.as_deref())?;
    let reference_box = scratch::seeded(options.seed.as_deref())?;
    let reference = Reference::open_as(reference_box.memories(), options.revision)?;
    let on_folder = options.backend.runs_on_folder();
    // The backend under test, started again after it breaks (on the same folder, so a
    // filesystem backend keeps its state), until it has broken too often in a row.
    let mut backend = Session::on(
        backend_box,
        &options.backend,
        Timeouts {
            call: options.timeout,
            startup: DEFAULT_STARTUP,
        },
    );
    let always = confinement_rules(spec);
    let mut folders = Folders::new(backend.sandbox(), &reference_box, on_folder);
    let total = transcript.calls.len();
    let mut steps = Vec::with_capacity(total);
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
            Ok(result) => Answer::Result(result),
            Err(fault @ Fault::GaveUp { .. }) => Answer::NotRun(format!("not replayed: {fault}")),
            Err(Fault::Harness(message)) => return Err(ReplayError::Harness(message)),
            Err(fault @ Fault::Backend(_)) => Answer::Broke(fault.to_string()),
        };
        let backend_micros = call_started.elapsed().as_micros() as u64;
        let reference_answer = reference.answer(&call.input);
        let before = Arc::clone(&folders.reference);
        let trusted = matches!(options.backend, BackendSpec::Reference(_));
        let reference_change = change_of(&call.input, Some(&reference_answer.result));
        // A backend under test is scanned whole after every call: changing what it should not
        // is exactly what is looked for. The in-process reference is the spec.
        let backend_change = if trusted {
            change_of(&call.input, answer.result())
        } else {
            Change::Unknown
        };
        let roots = (backend.sandbox(), &reference_box);
        let (trees, tree_change) =
            folders.after_step(index, roots, &reference_change, &backend_change);
        let files = tree_change
            .as_deref()
            .map(|paths| file_differences(paths, roots))
            .unwrap_or_default();
        let changed = match (&call.recorded, answer.result()) {
            (Some(recorded), Some(result)) => recorded != result,
            _ => false,
        };
        let verdict = match answer.result() {
            None => StepVerdict::broke(match &answer {
                Answer::Broke(why) | Answer::NotRun(why) => why.clone(),
                Answer::Result(_) => String::new(),
            }),
            Some(result) => {
                let results = Results {
                    input: &call.input,
                    recorded: call.recorded.as_ref(),
                    backend: result,
                    reference: &reference_answer,
                };
                let mut divergences = verdict::compare(results, spec, options.check);
                if !options.check {
                    if let Some(paths) = tree_change {
                        divergences.push(tree_divergence(
                            &call.input,
                            &reference_answer,
                            &before,
                            &paths,
                            spec,
                        ));
                    }
                    let mut confined = backend.check_answer(&call.input, result, None, &always);
                    // The in-process reference cannot reach outside its root (its own tests
                    // attack that); checking it here would only cost time on long replays.
                    if !trusted {
                        confined.extend(backend.check_sandbox(&always, "after this step").findings);
                    }
                    divergences.extend(confined.into_iter().map(Divergence::of_backend));
                }
                StepVerdict::graded(divergences, options.check)
            }
        };
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
    backend.discard();
    Ok(Replay {
        transcript,
        backend: options.backend.label(),
        on_folder,
        check: options.check,
        revision: options.revision,
        seed: options.seed.clone(),
        steps,
        elapsed: started.elapsed(),
    })
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
    Divergence::new(
        Pair::BackendReference,
        Check::Effect,
        rule.as_ref()
            .map_or(Level::Must, |r| rules::level(spec, r, Level::Must)),
        // A command without a rule of its own for the folder: the rule its answer follows.
        rule.unwrap_or_else(|| reference.rule.clone()),
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
    fn new(backend_root: &Sandbox, reference_root: &Sandbox, on_folder: bool) -> Folders {
        let mut backend_scan = Scanner::default();
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
        self.reference = rescan(
            &mut self.reference_scan,
            reference_root,
            &self.reference,
            reference,
        );
        let mut change = None;
        let nothing = matches!((reference, backend), (Change::Nothing, Change::Nothing));
        if self.on_folder && !nothing {
            let previous = self.backend.clone().unwrap_or_default();
            let backend = rescan(&mut self.backend_scan, backend_root, &previous, backend);
            let now = backend.differences(&self.reference);
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
/// calls are views).
fn rescan(
    scanner: &mut Scanner,
    root: &Sandbox,
    previous: &Arc<Tree>,
    change: &Change,
) -> Arc<Tree> {
    if matches!(change, Change::Nothing) {
        return Arc::clone(previous);
    }
    // Opened anew each time, never through a link: the backend may have replaced its folder.
    let handle = root.open_memories();
    let handle = handle.as_ref().map(AsFd::as_fd);
    let tree = match change {
        Change::Nothing => return Arc::clone(previous),
        Change::Paths(paths) => scanner.update(handle, previous, paths),
        Change::Unknown => scanner.scan(handle),
    };
    if tree == **previous {
        Arc::clone(previous)
    } else {
        Arc::new(tree)
    }
}
