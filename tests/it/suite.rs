//! The suite itself: its size, its coverage of the spec, and the lint that guards it.

use std::path::{Path, PathBuf};

use memspec::spec::Level;
use memspec::spec::Spec;
use memspec::suite::coverage::coverage;
use memspec::suite::load::{self, LintProblem};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn spec() -> Spec {
    Spec::load(&repo().join("spec"), memspec::spec::Revision::Ga2026)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_rule_of_the_spec_is_checked_by_a_case() {
    let spec = spec();
    let suite = load::load(&repo().join("cases"), &spec).unwrap_or_else(|e| panic!("{e}"));
    let uncovered: Vec<&str> = coverage(&spec, &suite)
        .iter()
        .filter(|row| row.cases.is_empty())
        .map(|row| row.rule.id.as_str())
        .collect();
    assert!(uncovered.is_empty(), "rules without a case: {uncovered:?}");
}

#[test]
fn the_suite_is_large_and_hostile_enough() {
    let suite = load::load(&repo().join("cases"), &spec()).unwrap_or_else(|e| panic!("{e}"));
    let hostile = suite.cases.iter().filter(|c| c.case.hostile).count();
    assert!(suite.cases.len() >= 250, "{} cases", suite.cases.len());
    assert!(hostile >= 80, "{hostile} hostile cases");
    // Every command is attacked: a hostile case for each of the six.
    for command in [
        "view",
        "create",
        "str_replace",
        "insert",
        "delete",
        "rename",
    ] {
        let attacked = suite
            .cases
            .iter()
            .filter(|c| c.case.hostile)
            .any(|c| c.case.steps.iter().any(|s| s.input["command"] == command));
        assert!(attacked, "no hostile case for {command}");
    }
}

#[test]
fn the_built_in_suite_is_every_case_file_of_the_repository() {
    // `builtin::CASES` is a hand-kept list of include_str!s: a new file must be added to it.
    let mut on_disk: Vec<String> = std::fs::read_dir(repo().join("cases"))
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .collect();
    on_disk.sort();
    let built_in: Vec<&str> = memspec::builtin::CASES
        .iter()
        .map(|(name, _)| *name)
        .collect();
    assert_eq!(built_in, on_disk, "update src/builtin.rs");
    let spec = Spec::builtin(memspec::spec::Revision::Ga2026).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(spec.rules().count(), self::spec().rules().count());
    let source = memspec::builtin::Source::Builtin;
    let built_in = load::load_from(&source, &spec).unwrap_or_else(|e| panic!("{e}"));
    let from_disk = load::load(&repo().join("cases"), &spec).unwrap_or_else(|e| panic!("{e}"));
    let ids = |suite: &load::Suite| -> Vec<String> {
        suite.cases.iter().map(|c| c.case.id.clone()).collect()
    };
    assert_eq!(ids(&built_in), ids(&from_disk));
}

/// Lints one case file written into a scratch folder.
fn lint_one(file: &str) -> Vec<LintProblem> {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.path().join("create.json"), file).unwrap_or_else(|e| panic!("{e}"));
    lint_dir(dir.path())
}

fn lint_dir(dir: &Path) -> Vec<LintProblem> {
    load::lint(dir, &spec()).unwrap_or_else(|e| panic!("{e}")).1
}

const GOOD_STEP: &str = r#"{"input": {"command": "view", "path": "/memories"}, "is_error": false}"#;

