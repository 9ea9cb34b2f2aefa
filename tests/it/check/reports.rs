//! Snapshots of the human, TAP, Markdown and JUnit reports of one small deterministic run: the
//! `_report_mix` backend over six fixed cases gives one of each outcome (pass, warn with a known
//! dialect, warn with a whitespace diff, info, fail, error), and a baseline run adds accepted
//! deviations and baseline problems.
//!
//! Durations, timings and the checkout's path are redacted before the snapshot (insta's own
//! filters need its `filters` feature, which this package does not enable; the regexes here do
//! the same job).

use regex::Regex;

use super::{Run, backend, fixtures, memspec, root, run_command};

const MIX_CASES: [&str; 6] = [
    "basics.create-success",
    "basics.create-no-overwrite",
    "basics.view-file",
    "basics.final-newline",
    "basics.view-missing",
    "basics.str-replace",
];

fn mix_run(format: &str, extra: &[&str]) -> Run {
    let mut command = memspec();
    command
        .args(["check", "--jobs", "2", "--format", format, "--backend"])
        .arg(backend("_report_mix"))
        .arg("--cases")
        .arg(fixtures());
    for id in MIX_CASES {
        command.args(["--case", id]);
    }
    command.args(extra);
    run_command(&mut command)
}

/// Replaces what changes from run to run or machine to machine.
fn redact(text: &str) -> String {
    let rules = [
        (regex::escape(&root().to_string_lossy()), "[ROOT]"),
        (r"in \d+\.\d+ s".to_string(), "in [ELAPSED] s"),
        (
            r"backend median \d+ µs per call, harness \d+ µs per call".to_string(),
            "backend median [µs] per call, harness [µs] per call",
        ),
        (
            r"start-up and resets \d+\.\d+ s".to_string(),
            "start-up and resets [ELAPSED] s",
        ),
        (r#"time="[0-9.]+""#.to_string(), r#"time="[TIME]""#),
        (r"/tmp/[^\s/]+".to_string(), "[TMP]"),
    ];
    let mut out = text.to_string();
    for (pattern, replacement) in rules {
        let re = Regex::new(&pattern).expect("redaction regex");
        out = re.replace_all(&out, replacement).into_owned();
    }
    out
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    let redacted = redact(text);
    settings.bind(|| insta::assert_snapshot!(format!("check__{name}").as_str(), redacted));
}

#[test]
fn human_report() {
    let run = mix_run("human", &[]);
    assert_eq!(run.code, 3, "{}", run.describe());
    snapshot("human", &run.stdout);
}

#[test]
fn tap_report() {
    let run = mix_run("tap", &[]);
    assert_eq!(run.code, 3, "{}", run.describe());
    snapshot("tap", &run.stdout);
}

#[test]
fn markdown_report() {
    let run = mix_run("markdown", &[]);
    assert_eq!(run.code, 3, "{}", run.describe());
    snapshot("markdown", &run.stdout);
}

#[test]
fn junit_report() {
    let run = mix_run("junit", &[]);
    assert_eq!(run.code, 3, "{}", run.describe());
    snapshot("junit", &run.stdout);
}

/// A baseline accepting three of the mix's deviations, one with the wrong outcome, and one entry
/// for a case that passes: the reports show what is accepted and what differs.
fn baseline_file() -> tempfile::NamedTempFile {
    let file = tempfile::Builder::new()
        .prefix("memspec-it-baseline-")
        .suffix(".json")
        .tempfile()
        .expect("temp baseline");
    let baseline = serde_json::json!({
        "schema": 1,
        "backend": "_report_mix",
        "revision": "ga-2026",
        "accepted": [
            {"case": "basics.create-no-overwrite", "outcome": "warn", "reason": "unprefixed errors, like the Python SDK"},
            {"case": "basics.final-newline", "outcome": "info", "reason": "numbers the final newline"},
            {"case": "basics.str-replace", "outcome": "error", "reason": "str_replace not implemented yet"},
            {"case": "basics.view-missing", "outcome": "warn", "reason": "wrong outcome on purpose"},
            {"case": "basics.create-success", "outcome": "warn", "reason": "fixed since"}
        ]
    });
    std::fs::write(file.path(), baseline.to_string()).expect("write baseline");
    file
}

#[test]
fn human_report_with_a_baseline() {
    let baseline = baseline_file();
    let path = baseline.path().to_str().expect("utf-8 path").to_string();
    let run = mix_run("human", &["--baseline", &path]);
    // view-file's warning is not listed, view-missing's outcome differs, create-success passes.
    assert_eq!(run.code, 1, "{}", run.describe());
    snapshot("human_baseline", &run.stdout);
}

#[test]
fn markdown_report_with_a_baseline() {
    let baseline = baseline_file();
    let path = baseline.path().to_str().expect("utf-8 path").to_string();
    let run = mix_run("markdown", &["--baseline", &path]);
    assert_eq!(run.code, 1, "{}", run.describe());
    snapshot("markdown_baseline", &run.stdout);
}

#[test]
fn report_to_a_file_keeps_the_summary_on_stderr() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("report.xml");
    let mut command = memspec();
    command
        .args(["check", "--format", "junit", "--backend"])
        .arg(backend("_report_mix"))
        .arg("--cases")
        .arg(fixtures())
        .args(["--case", "basics.str-replace", "--output"])
        .arg(&out);
    let run = run_command(&mut command);
    assert_eq!(run.code, 3, "{}", run.describe());
    assert!(run.stdout.is_empty(), "{}", run.describe());
    let written = std::fs::read_to_string(&out).expect("report written");
    assert!(written.starts_with("<?xml"), "{written}");
    assert!(
        run.stderr.contains("verdict: the backend BROKE"),
        "{}",
        run.describe()
    );
    // The summary only: the case itself is in the file.
    assert!(
        !run.stderr.contains("ERROR basics.str-replace"),
        "{}",
        run.describe()
    );
    assert!(!run.stderr.contains("rerun:"), "{}", run.describe());
}

