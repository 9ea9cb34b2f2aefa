//! `replay` and `record`: transcripts and golden sessions from the command line.

use memspec::exit::Classified;
use std::io::{self, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;

use super::progress::Progress;
use clap::ValueEnum;

use super::check::clean_up_on_signals;
use super::{EXIT_INTERNAL, EXIT_USAGE, Target, fail, print_out, say, write_failed};

/// `replay --report`'s formats: its own JSON, and every format `check` writes (the replay as
/// results of the one reporter, one per memory call).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReplayFormat {
    /// The diverging steps with their diffs, for a person or a CI log, as `check` writes it.
    #[value(alias = "human")]
    Text,
    /// Every step with its input, the three results and the verdict.
    Json,
    /// JUnit XML, as `check --format junit` writes it.
    Junit,
    /// TAP 14, as `check --format tap`.
    Tap,
    /// Markdown, as `check --format markdown`.
    Markdown,
    /// One HTML file, as `check --format html`.
    Html,
}

impl ReplayFormat {
    /// The check format it is written in, for those `check` shares (all but the JSON).
    fn shared(self) -> Option<memspec::report::Format> {
        use memspec::report::Format;
        match self {
            ReplayFormat::Json => None,
            ReplayFormat::Text => Some(Format::Human),
            ReplayFormat::Junit => Some(Format::Junit),
            ReplayFormat::Tap => Some(Format::Tap),
            ReplayFormat::Markdown => Some(Format::Markdown),
            ReplayFormat::Html => Some(Format::Html),
        }
    }
}

/// Which verdict of `replay --report` the exit code follows.
#[derive(Debug, Clone, Copy, Default, ValueEnum)]
pub(crate) enum FailOnArg {
    /// The backend under test against the spec.
    #[default]
    Backend,
    /// The recorded answers against the spec.
    Recording,
    /// The worse of the two.
    Either,
}

impl From<FailOnArg> for memspec::replay::FailOn {
    fn from(arg: FailOnArg) -> Self {
        match arg {
            FailOnArg::Backend => Self::Backend,
            FailOnArg::Recording => Self::Recording,
            FailOnArg::Either => Self::Either,
        }
    }
}

#[derive(Debug, clap::Args)]
pub(crate) struct ReplayArgs {
    #[command(flatten)]
    pub(crate) target: super::BackendArgs,
    /// The transcript: a Messages API request body, a messages array, JSON Lines of messages,
    /// a request/response log, a memspec session (golden file) or JSON Lines of tool inputs.
    pub(crate) transcript: PathBuf,
    /// What both memory folders start with: a folder (copied, never changed), a seed
    /// description (JSON) or a golden file's seed [default: a golden transcript's own seed].
    #[arg(long)]
    pub(crate) seed: Option<PathBuf>,
    /// Print the verdicts and diffs instead of opening the TUI (for CI).
    #[arg(long)]
    pub(crate) report: bool,
    /// Report format, with --report or --check.
    #[arg(long, value_enum, default_value_t = ReplayFormat::Text)]
    pub(crate) format: ReplayFormat,
    /// Read the transcript as this format instead of detecting it.
    #[arg(long, value_enum)]
    pub(crate) transcript_format: Option<memspec::transcript::Format>,
    /// Replay the calls made for this user (a request's `metadata.user_id`), on a backend of
    /// many users started as that user (`{user}`); needed when the transcript names several.
    #[arg(long)]
    pub(crate) user: Option<String>,
    /// Snapshot regression: exit 1 on any change from the recorded results (implies --report).
    #[arg(long)]
    pub(crate) check: bool,
    /// Do not capture the mouse in the TUI (keeps the terminal's own text selection).
    #[arg(long)]
    pub(crate) no_mouse: bool,
    /// The revision of the memory tool's page to judge by (`beta-2025` or `ga-2026`)
    /// [default: a golden file's own revision, else ga-2026].
    #[arg(long, value_enum)]
    pub(crate) revision: Option<memspec::spec::Revision>,
    /// In the report, show every step.
    #[arg(short, long)]
    pub(crate) verbose: bool,
    /// Which verdict the exit code of --report follows: the backend under test, the recording,
    /// or either (with --check, any change fails).
    #[arg(long, value_enum, default_value_t = FailOnArg::Backend)]
    pub(crate) fail_on: FailOnArg,
    /// Report files, as `check` writes them (one result per memory call), with --report or
    /// --check.
    #[command(flatten)]
    pub(crate) reports: super::reports::ReportFiles,
}

