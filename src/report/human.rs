//! The human report, failures first: the verdict, the root causes by harm, then every failing
//! case (FAIL and ERROR, then WARN) with what it checked, what came back, a whitespace-visible
//! diff, the spec sentence it breaks (once per report) and a command to rerun it; INFO folded
//! into one line per rule; the summary; and a closing recap of the root causes with the command
//! that reruns each one's first case, so that the last screen of a terminal is enough to act.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::{Report, Verdict, plural, rule_text};
use crate::diff::{Glyphs, push_report_diff};
use crate::judge::grade::{CaseResult, Outcome, Phase};
use crate::spec::Spec;

/// How much to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Detail {
    /// Also list passing cases and every call, and show diffs whole.
    pub verbose: bool,
    /// List the INFO cases one by one instead of one line per rule.
    pub show_info: bool,
}

/// Renders the report as text for a terminal or a CI log.
pub fn render(report: &Report, spec: &Spec, detail: Detail) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", verdict_line(report));
    if let Some(crash) = report.crash_line() {
        let _ = writeln!(out, "{crash}");
    }
    let _ = writeln!(out);
    lineages(&mut out, report);
    root_causes(&mut out, report);
    // What the baseline accepts is known and unchanged: only what changed is shown, or a run
    // with a long baseline repeats thousands of lines it already agreed to.
    let open = |r: &&CaseResult| detail.verbose || r.baselined.is_none();
    let mut cited: Vec<String> = Vec::new();
    let groups: [&[Outcome]; 3] = [
        &[Outcome::Fail, Outcome::Error],
        &[Outcome::Warn],
        &[Outcome::Info],
    ];
    for (index, group) in groups.iter().enumerate() {
        if index == 2 && !(detail.verbose || detail.show_info) {
            info_lines(&mut out, report);
            continue;
        }
        let cases: Vec<&CaseResult> = report
            .results
            .iter()
            .filter(open)
            .filter(|r| group.contains(&r.outcome))
            .collect();
        // One cause repeated across cases is shown once, with the cases it also broke: a
        // backend with one wrong flag would otherwise print hundreds of the same block.
        let alike = same_way(&cases, detail.verbose);
        for (result, others) in cases.iter().zip(&alike) {
            let Some(others) = others else {
                continue;
            };
            case_block(&mut out, report, spec, result, detail, &mut cited);
            same_way_line(&mut out, report, result, others);
        }
    }
    if detail.verbose {
        for result in report
            .results
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Pass | Outcome::Skip))
        {
            case_block(&mut out, report, spec, result, detail, &mut cited);
        }
    }
    let accepted = report
        .results
        .iter()
        .filter(|r| r.baselined.is_some())
        .count();
    if accepted > 0 && !detail.verbose {
        let _ = writeln!(
            out,
            "accepted by the baseline: {}, not shown (--verbose shows them)\n",
            counted(report, accepted)
        );
    }
    if !report.baseline_problems.is_empty() {
        let _ = writeln!(out, "baseline problems:");
        for problem in &report.baseline_problems {
            let _ = writeln!(out, "  {problem}");
        }
        out.push('\n');
    }
    out.push_str(&render_summary(report));
    out
}

/// Cases named after a case that broke the same way: at most this many, then a count.
const SAME_WAY_NAMED: usize = 8;

/// For each case, `Some(the later cases that broke the same way)` when it is the first of its
/// cause, `None` when an earlier case already stands for it. Verbose reports show every case.
fn same_way<'a>(cases: &[&'a CaseResult], verbose: bool) -> Vec<Option<Vec<&'a CaseResult>>> {
    if verbose {
        return cases.iter().map(|_| Some(Vec::new())).collect();
    }
    let mut first_of: BTreeMap<String, usize> = BTreeMap::new();
    let mut out: Vec<Option<Vec<&CaseResult>>> = Vec::with_capacity(cases.len());
    for (index, result) in cases.iter().enumerate() {
        match first_of.entry(cause_key(result)) {
            std::collections::btree_map::Entry::Occupied(first) => {
                if let Some(Some(others)) = out.get_mut(*first.get()) {
                    others.push(result);
                }
                out.push(None);
            }
            std::collections::btree_map::Entry::Vacant(slot) => {
                slot.insert(index);
                out.push(Some(Vec::new()));
            }
        }
    }
    out
}

