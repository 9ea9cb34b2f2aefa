//! One fault, one finding: findings that only restate an earlier one of their case are marked
//! as following it, and a run's findings are summed up by root cause (rule, count, first case),
//! so that a backend whose `create` appends a newline reads as one cause with a count, not as a
//! hundred failures under unrelated rules.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::grade::{CaseResult, Outcome, Phase};
use super::{Cause, Check, Finding, Harm};
use crate::spec::Level;
use crate::spec::RuleId;

/// Commands that change the store: a fault of one is where a cascade (or a drift) starts.
pub const CHANGES_STORE: [&str; 5] = ["create", "str_replace", "insert", "delete", "rename"];

/// Whether a tool input's command is one of [`CHANGES_STORE`].
pub fn changes_store(input: &Value) -> bool {
    input
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(|command| CHANGES_STORE.contains(&command))
}

/// Whether a finding always stands on its own: confinement (an escape is never a detail of
/// something else), a memory gone from the store (no wrong flag, text or content explains a
/// missing file), and INFO, which is no fault. Another effect may follow a setup fault (a file
/// that `create` wrote wrong is wrong after every later step too), never a flag.
fn stands_alone(finding: &Finding) -> bool {
    finding.level == Level::Info || finding.check == Check::Lost || finding.harm() == Harm::Escape
}

/// Whether a finding is about the store after the steps.
fn is_effect(check: Check) -> bool {
    matches!(check, Check::Effect | Check::Lost)
}

/// Marks, in one case's findings (in the order they were made: setup, steps, effects), every
/// finding after the first fault that changed the store as following that fault. A fault that
/// changed the store is a failed setup call, or a wrong `is_error` of a step whose command
/// changes the store; a text difference at the same step restates a wrong `is_error`.
///
/// Harm decides over order: a lost memory or an escape always stands on its own, and an effect
/// wrong on its own never follows a flag. When a wrong flag of a store-changing step comes with
/// such an effect, the effect is the fault and the flag (with what followed it) follows it: a
/// backend that deletes its root and says success has one cause, `delete.not-root`.
pub fn mark_follows(findings: &mut [Finding], step_inputs: &[&Value]) {
    let mut root: Option<(usize, Check, Cause)> = None;
    for (index, finding) in findings.iter_mut().enumerate() {
        if stands_alone(finding) {
            continue;
        }
        if let Some((_, check, cause)) = &root {
            // Only a setup fault changes what an effect is checked against.
            if !is_effect(finding.check) || *check == Check::Setup {
                finding.follows = Some(cause.clone());
            }
            continue;
        }
        let changes_store = match (finding.check, finding.step) {
            (Check::Setup, _) => true,
            (Check::IsError, Some(step)) => step_inputs
                .get(step)
                .is_some_and(|input| changes_store(input)),
            _ => false,
        };
        if changes_store {
            let cause = Cause {
                rule: finding.rule.clone(),
                step: finding.step,
            };
            root = Some((index, finding.check, cause));
        }
    }
    // A wrong flag and a wrong text at one step are one fault: the text follows the flag.
    let flags: Vec<Cause> = findings
        .iter()
        .filter(|f| f.check == Check::IsError && f.follows.is_none() && f.level != Level::Info)
        .filter(|f| f.step.is_some())
        .map(|f| Cause {
            rule: f.rule.clone(),
            step: f.step,
        })
        .collect();
    for finding in findings.iter_mut() {
        if finding.check == Check::Text
            && finding.follows.is_none()
            && let Some(cause) = flags.iter().find(|cause| cause.step == finding.step)
        {
            finding.follows = Some(cause.clone());
        }
    }
    let Some(effect) = findings
        .iter()
        .filter(|f| is_effect(f.check) && f.follows.is_none() && f.level != Level::Info)
        .max_by_key(|f| f.harm())
        .cloned()
    else {
        return;
    };
    // A view after a step that changed the store shows the store: when the store is wrong, the
    // lines it shows follow from that.
    let changed_before = |step: usize| {
        step_inputs[..step.min(step_inputs.len())]
            .iter()
            .rposition(|input| changes_store(input))
    };
    for finding in findings.iter_mut() {
        if finding.check == Check::Lines
            && finding.follows.is_none()
            && let Some(changed) = finding.step.and_then(changed_before)
        {
            finding.follows = Some(Cause {
                rule: effect.rule.clone(),
                step: Some(changed),
            });
        }
    }
    // A flag that only reported an effect wrong on its own follows that effect.
    let Some((index, Check::IsError, flag)) = root else {
        return;
    };
    let cause = Cause {
        rule: effect.rule.clone(),
        step: flag.step,
    };
    for finding in findings.iter_mut() {
        if finding.follows.as_ref() == Some(&flag) {
            finding.follows = Some(cause.clone());
        }
    }
    if let Some(finding) = findings.get_mut(index) {
        finding.follows = Some(cause);
    }
}

