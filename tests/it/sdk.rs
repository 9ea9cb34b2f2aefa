//! The official SDK helpers, run through the adapters against the whole suite, must match their
//! checked-in baselines exactly, and dropping any single entry must make the run fail. The
//! baselines list no INFO outcome (they never fail a run), and the runs still match.
//!
//! The helpers are installed by `.ci/install-sdks` (run by `.ci/run`). Without them these tests
//! fail under CI and are skipped, with the reason printed, on a developer's machine.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use memspec::check::baseline::Baseline;
use memspec::judge::grade::CaseResult;
use memspec::spec::{Revision, Spec};
use memspec::suite::load;
use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The three official helpers: name of the baseline file and the backend command.
const HELPERS: [(&str, &str); 3] = [
    (
        "python-sdk",
        ".ci/.venv/bin/python adapters/python/memspec_adapter.py anthropic-local-fs --base {base}",
    ),
    (
        "python-sdk-async",
        ".ci/.venv/bin/python adapters/python/memspec_adapter.py anthropic-local-fs-async --base {base}",
    ),
    (
        "typescript-sdk",
        "node adapters/node/memspec-adapter.mjs anthropic-local-fs --base {base}",
    ),
];

/// Whether the helpers are installed; panics under CI when they are not.
pub fn installed() -> bool {
    let root = repo();
    let present = root.join(".ci/.venv/bin/python").exists()
        && root
            .join("adapters/node/node_modules/@anthropic-ai/sdk")
            .exists();
    if !present {
        assert!(
            std::env::var_os("CI").is_none(),
            "the official SDK helpers are not installed: run `bash .ci/install-sdks` (.ci/run does)"
        );
        eprintln!(
            "skipped: the official SDK helpers are not installed; run `bash .ci/install-sdks`"
        );
    }
    present
}

fn check(backend: &str, revision: Revision, baseline: &Path, extra: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_memspec"));
    command
        .current_dir(repo())
        .args(["check", "--backend", backend, "--revision", revision.id()])
        .arg("--baseline")
        .arg(baseline)
        .args(["--format", "json", "--full-texts"])
        .args(extra);
    match command.output() {
        Ok(output) => output,
        Err(e) => panic!("cannot run memspec: {e}"),
    }
}

/// Each revision has its own baselines: an outcome means something only under the page it was
/// judged by.
fn baseline_path(revision: Revision, name: &str) -> PathBuf {
    repo()
        .join("baselines")
        .join(revision.id())
        .join(format!("{name}.json"))
}