/// What makes two cases break "the same way": the same outcome and the same findings of their
/// own (kind of check, level, rule; what follows from another finding left out), or, for a
/// backend that broke, the same first line of the reason.
fn cause_key(result: &CaseResult) -> String {
    if result.outcome == Outcome::Error {
        let reason = result.reason.as_deref().unwrap_or_default();
        return format!("error {}", reason.lines().next().unwrap_or_default());
    }
    let mut roots: Vec<String> = result
        .findings
        .iter()
        .filter(|f| f.follows.is_none())
        .map(|f| format!("{:?} {} {}", f.check, f.level.as_str(), f.rule))
        .collect();
    roots.sort();
    roots.dedup();
    format!("{} {}", result.outcome.as_str(), roots.join(" "))
}

/// `… and N more cases broke the same way: a, b, … (--verbose shows each)`.
fn same_way_line(out: &mut String, report: &Report, first: &CaseResult, others: &[&CaseResult]) {
    if others.is_empty() {
        return;
    }
    let names: Vec<&str> = others
        .iter()
        .take(SAME_WAY_NAMED)
        .map(|r| r.id.as_str())
        .collect();
    let unnamed = others.len().saturating_sub(names.len());
    let tail = if unnamed > 0 {
        format!(" and {unnamed} more")
    } else {
        String::new()
    };
    let (one, many) = report.run.units();
    let more = plural(
        others.len(),
        &format!("more {one}"),
        &format!("more {many}"),
    );
    let _ = writeln!(
        out,
        "… and {more} broke the same way as {}: {}{tail} (--verbose shows each)\n",
        first.id,
        names.join(", ")
    );
}

/// The summary alone (counts, timing, skips), the recap of the root causes and the verdict:
/// what the terminal keeps when the report itself goes to a file, and how every report ends.
pub fn render_summary(report: &Report) -> String {
    let mut out = String::new();
    summary(&mut out, report);
    recap(&mut out, report);
    let _ = writeln!(out, "{}", verdict_line(report));
    if let Some(crash) = report.crash_line() {
        let _ = writeln!(out, "{crash}");
    }
    out
}

/// The INFO cases, one line per rule of their first INFO finding, most cases first: what the
/// backend chose where the spec leaves it open, never a fault.
fn info_lines(out: &mut String, report: &Report) {
    let mut by_rule: BTreeMap<&str, (usize, &str, &str)> = BTreeMap::new();
    for result in report
        .results
        .iter()
        .filter(|r| r.outcome == Outcome::Info && r.baselined.is_none())
    {
        let Some(finding) = result.findings.first() else {
            continue;
        };
        by_rule
            .entry(finding.rule.as_str())
            .or_insert((0, result.id.as_str(), finding.message.as_str()))
            .0 += 1;
    }
    if by_rule.is_empty() {
        return;
    }
    let mut lines: Vec<_> = by_rule.into_iter().collect();
    lines.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(b.0)));
    let total: usize = lines.iter().map(|(_, (n, _, _))| n).sum();
    let _ = writeln!(
        out,
        "INFO (where the spec leaves a choice; never a fault): {}, by rule (--show-info lists them)",
        counted(report, total)
    );
    for (rule, (cases, first, message)) in lines {
        let _ = writeln!(
            out,
            "  info {rule}: {}, e.g. {first}: {}",
            counted(report, cases),
            bounded_line(message)
        );
    }
    out.push('\n');
}

