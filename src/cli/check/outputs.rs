//! The report of a `check` run, written where the arguments say (stdout or `--output`, the
//! report files, `--append-markdown`, `--write-baseline`), and the exit code of its verdict.

use std::io;
use std::process::ExitCode;

use super::Format;
use super::args::CheckArgs;
use crate::cli::{self, EXIT_INTERNAL, fail, print_out, say, say_raw, write_failed};
use memspec::report::{self, Report, human};
use memspec::spec::Spec;

/// Writes `report`, the run's report under `spec`, where `args` say, and gives the exit code of
/// its verdict (or of the write that failed).
pub(super) fn write_outputs(args: &CheckArgs, report: &Report, spec: &Spec) -> ExitCode {
    let render = report::Render {
        verbose: args.verbose,
        show_info: args.show_info,
        full_texts: args.reports.full_texts,
    };
    let text = report::render(report, spec, args.format, render);
    if let Err(code) = args.reports.write(report, spec, render) {
        return code;
    }
    let written = match &args.output {
        Some(path) => std::fs::write(path, &text).map(|()| {
            // Keep the summary on the terminal when the report goes to a file; the cases are
            // in the file, and repeating them would bury the verdict in a CI log.
            say_raw(&human::render_summary(report));
        }),
        None if args.format == Format::Human => cli::print_human(&text),
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
            &report::render(report, spec, Format::Markdown, render),
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
    crate::cli::exit_of(report.verdict())
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
