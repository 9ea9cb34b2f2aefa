//! `memspec spec diff FROM TO`: what a revision of the page changed, rule by rule, with the
//! quotes and the cases each change affects; a CI step for a suite maintainer when the page
//! moves again.

use std::collections::BTreeSet;
use std::fmt::Write;

use serde::Serialize;

use super::load::Suite;
use crate::spec::{PageChange, Revision, Rule, Spec};

/// How one rule id differs between two revisions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Difference {
    /// A rule (or decision) of `to` that `from` did not have as one.
    Added,
    /// A rule (or decision) of `from` that `to` no longer has as one.
    Removed,
    /// A rule of both whose level, section, text, basis or summary differs.
    Changed,
}

/// One rule id that differs.
#[derive(Debug, Clone, Serialize)]
pub struct RuleChange {
    /// The rule or decision id.
    pub id: String,
    /// Added, removed or changed.
    pub kind: Difference,
    /// The change of the revision note it carries (`A7`), from whichever side names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
    /// The rule in `from`, if it is one there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Side>,
    /// The rule in `to`, if it is one there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<Side>,
    /// What the id is where it is not a rule: graded as a decision, or why it is absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elsewhere: Option<String>,
    /// The fields that differ (for `changed`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<&'static str>,
    /// The cases that name the id under either revision.
    pub cases: Vec<String>,
}

/// A rule as one revision has it.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    /// `MUST`, `SHOULD` or `INFO`.
    pub level: &'static str,
    /// The page's section.
    pub section: String,
    /// The quoted sentence (for a decision: the decision).
    pub text: String,
    /// `quoted` or `derived` (empty for decisions).
    pub basis: String,
}

impl Side {
    fn of(rule: &Rule) -> Side {
        Side {
            level: rule.level.as_str(),
            section: rule.section.clone(),
            text: rule.text.clone(),
            basis: rule.basis.clone(),
        }
    }
}

/// Everything that differs between two revisions.
#[derive(Debug, Clone, Serialize)]
pub struct SpecDiff {
    /// The older revision.
    pub from: Revision,
    /// The newer revision.
    pub to: Revision,
    /// Rule by rule, in id order.
    pub rules: Vec<RuleChange>,
    /// Changes of `to`'s page that no rule carries (what Claude or the caller is told, labels).
    pub page: Vec<PageChange>,
}

impl SpecDiff {
    /// Whether the two revisions say the same.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty() && self.page.is_empty()
    }

    /// The ids of the revision note's changes that the diff shows (`A1`, `A2`, …, `A10`, `B3`),
    /// each once, in the note's order.
    pub fn change_ids(&self) -> Vec<String> {
        let ids: BTreeSet<(String, u32)> = self
            .rules
            .iter()
            .filter_map(|r| r.change.as_deref())
            .chain(self.page.iter().map(|p| p.id.as_str()))
            .map(|id| {
                let (letter, number) = id.split_at(id.len().min(1));
                (letter.to_string(), number.parse().unwrap_or(0))
            })
            .collect();
        ids.into_iter().map(|(l, n)| format!("{l}{n}")).collect()
    }

    /// The diff as text for people: every rule change with its quotes and cases, then the
    /// page's changes that no rule carries.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "memspec spec diff {} {}", self.from, self.to);
        if self.is_empty() {
            let _ = writeln!(out, "\nno change: the two revisions say the same");
            return out;
        }
        for kind in [Difference::Changed, Difference::Added, Difference::Removed] {
            let changes: Vec<&RuleChange> = self.rules.iter().filter(|r| r.kind == kind).collect();
            if changes.is_empty() {
                continue;
            }
            let title = match kind {
                Difference::Changed => "changed",
                Difference::Added => "added",
                Difference::Removed => "removed",
            };
            let _ = writeln!(out, "\n## {} rule(s) {title}", changes.len());
            for change in changes {
                render_rule(&mut out, change, self);
            }
        }
        if !self.page.is_empty() {
            let _ = writeln!(
                out,
                "\n## {} change(s) of the page that no rule carries",
                self.page.len()
            );
            for page in &self.page {
                let _ = writeln!(out, "\n[{}] {} ({})", page.id, page.title, page.kind);
                if !page.quote.is_empty() {
                    let _ = writeln!(out, "  {}: \"{}\"", self.to, page.quote);
                }
                let _ = writeln!(out, "  {}", page.effect);
            }
        }
        let ids = self.change_ids();
        let _ = writeln!(
            out,
            "\n{} rule(s) differ; changes of the revision note shown: {}",
            self.rules.len(),
            ids.join(", ")
        );
        out
    }
}

