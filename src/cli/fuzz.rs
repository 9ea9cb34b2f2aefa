//! `fuzz`: random command sequences against a backend and the reference, divergences shrunk and
//! kept as cases and transcripts.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use super::check::{Format, clean_up_on_signals};
use super::progress::Progress;
use super::{Dirs, EXIT_USAGE, fail, print_out, say, write_failed};
use memspec::backend::BackendSpec;
use memspec::check::runner::{RunOptions, Selection};
use memspec::check::{self, CheckConfig, Loaded};
use memspec::events::Quiet;
use memspec::exit::Classified;
use memspec::fuzz::keep::{Confirmed, Kept};
use memspec::fuzz::{self, Budget, FuzzOptions};
use memspec::judge::grade::Outcome;
use memspec::report::fuzz as report;
use memspec::spec::Spec;
use memspec::suite::load;

/// `--time` when neither it nor `--steps` is given.
const DEFAULT_TIME: Duration = Duration::from_secs(60);

#[derive(Debug, clap::Args)]
pub(crate) struct FuzzArgs {
    #[command(flatten)]
    pub(crate) target: super::BackendArgs,
    /// The run's seed: the same seed makes the same sequences [default: from the clock, printed].
    #[arg(long)]
    pub(crate) seed: Option<u64>,
    /// Stop after this many seconds [default: 60].
    #[arg(long, value_parser = super::positive_seconds, conflicts_with = "steps")]
    pub(crate) time: Option<super::Seconds>,
    /// Stop after this many tool calls.
    #[arg(long, value_parser = super::at_least_one)]
    pub(crate) steps: Option<usize>,
    /// Sequences run at once (each is still the same for a seed).
    #[arg(short, long, default_value_t = 1, value_parser = super::at_least_one)]
    pub(crate) jobs: usize,
    /// Start this many processes of the backend on one store and race them (creates of one
    /// path, edits of one file, a rename against views, a delete against a create).
    #[arg(long, default_value_t = 1, value_parser = super::at_least_one)]
    pub(crate) clients: usize,
    /// Make each sequence's steps as this many users (2 to 4) of one store, one process of the
    /// backend per user, and look for one user's memories reaching another's; the backend must
    /// take a user (`{user}` in its command, or `--per-user`).
    #[arg(long, value_parser = users_count, conflicts_with = "clients")]
    pub(crate) users: Option<usize>,
    /// Go on after the first divergence until the budget is spent, keeping one per kind and
    /// rule.
    #[arg(long)]
    pub(crate) keep_going: bool,
    /// Keep each divergence as found (cut after the step that shows it) instead of shrinking
    /// it: faster, for throughput measurements or a first look.
    #[arg(long)]
    pub(crate) no_shrink: bool,
    /// Write each shrunk divergence here as a case (`<id>.json`, for `check --cases DIR`) and a
    /// transcript (`<id>.jsonl`, for `replay`).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub(crate) output: Option<PathBuf>,
    /// Report format (human on stdout; the others as `check` writes them).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub(crate) format: Format,
    #[command(flatten)]
    pub(crate) reports: super::reports::ReportFiles,
    #[command(flatten)]
    pub(crate) dirs: Dirs,
}

