//! The non-interactive replay report: the same verdicts and diffs as the TUI, as text for a CI
//! log or as JSON.

use std::fmt::Write;

use serde::Serialize;
use serde_json::Value;

use crate::diff::{Glyphs, push_report_diff};
use crate::judge::Pair;
use crate::judge::compare::Answer;
use crate::protocol::ToolResult;
use crate::replay::verdict::StepKind;
use crate::replay::{Conclusion, FailOn, LaneVerdict, Replay, Step, texts};
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

/// The text report, its exit code following the backend under test.
pub fn text(replay: &Replay, spec: Option<&Spec>, detail: Detail) -> String {
    text_for(replay, spec, detail, FailOn::Backend)
}

/// The text report, saying which verdict the exit code follows. Control characters from the
/// transcript or the answers (NUL, ESC, every C0 and C1 control but newline and tab) are
/// shown escaped: a CI log or a terminal must not act on them.
pub fn text_for(replay: &Replay, spec: Option<&Spec>, detail: Detail, fail_on: FailOn) -> String {
    super::text::for_display(&raw_text(replay, spec, detail, fail_on))
}

fn raw_text(replay: &Replay, spec: Option<&Spec>, detail: Detail, fail_on: FailOn) -> String {
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
    for note in &replay.planted {
        let _ = writeln!(out, "setup: {note}");
    }
    if replay.check {
        let _ = writeln!(
            out,
            "mode: --check (any change from the recorded results fails)"
        );
    }
    for lineage in lineages(replay) {
        let _ = writeln!(out, "{}", super::human::lineage_line(&lineage));
    }
    out.push('\n');
    security(&mut out, replay);
    for (i, (call, step)) in transcript.calls.iter().zip(&replay.steps).enumerate() {
        let kind = step.verdict.kind;
        if kind.diverges()
            && !detail.verbose
            && let Some(cause) = step.verdict.follows(None)
        {
            // A consequence is named in one line: its cause has the diff.
            let headline = step
                .verdict
                .headline()
                .map(|d| format!(" ({} [{} {}])", d.lane().label(), d.level.as_str(), d.rule))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{} step {} {} — {}, follows step {cause}{headline}",
                kind.mark(),
                i + 1,
                call.summary(),
                kind.label()
            );
        } else if step.verdict.reason.as_deref() == Some(crate::replay::NO_RECORDED_ANSWER)
            && !kind.diverges()
        {
            let _ = writeln!(
                out,
                "? step {} {} — no recorded answer",
                i + 1,
                call.summary()
            );
        } else if kind.diverges() || (detail.verbose && kind != StepKind::NotReplayed) {
            block(&mut out, i, call, step, spec, replay.check, detail);
        } else if matches!(kind, StepKind::Dialect | StepKind::Open) {
            let headline = step
                .verdict
                .headline()
                .map(|d| d.message.as_str())
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
    summary(&mut out, replay, fail_on);
    out
}

/// The known lineages the backend's answers show (see [`crate::judge::lineage`]): each
/// difference from the reference is matched with the backend's own answer as its text. The
/// report names them after the run, as `check`'s does from its results.
fn lineages(replay: &Replay) -> Vec<crate::judge::lineage::Lineage> {
    let mut findings = Vec::new();
    for (index, step) in replay.steps.iter().enumerate() {
        let Some(answer) = step.backend.as_ref().and_then(Answer::result) else {
            continue;
        };
        let expected = step.reference.as_ref().and_then(Answer::result);
        for divergence in &step.verdict.divergences {
            if divergence.pair != Some(Pair::BackendReference) {
                continue;
            }
            let mut finding = divergence.clone();
            finding.actual = Some(answer.text.clone());
            finding.expected = expected.map(|r| r.text.clone());
            findings.push((format!("step {}", index + 1), finding));
        }
    }
    let located: Vec<crate::judge::lineage::Located<'_>> = findings
        .iter()
        .map(|(case, finding)| crate::judge::lineage::Located { case, finding })
        .collect();
    crate::judge::lineage::recognise_findings(&located)
}

/// Every security finding, first, one line each.
fn security(out: &mut String, replay: &Replay) {
    let mut lines = Vec::new();
    for (i, (call, step)) in replay
        .transcript
        .calls
        .iter()
        .zip(&replay.steps)
        .enumerate()
    {
        for divergence in step.verdict.divergences.iter().filter(|d| d.security) {
            let finding = &divergence;
            lines.push(format!(
                "  {} step {} {} — {} [SECURITY {} {}]: {}",
                StepKind::Security.mark(),
                i + 1,
                call.summary(),
                divergence.lane().label(),
                finding.level.as_str(),
                finding.rule,
                finding.message
            ));
        }
    }
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "security: {} finding(s)", lines.len());
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
    out.push('\n');
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
        let finding = &divergence;
        let rule = &finding.rule;
        // In check mode every difference is a change; its level would only mislead.
        let level = if check {
            "changed"
        } else {
            finding.level.as_str()
        };
        let security = if divergence.security { "SECURITY " } else { "" };
        if let Some(cause) = divergence.cascade_of {
            let _ = writeln!(
                out,
                "  - {} [{level} {rule}]: {} (follows step {cause})",
                divergence.lane().label(),
                finding.message
            );
            continue;
        }
        let _ = writeln!(
            out,
            "  - {} [{security}{level} {rule}]: {}",
            divergence.lane().label(),
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
        if finding.check == crate::judge::Check::Text && !shown.contains(&divergence.lane()) {
            shown.push(divergence.lane());
            if let Some((expected, actual)) = texts(call, step, divergence.lane()) {
                let (left, right) = divergence.lane().sides();
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

/// Steps per kind, security first, the calls with no recorded answer apart from `same`.
fn ordered_counts(replay: &Replay) -> Vec<(String, usize)> {
    let mut counts = replay.counts();
    let unanswered = replay.unanswered();
    if let Some(same) = counts.get_mut(&StepKind::Same) {
        *same = same.saturating_sub(unanswered);
    }
    let mut out: Vec<(String, usize)> = Vec::new();
    if let Some(n) = counts.remove(&StepKind::Security) {
        out.push((StepKind::Security.label().to_string(), n));
    }
    out.extend(
        counts
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .map(|(kind, n)| (kind.label().to_string(), n)),
    );
    if unanswered > 0 {
        out.push(("no recorded answer".to_string(), unanswered));
    }
    out
}

fn conclusion_words(conclusion: Conclusion, check: bool) -> &'static str {
    match conclusion {
        Conclusion::Same if check => "unchanged",
        Conclusion::Same => "no MUST or SHOULD difference",
        Conclusion::Differs if check => "changed since the recording",
        Conclusion::Differs => "MUST or SHOULD differences",
        Conclusion::BackendBroke => "the backend broke",
    }
}

fn summary(out: &mut String, replay: &Replay, fail_on: FailOn) {
    let parts: Vec<String> = ordered_counts(replay)
        .iter()
        .map(|(label, n)| format!("{n} {label}"))
        .collect();
    let _ = writeln!(out, "summary: {}", parts.join(", "));
    if !replay.check {
        for (name, pair) in [
            ("backend vs spec", Pair::BackendReference),
            ("recording vs spec", Pair::RecordedReference),
        ] {
            let lane = replay.verdict(pair);
            let _ = writeln!(
                out,
                "{name}: {} — {}",
                conclusion_words(lane.conclusion, false),
                lane.describe()
            );
        }
    }
    let followed = match fail_on {
        _ if replay.check => "",
        FailOn::Backend => " (the exit code follows the backend; --fail-on recording|either)",
        FailOn::Recording => " (the exit code follows the recording)",
        FailOn::Either => " (the exit code follows the worse of the two)",
    };
    let _ = writeln!(
        out,
        "verdict: {}{followed}",
        conclusion_words(replay.conclusion_for(fail_on), replay.check)
    );
}

/// The step counts in display order (security first), as a JSON object in that order.
struct OrderedCounts(Vec<(String, usize)>);

impl Serialize for OrderedCounts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (key, n) in &self.0 {
            map.serialize_entry(key, n)?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct JsonReport<'a> {
    transcript: &'a str,
    format: crate::transcript::Format,
    backend: &'a str,
    revision: crate::spec::Revision,
    lineages: Vec<crate::judge::lineage::Lineage>,
    check: bool,
    conclusion: Conclusion,
    fail_on: FailOn,
    backend_verdict: LaneVerdict,
    recording_verdict: LaneVerdict,
    counts: OrderedCounts,
    unanswered: usize,
    elapsed_ms: u64,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    planted: &'a [String],
    security: Vec<JsonSecurity<'a>>,
    steps: Vec<JsonStep<'a>>,
}

#[derive(Serialize)]
struct JsonSecurity<'a> {
    step: usize,
    #[serde(flatten)]
    divergence: &'a crate::judge::Finding,
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
    verdict: &'a crate::replay::StepVerdict,
    changed: bool,
}

/// The JSON report: every step with its input, the three results and the verdict; its
/// conclusion follows the backend under test.
pub fn json(replay: &Replay) -> String {
    json_for(replay, FailOn::Backend)
}

/// The JSON report: the security findings first, both verdicts, then every step; the
/// conclusion is what the exit code follows.
pub fn json_for(replay: &Replay, fail_on: FailOn) -> String {
    let counts: Vec<(String, usize)> = {
        // Keys as the kinds serialize (`security`, `must`, …), security first.
        let mut counts = replay.counts();
        let mut out = Vec::new();
        if let Some(n) = counts.remove(&StepKind::Security) {
            out.push(("security".to_string(), n));
        }
        for (kind, n) in counts {
            let key = serde_json::to_value(kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            out.push((key, n));
        }
        out
    };
    let security = replay
        .steps
        .iter()
        .enumerate()
        .flat_map(|(i, step)| {
            step.verdict
                .divergences
                .iter()
                .filter(|d| d.security)
                .map(move |divergence| JsonSecurity {
                    step: i + 1,
                    divergence,
                })
        })
        .collect();
    let report = JsonReport {
        transcript: &replay.transcript.source,
        format: replay.transcript.format,
        backend: &replay.backend,
        revision: replay.revision,
        lineages: lineages(replay),
        check: replay.check,
        conclusion: replay.conclusion_for(fail_on),
        fail_on,
        backend_verdict: replay.verdict(Pair::BackendReference),
        recording_verdict: replay.verdict(Pair::RecordedReference),
        counts: OrderedCounts(counts),
        unanswered: replay.unanswered(),
        elapsed_ms: replay.elapsed.as_millis() as u64,
        planted: &replay.planted,
        security,
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
    let mut value = serde_json::to_value(&report).unwrap_or_default();
    super::text::bound_json(&mut value);
    super::text::json_text(&value)
}

/// The replay as a check report, so that every format of the one reporter renders it (JUnit,
/// TAP, Markdown, HTML, JSON): one result per memory call (`step-N`, its command as the area),
/// its findings the backend's divergences from the reference (with `--check`, its changes from
/// the recording), each consequence marked with the step it follows from. `rerun` is the
/// command that replays it again.
pub fn as_report(replay: &Replay, rerun: String) -> super::Report {
    use crate::judge::Cause;
    use crate::judge::grade::{CallRecord, CaseResult, Outcome, Phase};
    let lane = if replay.check {
        Pair::RecordedBackend
    } else {
        Pair::BackendReference
    };
    // The rule each step is about, for the steps that follow from it.
    let headline = |step: usize| -> Option<crate::spec::RuleId> {
        let verdict = &replay.steps.get(step.checked_sub(1)?)?.verdict;
        verdict.headline().map(|d| d.rule.clone())
    };
    let results = replay
        .transcript
        .calls
        .iter()
        .zip(&replay.steps)
        .enumerate()
        .filter(|(_, (call, _))| call.is_memory())
        .map(|(index, (call, step))| {
            let findings: Vec<crate::judge::Finding> = step
                .verdict
                .divergences
                .iter()
                .filter(|d| d.pair == Some(lane))
                .map(|d| {
                    let mut finding = d.clone();
                    finding.step = Some(0);
                    finding.follows = d.cascade_of.and_then(|n| {
                        Some(Cause {
                            rule: headline(n)?,
                            step: Some(n - 1),
                        })
                    });
                    finding
                })
                .collect();
            let outcome = match step.verdict.outcome {
                // Differences above INFO in another lane (the recording's) are not the
                // backend's: its outcome is its own findings'.
                Outcome::Error => Outcome::Error,
                _ => CaseResult::graded(&findings, false),
            };
            CaseResult {
                id: format!("step-{}", index + 1),
                area: call
                    .input
                    .get("command")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_string(),
                title: call.summary(),
                level: findings
                    .iter()
                    .map(|f| f.level)
                    .max()
                    .unwrap_or(crate::spec::Level::Info),
                hostile: false,
                rules: findings.iter().map(|f| f.rule.to_string()).collect(),
                outcome,
                reason: step
                    .verdict
                    .reason
                    .clone()
                    .filter(|_| outcome == Outcome::Error),
                findings,
                calls: vec![CallRecord {
                    phase: Phase::Step,
                    input: call.input.clone(),
                    result: step.backend.as_ref().and_then(Answer::result).cloned(),
                    error: match &step.backend {
                        Some(Answer::Broke(why) | Answer::NotRun(why)) => Some(why.clone()),
                        _ => None,
                    },
                    backend_time: std::time::Duration::from_micros(step.backend_micros),
                }],
                duration: std::time::Duration::from_micros(step.backend_micros),
                start_time: std::time::Duration::ZERO,
                baselined: None,
                choices: Vec::new(),
                notes: Vec::new(),
                timed_out: false,
            }
        })
        .collect();
    super::Report {
        backend: replay.backend.clone(),
        revision: replay.revision,
        repro_args: Vec::new(),
        strict: false,
        results,
        baseline_problems: Vec::new(),
        elapsed: replay.elapsed,
        workers: 1,
        notes: std::iter::once(format!(
            "memspec replay {} ({})",
            replay.transcript.source,
            replay.transcript.format.describe()
        ))
        .chain(replay.planted.iter().cloned())
        .collect(),
        rerun: Some(rerun),
        run: super::Run::Replay,
    }
}