fn render_rule(out: &mut String, change: &RuleChange, diff: &SpecDiff) {
    let tag = change
        .change
        .as_deref()
        .map_or_else(String::new, |c| format!("[{c}] "));
    let level = |side: &Option<Side>| side.as_ref().map_or("-", |s| s.level);
    let _ = writeln!(
        out,
        "\n{tag}{}  {} → {}",
        change.id,
        level(&change.before),
        level(&change.after)
    );
    if !change.fields.is_empty() {
        let _ = writeln!(out, "  differs in: {}", change.fields.join(", "));
    }
    if let Some(elsewhere) = &change.elsewhere {
        let _ = writeln!(out, "  {elsewhere}");
    }
    for (revision, side) in [(diff.from, &change.before), (diff.to, &change.after)] {
        if let Some(side) = side {
            let basis = if side.basis.is_empty() {
                String::new()
            } else {
                format!(", {}", side.basis)
            };
            let _ = writeln!(
                out,
                "  {revision} ({}{basis}): \"{}\"",
                side.section, side.text
            );
        }
    }
    // The text names a dozen; the JSON lists them all.
    const SHOWN: usize = 12;
    let shown = change.cases.iter().take(SHOWN).cloned().collect::<Vec<_>>();
    let more = change.cases.len().saturating_sub(SHOWN);
    let _ = match change.cases.len() {
        0 => writeln!(out, "  cases: none"),
        n if more > 0 => writeln!(
            out,
            "  cases ({n}): {}, and {more} more (--json lists them all)",
            shown.join(", ")
        ),
        n => writeln!(out, "  cases ({n}): {}", shown.join(", ")),
    };
}

/// What differs from `from` to `to`; `suites` are the suites loaded under each (for the cases
/// each change affects).
pub fn diff(from: &Spec, to: &Spec, suites: (&Suite, &Suite)) -> SpecDiff {
    let ids: BTreeSet<&str> = from
        .rules()
        .chain(to.rules())
        .map(|r| r.id.as_str())
        .collect();
    let mut rules = Vec::new();
    for id in ids {
        let (before, after) = (from.get(id), to.get(id));
        let (kind, fields, elsewhere) = match (before, after) {
            (Some(b), Some(a)) => {
                let fields = differing(b, a);
                if fields.is_empty() {
                    continue;
                }
                (Difference::Changed, fields, None)
            }
            (None, Some(_)) => (Difference::Added, Vec::new(), Some(not_here(from, id))),
            (Some(_), None) => (Difference::Removed, Vec::new(), Some(not_here(to, id))),
            (None, None) => continue,
        };
        // Cases that name the id, or a rule graded as it on either side.
        let names: BTreeSet<&str> = std::iter::once(id)
            .chain(from.graded_as_it(id))
            .chain(to.graded_as_it(id))
            .collect();
        let cases = affected(&names, suites);
        rules.push(RuleChange {
            id: id.to_string(),
            kind,
            change: after
                .and_then(|r| r.change.clone())
                .or_else(|| before.and_then(|r| r.change.clone()))
                .or_else(|| retirement_change(from, to, id)),
            before: before.map(Side::of),
            after: after.map(Side::of),
            elsewhere,
            fields,
            cases,
        });
    }
    let page = to
        .revision_info()
        .filter(|_| from.revision() != to.revision())
        .map(|info| info.changes.clone())
        .unwrap_or_default();
    SpecDiff {
        from: from.revision(),
        to: to.revision(),
        rules,
        page,
    }
}

/// A decision that a rule replaces carries that rule's change: the rule of `to` that `from`
/// graded as the decision.
fn retirement_change(from: &Spec, to: &Spec, id: &str) -> Option<String> {
    to.rules()
        .find(|rule| from.graded_as(rule.id.as_str()).is_some_and(|t| t == id))
        .and_then(|rule| rule.change.clone())
}

/// What `id` is in a revision where it is not a rule.
fn not_here(spec: &Spec, id: &str) -> String {
    let revision = spec.revision();
    if let Some(target) = spec.graded_as(id) {
        return format!("under {revision}: not a rule, graded as {target}");
    }
    if let Some(why) = spec.elsewhere(id) {
        return format!("under {revision}: absent ({why})");
    }
    format!("under {revision}: unknown")
}

fn differing(before: &Rule, after: &Rule) -> Vec<&'static str> {
    let mut fields = Vec::new();
    if before.level != after.level {
        fields.push("level");
    }
    if before.section != after.section {
        fields.push("section");
    }
    if before.text != after.text {
        fields.push("text");
    }
    if before.basis != after.basis {
        fields.push("basis");
    }
    if before.summary != after.summary {
        fields.push("summary");
    }
    fields
}

/// The cases that name one of `ids` under either revision, in suite order, each once.
fn affected(ids: &BTreeSet<&str>, (from, to): (&Suite, &Suite)) -> Vec<String> {
    let mut cases: Vec<String> = Vec::new();
    for case in from.cases.iter().chain(&to.cases) {
        if crate::suite::coverage::named_rules(case).any(|r| ids.contains(r))
            && !cases.contains(&case.case.id)
        {
            cases.push(case.case.id.clone());
        }
    }
    cases
}
