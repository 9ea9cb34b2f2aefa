//! The command line: arguments (clap), one module per family of commands, printing, and the
//! mapping of outcomes to exit codes. The library does the work and never prints; this is the
//! only place that talks to the terminal.
//!
//! Exit codes (documented in the README):
//!
//! - 0: success; the backend is conformant
//! - 1: not conformant (a MUST case failed, a SHOULD one with `--strict`, or the baseline does
//!   not match the run); for `call`, the tool result was an error
//! - 2: usage error: bad arguments (including a selection value that names nothing and an
//!   output path whose folder does not exist), invalid case/spec/baseline files, an empty
//!   selection
//! - 3: the backend broke: it crashed, hung or spoke garbage in at least one case
//! - 4: internal error of the harness (for example it could not write a file once the run was
//!   over)
//! - 141: stdout or stderr is a pipe whose reader went away (`memspec … | head -1`); the run
//!   stops quietly, with the code a shell gives a process that SIGPIPE ended

mod check;
mod fuzz;
mod progress;
mod reference;
mod replay;
mod reports;
mod target;

use std::fmt::{self, Display};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use memspec::builtin::Source;
use memspec::spec::Revision;

use check::{CasesAction, CheckArgs, MatrixArgs, SpecAction, cases, coverage, matrix, run_check};
use fuzz::{FuzzArgs, run_fuzz};
use reference::call;
use replay::{RecordArgs, ReplayArgs, record, replay};

pub(crate) use target::{BackendArgs, DEFAULT_TIMEOUT, Target};

pub(crate) const EXIT_NOT_CONFORMANT: u8 = memspec::exit::Exit::NotConformant.code();

pub(crate) const EXIT_USAGE: u8 = memspec::exit::Exit::Usage.code();

pub(crate) const EXIT_BACKEND_BROKE: u8 = memspec::exit::Exit::BackendBroke.code();

pub(crate) const EXIT_INTERNAL: u8 = memspec::exit::Exit::Internal.code();

/// 128 + SIGPIPE. Rust ignores SIGPIPE, so a write to a closed pipe is an error rather than
/// the signal a C tool would die of; exiting with the signal's code keeps `set -o pipefail`
/// scripts seeing what they see for any other tool.
pub(crate) const EXIT_CLOSED_PIPE: u8 = 141;

/// A number of seconds from the command line, checked and made a [`Duration`] once, by its
/// parser ([`positive_seconds`] or [`seconds`]), so that no command checks it again. It shows
/// as a number of seconds (`7.5`), in `--help`'s defaults and in rerun lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seconds(pub(crate) Duration);

impl Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Display::fmt(&self.0.as_secs_f64(), f)
    }
}

/// Parses `--timeout` and the like: a number of seconds above 0. A zero timeout would fail
/// every call at once and blame the backend for it, so it is a usage error, like a negative
/// one.
pub(crate) fn positive_seconds(text: &str) -> Result<Seconds, String> {
    parse_seconds(text, |seconds| seconds > 0.0, " above 0")
}

/// Parses `--startup-timeout`: a number of seconds, 0 or more.
pub(crate) fn seconds(text: &str) -> Result<Seconds, String> {
    parse_seconds(text, |_| true, ", 0 or more")
}

/// `text` as seconds if it is a number `accept` takes and a [`Duration`] can hold (not
/// negative, not NaN, not too large); else the error says it must be a number of seconds
/// followed by `rule`.
fn parse_seconds(text: &str, accept: fn(f64) -> bool, rule: &str) -> Result<Seconds, String> {
    let seconds = text.parse::<f64>().map_err(|e| e.to_string())?;
    match Duration::try_from_secs_f64(seconds) {
        Ok(duration) if accept(seconds) => Ok(Seconds(duration)),
        _ => Err(format!("must be a number of seconds{rule}")),
    }
}

