//! Verdicts: what differs, between which results, at which level, against which rule.

use std::io::Write;

use memspec::backend::BackendSpec;
use memspec::diff::{Glyphs, render_unified_with};
use memspec::judge::Check;
use memspec::judge::Pair;
use memspec::replay::{self, Conclusion, ReplayOptions, StepKind};
use memspec::spec::Level;
use memspec::transcript;

use super::{proxy, read, replay_with, spec};

#[test]
fn the_fifty_step_transcript_against_the_reference() {
    let replayed = super::replay("sdk-python-50.request.json");
    let kinds: Vec<StepKind> = replayed.steps.iter().map(|s| s.verdict.kind).collect();
    // The SDK's listing header and sizes: a known dialect, not a failure.
    assert_eq!(kinds[0], StepKind::Dialect);
    let first = kinds.iter().position(|k| k.diverges());
    assert_eq!(first, Some(3), "{kinds:?}");
    let step = &replayed.steps[3];
    let headline = step
        .verdict
        .headline()
        .unwrap_or_else(|| panic!("no headline"));
    assert_eq!(headline.pair, Some(Pair::RecordedReference));
    assert_eq!(headline.level, Level::Must);
    assert_eq!(headline.rule, "view.file.content");
    // The replayed backend is the reference itself: it agrees with the reference everywhere.
    assert!(replayed.steps.iter().all(|s| {
        s.verdict
            .divergences
            .iter()
            .all(|d| d.pair != Some(Pair::BackendReference))
    }));
    // A phantom final line is the spec's open question, not a dialect.
    assert_eq!(kinds[5], StepKind::Open);
    assert_eq!(kinds[6], StepKind::NotReplayed);
    // create onto an existing file: the SDK's error lacks the prefix.
    let exists = &replayed.steps[17].verdict;
    assert_eq!(exists.kind, StepKind::Dialect);
    assert_eq!(
        exists.divergences[0].dialect.as_deref(),
        Some("error-prefix-missing")
    );
    assert_eq!(replayed.conclusion(), Conclusion::Differs);
}

#[test]
fn tab_against_spaces_is_a_must_difference_and_plain_in_the_diff() {
    let replayed = replay_with("request.json", proxy("expandtabs"), false);
    // The create stored spaces where the input had tabs: the folders differ from that step.
    let create = &replayed.steps[2].verdict;
    assert_eq!(create.kind, StepKind::Must);
    let effect = create.divergences.iter().find(|d| d.check == Check::Effect);
    assert_eq!(
        effect.map(|d| d.rule.as_str()),
        Some("create.writes-file-text")
    );
    assert_eq!(
        replayed.steps[2]
            .trees
            .as_ref()
            .and_then(|t| t.differ_since),
        Some(2)
    );
    // The view shows them: the backend's text breaks view.file.content.
    let view = &replayed.steps[3];
    let backend = view
        .verdict
        .divergences
        .iter()
        .find(|d| d.pair == Some(Pair::BackendReference))
        .unwrap_or_else(|| panic!("no backend divergence: {:?}", view.verdict));
    assert_eq!(
        (backend.level, backend.rule.as_str()),
        (Level::Must, "view.file.content")
    );
    let results = |a: &Option<memspec::judge::compare::Answer>| {
        a.as_ref()
            .and_then(|a| a.result())
            .map(|r| r.text.clone())
            .unwrap_or_default()
    };
    let diff = render_unified_with(
        &results(&view.reference),
        &results(&view.backend),
        Glyphs {
            tab_width: None,
            spaces_in_changes: true,
        },
    );
    assert!(
        diff.contains("-      1→name[-→-]product[-→-]delivery day"),
        "{diff}"
    );
    assert!(
        diff.contains("+      1→name{+····+}product{+·+}delivery day"),
        "{diff}"
    );
}

