//! `spec coverage`, `spec diff` and `spec schemas`: the rules and their cases, what a revision
//! of the page changed, and the JSON Schemas of memspec's files.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

use crate::cli::{Dirs, EXIT_NOT_CONFORMANT, EXIT_USAGE, fail, print_out, say, write_failed};
use memspec::check;

#[derive(Debug, Subcommand)]
pub(crate) enum SpecAction {
    /// Print which cases check each rule; exits 1 if a rule has none.
    Coverage,
    /// Show what a revision of the page changed: rules added, removed and changed, with the
    /// quotes and the cases each change affects (exit 0 nothing changed, 1 something did).
    Diff {
        /// The older revision.
        #[arg(value_enum)]
        from: memspec::spec::Revision,
        /// The newer revision.
        #[arg(value_enum)]
        to: memspec::spec::Revision,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Every string the reference answers, byte for byte, with the situation, the flag and the
    /// rule of each (`{path}` and the like are echoed from the call): what a backend answers to
    /// pass the SHOULD checks of the page's wording.
    Strings {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The JSON Schemas of the case files, the spec files and the JSON report, generated from
    /// memspec's types: list them, or write them with --write (`--write spec` in a clone).
    Schemas {
        /// Write every schema into this folder (which must exist), replacing files of the same
        /// names.
        #[arg(long, value_name = "DIR")]
        write: Option<PathBuf>,
    },
}

pub(crate) fn spec_diff(
    dirs: &Dirs,
    from: memspec::spec::Revision,
    to: memspec::spec::Revision,
    json: bool,
) -> ExitCode {
    let (spec_source, cases_source) = dirs.resolve();
    let mut loaded = Vec::new();
    for revision in [from, to] {
        match check::load(&spec_source, &cases_source, revision) {
            Ok(l) => loaded.push(l),
            Err(e) => return fail(EXIT_USAGE, &e),
        }
    }
    let (old, new) = (&loaded[0], &loaded[1]);
    let diff = memspec::suite::spec_diff::diff(&old.spec, &new.spec, (&old.suite, &new.suite));
    let text = if json {
        let mut text = serde_json::to_string_pretty(&diff)
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        text.push('\n');
        text
    } else {
        diff.render()
    };
    if let Err(e) = print_out(&text) {
        return write_failed(&"the diff", &e);
    }
    if diff.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_NOT_CONFORMANT)
    }
}

/// `spec strings`: the reference's strings, as text or JSON.
pub(crate) fn strings(json: bool) -> ExitCode {
    let entries = memspec::reference::strings::catalogue();
    let text = if json {
        match serde_json::to_string_pretty(&entries) {
            Ok(mut text) => {
                text.push('\n');
                text
            }
            Err(e) => return fail(crate::cli::EXIT_INTERNAL, &e),
        }
    } else {
        memspec::reference::strings::render(&entries)
    };
    match print_out(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => write_failed(&"the strings", &e),
    }
}

/// `spec schemas`: the names of the schemas, or the schemas written into `write`.
pub(crate) fn schemas(write: Option<&std::path::Path>) -> ExitCode {
    let files = memspec::schema_files::all();
    let Some(dir) = write else {
        let names: String = files.iter().map(|f| format!("{}\n", f.name)).collect();
        return match print_out(&names) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => write_failed(&"the list", &e),
        };
    };
    if !dir.is_dir() {
        return fail(
            EXIT_USAGE,
            &format!(
                "--write {}: not a folder; create it or write elsewhere",
                dir.display()
            ),
        );
    }
    for file in &files {
        let path = dir.join(file.name);
        if let Err(e) = std::fs::write(&path, &file.text) {
            return write_failed(&path.display(), &e);
        }
    }
    say(&format!(
        "wrote {} schemas to {}",
        files.len(),
        dir.display()
    ));
    ExitCode::SUCCESS
}

pub(crate) fn coverage(dirs: &Dirs) -> ExitCode {
    let (spec_source, cases_source) = dirs.resolve();
    let loaded = match check::load(&spec_source, &cases_source, dirs.revision()) {
        Ok(loaded) => loaded,
        Err(e) => return fail(EXIT_USAGE, &e),
    };
    let rows = memspec::suite::coverage::coverage(&loaded.spec, &loaded.suite);
    if let Err(e) = print_out(&memspec::suite::coverage::render(&rows)) {
        return write_failed(&"the coverage", &e);
    }
    if rows.iter().any(|r| r.cases.is_empty()) {
        ExitCode::from(EXIT_NOT_CONFORMANT)
    } else {
        ExitCode::SUCCESS
    }
}
