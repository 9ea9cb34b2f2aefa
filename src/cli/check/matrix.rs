//! `matrix`: the suite against the reference and several backends, one column each, as
//! Markdown, JSON or an HTML page.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;

use super::adapters::adapter_failed;
use super::clean_up_on_signals;
use crate::cli::{self, Dirs, EXIT_USAGE, check_output_path, fail, print_out, say, write_failed};
use memspec::backend::BackendSpec;
use memspec::backend::embedded::{self, AdapterDir, Language};
use memspec::check::runner::{self, RunOptions, Selection};
use memspec::check::{self, CheckConfig};
use memspec::exit::Classified;
use memspec::report;

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
    #[arg(short, long, value_parser = cli::at_least_one)]
    pub(crate) jobs: Option<usize>,
    /// Per-call timeout in seconds.
    #[arg(long, default_value_t = cli::DEFAULT_TIMEOUT, value_parser = cli::positive_seconds)]
    pub(crate) timeout: cli::Seconds,
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

pub(crate) fn matrix(args: &MatrixArgs) -> ExitCode {
    clean_up_on_signals();
    let (spec_source, cases_source) = args.dirs.resolve();
    let revision = args.dirs.revision();
    let loaded = match check::load(&spec_source, &cases_source, revision) {
        Ok(loaded) => loaded,
        Err(e) => return fail(EXIT_USAGE, &e),
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
        let jobs = runner::jobs(args.jobs, &backend);
        let config = CheckConfig {
            backend,
            selection: Selection {
                ids: args.cases_selected.clone(),
                areas: args.area.clone(),
                ..Selection::default()
            },
            options: RunOptions {
                jobs,
                timeout: args.timeout.0,
                startup: RunOptions::default().startup,
                strict: false,
                case_budget: runner::DEFAULT_CASE_BUDGET,
            },
            baseline: None,
            // The matrix shows results only: a recheck's note would have nowhere to go.
            recheck: false,
            clients: 1,
            crash: false,
        };
        match check::check(&config, &loaded, &memspec::events::Quiet) {
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
