//! `check` itself: its arguments turned into the run's configuration (the backend, the
//! selection, the options), the run, and its progress on stderr.

use std::process::ExitCode;
use std::time::Duration;

use super::args::{CheckArgs, repro_args};
use super::clean_up_on_signals;
use super::outputs::write_outputs;
use crate::cli::progress::Progress;
use crate::cli::{EXIT_USAGE, check_output_path, fail};
use memspec::check::runner::{self, RunOptions, Selection};
use memspec::check::{self, CheckConfig};
use memspec::exit::Classified;
use memspec::report::Report;

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
    let jobs = runner::jobs(args.jobs, &backend);
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
    let progress = Progress::stderr();
    let run = check::check(&config, &loaded, &progress);
    progress.finish();
    let report = match run {
        Ok(run) => Report::of_check(run, repro_args(args)),
        Err(e) => return fail(e.exit().code(), &e),
    };
    write_outputs(args, &report, &loaded.spec)
}
