//! The two revisions of the page: the reference passes under both, `spec diff` shows what GA
//! changed, and golden files and reports say which revision judged them.

use serde_json::Value;

use crate::check::{memspec, run_command};

/// Every change of the GA note (`../shared/spec-revisions/ga-2026.md`): 14 that touch a backend
/// or what Claude expects of it, 8 for the caller only.
const NOTE: [&str; 22] = [
    "A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "A10", "A11", "A12", "A13", "A14", "B1",
    "B2", "B3", "B4", "B5", "B6", "B7", "B8",
];

#[test]
fn the_reference_passes_every_case_under_both_revisions() {
    for revision in ["beta-2025", "ga-2026"] {
        let mut command = memspec();
        command.args([
            "check",
            "--strict",
            "--format",
            "json",
            "--revision",
            revision,
        ]);
        let run = run_command(&mut command);
        assert_eq!(run.code, 0, "{revision}: {}", run.describe());
        let json = run.json();
        assert_eq!(json["revision"], revision);
        let results = run.results();
        assert!(results.len() > 600, "{revision}: {} cases", results.len());
        let not_passed: Vec<&Value> = results.iter().filter(|r| r["outcome"] != "pass").collect();
        assert!(not_passed.is_empty(), "{revision}: {not_passed:#?}");
    }
}

#[test]
fn spec_diff_lists_every_change_of_the_ga_note_with_its_quote() {
    let mut command = memspec();
    command.args(["spec", "diff", "beta-2025", "ga-2026", "--json"]);
    let run = run_command(&mut command);
    assert_eq!(
        run.code,
        1,
        "a revision that changed something exits 1: {}",
        run.describe()
    );
    let diff: Value = serde_json::from_str(&run.stdout).expect("spec diff --json is JSON");
    let mut quoted: Vec<String> = Vec::new();
    for rule in diff["rules"].as_array().into_iter().flatten() {
        let Some(change) = rule["change"].as_str() else {
            continue;
        };
        // The GA side carries the page's new words; a removed rule, its old ones.
        let side = if rule["after"].is_object() {
            &rule["after"]
        } else {
            &rule["before"]
        };
        assert!(
            !side["text"].as_str().unwrap_or_default().is_empty(),
            "{change} {} has no quote",
            rule["id"]
        );
        quoted.push(change.to_string());
    }
    for page in diff["page"].as_array().into_iter().flatten() {
        let id = page["id"].as_str().unwrap_or_default();
        assert!(
            !page["quote"].as_str().unwrap_or_default().is_empty(),
            "{id} has no quote"
        );
        quoted.push(id.to_string());
    }
    for change in NOTE {
        assert!(
            quoted.iter().any(|q| q == change),
            "{change} is missing from the diff"
        );
    }
    // Two quotes checked word for word against the note.
    let rule = |id: &str| {
        diff["rules"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["id"] == id)
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(
        rule("delete.not-root")["after"]["text"],
        "Deletes the directory and all its contents recursively. The tool description tells Claude it cannot delete the `/memories` directory itself, so reject a `delete` whose path is the memory root."
    );
    let overwrite = rule("create.may-overwrite");
    assert_eq!(overwrite["kind"], "added");
    assert!(
        overwrite["after"]["text"]
            .as_str()
            .unwrap_or_default()
            .ends_with("overwriting instead is a valid implementation choice."),
        "{overwrite}"
    );
    assert!(
        overwrite["cases"]
            .as_array()
            .is_some_and(|c| c.iter().any(|id| id == "create.exists-is-error")),
        "the change names the cases it affects: {overwrite}"
    );
    // The decision GA turned into a rule is gone from GA, and the rule was that decision.
    assert_eq!(rule("decide.empty-root")["kind"], "removed");
    assert_eq!(rule("view.empty-root")["kind"], "added");
}

#[test]
fn spec_diff_of_a_revision_with_itself_is_empty_and_exits_0() {
    let mut command = memspec();
    command.args(["spec", "diff", "ga-2026", "ga-2026"]);
    let run = run_command(&mut command);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(run.stdout.contains("no change"), "{}", run.stdout);
}

#[test]
fn spec_diff_text_names_each_change_once_at_the_end() {
    let mut command = memspec();
    command.args(["spec", "diff", "beta-2025", "ga-2026"]);
    let run = run_command(&mut command);
    assert_eq!(run.code, 1, "{}", run.describe());
    let last = run.stdout.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        format!(
            "21 rule(s) differ; changes of the revision note shown: {}",
            NOTE.join(", ")
        )
    );
}

/// A golden file records the revision it was recorded under; `--check` judges by it and refuses
/// to compare under another one.
#[test]
fn a_golden_file_names_its_revision_and_check_keeps_to_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let inputs = dir.path().join("inputs.jsonl");
    std::fs::write(
        &inputs,
        "{\"command\":\"create\",\"path\":\"/memories/a.txt\",\"file_text\":\"a\\n\"}\n{\"command\":\"view\",\"path\":\"/memories\"}\n",
    )
    .expect("write inputs");
    let golden = dir.path().join("golden.jsonl");
    let mut record = memspec();
    record
        .args(["record", "--revision", "beta-2025", "-o"])
        .arg(&golden)
        .arg(&inputs);
    let recorded = run_command(&mut record);
    assert_eq!(recorded.code, 0, "{}", recorded.describe());
    let text = std::fs::read_to_string(&golden).expect("golden file");
    let header: Value =
        serde_json::from_str(text.lines().next().unwrap_or_default()).expect("header line");
    assert_eq!(header["revision"], "beta-2025", "{text}");

    let mut check = memspec();
    check.args(["replay", "--check"]).arg(&golden);
    let same = run_command(&mut check);
    assert_eq!(same.code, 0, "{}", same.describe());
    assert!(
        same.stdout.contains("judged by revision beta-2025"),
        "{}",
        same.stdout
    );

    let mut other = memspec();
    other
        .args(["replay", "--check", "--revision", "ga-2026"])
        .arg(&golden);
    let refused = run_command(&mut other);
    assert_eq!(refused.code, 2, "{}", refused.describe());
    assert!(
        refused.stderr.contains("was recorded under beta-2025"),
        "{}",
        refused.stderr
    );
}

/// The replay report names the lineages a backend's answers show, as `check` does.
#[test]
fn replay_names_the_lineage_of_the_backend_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let inputs = dir.path().join("inputs.jsonl");
    std::fs::write(
        &inputs,
        concat!(
            "{\"command\":\"create\",\"path\":\"/memories/a.txt\",\"file_text\":\"a\\n\"}\n",
            "{\"command\":\"view\",\"path\":\"/memories/a.txt\"}\n",
            "{\"command\":\"create\",\"path\":\"/memories/a.txt\",\"file_text\":\"b\\n\"}\n",
            "{\"command\":\"view\",\"path\":\"/memories\"}\n",
        ),
    )
    .expect("write inputs");
    let mut replay = memspec();
    replay
        .args(["replay", "--report", "--backend"])
        .arg(crate::check::backend("text_editor_wording"))
        .arg(&inputs);
    let run = run_command(&mut replay);
    let lines: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("lineage: "))
        .collect();
    assert_eq!(lines.len(), 1, "{}", run.stdout);
    assert!(
        lines[0].starts_with("lineage: text-editor tool wording"),
        "{}",
        lines[0]
    );
    assert!(
        run.stdout.contains("judged by revision ga-2026"),
        "{}",
        run.stdout
    );
}
