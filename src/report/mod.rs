//! Reports of a run: the model shared by every format, and the verdict behind the exit code.

pub mod colour;
pub mod formats;
pub mod fuzz;
pub mod html;
pub mod human;
pub mod matrix;
pub mod replay;
pub mod text;

use std::collections::BTreeMap;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;

use crate::judge::grade::{CaseResult, Outcome};
use crate::spec::{Revision, Spec};

/// A format a report is written in: every command writes every one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// For a person at a terminal: the verdict and root causes first and last.
    Human,
    /// Everything, for programs: results, findings, calls, root causes.
    Json,
    /// JUnit XML, for CI test reports.
    Junit,
    /// TAP 14.
    Tap,
    /// Markdown, for a CI job summary or a pull request comment.
    Markdown,
    /// One self-contained HTML file: failures first, filters, diffs.
    Html,
}

/// How a report is rendered, beyond its format.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Render {
    /// Every case, also those a baseline accepts (human).
    pub verbose: bool,
    /// Every INFO finding listed, not one line per rule (human).
    pub show_info: bool,
    /// JSON texts in full, however long (else bounded: head, tail, length, sha256).
    pub full_texts: bool,
}

/// `report` in `format`: the one place a report is rendered, so that every format of every
/// command escapes and bounds what a backend sent the same way ([`text`]).
pub fn render(report: &Report, spec: &Spec, format: Format, options: Render) -> String {
    let raw = match format {
        Format::Json => return formats::json(report, options.full_texts),
        Format::Human => human::render(
            report,
            spec,
            human::Detail {
                verbose: options.verbose,
                show_info: options.show_info,
            },
        ),
        Format::Junit => formats::junit(report),
        Format::Tap => formats::tap(report),
        Format::Markdown => formats::markdown(report),
        // The HTML writer escapes and bounds each text itself, inside its markup.
        Format::Html => return html::render(report, spec),
    };
    text::for_display(&raw)
}

/// Everything a report shows.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Report {
    /// The backend, as named on the command line.
    pub backend: String,
    /// The revision of the page the run was judged by.
    pub revision: Revision,
    /// Arguments that select the same backend and suite again, for the rerun command.
    pub repro_args: Vec<String>,
    /// Whether SHOULD misses failed.
    pub strict: bool,
    /// One result per selected case, in suite order.
    pub results: Vec<CaseResult>,
    /// Baseline problems: stale entries, unknown cases, changed outcomes.
    #[schemars(with = "Vec<crate::schema::JsonText>")]
    pub baseline_problems: Vec<String>,
    /// Wall-clock time of the run, in milliseconds.
    #[serde(serialize_with = "millis")]
    #[schemars(with = "u64")]
    pub elapsed: Duration,
    /// Cases run at once: per-case times summed over them can exceed `elapsed`.
    pub workers: usize,
    /// How the run went that is no case's result (one process per case, and why).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(with = "Vec<crate::schema::JsonText>")]
    pub notes: Vec<String>,
    /// The command that reruns any result, when it is not `check --case ID` (a replay's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerun: Option<String>,
    /// Which command ran: its results are cases, memory calls or divergences found.
    #[serde(skip_serializing_if = "Run::is_check")]
    pub run: Run,
    /// What a fuzz run did, which its results (the divergences alone) cannot count: the human
    /// report's closing count line. Left out of the JSON report, whose notes say the same.
    #[serde(skip)]
    pub fuzzed: Option<fuzz::Fuzzed>,
}

/// Which command a [`Report`] is of: what its results are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Run {
    /// `check`: one result per case.
    #[default]
    Check,
    /// `replay --report`: one result per memory call of the transcript, judged by the spec.
    Replay,
    /// `replay --check`: one result per memory call, judged by the recorded answers (a golden
    /// file): any change fails.
    ReplayCheck,
    /// `fuzz`: one result per divergence found.
    Fuzz,
}

impl Run {
    /// Whether it is `check` (the JSON report leaves the field out then).
    pub fn is_check(&self) -> bool {
        *self == Run::Check
    }