/// One root cause of a run: a rule broken by findings that follow no other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RootCause {
    /// The rule.
    pub rule: RuleId,
    /// Its level.
    pub level: Level,
    /// The worst harm of its findings: causes are ranked by it first.
    pub harm: Harm,
    /// Findings under it that follow no other.
    pub findings: usize,
    /// Cases with such a finding.
    pub cases: usize,
    /// Findings in those cases that follow from it.
    pub consequences: usize,
    /// The case that shows it plainest: of its worst findings, the one in the case of plain
    /// ASCII inputs with the fewest calls (the first in suite order among equals).
    pub first_case: String,
    /// What that finding said.
    #[schemars(with = "crate::schema::JsonText")]
    pub message: String,
    /// An escape, a leak or a host path shown ([`Harm::Escape`]): the security lane.
    pub security: bool,
}

/// From this many calls on, a backend that answered every one with an error has one cause.
pub const REFUSES_EVERYTHING_CALLS: usize = 10;

/// When the backend answered every call of `results` with an error (at least
/// [`REFUSES_EVERYTHING_CALLS`] of them, read-backs aside): what the first one said.
pub fn refuses_everything(results: &[CaseResult]) -> Option<&str> {
    let mut answers = results
        .iter()
        .flat_map(|r| &r.calls)
        .filter(|c| c.phase != Phase::Witness)
        .filter_map(|c| c.result.as_ref())
        .peekable();
    let first = answers.peek().map(|answer| answer.text.as_str())?;
    let (mut calls, mut refused) = (0, 0);
    for answer in answers {
        calls += 1;
        refused += usize::from(answer.is_error);
    }
    (calls >= REFUSES_EVERYTHING_CALLS && refused == calls).then_some(first)
}

/// From this many calls of one command on, a backend that answered every one of them with an
/// error (or broke on it) has one cause for that command.
pub const REFUSES_A_COMMAND_CALLS: usize = 5;

/// The commands the backend answered with an error, or broke on, every time it was sent one
/// (at least [`REFUSES_A_COMMAND_CALLS`] times, read-backs aside), in the order first sent,
/// each with what its first call said.
pub fn refused_commands(results: &[CaseResult]) -> Vec<(String, String)> {
    // command → (calls, refused, what the first said)
    let mut seen: Vec<(String, usize, usize, String)> = Vec::new();
    for call in results
        .iter()
        .flat_map(|r| &r.calls)
        .filter(|c| c.phase != Phase::Witness)
    {
        let Some(command) = call.input.get("command").and_then(Value::as_str) else {
            continue;
        };
        let (refused, said) = match (&call.result, &call.error) {
            (Some(answer), _) => (answer.is_error, answer.text.as_str()),
            (None, Some(broke)) => (true, broke.as_str()),
            (None, None) => continue,
        };
        let at = match seen.iter().position(|(name, ..)| name == command) {
            Some(at) => at,
            None => {
                seen.push((command.to_string(), 0, 0, said.to_string()));
                seen.len() - 1
            }
        };
        seen[at].1 += 1;
        seen[at].2 += usize::from(refused);
    }
    seen.into_iter()
        .filter(|(_, calls, refused, _)| *calls >= REFUSES_A_COMMAND_CALLS && refused == calls)
        .map(|(command, _, _, first)| (command, first))
        .collect()
}