pub(crate) fn run_fuzz(args: &FuzzArgs) -> ExitCode {
    clean_up_on_signals();
    let revision = args.dirs.revision();
    let (spec_source, _) = args.dirs.resolve();
    let spec = match Spec::load_from(&spec_source, revision) {
        Ok(spec) => spec,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    if let Err(code) = args.reports.check_paths() {
        return code;
    }
    // `target` holds an embedded adapter's folder until the run is over.
    let target = match args.target.resolve(revision) {
        Ok(target) => target,
        Err(code) => return code,
    };
    if args.users.is_some() && !target.backend.takes_user() {
        return fail(
            EXIT_USAGE,
            &"--users needs a backend that takes a user: name {user} in the --backend command (the reference always takes one), or give --per-user with --python or --node",
        );
    }
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as u64 % 1_000_000_000)
    });
    let budget = match (args.time, args.steps) {
        (_, Some(steps)) => Budget::Steps(steps),
        (time, None) => Budget::Time(time.map_or(DEFAULT_TIME, |time| time.0)),
    };
    let options = FuzzOptions {
        backend: target.backend.clone(),
        seed,
        budget,
        timeout: target.timeouts.call,
        jobs: args.jobs,
        clients: args.clients,
        users: args.users.unwrap_or(1),
        keep_going: args.keep_going,
        shrink: !args.no_shrink,
        out: args.output.clone(),
    };
    say(&format!("fuzzing with seed {seed}"));
    let progress = Progress::stderr();
    let result = fuzz::fuzz(&options, &spec, &progress);
    progress.finish();
    let fuzzed = match result {
        Ok(fuzzed) => fuzzed,
        Err(e) => return fail(e.exit().code(), &e),
    };
    let mut confirmed = Vec::new();
    for divergence in &fuzzed.divergences {
        confirmed.push(divergence.kept.as_ref().and_then(|kept| {
            confirm(kept, &target.backend, &spec, options.timeout)
                .map_err(|e| say(&format!("could not run the kept case {}: {e}", kept.id)))
                .ok()
        }));
    }
    // The rerun keeps the budget: a finding late in a run is reached again only with as much.
    let mut rerun_args = target.repro.clone();
    if let Some(steps) = args.steps {
        rerun_args.extend(["--steps".to_string(), steps.to_string()]);
    }
    if let Some(time) = args.time {
        rerun_args.extend(["--time".to_string(), time.to_string()]);
    }
    if args.keep_going {
        rerun_args.push("--keep-going".to_string());
    }
    // Every format, the human one too, is the one reporter's, over the divergences as results.
    let as_report = report::as_report(
        &fuzzed,
        &confirmed,
        target.repro.clone(),
        report::rerun(&rerun_args, &fuzzed),
    );
    let render = memspec::report::Render {
        full_texts: args.reports.full_texts,
        ..memspec::report::Render::default()
    };
    let text = memspec::report::render(&as_report, &spec, args.format, render);
    if let Err(code) = args.reports.write(&as_report, &spec, render) {
        return code;
    }
    let printed = if args.format == Format::Human {
        super::print_human(&text)
    } else {
        print_out(&text)
    };
    if let Err(e) = printed {
        return write_failed(&"the report", &e);
    }
    super::exit_of(as_report.verdict())
}

/// `--users`: 2 to [`fuzz::users::MOST`].
fn users_count(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if (2..=fuzz::users::MOST).contains(&n) => Ok(n),
        Ok(_) => Err(format!("must be 2 to {}", fuzz::users::MOST)),
        Err(e) => Err(e.to_string()),
    }
}

/// Runs a kept case through the check engine, on `backend` and on the reference.
fn confirm(
    kept: &Kept,
    backend: &BackendSpec,
    spec: &Spec,
    timeout: Duration,
) -> Result<Confirmed, String> {
    let (suite, problems) = load::lint_files(
        &[(format!("{}.json", kept.id), kept.case_file.clone())],
        spec,
    );
    if let Some(problem) = problems.first() {
        return Err(format!(
            "the kept case {} does not load: {}",
            kept.id, problem.message
        ));
    }
    let loaded = Loaded {
        spec: spec.clone(),
        suite,
    };
    let outcome = |backend: &BackendSpec| -> Result<Outcome, String> {
        let config = CheckConfig {
            backend: backend.clone(),
            selection: Selection::default(),
            options: RunOptions {
                jobs: 1,
                timeout,
                ..RunOptions::default()
            },
            baseline: None,
            recheck: false,
            clients: 1,
            crash: false,
        };
        let run = check::check(&config, &loaded, &Quiet)
            .map_err(|e| format!("cannot run the kept case: {e}"))?;
        Ok(run
            .results
            .iter()
            .map(|r| r.outcome)
            .max()
            .unwrap_or(Outcome::Skip))
    };
    Ok(Confirmed {
        backend: outcome(backend)?,
        reference: outcome(&BackendSpec::Reference(spec.revision()))?,
    })
}