    /// What its results are called, one and many.
    pub fn units(self) -> (&'static str, &'static str) {
        match self {
            Run::Check => ("case", "cases"),
            Run::Replay | Run::ReplayCheck => ("memory call", "memory calls"),
            Run::Fuzz => ("divergence", "divergences"),
        }
    }
}

impl Report {
    /// The report of a finished `check`: `repro_args` are the arguments that select the same
    /// backend and suite again (`--backend …`, `--not-on-folder`, `--cases …`), used in the
    /// one-line command that reruns a case.
    pub fn of_check(run: crate::check::CheckRun, repro_args: Vec<String>) -> Report {
        Report {
            backend: run.backend,
            revision: run.revision,
            repro_args,
            strict: run.strict,
            results: run.results,
            baseline_problems: run.baseline_problems,
            elapsed: run.elapsed,
            workers: run.workers,
            notes: run.notes,
            rerun: None,
            run: Run::Check,
            fuzzed: None,
        }
    }
}

/// What the exit code says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every selected case passed (or warned/informed without `--strict`), or was accepted.
    Conformant,
    /// A MUST case failed (or a SHOULD one with `--strict`), or the baseline does not match.
    NotConformant,
    /// The backend crashed, hung or spoke garbage in at least one case.
    BackendBroke,
}

/// Where the revision allows two outcomes of a step, which one the backend took over the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ChoiceSummary {
    /// The rule that allows the other outcome (`create.may-overwrite`).
    pub rule: crate::spec::RuleId,
    /// The other outcome's name (`overwrites`).
    pub choice: String,
    /// Steps on which the backend took it.
    pub taken: usize,
    /// Steps on which it could have.
    pub offered: usize,
}

impl ChoiceSummary {
    /// Whether the backend went both ways: the page allows either, but a backend that sometimes
    /// overwrites and sometimes refuses cannot be relied on by Claude.
    pub fn mixed(&self) -> bool {
        self.taken > 0 && self.taken < self.offered
    }

    /// One line: `create.may-overwrite: overwrites (8 of 8 steps)`.
    pub fn line(&self) -> String {
        let how = if self.taken == 0 {
            format!("the expected outcome, never `{}`", self.choice)
        } else if self.mixed() {
            format!("`{}` only sometimes: choose one way", self.choice)
        } else {
            format!("`{}`", self.choice)
        };
        format!(
            "{}: {how} ({} of {} steps)",
            self.rule, self.taken, self.offered
        )
    }
}

impl Report {
    /// Per rule that allows another outcome, which one the backend took (INFO).
    pub fn choices(&self) -> Vec<ChoiceSummary> {
        let mut by_rule: BTreeMap<(&str, &str), ChoiceSummary> = BTreeMap::new();
        for choice in self.results.iter().flat_map(|r| &r.choices) {
            let entry = by_rule
                .entry((choice.rule.as_str(), choice.choice.as_str()))
                .or_insert_with(|| ChoiceSummary {
                    rule: choice.rule.clone(),
                    choice: choice.choice.clone(),
                    taken: 0,
                    offered: 0,
                });
            entry.offered += 1;
            entry.taken += usize::from(choice.taken);
        }
        by_rule.into_values().collect()
    }

    /// The rules broken by findings that follow no other, heaviest first.
    pub fn root_causes(&self) -> Vec<crate::judge::cascade::RootCause> {
        crate::judge::cascade::root_causes(&self.results)
    }

    /// The known lineages the backend's answers belong to, with the findings each explains
    /// (counted from the same results as the root causes). A lineage explains, never excuses.
    pub fn lineages(&self) -> Vec<crate::judge::lineage::Lineage> {
        crate::judge::lineage::recognise(&self.results)
    }

    /// Cases whose backend broke (not accepted by the baseline), and the first one's reason.
    pub fn breaks(&self) -> (usize, Option<(&str, &str)>) {
        let broke: Vec<&CaseResult> = self
            .results
            .iter()
            .filter(|r| r.outcome == Outcome::Error && r.baselined.is_none())
            .collect();
        let first = broke
            .first()
            .map(|r| (r.id.as_str(), r.reason.as_deref().unwrap_or_default()));
        (broke.len(), first)
    }

