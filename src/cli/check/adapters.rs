//! `--python`/`--node`: the arguments that name a backend served by an adapter built into
//! memspec, how they resolve to the backend to run, and the exit when the adapter cannot serve
//! it.

use std::process::ExitCode;

use crate::cli::{EXIT_INTERNAL, EXIT_USAGE, fail};
use memspec::backend::BackendSpec;
use memspec::backend::embedded::{self, AdapterDir, AdapterError, Language};

/// `--python`/`--node`: a backend served by an adapter built into memspec, with the user's own
/// interpreter. Part of [`BackendArgs`](crate::cli::BackendArgs), which resolves it.
#[derive(Debug, clap::Args)]
pub(crate) struct AdapterArgs {
    /// A Python backend, `FILE.py:Attr` (or `FILE.py`, `module:Attr`, `anthropic-local-fs`): a
    /// memory-tool class or instance, a factory, or a plain handler function (`handle(input) ->
    /// str`, async too, or `handle(tool_use) -> tool_result`; `MEMSPEC_SHAPE=input|tool_use`
    /// forces the shape), served by the adapter built into memspec: the same as `--backend
    /// 'PYTHON adapters/python/memspec_adapter.py TARGET --base {base}'` in a clone.
    #[arg(long, value_name = "FILE.py:CLASS", conflicts_with_all = ["backend", "node"])]
    pub(crate) python: Option<String>,
    /// A JavaScript/TypeScript backend, `FILE.mjs:export` (a `betaMemoryTool`, a handlers object,
    /// a factory, or a plain handler function taking the input or the `tool_use` block; or
    /// `anthropic-local-fs`), served by the adapter built into memspec.
    #[arg(long, value_name = "FILE.mjs:EXPORT", conflicts_with = "backend")]
    pub(crate) node: Option<String>,
    /// The Python that runs `--python` [default: $VIRTUAL_ENV/bin/python in an active venv,
    /// else python3 on PATH].
    #[arg(long, value_name = "PATH", requires = "python")]
    pub(crate) python_bin: Option<String>,
    /// The Node that runs `--node` [default: node on PATH].
    #[arg(long, value_name = "PATH", requires = "node")]
    pub(crate) node_bin: Option<String>,
    /// The `--python`/`--node` backend serves many users on one store: `check` starts it once
    /// per user (`--user ID` to the adapter, which passes it to the class or factory as its
    /// `user` argument), so that the users lane runs; other cases and commands start it as the
    /// one user `memspec`, and judge it off the folder. A `--backend` command names `{user}`
    /// instead.
    #[arg(long)]
    pub(crate) per_user: bool,
}

impl AdapterArgs {
    /// The backend to run: `--python`/`--node` through an embedded adapter (with the folder
    /// holding it, to keep until the run is over), else the `--backend` command, else the
    /// reference. `not_on_folder` is `--not-on-folder`. A bad target or interpreter is a usage
    /// error, reported here, before any run.
    pub(crate) fn resolve(
        &self,
        backend: Option<&str>,
        not_on_folder: bool,
        revision: memspec::spec::Revision,
    ) -> Result<(BackendSpec, Option<AdapterDir>), ExitCode> {
        let on_folder = not_on_folder.then_some(false);
        let (flag, language, target, bin) = match (&self.python, &self.node) {
            (Some(target), _) => ("--python", Language::Python, target, &self.python_bin),
            (None, Some(target)) => ("--node", Language::Node, target, &self.node_bin),
            (None, None) if self.per_user => {
                return Err(fail(
                    EXIT_USAGE,
                    &"--per-user is for --python and --node; a --backend command takes a user by naming {user} (the reference always does)",
                ));
            }
            (None, None) => {
                let spec = backend.map_or(BackendSpec::Reference(revision), |template| {
                    BackendSpec::command(template, on_folder)
                });
                return Ok((spec, None));
            }
        };
        let interpreter = bin
            .clone()
            .unwrap_or_else(|| embedded::default_interpreter(language));
        let built = match language {
            Language::Python => embedded::python_backend(target, &interpreter),
            Language::Node => embedded::node_backend(target, &interpreter),
        };
        match built {
            Ok((spec, dir)) if self.per_user => {
                Ok((spec.on_folder(on_folder).per_user(), Some(dir)))
            }
            Ok((spec, dir)) => Ok((spec.on_folder(on_folder), Some(dir))),
            Err(e) => Err(adapter_failed(flag, &e)),
        }
    }

    /// The flags that select the same backend again, for the rerun command.
    pub(crate) fn repro(&self) -> Vec<String> {
        let mut repro = Vec::new();
        for (flag, value) in [
            ("--python", &self.python),
            ("--python-bin", &self.python_bin),
            ("--node", &self.node),
            ("--node-bin", &self.node_bin),
        ] {
            if let Some(value) = value {
                repro.extend([flag.to_string(), value.clone()]);
            }
        }
        if self.per_user {
            repro.push("--per-user".to_string());
        }
        repro
    }
}

/// The exit for a backend an embedded adapter cannot serve: a usage error, unless the
/// temporary folder could not be written.
pub(super) fn adapter_failed(flag: &str, error: &AdapterError) -> ExitCode {
    let code = if error.is_usage() {
        EXIT_USAGE
    } else {
        EXIT_INTERNAL
    };
    fail(code, &format!("{flag}: {error}"))
}
