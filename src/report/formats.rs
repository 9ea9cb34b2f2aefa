//! Machine formats of a report: JSON, JUnit XML, TAP and Markdown.

use std::collections::BTreeMap;
use std::fmt::Write;

use quick_junit::{NonSuccessKind, Report as JunitReport, TestCase, TestCaseStatus, TestSuite};
use schemars::JsonSchema;
use serde::Serialize;

use super::{AcceptedBreaks, ChoiceSummary, Report, Verdict};
use crate::diff::{Glyphs, REPORT_DIFF_LINES, push_report_diff, thousands};
use crate::judge::cascade::RootCause;
use crate::judge::grade::{CaseResult, Outcome};
use crate::judge::lineage::Lineage;
use crate::spec::Revision;

/// The JSON report of a run (`memspec check --format json`): the verdict and what it rests on
/// first, then the whole [`Report`]. Every text longer than 4,096 characters, wherever it
/// stands, is written as a bounded object `{head, tail, length, sha256}` unless the report was
/// asked for `--full-texts`; the fields that carry a backend's texts (and the messages made from
/// them) say so in their type (`JsonText`), the others (ids, names, the command line) are not
/// that long.
#[derive(Serialize, JsonSchema)]
pub struct JsonReport<'a> {
    /// The version of memspec that wrote it.
    pub memspec: &'static str,
    /// The revision of the page the run was judged by.
    pub revision: Revision,
    /// What the exit code says.
    pub verdict: Verdict,
    /// Per rule that allows another outcome, which one the backend took (INFO).
    pub choices: Vec<ChoiceSummary>,
    /// Failures and errors the baseline accepted, which alone would fail the run.
    pub accepted_by_baseline: AcceptedBreaks,
    /// The known lineages the backend's answers belong to, with the findings each explains:
    /// every one recognised, also those the human and Markdown reports leave unnamed because
    /// they explain fewer than half of the findings.
    pub lineages: Vec<Lineage>,
    /// The rules broken by findings that follow no other, heaviest first.
    pub root_causes: Vec<RootCause>,
    /// When the backend answered every call of the run (at least 10) with an error: what the
    /// first one said.
    #[schemars(with = "Option<crate::schema::JsonText>")]
    pub refuses_everything: Option<&'a str>,
    /// Cases per outcome (those a baseline accepts under their outcome too); outcomes no case
    /// had are left out.
    #[schemars(schema_with = "crate::schema::keyed_by::<Outcome, usize>")]
    pub counts: BTreeMap<Outcome, usize>,
    /// Everything the report shows: the run, and one result per case.
    pub report: &'a Report,
}

impl<'a> JsonReport<'a> {
    /// The JSON report of `report`.
    pub fn of(report: &'a Report) -> JsonReport<'a> {
        JsonReport {
            memspec: env!("CARGO_PKG_VERSION"),
            revision: report.revision,
            verdict: report.verdict(),
            choices: report.choices(),
            accepted_by_baseline: report.accepted_breaks(),
            lineages: report.lineages(),
            root_causes: report.root_causes(),
            refuses_everything: report.refuses_everything(),
            counts: report.counts(),
            report,
        }
    }
}

/// The report as pretty JSON ([`JsonReport`]); texts over [`super::text::JSON_TEXT_LIMIT`]
/// characters bounded unless `full_texts`.
pub fn json(report: &Report, full_texts: bool) -> String {
    let mut value = serde_json::to_value(JsonReport::of(report))
        .unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }));
    if !full_texts {
        super::text::bound_json(&mut value);
    }
    super::text::json_text(&value)
}

/// The report as JUnit XML, one test case per case; failures and errors carry the diff,
/// warnings and infos are passes with a system-out note, skips are skipped.
pub fn junit(report: &Report) -> String {
    let mut junit = JunitReport::new(format!("memspec (judged by revision {})", report.revision));
    let mut suites: Vec<TestSuite> = Vec::new();
    for result in &report.results {
        let suite = match suites
            .iter_mut()
            .position(|s| s.name.as_str() == result.area)
        {
            Some(i) => &mut suites[i],
            None => {
                let mut suite = TestSuite::new(result.area.clone());
                suite.add_property(quick_junit::Property::new("revision", report.revision.id()));
                suites.push(suite);
                let last = suites.len() - 1;
                &mut suites[last]
            }
        };
        let status = match (result.outcome, &result.baselined) {
            (_, Some(_)) | (Outcome::Pass | Outcome::Info | Outcome::Warn, None) => {
                TestCaseStatus::success()
            }
            (Outcome::Skip, None) => {
                let mut status = TestCaseStatus::skipped();
                if let Some(reason) = &result.reason {
                    status.set_message(reason.clone());
                }
                status
            }
            (Outcome::Fail, None) => non_success(NonSuccessKind::Failure, report, result),
            (Outcome::Error, None) => non_success(NonSuccessKind::Error, report, result),
        };
        let mut case = TestCase::new(result.id.clone(), status);
        case.set_classname(format!("memspec.{}", result.area));
        case.set_time(result.duration);
        if matches!(result.outcome, Outcome::Warn | Outcome::Info) || result.baselined.is_some() {
            case.set_system_out(details(report, result));
        }
        suite.add_test_case(case);
    }
    junit.add_test_suites(suites);
    junit
        .to_string()
        .unwrap_or_else(|e| format!("<!-- cannot render JUnit: {e} -->\n"))
}

