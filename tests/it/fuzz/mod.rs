//! `memspec fuzz` and `check --clients`: the deliberately broken key-value backends of
//! `tests/backends/kv/` found and shrunk, a correct one left alone.
//!
//! Each broken backend has one bug of the kinds real stores have; with a fixed seed the fuzzer
//! must find it within its 60-second budget, shrink it to at most 6 steps, and keep a case that
//! `memspec check --cases` fails on that backend and passes on the reference. The two race
//! backends break only with two clients on one (`--shared`) store.

mod users;

use std::path::Path;

use serde_json::Value;

use crate::check::{Run, memspec, root, run_command};

/// The `--backend` command of `tests/backends/kv/<name>.py`.
fn kv(name: &str, extra: &str) -> String {
    let script = root().join("tests/backends/kv").join(format!("{name}.py"));
    assert!(script.is_file(), "no kv backend {}", script.display());
    format!("python3 {} {extra}{{memories}}", script.display())
}

/// Runs memspec with the shared SQLite stores of `--shared` backends in `store`.
fn memspec_in(store: &Path, args: &[&str]) -> Run {
    run_command(memspec().env("MEMSPEC_KV_DIR", store).args(args))
}

/// The number after `shrunk from … to ` in the human report: the shrunk sequence's steps.
fn shrunk_steps(stdout: &str) -> usize {
    let at = stdout
        .find(" steps to ")
        .or_else(|| stdout.find(" step to "))
        .unwrap_or_else(|| panic!("no shrink in the report:\n{stdout}"));
    let rest = &stdout[at..];
    let rest = &rest[rest.find(" to ").unwrap_or(0) + 4..];
    rest.split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no step count in {rest:?}"))
}

/// The outcome of the only case of `cases` on `backend` (the reference for `None`).
fn case_outcome(cases: &Path, backend: Option<&str>) -> String {
    let mut command = memspec();
    command
        .args(["check", "--format", "json", "--no-recheck", "--cases"])
        .arg(cases);
    if let Some(backend) = backend {
        command.args(["--backend", backend, "--not-on-folder"]);
    }
    let run = run_command(&mut command);
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("check's JSON: {e}\n{}\n{}", run.stdout, run.stderr));
    let results = report["report"]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(results.len(), 1, "{}", run.stdout);
    results[0]["outcome"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Fuzzes the broken backend `name` with seed 1 and checks what it kept.
fn found_and_shrunk(name: &str) {
    let out = tempfile::tempdir().expect("temp dir");
    let backend = kv(name, "");
    let kept = out.path().join("kept");
    std::fs::create_dir(&kept).expect("kept dir");
    let run = memspec_in(
        out.path(),
        &[
            "fuzz",
            "--backend",
            &backend,
            "--not-on-folder",
            "--seed",
            "1",
            // A step budget rather than time: the same verdict on a loaded machine. The time it
            // takes is measured by benches/fuzz_finds.sh (each within 60 s).
            "--steps",
            "60000",
            "-o",
            &kept.display().to_string(),
        ],
    );
    assert_eq!(
        run.code, 1,
        "{name}: not found\n{}\n{}",
        run.stdout, run.stderr
    );
    let steps = shrunk_steps(&run.stdout);
    assert!(
        steps <= 6,
        "{name}: shrunk to {steps} steps\n{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("as a case: fail on the backend, pass on the reference")
            || run
                .stdout
                .contains("as a case: warn on the backend, pass on the reference"),
        "{name}: the kept case does not reproduce it\n{}",
        run.stdout
    );
    // The kept case, run by `check --cases` as a user would: fails (or warns) on the backend,
    // passes on the reference.
    let backend_outcome = case_outcome(&kept, Some(&backend));
    assert!(
        backend_outcome == "fail" || backend_outcome == "warn",
        "{name}: the kept case gives {backend_outcome} on the backend"
    );
    assert_eq!(
        case_outcome(&kept, None),
        "pass",
        "{name}: on the reference"
    );
    // The transcript beside it replays the divergence.
    let transcript = std::fs::read_dir(&kept)
        .expect("kept")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .expect("a transcript");
    let replay = run_command(
        memspec()
            .args([
                "replay",
                "--report",
                "--backend",
                &backend,
                "--not-on-folder",
            ])
            .arg(&transcript),
    );
    assert_ne!(
        replay.code, 0,
        "{name}: the transcript replays clean\n{}",
        replay.stdout
    );
}

macro_rules! broken {
    ($($test:ident => $name:literal,)*) => {
        $(
            #[test]
            fn $test() {
                found_and_shrunk($name);
            }
        )*
    };
}

broken! {
    a_delete_that_scans_a_prefix_is_found => "prefix_delete",
    a_rename_that_moves_only_children_is_found => "shallow_rename",
    a_stale_read_cache_is_found => "stale_cache",
    a_listing_cut_at_100_is_found => "listing_cut",
    content_cut_at_64_kib_is_found => "content_cut",
    slash_and_underscore_on_one_key_are_found => "separator_key",
    a_delete_taken_as_a_glob_is_found => "glob_delete",
    a_view_taken_as_sql_like_is_found => "like_view",
    nfc_folded_names_are_found => "nfc_names",
    sizes_in_characters_are_found => "char_sizes",
    case_folded_keys_are_found => "case_fold",
    stripped_trailing_dots_are_found => "trailing_dot",
    a_rename_that_overwrites_is_found => "rename_clobbers",
    a_slash_kept_in_moved_keys_is_found => "slash_kept",
}

/// A fuzz run that found nothing (exit 0) and that reached `what`, an answer the spec leaves
/// open, in some sequence: such a sequence stops there, unjudged, and the report counts it.
fn found_nothing_but_stopped_early(run: &Run, what: &str) {
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("stopped early where the spec leaves the answer open"),
        "no sequence reached {what}:\n{}",
        run.stdout
    );
}

