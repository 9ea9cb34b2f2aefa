//! Known lineages named from the backend's answers: two real backends, one in the text-editor
//! tool's wording and one in LangChain's `N|line` form, each run over the view and create areas.
//! The report names the lineage once, at the top, with how many findings it explains, and every
//! finding keeps its level (a lineage explains, it never excuses).

use serde_json::Value;

use super::{Run, backend, memspec, run_command};

const AREAS: [&str; 3] = ["view-file", "create", "view-dir"];

fn lineage_run(name: &str, format: &str) -> Run {
    let mut command = memspec();
    command
        .args(["check", "--jobs", "4", "--format", format, "--backend"])
        .arg(backend(name));
    for area in AREAS {
        command.args(["--area", area]);
    }
    run_command(&mut command)
}

/// The lineage lines the human report opens with (the root causes below them are other tests'
/// business, and change with the revision judged by).
/// The lineage lines, after the verdict that opens the report.
fn head(report: &str) -> String {
    report
        .lines()
        .skip_while(|line| line.starts_with("verdict: ") || line.is_empty())
        .take_while(|line| line.starts_with("lineage: "))
        .collect::<Vec<_>>()
        .join("\n")
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!(format!("lineage__{name}").as_str(), text));
}

/// The report's lineages, and the findings' levels by rule (every finding, as graded).
fn lineages_and_levels(run: &Run) -> (Vec<Value>, Vec<(String, String)>) {
    let json = run.json();
    let lineages = json["lineages"].as_array().cloned().unwrap_or_default();
    let mut levels: Vec<(String, String)> = run
        .results()
        .iter()
        .flat_map(|r| r["findings"].as_array().cloned().unwrap_or_default())
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or_default().to_string(),
                f["level"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    levels.sort();
    levels.dedup();
    (lineages, levels)
}

#[track_caller]
fn assert_named_once(name: &str, id: &str) {
    let human = lineage_run(name, "human");
    let head = head(&human.stdout);
    assert_eq!(
        human.stdout.matches("lineage: ").count(),
        1,
        "{}",
        human.describe()
    );
    assert!(head.starts_with("lineage: "), "{}", human.describe());
    let causes = human.stdout.find("root causes: ");
    let lineage = human.stdout.find("lineage: ");
    assert!(
        causes.is_some_and(|at| lineage.is_some_and(|l| at > l)),
        "{}",
        human.describe()
    );
    snapshot(name, &head);

    let json = lineage_run(name, "json");
    let (lineages, levels) = lineages_and_levels(&json);
    assert_eq!(lineages.len(), 1, "{lineages:?}");
    assert_eq!(lineages[0]["id"], id);
    let explained = lineages[0]["findings"].as_u64().unwrap_or_default();
    let of = lineages[0]["of"].as_u64().unwrap_or_default();
    assert!(explained >= 2 && explained <= of, "{lineages:?}");
    // Explained, not excused: the spec's strings stay SHOULD warnings, decisions INFO.
    assert!(
        levels
            .iter()
            .any(|(rule, level)| rule == "view.file.header" && level == "SHOULD"),
        "{levels:?}"
    );
    let outcomes = json.outcomes();
    assert!(
        outcomes.values().any(|o| o == "warn"),
        "findings must still warn: {outcomes:?}"
    );
    let markdown = lineage_run(name, "markdown");
    assert_eq!(
        markdown.stdout.matches("**Lineage:**").count(),
        1,
        "{}",
        markdown.stdout
    );
}

#[test]
fn the_text_editor_wording_is_named_once_with_its_count() {
    assert_named_once("text_editor_wording", "text-editor");
}

#[test]
fn langchains_numbered_lines_are_named_once_with_their_count() {
    assert_named_once("langchain_lines", "langchain");
}

#[test]
fn the_reference_has_no_lineage() {
    let mut command = memspec();
    command.args([
        "check", "--jobs", "4", "--format", "json", "--area", "create",
    ]);
    let run = run_command(&mut command);
    assert_eq!(
        run.json()["lineages"],
        serde_json::json!([]),
        "{}",
        run.describe()
    );
}

/// A backend of its own whose error texts match the text-editor tool's in two places: the JSON
/// report lists the lineage with its counts, and the human and Markdown reports, whose first
/// screen is for what the backend is, do not name it (it explains fewer than half the findings).
#[test]
fn a_lineage_that_explains_a_few_findings_is_not_named_first() {
    let run = |format: &str| {
        run_command(
            memspec()
                .args([
                    "check", "--jobs", "2", "--area", "errors", "--format", format,
                ])
                .arg("--backend")
                .arg(backend("missing_error_prefix")),
        )
    };
    let json = run("json");
    let (lineages, _) = lineages_and_levels(&json);
    assert!(
        lineages.iter().any(|l| {
            let (explained, of) = (l["findings"].as_u64(), l["of"].as_u64());
            explained.is_some_and(|n| of.is_some_and(|of| n > 0 && n * 2 < of))
        }),
        "expected a lineage explaining a few findings: {lineages:?}"
    );
    let human = run("human");
    assert!(!human.stdout.contains("lineage: "), "{}", human.describe());
    let markdown = run("markdown");
    assert!(
        !markdown.stdout.contains("**Lineage:**"),
        "{}",
        markdown.describe()
    );
}