/// The closing recap: each root cause that fails the run or costs more than wording, with the
/// command that reruns its first case; the wording causes in one line after them.
fn recap(out: &mut String, report: &Report) {
    use crate::judge::Harm;
    use crate::spec::Level;
    let causes = report.root_causes();
    if causes.is_empty() {
        return;
    }
    let (acted, worded): (Vec<_>, Vec<_>) = causes
        .iter()
        .partition(|c| c.level == Level::Must || c.harm >= Harm::Loss || report.strict);
    let _ = writeln!(out, "\nto act on, worst first:");
    for cause in &acted {
        let _ = writeln!(
            out,
            "  {}{} {} ({}): {}",
            harm_prefix(cause.harm),
            cause.level.as_str(),
            cause.rule,
            counted(report, cause.cases),
            report.repro(&cause.first_case)
        );
    }
    if !worded.is_empty() {
        let rules: Vec<&str> = worded.iter().map(|c| c.rule.as_str()).collect();
        let _ = writeln!(
            out,
            "  and {} of wording (SHOULD): {}",
            plural(worded.len(), "cause", "causes"),
            bounded_line(&rules.join(", "))
        );
    }
}

/// `n` of the report's results, named as its command calls them (`2 cases`, `1 divergence`).
fn counted(report: &Report, n: usize) -> String {
    let (one, many) = report.run.units();
    plural(n, one, many)
}

/// `SECURITY `, `DATA LOSS ` or nothing: what a cause line starts with.
fn harm_prefix(harm: crate::judge::Harm) -> String {
    harm.label()
        .map(|label| format!("{label} "))
        .unwrap_or_default()
}

/// A one-line text as the report prints it: bounded, line breaks shown.
fn bounded_line(text: &str) -> String {
    const SHOWN: usize = 240;
    let line = text.replace('\n', "⏎");
    match line.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}… ({} characters)", &line[..cut], line.chars().count()),
        None => line,
    }
}

