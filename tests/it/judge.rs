//! One judge: a table of situations (a backend with one bug, the calls that show it, on a folder
//! or not), each graded through the three command paths — `check` (a suite case), `replay` (the
//! same calls as a transcript) and `fuzz` (the same calls as a trial sequence) — with the same
//! grade from all three: the worst finding's rule, level and harm, or nothing above INFO.
//!
//! The backends are real programs (`tests/backends/`), run as a user runs them.

use std::time::Duration;

use memspec::backend::BackendSpec;
use memspec::builtin::Source;
use memspec::check::runner::{RunOptions, Selection};
use memspec::check::{CheckConfig, Loaded};
use memspec::fuzz::action::Action;
use memspec::judge::Pair;
use memspec::judge::grade::Outcome;
use memspec::judge::witness;
use memspec::judge::{Finding, Harm, worst};
use memspec::replay::{ReplayOptions, StepKind};
use memspec::spec::{Level, Revision};
use serde_json::Value;

use crate::check::{bin, root};

/// A grade: the rule, level and harm of the worst finding that follows from no other.
type Grade = Option<(String, Level, Harm)>;

/// One situation.
struct Row {
    /// The suite case whose calls show it.
    case: &'static str,
    /// The backend: a script under `tests/backends/` with its arguments.
    backend: &'static str,
    /// Whether it keeps its memories in the folder.
    on_folder: bool,
    /// The grade all three paths must give: `None` for nothing above INFO.
    grade: Option<(&'static str, Level, Harm)>,
}

const TABLE: &[Row] = &[
    // Lost memories: the root deleted, graded as loss, not as the flag that came with it.
    Row {
        case: "delete.root",
        backend: "delete_root.py",
        on_folder: true,
        grade: Some(("delete.not-root", Level::Must, Harm::Loss)),
    },
    // Wrong content on disk.
    Row {
        case: "create.new-file",
        backend: "create_appends_newline.py",
        on_folder: true,
        grade: Some(("create.writes-file-text", Level::Must, Harm::Content)),
    },
    // Wrong lines for a `view_range`: semantics, MUST.
    Row {
        case: "view-range.middle",
        backend: "view_range_one_too_many.py",
        on_folder: true,
        grade: Some(("view.view-range", Level::Must, Harm::Content)),
    },
    // Every occurrence replaced.
    Row {
        case: "str-replace.multiple",
        backend: "replace_all.py",
        on_folder: true,
        grade: Some(("str-replace.exactly-one", Level::Must, Harm::Content)),
    },
    // An error answered without the flag.
    Row {
        case: "view-file.missing",
        backend: "is_error_false.py",
        on_folder: true,
        grade: Some(("errors.is-error-flag", Level::Must, Harm::Flag)),
    },
    // A key-value store whose delete takes every key with the prefix: a sibling lost.
    Row {
        case: "delete.name-prefix-siblings",
        backend: "kv/prefix_delete.py",
        on_folder: false,
        grade: Some(("delete.removes", Level::Must, Harm::Loss)),
    },
    // A correct key-value store: nothing to report.
    Row {
        case: "delete.name-prefix-siblings",
        backend: "kv/correct.py",
        on_folder: false,
        grade: None,
    },
    // An independent backend written from the page, taking other options where the page leaves
    // them open: nothing above INFO.
    Row {
        case: "view-range.middle",
        backend: "independent/memory.py --mode folder {memories}",
        on_folder: true,
        grade: None,
    },
    Row {
        case: "str-replace.multiple",
        backend: "independent/memory.py --mode kv",
        on_folder: false,
        grade: None,
    },
    // A percent-encoded `..` kept as a literal name inside the folder: no escape, a decision.
    Row {
        case: "paths.url-segment.create",
        backend: "percent_literal.py",
        on_folder: true,
        grade: None,
    },
    // A `..` followed out of the folder: the canary's content shown is the escape (graded
    // under confinement), worse than the accepted path that let it out.
    Row {
        case: "paths.dotdot.view",
        backend: "dotdot_accepted.py",
        on_folder: true,
        grade: Some(("confinement.all-operations", Level::Must, Harm::Escape)),
    },
    // "Not found" in words without the flag: a flag fault, never a file that is there.
    Row {
        case: "view-file.missing",
        backend: "independent/memory.py --not-found 'Error: path not found: {path}' --no-error-flag --mode kv",
        on_folder: false,
        grade: Some(("errors.is-error-flag", Level::Must, Harm::Flag)),
    },
];

fn spec_of(row: &Row) -> BackendSpec {
    let (script, args) = row.backend.split_once(' ').unwrap_or((row.backend, ""));
    let path = root().join("tests/backends").join(script);
    assert!(path.is_file(), "no backend {}", path.display());
    // The broken backends wrap `memspec serve`, found through MEMSPEC_BIN; they take the
    // memories folder last unless the arguments place it.
    let folder = if row.backend.contains("{memories}") || row.backend.contains("--mode") {
        ""
    } else {
        " {memories}"
    };
    BackendSpec::command(
        &format!(
            "env MEMSPEC_BIN={} PYTHONDONTWRITEBYTECODE=1 python3 {} {args}{folder}",
            bin(),
            path.display()
        ),
        Some(row.on_folder),
    )
}

/// A backend that crashed, hung or spoke garbage: `check` says so by the case's outcome,
/// `replay` by the step's kind, `fuzz` by a finding under `errors.terminates`.
fn broke() -> Grade {
    Some(("errors.terminates".to_string(), Level::Must, Harm::Content))
}

fn grade_of(finding: &Finding) -> (String, Level, Harm) {
    (finding.rule.to_string(), finding.level, finding.harm())
}

fn above_info(grade: Grade) -> Grade {
    grade.filter(|(_, level, _)| *level != Level::Info)
}

/// Through `check`: the run's first root cause.
fn by_check(loaded: &Loaded, row: &Row) -> Grade {
    let config = CheckConfig {
        backend: spec_of(row),
        selection: Selection {
            ids: vec![row.case.to_string()],
            ..Selection::default()
        },
        options: RunOptions {
            jobs: 1,
            ..RunOptions::default()
        },
        baseline: None,
        recheck: false,
        clients: 1,
        crash: false,
    };
    let run = memspec::check::check(&config, loaded, &memspec::events::Quiet)
        .unwrap_or_else(|e| panic!("check {}: {e}", row.case));
    let report = memspec::report::Report::of_check(run, Vec::new());
    assert_eq!(report.results.len(), 1, "{}", row.case);
    if report.results.iter().any(|r| r.outcome == Outcome::Error) {
        return broke();
    }
    above_info(
        report
            .root_causes()
            .first()
            .map(|cause| (cause.rule.to_string(), cause.level, cause.harm)),
    )
}

/// The calls `check` makes for the case: setup, steps, and on a store that is not a folder the
/// views that read its effects back (on a folder the disk is read instead).
fn calls(loaded: &Loaded, row: &Row) -> Vec<Value> {
    let case = loaded
        .suite
        .cases
        .iter()
        .find(|c| c.case.id == row.case)
        .unwrap_or_else(|| panic!("no case {}", row.case));
    assert!(
        case.case.fixtures.is_empty(),
        "{}: a table case makes its files by calls",
        row.case
    );
    case.case
        .setup
        .iter()
        .map(|call| call.input().clone())
        .chain(case.case.steps.iter().map(|step| step.input.clone()))
        .chain(
            case.case
                .effects
                .iter()
                .filter(|_| !row.on_folder)
                .filter_map(|effect| witness::view_of(&effect.path, &effect.expect)),
        )
        .collect()
}

/// Through `replay`: the worst divergence of the backend from the reference that follows from
/// no earlier step.
fn by_replay(loaded: &Loaded, row: &Row) -> Grade {
    // The same calls as fuzz's sequence, as the transcript fuzz replays them.
    let actions: Vec<Action> = calls(loaded, row).into_iter().map(Action::Call).collect();
    let transcript = memspec::fuzz::trial::transcript(&actions, row.case, &[]);
    let options = ReplayOptions {
        backend: spec_of(row),
        seed: None,
        timeout: Duration::from_secs(10),
        check: false,
        revision: loaded.spec.revision(),
        user: None,
    };
    let replayed = memspec::replay::replay(
        transcript,
        &options,
        Some(&loaded.spec),
        &memspec::events::Quiet,
    )
    .unwrap_or_else(|e| panic!("replay {}: {e}", row.case));
    if replayed
        .steps
        .iter()
        .any(|step| step.verdict.kind == StepKind::Broke)
    {
        return broke();
    }
    let findings = replayed.steps.iter().flat_map(|step| {
        step.verdict
            .divergences
            .iter()
            .filter(|d| d.pair == Some(Pair::BackendReference) && d.cascade_of.is_none())
    });
    above_info(worst(findings).map(grade_of))
}

/// Through `fuzz`: the trial's finding on the same sequence.
fn by_fuzz(loaded: &Loaded, row: &Row) -> Grade {
    let actions: Vec<Action> = calls(loaded, row).into_iter().map(Action::Call).collect();
    let mut kept = None;
    let trial = memspec::fuzz::trial::run(
        &actions,
        None,
        &spec_of(row),
        &loaded.spec,
        Duration::from_secs(10),
        memspec::fuzz::trial::Store::One(&mut kept),
    )
    .unwrap_or_else(|e| panic!("fuzz {}: {e}", row.case));
    if let Some(session) = kept {
        session.discard();
    }
    above_info(trial.found.map(|located| {
        let found = located.found;
        let harm = found.harm();
        (found.rule.to_string(), found.level, harm)
    }))
}

#[test]
fn every_command_grades_a_situation_alike() {
    let loaded = memspec::check::load(
        &Source::Dir(root().join("spec")),
        &Source::Dir(root().join("cases")),
        Revision::Ga2026,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut differ = Vec::new();
    for row in TABLE {
        let want: Grade = row
            .grade
            .map(|(rule, level, harm)| (rule.to_string(), level, harm));
        let got = [
            ("check", by_check(&loaded, row)),
            ("replay", by_replay(&loaded, row)),
            ("fuzz", by_fuzz(&loaded, row)),
        ];
        for (path, grade) in got {
            if grade != want {
                differ.push(format!(
                    "{} on {}: {path} grades {grade:?}, the table says {want:?}",
                    row.case, row.backend
                ));
            }
        }
    }
    assert!(differ.is_empty(), "\n{}", differ.join("\n"));
}