fn read_baseline(revision: Revision, name: &str) -> Value {
    let text = std::fs::read_to_string(baseline_path(revision, name))
        .unwrap_or_else(|e| panic!("baseline {name}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("baseline {name}: {e}"))
}

fn explain(output: &Output) -> String {
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    let problems = &report["report"]["baseline_problems"];
    format!(
        "exit {:?}\nbaseline problems: {problems:#}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    )
}

// One test per revision: the longest runs of the binary, side by side on the CI's two cores.
#[test]
fn official_helpers_match_their_beta_baselines() {
    if installed() {
        helpers_match_their_baselines(Revision::Beta2025);
    }
}

#[test]
fn official_helpers_match_their_ga_baselines() {
    if installed() {
        helpers_match_their_baselines(Revision::Ga2026);
    }
}

fn helpers_match_their_baselines(revision: Revision) {
    let spec = Spec::load(&repo().join("spec"), revision).unwrap_or_else(|e| panic!("{e}"));
    let suite = load::load(&repo().join("cases"), &spec).unwrap_or_else(|e| panic!("{e}"));
    for (name, backend) in HELPERS {
        let path = baseline_path(revision, name);
        let name = &format!("{revision}/{name}");
        let output = check(backend, revision, &path, &[]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{name}: {}",
            explain(&output)
        );
        // Every entry is load-bearing: the same results against the baseline without any one
        // of its entries report that case as a difference (the end-to-end run of a few such
        // reduced baselines is in `removing_any_baseline_entry_fails_the_run`).
        let report: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        let results: Vec<CaseResult> = serde_json::from_value(report["report"]["results"].clone())
            .unwrap_or_else(|e| panic!("{name}: results in the JSON report: {e}"));
        let baseline = Baseline::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        // The races' entries are results of `--clients N` runs only (checked by
        // `the_helpers_races_match_their_baselines`).
        for (i, entry) in baseline
            .accepted
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.case.starts_with("race."))
        {
            let mut reduced = baseline.clone();
            reduced.accepted.remove(i);
            let mut rerun = results.clone();
            for result in &mut rerun {
                result.baselined = None;
            }
            let problems = reduced.apply(&suite, &mut rerun);
            assert!(
                problems
                    .iter()
                    .any(|p| p.contains(&format!("`{}`", entry.case))),
                "{name}: without the entry for {} the run would still pass: {problems:?}",
                entry.case
            );
        }
    }
}

/// Drops one entry of each failing outcome kind (and the first and last) from each baseline and
/// runs just that case: the run must fail, because the deviation is no longer accepted. An INFO
/// outcome needs no entry: the helpers' INFO cases pass against baselines that list none.
#[test]
fn removing_any_baseline_entry_fails_the_run() {
    if !installed() {
        return;
    }
    let scratch = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    for (revision, (name, backend)) in Revision::ALL
        .into_iter()
        .flat_map(|r| HELPERS.into_iter().map(move |h| (r, h)))
    {
        let baseline = read_baseline(revision, name);
        let entries = baseline["accepted"].as_array().cloned().unwrap_or_default();
        assert!(
            !entries.is_empty(),
            "{name}: the baseline lists no deviation"
        );
        assert!(
            entries.iter().all(|e| e["outcome"] != "info"),
            "{name}: the baseline lists INFO outcomes; INFO never fails a run"
        );
        let path = baseline_path(revision, name);
        let info = check(
            backend,
            revision,
            &path,
            &["--level", "info", "--area", "create"],
        );
        assert_eq!(info.status.code(), Some(0), "{name}: {}", explain(&info));
        let report: Value = serde_json::from_slice(&info.stdout).unwrap_or(Value::Null);
        assert!(
            report["counts"]["info"].as_u64().unwrap_or(0) > 0,
            "{name}: no INFO outcome to leave unlisted: {}",
            explain(&info)
        );
        assert_eq!(
            report["report"]["baseline_problems"],
            serde_json::json!([]),
            "{name}"
        );
        let mut picked: Vec<usize> = vec![0, entries.len() - 1];
        for outcome in ["warn", "fail", "error"] {
            if let Some(i) = entries.iter().position(|e| e["outcome"] == outcome) {
                picked.push(i);
            }
        }
        picked.sort_unstable();
        picked.dedup();
        for i in picked {
            let case = entries[i]["case"].as_str().unwrap_or_default().to_string();
            let mut reduced = baseline.clone();
            if let Some(list) = reduced["accepted"].as_array_mut() {
                list.remove(i);
            }
            let path = scratch.path().join(format!("{revision}-{name}-{i}.json"));
            std::fs::write(&path, reduced.to_string()).unwrap_or_else(|e| panic!("write: {e}"));
            // A race is a result of a run with several clients only.
            let races: &[&str] = if case.starts_with("race.") {
                &["--clients", "4"]
            } else {
                &[]
            };
            let output = check(
                backend,
                revision,
                &path,
                &[&["--case", &case], races].concat(),
            );
            assert_ne!(
                output.status.code(),
                Some(0),
                "{name}: the run still passes without the entry for {case}"
            );
            let report: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
            let problems = report["report"]["baseline_problems"].to_string();
            assert!(
                problems.contains(&case) || report["verdict"] == "backend_broke",
                "{name}: removing {case} is not reported: {}",
                explain(&output)
            );
        }
    }
}

/// The helpers raced by four clients on one store (`check --clients 4`, the races only): what
/// their baselines record (both rewrite a file without a lock, so one `str_replace` of
/// `race.edit-edit` is lost), under both revisions.
#[test]
fn the_helpers_races_match_their_baselines() {
    if !installed() {
        return;
    }
    for revision in Revision::ALL {
        for (name, backend) in HELPERS {
            let path = baseline_path(revision, name);
            let output = check(
                backend,
                revision,
                &path,
                &["--clients", "4", "--area", "races"],
            );
            assert_eq!(
                output.status.code(),
                Some(0),
                "{revision}/{name}: {}",
                explain(&output)
            );
            let report: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
            let results = report["report"]["results"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            assert_eq!(results.len(), 4, "{revision}/{name}: the four races");
        }
    }
}
