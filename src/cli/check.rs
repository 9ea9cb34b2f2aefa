//! `check`, `matrix`, `cases` and `spec`: the suite from the command line.

use std::io::{self, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

use super::{
    Dirs, EXIT_BACKEND_BROKE, EXIT_INTERNAL, EXIT_NOT_CONFORMANT, EXIT_USAGE, check_output_path,
    fail, print_out, say, say_raw, write_failed,
};
use memspec::backend::BackendSpec;
use memspec::backend::embedded::{self, AdapterDir, AdapterError, Language};
use memspec::check::runner::{self, RunOptions, Selection};
use memspec::check::{self, CheckConfig};
use memspec::exit::Classified;
use memspec::report::{self, Verdict, human};
use memspec::suite::case::Level;

/// `--python`/`--node`: a backend served by an adapter built into memspec, with the user's own
/// interpreter. Flattened into `check` (and, later, any command taking one `--backend`).
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
        repro
    }
}

/// The exit for a backend an embedded adapter cannot serve: a usage error, unless the
/// temporary folder could not be written.
fn adapter_failed(flag: &str, error: &AdapterError) -> ExitCode {
    let code = if error.is_usage() {
        EXIT_USAGE
    } else {
        EXIT_INTERNAL
    };
    fail(code, &format!("{flag}: {error}"))
}

#[derive(Debug, clap::Args)]
#[command(group(
    clap::ArgGroup::new("any-backend")
        .args(["backends", "python", "node"])
        .required(true)
        .multiple(true)
))]
pub(crate) struct MatrixArgs {
    /// A backend as `NAME=COMMAND` (protocol v1, `{memories}`/`{base}` substituted); repeatable.
    /// Columns follow the reference in this order: every --backend, every --python, every
    /// --node.
    #[arg(long = "backend", value_name = "NAME=COMMAND")]
    pub(crate) backends: Vec<String>,
    /// A Python backend served by the built-in adapter, as `NAME=FILE.py:Class`; repeatable.
    #[arg(long, value_name = "NAME=FILE.py:CLASS")]
    pub(crate) python: Vec<String>,
    /// A JavaScript/TypeScript backend served by the built-in adapter, as
    /// `NAME=FILE.mjs:export`; repeatable.
    #[arg(long, value_name = "NAME=FILE.mjs:EXPORT")]
    pub(crate) node: Vec<String>,
    /// Declare that every --backend, --python and --node keeps its memories elsewhere than the
    /// given folder: cases needing filesystem fixtures are skipped for them (the reference
    /// column still runs them).
    #[arg(long)]
    pub(crate) not_on_folder: bool,
    /// The Python that runs every --python [default: $VIRTUAL_ENV/bin/python in an active venv,
    /// else python3 on PATH].
    #[arg(long, value_name = "PATH")]
    pub(crate) python_bin: Option<String>,
    /// The Node that runs every --node [default: node on PATH].
    #[arg(long, value_name = "PATH")]
    pub(crate) node_bin: Option<String>,
    /// Run only cases whose id matches (`*` wildcard); repeatable.
    #[arg(long = "case", value_name = "PATTERN")]
    pub(crate) cases_selected: Vec<String>,
    /// Run only cases of this area; repeatable.
    #[arg(long)]
    pub(crate) area: Vec<String>,
    /// Cases run in parallel [default: the number of CPUs for the built-in reference, twice that
    /// for a backend program].
    #[arg(short, long, value_parser = super::at_least_one)]
    pub(crate) jobs: Option<usize>,
    /// Per-call timeout in seconds.
    #[arg(long, default_value_t = super::DEFAULT_TIMEOUT, value_parser = super::positive_seconds)]
    pub(crate) timeout: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = MatrixFormat::Markdown)]
    pub(crate) format: MatrixFormat,
    /// Write to this file instead of stdout.
    #[arg(long, short)]
    pub(crate) output: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) dirs: Dirs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum MatrixFormat {
    Markdown,
    Json,
    /// One self-contained page: the cases as a table of outcomes by backend.
    Html,
}

