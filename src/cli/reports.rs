//! The report flags every command that reports takes (`check`, `fuzz`, `replay --report`): the
//! format on stdout, and any number of reports written to files in one run, as hurl does
//! (`--report-junit F --report-markdown F --report-html F --report-json F --report-tap F`), so
//! that a CI job gets JUnit, a job summary and an artifact from one run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use memspec::report::{self, Format, Render, Report};
use memspec::spec::Spec;

use super::{check_output_path, write_failed};

/// Report files to write besides stdout.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct ReportFiles {
    /// Also write the JSON report to this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) report_json: Option<PathBuf>,
    /// Also write the JUnit XML report to this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) report_junit: Option<PathBuf>,
    /// Also write the TAP report to this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) report_tap: Option<PathBuf>,
    /// Also write the Markdown report to this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) report_markdown: Option<PathBuf>,
    /// Also write the HTML report (one self-contained file) to this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) report_html: Option<PathBuf>,
    /// JSON texts in full, however long (by default a text over 4,096 characters is its head,
    /// tail, length and SHA-256).
    #[arg(long)]
    pub(crate) full_texts: bool,
}

impl ReportFiles {
    /// Each file asked for, with its format.
    fn files(&self) -> Vec<(Format, &'static str, &Path)> {
        [
            (Format::Json, "--report-json", &self.report_json),
            (Format::Junit, "--report-junit", &self.report_junit),
            (Format::Tap, "--report-tap", &self.report_tap),
            (Format::Markdown, "--report-markdown", &self.report_markdown),
            (Format::Html, "--report-html", &self.report_html),
        ]
        .into_iter()
        .filter_map(|(format, flag, path)| path.as_deref().map(|p| (format, flag, p)))
        .collect()
    }

    /// Refuses, before the run, a file whose folder does not exist (exit 2).
    pub(crate) fn check_paths(&self) -> Result<(), ExitCode> {
        for (_, flag, path) in self.files() {
            check_output_path(flag, path)?;
        }
        Ok(())
    }

    /// Writes every file asked for.
    pub(crate) fn write(
        &self,
        report: &Report,
        spec: &Spec,
        render: Render,
    ) -> Result<(), ExitCode> {
        let render = Render {
            full_texts: self.full_texts,
            ..render
        };
        for (format, flag, path) in self.files() {
            let text = report::render(report, spec, format, render);
            if let Err(e) = std::fs::write(path, text) {
                return Err(write_failed(
                    &format!("the {flag} report to {}", path.display()),
                    &e,
                ));
            }
        }
        Ok(())
    }
}
