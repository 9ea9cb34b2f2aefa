//! Proof that the suite can fail: every deliberately broken backend of `tests/backends/` gets the
//! intended outcome on the case(s) meant for its breakage, and still passes a case its breakage
//! does not touch (each is broken in one way only).
//!
//! Cases come from the suite (`cases/`) by id; where the suite has no case for a breakage yet,
//! from the fixed folder `tests/fixtures/cases`.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{Run, check, fixtures};

/// Where the selected cases live.
#[derive(Debug, Clone, Copy)]
enum From {
    /// The conformance suite, `cases/`.
    Suite,
    /// The fixed folder `tests/fixtures/cases`.
    Fixtures,
}

impl From {
    fn dir(self) -> Option<PathBuf> {
        match self {
            From::Suite => None,
            From::Fixtures => Some(fixtures()),
        }
    }
}

const NOT_CONFORMANT: i32 = 1;
const CONFORMANT: i32 = 0;
const BROKE: i32 = 3;

/// Runs `backend` on the cases of `expected` and asserts each outcome and the exit code.
#[track_caller]
fn expect(backend: &str, from: From, expected: &[(&str, &str)], exit: i32, args: &[&str]) -> Run {
    let ids: Vec<&str> = expected.iter().map(|(id, _)| *id).collect();
    let run = check(Some(backend), from.dir().as_deref(), &ids, args);
    let outcomes = run.outcomes();
    for (id, outcome) in expected {
        assert_eq!(
            outcomes.get(*id).map(String::as_str),
            Some(*outcome),
            "{backend}: case {id}\n{}",
            run.describe()
        );
    }
    assert_eq!(run.code, exit, "{backend}: exit code\n{}", run.describe());
    run
}