#[derive(Debug, Subcommand)]
pub(crate) enum CasesAction {
    /// Validate every case file: schema, unique ids, known rule ids, valid matchers.
    Lint,
    /// List the cases (id, level, area, title).
    List,
}

#[derive(Debug, Subcommand)]
pub(crate) enum SpecAction {
    /// Print which cases check each rule; exits 1 if a rule has none.
    Coverage,
    /// Show what a revision of the page changed: rules added, removed and changed, with the
    /// quotes and the cases each change affects (exit 0 nothing changed, 1 something did).
    Diff {
        /// The older revision.
        #[arg(value_enum)]
        from: memspec::spec::Revision,
        /// The newer revision.
        #[arg(value_enum)]
        to: memspec::spec::Revision,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The JSON Schemas of the case files, the spec files and the JSON report, generated from
    /// memspec's types: list them, or write them with --write (`--write spec` in a clone).
    Schemas {
        /// Write every schema into this folder (which must exist), replacing files of the same
        /// names.
        #[arg(long, value_name = "DIR")]
        write: Option<PathBuf>,
    },
}

pub(crate) use memspec::report::Format;

/// `--startup-timeout` when not given, in seconds.
const DEFAULT_STARTUP_TIMEOUT: f64 = 30.0;

/// How often a run that is not on a terminal says how far it got.
const PROGRESS_EVERY: Duration = Duration::from_secs(30);

/// `--case-budget` when not given, in seconds.
const DEFAULT_CASE_BUDGET: f64 = runner::DEFAULT_CASE_BUDGET.as_secs_f64();

#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub(crate) target: super::BackendArgs,
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
    #[arg(short, long, value_parser = super::at_least_one)]
    pub(crate) jobs: Option<usize>,
    /// After a run on several workers, do not run the cases that failed or broke again one at a
    /// time (the recheck that notes cases failing only in parallel, as when the workers'
    /// backend processes share one store).
    #[arg(long)]
    pub(crate) no_recheck: bool,
    /// After the cases, race this many processes of the backend on one store (creates of one
    /// path, edits of one file, a rename against views, a delete against a create), reported
    /// as `race.*` results under the `concurrency.*` rules (SHOULD).
    #[arg(long, default_value_t = 1, value_parser = super::at_least_one)]
    pub(crate) clients: usize,
    /// Seconds added to the first call of each backend process, for it to start.
    #[arg(long, default_value_t = DEFAULT_STARTUP_TIMEOUT)]
    pub(crate) startup_timeout: f64,
    /// The most seconds one case may take: past them its remaining calls are not made, and the
    /// case says so (INFO, with the time).
    #[arg(long, default_value_t = DEFAULT_CASE_BUDGET, value_parser = super::positive_seconds)]
    pub(crate) case_budget: f64,
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
    pub(crate) reports: super::reports::ReportFiles,
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

/// From now on, SIGINT and SIGTERM remove the run's temporary folders (sandboxes, the scratch
/// folders of `replay` and `record`, embedded adapters) and end the process with the shell's
/// code for the signal (130, 143): drops never run when a signal ends a process, and each
/// worker's sandbox would stay in `TMPDIR`. For every command that runs backends, except the
/// replay TUI, which ends on its own signals with the terminal restored.
pub(crate) fn clean_up_on_signals() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        // Without the handler the run still works; only a signal would leave folders behind.
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            // Held until the exit: the run, whose backends are about to die, cannot print a
            // report of their deaths, nor end first with its own exit code.
            let _out = io::stdout().lock();
            let _err = io::stderr().lock();
            // The backends first: one still running could write into a sandbox being removed,
            // and, in a session of its own, it would outlive memspec.
            memspec::exec::children::kill_child_groups();
            for left in memspec::exec::sandbox::remove_live() {
                say(&format!("could not remove {left}"));
            }
            // Again: a worker may have started a process for its next case before the
            // removal, after which no sandbox is made.
            memspec::exec::children::kill_child_groups();
            std::process::exit(128 + signal);
        }
    });
}

