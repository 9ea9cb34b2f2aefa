//! Which cases check which rule: the coverage matrix behind `memspec spec coverage`.

use std::fmt::Write;

use super::load::{LoadedCase, Suite};
use crate::spec::{Rule, Spec};

/// One rule and the cases that name it.
#[derive(Debug, Clone)]
pub struct RuleCoverage<'a> {
    /// The rule.
    pub rule: &'a Rule,
    /// Ids of the cases naming it.
    pub cases: Vec<&'a str>,
}

/// Every rule of the spec with the cases that check it, in rule-id order.
/// The concurrency rules are checked by the races of `check --clients N` and `fuzz --clients
/// N` (several processes on one store), and the durability rules by the crash lane of
/// `check --crash` (a backend killed mid-write), which no case can describe: they count as
/// covered there.
pub fn coverage<'a>(spec: &'a Spec, suite: &'a Suite) -> Vec<RuleCoverage<'a>> {
    spec.rules()
        .map(|rule| RuleCoverage {
            rule,
            cases: if crate::spec::known::RACE_RULES.contains(&rule.id) {
                vec![RACES]
            } else if crate::spec::known::CRASH_RULES.contains(&rule.id) {
                vec![CRASHES]
            } else {
                suite
                    .cases
                    .iter()
                    .filter(|c| named_rules(c).any(|r| spec.id(r).is_some_and(|id| id == rule.id)))
                    .map(|c| c.case.id.as_str())
                    .collect()
            },
        })
        .collect()
}

/// What the coverage lists for a rule the races check.
pub const RACES: &str = "(the races of check/fuzz --clients N)";

/// What the coverage lists for a rule the crash lane checks.
pub const CRASHES: &str = "(the crash lane of check --crash)";

/// Every rule id a case names: its `rules`, its checks' own rules and the rules that allow its
/// steps' alternatives. A rule of another revision counts as the rule it is graded as here.
pub fn named_rules(case: &LoadedCase) -> impl Iterator<Item = &str> {
    let case = &case.case;
    case.rules
        .iter()
        .chain(case.steps.iter().flat_map(|s| {
            [s.is_error_rule.as_ref(), s.text_rule.as_ref()]
                .into_iter()
                .flatten()
                .chain(s.alternative.as_ref().map(|a| &a.rule))
        }))
        .chain(case.effects.iter().filter_map(|e| e.rule.as_ref()))
        .map(String::as_str)
}

/// The matrix as text: level, rule id, number of cases, a few case ids; uncovered rules marked.
pub fn render(rows: &[RuleCoverage<'_>]) -> String {
    let mut out = String::new();
    let width = rows
        .iter()
        .map(|r| r.rule.id.as_str().len())
        .max()
        .unwrap_or(10);
    for row in rows {
        let mut shown: Vec<&str> = row.cases.iter().take(3).copied().collect();
        if row.cases.len() > 3 {
            shown.push("…");
        }
        let mark = if row.cases.is_empty() {
            "UNCOVERED"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{:<6} {:<width$} {:>4}  {}{}",
            row.rule.level.as_str(),
            row.rule.id,
            row.cases.len(),
            mark,
            shown.join(", ")
        );
    }
    let uncovered = rows.iter().filter(|r| r.cases.is_empty()).count();
    let _ = writeln!(
        out,
        "{} rules, {} covered, {} uncovered",
        rows.len(),
        rows.len() - uncovered,
        uncovered
    );
    out
}