/// The command line that replays the same transcript on the same backend (`target`'s) again.
fn rerun(args: &ReplayArgs, target: &Target) -> String {
    let mut words = vec![
        "memspec".to_string(),
        "replay".to_string(),
        args.transcript.display().to_string(),
        if args.check { "--check" } else { "--report" }.to_string(),
    ];
    words.extend(target.repro.iter().cloned());
    if let Some(seed) = &args.seed {
        words.extend(["--seed".to_string(), seed.display().to_string()]);
    }
    if let Some(revision) = args.revision {
        words.extend(["--revision".to_string(), revision.to_string()]);
    }
    if let Some(user) = &args.user {
        words.extend(["--user".to_string(), user.clone()]);
    }
    if !args.check
        && let Some(fail_on) = args.fail_on.to_possible_value()
        && !matches!(args.fail_on, FailOnArg::Backend)
    {
        words.extend(["--fail-on".to_string(), fail_on.get_name().to_string()]);
    }
    words
        .iter()
        .map(|word| memspec::report::shell_quote(word))
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(Debug, clap::Args)]
pub(crate) struct RecordArgs {
    #[command(flatten)]
    pub(crate) target: super::BackendArgs,
    /// The calls to record: any transcript `memspec replay` reads, or JSON Lines of tool inputs.
    pub(crate) inputs: PathBuf,
    /// The golden session file to write (atomically).
    #[arg(long, short)]
    pub(crate) output: PathBuf,
    /// What the memory folder starts with: a folder (copied), a seed description (JSON) or a
    /// golden file's seed; kept in the golden file as a description.
    #[arg(long)]
    pub(crate) seed: Option<PathBuf>,
    /// Read the inputs as this format instead of detecting it.
    #[arg(long, value_enum)]
    pub(crate) transcript_format: Option<memspec::transcript::Format>,
    /// The revision of the memory tool's page to judge by (`beta-2025` or `ga-2026`)
    /// [default: a golden file's own revision, else ga-2026].
    #[arg(long, value_enum)]
    pub(crate) revision: Option<memspec::spec::Revision>,
    /// Record the calls made for this user (a request's `metadata.user_id`), on a backend of
    /// many users started as that user (`{user}`); needed when the inputs name several. The
    /// golden file keeps the user, and its replays start the backend as that user.
    #[arg(long)]
    pub(crate) user: Option<String>,
}

