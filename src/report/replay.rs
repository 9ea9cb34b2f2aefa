//! The non-interactive replay report. Every format but replay's own JSON is the one reporter's:
//! [`as_report`] makes the replay a [`super::Report`], one result per memory call, and
//! [`super::render`] writes it as text, JUnit, TAP, Markdown, HTML or check's JSON. The JSON
//! of `replay --report --format json` keeps its own shape (every step with its three results),
//! which scripts read.

use serde::Serialize;
use serde_json::Value;

use crate::judge::compare::Answer;
use crate::judge::{Check, Finding, Pair};
use crate::protocol::ToolResult;
use crate::replay::verdict::StepKind;
use crate::replay::{Conclusion, FailOn, LaneVerdict, Replay, Step, texts};
use crate::transcript::ToolCall;

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

/// The findings of one step in the given lanes, each with the two texts it compares (the
/// expected one for a text difference only: a flag or a fact is not argued by a diff), so that
/// every format can show them and the lineages can be recognised from them.
fn findings_in(call: &ToolCall, step: &Step, lanes: &[Pair]) -> Vec<Finding> {
    step.verdict
        .divergences
        .iter()
        .filter(|d| lanes.contains(&d.lane()))
        .map(|d| {
            let mut finding = d.clone();
            if let Some((expected, actual)) = texts(call, step, d.lane()) {
                if finding.actual.is_none() {
                    finding.actual = Some(actual.text.clone());
                }
                if finding.expected.is_none() && finding.check == Check::Text {
                    finding.expected = Some(expected.text.clone());
                }
            }
            finding
        })
        .collect()
}

/// The known lineages the backend's answers show (see [`crate::judge::lineage`]), from its
/// differences from the reference.
fn lineages(replay: &Replay) -> Vec<crate::judge::lineage::Lineage> {
    let findings: Vec<(String, Finding)> = replay
        .transcript
        .calls
        .iter()
        .zip(&replay.steps)
        .enumerate()
        .flat_map(|(index, (call, step))| {
            findings_in(call, step, &[Pair::BackendReference])
                .into_iter()
                .map(move |finding| (format!("step {}", index + 1), finding))
        })
        .collect();
    let located: Vec<crate::judge::lineage::Located<'_>> = findings
        .iter()
        .map(|(case, finding)| crate::judge::lineage::Located { case, finding })
        .collect();
    crate::judge::lineage::recognise_findings(&located)
}

/// The lanes whose findings the exit code follows: with `--check`, the changes from the
/// recording; else the backend's differences from the spec, the recording's, or both.
fn counted_lanes(replay: &Replay, fail_on: FailOn) -> &'static [Pair] {
    if replay.check {
        return &[Pair::RecordedBackend];
    }
    match fail_on {
        FailOn::Backend => &[Pair::BackendReference],
        FailOn::Recording => &[Pair::RecordedReference],
        FailOn::Either => &[Pair::BackendReference, Pair::RecordedReference],
    }
}

/// Differences of a lane the exit code does not follow that are listed one by one in the
/// report's notes; the rest are counted.
const OTHER_LANE_NAMED: usize = 8;

/// The replay as a report of the one reporter, so that every format renders it (text, JUnit,
/// TAP, Markdown, HTML, JSON): one result per memory call (`step-N`, its command as the area).
/// Its findings are those of the lanes `fail_on` follows (with `--check`, the changes from the
/// recording), graded strictly as the exit code is (a SHOULD difference fails); each
/// consequence is marked with the step it follows from. What only a replay knows travels as
/// notes: the transcript, the setup, both lanes' verdicts, the differences of the lane not
/// followed and the calls with no recorded answer. `rerun` is the command that replays it.
pub fn as_report(replay: &Replay, rerun: String, fail_on: FailOn) -> super::Report {
    use crate::judge::Cause;
    use crate::judge::grade::{CallRecord, CaseResult, Outcome, Phase};
    let lanes = counted_lanes(replay, fail_on);
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
            let findings: Vec<Finding> = findings_in(call, step, lanes)
                .into_iter()
                .map(|mut finding| {
                    finding.step = Some(0);
                    finding.follows = finding.cascade_of.and_then(|n| {
                        Some(Cause {
                            rule: headline(n)?,
                            step: Some(n - 1),
                        })
                    });
                    finding
                })
                .collect();
            let outcome = match step.verdict.outcome {
                // Differences in a lane not followed are not this report's: its outcome is
                // its own findings'.
                Outcome::Error => Outcome::Error,
                _ => CaseResult::graded(&findings, true),
            };
            let level = findings
                .iter()
                .map(|f| f.level)
                .max()
                .unwrap_or(crate::spec::Level::Info);
            let rules = findings.iter().map(|f| f.rule.to_string()).collect();
            let command = call
                .input
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string();
            // The transcript's line, where the user's editor finds the call.
            let title = match call.line {
                Some(line) => format!("{} (line {line})", call.summary()),
                None => call.summary(),
            };
            CaseResult {
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
                    user: None,
                }],
                duration: std::time::Duration::from_micros(step.backend_micros),
                ..CaseResult::new(format!("step-{}", index + 1), command, title, level, rules)
            }
        })
        .collect();
    super::Report {
        backend: replay.backend.clone(),
        revision: replay.revision,
        repro_args: Vec::new(),
        // A SHOULD difference changes the exit code of a replay: the verdict says so too.
        strict: true,
        results,
        baseline_problems: Vec::new(),
        elapsed: replay.elapsed,
        workers: 1,
        notes: notes(replay, fail_on, lanes),
        rerun: Some(rerun),
        run: if replay.check {
            super::Run::ReplayCheck
        } else {
            super::Run::Replay
        },
        fuzzed: None,
    }
}