pub(crate) fn run_check(args: &CheckArgs) -> ExitCode {
    clean_up_on_signals();
    let (spec_source, cases_source) = args.dirs.resolve();
    let revision = args.dirs.revision();
    // `_adapters` holds the embedded adapter's folder until the run is over.
    let (backend, _adapters) = match args.target.adapters.resolve(
        args.target.backend.as_deref(),
        args.target.not_on_folder,
        revision,
    ) {
        Ok(resolved) => resolved,
        Err(code) => return code,
    };
    let Ok(timeout) = Duration::try_from_secs_f64(args.target.timeout) else {
        return fail(
            EXIT_USAGE,
            &"--timeout must be a positive number of seconds",
        );
    };
    let Ok(startup) = Duration::try_from_secs_f64(args.startup_timeout) else {
        return fail(
            EXIT_USAGE,
            &"--startup-timeout must be a number of seconds, 0 or more",
        );
    };
    for (flag, path) in [
        ("--output", &args.output),
        ("--write-baseline", &args.write_baseline),
        ("--append-markdown", &args.append_markdown),
    ] {
        if let Some(path) = path
            && let Err(code) = check_output_path(flag, path)
        {
            return code;
        }
    }
    if let Err(code) = args.reports.check_paths() {
        return code;
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| runner::default_jobs(&backend))
        .max(1);
    let config = CheckConfig {
        backend,
        selection: Selection {
            ids: args.cases_selected.clone(),
            areas: args.area.clone(),
            rules: args.rule.clone(),
            levels: args.level.clone(),
            hostile_only: args.hostile,
        },
        options: RunOptions {
            jobs,
            timeout,
            startup,
            strict: args.strict,
            // Checked positive by the argument's parser.
            case_budget: Duration::try_from_secs_f64(args.case_budget)
                .unwrap_or(runner::DEFAULT_CASE_BUDGET),
        },
        baseline: args.baseline.clone(),
        recheck: !args.no_recheck,
        clients: args.clients,
    };
    let loaded = match check::load(&spec_source, &cases_source, revision) {
        Ok(loaded) => loaded,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    let bar = ProgressBar::hidden();
    // The first start is the run's; a second one is the recheck of its failures, alone.
    let starts = std::cell::Cell::new(0usize);
    let on_start = |n: usize| {
        let recheck = starts.replace(starts.get() + 1) > 0;
        if recheck {
            bar.suspend(|| {
                say(&format!(
                    "rechecking the cases that failed or broke ({n}), one at a time (-j 1; --no-recheck skips this)"
                ));
            });
        }
        if io::stderr().is_terminal() {
            // Style first: showing the bar draws it at once.
            bar.set_style(
                ProgressStyle::with_template("{prefix}{bar:40} {pos}/{len} cases {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_prefix(if recheck { "alone: " } else { "" });
            bar.set_length(n as u64);
            bar.set_position(0);
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
    };
    // Off a terminal (a CI log) the bar is hidden: a plain line every PROGRESS_EVERY instead,
    // so that a slow backend's run says it is alive in every format.
    let plain =
        (!io::stderr().is_terminal()).then(|| std::sync::Mutex::new((Instant::now(), 0usize)));
    let started = Instant::now();
    let total = config.selection.apply(&loaded.suite).len();
    let progress = |result: &memspec::judge::grade::CaseResult| {
        bar.inc(1);
        bar.set_message(result.id.clone());
        if let Some(plain) = &plain
            && let Ok(mut state) = plain.lock()
        {
            state.1 += 1;
            if state.0.elapsed() >= PROGRESS_EVERY {
                state.0 = Instant::now();
                say(&format!(
                    "{} of {total} cases done in {} s (last: {})",
                    state.1,
                    started.elapsed().as_secs(),
                    result.id
                ));
            }
        }
    };
    let report = match check::check(&config, &loaded, repro_args(args), &on_start, &progress) {
        Ok(report) => report,
        Err(e) => {
            bar.finish_and_clear();
            return fail(e.exit().code(), &e);
        }
    };
    bar.finish_and_clear();
    let render = report::Render {
        verbose: args.verbose,
        show_info: args.show_info,
        full_texts: args.reports.full_texts,
    };
    let text = report::render(&report, &loaded.spec, args.format, render);
    if let Err(code) = args.reports.write(&report, &loaded.spec, render) {
        return code;
    }
    let written = match &args.output {
        Some(path) => std::fs::write(path, &text).map(|()| {
            // Keep the summary on the terminal when the report goes to a file; the cases are
            // in the file, and repeating them would bury the verdict in a CI log.
            say_raw(&human::render_summary(&report));
        }),
        None if args.format == Format::Human => super::print_human(&text),
        None => print_out(&text),
    };
    if let Err(e) = written {
        let what = match &args.output {
            Some(path) => format!("the report to {}", path.display()),
            None => "the report".to_string(),
        };
        return write_failed(&what, &e);
    }
    if let Some(path) = &args.append_markdown
        && let Err(e) = append(
            path,
            &report::render(&report, &loaded.spec, Format::Markdown, render),
        )
    {
        return write_failed(&format!("the Markdown report to {}", path.display()), &e);
    }
    if let Some(path) = &args.write_baseline {
        let baseline = memspec::check::baseline::Baseline::from_results(
            &report.backend,
            report.revision,
            &report.results,
        );
        if let Err(e) = baseline.write(path) {
            return fail(EXIT_INTERNAL, &e);
        }
        say(&format!(
            "wrote {} to {}",
            report::plural(
                baseline.accepted.len(),
                "accepted deviation",
                "accepted deviations"
            ),
            path.display()
        ));
    }
    match report.verdict() {
        Verdict::Conformant => ExitCode::SUCCESS,
        Verdict::NotConformant => ExitCode::from(EXIT_NOT_CONFORMANT),
        Verdict::BackendBroke => ExitCode::from(EXIT_BACKEND_BROKE),
    }
}

pub(crate) fn matrix(args: &MatrixArgs) -> ExitCode {
    clean_up_on_signals();
    let (spec_source, cases_source) = args.dirs.resolve();
    let revision = args.dirs.revision();
    let loaded = match check::load(&spec_source, &cases_source, revision) {
        Ok(loaded) => loaded,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    let Ok(timeout) = Duration::try_from_secs_f64(args.timeout) else {
        return fail(
            EXIT_USAGE,
            &"--timeout must be a positive number of seconds",
        );
    };
    if let Some(path) = &args.output
        && let Err(code) = check_output_path("--output", path)
    {
        return code;
    }
    let mut named = vec![("reference".to_string(), BackendSpec::Reference(revision))];
    let name_of = |flag: &str, arg: &str, shape: &str| {
        arg.split_once('=')
            .filter(|(n, _)| !n.is_empty() && !n.contains(' '))
            .map(|(name, rest)| (name.to_string(), rest.to_string()))
            .ok_or_else(|| fail(EXIT_USAGE, &format!("{flag} {arg:?}: write NAME={shape}")))
    };
    for arg in &args.backends {
        match name_of("--backend", arg, "COMMAND") {
            Ok((name, command)) => named.push((
                name,
                BackendSpec::command(&command, args.not_on_folder.then_some(false)),
            )),
            Err(code) => return code,
        }
    }
    // One folder for every embedded adapter of the run, each written once; it lives until the
    // matrix is done.
    let mut adapters: Option<AdapterDir> = None;
    for (flag, language, shape, list, bin) in [
        (
            "--python",
            Language::Python,
            "FILE.py:CLASS",
            &args.python,
            &args.python_bin,
        ),
        (
            "--node",
            Language::Node,
            "FILE.mjs:EXPORT",
            &args.node,
            &args.node_bin,
        ),
    ] {
        let interpreter = bin
            .clone()
            .unwrap_or_else(|| embedded::default_interpreter(language));
        for arg in list {
            let (name, target) = match name_of(flag, arg, shape) {
                Ok(named) => named,
                Err(code) => return code,
            };
            let dir = match &mut adapters {
                Some(dir) => dir,
                None => match AdapterDir::new() {
                    Ok(dir) => adapters.insert(dir),
                    Err(e) => return adapter_failed(flag, &e),
                },
            };
            match dir.backend(language, &target, &interpreter) {
                Ok(spec) => named.push((name, spec.on_folder(args.not_on_folder.then_some(false)))),
                Err(e) => return adapter_failed(&format!("{flag} {arg}"), &e),
            }
        }
    }
    let mut columns = Vec::new();
    for (name, backend) in named {
        say(&format!("running the suite against {name}"));
        let jobs = args
            .jobs
            .unwrap_or_else(|| runner::default_jobs(&backend))
            .max(1);
        let config = CheckConfig {
            backend,
            selection: Selection {
                ids: args.cases_selected.clone(),
                areas: args.area.clone(),
                ..Selection::default()
            },
            options: RunOptions {
                jobs,
                timeout,
                startup: RunOptions::default().startup,
                strict: false,
                case_budget: runner::DEFAULT_CASE_BUDGET,
            },
            baseline: None,
            // The matrix shows results only: a recheck's note would have nowhere to go.
            recheck: false,
            clients: 1,
        };
        match check::check(&config, &loaded, Vec::new(), &|_| {}, &|_| {}) {
            Ok(report) => columns.push(report::matrix::Column {
                name,
                results: report.results,
            }),
            Err(e) => return fail(e.exit().code(), &format!("{name}: {e}")),
        }
    }
    let matrix = report::matrix::Matrix::build(&columns, revision);
    let text = match args.format {
        MatrixFormat::Markdown => matrix.markdown(),
        MatrixFormat::Json => matrix.json(),
        MatrixFormat::Html => matrix.html(),
    };
    let written = match &args.output {
        Some(path) => std::fs::write(path, text),
        None => print_out(&text),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let what = match &args.output {
                Some(path) => format!("the matrix to {}", path.display()),
                None => "the matrix".to_string(),
            };
            write_failed(&what, &e)
        }
    }
}

/// Appends `text` to the file at `path`, creating it if needed.
fn append(path: &std::path::Path, text: &str) -> io::Result<()> {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(text.as_bytes())
}

/// The arguments that select the same backend and suite again, for the rerun command.
pub(crate) fn repro_args(args: &CheckArgs) -> Vec<String> {
    let mut repro = Vec::new();
    if let Some(backend) = &args.target.backend {
        repro.extend(["--backend".to_string(), backend.clone()]);
    }
    repro.extend(args.target.adapters.repro());
    if args.target.not_on_folder {
        repro.push("--not-on-folder".to_string());
    }
    for (flag, dir) in [("--cases", &args.dirs.cases), ("--spec", &args.dirs.spec)] {
        if let Some(dir) = dir {
            repro.extend([flag.to_string(), dir.display().to_string()]);
        }
    }
    if let Some(revision) = args.dirs.revision {
        repro.extend(["--revision".to_string(), revision.to_string()]);
    }
    if args.clients > 1 {
        repro.extend(["--clients".to_string(), args.clients.to_string()]);
    }
    // A slow backend's case reruns only with the time it was given: without them, the rerun
    // times out where the run did not (or the other way round).
    for (flag, value, default) in [
        ("--timeout", args.target.timeout, super::DEFAULT_TIMEOUT),
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

pub(crate) fn cases(action: &CasesAction, dirs: &Dirs) -> ExitCode {
    let (spec_source, cases_source) = dirs.resolve();
    // Lint judges the files under every revision (a case may name a rule only one has); a list
    // shows the suite of one.
    let revisions = match (action, dirs.revision) {
        (CasesAction::Lint, None) => memspec::spec::Revision::ALL.to_vec(),
        _ => vec![dirs.revision()],
    };
    let checked = revisions.len();
    // A problem found under every revision is said once; one found under some is labelled.
    let mut found: Vec<(String, Vec<memspec::spec::Revision>)> = Vec::new();
    let mut suite = None;
    for revision in revisions {
        let spec = match memspec::spec::Spec::load_from(&spec_source, revision) {
            Ok(spec) => spec,
            Err(e) => return fail(EXIT_USAGE, &e),
        };
        let (loaded, problems) = match memspec::suite::load::lint_from(&cases_source, &spec) {
            Ok(linted) => linted,
            Err(e) => return fail(EXIT_USAGE, &e),
        };
        for problem in problems {
            let line = problem.to_string();
            match found.iter_mut().find(|(l, _)| *l == line) {
                Some((_, under)) => under.push(revision),
                None => found.push((line, vec![revision])),
            }
        }
        if revision == dirs.revision() || suite.is_none() {
            suite = Some(loaded);
        }
    }
    let problems: Vec<String> = found
        .into_iter()
        .map(|(line, under)| {
            if under.len() == checked {
                line
            } else {
                let under: Vec<&str> = under.iter().map(|r| r.id()).collect();
                format!("{line} (under {})", under.join(", "))
            }
        })
        .collect();
    let suite = suite.unwrap_or_default();
    let mut text = String::new();
    let code = match action {
        CasesAction::Lint => {
            for problem in &problems {
                text.push_str(&format!("{problem}\n"));
            }
            let hostile = suite.cases.iter().filter(|c| c.case.hostile).count();
            text.push_str(&format!(
                "{} ({hostile} hostile), {}\n",
                report::plural(suite.cases.len(), "case", "cases"),
                report::plural(problems.len(), "problem", "problems")
            ));
            if problems.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(EXIT_USAGE)
            }
        }
        CasesAction::List => {
            for c in &suite.cases {
                text.push_str(&format!(
                    "{:<50} {:<6} {:<12} {}\n",
                    c.case.id,
                    c.level.as_str(),
                    c.area,
                    c.case.title
                ));
            }
            ExitCode::SUCCESS
        }
    };
    match print_out(&text) {
        Ok(()) => code,
        Err(e) => write_failed(&"the list", &e),
    }
}

pub(crate) fn spec_diff(
    dirs: &Dirs,
    from: memspec::spec::Revision,
    to: memspec::spec::Revision,
    json: bool,
) -> ExitCode {
    let (spec_source, cases_source) = dirs.resolve();
    let mut loaded = Vec::new();
    for revision in [from, to] {
        match check::load(&spec_source, &cases_source, revision) {
            Ok(l) => loaded.push(l),
            Err(e) => return fail(EXIT_USAGE, &e),
        }
    }
    let (old, new) = (&loaded[0], &loaded[1]);
    let diff = memspec::suite::spec_diff::diff(&old.spec, &new.spec, (&old.suite, &new.suite));
    let text = if json {
        let mut text = serde_json::to_string_pretty(&diff)
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        text.push('\n');
        text
    } else {
        diff.render()
    };
    if let Err(e) = print_out(&text) {
        return write_failed(&"the diff", &e);
    }
    if diff.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_NOT_CONFORMANT)
    }
}

/// `spec schemas`: the names of the schemas, or the schemas written into `write`.
pub(crate) fn schemas(write: Option<&std::path::Path>) -> ExitCode {
    let files = memspec::schemas::all();
    let Some(dir) = write else {
        let names: String = files.iter().map(|f| format!("{}\n", f.name)).collect();
        return match print_out(&names) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => write_failed(&"the list", &e),
        };
    };
    if !dir.is_dir() {
        return fail(
            EXIT_USAGE,
            &format!(
                "--write {}: not a folder; create it or write elsewhere",
                dir.display()
            ),
        );
    }
    for file in &files {
        let path = dir.join(file.name);
        if let Err(e) = std::fs::write(&path, &file.text) {
            return write_failed(&path.display(), &e);
        }
    }
    say(&format!(
        "wrote {} schemas to {}",
        files.len(),
        dir.display()
    ));
    ExitCode::SUCCESS
}

pub(crate) fn coverage(dirs: &Dirs) -> ExitCode {
    let (spec_source, cases_source) = dirs.resolve();
    let loaded = match check::load(&spec_source, &cases_source, dirs.revision()) {
        Ok(loaded) => loaded,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    let rows = memspec::suite::coverage::coverage(&loaded.spec, &loaded.suite);
    if let Err(e) = print_out(&memspec::suite::coverage::render(&rows)) {
        return write_failed(&"the coverage", &e);
    }
    if rows.iter().any(|r| r.cases.is_empty()) {
        ExitCode::from(EXIT_NOT_CONFORMANT)
    } else {
        ExitCode::SUCCESS
    }
}
