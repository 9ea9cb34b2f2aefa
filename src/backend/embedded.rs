//! The Python and Node adapters compiled into the binary (`memspec check --python FILE.py:Class`,
//! `--node FILE.mjs:export`), so that a backend author needs neither a clone of memspec nor a
//! command line naming the adapter's path.
//!
//! An adapter is written once per run to a private temporary folder (mode 0700, the file 0600:
//! no other user can swap the code that runs with the backend's rights), run with the author's
//! own interpreter, and removed when the [`AdapterDir`] is dropped. The backend this yields is an
//! ordinary command backend, the same command line the README documents for a clone:
//! `python3 …/memspec_adapter.py my_backend.py:MyMemoryTool --base {base}`.
//!
//! ```no_run
//! # fn main() -> Result<(), memspec::backend::embedded::AdapterError> {
//! use memspec::backend::embedded::{self, Language};
//! let interpreter = embedded::default_interpreter(Language::Python);
//! let (backend, _adapters) = embedded::python_backend("my_backend.py:MyMemoryTool", &interpreter)?;
//! // … run `backend`; the adapter's folder goes away with `_adapters`.
//! # Ok(()) }
//! ```

use std::ffi::OsStr;
use std::fs::{self, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::BackendSpec;
use crate::builtin;

/// The language of a backend served by an embedded adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// `adapters/python/memspec_adapter.py`: an `anthropic` memory tool (class, instance or
    /// factory).
    Python,
    /// `adapters/node/memspec-adapter.mjs`: a `betaMemoryTool`, a handlers object or a factory.
    Node,
}

impl Language {
    /// The adapter's file name (Node needs the `.mjs` to load it as a module).
    fn file_name(self) -> &'static str {
        match self {
            Language::Python => "memspec_adapter.py",
            Language::Node => "memspec-adapter.mjs",
        }
    }

    fn source(self) -> &'static str {
        match self {
            Language::Python => builtin::PYTHON_ADAPTER,
            Language::Node => builtin::NODE_ADAPTER,
        }
    }

    /// The adapters' built-in targets, which name no file.
    fn builtins(self) -> &'static [&'static str] {
        match self {
            Language::Python => &["anthropic-local-fs", "anthropic-local-fs-async"],
            Language::Node => &["anthropic-local-fs"],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Language::Python => "Python",
            Language::Node => "Node",
        }
    }

    fn shape(self) -> &'static str {
        match self {
            Language::Python => "FILE.py:Class, FILE.py, module:Attr or anthropic-local-fs",
            Language::Node => "FILE.mjs:export, FILE.mjs or anthropic-local-fs",
        }
    }
}

