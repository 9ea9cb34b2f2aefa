//! `cases lint` and `cases list`: the case files validated under every revision, or listed.

use std::process::ExitCode;

use clap::Subcommand;

use crate::cli::{Dirs, EXIT_USAGE, fail, print_out, write_failed};
use memspec::report;

#[derive(Debug, Subcommand)]
pub(crate) enum CasesAction {
    /// Validate every case file: schema, unique ids, known rule ids, valid matchers.
    Lint,
    /// List the cases (id, level, area, title).
    List,
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