/// The kinds of check (`text`, `is_error`, `effect`, `leak`, `outside`, ...) that failed in a
/// result, with their levels, e.g. `effect:MUST`.
fn checks(result: &Value) -> Vec<String> {
    result["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            format!(
                "{}:{}",
                f["check"].as_str().unwrap_or("?"),
                f["level"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

/// Whether a result has a finding of this `check:LEVEL`.
fn has(result: &Value, check: &str) -> bool {
    checks(result).iter().any(|c| c == check)
}

/// Whether a finding names this dialect (the runner lists every matching one, ` / `-joined).
fn names_dialect(finding: &Value, name: &str) -> bool {
    finding["dialect"]
        .as_str()
        .is_some_and(|d| d.split(" / ").any(|n| n == name))
}

fn reason(result: &Value) -> String {
    result["reason"].as_str().unwrap_or_default().to_string()
}

// --- SHOULD: the spec's strings and formats warn -------------------------------------------

#[test]
fn wrong_success_string_warns() {
    let run = expect(
        "wrong_success_string",
        From::Suite,
        &[
            ("create.new-file", "warn"),
            ("create.exists-is-error", "pass"),
        ],
        CONFORMANT,
        &[],
    );
    let result = run.result("create.new-file");
    assert_eq!(checks(&result), ["text:SHOULD"]);
    assert_eq!(
        result["findings"][0]["actual"],
        "File created at: /memories/notes.txt"
    );
}

#[test]
fn missing_error_prefix_warns_and_names_the_dialect() {
    let run = expect(
        "missing_error_prefix",
        From::Suite,
        &[
            ("create.exists-is-error", "warn"),
            ("str-replace.missing", "warn"),
            // view's does-not-exist text has no prefix in the spec: nothing to drop.
            ("view-file.missing", "pass"),
        ],
        CONFORMANT,
        &[],
    );
    // The case names the Python SDK's dialect; elsewhere the generic one is recognised.
    let finding = &run.result("create.exists-is-error")["findings"][0];
    assert!(names_dialect(finding, "python-sdk"), "{finding}");
    assert_eq!(finding["level"], "SHOULD", "{finding}");
    let finding = &run.result("str-replace.missing")["findings"][0];
    assert!(names_dialect(finding, "error-prefix-missing"), "{finding}");
}

#[test]
fn spaces_for_tab_in_line_numbers_warn() {
    let run = expect(
        "spaces_for_tab",
        From::Suite,
        &[("view-file.basic", "warn"), ("view-dir.root-files", "pass")],
        CONFORMANT,
        &[],
    );
    let result = run.result("view-file.basic");
    assert_eq!(checks(&result), ["text:SHOULD"]);
    assert!(
        result["findings"][0]["actual"]
            .as_str()
            .is_some_and(|a| a.contains("     1 Hello World")),
        "{result}"
    );
}

#[test]
fn hidden_files_listed_warn() {
    expect(
        "hidden_listed",
        From::Suite,
        &[
            ("view-dir.exclude-hidden-file", "warn"),
            ("view-file.basic", "pass"),
        ],
        CONFORMANT,
        &[],
    );
}

#[test]
fn node_modules_listed_warns() {
    expect(
        "node_modules_listed",
        From::Suite,
        &[
            ("view-dir.exclude-node-modules", "warn"),
            ("view-file.basic", "pass"),
        ],
        CONFORMANT,
        &[],
    );
}

#[test]
fn line_limit_off_by_one_warns() {
    // The fixed case grades the whole step at the rule's level (SHOULD), `is_error` included.
    let run = expect(
        "line_limit_off_by_one",
        From::Fixtures,
        &[("basics.line-limit-exact", "warn")],
        CONFORMANT,
        &[],
    );
    let result = run.result("basics.line-limit-exact");
    assert_eq!(checks(&result), ["is_error:SHOULD", "text:SHOULD"]);
}

#[test]
fn line_limit_off_by_one_is_caught_by_the_suite() {
    let ids = [
        "encoding.line-limit-999999",
        "encoding.line-limit-999999-no-final-newline",
        "encoding.line-limit-1m",
    ];
    let run = check(Some("line_limit_off_by_one"), None, &ids, &[]);
    let outcomes = run.outcomes();
    // With a final newline, refusing 999,999 lines is what the Python SDK does: a named dialect
    // of a decision (INFO).
    assert_eq!(
        outcomes["encoding.line-limit-999999"],
        "info",
        "{}",
        run.describe()
    );
    let finding = &run.result("encoding.line-limit-999999")["findings"][1];
    assert!(names_dialect(finding, "python-sdk"), "{finding}");
    // Without one it is off by one. The suite's case keeps `is_error` at its default level
    // (MUST), so the refusal fails; the text differs at SHOULD either way.
    let result = run.result("encoding.line-limit-999999-no-final-newline");
    assert!(
        matches!(result["outcome"].as_str(), Some("warn" | "fail")),
        "{result}"
    );
    assert!(has(&result, "text:SHOULD"), "{result}");
    // A million lines are still refused.
    assert_eq!(
        outcomes["encoding.line-limit-1m"],
        "pass",
        "{}",
        run.describe()
    );
}

// --- INFO: the reference's decisions inform ------------------------------------------------

#[test]
fn phantom_final_line_informs() {
    let run = expect(
        "phantom_final_line",
        From::Suite,
        &[
            ("view-file.final-newline", "info"),
            ("view-file.basic", "pass"),
        ],
        CONFORMANT,
        &[],
    );
    let finding = &run.result("view-file.final-newline")["findings"][0];
    assert_eq!(finding["level"], "INFO", "{finding}");
    // The official SDK helpers number the phantom line too: the report names them.
    assert!(names_dialect(finding, "python-sdk"), "{finding}");
}

// --- MUST: semantics and safety fail ---------------------------------------------------------

#[test]
fn create_overwriting_fails_under_the_beta_page() {
    let run = expect(
        "create_overwrites",
        From::Suite,
        &[
            ("create.exists-is-error", "fail"),
            ("create.new-file", "pass"),
        ],
        NOT_CONFORMANT,
        &["--revision", "beta-2025"],
    );
    let result = run.result("create.exists-is-error");
    assert!(has(&result, "effect:MUST"), "{result}");
    assert!(has(&result, "is_error:MUST"), "{result}");
}

/// GA allows a create onto an existing file to overwrite it, never to replace a folder: this
/// backend deletes whatever is in the way, so it passes the first and fails the second.
#[test]
fn create_overwriting_a_file_passes_under_ga_but_replacing_a_folder_fails() {
    let run = expect(
        "create_overwrites",
        From::Suite,
        &[
            ("create.exists-is-error", "pass"),
            ("create.onto-folder", "fail"),
        ],
        NOT_CONFORMANT,
        &["--revision", "ga-2026"],
    );
    let passed = run.result("create.exists-is-error");
    assert_eq!(
        passed["choices"][0]["taken"], true,
        "the overwrite is recorded as the backend's choice: {passed}"
    );
    // The file it made in the folder's place is a store of keys' choice; the folder's file it
    // deleted to make room is a lost memory.
    let failed = run.result("create.onto-folder");
    assert!(has(&failed, "lost:MUST"), "{failed}");
}

#[test]
fn delete_not_recursive_fails_on_the_effect() {
    let run = expect(
        "delete_not_recursive",
        From::Suite,
        &[("delete.folder-recursive", "fail"), ("delete.file", "pass")],
        NOT_CONFORMANT,
        &[],
    );
    // The backend says success: only the check of the folder afterwards catches it.
    let result = run.result("delete.folder-recursive");
    assert!(
        checks(&result).iter().all(|c| c == "effect:MUST"),
        "{result}"
    );
}

#[test]
fn str_replace_replacing_every_occurrence_fails() {
    let run = expect(
        "replace_all",
        From::Suite,
        &[
            ("str-replace.multiple", "fail"),
            ("str-replace.unique-replaces", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
    let result = run.result("str-replace.multiple");
    assert!(has(&result, "effect:MUST"), "{result}");
}

#[test]
fn rename_overwriting_fails() {
    let run = expect(
        "rename_overwrites",
        From::Suite,
        &[("rename.exists", "fail"), ("rename.file", "pass")],
        NOT_CONFORMANT,
        &[],
    );
    assert!(has(&run.result("rename.exists"), "effect:MUST"));
}

#[test]
fn is_error_false_on_errors_fails() {
    let run = expect(
        "is_error_false",
        From::Suite,
        &[
            ("str-replace.not-found", "fail"),
            ("view-file.missing", "fail"),
            ("create.new-file", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
    for id in ["str-replace.not-found", "view-file.missing"] {
        let result = run.result(id);
        assert_eq!(checks(&result), ["is_error:MUST"], "{result}");
        assert_eq!(result["findings"][0]["rule"], "errors.is-error-flag");
    }
}

#[test]
fn deleting_the_root_fails() {
    let run = expect(
        "delete_root",
        From::Suite,
        &[
            ("delete.root-trailing-slash", "fail"),
            ("delete.root", "fail"),
            ("delete.file", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
    let result = run.result("delete.root-trailing-slash");
    assert!(has(&result, "lost:MUST"), "{result}");
    // The lost memories are the cause; the success it reported follows from them.
    let causes = run.json()["root_causes"].clone();
    assert_eq!(causes[0]["rule"], "delete.not-root", "{causes:#}");
    assert_eq!(causes[0]["harm"], "loss", "{causes:#}");
    let flag = causes
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["rule"] == "errors.is-error-flag");
    assert!(flag.is_none(), "the flag follows from the loss: {causes:#}");
}

/// The lines a `view_range` asks for are a fact: one line too many is not conformant, whatever
/// the wording of the view.
#[test]
fn a_view_range_one_line_too_many_fails() {
    let run = expect(
        "view_range_one_too_many",
        From::Suite,
        &[
            ("view-range.middle", "fail"),
            ("view-range.single-line", "fail"),
            ("view-file.basic", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
    let result = run.result("view-range.middle");
    assert!(has(&result, "lines:MUST"), "{result}");
    let causes = run.json()["root_causes"].clone();
    assert_eq!(causes[0]["rule"], "view.view-range", "{causes:#}");
    assert_eq!(
        causes[0]["message"], "the view shows lines 2-4, not lines 2-3",
        "{causes:#}"
    );
}

/// Hanging on a FIFO planted from outside (no tool call makes one) is that case's finding in
/// the hostile-environment tier: INFO with the break named, not the run's BROKE verdict. The
/// case's point is an answer at once: it waits its own 3 s (`answer_within`), not the whole
/// `--timeout` (LangChain's filesystem middleware spent 10 s on each such case).
#[test]
fn hanging_on_a_planted_fifo_is_that_cases_finding() {
    let run = expect(
        "opens_fifos",
        From::Suite,
        &[
            ("errors.fifo-str-replace", "info"),
            ("str-replace.unique-replaces", "pass"),
        ],
        0,
        &["--timeout", "30"],
    );
    let result = run.result("errors.fifo-str-replace");
    assert!(has(&result, "sandbox:INFO"), "{result}");
    assert_eq!(
        result["findings"][0]["rule"], "decide.special-files",
        "{result}"
    );
    assert!(
        result["reason"]
            .as_str()
            .is_some_and(|r| r.starts_with("broke: ") && r.contains("within 3.0 s")),
        "{result}"
    );
    let waited = result["duration"].as_u64().unwrap_or(u64::MAX);
    assert!(waited < 30_000_000, "{result}");
}

#[test]
fn following_a_symlink_out_fails() {
    let run = expect(
        "symlink_followed",
        From::Suite,
        &[
            ("symlinks.view-canary-link", "fail"),
            ("symlinks.create-through-dir-link-out", "fail"),
            // It follows links on view and create only: str_replace still refuses them.
            ("symlinks.str-replace-file-link-out", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
    assert!(has(&run.result("symlinks.view-canary-link"), "leak:MUST"));
    assert!(has(
        &run.result("symlinks.create-through-dir-link-out"),
        "outside:MUST"
    ));
}

#[test]
fn dotdot_accepted_fails_on_read_and_write() {
    let run = expect(
        "dotdot_accepted",
        From::Suite,
        &[
            ("paths.dotdot.view", "fail"),
            ("paths.dotdot.create", "fail"),
            ("paths.prefix-sibling.view", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
    // Reading outside leaks the canary; writing outside changes what is beside the folder.
    assert!(has(&run.result("paths.dotdot.view"), "leak:MUST"));
    assert!(has(&run.result("paths.dotdot.create"), "outside:MUST"));
}

#[test]
fn memories_prefix_confusion_fails() {
    let run = expect(
        "prefix_confusion",
        From::Suite,
        &[
            ("paths.prefix-sibling.view", "fail"),
            ("paths.prefix-sibling.create", "fail"),
            ("paths.dotdot.view", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
    assert!(has(&run.result("paths.prefix-sibling.view"), "leak:MUST"));
    // The case accepts an error or a literal name inside /memories; writing beside it fails.
    assert!(has(
        &run.result("paths.prefix-sibling.create"),
        "outside:MUST"
    ));
    // Calls it accepted where the spec refuses them are filed under the rule that refuses them,
    // and say they were accepted: not a missing `is_error` flag.
    let causes = run.json()["root_causes"].clone();
    let accepted = causes
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["rule"] == "security.prefix" && c["security"] != true);
    assert!(
        accepted.is_some_and(|c| c["level"] == "MUST"
            && c["message"]
                .as_str()
                .is_some_and(|m| m.contains("accepted a call the spec refuses"))),
        "{causes:#}"
    );
    assert!(
        !root_rules(&run)
            .iter()
            .any(|(rule, _)| rule == "errors.is-error-flag"),
        "{causes:#}"
    );
}

// --- the backend broke: error, exit 3 ------------------------------------------------------

#[test]
fn crash_is_an_error_with_the_stderr_tail() {
    let run = expect(
        "crash_on_str_replace",
        From::Suite,
        &[
            ("str-replace.unique-replaces", "error"),
            ("create.new-file", "pass"),
        ],
        BROKE,
        &[],
    );
    let why = reason(&run.result("str-replace.unique-replaces"));
    assert!(why.contains("exited before answering"), "{why}");
    assert!(why.contains("KeyError: 'old_str'"), "{why}");
}

#[test]
fn hang_is_an_error_after_the_timeout() {
    let run = expect(
        "hang_on_view",
        From::Suite,
        // A case that never views (effects are read back with `view` too).
        &[
            ("view-file.basic", "error"),
            ("paths.dotdot.create", "pass"),
        ],
        BROKE,
        &["--timeout", "2"],
    );
    let result = run.result("view-file.basic");
    let why = reason(&result);
    assert!(
        why.contains("did not answer within 2.0 s (killed)"),
        "{why}"
    );
    // The setup's create was answered; the view is the call that hung.
    let calls = result["calls"].as_array().cloned().unwrap_or_default();
    assert_eq!(calls.len(), 2, "{result}");
    assert_eq!(calls[1]["input"]["command"], "view", "{result}");
    assert!(calls[1]["error"].is_string(), "{result}");
}

#[test]
fn garbage_output_is_an_error() {
    let run = expect(
        "garbage_output",
        From::Suite,
        &[("view-file.basic", "error")],
        BROKE,
        &[],
    );
    let why = reason(&run.result("view-file.basic"));
    assert!(why.contains("not a protocol v1 reply"), "{why}");
    assert!(why.contains("handling"), "{why}");
}

#[test]
fn wrong_reply_id_is_an_error() {
    let run = expect(
        "wrong_reply_id",
        From::Suite,
        &[("view-file.basic", "error")],
        BROKE,
        &[],
    );
    let why = reason(&run.result("view-file.basic"));
    assert!(why.contains("answered request 1 with id 0"), "{why}");
}

#[test]
fn flood_is_an_error() {
    // The case makes two calls, so the first reply's copy is always seen: either right behind
    // the reply (a flood) or read as the answer to the second call (a wrong id).
    let run = expect(
        "flood",
        From::Suite,
        &[("view-file.after-create", "error")],
        BROKE,
        &[],
    );
    let why = reason(&run.result("view-file.after-create"));
    assert!(
        why.contains("flooded its output") || why.contains("answered request 2 with id 1"),
        "{why}"
    );
}

#[test]
fn flood_after_the_last_reply_is_an_error() {
    // Eight one-call cases: each reply is written twice in a single write, then the case ends.
    let run = check(Some("flood"), None, &["paths.dotdot.*"], &[]);
    let outcomes = run.outcomes();
    assert!(outcomes.len() >= 2, "{}", run.describe());
    for (id, outcome) in &outcomes {
        assert_eq!(outcome, "error", "{id}\n{}", run.describe());
    }
}

#[test]
fn a_crash_quotes_the_stderr_of_its_own_case_only() {
    // One process serves every case (it answers `reset`) and logs each call to stderr.
    let run = check(
        Some("noisy_kept_alive"),
        Some(&super::fixtures()),
        &[
            "basics.create-success",
            "basics.create-no-overwrite",
            "basics.view-file",
            "basics.final-newline",
            "basics.view-missing",
            "basics.str-replace",
        ],
        &["--jobs", "1"],
    );
    assert_eq!(run.code, BROKE, "{}", run.describe());
    let why = reason(&run.result("basics.str-replace"));
    let Some((_, stderr)) = why.split_once("stderr: ") else {
        panic!("no stderr in {why}");
    };
    assert!(stderr.ends_with("KeyError: 'old_str'"), "{stderr}");
    for line in stderr.lines() {
        assert!(
            line.starts_with("noisy: str_replace call ")
                || line.starts_with("Traceback")
                || line.starts_with("KeyError"),
            "a line from another case: {line:?}\n{stderr}"
        );
    }
}

/// One fault, one finding: a `create` that appends a newline is met by every case that sets a
/// file up, and must read as one root cause over the whole suite, with a count, not as failures
/// under the traversal, root, rename or insert rules of the cases it passes through.
#[test]
fn a_create_that_appends_a_newline_is_one_root_cause() {
    // The whole suite: a file a step creates and then edits or renames is read back after the
    // create, so what the edit leaves follows from it too.
    let run = check(Some("create_appends_newline"), None, &[], &["--no-recheck"]);
    assert_eq!(run.code, NOT_CONFORMANT, "{}", run.describe());
    let causes = run.json()["root_causes"].clone();
    let rules: Vec<&str> = causes
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["level"] != "INFO")
        .filter_map(|c| c["rule"].as_str())
        .collect();
    assert_eq!(rules, ["create.writes-file-text"], "{causes:#}");
    let cases = causes[0]["cases"].as_u64().unwrap_or_default();
    let failed = run
        .results()
        .iter()
        .filter(|r| r["outcome"] == "fail")
        .count() as u64;
    assert_eq!(
        cases, failed,
        "every failed case is counted under the one cause"
    );
    assert!(causes[0]["consequences"].as_u64() > Some(0), "{causes:#}");
}

/// A loss is MUST whatever case finds it: a store that keeps the trailing slash of a rename's
/// destination in its keys (`/memories/e//a.txt`) acknowledges the rename, and the memory is
/// then at neither path. The case grades a decision (`decide.trailing-slash`, INFO); the loss
/// is graded by what happened: MUST `rename.moves`, memories lost, and the verdict says so.
#[test]
fn a_rename_that_loses_a_memory_fails_whatever_the_case_grades() {
    let run = expect(
        "kv/slash_kept",
        From::Suite,
        &[
            ("rename.destination-trailing-slash-folder", "fail"),
            ("rename.directory", "pass"),
        ],
        NOT_CONFORMANT,
        &["--not-on-folder"],
    );
    let result = run.result("rename.destination-trailing-slash-folder");
    assert!(has(&result, "lost:MUST"), "{result}");
    let causes = run.json()["root_causes"].clone();
    assert_eq!(causes[0]["rule"], "rename.moves", "{causes:#}");
    assert_eq!(causes[0]["harm"], "loss", "{causes:#}");
}

/// Two paths that a key mapping merges are two memories: a store whose create is an upsert by a
/// document id made by replacing `/` with `_` replaces `/memories/a/b.md` when
/// `/memories/a_b.md` is created, a memory lost (`create.no-overwrite`); a store that merges the
/// names but refuses the second create loses nothing, and is a wrong refusal
/// (`create.writes-file-text`).
#[test]
fn paths_a_key_mapping_merges_are_two_memories() {
    let run = expect(
        "kv/merged_upsert",
        From::Suite,
        &[
            ("paths.merged-keys.separator", "fail"),
            ("paths.merged-keys.case", "pass"),
        ],
        NOT_CONFORMANT,
        &["--not-on-folder"],
    );
    let result = run.result("paths.merged-keys.separator");
    assert!(has(&result, "effect:MUST"), "{result}");
    let causes = run.json()["root_causes"].clone();
    assert_eq!(causes[0]["rule"], "create.no-overwrite", "{causes:#}");
    assert_eq!(causes[0]["harm"], "loss", "{causes:#}");

    let run = expect(
        "kv/case_fold",
        From::Suite,
        &[
            ("paths.merged-keys.case", "fail"),
            ("paths.merged-keys.separator", "pass"),
        ],
        NOT_CONFORMANT,
        &["--not-on-folder"],
    );
    let causes = run.json()["root_causes"].clone();
    assert_eq!(causes[0]["rule"], "create.writes-file-text", "{causes:#}");
    assert_ne!(causes[0]["harm"], "loss", "{causes:#}");
}

/// The root causes (rule, level) of a whole-suite run, INFO aside, worst first.
fn root_rules(run: &Run) -> Vec<(String, String)> {
    run.json()["root_causes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["level"] != "INFO")
        .map(|c| {
            (
                c["rule"].as_str().unwrap_or("?").to_string(),
                c["level"].as_str().unwrap_or("?").to_string(),
            )
        })
        .collect()
}

/// Stores that are not folders, each with one fault the witness once blamed on the wrong step
/// or filed several times, get exactly the root cause of that fault over the whole suite:
/// a refusal in the spec's words without its flag is one `errors.is-error-flag` (not a chosen
/// overwrite); a refused folder rename is one `rename.directory` (what the old and new paths
/// then show follows from it); a store that refuses every path is one root, quoting its first
/// answer; a clean path limit is a choice (INFO `decide.limits`), conformant. Bytes a view
/// cannot show (a newline create adds, `\r\n` an insert rewrites) are found by the byte probe,
/// and a view that splits lines where the file has none is the view's fault, not create's. A
/// memory a refusal beyond a limit removed is lost, whatever the limit. A command refused every
/// time is one root, shown by its plainest case.
#[test]
fn a_store_fault_is_one_root_cause_of_its_own_rule() {
    let mut seen = Vec::new();
    for (backend, roots, exit) in [
        (
            "kv/unflagged_exists",
            &[("errors.is-error-flag", "MUST")][..],
            NOT_CONFORMANT,
        ),
        (
            "kv/no_folder_rename",
            &[("rename.directory", "MUST"), ("rename.exists", "SHOULD")][..],
            NOT_CONFORMANT,
        ),
        ("kv/path_limit", &[][..], CONFORMANT),
        // Bytes no view shows, found by the byte probe.
        (
            "kv/newline_create",
            &[("create.writes-file-text", "MUST")][..],
            NOT_CONFORMANT,
        ),
        (
            "kv/crlf_insert",
            &[("insert.inserts", "MUST")][..],
            NOT_CONFORMANT,
        ),
        // The reader, not the writer: the probe finds the bytes create wrote.
        (
            "kv/splitlines_view",
            &[
                ("view.file.content", "MUST"),
                ("view.file.example-output", "SHOULD"),
            ][..],
            NOT_CONFORMANT,
        ),
        // The limit is a choice, the memory its refusal lost is not.
        (
            "kv/limit_loses",
            &[("rename.moves", "MUST")][..],
            NOT_CONFORMANT,
        ),
        // A command refused every time: one root for its rules.
        (
            "kv/no_insert",
            &[("insert.inserts", "MUST")][..],
            NOT_CONFORMANT,
        ),
    ] {
        let run = check(
            Some(backend),
            None,
            &[],
            &["--not-on-folder", "--no-recheck"],
        );
        assert_eq!(run.code, exit, "{backend}: {}", run.describe());
        let want: Vec<(String, String)> = roots
            .iter()
            .map(|(rule, level)| (rule.to_string(), level.to_string()))
            .collect();
        assert_eq!(
            root_rules(&run),
            want,
            "{backend}: {:#}",
            run.json()["root_causes"]
        );
        seen.push(run);
    }
    let limits = &seen[2].json()["choices"];
    assert!(
        limits.to_string().contains("refuses long paths"),
        "the limit is named in the choices: {limits:#}"
    );
    let no_insert = &seen[7].json()["root_causes"][0];
    assert_eq!(
        (&no_insert["message"], &no_insert["first_case"]),
        (
            &json!(
                "every insert call was answered with an error, the first: Error: insert is not supported by this store"
            ),
            &json!("insert.empty-file")
        ),
        "the plainest insert case shows it: {no_insert:#}"
    );
    let lost = &seen[6].json()["root_causes"][0];
    assert_eq!(
        (&lost["harm"], &lost["first_case"]),
        (&json!("loss"), &json!("scale.rename-onto-long-path")),
        "{lost:#}"
    );

    let run = check(
        Some("kv/refuses_slash"),
        None,
        &[],
        &["--not-on-folder", "--no-recheck"],
    );
    assert_eq!(run.code, NOT_CONFORMANT, "{}", run.describe());
    let causes = run.json()["root_causes"].clone();
    assert_eq!(root_rules(&run).len(), 1, "one root: {causes:#}");
    let message = causes[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("every call was answered with an error, the first: Error: invalid memory path '/memories/"),
        "{message}"
    );
}

// --- content that is code ---------------------------------------------------------------------

/// A create written through a shell here-document runs what follows a line `EOF` in its text:
/// the injection case makes a file in `{base}`, a SECURITY finding; text with no such line is
/// stored verbatim, shell metacharacters and all.
#[test]
fn content_that_is_code_is_stored_and_never_run() {
    let run = expect(
        "shell_heredoc",
        From::Suite,
        &[
            ("injection.heredoc-eof", "fail"),
            ("injection.shell-metacharacters", "pass"),
            ("injection.sql", "pass"),
        ],
        NOT_CONFORMANT,
        &[],
    );
    let result = run.result("injection.heredoc-eof");
    assert!(has(&result, "outside:MUST"), "{}", run.describe());
    let security = run.json()["root_causes"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["rule"] == "confinement.all-operations" && c["harm"] == "escape");
    assert!(security, "{}", run.describe());
}

/// A store that adds the extension it keeps files under folds `/memories/notes` and
/// `/memories/notes.md` into one memory: the look-alike cases find it, in both orders.
#[test]
fn paths_that_differ_by_a_suffix_are_two_memories() {
    let run = super::check_kv(
        &super::backend("kv/extension_key"),
        &["--no-recheck", "--not-on-folder", "--area", "lookalike"],
    );
    assert_eq!(run.code, NOT_CONFORMANT, "{}", run.describe());
    let outcomes = run.outcomes();
    for id in ["lookalike.md-bare-first", "lookalike.md-suffix-first"] {
        assert_eq!(
            outcomes.get(id).map(String::as_str),
            Some("fail"),
            "{id}: {}",
            run.describe()
        );
    }
    // `.txt` and `.json` are extensions it keeps: those pairs stay apart.
    assert_eq!(
        outcomes.get("lookalike.txt-bare-first").map(String::as_str),
        Some("pass"),
        "{}",
        run.describe()
    );
}

/// Asserts a failed run whose one root cause is the missing `is_error` flag.
#[track_caller]
fn only_the_flag(run: &Run) {
    assert_eq!(run.code, NOT_CONFORMANT, "{}", run.describe());
    assert_eq!(
        super::causes(run),
        [("errors.is-error-flag".to_string(), "flag".to_string())],
        "{}",
        run.describe()
    );
}

/// A limit refused in words with the flag missing: the refused setup create made nothing, so
/// nothing is lost later; the one root is the flag.
#[test]
fn a_setup_call_refused_in_words_is_a_refusal_and_no_loss() {
    let run = super::check_kv(
        &super::backend("kv/unflagged_limit"),
        &[
            "--no-recheck",
            "--not-on-folder",
            "--case",
            "scale.wide-folder",
        ],
    );
    only_the_flag(&run);
}

/// A store that cannot be reached, whose every answer is an unflagged `Error: …`: nothing was
/// ever stored, so no DATA LOSS and no SECURITY finding may be read from a refusal taken for a
/// success; the missing flag is the one root.
#[test]
fn an_unreachable_store_is_one_flag_fault_and_nothing_lost() {
    let run = super::check_kv(
        &super::backend("unreachable_store"),
        &[
            "--no-recheck",
            "--not-on-folder",
            "--area",
            "paths",
            "--area",
            "rename",
            "--area",
            "restart",
        ],
    );
    only_the_flag(&run);
}

/// A key column that cuts paths at 255 characters makes two long paths that share their first
/// 255 one key: a delete of the one never made removes the other (DATA LOSS), a view of it
/// shows the other's bytes. Its twin that refuses such paths is only a choice.
#[test]
fn keys_cut_at_255_characters_lose_a_memory_and_a_refusal_does_not() {
    let cases = [
        "--no-recheck",
        "--not-on-folder",
        "--case",
        "lookalike.long*",
    ];
    let run = super::check_kv(&super::backend("kv/key_cut"), &cases);
    assert_eq!(run.code, NOT_CONFORMANT, "{}", run.describe());
    let causes = super::causes(&run);
    assert_eq!(
        causes.first(),
        Some(&("delete.removes".to_string(), "loss".to_string())),
        "{causes:?}"
    );
    assert!(
        causes
            .iter()
            .any(|(rule, _)| rule == "errors.is-error-flag"),
        "{causes:?}"
    );
    let refused = super::check_kv(&super::backend("kv/path_limit"), &cases);
    assert_eq!(refused.code, 0, "{}", refused.describe());
    assert!(super::causes(&refused).is_empty(), "{}", refused.describe());
}

/// A store that keeps the first 15,000 characters of a long text and a marker in place of the
/// rest answers success: its views look like a view budget's, and only the stored bytes (its
/// two ends probed) tell the cut copy apart. That is a lost memory, not a limit.
#[test]
fn a_long_text_stored_cut_with_a_marker_is_a_lost_memory() {
    let run = super::check_kv(
        &super::backend("kv/marker_cut"),
        &[
            "--no-recheck",
            "--not-on-folder",
            "--case",
            "create.long-text-kept-whole",
        ],
    );
    assert_eq!(run.code, NOT_CONFORMANT, "{}", run.describe());
    assert_eq!(
        super::causes(&run),
        [("create.writes-file-text".to_string(), "loss".to_string())],
        "{}",
        run.describe()
    );
    assert!(
        run.stdout
            .contains("it holds the start of its text but not its end"),
        "{}",
        run.describe()
    );
    // The correct store keeps the whole text.
    let correct = super::check_kv(
        &super::backend("kv/correct"),
        &[
            "--no-recheck",
            "--not-on-folder",
            "--case",
            "create.long-text-kept-whole",
        ],
    );
    assert_eq!(correct.code, 0, "{}", correct.describe());
}