#[test]
fn a_million_line_diff_is_capped_in_the_human_and_junit_reports() {
    // Without the line limit, the refusal's diff against the view is 1,000,001 lines long.
    let mut command = memspec();
    command
        .args(["check", "--backend"])
        .arg(backend("no_line_limit"))
        .args(["--case", "encoding.line-limit-1m"]);
    let run = run_command(&mut command);
    assert!(run.stdout.len() < 20_000, "{} bytes", run.stdout.len());
    assert!(
        run.stdout
            .contains("more diff lines (use --verbose for all)"),
        "{}",
        run.describe()
    );
    let mut junit = memspec();
    junit
        .args(["check", "--format", "junit", "--backend"])
        .arg(backend("no_line_limit"))
        .args(["--case", "encoding.line-limit-1m"]);
    let junit = run_command(&mut junit);
    assert!(junit.stdout.len() < 20_000, "{} bytes", junit.stdout.len());
    assert!(
        junit.stdout.contains("more diff lines"),
        "{}",
        junit.describe()
    );
}

#[test]
fn template_lines_that_matched_are_context_in_the_diff() {
    // The listing's lines are `{size}\t/memories…` templates; the backend adds a hidden file.
    let mut command = memspec();
    command
        .args(["check", "--backend"])
        .arg(backend("hidden_listed"))
        .arg("--cases")
        .arg(fixtures())
        .args(["--case", "basics.listing-hidden"]);
    let run = run_command(&mut command);
    assert_eq!(run.code, 0, "{}", run.describe());
    assert!(!run.stdout.contains("{size}"), "{}", run.describe());
    assert!(
        run.stdout
            .lines()
            .any(|l| l.starts_with("        ") && l.ends_with("B→/memories")),
        "{}",
        run.describe()
    );
    assert!(
        run.stdout.contains("      + 7B→/memories/.secret"),
        "{}",
        run.describe()
    );
}

#[test]
fn markdown_report_puts_failures_first_and_folds_the_rest() {
    let run = mix_run("markdown", &[]);
    assert_eq!(run.code, 3, "{}", run.describe());
    let text = &run.stdout;
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("no {needle:?} in\n{text}"))
    };
    // The fail and the error open the case tables, the warnings follow, the INFO is folded.
    let row = |id: &str| at(&format!("| `{id}` | "));
    assert!(
        at("### Failures (2)") < row("basics.view-missing"),
        "{text}"
    );
    assert!(row("basics.str-replace") < at("### Warnings (2)"), "{text}");
    assert!(at("### Warnings (2)") < row("basics.view-file"), "{text}");
    assert!(at("<details>") < row("basics.final-newline"), "{text}");
    assert!(row("basics.final-newline") < at("</details>"), "{text}");
}

#[test]
fn human_report_with_a_baseline_shows_only_what_changed() {
    let baseline = baseline_file();
    let path = baseline.path().to_str().expect("utf-8 path").to_string();
    let run = mix_run("human", &["--baseline", &path]);
    assert_eq!(run.code, 1, "{}", run.describe());
    // The three accepted deviations are counted, not repeated; what differs is shown.
    for accepted in [
        "basics.create-no-overwrite",
        "basics.final-newline",
        "basics.str-replace",
    ] {
        assert!(
            !run.stdout.contains(accepted),
            "{accepted}\n{}",
            run.describe()
        );
    }
    assert!(
        run.stdout
            .contains("accepted by the baseline: 3 cases, not shown (--verbose shows them)"),
        "{}",
        run.describe()
    );
    assert!(
        run.stdout.contains("FAIL basics.view-missing"),
        "{}",
        run.describe()
    );
    assert!(
        run.stdout.contains("WARN basics.view-file"),
        "{}",
        run.describe()
    );
    // --verbose still shows every case.
    let verbose = mix_run("human", &["--baseline", &path, "--verbose"]);
    assert!(
        verbose
            .stdout
            .contains("ERROR basics.str-replace (accepted by baseline"),
        "{}",
        verbose.describe()
    );
}

/// A backend with one fault that breaks many cases the same way (no `is_error` on refusals)
/// gets one block for that cause and a line naming the other cases, not a block per case;
/// `--verbose` still shows each.
#[test]
fn one_cause_across_cases_is_one_block() {
    let args = |verbose: bool| {
        let mut args = vec![
            "check".to_string(),
            "--no-recheck".to_string(),
            "--area".to_string(),
            "delete".to_string(),
            "--backend".to_string(),
            backend("is_error_false"),
        ];
        if verbose {
            args.push("--verbose".to_string());
        }
        args
    };
    let run = run_command(memspec().args(args(false)));
    assert_eq!(run.code, 1, "{}", run.describe());
    let failed = |out: &str| out.matches("\nFAIL ").count();
    assert!(
        run.stdout.contains("broke the same way as delete."),
        "{}",
        run.describe()
    );
    let verbose = run_command(memspec().args(args(true)));
    assert!(
        failed(&run.stdout) < failed(&verbose.stdout),
        "{} blocks, {} with --verbose",
        failed(&run.stdout),
        failed(&verbose.stdout)
    );
    assert!(
        !verbose.stdout.contains("broke the same way"),
        "{}",
        verbose.describe()
    );
}
