//! The guard against a suite that fits itself to the reference: an independent backend
//! (`tests/backends/independent/memory.py`), written from the spec alone, takes the other option
//! at every decision its storage allows. It must pass `--strict` with no MUST failure and no
//! SHOULD warning, on a folder and as a key-value store, under both revisions of the page: a
//! check above INFO may depend only on what the spec states (`cases/README.md`). With
//! `--overwrite` its create replaces an existing file, which the GA page allows and the beta page
//! does not.

use super::{Run, memspec, root, run_command};

fn independent(mode: &str, revision: &str) -> Run {
    let script = root().join("tests/backends/independent/memory.py");
    let mut command = memspec();
    command.args([
        "check",
        "--strict",
        "--format",
        "json",
        "--revision",
        revision,
    ]);
    command.arg("--backend");
    match mode {
        "folder" => command.arg(format!(
            "python3 {} --mode folder {{memories}}",
            script.display()
        )),
        "overwrite" => command.arg(format!(
            "python3 {} --overwrite --mode folder {{memories}}",
            script.display()
        )),
        _ => command
            .arg(format!("python3 {} --mode kv", script.display()))
            .arg("--not-on-folder"),
    };
    run_command(&mut command)
}

#[track_caller]
fn assert_strictly_conformant(run: &Run) {
    let above_info: Vec<String> = run
        .results()
        .iter()
        .flat_map(|result| {
            let id = result["id"].as_str().unwrap_or("?").to_string();
            result["findings"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .filter(|f| f["level"] != "INFO")
                .map(move |f| format!("{id}: {} {} {}", f["level"], f["rule"], f["message"]))
        })
        .collect();
    assert!(above_info.is_empty(), "{above_info:#?}\n{}", run.describe());
    assert_eq!(run.code, 0, "{}", run.describe());
    // It takes the other option somewhere: a suite it matched exactly would prove nothing.
    let infos = run
        .results()
        .iter()
        .filter(|r| r["outcome"] == "info")
        .count();
    assert!(infos > 100, "only {infos} cases differ at INFO");
}

#[test]
fn an_independent_folder_backend_passes_strict() {
    assert_strictly_conformant(&independent("folder", "ga-2026"));
    assert_strictly_conformant(&independent("folder", "beta-2025"));
}

#[test]
fn an_independent_key_value_backend_passes_strict() {
    assert_strictly_conformant(&independent("kv", "ga-2026"));
    assert_strictly_conformant(&independent("kv", "beta-2025"));
}

/// A backend that overwrites on create and is otherwise correct passes `--strict` under the GA
/// page, which says so in one INFO line, and fails under the beta page.
#[test]
fn overwriting_on_create_passes_under_ga_and_fails_under_beta() {
    let ga = independent("overwrite", "ga-2026");
    assert_strictly_conformant(&ga);
    let choices = &ga.json()["choices"];
    assert_eq!(
        choices,
        &serde_json::json!([{"rule": "create.may-overwrite", "choice": "overwrites", "taken": 8, "offered": 8}]),
        "{}",
        ga.describe()
    );
    let beta = independent("overwrite", "beta-2025");
    assert_eq!(beta.code, 1, "{}", beta.describe());
    let results = beta.results();
    let failed: Vec<&str> = results
        .iter()
        .filter(|r| r["outcome"] == "fail")
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert!(
        failed.contains(&"create.exists-is-error"),
        "under beta-2025 the overwrite fails create.exists-is-error: {failed:?}"
    );
    assert!(
        beta.results().iter().all(|r| r["choices"].is_null()),
        "no choice is offered under beta-2025"
    );
}