/// The root causes of a run, worst first: by harm (an escape, then lost memories, then wrong
/// content, flags and wording), MUST before SHOULD, then by cases, then by rule.
/// INFO differences (decisions) are no cause of anything. A backend that refused every call
/// has one root: the worst, saying so with the first answer, and every other finding follows
/// from it (each rule its refusals break is the same fault). One that refused every call of a
/// command has one root for the rules of that command (named after it: `str-replace.*` for
/// `str_replace`), the same way.
pub fn root_causes(results: &[CaseResult]) -> Vec<RootCause> {
    let mut causes = causes_by_rule(results);
    if let Some(first) = refuses_everything(results) {
        merge(results, &mut causes, |_| true, "every call", first);
        return causes;
    }
    for (command, first) in refused_commands(results) {
        let prefix = format!("{}.", command.replace('_', "-"));
        let of_command = |rule: &str| rule.starts_with(&prefix);
        let what = format!("every {command} call");
        merge(results, &mut causes, of_command, &what, &first);
    }
    causes
}

/// Makes the causes whose rule `within` takes one: the worst of them, saying that `what` was
/// answered with an error and quoting the `first` answer, the others its consequences.
fn merge(
    results: &[CaseResult],
    causes: &mut Vec<RootCause>,
    within: impl Fn(&str) -> bool,
    what: &str,
    first: &str,
) {
    let (mut merged, rest): (Vec<_>, Vec<_>) = std::mem::take(causes)
        .into_iter()
        .partition(|cause| within(cause.rule.as_str()));
    *causes = rest;
    if merged.is_empty() {
        return;
    }
    let mut root = merged.remove(0);
    for other in merged {
        root.consequences += other.findings + other.consequences;
    }
    root.cases = results
        .iter()
        .filter(|r| r.outcome != Outcome::Skip && r.baselined.is_none())
        .filter(|r| {
            r.findings
                .iter()
                .any(|f| f.level != Level::Info && within(f.rule.as_str()))
        })
        .count();
    let first = first.lines().next().unwrap_or_default();
    let cut: String = first.chars().take(FIRST_ANSWER_CHARS).collect();
    root.message = format!(
        "{what} was answered with an error, the first: {cut}{}",
        if cut.len() < first.len() { "…" } else { "" }
    );
    // The merged cause keeps its place among the others (worst first).
    let at = causes
        .iter()
        .position(|other| rank(&root, other) == std::cmp::Ordering::Less)
        .unwrap_or(causes.len());
    causes.insert(at, root);
}

/// How much of the first answer a backend that refused everything is quoted by.
const FIRST_ANSWER_CHARS: usize = 200;

/// Whether a case's inputs are encoded (not printable ASCII), its calls, the bytes it sent.
type Plainness = (bool, usize, usize);

/// How plainly a case shows a fault, plainest least: inputs of printable ASCII first (a CRLF,
/// control or Unicode case hides the fault behind its encoding), then fewer calls, then fewer
/// bytes sent.
fn plainness(result: &CaseResult) -> Plainness {
    fn plain(value: &Value) -> bool {
        match value {
            Value::String(s) => s
                .chars()
                .all(|c| c == '\n' || c == '\t' || c.is_ascii_graphic() || c == ' '),
            Value::Array(items) => items.iter().all(plain),
            Value::Object(map) => map.values().all(plain),
            _ => true,
        }
    }
    let (mut encoded, mut calls, mut bytes) = (false, 0, 0);
    for call in result.calls.iter().filter(|c| c.phase != Phase::Witness) {
        encoded |= !plain(&call.input);
        calls += 1;
        bytes += call.input.to_string().len();
    }
    (encoded, calls, bytes)
}

