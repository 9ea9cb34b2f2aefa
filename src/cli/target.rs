//! The backend a command runs against: the arguments that name it ([`BackendArgs`]), shared by
//! `check`, `replay`, `record` and `fuzz`, resolved once into the [`Target`] the command runs,
//! with the flags that select it again for a rerun line.

use std::process::ExitCode;
use std::time::Duration;

use super::check::AdapterArgs;
use super::{Seconds, positive_seconds};
use memspec::backend::embedded::AdapterDir;
use memspec::backend::{BackendSpec, DEFAULT_STARTUP, Timeouts};
use memspec::spec::Revision;

/// `--timeout` when not given.
pub(crate) const DEFAULT_TIMEOUT: Seconds = Seconds(Duration::from_secs(10));

/// The backend under test and how long a call may take: one group for `check`, `replay`,
/// `record` and `fuzz`.
#[derive(Debug, clap::Args)]
pub(crate) struct BackendArgs {
    /// Backend command speaking protocol v1; `{memories}` and `{base}` become the sandbox paths.
    /// Without it (and without --python or --node), the built-in reference runs in process.
    #[arg(long)]
    pub(crate) backend: Option<String>,
    #[command(flatten)]
    pub(crate) adapters: AdapterArgs,
    /// Declare that the backend does not store memories in the given folder (a database, a
    /// key-value store): its state is then read back through the tool only, and cases that
    /// need files made on disk are skipped.
    #[arg(long)]
    pub(crate) not_on_folder: bool,
    /// Per-call timeout in seconds.
    #[arg(long, default_value_t = DEFAULT_TIMEOUT, value_parser = positive_seconds)]
    pub(crate) timeout: Seconds,
}

/// The backend a command runs, resolved from its [`BackendArgs`].
#[derive(Debug)]
pub(crate) struct Target {
    /// The backend to run.
    pub(crate) backend: BackendSpec,
    /// `--timeout` per call; a new process's first call also gets [`DEFAULT_STARTUP`] (`check`
    /// sets its `--startup-timeout` here).
    pub(crate) timeouts: Timeouts,
    /// The flags that select this backend again (`--backend`, `--python`, `--not-on-folder`…),
    /// unquoted: a command adds the rest of its rerun line (`check` its timeouts among them),
    /// and the renderer quotes the words.
    pub(crate) repro: Vec<String>,
    /// The folder of an embedded adapter (`--python`/`--node`), kept until the command is
    /// over.
    _adapters: Option<AdapterDir>,
}

impl BackendArgs {
    /// The backend to run: `--python`/`--node` through an embedded adapter, else the
    /// `--backend` command, else the reference following `revision`. A bad target or
    /// interpreter is a usage error, reported here, before any run.
    pub(crate) fn resolve(&self, revision: Revision) -> Result<Target, ExitCode> {
        let (backend, adapters) =
            self.adapters
                .resolve(self.backend.as_deref(), self.not_on_folder, revision)?;
        let mut repro = Vec::new();
        if let Some(backend) = &self.backend {
            repro.extend(["--backend".to_string(), backend.clone()]);
        }
        repro.extend(self.adapters.repro());
        if self.not_on_folder {
            repro.push("--not-on-folder".to_string());
        }
        Ok(Target {
            backend,
            timeouts: Timeouts {
                call: self.timeout.0,
                startup: DEFAULT_STARTUP,
            },
            repro,
            _adapters: adapters,
        })
    }
}
