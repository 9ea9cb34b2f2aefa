//! The guard against a suite that fits itself to the reference: an independent backend
//! (`tests/backends/independent/memory.py`), written from the spec alone, takes the other option
//! at every decision its storage allows. It must pass `--strict` with no MUST failure and no
//! SHOULD warning, on a folder and as a key-value store: a check above INFO may depend only on
//! what the spec states (`cases/README.md`).

use super::{Run, memspec, root, run_command};

fn independent(mode: &str) -> Run {
    let script = root().join("tests/backends/independent/memory.py");
    let mut command = memspec();
    command.args(["check", "--strict", "--format", "json", "--backend"]);
    match mode {
        "folder" => command.arg(format!(
            "python3 {} --mode folder {{memories}}",
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
    assert_strictly_conformant(&independent("folder"));
}

#[test]
fn an_independent_key_value_backend_passes_strict() {
    assert_strictly_conformant(&independent("kv"));
}