fn causes_by_rule(results: &[CaseResult]) -> Vec<RootCause> {
    let mut by_rule: BTreeMap<String, RootCause> = BTreeMap::new();
    // Per rule, the finding the cause shows: its harm and level, and how plain its case is.
    let mut shown: BTreeMap<String, (Harm, Level, Plainness)> = BTreeMap::new();
    for result in results {
        if result.outcome == Outcome::Skip || result.baselined.is_some() {
            continue;
        }
        let mut counted_case: Vec<RuleId> = Vec::new();
        for finding in result.findings.iter().filter(|f| f.level != Level::Info) {
            if finding.follows.is_some() {
                continue;
            }
            let harm = finding.harm();
            let cause = by_rule
                .entry(finding.rule.to_string())
                .or_insert_with(|| RootCause {
                    rule: finding.rule.clone(),
                    level: finding.level,
                    harm,
                    findings: 0,
                    cases: 0,
                    consequences: 0,
                    first_case: result.id.clone(),
                    message: finding.message.clone(),
                    security: false,
                });
            // The cause shows its worst finding, in the plainest case that has one that bad.
            let plain = plainness(result);
            let was = shown
                .entry(finding.rule.to_string())
                .or_insert((harm, finding.level, plain));
            if (harm, finding.level) > (was.0, was.1)
                || ((harm, finding.level) == (was.0, was.1) && plain < was.2)
            {
                *was = (harm, finding.level, plain);
                cause.harm = harm;
                cause.first_case = result.id.clone();
                cause.message = finding.message.clone();
            }
            cause.level = cause.level.max(finding.level);
            cause.security = cause.harm == Harm::Escape;
            cause.findings += 1;
            if !counted_case.contains(&finding.rule) {
                cause.cases += 1;
                counted_case.push(finding.rule.clone());
            }
        }
        for finding in &result.findings {
            if let Some(cause) = finding
                .follows
                .as_ref()
                .and_then(|cause| by_rule.get_mut(cause.rule.as_str()))
            {
                cause.consequences += 1;
            }
        }
    }
    let mut causes: Vec<RootCause> = by_rule.into_values().collect();
    causes.sort_by(rank);
    causes
}

