//! `check` itself: its arguments turned into the run's configuration (the backend, the
//! selection, the options), the run, and its progress on stderr.

use std::io::{self, IsTerminal};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use super::args::{CheckArgs, repro_args};
use super::clean_up_on_signals;
use super::outputs::write_outputs;
use crate::cli::{EXIT_USAGE, check_output_path, fail, say};
use memspec::check::runner::{self, RunOptions, Selection};
use memspec::check::{self, CheckConfig};
use memspec::exit::Classified;

/// How often a run that is not on a terminal says how far it got.
const PROGRESS_EVERY: Duration = Duration::from_secs(30);

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
    write_outputs(args, &report, &loaded.spec)
}
