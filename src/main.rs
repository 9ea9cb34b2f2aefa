//! The `memspec` command: parses arguments, calls the library, prints, maps the outcome to an
//! exit code. Exit codes (documented in the README):
//!
//! - 0: success; the backend is conformant
//! - 1: not conformant (a MUST case failed, a SHOULD one with `--strict`, or the baseline does
//!   not match the run); for `call`, the tool result was an error
//! - 2: usage error: bad arguments, invalid case/spec/baseline files, an empty selection
//! - 3: the backend broke: it crashed, hung or spoke garbage in at least one case
//! - 4: internal error of the harness (for example it could not write a file)

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

use memspec::backend::BackendSpec;
use memspec::check::{self, CheckConfig, CheckError};
use memspec::report::{self, Verdict, human};
use memspec::suite::case::Level;
use memspec::suite::runner::{RunOptions, Selection};

const EXIT_NOT_CONFORMANT: u8 = 1;
const EXIT_USAGE: u8 = 2;
const EXIT_BACKEND_BROKE: u8 = 3;
const EXIT_INTERNAL: u8 = 4;

/// Conformance harness for backends of Claude's memory tool (memory_20250818).
#[derive(Debug, Parser)]
#[command(name = "memspec", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the conformance suite against a backend (default: the built-in reference).
    Check(CheckArgs),
    /// Serve the reference backend over protocol v1 (JSON Lines on stdin/stdout).
    Serve {
        /// Folder that /memories maps to (created if missing).
        memories: PathBuf,
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
    /// Work with the spec's rules.
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
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ReplayFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum TranscriptFormatArg {
    Request,
    Messages,
    Jsonl,
    Exchanges,
    Session,
    Inputs,
}

impl TranscriptFormatArg {
    fn format(self) -> memspec::transcript::Format {
        use memspec::transcript::Format;
        match self {
            TranscriptFormatArg::Request => Format::Request,
            TranscriptFormatArg::Messages => Format::Messages,
            TranscriptFormatArg::Jsonl => Format::Jsonl,
            TranscriptFormatArg::Exchanges => Format::Exchanges,
            TranscriptFormatArg::Session => Format::Session,
            TranscriptFormatArg::Inputs => Format::Inputs,
        }
    }
}

#[derive(Debug, clap::Args)]
struct ReplayArgs {
    /// The transcript: a Messages API request body, a messages array, JSON Lines of messages,
    /// a request/response log, a memspec session (golden file) or JSON Lines of tool inputs.
    transcript: PathBuf,
    /// Backend command speaking protocol v1; `{memories}` and `{base}` become the sandbox
    /// paths. Without it, the built-in reference runs in process.
    #[arg(long)]
    backend: Option<String>,
    /// Folder whose contents both memory folders start with (copied, never changed).
    #[arg(long)]
    seed: Option<PathBuf>,
    /// Print the verdicts and diffs instead of opening the TUI (for CI).
    #[arg(long)]
    report: bool,
    /// Report format, with --report or --check.
    #[arg(long, value_enum, default_value_t = ReplayFormat::Text)]
    format: ReplayFormat,
    /// Read the transcript as this format instead of detecting it.
    #[arg(long, value_enum)]
    transcript_format: Option<TranscriptFormatArg>,
    /// Snapshot regression: exit 1 on any change from the recorded results (implies --report).
    #[arg(long)]
    check: bool,
    /// Do not capture the mouse in the TUI (keeps the terminal's own text selection).
    #[arg(long)]
    no_mouse: bool,
    /// Per-call timeout in seconds.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// In the report, show every step.
    #[arg(short, long)]
    verbose: bool,
}

#[derive(Debug, clap::Args)]
struct RecordArgs {
    /// The calls to record: any transcript `memspec replay` reads, or JSON Lines of tool inputs.
    inputs: PathBuf,
    /// The golden session file to write (atomically).
    #[arg(long, short)]
    output: PathBuf,
    /// Backend command speaking protocol v1 [default: the built-in reference].
    #[arg(long)]
    backend: Option<String>,
    /// Folder whose contents the memory folder starts with (copied).
    #[arg(long)]
    seed: Option<PathBuf>,
    /// Read the inputs as this format instead of detecting it.
    #[arg(long, value_enum)]
    transcript_format: Option<TranscriptFormatArg>,
    /// Per-call timeout in seconds.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
}

#[derive(Debug, clap::Args)]
struct MatrixArgs {
    /// A backend as `NAME=COMMAND` (protocol v1, `{memories}`/`{base}` substituted); repeatable.
    #[arg(long = "backend", value_name = "NAME=COMMAND", required = true)]
    backends: Vec<String>,
    /// Run only cases whose id matches (`*` wildcard); repeatable.
    #[arg(long = "case", value_name = "PATTERN")]
    cases_selected: Vec<String>,
    /// Run only cases of this area; repeatable.
    #[arg(long)]
    area: Vec<String>,
    /// Cases run in parallel [default: twice the number of CPUs].
    #[arg(short, long)]
    jobs: Option<usize>,
    /// Per-call timeout in seconds.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = MatrixFormat::Markdown)]
    format: MatrixFormat,
    /// Write to this file instead of stdout.
    #[arg(long, short)]
    output: Option<PathBuf>,
    #[command(flatten)]
    dirs: Dirs,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum MatrixFormat {
    Markdown,
    Json,
}

#[derive(Debug, Subcommand)]
enum CasesAction {
    /// Validate every case file: schema, unique ids, known rule ids, valid matchers.
    Lint,
    /// List the cases (id, level, area, title).
    List,
}

#[derive(Debug, Subcommand)]
enum SpecAction {
    /// Print which cases check each rule; exits 1 if a rule has none.
    Coverage,
}

#[derive(Debug, clap::Args)]
struct Dirs {
    /// Folder of case files [default: ./cases, else the source tree's]
    #[arg(long, global = true)]
    cases: Option<PathBuf>,
    /// Folder of spec files [default: ./spec, else the source tree's]
    #[arg(long, global = true)]
    spec: Option<PathBuf>,
}

impl Dirs {
    fn resolve(&self) -> (PathBuf, PathBuf) {
        let root = memspec::spec::default_root();
        (
            self.spec.clone().unwrap_or_else(|| root.join("spec")),
            self.cases.clone().unwrap_or_else(|| root.join("cases")),
        )
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Json,
    Junit,
    Tap,
    Markdown,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LevelArg {
    Must,
    Should,
    Info,
}

#[derive(Debug, clap::Args)]
struct CheckArgs {
    /// Backend command speaking protocol v1; `{memories}` and `{base}` become the sandbox paths.
    /// Without it, the built-in reference runs in process.
    #[arg(long)]
    backend: Option<String>,
    /// Declare that the backend does not store memories in the given folder: cases needing
    /// filesystem fixtures are skipped and effects are not checked.
    #[arg(long)]
    not_on_folder: bool,
    /// Run only cases whose id matches (`*` wildcard); repeatable.
    #[arg(long = "case", value_name = "PATTERN")]
    cases_selected: Vec<String>,
    /// Run only cases of this area (e.g. create, paths); repeatable.
    #[arg(long)]
    area: Vec<String>,
    /// Run only cases checking this rule id; repeatable.
    #[arg(long)]
    rule: Vec<String>,
    /// Run only cases of this level; repeatable.
    #[arg(long, value_enum)]
    level: Vec<LevelArg>,
    /// Run only attack cases.
    #[arg(long)]
    hostile: bool,
    /// Cases run in parallel [default: twice the number of CPUs].
    #[arg(short, long)]
    jobs: Option<usize>,
    /// Per-call timeout in seconds.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// Seconds added to the first call of each backend process, for it to start.
    #[arg(long, default_value_t = 30.0)]
    startup_timeout: f64,
    /// SHOULD misses (the spec's exact strings) fail instead of warning.
    #[arg(long)]
    strict: bool,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Write the report to this file instead of stdout (the human summary still goes to stderr).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Accepted deviations; any difference from the run fails it.
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Write a baseline of this run's deviations to this file.
    #[arg(long)]
    write_baseline: Option<PathBuf>,
    /// Show every case and every call.
    #[arg(short, long)]
    verbose: bool,
    #[command(flatten)]
    dirs: Dirs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check(args) => run_check(&args),
        Command::Serve { memories } => {
            let stdin = io::stdin().lock();
            let stdout = io::BufWriter::new(io::stdout().lock());
            match memspec::serve::serve(&memories, stdin, stdout) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => fail(EXIT_INTERNAL, &e),
            }
        }
        Command::Call {
            input,
            memories,
            json,
        } => call(&input, &memories, json),
        Command::Cases { action, dirs } => cases(&action, &dirs),
        Command::Matrix(args) => matrix(&args),
        Command::Spec {
            action: SpecAction::Coverage,
            dirs,
        } => coverage(&dirs),
        Command::Replay(args) => replay(&args),
        Command::Record(args) => record(&args),
    }
}

fn replay(args: &ReplayArgs) -> ExitCode {
    use memspec::replay::{self, Conclusion, ReplayOptions, report};
    let interactive = !args.report && !args.check;
    if interactive && !io::stdout().is_terminal() {
        return fail(EXIT_USAGE, &memspec::tui::TuiError::NotATerminal);
    }
    let Ok(timeout) = Duration::try_from_secs_f64(args.timeout) else {
        return fail(
            EXIT_USAGE,
            &"--timeout must be a positive number of seconds",
        );
    };
    let format = args.transcript_format.map(TranscriptFormatArg::format);
    let transcript = match memspec::transcript::read(&args.transcript, format) {
        Ok(transcript) => transcript,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    // Rule sentences are a help, not a need: a replay runs without spec/.
    let spec = memspec::spec::Spec::load(&memspec::spec::default_root().join("spec")).ok();
    let options = ReplayOptions {
        backend: args
            .backend
            .as_deref()
            .map_or(BackendSpec::Reference, |b| BackendSpec::command(b, None)),
        seed: args.seed.clone(),
        timeout,
        check: args.check,
    };
    let bar = progress_bar();
    let replayed = replay::replay(transcript, &options, spec.as_ref(), &mut |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let replayed = match replayed {
        Ok(replayed) => replayed,
        Err(e) if e.is_usage() => return fail(EXIT_USAGE, &e),
        Err(e) => return fail(EXIT_INTERNAL, &e),
    };
    if interactive {
        let options = memspec::tui::Options {
            mouse: !args.no_mouse,
        };
        return match memspec::tui::run(replayed, spec, options) {
            Ok(ended) => {
                if let Some(summary) = ended.summary() {
                    eprintln!("memspec: {summary}");
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail(EXIT_INTERNAL, &e),
        };
    }
    let text = match args.format {
        ReplayFormat::Text => report::text(
            &replayed,
            spec.as_ref(),
            report::Detail {
                verbose: args.verbose,
            },
        ),
        ReplayFormat::Json => report::json(&replayed),
    };
    if let Err(e) = io::stdout().lock().write_all(text.as_bytes()) {
        return fail(EXIT_INTERNAL, &format!("cannot write the report: {e}"));
    }
    match replayed.conclusion() {
        Conclusion::Same => ExitCode::SUCCESS,
        Conclusion::Differs => ExitCode::from(EXIT_NOT_CONFORMANT),
        Conclusion::BackendBroke => ExitCode::from(EXIT_BACKEND_BROKE),
    }
}

fn record(args: &RecordArgs) -> ExitCode {
    use memspec::replay::record::{self, RecordError};
    let Ok(timeout) = Duration::try_from_secs_f64(args.timeout) else {
        return fail(
            EXIT_USAGE,
            &"--timeout must be a positive number of seconds",
        );
    };
    let format = args.transcript_format.map(TranscriptFormatArg::format);
    let transcript = match memspec::transcript::read(&args.inputs, format) {
        Ok(transcript) => transcript,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    let backend = args
        .backend
        .as_deref()
        .map_or(BackendSpec::Reference, |b| BackendSpec::command(b, None));
    let session = match record::record(&transcript, &backend, args.seed.as_deref(), timeout) {
        Ok(session) => session,
        Err(e @ RecordError::Broke { .. }) => return fail(EXIT_BACKEND_BROKE, &e),
        Err(e @ RecordError::Seed { .. }) => return fail(EXIT_USAGE, &e),
        Err(e @ RecordError::Scratch(_)) => return fail(EXIT_INTERNAL, &e),
    };
    if let Err(e) = memspec::transcript::session::write(&args.output, &session) {
        return fail(EXIT_INTERNAL, &e);
    }
    eprintln!(
        "memspec: recorded {} call(s) from {} to {}",
        session.steps.len(),
        session.header.backend,
        args.output.display()
    );
    ExitCode::SUCCESS
}

/// A progress bar on stderr when it is a terminal, hidden otherwise.
fn progress_bar() -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    ProgressBar::new(0).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} calls")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    )
}

fn run_check(args: &CheckArgs) -> ExitCode {
    let (spec_dir, cases_dir) = args.dirs.resolve();
    let backend = match &args.backend {
        None => BackendSpec::Reference,
        Some(template) => BackendSpec::command(template, args.not_on_folder.then_some(false)),
    };
    let Ok(timeout) = Duration::try_from_secs_f64(args.timeout) else {
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
    let defaults = RunOptions::default();
    let config = CheckConfig {
        spec_dir,
        cases_dir,
        backend,
        selection: Selection {
            ids: args.cases_selected.clone(),
            areas: args.area.clone(),
            rules: args.rule.clone(),
            levels: args
                .level
                .iter()
                .map(|l| match l {
                    LevelArg::Must => Level::Must,
                    LevelArg::Should => Level::Should,
                    LevelArg::Info => Level::Info,
                })
                .collect(),
            hostile_only: args.hostile,
        },
        options: RunOptions {
            jobs: args.jobs.unwrap_or(defaults.jobs).max(1),
            timeout,
            startup,
            strict: args.strict,
        },
        baseline: args.baseline.clone(),
    };
    let loaded = match check::load(&config.spec_dir, &config.cases_dir) {
        Ok(loaded) => loaded,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    let bar = ProgressBar::hidden();
    let on_start = |n: usize| {
        if io::stderr().is_terminal() {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            bar.set_length(n as u64);
            bar.set_style(
                ProgressStyle::with_template("{bar:40} {pos}/{len} cases {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
        }
    };
    let progress = |result: &memspec::suite::grade::CaseResult| {
        bar.inc(1);
        bar.set_message(result.id.clone());
    };
    let report = match check::check(&config, &loaded, repro_args(args), &on_start, &progress) {
        Ok(report) => report,
        Err(
            e @ (CheckError::EmptySelection { .. }
            | CheckError::Baseline(_)
            | CheckError::Spec(_)
            | CheckError::Suite(_)),
        ) => {
            bar.finish_and_clear();
            return fail(EXIT_USAGE, &e);
        }
    };
    bar.finish_and_clear();
    let text = match args.format {
        Format::Human => human::render(
            &report,
            &loaded.spec,
            human::Detail {
                verbose: args.verbose,
            },
        ),
        Format::Json => report::formats::json(&report),
        Format::Junit => report::formats::junit(&report),
        Format::Tap => report::formats::tap(&report),
        Format::Markdown => report::formats::markdown(&report),
    };
    let written = match &args.output {
        Some(path) => std::fs::write(path, &text).map(|()| {
            // Keep the human summary on the terminal when the report goes to a file.
            let summary = human::render(&report, &loaded.spec, human::Detail::default());
            eprint!("{summary}");
        }),
        None => io::stdout().lock().write_all(text.as_bytes()),
    };
    if let Err(e) = written {
        return fail(EXIT_INTERNAL, &format!("cannot write the report: {e}"));
    }
    if let Some(path) = &args.write_baseline {
        let baseline =
            memspec::suite::baseline::Baseline::from_results(&report.backend, &report.results);
        if let Err(e) = baseline.write(path) {
            return fail(EXIT_INTERNAL, &e);
        }
        eprintln!(
            "memspec: wrote {} accepted deviation(s) to {}",
            baseline.accepted.len(),
            path.display()
        );
    }
    match report.verdict() {
        Verdict::Conformant => ExitCode::SUCCESS,
        Verdict::NotConformant => ExitCode::from(EXIT_NOT_CONFORMANT),
        Verdict::BackendBroke => ExitCode::from(EXIT_BACKEND_BROKE),
    }
}

fn matrix(args: &MatrixArgs) -> ExitCode {
    let (spec_dir, cases_dir) = args.dirs.resolve();
    let loaded = match check::load(&spec_dir, &cases_dir) {
        Ok(loaded) => loaded,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    let Ok(timeout) = Duration::try_from_secs_f64(args.timeout) else {
        return fail(
            EXIT_USAGE,
            &"--timeout must be a positive number of seconds",
        );
    };
    let mut named = vec![("reference".to_string(), BackendSpec::Reference)];
    for arg in &args.backends {
        let Some((name, command)) = arg
            .split_once('=')
            .filter(|(n, _)| !n.is_empty() && !n.contains(' '))
        else {
            return fail(
                EXIT_USAGE,
                &format!("--backend {arg:?}: write NAME=COMMAND"),
            );
        };
        named.push((name.to_string(), BackendSpec::command(command, None)));
    }
    let mut columns = Vec::new();
    for (name, backend) in named {
        eprintln!("memspec: running the suite against {name}");
        let config = CheckConfig {
            spec_dir: spec_dir.clone(),
            cases_dir: cases_dir.clone(),
            backend,
            selection: Selection {
                ids: args.cases_selected.clone(),
                areas: args.area.clone(),
                ..Selection::default()
            },
            options: RunOptions {
                jobs: args.jobs.unwrap_or(RunOptions::default().jobs).max(1),
                timeout,
                startup: RunOptions::default().startup,
                strict: false,
            },
            baseline: None,
        };
        match check::check(&config, &loaded, Vec::new(), &|_| {}, &|_| {}) {
            Ok(report) => columns.push(report::matrix::Column {
                name,
                results: report.results,
            }),
            Err(e) => return fail(EXIT_USAGE, &e),
        }
    }
    let matrix = report::matrix::Matrix::build(&columns);
    let text = match args.format {
        MatrixFormat::Markdown => matrix.markdown(),
        MatrixFormat::Json => matrix.json(),
    };
    let written = match &args.output {
        Some(path) => std::fs::write(path, text),
        None => io::stdout().lock().write_all(text.as_bytes()),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(EXIT_INTERNAL, &format!("cannot write the matrix: {e}")),
    }
}

/// The arguments that select the same backend and suite again, for the rerun command.
fn repro_args(args: &CheckArgs) -> Vec<String> {
    let mut repro = Vec::new();
    if let Some(backend) = &args.backend {
        repro.extend(["--backend".to_string(), backend.clone()]);
    }
    if args.not_on_folder {
        repro.push("--not-on-folder".to_string());
    }
    for (flag, dir) in [("--cases", &args.dirs.cases), ("--spec", &args.dirs.spec)] {
        if let Some(dir) = dir {
            repro.extend([flag.to_string(), dir.display().to_string()]);
        }
    }
    repro
}

fn cases(action: &CasesAction, dirs: &Dirs) -> ExitCode {
    let (spec_dir, cases_dir) = dirs.resolve();
    let spec = match memspec::spec::Spec::load(&spec_dir) {
        Ok(spec) => spec,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    let (suite, problems) = match memspec::suite::load::lint(&cases_dir, &spec) {
        Ok(linted) => linted,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    let mut out = io::stdout().lock();
    match action {
        CasesAction::Lint => {
            for problem in &problems {
                let _ = writeln!(out, "{problem}");
            }
            let hostile = suite.cases.iter().filter(|c| c.case.hostile).count();
            let _ = writeln!(
                out,
                "{} cases ({hostile} hostile), {} problem(s)",
                suite.cases.len(),
                problems.len()
            );
            if problems.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(EXIT_USAGE)
            }
        }
        CasesAction::List => {
            for c in &suite.cases {
                let _ = writeln!(
                    out,
                    "{:<50} {:<6} {:<12} {}",
                    c.case.id,
                    c.level.as_str(),
                    c.area,
                    c.case.title
                );
            }
            ExitCode::SUCCESS
        }
    }
}

fn coverage(dirs: &Dirs) -> ExitCode {
    let (spec_dir, cases_dir) = dirs.resolve();
    let loaded = match check::load(&spec_dir, &cases_dir) {
        Ok(loaded) => loaded,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    let rows = memspec::suite::coverage::coverage(&loaded.spec, &loaded.suite);
    print!("{}", memspec::suite::coverage::render(&rows));
    if rows.iter().any(|r| r.cases.is_empty()) {
        ExitCode::from(EXIT_NOT_CONFORMANT)
    } else {
        ExitCode::SUCCESS
    }
}

fn call(input: &str, memories: &std::path::Path, json: bool) -> ExitCode {
    let value: serde_json::Value = match serde_json::from_str(input) {
        Ok(value) => value,
        Err(e) => return fail(EXIT_USAGE, &format!("the input is not valid JSON: {e}")),
    };
    let reference = match memspec::reference::Reference::open(memories) {
        Ok(reference) => reference,
        Err(e) => return fail(EXIT_INTERNAL, &e),
    };
    let result = reference.call(&value);
    let mut out = io::BufWriter::with_capacity(1 << 20, io::stdout().lock());
    let written = if json {
        let reply = serde_json::json!({"content": result.text, "is_error": result.is_error});
        writeln!(out, "{reply}")
    } else {
        out.write_all(result.text.as_bytes())
            .and_then(|()| out.write_all(b"\n"))
    };
    if let Err(e) = written.and_then(|()| out.flush()) {
        return fail(EXIT_INTERNAL, &e);
    }
    if result.is_error {
        ExitCode::from(EXIT_NOT_CONFORMANT)
    } else {
        ExitCode::SUCCESS
    }
}

fn fail(code: u8, error: &dyn std::fmt::Display) -> ExitCode {
    eprintln!("memspec: {error}");
    ExitCode::from(code)
}