/// A path limit refused cleanly is a choice under `fuzz` as under `check` (`decide.limits`):
/// the sequences that reach it stop there, unjudged, and nothing is found. (Its kept case was
/// `info` under `check` and a MUST under `fuzz`.)
#[test]
fn a_clean_path_limit_is_no_divergence() {
    let store = tempfile::tempdir().expect("temp dir");
    let run = memspec_in(
        store.path(),
        &[
            "fuzz",
            "--backend",
            &kv("path_limit", ""),
            "--not-on-folder",
            "--seed",
            "1",
            "--steps",
            "3000",
        ],
    );
    found_nothing_but_stopped_early(&run, "the limit");
}

/// The two race backends are correct with one client and broken with two on one store. A lost
/// acknowledged edit is a memory lost (MUST, `fail`); two creates both told they created one
/// path break a SHOULD (`warn`).
#[test]
fn lost_updates_and_double_creates_show_with_two_clients_only() {
    let store = tempfile::tempdir().expect("temp dir");
    for (name, revision, rule, outcome) in [
        (
            "lost_update",
            "ga-2026",
            "concurrency.no-lost-update",
            "fail",
        ),
        (
            "double_create",
            "beta-2025",
            "concurrency.one-create",
            "warn",
        ),
    ] {
        let shared = kv(name, &format!("--shared --revision {revision} "));
        let raced = memspec_in(
            store.path(),
            &[
                "fuzz",
                "--backend",
                &shared,
                "--not-on-folder",
                "--revision",
                revision,
                "--clients",
                "2",
                "--seed",
                "1",
                "--time",
                "60",
            ],
        );
        assert_eq!(raced.code, 1, "{name}\n{}\n{}", raced.stdout, raced.stderr);
        assert!(raced.stdout.contains(rule), "{name}\n{}", raced.stdout);
        // No case is kept of a race, and the report says so, with how to run it again.
        assert!(
            raced
                .stdout
                .contains("not kept: a race is no sequence of steps")
                && raced.stdout.contains("--clients 2 --case race."),
            "{name}\n{}",
            raced.stdout
        );
        // The same backend alone has nothing to race with.
        let alone = memspec_in(
            store.path(),
            &[
                "fuzz",
                "--backend",
                &kv(name, &format!("--revision {revision} ")),
                "--not-on-folder",
                "--revision",
                revision,
                "--seed",
                "1",
                "--time",
                "8",
            ],
        );
        assert_eq!(alone.code, 0, "{name} alone\n{}", alone.stdout);
        // `check --clients 2` runs the same races as results of the run.
        let checked = memspec_in(
            store.path(),
            &[
                "check",
                "--backend",
                &shared,
                "--not-on-folder",
                "--revision",
                revision,
                "--clients",
                "2",
                "--area",
                "races",
                "--format",
                "json",
            ],
        );
        let report: Value = serde_json::from_str(&checked.stdout).expect("check's JSON");
        let raced: Vec<&str> = report["report"]["results"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|r| r["outcome"] == outcome)
            .filter_map(|r| r["id"].as_str())
            .collect();
        assert!(
            !raced.is_empty(),
            "{name}: check --clients 2\n{}",
            checked.stdout
        );
    }
}

