//! The crash lane (`check --crash`, `crash.*`, rules `durability.*`): a write killed with
//! SIGKILL on entry to each storage call it makes, then a new process on the same store. A
//! bounded subset runs here (each scenario costs two process starts per point); the reference
//! passes, and each test backend of `tests/backends/crash/` and `tests/backends/kv/crash_*.py`
//! fails with `durability.crash` on the write its design tears.

use super::{Run, check_kv, memspec, root, run_command};

/// `memspec check` of `cases` (crash scenario ids) on `backend`, as JSON.
fn crash(backend: &str, cases: &[&str], not_on_folder: bool) -> Run {
    let mut args = vec!["--no-recheck", "--crash", "--area", "crash"];
    for case in cases {
        args.extend(["--case", case]);
    }
    if not_on_folder {
        args.push("--not-on-folder");
    }
    check_kv(backend, &args)
}

fn script(path: &str) -> String {
    format!("python3 {} {{memories}}", root().join(path).display())
}

/// The messages of the `durability.crash` findings of result `id`.
fn losses(run: &Run, id: &str) -> Vec<String> {
    run.results()
        .iter()
        .filter(|r| r["id"] == id)
        .flat_map(|r| r["findings"].as_array().cloned().unwrap_or_default())
        .filter(|f| f["rule"] == "durability.crash")
        .filter_map(|f| f["message"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn the_reference_survives_a_kill_at_every_storage_call() {
    let run = run_command(memspec().args([
        "check",
        "--no-recheck",
        "--case",
        "crash.str-replace.large",
        "--case",
        "crash.delete.folder",
        "--case",
        "crash.rename.folder",
        "--case",
        "crash.create.new-small",
    ]));
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(
        run.stdout
            .lines()
            .any(|l| l.starts_with("survives crashes: yes (4 writes")),
        "{}",
        run.describe()
    );
    // Every write of the reference is flushed before its answer: no fsync INFO.
    assert!(
        !run.stdout.contains("decide.crash-fsync"),
        "{}",
        run.describe()
    );
}

#[test]
fn a_file_written_in_place_is_cut_by_a_kill() {
    let run = crash(
        &script("tests/backends/crash/write_in_place.py"),
        &["crash.str-replace.large"],
        false,
    );
    assert_eq!(run.code, 1, "{}", run.describe());
    let lost = losses(&run, "crash.str-replace.large");
    assert_eq!(lost.len(), 1, "{}", run.describe());
    // Killed before a write after the truncating open: the file is empty or cut.
    assert!(lost[0].contains("`write "), "{}", lost[0]);
    assert!(lost[0].contains("\"/memories/notes.md\""), "{}", lost[0]);
    // The rerun line names the scenario, which by itself runs the lane.
    assert!(
        run.json()["report"]["results"][0]["rerun"]
            .as_str()
            .is_none_or(|r| r.contains("--case crash.str-replace.large")),
        "{}",
        run.describe()
    );
}

#[test]
fn a_rename_by_copy_then_delete_leaves_both_paths() {
    let run = crash(
        &script("tests/backends/crash/rename_by_copy.py"),
        &["crash.rename.file"],
        false,
    );
    assert_eq!(run.code, 1, "{}", run.describe());
    let lost = losses(&run, "crash.rename.file");
    assert_eq!(lost.len(), 1, "{}", run.describe());
    assert!(
        lost[0].contains("`rename` of /memories/notes.md"),
        "{}",
        lost[0]
    );
}

#[test]
fn one_json_file_rewritten_in_place_loses_every_memory() {
    let run = crash(
        &script("tests/backends/kv/crash_json_file.py"),
        &["crash.create.new-small"],
        true,
    );
    assert_eq!(run.code, 1, "{}", run.describe());
    let lost = losses(&run, "crash.create.new-small");
    assert_eq!(lost.len(), 1, "{}", run.describe());
    // Not only the file created: the memory beside it is gone too.
    assert!(
        lost[0].contains("\"/memories/context.md\" is missing"),
        "{}",
        lost[0]
    );
}

#[test]
fn a_row_deleted_before_its_replacement_is_inserted_is_lost() {
    let run = crash(
        &script("tests/backends/kv/crash_delete_insert.py"),
        &["crash.str-replace.small"],
        true,
    );
    assert_eq!(run.code, 1, "{}", run.describe());
    let lost = losses(&run, "crash.str-replace.small");
    assert_eq!(lost.len(), 1, "{}", run.describe());
    assert!(
        lost[0].contains("\"/memories/notes.md\" is missing"),
        "{}",
        lost[0]
    );
}

#[test]
fn without_ptrace_the_lane_kills_at_random_moments_and_says_so() {
    let run = run_command(memspec().env("MEMSPEC_CRASH_TIMED", "1").args([
        "check",
        "--no-recheck",
        "--case",
        "crash.rename.file",
    ]));
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(
        run.stdout.lines().any(|l| l
            == "survives crashes: yes (1 write, 1 of them killed at random moments only, not at each storage call: ptrace was not available)"),
        "{}",
        run.describe()
    );
}

/// One verdict for every lane: a store that saves in place, killed mid-save, opens every format
/// with the loss, never with "conformant" beside it (the crash line is detail below it).
#[test]
fn a_crash_loss_is_the_verdict_of_every_format() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let report = |name: &str| dir.path().join(name);
    let kv = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let run = run_command(
        memspec()
            .env("MEMSPEC_KV_DIR", kv.path())
            .args(["check", "--no-recheck", "--crash", "--not-on-folder"])
            .args(["--case", "crash.create.new-small", "--backend"])
            .arg(script("tests/backends/kv/crash_json_file.py"))
            .arg("--report-markdown")
            .arg(report("r.md"))
            .arg("--report-json")
            .arg(report("r.json"))
            .arg("--report-html")
            .arg(report("r.html")),
    );
    assert_eq!(run.code, 1, "{}", run.describe());
    let first = run.stdout.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        "verdict: NOT conformant; memories LOST: durability.crash (1 case)",
        "{}",
        run.describe()
    );
    let read = |name: &str| std::fs::read_to_string(report(name)).unwrap_or_default();
    let markdown = read("r.md");
    assert!(
        markdown.contains("**❌ not conformant; memories LOST: durability.crash (1 case)**"),
        "{markdown}"
    );
    let json: serde_json::Value = serde_json::from_str(&read("r.json")).unwrap_or_default();
    assert_eq!(json["verdict"], "not_conformant", "{json}");
    let html = read("r.html");
    assert!(
        html.contains("verdict: NOT conformant; memories LOST"),
        "{html}"
    );
    assert!(!html.contains("verdict: conformant"), "{html}");
}

/// A store kept off the disk: the lane skips its large-file writes. The crash line, which says
/// NO for the writes it judged, counts those it never judged and says why, so that its word is
/// not read as one on all twelve.
#[test]
fn the_crash_line_counts_the_writes_it_never_judged() {
    let kv = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let run = run_command(
        memspec()
            .env("MEMSPEC_KV_DIR", kv.path())
            .args(["check", "--no-recheck", "--crash", "--area", "crash"])
            .args(["--not-on-folder", "--backend"])
            .arg(script("tests/backends/kv/crash_json_file.py")),
    );
    assert_eq!(run.code, 1, "{}", run.describe());
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("survives crashes: NO"))
        .unwrap_or_else(|| panic!("no crash line\n{}", run.describe()));
    assert!(
        line.contains(
            " of 12 writes not judged (4: large files are read back from the disk, and this backend keeps no folder"
        ),
        "{line}"
    );
}
