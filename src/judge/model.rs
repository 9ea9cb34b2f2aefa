//! What the store holds, as the reference says: every file with its content and every folder,
//! kept beside an in-process reference so that the generator can aim at what exists and the
//! judge knows what a read must show.

use imbl::{OrdMap, OrdSet};

use serde_json::Value;

use crate::exec::Sandbox;
use crate::reference::{Answer, Reference, ReferenceError};
use crate::spec::Revision;

/// The memory root.
pub const ROOT: &str = "/memories";

/// The store's state: memory path (`/memories/a/b.txt`) to content, and the folders.
///
/// Persistent maps: a clone shares everything, and a change copies only the path to it, so the
/// store after every call of a sequence can be kept (fuzz judges each call on the store before
/// and after it) without copying the whole store each time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Model {
    /// Files and their content.
    pub files: OrdMap<String, String>,
    /// Folders below the root (the root itself is always there).
    pub dirs: OrdSet<String>,
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
    pub fn listed(&self, folder: &str) -> std::collections::BTreeSet<String> {
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
            && self.files.range(Model::below(path)).next().is_none()
    }

    /// Paths strictly below `path` in a sorted map or set: those that start with `path/`, which
    /// sort between `path/` and `path0` (`0` follows `/`).
    fn below(path: &str) -> std::ops::Range<String> {
        format!("{path}/")..format!("{path}0")
    }

    fn add_parents(&mut self, path: &str) {
        let mut at = path;
        while let Some((parent, _)) = at.rsplit_once('/') {
            if parent == ROOT || parent.is_empty() {
                break;
            }
            // A persistent set copies a node even to put back what it holds.
            if !self.dirs.contains(parent) {
                self.dirs.insert(parent.to_string());
            }
            at = parent;
        }
    }

    fn remove(&mut self, path: &str) {
        let files: Vec<String> = self
            .files
            .range(Model::below(path))
            .map(|(p, _)| p.clone())
            .collect();
        let dirs: Vec<String> = self.dirs.range(Model::below(path)).cloned().collect();
        for file in files.iter().map(String::as_str).chain([path]) {
            self.files.remove(file);
        }
        for dir in dirs.iter().map(String::as_str).chain([path]) {
            self.dirs.remove(dir);
        }
    }

    fn rename(&mut self, old: &str, new: &str) {
        let moved = |p: &String| format!("{new}{}", &p[old.len()..]);
        let mut files: Vec<(String, String)> = self
            .files
            .range(Model::below(old))
            .map(|(p, c)| (moved(p), c.clone()))
            .collect();
        if let Some(content) = self.files.get(old) {
            files.push((new.to_string(), content.clone()));
        }
        let mut dirs: Vec<String> = self.dirs.range(Model::below(old)).map(moved).collect();
        if self.dirs.contains(old) {
            dirs.push(new.to_string());
        }
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
    /// What the store holds after the call (sharing all but the call's change with the
    /// store before it).
    pub model: Model,
}

impl Expected {
    /// The rule a backend breaks when its `is_error` is the opposite of this answer's: what a
    /// kept case names for the step's flag, as the replay would grade the flip.
    pub fn flag_rule(&self) -> crate::spec::RuleId {
        let flipped = crate::protocol::ToolResult {
            text: String::new(),
            is_error: !self.answer.result.is_error,
        };
        super::rules::is_error_rule(&self.input, &self.answer, &flipped)
    }
}

/// Whether a backend may rightly refuse to look a path up at all: a name holding pattern or
/// escape characters (the spec neither allows nor forbids them), so its absence proves nothing.
pub fn may_refuse_name(path: &str) -> bool {
    path.chars()
        .any(|c| super::facts::PATTERN_CHARACTERS.contains(c))
}

/// The in-process reference on a scratch folder of its own, with the [`Model`] of what it holds.
#[derive(Debug)]
pub struct Oracle {
    reference: Reference,
    sandbox: Sandbox,
    model: Model,
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
            model: Model::default(),
        })
    }

    /// What the store holds now.
    pub fn model(&self) -> &Model {
        &self.model
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
            model: self.model.clone(),
        }
    }

    fn follow(&mut self, input: &Value) {
        let field = |name: &str| input.get(name).and_then(Value::as_str).map(normal);
        match input.get("command").and_then(Value::as_str) {
            Some("create" | "str_replace" | "insert") => {
                if let Some(path) = field("path") {
                    let content = self.read(&path);
                    self.model.add_parents(&path);
                    self.model.files.insert(path, content);
                }
            }
            Some("delete") => {
                if let Some(path) = field("path") {
                    self.model.remove(&path);
                }
            }
            Some("rename") => {
                if let (Some(old), Some(new)) = (field("old_path"), field("new_path")) {
                    self.model.rename(&old, &new);
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

    /// What is below a path is found by range; its look-alike siblings (`a-b`, `a0`, `a.md`)
    /// sort around that range and are left alone.
    #[test]
    fn removing_and_renaming_touch_only_what_is_below() {
        let mut model = Model::default();
        for file in [
            "/memories/a/x",
            "/memories/a/d/y",
            "/memories/a-b/y",
            "/memories/a0",
            "/memories/a.md",
        ] {
            model.add_parents(file);
            model.files.insert(file.to_string(), file.to_string());
        }
        let mut renamed = model.clone();
        renamed.rename("/memories/a", "/memories/n/a");
        assert_eq!(
            renamed.files.keys().map(String::as_str).collect::<Vec<_>>(),
            [
                "/memories/a-b/y",
                "/memories/a.md",
                "/memories/a0",
                "/memories/n/a/d/y",
                "/memories/n/a/x"
            ]
        );
        assert_eq!(
            renamed.dirs.iter().map(String::as_str).collect::<Vec<_>>(),
            [
                "/memories/a-b",
                "/memories/n",
                "/memories/n/a",
                "/memories/n/a/d"
            ]
        );
        model.remove("/memories/a");
        assert_eq!(
            model.files.keys().map(String::as_str).collect::<Vec<_>>(),
            ["/memories/a-b/y", "/memories/a.md", "/memories/a0"]
        );
        assert_eq!(
            model.dirs.iter().map(String::as_str).collect::<Vec<_>>(),
            ["/memories/a-b"]
        );
        assert!(!model.is_empty_dir("/memories/a-b"));
        model.remove("/memories/a-b/y");
        assert!(model.is_empty_dir("/memories/a-b"));
    }

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
