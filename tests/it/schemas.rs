//! The JSON Schemas of `spec/` are generated from memspec's types (`memspec::schema_files`): the
//! committed files must be exactly what the types generate, `memspec spec schemas --write`
//! must write just that, and real JSON reports must match `spec/report.schema.json`.
//!
//! `memspec spec schemas --write spec` (or `MEMSPEC_UPDATE_SCHEMAS=1 cargo test --test it
//! schemas::`) rewrites the committed files after a change of the types.

use std::process::Command;

use crate::check::{bin, memspec, root, run_command};

/// What regenerates the committed schemas.
const REGENERATE: &str = "run `cargo run -- spec schemas --write spec` (or `MEMSPEC_UPDATE_SCHEMAS=1 cargo test --test it schemas::`)";

/// The interpreter of `.ci/.venv-schema` (made by `.ci/run`), which has `jsonschema`.
const PYTHON: &str = ".ci/.venv-schema/bin/python";

#[test]
fn the_committed_schemas_are_what_the_types_generate() {
    let files = memspec::schema_files::all();
    let names: Vec<&str> = files.iter().map(|f| f.name).collect();
    assert_eq!(
        names,
        [
            "cases.schema.json",
            "rules.schema.json",
            "decisions.schema.json",
            "lineages.schema.json",
            "report.schema.json"
        ]
    );
    let update = std::env::var_os("MEMSPEC_UPDATE_SCHEMAS").is_some();
    let mut stale = Vec::new();
    for file in &files {
        let path = root().join("spec").join(file.name);
        if update {
            std::fs::write(&path, &file.text).unwrap_or_else(|e| panic!("{e}"));
            continue;
        }
        if std::fs::read_to_string(&path).ok().as_deref() != Some(file.text.as_str()) {
            stale.push(format!("spec/{}", file.name));
        }
    }
    assert!(
        stale.is_empty(),
        "{} not what memspec's types generate: {REGENERATE}",
        stale.join(", ") + if stale.len() == 1 { " is" } else { " are" }
    );
}

#[test]
fn spec_schemas_lists_them_and_writes_them_into_a_folder() {
    let listed = run_command(memspec().args(["spec", "schemas"]));
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let files = memspec::schema_files::all();
    let names: Vec<&str> = files.iter().map(|f| f.name).collect();
    assert_eq!(listed.stdout.lines().collect::<Vec<_>>(), names);

    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let written = run_command(
        memspec()
            .args(["spec", "schemas", "--write"])
            .arg(dir.path()),
    );
    assert_eq!(written.code, 0, "{}", written.stderr);
    assert!(
        written.stderr.contains("wrote 5 schemas to"),
        "{}",
        written.stderr
    );
    for file in &files {
        let text = std::fs::read_to_string(dir.path().join(file.name)).unwrap_or_default();
        assert!(
            text == file.text,
            "{} differs from what the types generate",
            file.name
        );
    }

    let missing = run_command(
        memspec()
            .args(["spec", "schemas", "--write"])
            .arg(dir.path().join("no-such-folder")),
    );
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    assert!(
        missing.stderr.contains("not a folder"),
        "{}",
        missing.stderr
    );
}

/// `spec/validate.py --memspec`: the spec and case files against their schemas, and two real
/// `check --format json` reports (the reference over the suite, with long views as bounded
/// texts; a backend broken in several ways, with every outcome) against `report.schema.json`.
/// Needs `.ci/.venv-schema` (`.ci/run` makes it); skipped without it, except under CI.
#[test]
fn the_files_and_real_reports_match_the_schemas() {
    if !root().join(PYTHON).exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{PYTHON} is missing: .ci/run makes it from .ci/schema-requirements.txt"
        );
        eprintln!(
            "skipped: {PYTHON} is missing; python3 -m venv .ci/.venv-schema && .ci/.venv-schema/bin/pip install -r .ci/schema-requirements.txt"
        );
        return;
    }
    let run = run_command(Command::new(root().join(PYTHON)).current_dir(root()).args([
        "spec/validate.py",
        "--memspec",
        bin(),
    ]));
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains(", 2 reports"), "{}", run.stdout);
}