/// Parses `-j`/`--jobs`: 1 or more (0 workers would run nothing).
pub(crate) fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be 1 or more".to_string()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// Conformance harness for backends of Claude's memory tool (memory_20250818).
#[derive(Debug, Parser)]
#[command(name = "memspec", version, about)]
pub(crate) struct Cli {
    /// Colour in the human report on a terminal: `auto` (a terminal, and NO_COLOR unset),
    /// `always` or `never`.
    #[arg(long, value_enum, global = true, default_value_t = ColorArg::Auto)]
    pub(crate) color: ColorArg,
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ColorArg {
    Auto,
    Always,
    Never,
}

/// Prints a human report to stdout, styled ([`memspec::report::colour::paint`]) where `--color`
/// and the terminal allow: anstream strips the styles on a pipe, a file, or with NO_COLOR.
pub(crate) fn print_human(text: &str) -> io::Result<()> {
    let mut out = anstream::stdout().lock();
    out.write_all(memspec::report::colour::paint(text).as_bytes())?;
    out.flush()
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run the conformance suite against a backend (default: the built-in reference).
    Check(CheckArgs),
    /// Serve the reference backend over protocol v1 (JSON Lines on stdin/stdout).
    Serve {
        /// Folder that /memories maps to (created if missing); with --user, the store of many
        /// users that holds that user's folder.
        memories: PathBuf,
        /// The revision of the page to follow (it decides whether long views are cut).
        #[arg(long, value_enum, default_value_t)]
        revision: Revision,
        /// Serve this user of a store shared by many users: their /memories is a folder of
        /// their own inside MEMORIES, named from the id so that no two ids share one (`u1` and
        /// `u10`, `Alice` and `alice`, `../bob`). Used as `--backend 'memspec serve {memories}
        /// --user {user}'`; an id over 80 bytes is refused (the empty id is served from `_`).
        #[arg(long)]
        user: Option<String>,
    },
    /// The crash lane's tracer (`check --crash` starts it): attaches to a backend's process
    /// group with ptrace, prints `ready`, and kills the group on entry to storage call N.
    #[command(hide = true)]
    TraceGroup {
        /// The process group.
        group: i32,
        /// Kill the group on entry to this storage call (1-based); without it, only count.
        #[arg(long)]
        kill_at: Option<usize>,
    },
    /// Run one tool input against the reference backend and print the result.
    Call {
        /// The tool input as JSON, e.g. '{"command":"view","path":"/memories"}'.
        input: String,
        /// Folder that /memories maps to (created if missing).
        #[arg(long, default_value = "memories")]
        memories: PathBuf,
        /// Print the result as a protocol reply object instead of its text.
        #[arg(long)]
        json: bool,
        /// The revision of the page to follow.
        #[arg(long, value_enum, default_value_t)]
        revision: Revision,
    },
    /// Work with the case files.
    Cases {
        #[command(subcommand)]
        action: CasesAction,
        #[command(flatten)]
        dirs: Dirs,
    },
    /// Run the suite against several backends and show the cases by backends, with the steps
    /// on which they disagree (the reference is always the first column).
    Matrix(MatrixArgs),
    /// Work with the spec's rules, and the JSON Schemas of memspec's files.
    Spec {
        #[command(subcommand)]
        action: SpecAction,
        #[command(flatten)]
        dirs: Dirs,
    },
    /// Replay a transcript's memory calls against a backend and the reference: a TUI, or a
    /// report with --report (exit 0 same or dialect, 1 MUST/SHOULD differences, 2 unreadable
    /// transcript, 3 backend broke).
    Replay(ReplayArgs),
    /// Record a backend's answers to a transcript's memory calls as a golden session (JSON
    /// Lines), for `memspec replay GOLDEN --check`.
    Record(RecordArgs),
    /// Random command sequences against a backend and the reference, compared on facts;
    /// a divergence is shrunk and kept as a case and a transcript (exit 0 nothing found,
    /// 1 a divergence, 3 the backend broke).
    Fuzz(FuzzArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct Dirs {
    /// Folder of case files [default: ./cases in a memspec clone, else the built-in suite]
    #[arg(long, global = true)]
    pub(crate) cases: Option<PathBuf>,
    /// Folder of spec files [default: ./spec in a memspec clone, else the built-in spec]
    #[arg(long, global = true)]
    pub(crate) spec: Option<PathBuf>,
    /// The revision of the memory tool's page to judge by: `beta-2025` (the beta text, create
    /// never overwrites) or `ga-2026` (the page users read today) [default: ga-2026]
    #[arg(long, global = true, value_enum)]
    pub(crate) revision: Option<Revision>,
}

impl Dirs {
    /// Where the spec and the suite come from: the folders given, else the defaults.
    fn resolve(&self) -> (Source, Source) {
        let (spec, cases) = memspec::builtin::default_sources();
        (
            self.spec.clone().map_or(spec, Source::Dir),
            self.cases.clone().map_or(cases, Source::Dir),
        )
    }

    /// The revision to judge by: the one given, else the page users read today.
    fn revision(&self) -> Revision {
        self.revision.unwrap_or_default()
    }
}

/// Prints `memspec: {message}` on stderr. A failed write is ignored: stderr is where it would
/// be reported, and a diagnostic nobody can read must not turn into a panic or another error.
/// The exit code of a run, from its one verdict ([`memspec::report::Report::verdict`]): every
/// command that grades (check, replay, fuzz) exits by it, as its first and last line read.
pub(crate) fn exit_of(verdict: memspec::report::Verdict) -> ExitCode {
    use memspec::report::Verdict;
    match verdict {
        Verdict::Conformant => ExitCode::SUCCESS,
        Verdict::NotConformant => ExitCode::from(EXIT_NOT_CONFORMANT),
        Verdict::BackendBroke => ExitCode::from(EXIT_BACKEND_BROKE),
    }
}

pub(crate) fn say(message: &dyn Display) {
    let _ = writeln!(io::stderr().lock(), "memspec: {message}");
}

/// Prints `text` as is on stderr, ignoring a failed write (see [`say`]).
pub(crate) fn say_raw(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// Prints `error` (see [`say`]) and exits with `code`.
pub(crate) fn fail(code: u8, error: &dyn Display) -> ExitCode {
    say(error);
    ExitCode::from(code)
}

/// Refuses, before any work, an output path whose folder does not exist: a mistyped `-o` is a
/// usage error (exit 2) found before a run of minutes, not a write failure after it (exit 4).
pub(crate) fn check_output_path(flag: &str, path: &Path) -> Result<(), ExitCode> {
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    if folder.is_dir() {
        Ok(())
    } else {
        Err(fail(
            EXIT_USAGE,
            &format!(
                "{flag} {}: the folder {} does not exist; create it or write elsewhere",
                path.display(),
                folder.display()
            ),
        ))
    }
}

/// Writes the command's output to stdout, flushed.
pub(crate) fn print_out(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// The exit for output that could not be written: quietly [`EXIT_CLOSED_PIPE`] when the reader
/// of a pipe went away (it has read all it wanted, as `head` does), else an internal error that
/// names `what` was being written.
pub(crate) fn write_failed(what: &dyn Display, error: &io::Error) -> ExitCode {
    if error.kind() == io::ErrorKind::BrokenPipe {
        ExitCode::from(EXIT_CLOSED_PIPE)
    } else {
        fail(EXIT_INTERNAL, &format!("cannot write {what}: {error}"))
    }
}

/// Parses the command line and runs the command; the exit code follows the table above.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    match cli.color {
        ColorArg::Auto => {}
        ColorArg::Always => anstream::ColorChoice::Always.write_global(),
        ColorArg::Never => anstream::ColorChoice::Never.write_global(),
    }
    match cli.command {
        Command::Check(args) => run_check(&args),
        Command::Serve {
            memories,
            revision,
            user,
        } => {
            let stdin = io::stdin().lock();
            let stdout = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
            let served = match &user {
                None => memspec::serve::serve_as(&memories, revision, stdin, stdout),
                Some(user) => memspec::serve::serve_user(&memories, user, revision, stdin, stdout),
            };
            match served {
                Ok(()) => ExitCode::SUCCESS,
                // The harness went away: nothing is left to answer.
                Err(memspec::serve::ServeError::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
                    ExitCode::from(EXIT_CLOSED_PIPE)
                }
                Err(e) => fail(EXIT_INTERNAL, &e),
            }
        }
        #[cfg(target_os = "linux")]
        Command::TraceGroup { group, kill_at } => {
            let mut stdout = io::stdout().lock();
            match memspec::exec::trace::serve_tracer(group, kill_at, &mut stdout) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(EXIT_INTERNAL, &e),
            }
        }
        #[cfg(not(target_os = "linux"))]
        Command::TraceGroup { .. } => fail(EXIT_INTERNAL, &"ptrace tracing needs Linux"),
        Command::Call {
            input,
            memories,
            json,
            revision,
        } => call(&input, &memories, json, revision),
        Command::Cases { action, dirs } => cases(&action, &dirs),
        Command::Matrix(args) => matrix(&args),
        Command::Spec {
            action: SpecAction::Coverage,
            dirs,
        } => coverage(&dirs),
        Command::Spec {
            action: SpecAction::Diff { from, to, json },
            dirs,
        } => check::spec_diff(&dirs, from, to, json),
        Command::Spec {
            action: SpecAction::Schemas { write },
            ..
        } => check::schemas(write.as_deref()),
        Command::Spec {
            action: SpecAction::Strings { json },
            ..
        } => check::strings(json),
        Command::Replay(args) => replay(&args),
        Command::Record(args) => record(&args),
        Command::Fuzz(args) => run_fuzz(&args),
    }
}
