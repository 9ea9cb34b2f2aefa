//! The guard against a suite that fits itself to the reference: an independent backend
//! (`tests/backends/independent/memory.py`), written from the spec alone, takes the other option
//! at every decision its storage allows. It must pass `--strict` with no MUST failure and no
//! SHOULD warning, on a folder and as a key-value store, under both revisions of the page: a
//! check above INFO may depend only on what the spec states (`cases/README.md`). With
//! `--overwrite` its create replaces an existing file, which the GA page allows and the beta page
//! does not.

use super::{Run, memspec, root, run_command};

fn independent(mode: &str, revision: &str) -> Run {
    variant(mode, "", revision)
}

/// The independent backend in `mode` (`folder`, `overwrite` or `kv`) with the variant's
/// `flags` (see its docstring), judged by `revision` with `--strict`.
fn variant(mode: &str, flags: &str, revision: &str) -> Run {
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
            "python3 {} --mode folder {flags} {{memories}}",
            script.display()
        )),
        "overwrite" => command.arg(format!(
            "python3 {} --overwrite --mode folder {flags} {{memories}}",
            script.display()
        )),
        _ => command
            .arg(format!("python3 {} --mode kv {flags}", script.display()))
            .arg("--not-on-folder"),
    };
    run_command(&mut command)
}

/// The findings above INFO of a run, as `LEVEL rule` with their counts.
fn above_info(run: &Run) -> std::collections::BTreeMap<String, usize> {
    let mut counts = std::collections::BTreeMap::new();
    for result in run.results() {
        for finding in result["findings"].as_array().cloned().unwrap_or_default() {
            if finding["level"] != "INFO" {
                let key = format!(
                    "{} {}",
                    finding["level"].as_str().unwrap_or("?"),
                    finding["rule"].as_str().unwrap_or("?")
                );
                *counts.entry(key).or_insert(0) += 1;
            }
        }
    }
    counts
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
        &serde_json::json!([
            // Offered on 9 steps, taken on 8: onto a link inside (symlinks.create-onto-internal-link)
            // this store refuses, as it may.
            {"rule": "create.may-overwrite", "choice": "overwrites", "taken": 8, "offered": 9},
            {"rule": "decide.key-value-folders", "choice": "keeps a file and a folder of one name", "taken": 0, "offered": 2},
            // paths.max-length: its folder refuses a path of 4,096 bytes (ENAMETOOLONG), cleanly.
            {"rule": "decide.limits", "choice": "refuses long paths", "taken": 1, "offered": 1}
        ]),
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
    // The overwrite is no choice under beta-2025; a store of keys' folders are, in either.
    assert!(
        beta.results().iter().all(|r| r["choices"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|c| c["rule"] != "create.may-overwrite")),
        "create.may-overwrite is not offered under beta-2025"
    );
}

/// Variants that take what the page leaves open, each in one of its storages and revisions (the
/// other combinations were measured alike; a run costs seconds): a view that shows CRLF lines
/// without their `\r`, a store of keys whose folders are prefixes (they vanish with their last
/// key; a file and a folder of one name coexist), a 100,000-byte size cap. Each passes
/// `--strict`: what memspec cannot read through the view is unverified, and what the backend
/// may refuse or keep is its choice, never a failure.
#[test]
fn independent_variants_the_page_allows_pass_strict() {
    for (mode, flags, revision) in [
        ("folder", "--crlf-hidden", "ga-2026"),
        ("kv", "--crlf-hidden", "beta-2025"),
        ("kv", "--vanishing-parents", "ga-2026"),
        ("kv", "--vanishing-parents", "beta-2025"),
        ("kv", "--size-cap 100000", "ga-2026"),
        ("folder", "--size-cap 100000", "beta-2025"),
    ] {
        let run = variant(mode, flags, revision);
        assert!(
            above_info(&run).is_empty(),
            "{mode} {flags} {revision}: {:#?}\n{}",
            above_info(&run),
            run.describe()
        );
        assert_eq!(run.code, 0, "{mode} {flags} {revision}: {}", run.describe());
    }
}

/// Variants whose wording or numbering differs from the page's recommended strings: their
/// views are read whatever the numbering (`   1: text`), their "not found" answers are read as
/// absence with or without the flag, and what remains is wording (SHOULD, as GA A11 keeps the
/// strings recommendations) and, without `is_error`, the flag: never a MUST about the store.
#[test]
fn independent_variants_in_other_words_fail_only_on_words_and_flags() {
    let not_found = "--not-found 'Error: path not found: {path}'";
    for (mode, flags, revision, flag_faults) in [
        ("kv", "--numbering colon", "ga-2026", false),
        ("folder", "--numbering colon", "beta-2025", false),
        ("kv", not_found, "ga-2026", false),
        (
            "kv",
            &format!("{not_found} --no-error-flag"),
            "beta-2025",
            true,
        ),
    ] {
        let run = variant(mode, flags, revision);
        let musts: Vec<String> = above_info(&run)
            .into_keys()
            .filter(|k| k.starts_with("MUST"))
            .filter(|k| !(flag_faults && k == "MUST errors.is-error-flag"))
            // The wide folder's step that renames a missing file names its flag rename.moves.
            .filter(|k| !(flag_faults && k == "MUST rename.moves"))
            .collect();
        assert!(
            musts.is_empty(),
            "{mode} {flags} {revision}: {musts:?}\n{}",
            run.describe()
        );
        let flags_found = above_info(&run).contains_key("MUST errors.is-error-flag");
        assert_eq!(flags_found, flag_faults, "{mode} {flags} {revision}");
    }
}

/// The page gives no order for a listing's lines: the reference with every listing reversed
/// (its root line still first) passes `--strict`, and only the order's own decision,
/// `decide.listing-order`, says it differs.
#[test]
fn a_listing_in_another_order_passes_strict() {
    let run = super::check(Some("listing_reversed"), None, &[], &["--strict"]);
    assert!(above_info(&run).is_empty(), "{}", run.describe());
    assert_eq!(run.code, 0, "{}", run.describe());
    let results = run.results();
    // The users cases are skipped: a backend of one store takes no user.
    let differ: Vec<&str> = results
        .iter()
        .filter(|r| r["outcome"] != "pass" && r["area"] != "users")
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(differ, ["view-dir.listing-order"], "{}", run.describe());
}