fn case_block(
    out: &mut String,
    report: &Report,
    spec: &Spec,
    result: &CaseResult,
    detail: Detail,
    cited: &mut Vec<String>,
) {
    let accepted = result
        .baselined
        .as_deref()
        .map(|r| format!(" (accepted by baseline: {r})"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "{} {}{}\n  {}",
        result.outcome.as_str().to_uppercase(),
        result.id,
        accepted,
        result.title
    );
    // The rerun command under the case's name, before its diffs: a long diff never pushes it
    // off the screen that shows the case.
    if !matches!(result.outcome, Outcome::Pass | Outcome::Skip) {
        let _ = writeln!(out, "  rerun: {}", report.repro(&result.id));
    }
    if let Some(reason) = &result.reason {
        // A reason may quote a backend's stderr, many lines: indented under its label, so that
        // a `KeyError:` of a traceback is not read as a line of the report.
        let _ = writeln!(out, "  reason: {}", reason.replace('\n', "\n    "));
    }
    for note in &result.notes {
        let _ = writeln!(out, "  {note}");
    }
    for finding in &result.findings {
        let follows = finding
            .follows
            .as_ref()
            .map(|cause| format!(" (follows from {cause})"))
            .unwrap_or_default();
        // A replayed finding names the two results it compares: a replay may grade both the
        // backend and the recording.
        let pair = finding
            .pair
            .map(|pair| format!("{}: ", pair.label()))
            .unwrap_or_default();
        let _ = writeln!(out, "  - {pair}{finding}{follows}");
        // A consequence of an earlier step is named, not argued again (its cause has the
        // diff); one of the same step (the text after a wrong flag) is that fault's detail.
        let earlier = finding
            .follows
            .as_ref()
            .is_some_and(|cause| cause.step.is_none() || cause.step != finding.step);
        if earlier && !detail.verbose {
            continue;
        }
        // The spec sentence once per rule and report: the first case that breaks it quotes
        // it, the others name the rule.
        if let Some(text) = rule_text(spec, finding.rule.as_str())
            && !cited.iter().any(|rule| rule == finding.rule.as_str())
        {
            cited.push(finding.rule.to_string());
            let _ = writeln!(out, "    spec: {text}");
        }
        if let Some(step) = finding.step {
            let steps = result
                .calls
                .iter()
                .filter(|c| c.phase == Phase::Step)
                .nth(step);
            if let Some(call) = steps {
                let _ = writeln!(out, "    input: {}", call.input);
            }
        }
        match (
            finding.expected_for_diff(),
            &finding.actual,
            &finding.dialect,
        ) {
            (Some(expected), Some(actual), None) => {
                let _ = writeln!(
                    out,
                    "    diff (- expected, + actual; → tab, · trailing space, ␍ CR):"
                );
                push_report_diff(
                    out,
                    (expected, actual),
                    Glyphs::PLAIN,
                    "      ",
                    detail.verbose,
                    "use --verbose for all",
                );
            }
            (_, Some(actual), Some(_)) => {
                let _ = writeln!(
                    out,
                    "    actual: {}",
                    crate::diff::visible(actual).replace('\n', "⏎")
                );
            }
            (None, Some(actual), None) => {
                let _ = writeln!(
                    out,
                    "    actual: {}",
                    crate::diff::visible(actual).replace('\n', "⏎")
                );
            }
            _ => {}
        }
    }
    if detail.verbose {
        for call in &result.calls {
            let phase = match call.phase {
                Phase::Setup => "setup",
                Phase::Step => "step",
                Phase::Witness => "read back",
            };
            let user = call
                .user
                .as_ref()
                .map(|user| format!(" as user {}", crate::judge::shown_user(user)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {phase}{user} {} ({} µs)",
                call.input,
                call.backend_time.as_micros()
            );
            if let Some(answer) = &call.result {
                let _ = writeln!(out, "    is_error: {}", answer.is_error);
                for line in answer.text.split('\n') {
                    let _ = writeln!(out, "    | {}", crate::diff::visible(line));
                }
            }
            if let Some(error) = &call.error {
                let _ = writeln!(out, "    backend error: {error}");
            }
        }
    }
    out.push('\n');
}

/// The known lineages the answers come from, one line each before the root causes: hundreds of
/// differences in one implementation's wording read as one family, still graded one by one.
/// Only a lineage that explains at least half of the findings is named here
/// ([`crate::judge::lineage::Lineage::explains_most`]): one that explains a few is not what the
/// backend is, and the first screen is for what it is.
fn lineages(out: &mut String, report: &Report) {
    let lineages: Vec<_> = report
        .lineages()
        .into_iter()
        .filter(crate::judge::lineage::Lineage::explains_most)
        .collect();
    for lineage in &lineages {
        let _ = writeln!(out, "{}", lineage_line(lineage));
    }
    if !lineages.is_empty() {
        out.push('\n');
    }
}

/// `lineage: NAME — explains N of M findings (K cases), e.g. CASE: "first line"`.
fn lineage_line(lineage: &crate::judge::lineage::Lineage) -> String {
    format!(
        "lineage: {} — explains {} of {} ({}), e.g. {}: {:?}",
        lineage.name,
        lineage.findings,
        plural(lineage.of, "finding", "findings"),
        plural(lineage.cases, "case", "cases"),
        lineage.sample.case,
        lineage.sample.actual
    )
}

/// The report opens with what went wrong, once per cause: the rules broken by findings that
/// follow no other, by weight, and the cases where the backend broke.
fn root_causes(out: &mut String, report: &Report) {
    let causes = report.root_causes();
    let (broke, first_break) = report.breaks();
    if causes.is_empty() && broke == 0 {
        return;
    }
    if let Some(first) = report.refuses_everything() {
        let _ = writeln!(
            out,
            "every call was answered with an error, e.g. {}\n",
            excerpt_line(first)
        );
    }
    let consequences: usize = causes.iter().map(|c| c.consequences).sum();
    let _ = writeln!(
        out,
        "root causes: {} broken{}",
        plural(causes.len(), "rule", "rules"),
        if consequences > 0 {
            format!(
                ", and {} that only {} from them",
                plural(consequences, "finding", "findings"),
                if consequences == 1 {
                    "follows"
                } else {
                    "follow"
                }
            )
        } else {
            String::new()
        }
    );
    let width = causes
        .iter()
        .map(|c| c.rule.as_str().len())
        .max()
        .unwrap_or(0);
    for cause in &causes {
        let _ = writeln!(
            out,
            "  {}{:<6} {:<width$}  {}, first {}: {}",
            harm_prefix(cause.harm),
            cause.level.as_str(),
            cause.rule.as_str(),
            counted(report, cause.cases),
            cause.first_case,
            // A message may quote a whole expected file: one line here, the case block has
            // the diff.
            bounded_line(&cause.message)
        );
    }
    if let Some((case, reason)) = first_break {
        let _ = writeln!(
            out,
            "  broke  in {}, first {case}: {}",
            counted(report, broke),
            reason.lines().next().unwrap_or_default()
        );
    }
    out.push('\n');
}

fn summary(out: &mut String, report: &Report) {
    let counts = report.counts();
    let count = |o: Outcome| counts.get(&o).copied().unwrap_or(0);
    let baselined = report
        .results
        .iter()
        .filter(|r| r.baselined.is_some())
        .count();
    let hostile = report.results.iter().filter(|r| r.hostile).count();
    let timing = report.timing();
    let (one, many) = report.run.units();
    let what = match report.run {
        super::Run::Fuzz if report.results.is_empty() => "no divergence found".to_string(),
        super::Run::Fuzz => format!("{} found", plural(report.results.len(), one, many)),
        super::Run::Replay | super::Run::ReplayCheck => plural(report.results.len(), one, many),
        super::Run::Check => format!(
            "{} ({hostile} hostile)",
            plural(report.results.len(), one, many)
        ),
    };
    let _ = writeln!(
        out,
        "{what} against {} in {:.2} s, judged by revision {}{}",
        report.backend,
        report.elapsed.as_secs_f64(),
        report.revision,
        if report.strict && report.run == super::Run::Check {
            ", strict"
        } else {
            ""
        }
    );
    // A choice the backend never took is the expected outcome: nothing to say (the JSON
    // report keeps every offer with its counts).
    for choice in report.choices().iter().filter(|c| c.taken > 0) {
        let _ = writeln!(out, "choice (INFO): {}", choice.line());
    }
    for note in &report.notes {
        let _ = writeln!(out, "note: {note}");
    }
    let (probes, unverified) = report.probes();
    if probes > 0 || unverified > 0 {
        let _ = writeln!(
            out,
            "byte probes: {probes} (a str_replace of a file's expected text onto itself, where its view cannot show the bytes or shows other lines); effects left unverified: {unverified}"
        );
    }
    // Start-up time is per case, so with parallel workers its sum can exceed the whole run.
    let summed = if report.workers > 1 {
        format!(" (summed over {} workers)", report.workers)
    } else {
        String::new()
    };
    // A fuzz run's calls are its divergences' shrunk steps, never timed: its rate is a note.
    // A replay times only the backend's answers.
    if matches!(report.run, super::Run::Replay | super::Run::ReplayCheck) {
        let _ = writeln!(
            out,
            "calls: {}, backend median {} µs per call",
            timing.calls,
            timing.backend_median.as_micros()
        );
    } else if report.run != super::Run::Fuzz {
        let _ = writeln!(
            out,
            "calls: {}, backend median {} µs per call, harness {} µs per call, backend start-up and resets {:.2} s{summed}",
            timing.calls,
            timing.backend_median.as_micros(),
            timing.harness_per_call.as_micros(),
            timing.backend_start.as_secs_f64()
        );
    }
    // A fuzz run counts what it did: its results are only the divergences, which the line above
    // counted already.
    if let Some(fuzzed) = &report.fuzzed {
        let _ = writeln!(out, "{}", fuzzed.line());
        return;
    }
    let _ = writeln!(
        out,
        "{} passed, {} failed, {} warned, {} info, {} skipped, {}{}",
        count(Outcome::Pass),
        count(Outcome::Fail),
        count(Outcome::Warn),
        count(Outcome::Info),
        count(Outcome::Skip),
        plural(count(Outcome::Error), "error", "errors"),
        if baselined > 0 {
            format!(" ({baselined} accepted by the baseline)")
        } else {
            String::new()
        }
    );
    // Every skip says why, grouped: a skipped case is a blind spot of the run.
    let mut reasons: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for result in report.results.iter().filter(|r| r.outcome == Outcome::Skip) {
        *reasons
            .entry(result.reason.as_deref().unwrap_or("no reason given"))
            .or_insert(0) += 1;
    }
    for (reason, n) in &reasons {
        let _ = writeln!(out, "  skipped {n}: {reason}");
    }
    let unchecked = report.unchecked_rules();
    if !unchecked.is_empty() {
        let _ = writeln!(
            out,
            "  unchecked: {} rule(s) whose every case was skipped: {}",
            unchecked.len(),
            unchecked.join(", ")
        );
    }
}

/// `verdict: …`, with what the worst causes cost: the report's first and last line.
/// The one-line verdict every human-facing format opens and closes with.
pub(crate) fn verdict_line(report: &Report) -> String {
    let counts = report.counts();
    let count = |o: Outcome| counts.get(&o).copied().unwrap_or(0);
    // One verdict for every lane, the crash lane's included: its own line is detail.
    let verdict = match report.verdict() {
        // A golden file is compared with, not graded by the spec.
        Verdict::Conformant if report.run == super::Run::ReplayCheck => {
            "unchanged since the recording".to_string()
        }
        Verdict::NotConformant if report.run == super::Run::ReplayCheck => {
            "CHANGED since the recording".to_string()
        }
        Verdict::Conformant => {
            let accepted = report.accepted_breaks();
            if accepted.is_empty() {
                "conformant".to_string()
            } else {
                // Exit 0 is the baseline's say-so, not conformance: say what it accepts.
                let without = match report.verdict_without_baseline() {
                    Verdict::BackendBroke => "the backend BROKE",
                    _ => "NOT conformant",
                };
                format!(
                    "matches the baseline, which accepts {} (without it: {without})",
                    accepted.describe()
                )
            }
        }
        Verdict::NotConformant => "NOT conformant".to_string(),
        Verdict::BackendBroke => {
            // A timeout does not hide failures: both are said.
            let failed = count(Outcome::Fail);
            if failed > 0 {
                format!(
                    "the backend BROKE (crash, hang or garbage) in {}, and NOT conformant: {failed} failed",
                    counted(report, report.breaks().0)
                )
            } else {
                "the backend BROKE (crash, hang or garbage)".to_string()
            }
        }
    };
    format!("verdict: {verdict}{}", harm_note(report))
}

/// What the worst root causes cost, after the verdict: a reader of the last line learns that
/// memories were lost or something outside was touched even when a flag fault is the larger
/// cause by count.
pub(crate) fn harm_note(report: &Report) -> String {
    use crate::judge::Harm;
    let causes = report.root_causes();
    let named = |harm: Harm| -> Vec<String> {
        causes
            .iter()
            .filter(|c| c.harm == harm && c.level != crate::spec::Level::Info)
            .map(|c| format!("{} ({})", c.rule, counted(report, c.cases)))
            .collect()
    };
    let mut notes = Vec::new();
    let (crossings, escapes): (Vec<String>, Vec<String>) = named(Harm::Escape)
        .into_iter()
        .partition(|named| named.starts_with(crate::spec::known::USERS_ISOLATED.as_str()));
    if !crossings.is_empty() {
        notes.push(format!(
            "one user's memories reached by another: {}",
            crossings.join(", ")
        ));
    }
    if !escapes.is_empty() {
        notes.push(format!(
            "something outside /memories touched or shown: {}",
            escapes.join(", ")
        ));
    }
    let losses = named(Harm::Loss);
    if !losses.is_empty() {
        notes.push(format!("memories LOST: {}", losses.join(", ")));
    }
    notes.iter().map(|note| format!("; {note}")).collect()
}

/// The first line of a backend's text, bounded, quoted.
fn excerpt_line(text: &str) -> String {
    const SHOWN: usize = 120;
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{:?}…", &line[..cut]),
        None => format!("{line:?}"),
    }
}