/// A correct key-value backend (and the reference) give no finding, alone or raced.
#[test]
fn a_correct_backend_gives_no_finding() {
    let store = tempfile::tempdir().expect("temp dir");
    for revision in ["ga-2026", "beta-2025"] {
        let backend = kv("correct", &format!("--revision {revision} "));
        let run = memspec_in(
            store.path(),
            &[
                "fuzz",
                "--backend",
                &backend,
                "--not-on-folder",
                "--revision",
                revision,
                "--seed",
                "2",
                "--steps",
                "2500",
            ],
        );
        assert_eq!(run.code, 0, "{revision}\n{}\n{}", run.stdout, run.stderr);
        assert!(run.stdout.contains("no divergence found"), "{}", run.stdout);
        let shared = kv("correct", &format!("--shared --revision {revision} "));
        let raced = memspec_in(
            store.path(),
            &[
                "fuzz",
                "--backend",
                &shared,
                "--not-on-folder",
                "--revision",
                revision,
                "--clients",
                "2",
                "--seed",
                "2",
                "--time",
                "6",
            ],
        );
        assert_eq!(raced.code, 0, "{revision} raced\n{}", raced.stdout);
        let reference = memspec_in(
            store.path(),
            &[
                "fuzz",
                "--revision",
                revision,
                "--seed",
                "3",
                "--steps",
                "3000",
            ],
        );
        assert_eq!(reference.code, 0, "{}", reference.stdout);
        let reference_raced = memspec_in(
            store.path(),
            &[
                "fuzz",
                "--revision",
                revision,
                "--clients",
                "4",
                "--seed",
                "3",
                "--steps",
                "200",
            ],
        );
        assert_eq!(reference_raced.code, 0, "{}", reference_raced.stdout);
    }
}

/// The same seed gives the same run: the same sequence, shrunk to the same steps.
#[test]
fn a_seed_reproduces_the_run() {
    let store = tempfile::tempdir().expect("temp dir");
    let backend = kv("case_fold", "");
    let runs: Vec<String> = (0..2)
        .map(|_| {
            let run = memspec_in(
                store.path(),
                &[
                    "fuzz",
                    "--backend",
                    &backend,
                    "--not-on-folder",
                    "--seed",
                    "5",
                    "--steps",
                    "60000",
                ],
            );
            assert_eq!(run.code, 1, "{}", run.stdout);
            // Everything but the timing lines (the rate, and the summary's time).
            run.stdout
                .lines()
                .filter(|l| !l.contains(" steps/s") && !l.contains(" s, judged by revision"))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect();
    assert_eq!(runs[0], runs[1]);
    assert!(
        runs[0].contains("rerun: memspec fuzz --backend"),
        "{}",
        runs[0]
    );
    assert!(runs[0].contains("--seed 5"), "{}", runs[0]);
}

/// Usage errors are exit 2, and a backend that never starts is exit 3.
#[test]
fn fuzz_exit_codes() {
    let store = tempfile::tempdir().expect("temp dir");
    let usage = memspec_in(store.path(), &["fuzz", "--time", "0"]);
    assert_eq!(usage.code, 2, "{}", usage.stderr);
    let both = memspec_in(store.path(), &["fuzz", "--time", "1", "--steps", "3"]);
    assert_eq!(both.code, 2, "{}", both.stderr);
    let never = memspec_in(
        store.path(),
        &[
            "fuzz",
            "--backend",
            "exit 3",
            "--not-on-folder",
            "--steps",
            "10",
        ],
    );
    assert_eq!(never.code, 3, "{}\n{}", never.stdout, never.stderr);
}

/// A store whose folders are key prefixes (the README's dict example) loses a folder with its
/// last file, which GA allows ("/memories is a prefix … keys in a database"): never a finding.
#[test]
fn a_store_of_key_prefixes_is_not_blamed_for_empty_folders() {
    if !crate::sdk::installed() {
        return;
    }
    let store = tempfile::tempdir().expect("temp dir");
    let python = root().join(".ci/.venv/bin/python");
    let run = memspec_in(
        store.path(),
        &[
            "fuzz",
            "--python",
            "adapters/python/examples/dict_backend.py:DictMemoryTool",
            "--python-bin",
            &python.display().to_string(),
            "--not-on-folder",
            "--seed",
            "4",
            "--steps",
            "10000",
        ],
    );
    found_nothing_but_stopped_early(&run, "an empty folder");
}

/// `fuzz --clients` races under `check`'s precondition: processes that each keep their own
/// store (a dict) cannot race, so their races are not run, and the report says why; under
/// beta-2025 both creates of one path would otherwise be "acknowledged twice".
#[test]
fn fuzz_races_only_clients_that_share_a_store() {
    let store = tempfile::tempdir().expect("temp dir");
    let dict = kv("correct", "--revision beta-2025 ");
    let run = memspec_in(
        store.path(),
        &[
            "fuzz",
            "--backend",
            &dict,
            "--not-on-folder",
            "--revision",
            "beta-2025",
            "--clients",
            "2",
            "--seed",
            "1",
            "--steps",
            "40",
        ],
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("no divergence found"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("not run: the backend's processes do not share one store"),
        "{}",
        run.stdout
    );
}