fn non_success(kind: NonSuccessKind, report: &Report, result: &CaseResult) -> TestCaseStatus {
    let mut status = TestCaseStatus::non_success(kind);
    let message = result
        .reason
        .clone()
        .or_else(|| result.findings.first().map(ToString::to_string))
        .unwrap_or_default();
    status.set_message(message);
    status.set_description(details(report, result));
    status
}

/// Findings of one case as plain text with diffs and the rerun command.
fn details(report: &Report, result: &CaseResult) -> String {
    let mut out = String::new();
    if let Some(reason) = &result.baselined {
        let _ = writeln!(out, "accepted by baseline: {reason}");
    }
    for finding in &result.findings {
        let _ = writeln!(out, "{finding}");
        if let (Some(expected), Some(actual)) = (finding.expected_for_diff(), &finding.actual) {
            push_report_diff(
                &mut out,
                (expected, actual),
                Glyphs::PLAIN,
                "",
                false,
                "the rerun command shows them all",
            );
        }
    }
    let _ = writeln!(out, "rerun: {}", report.repro(&result.id));
    out
}

/// The report as TAP version 14.
pub fn tap(report: &Report) -> String {
    let mut out = format!(
        "TAP version 14\n1..{}\n# judged by revision {}\n",
        report.results.len(),
        report.revision
    );
    for note in &report.notes {
        let _ = writeln!(out, "# note: {note}");
    }
    for (i, result) in report.results.iter().enumerate() {
        let n = i + 1;
        let ok =
            result.baselined.is_some() || !matches!(result.outcome, Outcome::Fail | Outcome::Error);
        let directive = match (result.outcome, &result.baselined) {
            (_, Some(reason)) => format!(" # TODO accepted by baseline: {reason}"),
            (Outcome::Skip, None) => {
                format!(" # SKIP {}", result.reason.clone().unwrap_or_default())
            }
            (Outcome::Warn | Outcome::Info, None) => format!(" # {}", result.outcome.as_str()),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "{} {n} - {}{directive}",
            if ok { "ok" } else { "not ok" },
            result.id
        );
        if !ok {
            out.push_str("  ---\n");
            let _ = writeln!(out, "  outcome: {}", result.outcome.as_str());
            if let Some(reason) = &result.reason {
                let _ = writeln!(out, "  reason: {}", yaml_string(reason));
            }
            if let Some(f) = result.findings.first() {
                let _ = writeln!(out, "  rule: {}", f.rule);
                let _ = writeln!(out, "  message: {}", yaml_string(&f.message));
                if let Some(expected) = &f.expected {
                    let _ = writeln!(out, "  expected: {}", yaml_string(&head(expected)));
                }
                if let Some(actual) = &f.actual {
                    let _ = writeln!(out, "  actual: {}", yaml_string(&head(actual)));
                }
            }
            let _ = writeln!(out, "  rerun: {}", yaml_string(&report.repro(&result.id)));
            out.push_str("  ...\n");
        }
    }
    out
}

/// The first [`REPORT_DIFF_LINES`] lines of a text, and how many more there were: a TAP
/// stream is read by people and CI logs, and a million-line view would drown both.
fn head(text: &str) -> String {
    let mut lines = text.split_inclusive('\n');
    let shown: String = lines.by_ref().take(REPORT_DIFF_LINES).collect();
    let more = lines.count();
    if more == 0 {
        shown
    } else {
        format!(
            "{shown}… {} more lines (the rerun command shows them all)",
            thousands(more)
        )
    }
}

