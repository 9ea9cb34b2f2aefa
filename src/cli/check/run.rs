//! `check` itself: its arguments turned into the run's configuration (the backend, the
//! selection, the options), the run, and its progress on stderr.

use std::process::ExitCode;

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
    // `target` holds an embedded adapter's folder until the run is over.
    let mut target = match args.target.resolve(revision) {
        Ok(target) => target,
        Err(code) => return code,
    };
    target.timeouts.startup = args.startup_timeout.0;
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
    let jobs = runner::jobs(args.jobs, &target.backend);
    let config = CheckConfig {
        backend: target.backend.clone(),
        selection: Selection {
            ids: args.cases_selected.clone(),
            areas: args.area.clone(),
            rules: args.rule.clone(),
            levels: args.level.clone(),
            hostile_only: args.hostile,
        },
        options: RunOptions {
            jobs,
            timeout: target.timeouts.call,
            startup: target.timeouts.startup,
            strict: args.strict,
            case_budget: args.case_budget.0,
        },
        baseline: args.baseline.clone(),
        recheck: !args.no_recheck,
        clients: super::args::clients(args),
        crash: args.crash,
    };
    let loaded = match check::load(&spec_source, &cases_source, revision) {
        Ok(loaded) => loaded,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    let progress = Progress::stderr();
    let run = check::check(&config, &loaded, &progress);
    progress.finish();
    let report = match run {
        Ok(run) => Report::of_check(run, repro_args(args, &target)),
        Err(e) => return fail(e.exit().code(), &e),
    };
    write_outputs(args, &report, &loaded.spec)
}