/// Why an embedded-adapter backend cannot be set up. All but [`AdapterError::Write`] are the
/// user's to fix (a usage error); `Write` is the harness's.
#[derive(Debug, thiserror::Error)]
pub enum AdapterError {
    /// The target does not have the shape the adapter reads.
    #[error("{target:?} is not a {} backend: {reason} (expected {})", .language.name(), .language.shape())]
    Target {
        /// Which adapter.
        language: Language,
        /// The target as given.
        target: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The target names a file that does not exist.
    #[error("{target:?}: no such file {}", .path.display())]
    MissingFile {
        /// The target as given.
        target: String,
        /// The file it names, absolute.
        path: PathBuf,
    },
    /// The interpreter is neither an executable file nor found on `PATH`.
    #[error("{}", interpreter_text(.language, .interpreter))]
    Interpreter {
        /// Which adapter it was to run.
        language: Language,
        /// The interpreter as given (or defaulted).
        interpreter: String,
    },
    /// The temporary folder or the adapter file could not be written.
    #[error("cannot write the embedded {} adapter to {}: {source}", .language.name(), .dir.display())]
    Write {
        /// Which adapter.
        language: Language,
        /// The folder it was to go to.
        dir: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
}

fn interpreter_text(language: &Language, interpreter: &str) -> String {
    let (flag, hint) = match language {
        Language::Python => (
            "--python-bin",
            "install Python 3, activate your backend's venv, or give --python-bin PATH",
        ),
        Language::Node => ("--node-bin", "install Node 20, or give --node-bin PATH"),
    };
    let what = if interpreter.contains('/') {
        "is not an executable file"
    } else {
        "is not on PATH"
    };
    format!(
        "the {} interpreter {interpreter:?} ({flag}) {what}: {hint}",
        language.name()
    )
}

impl AdapterError {
    /// Whether the user can fix it with other arguments (exit 2), rather than the machine
    /// failing to write a temporary file (exit 4).
    pub fn is_usage(&self) -> bool {
        !matches!(self, AdapterError::Write { .. })
    }
}

/// The interpreter used when none is given: for Python the active venv's
/// (`$VIRTUAL_ENV/bin/python`, where the backend's own packages are), else `python3`; for Node
/// `node`. Both bare names are looked up on `PATH` when the backend starts.
pub fn default_interpreter(language: Language) -> String {
    default_interpreter_in(language, std::env::var_os("VIRTUAL_ENV").as_deref())
}

/// [`default_interpreter`] with the value of `VIRTUAL_ENV` given (for tests).
pub fn default_interpreter_in(language: Language, virtual_env: Option<&OsStr>) -> String {
    match language {
        Language::Python => virtual_env
            .filter(|venv| !venv.is_empty())
            .map(|venv| Path::new(venv).join("bin/python"))
            .filter(|python| python.is_file())
            .map_or_else(
                || "python3".to_string(),
                |python| python.to_string_lossy().into_owned(),
            ),
        Language::Node => "node".to_string(),
    }
}

/// A private temporary folder holding the embedded adapters a run uses, each written once;
/// removed (with them) on drop. Keep it alive as long as the backends built from it run.
#[derive(Debug)]
pub struct AdapterDir {
    /// The folder, removed when dropped or by a signal's cleanup.
    dir: super::cleanup::LiveFolder,
    written: Vec<Language>,
}

impl AdapterDir {
    /// Creates the folder (mode 0700), empty: adapters are written by [`AdapterDir::backend`].
    pub fn new() -> Result<AdapterDir, AdapterError> {
        let dir = tempfile::Builder::new()
            .prefix("memspec-adapter-")
            .permissions(Permissions::from_mode(0o700))
            .tempdir()
            .map_err(|source| AdapterError::Write {
                language: Language::Python,
                dir: std::env::temp_dir(),
                source,
            })?;
        Ok(AdapterDir {
            dir: super::cleanup::LiveFolder::register(dir.keep()),
            written: Vec::new(),
        })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The command backend serving `target` (see [`python_backend`], [`node_backend`]) through
    /// this folder's copy of the adapter, written now if this run has not written it yet. The
    /// target and the interpreter are checked first, so nothing is written for a bad one.
    pub fn backend(
        &mut self,
        language: Language,
        target: &str,
        interpreter: &str,
    ) -> Result<BackendSpec, AdapterError> {
        let target_arg = check_target(language, target)?;
        check_interpreter(language, interpreter)?;
        let adapter = self.write(language)?;
        let template = format!(
            "{} {} {} --base {{base}}",
            shell_word(interpreter),
            shell_word(&adapter.to_string_lossy()),
            shell_word(&target_arg),
        );
        // What reports and baselines call it: the documented command line, without the
        // temporary path that changes every run.
        let label = format!(
            "{interpreter} {} {target} --base {{base}}",
            language.file_name()
        );
        Ok(BackendSpec::command(&template, None).with_label(label))
    }

    fn write(&mut self, language: Language) -> Result<PathBuf, AdapterError> {
        let path = self.dir.path().join(language.file_name());
        if self.written.contains(&language) {
            return Ok(path);
        }
        let error = |source| AdapterError::Write {
            language,
            dir: self.dir.path().to_path_buf(),
            source,
        };
        // create_new: a file already there was not put by this run.
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(error)?;
        file.write_all(language.source().as_bytes())
            .map_err(error)?;
        self.written.push(language);
        Ok(path)
    }
}

/// A Python backend (`my_backend.py:MyMemoryTool`, `my_backend.py`, `package.module:Attr`,
/// `anthropic-local-fs`) served by the embedded `memspec_adapter.py` run with `interpreter`, and
/// the folder holding the adapter, to keep until the run is over.
pub fn python_backend(
    target: &str,
    interpreter: &str,
) -> Result<(BackendSpec, AdapterDir), AdapterError> {
    single(Language::Python, target, interpreter)
}

/// A Node backend (`my-backend.mjs:makeTool`, `my-backend.mjs`, `anthropic-local-fs`) served by
/// the embedded `memspec-adapter.mjs` run with `interpreter`, and the folder holding the adapter,
/// to keep until the run is over.
pub fn node_backend(
    target: &str,
    interpreter: &str,
) -> Result<(BackendSpec, AdapterDir), AdapterError> {
    single(Language::Node, target, interpreter)
}

fn single(
    language: Language,
    target: &str,
    interpreter: &str,
) -> Result<(BackendSpec, AdapterDir), AdapterError> {
    // Checked before the folder exists, so a usage error leaves nothing behind.
    check_target(language, target)?;
    check_interpreter(language, interpreter)?;
    let mut dir = AdapterDir::new()?;
    let backend = dir.backend(language, target, interpreter)?;
    Ok((backend, dir))
}

/// Checks `target` as the adapter will read it, and returns the argument to give it: the same,
/// with a relative file made absolute (the backend could run elsewhere one day; the adapter
/// resolves a relative one against its working folder, which is memspec's today).
fn check_target(language: Language, target: &str) -> Result<String, AdapterError> {
    let bad = |reason| AdapterError::Target {
        language,
        target: target.to_string(),
        reason,
    };
    if target.trim().is_empty() {
        return Err(bad("it is empty"));
    }
    if language.builtins().contains(&target) {
        return Ok(target.to_string());
    }
    if target.starts_with('-') {
        return Err(bad("it starts with '-'"));
    }
    let (file, attr) = split_target(language, target);
    if file.is_empty() {
        return Err(bad("nothing before the ':'"));
    }
    if let Some(attr) = attr {
        // Python's adapter follows dotted attributes (`module:Class.factory`); Node's takes one
        // export name.
        let valid = match language {
            Language::Python => attr.split('.').all(is_identifier),
            Language::Node => is_identifier(attr),
        };
        if !valid {
            return Err(bad(match language {
                Language::Python => "after the ':' comes a class or attribute name",
                Language::Node => "after the ':' comes an export name",
            }));
        }
    }
    let names_file = match language {
        // The adapter's own test (`_looks_like_file`): anything else is a module name.
        Language::Python => file.ends_with(".py") || file.contains('/'),
        Language::Node => true,
    };
    if !names_file {
        if file.split('.').all(is_identifier) {
            return Ok(target.to_string());
        }
        return Err(bad("neither a .py file nor a module name"));
    }
    let path = std::path::absolute(file).unwrap_or_else(|_| PathBuf::from(file));
    if !path.is_file() {
        return Err(AdapterError::MissingFile {
            target: target.to_string(),
            path,
        });
    }
    let mut arg = path.to_string_lossy().into_owned();
    if let Some(attr) = attr {
        arg.push(':');
        arg.push_str(attr);
    }
    Ok(arg)
}

/// Splits `FILE:ATTR` as the adapters do: at the last ':', unless (Node) what follows holds a
/// '/', so a ':' inside a folder name stays part of the path.
fn split_target(language: Language, target: &str) -> (&str, Option<&str>) {
    match target.rsplit_once(':') {
        Some((_, attr)) if language == Language::Node && attr.contains('/') => (target, None),
        Some((file, attr)) => (file, Some(attr)),
        None => (target, None),
    }
}

fn is_identifier(word: &str) -> bool {
    let mut chars = word.chars();
    chars
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// Refuses, before the run, an interpreter that cannot start: otherwise every case would fail
/// with the shell's "not found" until the early stop.
fn check_interpreter(language: Language, interpreter: &str) -> Result<(), AdapterError> {
    let found = if interpreter.contains('/') {
        is_executable(Path::new(interpreter))
    } else {
        !interpreter.is_empty()
            && std::env::var_os("PATH").is_some_and(|path| {
                std::env::split_paths(&path).any(|dir| is_executable(&dir.join(interpreter)))
            })
    };
    if found {
        Ok(())
    } else {
        Err(AdapterError::Interpreter {
            language,
            interpreter: interpreter.to_string(),
        })
    }
}

fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Quotes a word for `sh` when it needs it, so the command line stays readable for the common
/// case.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:=@,%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_of_the_wrong_shape_are_refused() {
        for (language, target) in [
            (Language::Python, ""),
            (Language::Python, ":Class"),
            (Language::Python, "backend.py:"),
            (Language::Python, "backend.py:My-Class"),
            (Language::Python, "-backend.py"),
            (Language::Python, "my backend"),
            (Language::Node, "backend.mjs:a.b"),
            (Language::Node, "backend.mjs:"),
        ] {
            assert!(
                matches!(
                    check_target(language, target),
                    Err(AdapterError::Target { .. })
                ),
                "{language:?} {target:?}"
            );
        }
    }

    #[test]
    fn a_missing_file_is_named() {
        let error = check_target(Language::Python, "no/such/backend.py:Tool");
        assert!(matches!(error, Err(AdapterError::MissingFile { .. })));
        let error = check_target(Language::Node, "no-such.mjs:makeTool");
        assert!(matches!(error, Err(AdapterError::MissingFile { .. })));
    }

    #[test]
    fn builtins_and_modules_need_no_file() {
        for target in [
            "anthropic-local-fs",
            "anthropic-local-fs-async",
            "pkg.mod:Tool",
        ] {
            assert_eq!(
                check_target(Language::Python, target).ok().as_deref(),
                Some(target)
            );
        }
    }

    #[test]
    fn the_venv_python_is_the_default_when_it_exists() {
        let venv = tempfile::tempdir().ok();
        let Some(venv) = venv else { return };
        assert_eq!(
            default_interpreter_in(Language::Python, Some(venv.path().as_os_str())),
            "python3"
        );
        let bin = venv.path().join("bin");
        assert!(fs::create_dir(&bin).is_ok() && fs::write(bin.join("python"), "").is_ok());
        assert_eq!(
            default_interpreter_in(Language::Python, Some(venv.path().as_os_str())),
            bin.join("python").to_string_lossy()
        );
        assert_eq!(default_interpreter_in(Language::Python, None), "python3");
    }

    #[test]
    fn the_adapter_is_private_written_once_and_removed() {
        let Ok(mut dir) = AdapterDir::new() else {
            panic!("cannot make the adapter folder")
        };
        let folder = dir.path().to_path_buf();
        let mode = |path: &Path| fs::metadata(path).map(|m| m.permissions().mode() & 0o777);
        assert_eq!(mode(&folder).ok(), Some(0o700));
        for _ in 0..2 {
            let spec = dir.backend(Language::Python, "anthropic-local-fs", "sh");
            assert!(spec.is_ok(), "{spec:?}");
        }
        let file = folder.join("memspec_adapter.py");
        assert_eq!(mode(&file).ok(), Some(0o600));
        assert_eq!(
            fs::read_to_string(&file).ok().as_deref(),
            Some(builtin::PYTHON_ADAPTER)
        );
        drop(dir);
        assert!(!folder.exists());
    }

    #[test]
    fn words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("/usr/bin/python3"), "/usr/bin/python3");
        assert_eq!(shell_word("a b"), "'a b'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
    }
}