fn yaml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// The report as Markdown, for a CI job summary or a pull request comment.
pub fn markdown(report: &Report) -> String {
    let mut out = String::from("## memspec conformance\n\n");
    let accepted = report.accepted_breaks();
    // One verdict for every lane; the crash lane's line below is detail.
    let verdict = match report.verdict() {
        Verdict::Conformant if !accepted.is_empty() => format!(
            "✅ matches the baseline, which accepts {}",
            accepted.describe()
        ),
        Verdict::Conformant => "✅ conformant".to_string(),
        Verdict::NotConformant => "❌ not conformant".to_string(),
        Verdict::BackendBroke => "💥 the backend broke".to_string(),
    };
    let _ = writeln!(
        out,
        "**{verdict}{}** — backend `{}`, {}, judged by revision `{}`\n",
        super::human::harm_note(report),
        report.backend,
        super::plural(report.results.len(), "case", "cases"),
        report.revision
    );
    if let Some(line) = report.crash_line() {
        let mark = if line.starts_with("survives crashes: yes") {
            "✅"
        } else {
            "❌"
        };
        let _ = writeln!(out, "**{mark} {line}**\n");
    }
    for choice in report.choices() {
        let _ = writeln!(out, "Choice (INFO): {}\n", choice.line());
    }
    // How the run went (one process per case, failures only in parallel): read before the
    // counts they qualify.
    for note in &report.notes {
        let _ = writeln!(out, "Note: {note}\n");
    }
    out.push_str("| outcome | cases |\n|---|---|\n");
    for (outcome, n) in report.counts() {
        let _ = writeln!(out, "| {} | {n} |", outcome.as_str());
    }
    // As the human report: a lineage named only where it explains at least half the findings
    // (the JSON report lists every one).
    for lineage in report.lineages().iter().filter(|l| l.explains_most()) {
        let _ = writeln!(
            out,
            "\n**Lineage:** {} — explains {} of {} ({})",
            lineage.name.replace('|', "\\|"),
            lineage.findings,
            super::plural(lineage.of, "finding", "findings"),
            super::plural(lineage.cases, "case", "cases")
        );
    }
    let causes = report.root_causes();
    if !causes.is_empty() {
        out.push_str("\n| root cause | level | cases | first case |\n|---|---|---|---|\n");
        for cause in causes {
            let _ = writeln!(
                out,
                "| `{}` | {}{} | {} | `{}` |",
                cause.rule,
                cause.level.as_str(),
                cause
                    .harm
                    .label()
                    .map(|label| format!(", {label}"))
                    .unwrap_or_default(),
                cause.cases,
                cause.first_case
            );
        }
    }
    // A pull request comment is read from the top: what fails the run first, then the
    // warnings, and the rest (INFO, accepted by the baseline) folded away.
    let open = |r: &&CaseResult| r.baselined.is_none();
    let failing: Vec<&CaseResult> = report
        .results
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Fail | Outcome::Error))
        .filter(open)
        .collect();
    let warnings: Vec<&CaseResult> = report
        .results
        .iter()
        .filter(|r| r.outcome == Outcome::Warn)
        .filter(open)
        .collect();
    let rest: Vec<&CaseResult> = report
        .results
        .iter()
        .filter(|r| !matches!(r.outcome, Outcome::Pass | Outcome::Skip))
        .filter(|r| r.baselined.is_some() || r.outcome == Outcome::Info)
        .collect();
    if !failing.is_empty() {
        let _ = writeln!(out, "\n### Failures ({})\n", failing.len());
        case_table(&mut out, &failing);
    }
    if !warnings.is_empty() {
        let _ = writeln!(out, "\n### Warnings ({})\n", warnings.len());
        case_table(&mut out, &warnings);
    }
    // Baseline problems fail the run too: above the fold.
    if !report.baseline_problems.is_empty() {
        out.push_str("\n**Baseline problems**\n\n");
        for p in &report.baseline_problems {
            let _ = writeln!(out, "- {p}");
        }
    }
    if !rest.is_empty() {
        let baselined = rest.iter().filter(|r| r.baselined.is_some()).count();
        let info = rest.len() - baselined;
        let mut parts = Vec::new();
        if info > 0 {
            parts.push(format!("{info} info"));
        }
        if baselined > 0 {
            parts.push(format!("{baselined} accepted by the baseline"));
        }
        let _ = writeln!(
            out,
            "\n<details><summary>{} more: {}</summary>\n",
            rest.len(),
            parts.join(", ")
        );
        case_table(&mut out, &rest);
        out.push_str("\n</details>\n");
    }
    out
}

/// One Markdown table of cases: id, level, outcome, the first finding's rule and what it saw.
fn case_table(out: &mut String, results: &[&CaseResult]) {
    out.push_str("| case | level | outcome | rule | what |\n|---|---|---|---|---|\n");
    for r in results {
        let finding = r.findings.first();
        let what = r
            .reason
            .clone()
            .or_else(|| {
                finding.map(|f| match &f.dialect {
                    Some(d) => format!("{} (dialect `{d}`)", f.message),
                    None => f.message.clone(),
                })
            })
            .unwrap_or_default();
        let outcome = match &r.baselined {
            Some(_) => format!("{} (baselined)", r.outcome.as_str()),
            None => r.outcome.as_str().to_string(),
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {outcome} | `{}` | {} |",
            r.id,
            r.level.as_str(),
            finding.map_or("", |f| f.rule.as_str()),
            what.replace('|', "\\|").replace('\n', " ")
        );
    }
}
