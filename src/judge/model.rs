//! What the store holds, as the reference says: every file with its content and every folder,
//! kept beside an in-process reference so that the generator can aim at what exists and the
//! judge knows what a read must show.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::Value;

use crate::exec::Sandbox;
use crate::reference::{Answer, Reference, ReferenceError};
use crate::spec::Revision;

/// The memory root.
pub const ROOT: &str = "/memories";

/// The store's state: memory path (`/memories/a/b.txt`) to content, and the folders.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Model {
    /// Files and their content.
    pub files: BTreeMap<String, String>,
    /// Folders below the root (the root itself is always there).
    pub dirs: BTreeSet<String>,
}

impl Model {
    /// Whether `path` is a file.
    pub fn is_file(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// Whether `path` is a folder (the root included).
    pub fn is_dir(&self, path: &str) -> bool {
        path == ROOT || self.dirs.contains(path)
    }

    /// The paths below `folder` that a listing of it shows (children and grandchildren), as
    /// memory paths; names starting with `.` are never made by the generator.
    pub fn listed(&self, folder: &str) -> BTreeSet<String> {
        let prefix = format!("{}/", folder.trim_end_matches('/'));
        self.files
            .keys()
            .chain(self.dirs.iter())
            .filter(|path| {
                path.strip_prefix(&prefix)
                    .is_some_and(|rest| rest.split('/').count() <= 2)
            })
            .cloned()
            .collect()
    }

    /// Whether `path` is a folder with no file anywhere below it. A store whose folders are
    /// key prefixes (GA: "/memories is a prefix that your handler maps onto ... keys in a
    /// database") has no such folder: it is gone once its last file is, and the spec allows
    /// that.
    pub fn is_empty_dir(&self, path: &str) -> bool {
        path != ROOT
            && self.dirs.contains(path)
            && !self
                .files
                .keys()
                .any(|f| f.strip_prefix(path).is_some_and(|r| r.starts_with('/')))
    }

    /// Everything at or below `path`.
    fn below<'a>(path: &'a str) -> impl Fn(&String) -> bool + 'a {
        move |p: &String| p == path || p.strip_prefix(path).is_some_and(|r| r.starts_with('/'))
    }

    fn add_parents(&mut self, path: &str) {
        let mut at = path;
        while let Some((parent, _)) = at.rsplit_once('/') {
            if parent == ROOT || parent.is_empty() {
                break;
            }
            self.dirs.insert(parent.to_string());
            at = parent;
        }
    }

    fn remove(&mut self, path: &str) {
        let below = Model::below(path);
        self.files.retain(|p, _| !below(p));
        self.dirs.retain(|p| !below(p));
    }

    fn rename(&mut self, old: &str, new: &str) {
        let below = Model::below(old);
        let moved = |p: &String| format!("{new}{}", &p[old.len()..]);
        let files: Vec<(String, String)> = self
            .files
            .iter()
            .filter(|(p, _)| below(p))
            .map(|(p, c)| (moved(p), c.clone()))
            .collect();
        let dirs: Vec<String> = self.dirs.iter().filter(|p| below(p)).map(moved).collect();
        self.remove(old);
        self.files.extend(files);
        self.dirs.extend(dirs);
        self.add_parents(new);
    }
}

/// One call as the reference takes it: the input, its answer and the store after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// The tool input.
    pub input: Value,
    /// The reference's answer.
    pub answer: Answer,
    /// What the store holds after the call.
    pub model: Arc<Model>,
}

/// The in-process reference on a scratch folder of its own, with the [`Model`] of what it holds.
#[derive(Debug)]
pub struct Oracle {
    reference: Reference,
    sandbox: Sandbox,
    /// Shared with the snapshots taken of it: a step that changes nothing (a view, an error)
    /// costs no copy, one that does copies the model once.
    model: Arc<Model>,
}