/// What only a replay knows, as the report's notes.
fn notes(replay: &Replay, fail_on: FailOn, lanes: &[Pair]) -> Vec<String> {
    let transcript = &replay.transcript;
    let mut notes = vec![format!(
        "replayed {} ({}): {}, {} to the memory tool",
        transcript.source,
        transcript.format.describe(),
        super::plural(transcript.calls.len(), "call", "calls"),
        transcript.memory_calls().count(),
    )];
    let recorded_seed = transcript.session.as_ref().and_then(|h| h.seed.as_deref());
    if let (Some(seed), None) = (recorded_seed, &replay.seed) {
        notes.push(format!(
            "recorded with --seed {seed}; without the same seed the folders start empty"
        ));
    }
    notes.extend(replay.planted.iter().map(|note| format!("setup: {note}")));
    let recorded = transcript.calls.iter().any(|call| call.recorded.is_some());
    if replay.check {
        notes.push("--check: any change from the recorded results fails".to_string());
    } else if !recorded {
        notes.push("the transcript holds inputs only: the backend alone is graded".to_string());
    } else {
        for (name, pair) in [
            ("backend vs spec", Pair::BackendReference),
            ("recording vs spec", Pair::RecordedReference),
        ] {
            let lane = replay.verdict(pair);
            let followed = if lanes.contains(&pair) {
                "followed by the exit code"
            } else {
                "not followed by the exit code"
            };
            notes.push(format!(
                "{name} ({followed}): {} — {}",
                conclusion_words(lane.conclusion),
                lane.describe()
            ));
        }
        if fail_on == FailOn::Backend {
            notes.push("--fail-on recording|either makes the exit code follow the recording, its differences shown in full".into());
        }
        notes.extend(other_lane(replay, lanes));
    }
    let unanswered: Vec<String> = replay
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| s.verdict.reason.as_deref() == Some(crate::replay::NO_RECORDED_ANSWER))
        .map(|(i, _)| (i + 1).to_string())
        .collect();
    if !unanswered.is_empty() {
        notes.push(format!(
            "no recorded answer for {}: step {}",
            super::plural(unanswered.len(), "call", "calls"),
            unanswered.join(", ")
        ));
    }
    notes
}

/// The differences above INFO of the lane the exit code does not follow, one line each up to
/// [`OTHER_LANE_NAMED`]: a recording that deviated is shown even when the backend is graded.
fn other_lane(replay: &Replay, lanes: &[Pair]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut more = 0usize;
    for (index, (call, step)) in replay
        .transcript
        .calls
        .iter()
        .zip(&replay.steps)
        .enumerate()
    {
        for finding in step
            .verdict
            .divergences
            .iter()
            .filter(|d| !lanes.contains(&d.lane()) && d.counts() && d.cascade_of.is_none())
        {
            if lines.len() < OTHER_LANE_NAMED {
                let security = if finding.security { "SECURITY " } else { "" };
                lines.push(format!(
                    "{security}{}, step {} {}: {finding}",
                    finding.lane().label(),
                    index + 1,
                    call.summary()
                ));
            } else {
                more += 1;
            }
        }
    }
    if more > 0 {
        lines.push(format!("and {more} more of the lane not followed"));
    }
    lines
}

fn conclusion_words(conclusion: Conclusion) -> &'static str {
    match conclusion {
        Conclusion::Same => "no MUST or SHOULD difference",
        Conclusion::Differs => "MUST or SHOULD differences",
        Conclusion::BackendBroke => "the backend broke",
    }
}
