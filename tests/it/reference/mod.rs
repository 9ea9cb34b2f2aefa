//! Test campaign of the reference backend (`memspec::reference`): exact strings, snapshots,
//! hostile paths and symlinks, fuzzing, concurrent writers and the command line.

mod attacks;
mod cli;
mod durability;
mod fuzz;
mod ga;
mod hardening;
mod rules;
mod snapshots;
mod strings;

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use memspec::protocol::ToolResult;
use memspec::reference::Reference;
use serde_json::{Value, json};
use tempfile::TempDir;

/// A fresh sandbox: `<base>/memories` is what `/memories` maps to; tests put canaries beside it.
pub struct Sandbox {
    _tmp: TempDir,
    /// The sandbox folder (canonical, so that symlinks to it are absolute and exact).
    pub base: PathBuf,
    /// `<base>/memories`.
    pub mem: PathBuf,
    /// The reference over `mem`.
    pub reference: Reference,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        Sandbox::as_of(memspec::spec::Revision::Ga2026)
    }

    /// A sandbox whose reference follows `revision` (the beta page never cuts long views).
    pub fn as_of(revision: memspec::spec::Revision) -> Sandbox {
        let tmp = tempfile::Builder::new()
            .prefix("memspec-it-")
            .tempdir()
            .expect("tempdir");
        let base = tmp.path().canonicalize().expect("canonical tempdir");
        let mem = base.join("memories");
        std::fs::create_dir(&mem).expect("memories folder");
        let reference = Reference::open_as(&mem, revision).expect("open reference");
        Sandbox {
            _tmp: tmp,
            base,
            mem,
            reference,
        }
    }

    /// Runs one raw tool input.
    pub fn call(&self, input: &Value) -> ToolResult {
        self.reference.call(input)
    }

    /// Runs `input`, asserts it succeeded, returns its text.
    #[track_caller]
    pub fn ok(&self, input: &Value) -> String {
        let result = self.call(input);
        assert!(
            !result.is_error,
            "expected success for {input}, got error: {:?}",
            result.text
        );
        result.text
    }

    /// Asserts that `input` succeeds with exactly `want`.
    #[track_caller]
    pub fn expect_ok(&self, input: &Value, want: &str) {
        let result = self.call(input);
        assert_eq!(result.text, want, "text of {input}");
        assert!(!result.is_error, "is_error must be false for {input}");
    }

    /// Asserts that `input` fails with exactly `want` and `is_error: true`.
    #[track_caller]
    pub fn expect_err(&self, input: &Value, want: &str) {
        let result = self.call(input);
        assert_eq!(result.text, want, "text of {input}");
        assert!(result.is_error, "is_error must be true for {input}");
    }

    /// Host path of `rel` below the memories folder.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.mem.join(rel)
    }

    /// Writes a file below the memories folder directly, making its parents.
    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("parents");
        }
        std::fs::write(path, bytes).expect("write fixture");
    }

    /// Makes a folder below the memories folder directly.
    pub fn mkdir(&self, rel: &str) {
        std::fs::create_dir_all(self.path(rel)).expect("mkdir fixture");
    }

    /// Makes a symlink `rel -> target` below the memories folder.
    pub fn symlink(&self, target: impl AsRef<Path>, rel: &str) {
        std::os::unix::fs::symlink(target, self.path(rel)).expect("symlink fixture");
    }

    /// Makes a FIFO at `rel` below the memories folder.
    pub fn fifo(&self, rel: &str) {
        rustix::fs::mknodat(
            rustix::fs::CWD,
            self.path(rel),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .expect("mkfifo");
    }

    /// Reads a file below the memories folder directly.
    pub fn read(&self, rel: &str) -> String {
        String::from_utf8(std::fs::read(self.path(rel)).expect("read")).expect("utf-8")
    }

    /// Whether `rel` exists below the memories folder (without following a final symlink).
    pub fn exists(&self, rel: &str) -> bool {
        std::fs::symlink_metadata(self.path(rel)).is_ok()
    }
}

pub fn view(path: &str) -> Value {
    json!({"command": "view", "path": path})
}

pub fn view_range(path: &str, start: impl Into<Value>, end: impl Into<Value>) -> Value {
    json!({"command": "view", "path": path, "view_range": [start.into(), end.into()]})
}

pub fn create(path: &str, file_text: &str) -> Value {
    json!({"command": "create", "path": path, "file_text": file_text})
}

pub fn str_replace(path: &str, old_str: &str, new_str: &str) -> Value {
    json!({"command": "str_replace", "path": path, "old_str": old_str, "new_str": new_str})
}

pub fn insert(path: &str, insert_line: impl Into<Value>, insert_text: &str) -> Value {
    json!({"command": "insert", "path": path, "insert_line": insert_line.into(), "insert_text": insert_text})
}

pub fn delete(path: &str) -> Value {
    json!({"command": "delete", "path": path})
}

pub fn rename(old_path: &str, new_path: &str) -> Value {
    json!({"command": "rename", "old_path": old_path, "new_path": new_path})
}

/// One entry of a tree snapshot: what it is and everything that would betray a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    File {
        bytes: Vec<u8>,
        mtime: (i64, i64),
        ino: u64,
    },
    Dir {
        mtime: (i64, i64),
    },
    Symlink {
        target: PathBuf,
    },
    Other {
        mode: u32,
    },
}

/// Recursive listing of `root` without following symlinks, skipping the subtree `skip`
/// (relative to `root`). Keys are paths relative to `root`; `""` is `root` itself.
pub fn tree(root: &Path, skip: Option<&str>) -> BTreeMap<String, Node> {
    let mut out = BTreeMap::new();
    fn walk(root: &Path, rel: &str, skip: Option<&str>, out: &mut BTreeMap<String, Node>) {
        if skip == Some(rel) {
            return;
        }
        let path = if rel.is_empty() {
            root.to_path_buf()
        } else {
            root.join(rel)
        };
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            return;
        };
        let mtime = (meta.mtime(), meta.mtime_nsec());
        let ft = meta.file_type();
        let node = if ft.is_symlink() {
            Node::Symlink {
                target: std::fs::read_link(&path).unwrap_or_default(),
            }
        } else if ft.is_file() {
            Node::File {
                bytes: std::fs::read(&path).unwrap_or_default(),
                mtime,
                ino: meta.ino(),
            }
        } else if ft.is_dir() {
            Node::Dir { mtime }
        } else {
            Node::Other { mode: meta.mode() }
        };
        let is_dir = matches!(node, Node::Dir { .. });
        out.insert(rel.to_string(), node);
        if is_dir {
            let mut names: Vec<String> = std::fs::read_dir(&path)
                .map(|rd| {
                    rd.filter_map(Result::ok)
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
            names.sort();
            for name in names {
                let child = if rel.is_empty() {
                    name
                } else {
                    format!("{rel}/{name}")
                };
                walk(root, &child, skip, out);
            }
        }
    }
    walk(root, "", skip, &mut out);
    out
}

/// Names of leftover temp files anywhere below `root`.
pub fn temp_files(root: &Path) -> Vec<String> {
    tree(root, None)
        .into_keys()
        .filter(|k| {
            k.rsplit('/')
                .next()
                .is_some_and(|n| n.starts_with(".memspec-tmp-"))
        })
        .collect()
}