impl Oracle {
    /// A fresh, empty store following `revision`.
    pub fn new(revision: Revision) -> Result<Oracle, ReferenceError> {
        let sandbox = Sandbox::new_in_memory().map_err(|source| ReferenceError::OpenRoot {
            path: std::env::temp_dir(),
            source,
        })?;
        let reference = Reference::open_as(sandbox.memories(), revision)?;
        Ok(Oracle {
            reference,
            sandbox,
            model: Arc::default(),
        })
    }

    /// What the store holds now.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// What the store holds now, kept as it is whatever later calls do.
    pub fn snapshot(&self) -> Arc<Model> {
        Arc::clone(&self.model)
    }

    /// Runs one input on the reference and follows its effect in the model.
    pub fn apply(&mut self, input: &Value) -> Answer {
        let answer = self.reference.answer(input);
        if !answer.result.is_error {
            self.follow(input);
        }
        answer
    }

    /// Runs one input and keeps it with its answer and the store after it.
    pub fn step(&mut self, input: Value) -> Expected {
        let answer = self.apply(&input);
        Expected {
            input,
            answer,
            model: self.snapshot(),
        }
    }

    fn follow(&mut self, input: &Value) {
        let field = |name: &str| input.get(name).and_then(Value::as_str).map(normal);
        match input.get("command").and_then(Value::as_str) {
            Some("create" | "str_replace" | "insert") => {
                if let Some(path) = field("path") {
                    let content = self.read(&path);
                    let model = Arc::make_mut(&mut self.model);
                    model.add_parents(&path);
                    model.files.insert(path, content);
                }
            }
            Some("delete") => {
                if let Some(path) = field("path") {
                    Arc::make_mut(&mut self.model).remove(&path);
                }
            }
            Some("rename") => {
                if let (Some(old), Some(new)) = (field("old_path"), field("new_path")) {
                    Arc::make_mut(&mut self.model).rename(&old, &new);
                }
            }
            _ => {}
        }
    }

    /// A file's content as the reference wrote it (its own folder: trusted, and made only of
    /// files the generator wrote as UTF-8).
    fn read(&self, path: &str) -> String {
        let relative = path
            .strip_prefix(ROOT)
            .unwrap_or(path)
            .trim_start_matches('/');
        std::fs::read(self.sandbox.memories().join(relative))
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default()
    }
}

/// A memory path without trailing or repeated slashes: the key the model uses.
pub fn normal(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    format!("/{}", parts.join("/"))
}

/// The lines of a text as the reference counts them: a final `\n` ends the last line.
pub fn lines_of(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    text.strip_suffix('\n')
        .unwrap_or(text)
        .split('\n')
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_model_follows_the_reference() {
        let mut oracle = Oracle::new(Revision::Ga2026).expect("oracle");
        let create =
            |path: &str, text: &str| json!({"command": "create", "path": path, "file_text": text});
        assert!(
            !oracle
                .apply(&create("/memories/a/b/c.txt", "x\n"))
                .result
                .is_error
        );
        assert!(
            !oracle
                .apply(&create("/memories/ab.txt", "y"))
                .result
                .is_error
        );
        assert_eq!(
            oracle.model().listed("/memories"),
            ["/memories/a", "/memories/a/b", "/memories/ab.txt"]
                .map(String::from)
                .into()
        );
        let rename =
            json!({"command": "rename", "old_path": "/memories/a", "new_path": "/memories/z/a"});
        assert!(!oracle.apply(&rename).result.is_error);
        assert_eq!(oracle.model().files["/memories/z/a/b/c.txt"], "x\n");
        assert!(oracle.model().is_dir("/memories/z"));
        let delete = json!({"command": "delete", "path": "/memories/z"});
        assert!(!oracle.apply(&delete).result.is_error);
        assert_eq!(oracle.model().files.len(), 1);
        let edit = json!({"command": "str_replace", "path": "/memories/ab.txt", "old_str": "y", "new_str": "zz"});
        assert!(!oracle.apply(&edit).result.is_error);
        assert_eq!(oracle.model().files["/memories/ab.txt"], "zz");
    }
}
