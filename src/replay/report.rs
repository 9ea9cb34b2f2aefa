//! The non-interactive replay report: the same verdicts and diffs as the TUI, as text for a CI
//! log or as JSON.

use std::fmt::Write;

use serde::Serialize;
use serde_json::Value;

use super::verdict::{Kind, Pair};
use super::{Answer, Conclusion, Replay, Step};
use crate::diff::{Glyphs, push_report_diff};
use crate::protocol::ToolResult;
use crate::spec::Spec;
use crate::transcript::ToolCall;

/// Tabs as a lone `→` in text reports: a CI log's tab stops are unknown.
const GLYPHS: Glyphs = Glyphs {
    tab_width: None,
    spaces_in_changes: true,
};

/// How much the text report shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Detail {
    /// Every step, diffs for dialects and open differences too, and diffs whole.
    pub verbose: bool,
}

/// The text report.
pub fn text(replay: &Replay, spec: Option<&Spec>, detail: Detail) -> String {
    let mut out = String::new();
    let transcript = &replay.transcript;
    let memory = transcript.memory_calls().count();
    let _ = writeln!(
        out,
        "memspec replay {} ({}), {} call(s), {memory} to the memory tool",
        transcript.source,
        transcript.format.describe(),
        transcript.calls.len(),
    );
    let _ = writeln!(out, "backend: {}", replay.backend);
    let _ = writeln!(out, "judged by revision {}", replay.revision);
    let recorded_seed = transcript.session.as_ref().and_then(|h| h.seed.as_deref());
    if let (Some(seed), None) = (recorded_seed, &replay.seed) {
        let _ = writeln!(
            out,
            "note: recorded with --seed {seed}; without the same seed the folders start empty"
        );
    }
    if replay.check {
        let _ = writeln!(
            out,
            "mode: --check (any change from the recorded results fails)"
        );
    }
    for lineage in replay.lineages() {
        let _ = writeln!(out, "{}", crate::report::human::lineage_line(&lineage));
    }
    out.push('\n');
    for (i, (call, step)) in transcript.calls.iter().zip(&replay.steps).enumerate() {
        let kind = step.verdict.kind;
        if kind.diverges() || (detail.verbose && kind != Kind::NotReplayed) {
            block(&mut out, i, call, step, spec, replay.check, detail);
        } else if matches!(kind, Kind::Dialect | Kind::Open) {
            let headline = step
                .verdict
                .headline()
                .map(|d| d.finding.message.as_str())
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{} step {} {} — {headline}",
                kind.mark(),
                i + 1,
                call.summary()
            );
        }
    }
    summary(&mut out, replay);
    out
}

fn block(
    out: &mut String,
    index: usize,
    call: &ToolCall,
    step: &Step,
    spec: Option<&Spec>,
    check: bool,
    detail: Detail,
) {
    let kind = step.verdict.kind;
    let at = call
        .line
        .map(|l| format!(" (line {l})"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "{} step {} {}{at} — {}",
        kind.mark(),
        index + 1,
        call.summary(),
        kind.label()
    );
    let _ = writeln!(out, "  input: {}", call.input);
    if let Some(reason) = &step.verdict.reason {
        let _ = writeln!(out, "  {reason}");
    }
    let mut shown: Vec<Pair> = Vec::new();
    for divergence in &step.verdict.divergences {
        let finding = &divergence.finding;
        let rule = &finding.rule;
        // In check mode every difference is a change; its level would only mislead.
        let level = if check {
            "changed"
        } else {
            finding.level.as_str()
        };
        let _ = writeln!(
            out,
            "  - {} [{level} {rule}]: {}",
            divergence.pair.label(),
            finding.message
        );
        if let Some(rule) = spec.and_then(|s| s.get(rule.as_str())) {
            if !rule.text.is_empty() {
                let _ = writeln!(out, "    spec: {}", rule.text);
            }
            if !rule.summary.is_empty() {
                let _ = writeln!(out, "    rule: {}", rule.summary);
            }
        }
        if finding.check == crate::suite::grade::Check::Text && !shown.contains(&divergence.pair) {
            shown.push(divergence.pair);
            if let Some((expected, actual)) = texts(call, step, divergence.pair) {
                let (left, right) = divergence.pair.sides();
                let _ = writeln!(out, "    --- {left}\n    +++ {right}");
                push_report_diff(
                    out,
                    (&expected.text, &actual.text),
                    GLYPHS,
                    "    ",
                    detail.verbose,
                    "use --verbose for all",
                );
            }
        }
    }
    out.push('\n');
}

/// The two results a pair compares, (expected side, actual side).
pub fn texts<'a>(
    call: &'a ToolCall,
    step: &'a Step,
    pair: Pair,
) -> Option<(&'a ToolResult, &'a ToolResult)> {
    let backend = step.backend.as_ref().and_then(Answer::result);
    let reference = step.reference.as_ref().and_then(Answer::result);
    let recorded = call.recorded.as_ref();
    match pair {
        Pair::BackendReference => Some((reference?, backend?)),
        Pair::RecordedReference => Some((reference?, recorded?)),
        Pair::RecordedBackend => Some((recorded?, backend?)),
    }
}

fn summary(out: &mut String, replay: &Replay) {
    let counts = replay.counts();
    let parts: Vec<String> = counts
        .iter()
        .map(|(kind, n)| format!("{n} {}", kind.label()))
        .collect();
    let _ = writeln!(out, "summary: {}", parts.join(", "));
    let _ = writeln!(
        out,
        "verdict: {}",
        match replay.conclusion() {
            Conclusion::Same if replay.check => "unchanged",
            Conclusion::Same => "no MUST or SHOULD difference",
            Conclusion::Differs if replay.check => "changed since the recording",
            Conclusion::Differs => "MUST or SHOULD differences",
            Conclusion::BackendBroke => "the backend broke",
        }
    );
}

#[derive(Serialize)]
struct JsonReport<'a> {
    transcript: &'a str,
    format: crate::transcript::Format,
    backend: &'a str,
    revision: crate::spec::Revision,
    lineages: Vec<crate::suite::lineage::Lineage>,
    check: bool,
    conclusion: Conclusion,
    counts: std::collections::BTreeMap<Kind, usize>,
    elapsed_ms: u64,
    steps: Vec<JsonStep<'a>>,
}

#[derive(Serialize)]
struct JsonStep<'a> {
    step: usize,
    id: &'a str,
    tool: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    input: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    recorded: Option<&'a ToolResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    backend: Option<&'a Answer>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reference: Option<&'a Answer>,
    verdict: &'a super::StepVerdict,
    changed: bool,
}

/// The JSON report: every step with its input, the three results and the verdict.
pub fn json(replay: &Replay) -> String {
    let report = JsonReport {
        transcript: &replay.transcript.source,
        format: replay.transcript.format,
        backend: &replay.backend,
        revision: replay.revision,
        lineages: replay.lineages(),
        check: replay.check,
        conclusion: replay.conclusion(),
        counts: replay.counts(),
        elapsed_ms: replay.elapsed.as_millis() as u64,
        steps: replay
            .transcript
            .calls
            .iter()
            .zip(&replay.steps)
            .enumerate()
            .map(|(i, (call, step))| JsonStep {
                step: i + 1,
                id: &call.id,
                tool: &call.name,
                line: call.line,
                input: &call.input,
                recorded: call.recorded.as_ref(),
                backend: step.backend.as_ref(),
                reference: step.reference.as_ref(),
                verdict: &step.verdict,
                changed: step.changed,
            })
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
    text.push('\n');
    text
}