fn case(id: &str, rules: &str, step: &str) -> String {
    format!(r#"{{"id": "{id}", "title": "t", "rules": {rules}, "steps": [{step}]}}"#)
}

fn file(cases: &[String]) -> String {
    format!(r#"{{"area": "create", "cases": [{}]}}"#, cases.join(","))
}

#[test]
fn lint_accepts_a_good_case() {
    let problems = lint_one(&file(&[case(
        "create.ok",
        r#"["create.success"]"#,
        GOOD_STEP,
    )]));
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn lint_rejects_duplicate_ids_unknown_rules_and_bad_matchers() {
    let problems = lint_one(&file(&[
        case("create.twice", r#"["create.success"]"#, GOOD_STEP),
        case("create.twice", r#"["create.success"]"#, GOOD_STEP),
        case(
            "create.unknown-rule",
            r#"["create.no-such-rule"]"#,
            GOOD_STEP,
        ),
        case("view.wrong-area", r#"["create.success"]"#, GOOD_STEP),
        case(
            "create.bad-template",
            r#"["create.success"]"#,
            r#"{"input": {"command": "view", "path": "/memories"}, "text": {"template": "{sizes}"}}"#,
        ),
        case(
            "create.no-expectation",
            r#"["create.success"]"#,
            r#"{"input": {"command": "view"}}"#,
        ),
        format!(
            r#"{{"id": "create.harmless-attack", "title": "t", "rules": ["create.success"], "hostile": true, "steps": [{GOOD_STEP}]}}"#
        ),
    ]));
    let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
    let has = |needle: &str| text.iter().any(|p| p.contains(needle));
    assert!(has("case `create.twice`: duplicate id"), "{text:#?}");
    assert!(has("unknown rule id `create.no-such-rule`"), "{text:#?}");
    assert!(
        has("case `view.wrong-area`: id must be `create.`"),
        "{text:#?}"
    );
    assert!(has("unknown placeholder `{sizes}`"), "{text:#?}");
    assert!(
        has("case `create.no-expectation`: step 1 expects nothing"),
        "{text:#?}"
    );
    assert!(
        has("case `create.harmless-attack`: a hostile case must have a step"),
        "{text:#?}"
    );
    assert_eq!(problems.len(), 6, "{text:#?}");
}

/// Only a create of a `/memories/...` path with its text can be planted on disk by the harness.
#[test]
fn lint_accepts_a_planted_create_and_rejects_other_plants() {
    let planted = |input: &str| {
        format!(
            r#"{{"id": "create.planted", "title": "t", "rules": ["create.success"], "setup": [{{"input": {input}, "plant": true}}], "steps": [{GOOD_STEP}]}}"#
        )
    };
    let good = planted(r#"{"command": "create", "path": "/memories/a.txt", "file_text": "a"}"#);
    let problems = lint_one(&file(&[good]));
    assert!(problems.is_empty(), "{problems:?}");
    for bad in [
        r#"{"command": "delete", "path": "/memories/a.txt"}"#,
        r#"{"command": "create", "path": "/elsewhere/a.txt", "file_text": "a"}"#,
        r#"{"command": "create", "path": "/memories/a.txt"}"#,
    ] {
        let problems = lint_one(&file(&[planted(bad)]));
        let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert!(
            text.len() == 1 && text[0].contains("setup call 1 is planted, but only"),
            "{bad}: {text:#?}"
        );
    }
}

/// In a case of many users no setup call is planted, with a user or without: where a user's
/// memories lie is the backend's choice.
#[test]
fn lint_rejects_plants_in_a_case_of_many_users() {
    let users_case = |setup: &str| {
        format!(
            r#"{{"area": "users", "cases": [{{"id": "users.x", "title": "t", "rules": ["users.isolated"], "users": ["u1", "u2"], "setup": [{setup}], "steps": [{GOOD_STEP}]}}]}}"#
        )
    };
    let create = r#"{"command": "create", "path": "/memories/a.txt", "file_text": "a"}"#;
    let good = lint_one(&users_case(&format!(
        r#"{{"input": {create}, "user": "u2"}}"#
    )));
    assert!(good.is_empty(), "{good:?}");
    for setup in [
        format!(r#"{{"input": {create}, "user": "u2", "plant": true}}"#),
        format!(r#"{{"input": {create}, "plant": true}}"#),
    ] {
        let problems = lint_one(&users_case(&setup));
        let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert!(
            text.len() == 1 && text[0].contains("setup call 1 of a case of many users is planted"),
            "{setup}: {text:#?}"
        );
    }
}

/// A view of `/memories`, or of a folder the setup made, is graded under `view.dir.*`: its
/// flag filed under `view.file.*` would name the wrong command's rule.
#[test]
fn lint_rejects_a_folder_view_graded_as_a_file() {
    let viewing = |path: &str, rule: &str| {
        format!(
            r#"{{"area": "view", "cases": [{{"id": "view.x", "title": "t", "rules": ["view.dir.contents"], "setup": [{{"command": "create", "path": "/memories/d/a.txt", "file_text": "a"}}], "steps": [{{"input": {{"command": "view", "path": "{path}"}}, "is_error": false, "is_error_rule": "{rule}"}}]}}]}}"#
        )
    };
    for path in ["/memories", "/memories/d", "/memories/d/"] {
        let problems = lint_one(&viewing(path, "view.file.content"));
        let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert!(
            text.len() == 1
                && text[0].contains(
                    "step 1 views a folder, but grades its flag under a view.file.* rule"
                ),
            "{path}: {text:#?}"
        );
    }
    for (path, rule) in [
        ("/memories/d", "view.dir.contents"),
        ("/memories/d/a.txt", "view.file.content"),
        ("/memories/dd", "view.file.content"),
    ] {
        let problems = lint_one(&viewing(path, rule));
        assert!(problems.is_empty(), "{path} {rule}: {problems:?}");
    }
}

#[test]
fn lint_names_the_file_of_a_malformed_case() {
    let problems = lint_one(r#"{"area": "create", "cases": [{"id": "create.x", "steps": []}]}"#);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].file, "create.json");
    assert!(
        problems[0].message.contains("missing field `title`"),
        "{}",
        problems[0]
    );
}

#[test]
fn no_check_above_info_names_a_decision_and_levels_come_from_rules() {
    let spec = spec();
    let suite = load::load(&repo().join("cases"), &spec).unwrap_or_else(|e| panic!("{e}"));
    let mut bad = Vec::new();
    for loaded in &suite.cases {
        let graded = loaded
            .steps
            .iter()
            .flat_map(|s| [&s.is_error, &s.text, &s.must_not_contain])
            .chain(&loaded.effects)
            .chain([
                &loaded.main,
                &loaded.always.confinement,
                &loaded.always.host_paths,
            ]);
        for g in graded {
            let rule = spec.get(g.rule.as_str()).map(|r| r.level);
            if rule != Some(g.level) || (g.rule.is_decision() && g.level != Level::Info) {
                bad.push(format!(
                    "{}: {} at {}",
                    loaded.case.id,
                    g.rule,
                    g.level.as_str()
                ));
            }
        }
        for (i, (step, rules)) in loaded.case.steps.iter().zip(&loaded.steps).enumerate() {
            if step.text.is_some() && rules.text.level == Level::Must {
                bad.push(format!(
                    "{} step {}: a wording graded MUST",
                    loaded.case.id,
                    i + 1
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn a_level_override_is_refused_naming_its_case() {
    for field in [
        r#""level": "MUST""#,
        r#""steps": [{"input": {"command": "view", "path": "/memories"}, "is_error": false, "text_level": "MUST"}]"#,
    ] {
        let body = if field.starts_with(r#""steps""#) {
            format!(r#"{{"id": "create.x", "title": "t", "rules": ["create.success"], {field}}}"#)
        } else {
            format!(
                r#"{{"id": "create.x", "title": "t", "rules": ["create.success"], {field}, "steps": [{{"input": {{}}, "is_error": true}}]}}"#
            )
        };
        let problems = lint_one(&format!(r#"{{"area": "create", "cases": [{body}]}}"#));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(
            problems[0].case.as_deref(),
            Some("create.x"),
            "{problems:?}"
        );
        assert!(
            problems[0].message.contains("unknown field"),
            "{}",
            problems[0]
        );
    }
}

#[test]
fn a_wording_graded_must_is_refused() {
    let problems = lint_one(&file(&[case(
        "create.pinned",
        r#"["create.no-overwrite"]"#,
        r#"{"input": {"command": "create", "path": "/memories/a", "file_text": ""}, "text": "File created successfully at: /memories/a"}"#,
    )]));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0]
            .message
            .contains("graded MUST through rule `create.no-overwrite`"),
        "{}",
        problems[0]
    );
}