/// The user whose calls are replayed: `--user`, or the one user the transcript names; the
/// transcript then holds that user's calls only. A transcript naming several users needs
/// `--user`, which must be one of them.
fn pick_user(
    transcript: &mut memspec::transcript::Transcript,
    given: Option<&str>,
    file: &std::path::Path,
) -> Result<Option<String>, String> {
    use memspec::judge::shown_user;
    let named: Vec<String> = transcript.users().into_iter().map(str::to_string).collect();
    let shown = |users: &[String]| {
        users
            .iter()
            .map(|user| shown_user(user))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let user = match (given, named.as_slice()) {
        (None, []) => return Ok(None),
        (None, [one]) => one.clone(),
        (None, several) => {
            return Err(format!(
                "{} holds the calls of {} users ({}): pick one with --user",
                file.display(),
                several.len(),
                shown(several)
            ));
        }
        (Some(given), named) if named.is_empty() || named.iter().any(|n| n == given) => {
            given.to_string()
        }
        (Some(given), named) => {
            return Err(format!(
                "{} names no user {} (it names {})",
                file.display(),
                shown_user(given),
                shown(named)
            ));
        }
    };
    transcript.keep_user(&user);
    Ok(Some(user))
}

pub(crate) fn replay(args: &ReplayArgs) -> ExitCode {
    use memspec::replay::{self, ReplayOptions};
    use memspec::report::replay as report;
    let interactive = !args.report && !args.check;
    if interactive && !io::stdout().is_terminal() {
        return fail(EXIT_USAGE, &memspec::tui::TuiError::NotATerminal);
    }
    // The TUI handles its own signals (and must restore the terminal); a report run ends on
    // one as `check` does, its scratch folders removed and its backend killed.
    if !interactive {
        clean_up_on_signals();
    }
    if let Err(code) = args.reports.check_paths() {
        return code;
    }
    let format = args.transcript_format;
    let mut transcript = match memspec::transcript::read(&args.transcript, format) {
        Ok(transcript) => transcript,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    let user = match pick_user(&mut transcript, args.user.as_deref(), &args.transcript) {
        Ok(user) => user,
        Err(message) => return fail(EXIT_USAGE, &message),
    };
    // A golden file is judged by the revision it was recorded under, unless told otherwise;
    // told another one, `--check` would report every difference between the revisions.
    let recorded = transcript.session.as_ref().and_then(|s| s.revision);
    let revision = match (args.revision, recorded) {
        (Some(given), Some(recorded)) if args.check && given != recorded => {
            return fail(
                EXIT_USAGE,
                &format!(
                    "{} was recorded under {recorded}; --check compares with it under that revision only (drop --revision, or record it again under {given})",
                    args.transcript.display()
                ),
            );
        }
        (Some(given), _) => given,
        (None, recorded) => recorded.unwrap_or_default(),
    };
    // Rule sentences are a help, not a need: a replay runs without spec/.
    let spec =
        memspec::spec::Spec::load_from(&memspec::builtin::default_sources().0, revision).ok();
    // `target` holds an embedded adapter's folder until the replay is over.
    let target = match args.target.resolve(revision) {
        Ok(target) => target,
        Err(code) => return code,
    };
    let options = ReplayOptions {
        backend: target.backend.clone(),
        seed: seed(args, transcript.session.as_ref()),
        timeout: target.timeouts.call,
        check: args.check,
        revision,
        user,
    };
    let progress = Progress::stderr();
    let replayed = replay::replay(transcript, &options, spec.as_ref(), &progress);
    progress.finish();
    let replayed = match replayed {
        Ok(replayed) => replayed,
        Err(e) => return fail(e.exit().code(), &e),
    };
    if interactive {
        let options = memspec::tui::Options {
            mouse: !args.no_mouse,
        };
        return match memspec::tui::run(replayed, spec, options) {
            Ok(ended) => {
                if let Some(summary) = ended.summary() {
                    say(&summary);
                }
                match ended.signal {
                    // The shell's convention for a process a signal ended.
                    Some(signal) => {
                        say(&format!("stopped by signal {signal}"));
                        ExitCode::from(128 + u8::try_from(signal).unwrap_or(0))
                    }
                    None => ExitCode::SUCCESS,
                }
            }
            Err(e) => fail(EXIT_INTERNAL, &e),
        };
    }
    let fail_on = args.fail_on.into();
    // Without the rule texts (a broken spec/ in the working folder) the report still grades.
    let spec = spec.unwrap_or_default();
    let as_report = report::as_report(&replayed, rerun(args, &target), fail_on);
    let text = match args.format.shared() {
        None => report::json_for(&replayed, fail_on),
        Some(format) => {
            let render = memspec::report::Render {
                verbose: args.verbose,
                ..memspec::report::Render::default()
            };
            memspec::report::render(&as_report, &spec, format, render)
        }
    };
    let printed = match args.format {
        ReplayFormat::Text => super::print_human(&text),
        _ => print_out(&text),
    };
    if let Err(e) = printed {
        return write_failed(&"the report", &e);
    }
    if let Err(code) = args
        .reports
        .write(&as_report, &spec, memspec::report::Render::default())
    {
        return code;
    }
    super::exit_of(as_report.verdict())
}

pub(crate) fn record(args: &RecordArgs) -> ExitCode {
    use memspec::replay::record;
    clean_up_on_signals();
    if let Err(code) = super::check_output_path("--output", &args.output) {
        return code;
    }
    let format = args.transcript_format;
    let mut transcript = match memspec::transcript::read(&args.inputs, format) {
        Ok(transcript) => transcript,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    let user = match pick_user(&mut transcript, args.user.as_deref(), &args.inputs) {
        Ok(user) => user,
        Err(message) => return fail(EXIT_USAGE, &message),
    };
    let revision = args.revision.unwrap_or_default();
    // `target` holds an embedded adapter's folder until the recording is over.
    let target = match args.target.resolve(revision) {
        Ok(target) => target,
        Err(code) => return code,
    };
    let recorded = record::record(
        &transcript,
        &target.backend,
        args.seed.as_deref(),
        target.timeouts.call,
        revision,
        user.as_deref(),
    );
    let session = match recorded {
        Ok(session) => session,
        Err(e) => return fail(e.exit().code(), &e),
    };
    if let Err(e) = memspec::transcript::session::write(&args.output, &session) {
        return fail(EXIT_INTERNAL, &e);
    }
    let as_user = user.map_or_else(String::new, |user| {
        format!(" as user {}", memspec::judge::shown_user(&user))
    });
    say(&format!(
        "recorded {} call(s){as_user} from {} to {} (under {revision})",
        session.steps.len(),
        session.header.backend,
        args.output.display()
    ));
    ExitCode::SUCCESS
}

/// The seed of a replay: `--seed`, else the one a golden file holds. Given both, `--seed`
/// wins, and says so.
fn seed(args: &ReplayArgs, header: Option<&memspec::transcript::SessionHeader>) -> Option<PathBuf> {
    let recorded = memspec::replay::scratch::recorded(&args.transcript, header);
    match (&args.seed, recorded) {
        (Some(given), Some(_)) => {
            say(&format!(
                "note: --seed {} replaces the seed recorded in {}",
                given.display(),
                args.transcript.display()
            ));
            Some(given.clone())
        }
        (Some(given), None) => Some(given.clone()),
        (None, recorded) => recorded,
    }
}