    /// When the backend answered every call of the run with an error: what the first one said
    /// ([`crate::judge::cascade::refuses_everything`]).
    pub fn refuses_everything(&self) -> Option<&str> {
        crate::judge::cascade::refuses_everything(&self.results)
    }

    /// The byte probes made (a witness's `str_replace` of a file's expected text onto
    /// itself, see [`crate::judge::witness::read_back`]), and the effects left unverified
    /// (INFO findings that say so).
    pub fn probes(&self) -> (usize, usize) {
        let probes = self
            .results
            .iter()
            .flat_map(|r| &r.calls)
            .filter(|c| c.phase == crate::judge::grade::Phase::Witness)
            .filter(|c| {
                c.input.get("command").and_then(serde_json::Value::as_str) == Some("str_replace")
            })
            .count();
        let unverified = self
            .results
            .iter()
            .flat_map(|r| &r.findings)
            .filter(|f| f.message.starts_with(crate::judge::effects::UNVERIFIED))
            .count();
        (probes, unverified)
    }

    /// The rules that every selected case naming them skipped (`--not-on-folder`): the run
    /// says nothing about them, so the summary names them.
    pub fn unchecked_rules(&self) -> Vec<&str> {
        let mut checked: BTreeMap<&str, bool> = BTreeMap::new();
        for result in &self.results {
            for rule in &result.rules {
                *checked.entry(rule.as_str()).or_insert(false) |= result.outcome != Outcome::Skip;
            }
        }
        checked
            .into_iter()
            .filter_map(|(rule, checked)| (!checked).then_some(rule))
            .collect()
    }

    /// Counts per outcome; baselined results are counted under their outcome too.
    pub fn counts(&self) -> BTreeMap<Outcome, usize> {
        let mut counts = BTreeMap::new();
        for result in &self.results {
            *counts.entry(result.outcome).or_insert(0) += 1;
        }
        counts
    }

    /// The run's one verdict, every lane included (the crash lane too): the first and last
    /// line of every format and the exit code come from it. Results accepted by the baseline do
    /// not count.
    pub fn verdict(&self) -> Verdict {
        let open = self.results.iter().filter(|r| r.baselined.is_none());
        let worst = open.map(|r| r.outcome).max().unwrap_or(Outcome::Pass);
        if worst == Outcome::Error {
            Verdict::BackendBroke
        } else if worst == Outcome::Fail || !self.baseline_problems.is_empty() {
            Verdict::NotConformant
        } else {
            Verdict::Conformant
        }
    }