/// The order of root causes: worst harm, level and most cases first, then by rule.
fn rank(a: &RootCause, b: &RootCause) -> std::cmp::Ordering {
    b.harm
        .cmp(&a.harm)
        .then(b.level.cmp(&a.level))
        .then(b.cases.cmp(&a.cases))
        .then(a.rule.cmp(&b.rule))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Finding;
    use crate::judge::grade::CallRecord;
    use crate::spec::known;
    use serde_json::json;

    fn finding(check: Check, level: Level, rule: RuleId, step: Option<usize>) -> Finding {
        Finding::new(check, level, rule, "m".to_string()).at(step)
    }

    fn result(id: &str, findings: Vec<Finding>) -> CaseResult {
        CaseResult {
            id: id.to_string(),
            area: "a".to_string(),
            title: String::new(),
            level: Level::Must,
            hostile: false,
            rules: Vec::new(),
            outcome: Outcome::Fail,
            reason: None,
            findings,
            calls: Vec::new(),
            duration: Default::default(),
            start_time: Default::default(),
            baselined: None,
            choices: Vec::new(),
            notes: Vec::new(),
            timed_out: false,
        }
    }

    #[test]
    fn a_setup_fault_is_the_cause_of_what_follows_but_not_of_confinement() {
        let mut r = result(
            "c",
            vec![
                finding(Check::Setup, Level::Must, known::IS_ERROR_FLAG, None),
                finding(Check::Text, Level::Should, known::TERMINATES, Some(0)),
                finding(Check::Leak, Level::Must, known::CONFINEMENT, Some(0)),
                finding(Check::Effect, Level::Must, known::TERMINATES, None),
            ],
        );
        let view = json!({"command": "view"});
        mark_follows(&mut r.findings, &[&view]);
        let follows: Vec<Option<String>> = r
            .findings
            .iter()
            .map(|f| f.follows.as_ref().map(Cause::to_string))
            .collect();
        assert_eq!(
            follows,
            [
                None,
                Some("errors.is-error-flag at setup".to_string()),
                None,
                Some("errors.is-error-flag at setup".to_string())
            ]
        );
        let causes = root_causes(&[r]);
        assert_eq!(causes.len(), 2, "{causes:?}");
        assert_eq!(causes[0].consequences + causes[1].consequences, 2);
    }

    #[test]
    fn a_wrong_flag_on_a_view_causes_only_its_own_text() {
        let view = json!({"command": "view"});
        let mut r = result(
            "c",
            vec![
                finding(Check::IsError, Level::Must, known::IS_ERROR_FLAG, Some(0)),
                finding(Check::Text, Level::Should, known::TERMINATES, Some(0)),
                finding(Check::Text, Level::Should, known::TERMINATES, Some(1)),
            ],
        );
        mark_follows(&mut r.findings, &[&view, &view]);
        assert_eq!(
            r.findings[1]
                .follows
                .as_ref()
                .map(Cause::to_string)
                .as_deref(),
            Some("errors.is-error-flag at step 1")
        );
        assert_eq!(r.findings[2].follows, None);
    }

    #[test]
    fn a_lost_root_is_the_cause_and_the_flag_that_reported_it_follows() {
        let delete = json!({"command": "delete"});
        let view = json!({"command": "view"});
        let mut r = result(
            "delete.root",
            vec![
                finding(Check::IsError, Level::Must, known::IS_ERROR_FLAG, Some(0)),
                finding(Check::Text, Level::Info, known::ROOT_DELETE, Some(0)),
                finding(Check::Text, Level::Should, known::VIEW_MISSING, Some(1)),
                finding(Check::Lost, Level::Must, known::DELETE_NOT_ROOT, None),
                finding(Check::Lost, Level::Must, known::DELETE_NOT_ROOT, None),
            ],
        );
        mark_follows(&mut r.findings, &[&delete, &view]);
        let follows: Vec<Option<String>> = r
            .findings
            .iter()
            .map(|f| f.follows.as_ref().map(Cause::to_string))
            .collect();
        let cause = Some("delete.not-root at step 1".to_string());
        assert_eq!(
            follows,
            [cause.clone(), cause.clone(), cause, None, None],
            "{:#?}",
            r.findings
        );
        let flag_elsewhere = result(
            "other",
            (0..3)
                .map(|_| finding(Check::IsError, Level::Must, known::IS_ERROR_FLAG, Some(0)))
                .collect(),
        );
        let causes = root_causes(&[flag_elsewhere, r]);
        assert_eq!(causes[0].rule, known::DELETE_NOT_ROOT, "{causes:#?}");
        assert_eq!((causes[0].harm, causes[0].consequences), (Harm::Loss, 3));
        assert_eq!(causes[1].rule, known::IS_ERROR_FLAG);
    }

    #[test]
    fn an_effect_wrong_on_its_own_never_follows_a_flag_but_follows_a_setup_fault() {
        let replace = json!({"command": "str_replace"});
        let mut r = result(
            "c",
            vec![
                finding(Check::IsError, Level::Must, known::IS_ERROR_FLAG, Some(0)),
                finding(
                    Check::Effect,
                    Level::Must,
                    known::STR_REPLACE_EXACTLY_ONE,
                    None,
                ),
            ],
        );
        mark_follows(&mut r.findings, &[&replace]);
        assert_eq!(r.findings[1].follows, None);
        assert_eq!(
            r.findings[0]
                .follows
                .as_ref()
                .map(Cause::to_string)
                .as_deref(),
            Some("str-replace.exactly-one at step 1")
        );
        let mut s = result(
            "d",
            vec![
                finding(
                    Check::Setup,
                    Level::Must,
                    known::CREATE_WRITES_FILE_TEXT,
                    None,
                ),
                finding(
                    Check::Effect,
                    Level::Must,
                    known::STR_REPLACE_REPLACES,
                    None,
                ),
                finding(Check::Lost, Level::Must, known::DELETE_NOT_ROOT, None),
            ],
        );
        mark_follows(&mut s.findings, &[&replace]);
        assert!(s.findings[1].follows.is_some());
        assert_eq!(s.findings[2].follows, None, "a loss stands on its own");
    }

    fn call(command: &str, is_error: bool, text: &str) -> CallRecord {
        CallRecord {
            phase: Phase::Step,
            input: json!({"command": command}),
            result: Some(crate::protocol::ToolResult {
                text: text.to_string(),
                is_error,
            }),
            error: None,
            backend_time: std::time::Duration::ZERO,
            user: None,
        }
    }

    #[test]
    fn a_command_refused_every_time_is_one_root_and_others_stay() {
        let mut results: Vec<CaseResult> = (0..5)
            .map(|i| {
                let mut r = result(
                    &format!("c{i}"),
                    vec![finding(
                        Check::IsError,
                        Level::Must,
                        known::INSERT_INSERTS,
                        Some(1),
                    )],
                );
                r.calls = vec![
                    call("create", false, "File created successfully"),
                    call("insert", true, &format!("Error: no insert ({i})\nmore")),
                ];
                r
            })
            .collect();
        results[0].findings.push(finding(
            Check::Text,
            Level::Should,
            known::INSERT_SUCCESS,
            Some(1),
        ));
        results.push(result(
            "d",
            vec![finding(
                Check::Effect,
                Level::Must,
                known::CREATE_WRITES_FILE_TEXT,
                None,
            )],
        ));
        let causes = root_causes(&results);
        let rules: Vec<&str> = causes.iter().map(|c| c.rule.as_str()).collect();
        // Ranked as any cause: wrong content before a wrong flag.
        assert_eq!(rules, ["create.writes-file-text", "insert.inserts"]);
        assert_eq!((causes[1].cases, causes[1].consequences), (5, 1));
        assert_eq!(
            causes[1].message,
            "every insert call was answered with an error, the first: Error: no insert (0)"
        );
        // One insert that worked: no such root.
        results[4].calls[1] = call("insert", false, "The file has been edited.");
        let causes = root_causes(&results);
        assert_eq!(causes.len(), 3, "{causes:?}");
    }

    #[test]
    fn a_cause_is_shown_by_its_plainest_case() {
        let case = |id: &str, texts: &[&str]| {
            let mut r = result(
                id,
                vec![finding(
                    Check::IsError,
                    Level::Must,
                    known::INSERT_INSERTS,
                    Some(0),
                )],
            );
            r.calls = texts
                .iter()
                .map(|text| call("insert", false, text))
                .collect();
            for (record, text) in r.calls.iter_mut().zip(texts) {
                record.input = json!({"command": "insert", "insert_text": text});
            }
            r
        };
        let results = [
            case("crlf", &["a\r\n"]),
            case("long", &["a", "b", "c"]),
            case("plain", &["a", "b"]),
            case("plain-too", &["a", "b"]),
        ];
        let causes = root_causes(&results);
        assert_eq!(
            (causes[0].first_case.as_str(), causes[0].cases),
            ("plain", 4)
        );
    }

    #[test]
    fn causes_are_counted_once_per_rule_heaviest_first() {
        let results: Vec<CaseResult> = (0..5)
            .map(|i| {
                result(
                    &format!("c{i}"),
                    vec![finding(
                        Check::IsError,
                        Level::Must,
                        known::IS_ERROR_FLAG,
                        Some(0),
                    )],
                )
            })
            .chain([result(
                "d",
                vec![finding(
                    Check::Text,
                    Level::Should,
                    known::TERMINATES,
                    Some(0),
                )],
            )])
            .collect();
        let causes = root_causes(&results);
        assert_eq!(causes.len(), 2);
        assert_eq!((causes[0].cases, causes[0].first_case.as_str()), (5, "c0"));
        assert_eq!(causes[1].level, Level::Should);
    }
}