#[test]
fn a_faithful_backend_over_the_protocol_agrees_with_the_reference() {
    let replayed = replay_with("request.json", proxy("same"), false);
    for step in &replayed.steps {
        assert!(
            step.verdict
                .divergences
                .iter()
                .all(|d| d.pair != Some(Pair::BackendReference)),
            "{:?}",
            step.verdict
        );
    }
}

fn inputs_file(lines: &[&str]) -> tempfile::NamedTempFile {
    let mut file = tempfile::Builder::new()
        .suffix(".jsonl")
        .tempfile()
        .unwrap_or_else(|e| panic!("{e}"));
    for line in lines {
        writeln!(file, "{line}").unwrap_or_else(|e| panic!("{e}"));
    }
    file
}

fn replay_file(
    file: &tempfile::NamedTempFile,
    backend: BackendSpec,
    seed: Option<&std::path::Path>,
) -> replay::Replay {
    let options = ReplayOptions {
        backend,
        seed: seed.map(std::path::Path::to_path_buf),
        timeout: std::time::Duration::from_secs(10),
        check: false,
        revision: memspec::spec::Revision::Ga2026,
        user: None,
    };
    let transcript = transcript::read(file.path(), None).unwrap_or_else(|e| panic!("{e}"));
    replay::replay(transcript, &options, Some(&spec()), &memspec::events::Quiet)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_crash_is_a_verdict_and_the_backend_is_restarted() {
    let file = inputs_file(&[
        r#"{"command": "create", "path": "/memories/a.md", "file_text": "a\n"}"#,
        r#"{"command": "delete", "path": "/memories/a.md"}"#,
        r#"{"command": "view", "path": "/memories/a.md"}"#,
    ]);
    let replayed = replay_file(&file, proxy("crash-delete"), None);
    let kinds: Vec<StepKind> = replayed.steps.iter().map(|s| s.verdict.kind).collect();
    assert_eq!(kinds[1], StepKind::Broke);
    let reason = replayed.steps[1].verdict.reason.clone().unwrap_or_default();
    assert!(reason.contains("exited before answering"), "{reason}");
    // Restarted on the same folder: the file the crash did not delete is still there, which
    // the reference (which did delete it) disagrees with.
    assert_eq!(kinds[2], StepKind::Must, "{:?}", replayed.steps[2].verdict);
    assert_eq!(replayed.conclusion(), Conclusion::BackendBroke);
}

#[test]
fn content_from_outside_the_folder_is_a_confinement_failure() {
    let file = inputs_file(&[r#"{"command": "view", "path": "/memories/../canary.txt"}"#]);
    let replayed = replay_file(&file, proxy("leak"), None);
    let verdict = &replayed.steps[0].verdict;
    assert_eq!(verdict.kind, StepKind::Security);
    let leak = verdict.divergences.iter().find(|d| d.check == Check::Leak);
    assert_eq!(
        leak.map(|d| d.rule.as_str()),
        Some("confinement.all-operations"),
        "{verdict:?}"
    );
}

/// A backend that writes beside its memory folder on any command but `view`, and answers a
/// `view` with an error naming its host path.
const OVERSTEPPING: &str = r#"
import json, os, sys
memories = sys.argv[1]
for line in sys.stdin:
    request = json.loads(line)
    if "control" in request:
        print(json.dumps({"id": request["id"], "ok": False}), flush=True)
        continue
    if request["input"].get("command") == "view":
        text, error = "Error: cannot read " + os.path.join(memories, "missing.md"), True
    else:
        with open(os.path.join(memories, "..", "stray.txt"), "w") as stray:
            stray.write("stray\n")
        text, error = "File created successfully at: /memories/a.md", False
    print(json.dumps({"id": request["id"], "content": text, "is_error": error}), flush=True)
"#;

#[test]
fn confinement_is_checked_and_labelled_as_check_does() {
    let mut script = tempfile::Builder::new()
        .suffix(".py")
        .tempfile()
        .unwrap_or_else(|e| panic!("{e}"));
    script
        .write_all(OVERSTEPPING.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    let backend = BackendSpec::command(
        &format!("python3 {} {{memories}}", script.path().display()),
        None,
    );
    let file = inputs_file(&[
        r#"{"command": "create", "path": "/memories/a.md", "file_text": "a\n"}"#,
        r#"{"command": "view", "path": "/memories/missing.md"}"#,
    ]);
    let replayed = replay_file(&file, backend, None);
    let findings = |step: usize| -> Vec<(Check, String, Level)> {
        replayed.steps[step]
            .verdict
            .divergences
            .iter()
            .filter(|d| matches!(d.check, Check::Outside | Check::HostPath | Check::Leak))
            .map(|d| {
                assert_eq!(d.pair, Some(Pair::BackendReference));
                (d.check, d.rule.as_str().to_string(), d.level)
            })
            .collect()
    };
    // The write beside the folder: an `outside` finding, as `check` names it, reported once.
    assert_eq!(
        findings(0),
        [(
            Check::Outside,
            "confinement.all-operations".to_string(),
            Level::Must
        )]
    );
    let outside = &replayed.steps[0].verdict.divergences;
    assert!(
        outside.iter().any(|d| d
            .message
            .contains("something outside the memories folder was created, changed or deleted: stray.txt created")),
        "{outside:?}"
    );
    // The host path in the error: what `check` reports under errors.no-host-paths.
    let level = spec().level(&memspec::spec::known::NO_HOST_PATHS);
    assert_eq!(
        findings(1),
        [(Check::HostPath, "errors.no-host-paths".to_string(), level)]
    );
}

#[test]
fn both_folders_start_from_the_seed_which_is_never_changed() {
    let seed = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir(seed.path().join("notes")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(seed.path().join("notes/tea.md"), "- likes\ttea\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let file = inputs_file(&[
        r#"{"command": "view", "path": "/memories/notes/tea.md"}"#,
        r#"{"command": "delete", "path": "/memories/notes"}"#,
    ]);
    let replayed = replay_file(
        &file,
        BackendSpec::Reference(memspec::spec::Revision::Ga2026),
        Some(seed.path()),
    );
    let first = replayed.steps[0]
        .backend
        .as_ref()
        .and_then(|a| a.result())
        .map(|r| r.text.clone());
    assert_eq!(
        first.as_deref(),
        Some(
            "Here's the content of /memories/notes/tea.md with line numbers:\n     1\t- likes\ttea"
        )
    );
    assert!(
        replayed
            .steps
            .iter()
            .all(|s| s.verdict.kind == StepKind::Same)
    );
    assert!(seed.path().join("notes/tea.md").is_file());
}

#[test]
fn every_step_keeps_the_backend_folder_as_a_tree() {
    let replayed = super::replay("request.json");
    let tree = replayed.steps[2]
        .trees
        .as_ref()
        .and_then(|t| t.backend.clone())
        .unwrap_or_default();
    let paths: Vec<&str> = tree.entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["profile.md", "suppliers.tsv"]);
    let suppliers = tree
        .get("suppliers.tsv")
        .unwrap_or_else(|| panic!("no suppliers.tsv"));
    assert!(suppliers.head.starts_with(b"name\tproduct"));
    assert_eq!(
        suppliers.size as usize,
        read("request.json").calls[2].input["file_text"]
            .as_str()
            .map_or(0, str::len)
    );
}

#[test]
fn folders_updated_path_by_path_match_full_scans() {
    // The reference's folder is rescanned only where a call changed it; a backend over the
    // protocol is scanned whole. Over 50 calls (nested creates, folder renames, deletes) the
    // two must always agree.
    let replayed = replay_with("sdk-python-50.request.json", proxy("same"), false);
    let mut compared = 0;
    for (i, step) in replayed.steps.iter().enumerate() {
        let Some(trees) = &step.trees else { continue };
        let backend = trees.backend.clone().unwrap_or_default();
        assert_eq!(*backend, *trees.reference, "step {}", i + 1);
        compared += 1;
    }
    assert_eq!(compared, 50);
}