    /// `survives crashes: …`, when the crash lane ran: yes, NO with the first loss, or why it
    /// could not say.
    pub fn crash_line(&self) -> Option<String> {
        let crashes: Vec<&CaseResult> = self
            .results
            .iter()
            .filter(|r| r.area == CRASH_AREA)
            .collect();
        if crashes.is_empty() {
            return None;
        }
        let first = |outcome: Outcome| crashes.iter().find(|r| r.outcome == outcome);
        // A backend's text, cut to one line of 240 characters.
        let shown = |text: &str| {
            let line = text.lines().next().unwrap_or_default();
            let shown: String = line.chars().take(240).collect();
            let more = if shown.len() < text.len() { "…" } else { "" };
            format!("{shown}{more}")
        };
        let worst = |result: &&&CaseResult| {
            crate::judge::worst(&result.findings).map_or_else(String::new, |f| shown(&f.message))
        };
        let said = if let Some(failed) = first(Outcome::Fail) {
            format!("NO, memories LOST: {}", worst(&failed))
        } else if let Some(broke) = first(Outcome::Error) {
            format!(
                "the backend BROKE in {}: {}",
                broke.id,
                shown(broke.reason.as_deref().unwrap_or("no reason given"))
            )
        } else if let Some(warned) = first(Outcome::Warn) {
            format!("yes, with leftovers a listing shows: {}", worst(&warned))
        } else if crashes.iter().all(|r| r.outcome == Outcome::Skip) {
            format!(
                "not checked: {}",
                shown(crashes[0].reason.as_deref().unwrap_or("no reason given"))
            )
        } else {
            let ran: Vec<&&CaseResult> = crashes
                .iter()
                .filter(|r| r.outcome != Outcome::Skip)
                .collect();
            // The timed mode (no ptrace) says so in its note: a weaker yes.
            let timed = ran
                .iter()
                .filter(|r| r.notes.iter().any(|n| n.contains("at random moments")))
                .count();
            let how = if timed == 0 {
                "each killed at every storage call and after its answer".to_string()
            } else {
                format!(
                    "{timed} of them killed at random moments only, not at each storage call: ptrace was not available"
                )
            };
            format!("yes ({}, {how})", plural(ran.len(), "write", "writes"))
        };
        // The writes never judged, and why: a "NO" or a "yes" over 7 writes must not read as
        // the lane's word on all 12 (a kill that corrupts a store can leave every later
        // scenario's setup refused).
        let skipped: Vec<&&CaseResult> = crashes
            .iter()
            .filter(|r| r.outcome == Outcome::Skip)
            .collect();
        let unjudged = if skipped.is_empty() || skipped.len() == crashes.len() {
            String::new()
        } else {
            let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
            for result in &skipped {
                let reason = result.reason.as_deref().unwrap_or("no reason given");
                let line = reason.lines().next().unwrap_or_default();
                let cut: String = line.chars().take(UNJUDGED_REASON_CHARS).collect();
                let more = if cut.len() < line.len() { "…" } else { "" };
                *reasons.entry(format!("{cut}{more}")).or_insert(0) += 1;
            }
            let mut reasons: Vec<(String, usize)> = reasons.into_iter().collect();
            reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            let why: Vec<String> = reasons
                .iter()
                .map(|(reason, n)| format!("{n}: {reason}"))
                .collect();
            format!(
                "; {} of {} not judged ({})",
                skipped.len(),
                plural(crashes.len(), "write", "writes"),
                why.join("; ")
            )
        };
        Some(format!("survives crashes: {said}{unjudged}"))
    }

    /// The verdict the run would have without its baseline: every result counts.
    pub fn verdict_without_baseline(&self) -> Verdict {
        match self.results.iter().map(|r| r.outcome).max() {
            Some(Outcome::Error) => Verdict::BackendBroke,
            Some(Outcome::Fail) => Verdict::NotConformant,
            _ => Verdict::Conformant,
        }
    }

    /// Failures and errors the baseline accepted, which alone would fail the run.
    pub fn accepted_breaks(&self) -> AcceptedBreaks {
        let accepted = self.results.iter().filter(|r| r.baselined.is_some());
        let mut breaks = AcceptedBreaks::default();
        for result in accepted {
            match result.outcome {
                Outcome::Fail => breaks.failures += 1,
                Outcome::Error => breaks.errors += 1,
                _ => {}
            }
        }
        breaks
    }

    /// A command that reruns one case verbosely.
    pub fn repro(&self, case_id: &str) -> String {
        if let Some(rerun) = &self.rerun {
            return rerun.clone();
        }
        let mut command = String::from("memspec check");
        for arg in &self.repro_args {
            command.push(' ');
            command.push_str(&shell_quote(arg));
        }
        let strict = if self.strict { " --strict" } else { "" };
        format!("{command} --case {case_id}{strict} --verbose")
    }

    /// Median and total time spent waiting for the backend per call, and the harness's own time
    /// per call (case time minus backend time), over every call of the run.
    pub fn timing(&self) -> Timing {
        let mut backend: Vec<Duration> = Vec::new();
        let mut harness_total = Duration::ZERO;
        let mut start_total = Duration::ZERO;
        let mut calls = 0usize;
        for result in &self.results {
            let backend_case: Duration = result.calls.iter().map(|c| c.backend_time).sum();
            backend.extend(result.calls.iter().map(|c| c.backend_time));
            harness_total += result
                .duration
                .saturating_sub(backend_case)
                .saturating_sub(result.start_time);
            start_total += result.start_time;
            calls += result.calls.len();
        }
        backend.sort();
        let median = backend.get(backend.len() / 2).copied().unwrap_or_default();
        Timing {
            calls,
            backend_median: median,
            backend_total: backend.iter().sum(),
            backend_start: start_total,
            harness_per_call: if calls == 0 {
                Duration::ZERO
            } else {
                harness_total / calls as u32
            },
        }
    }
}

