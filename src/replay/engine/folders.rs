//! Both memory folders, scanned after each step as far as the step can have changed them, and
//! where they differ.

use std::os::fd::AsFd;
use std::sync::Arc;

use serde_json::Value;

use crate::exec::Sandbox;
use crate::exec::tree::{Difference, Scanner, Touched, Tree, compare_paths};
use crate::replay::Trees;

/// Both memory folders, scanned after each step, and where they differ.
pub(super) struct Folders {
    on_folder: bool,
    backend_scan: Scanner,
    reference_scan: Scanner,
    pub(super) backend: Option<Arc<Tree>>,
    pub(super) reference: Arc<Tree>,
    pub(super) differences: Vec<(String, Difference)>,
    differ_since: Option<usize>,
}

impl Folders {
    /// `watched`: the backend's folder is followed by change notification (a backend under
    /// test; the in-process reference says itself what each call changed).
    pub(super) fn new(
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

    /// Scans what each folder's change says; returns the trees and whether the difference
    /// between them changed with this step and they differ (then [`Folders::differences`]
    /// holds the differing paths).
    pub(super) fn after_step(
        &mut self,
        index: usize,
        (backend_root, reference_root): (&Sandbox, &Sandbox),
        reference: &Change,
        backend: &Change,
    ) -> (Trees, bool) {
        let (tree, reference_paths) = rescan(
            &mut self.reference_scan,
            reference_root,
            &self.reference,
            reference,
        );
        self.reference = tree;
        let mut changed = false;
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
                changed = !now.is_empty();
                self.differences = now;
            }
            self.backend = Some(backend);
        }
        let trees = Trees {
            backend: self.backend.clone(),
            reference: Arc::clone(&self.reference),
            differ_since: self.differ_since,
        };
        (trees, changed)
    }
}

/// What a call can have changed in a folder, as far as a backend trusted to be the spec
/// tells: nothing (a view, an error), the paths it names, or anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Change {
    /// Nothing changed.
    Nothing,
    /// Only these paths (relative to the memory folder) and what is below them.
    Paths(Vec<String>),
    /// Anything may have: scan everything.
    Unknown,
}

/// The change a successful create, str_replace, insert, delete or rename makes: the paths it
/// names. A path spelled in a way this cannot follow (`..`, `.`) means a full scan.
pub(super) fn change_of(input: &Value, result: Option<&crate::protocol::ToolResult>) -> Change {
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
