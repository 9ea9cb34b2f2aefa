//! `check`'s arguments: what they are, their defaults, and the arguments that select the same
//! backend and suite again for the rerun command.

use std::path::PathBuf;

use super::Format;
use crate::cli::{self, Dirs, Seconds, Target};
use memspec::check::runner;
use memspec::spec::Level;

/// `--startup-timeout` when not given.
const DEFAULT_STARTUP_TIMEOUT: Seconds = Seconds(memspec::backend::DEFAULT_STARTUP);

/// `--case-budget` when not given.
const DEFAULT_CASE_BUDGET: Seconds = Seconds(runner::DEFAULT_CASE_BUDGET);

/// The processes `check` races by default with the built-in suite: two, a few rounds of each
/// race (`--clients 1` runs none). Claude issues parallel tool calls and several agents share a
/// store, so a lost acknowledged write is looked for in every run. A run of one's own case
/// files (`--cases`, as fuzz's kept cases are run) is those cases, unless `--clients` is given.
const DEFAULT_CLIENTS: usize = 2;

/// How many processes race after the cases (1: none).
pub(crate) fn clients(args: &CheckArgs) -> usize {
    args.clients.unwrap_or(if args.dirs.cases.is_some() {
        1
    } else {
        DEFAULT_CLIENTS
    })
}

#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub(crate) target: cli::BackendArgs,
    /// Run only cases whose id matches (`*` wildcard); repeatable.
    #[arg(long = "case", value_name = "PATTERN")]
    pub(crate) cases_selected: Vec<String>,
    /// Run only cases of this area (e.g. create, paths); repeatable.
    #[arg(long)]
    pub(crate) area: Vec<String>,
    /// Run only cases checking this rule id; repeatable.
    #[arg(long)]
    pub(crate) rule: Vec<String>,
    /// Run only cases of this level; repeatable.
    #[arg(long, value_enum)]
    pub(crate) level: Vec<Level>,
    /// Run only attack cases.
    #[arg(long)]
    pub(crate) hostile: bool,
    /// Cases run in parallel [default: the number of CPUs for the built-in reference, twice that
    /// for a backend program].
    #[arg(short, long, value_parser = cli::at_least_one)]
    pub(crate) jobs: Option<usize>,
    /// After a run on several workers, do not run the cases that failed or broke again one at a
    /// time (the recheck that notes cases failing only in parallel, as when the workers'
    /// backend processes share one store, and takes the lone result of a case that was only
    /// late).
    #[arg(long)]
    pub(crate) no_recheck: bool,
    /// After the cases, race this many processes of the backend on one store (creates of one
    /// path, edits of one file, a rename against views, a delete against a create), reported
    /// as `race.*` results under the `concurrency.*` rules (a lost acknowledged write is MUST,
    /// the rest SHOULD). 1 runs no race. [default: 2 with the built-in suite; 1 with
    /// --cases, whose cases are the run] A backend whose processes do not share a store (a
    /// dict in each) has its races skipped, saying so.
    #[arg(long, value_parser = cli::at_least_one)]
    pub(crate) clients: Option<usize>,
    /// After the cases, run the crash lane (Linux, ptrace): each write (create, str_replace,
    /// insert, delete, rename; small and large files) is killed with SIGKILL on entry to each
    /// system call by which it changes storage, and right after its answer; a new process on the
    /// same store must serve the state before or after the write, whole. Reported as `crash.*`
    /// results under `durability.*`, with a verdict line of their own. `--area crash` runs the
    /// lane alone.
    #[arg(long)]
    pub(crate) crash: bool,
    /// Seconds added to the first call of each backend process, for it to start.
    #[arg(long, default_value_t = DEFAULT_STARTUP_TIMEOUT, value_parser = cli::seconds)]
    pub(crate) startup_timeout: Seconds,
    /// The most seconds one case may take: past them its remaining calls are not made, and the
    /// case says so (INFO, with the time).
    #[arg(long, default_value_t = DEFAULT_CASE_BUDGET, value_parser = cli::positive_seconds)]
    pub(crate) case_budget: Seconds,
    /// SHOULD misses (the spec's exact strings) fail instead of warning.
    #[arg(long)]
    pub(crate) strict: bool,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub(crate) format: Format,
    /// Write the report to this file instead of stdout (its summary still goes to stderr).
    #[arg(long, short)]
    pub(crate) output: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) reports: cli::reports::ReportFiles,
    /// Also append the Markdown report to this file, whatever --format is: one run gives the
    /// JUnit file and the job summary (`--append-markdown "$GITHUB_STEP_SUMMARY"`, appended to
    /// as GitHub expects, after the other steps' text).
    #[arg(long, value_name = "FILE")]
    pub(crate) append_markdown: Option<PathBuf>,
    /// Accepted deviations; any difference from the run fails it.
    #[arg(long)]
    pub(crate) baseline: Option<PathBuf>,
    /// Write a baseline of this run's deviations to this file.
    #[arg(long)]
    pub(crate) write_baseline: Option<PathBuf>,
    /// Show every case and every call.
    #[arg(short, long)]
    pub(crate) verbose: bool,
    /// List the INFO cases one by one (the human report folds them into one line per rule).
    #[arg(long)]
    pub(crate) show_info: bool,
    #[command(flatten)]
    pub(crate) dirs: Dirs,
}

/// The arguments that select the same backend (`target`'s) and suite again, for the rerun
/// command.
pub(super) fn repro_args(args: &CheckArgs, target: &Target) -> Vec<String> {
    let mut repro = target.repro.clone();
    for (flag, dir) in [("--cases", &args.dirs.cases), ("--spec", &args.dirs.spec)] {
        if let Some(dir) = dir {
            repro.extend([flag.to_string(), dir.display().to_string()]);
        }
    }
    if let Some(revision) = args.dirs.revision {
        repro.extend(["--revision".to_string(), revision.to_string()]);
    }
    if let Some(clients) = args.clients {
        repro.extend(["--clients".to_string(), clients.to_string()]);
    }
    if args.crash {
        repro.push("--crash".to_string());
    }
    // A slow backend's case reruns only with the time it was given: without them, the rerun
    // times out where the run did not (or the other way round).
    for (flag, value, default) in [
        ("--timeout", args.target.timeout, cli::DEFAULT_TIMEOUT),
        (
            "--startup-timeout",
            args.startup_timeout,
            DEFAULT_STARTUP_TIMEOUT,
        ),
        ("--case-budget", args.case_budget, DEFAULT_CASE_BUDGET),
    ] {
        if value != default {
            repro.extend([flag.to_string(), value.to_string()]);
        }
    }
    repro
}