/// The area of the crash lane's results (`check --crash`).
pub const CRASH_AREA: &str = "crash";

/// How much of each reason a crash line gives for the writes it never judged.
const UNJUDGED_REASON_CHARS: usize = 100;

/// Failed and broken cases a baseline accepts: a run matching it exits 0, but is conformant
/// only with the baseline's say-so, and reports say so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, JsonSchema)]
pub struct AcceptedBreaks {
    /// Accepted `fail` outcomes.
    pub failures: usize,
    /// Accepted `error` outcomes.
    pub errors: usize,
}

impl AcceptedBreaks {
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.failures == 0 && self.errors == 0
    }

    /// `2 failures and 1 error`.
    pub fn describe(&self) -> String {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        match (self.failures, self.errors) {
            (f, 0) => plural(f, "failure", "failures"),
            (0, e) => plural(e, "error", "errors"),
            (f, e) => format!(
                "{} and {}",
                plural(f, "failure", "failures"),
                plural(e, "error", "errors")
            ),
        }
    }
}

/// Where the time went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// Calls made.
    pub calls: usize,
    /// Median time waiting for one backend call.
    pub backend_median: Duration,
    /// Total time waiting for the backend (across parallel jobs).
    pub backend_total: Duration,
    /// Time spent starting and resetting backends (across parallel jobs).
    pub backend_start: Duration,
    /// Harness time per call: sandboxes, fixtures, checks (across parallel jobs).
    pub harness_per_call: Duration,
}

fn millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(d.as_millis() as u64)
}

/// `1 case`, `2 cases`: a count with its noun in the right number.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Quotes an argument for a POSIX shell when it needs it.
pub fn shell_quote(arg: &str) -> String {
    if !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+".contains(c))
    {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// The spec sentence behind a rule id, for reports.
pub fn rule_text<'a>(spec: &'a Spec, rule: &str) -> Option<&'a str> {
    spec.get(rule)
        .map(|r| r.text.as_str())
        .filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Level;

    fn crash(id: &str, outcome: Outcome, reason: Option<&str>) -> CaseResult {
        CaseResult {
            outcome,
            reason: reason.map(str::to_string),
            ..CaseResult::new(id, CRASH_AREA, "killed mid-write", Level::Must, Vec::new())
        }
    }

    fn report(results: Vec<CaseResult>) -> Report {
        Report {
            backend: "b".to_string(),
            revision: Revision::default(),
            repro_args: Vec::new(),
            strict: false,
            results,
            baseline_problems: Vec::new(),
            elapsed: Duration::ZERO,
            workers: 1,
            notes: Vec::new(),
            rerun: None,
            run: Run::Check,
            fuzzed: None,
        }
    }

    /// The crash line's word covers the writes it judged: those it never judged are counted,
    /// with why, so that "yes (2 writes …)" never reads as the lane's word on all of them.
    #[test]
    fn the_crash_line_counts_the_writes_it_never_judged() {
        let refused =
            "not run: the setup's create of /memories/notes.md was refused: Error: store corrupt";
        let line = report(vec![
            crash("crash.a", Outcome::Pass, None),
            crash("crash.b", Outcome::Pass, None),
            crash("crash.c", Outcome::Skip, Some(refused)),
            crash("crash.d", Outcome::Skip, Some(refused)),
            crash("crash.e", Outcome::Skip, Some("large files are read back")),
        ])
        .crash_line()
        .unwrap_or_default();
        assert_eq!(
            line,
            format!(
                "survives crashes: yes (2 writes, each killed at every storage call and after its answer); 3 of 5 writes not judged (2: {refused}; 1: large files are read back)"
            )
        );
        let all_judged = report(vec![crash("crash.a", Outcome::Pass, None)])
            .crash_line()
            .unwrap_or_default();
        assert!(!all_judged.contains("not judged"), "{all_judged}");
    }
}
