//! The judge's door for one replayed call: what the engine observed (the input, the backend's
//! answer or fault, the recording, the reference's answer, what the folders and the sandbox
//! showed) goes in; the findings come out, graded by the rules of the revision. `replay`,
//! `record` and `fuzz` call only this per step: the loop calls and observes, the judge grades.

use serde_json::Value;

use super::compare::{self, Answer, Results, of_backend};
use super::{Check, Finding, Pair, confinement, rules};
use crate::exec::Breach;
use crate::exec::tree::{Difference, Tree};
use crate::protocol::ToolResult;
use crate::reference::Answer as ReferenceAnswer;
use crate::spec::{Always, Level, Spec};

/// What one replayed call showed, as the engine observed it.
pub struct Observation<'a> {
    /// The tool input.
    pub input: &'a Value,
    /// What the backend under test answered, or how it broke.
    pub answer: &'a Answer,
    /// What the transcript recorded, if anything.
    pub recorded: Option<&'a ToolResult>,
    /// The reference's answer to the same call in the same state, with its rule.
    pub reference: &'a ReferenceAnswer,
    /// What the store holds besides the answers: the folders, or the tool alone.
    pub witness: Witness<'a>,
    /// What the sandbox showed of confinement after the call: host paths or canary content in
    /// the answer, changes outside the memories folder, tampering.
    pub breaches: Vec<Breach>,
}

/// How the store is seen for a step.
pub enum Witness<'a> {
    /// A folder backend: the reference's folder before the step and after it, the paths where
    /// the two folders differ after it (`None`: they agree), and which paths the backend's
    /// folder held as names before or after the step (a path that leaves `/memories` only once
    /// decoded, kept as a literal name there, did not escape).
    Folder {
        /// The reference's folder before the step.
        before: &'a Tree,
        /// The reference's folder after it.
        after: &'a Tree,
        /// Where the folders differ after the step.
        differs: Option<&'a [(String, Difference)]>,
        /// Whether the backend's folder holds a path (relative to the root) as a name.
        literal: &'a dyn Fn(&str) -> bool,
    },
    /// A store that is not a folder: only the tool shows it; the last call the backend
    /// acknowledged that changed its store is what a file found gone is blamed on.
    Tool {
        /// The reference's folder after the step (for the sizes a listing gives).
        after: &'a Tree,
        /// The last acknowledged call that changed the store.
        last_change: Option<&'a Value>,
    },
}

/// How a replay is judged.
#[derive(Clone, Copy)]
pub struct Grading<'a> {
    /// The revision's rules; `None` grades by the reference's defaults.
    pub spec: Option<&'a Spec>,
    /// The rules every case checks (confinement, host paths, tampering).
    pub always: &'a Always,
    /// Snapshot regression: only changes from the recorded results count.
    pub check: bool,
}

/// Grades one replayed call. A backend that broke gets no finding here (the step's verdict
/// says it broke); the recording is judged whatever the backend did.
pub fn step(seen: Observation<'_>, grading: Grading<'_>) -> Vec<Finding> {
    let Grading {
        spec,
        always,
        check,
    } = grading;
    let Some(result) = seen.answer.result() else {
        return match (seen.recorded, check) {
            (Some(recorded), false) => {
                compare::recorded(seen.input, recorded, seen.reference, spec)
            }
            _ => Vec::new(),
        };
    };
    let results = Results {
        input: seen.input,
        recorded: seen.recorded,
        backend: result,
        reference: seen.reference,
    };
    // A store that is not a folder shows no facts of an escape: a path that reads literally as
    // a name inside `/memories` is taken as that name, as `check` takes it (only a folder's tree
    // can show it went elsewhere).
    let literal: &dyn Fn(&str) -> bool = match &seen.witness {
        Witness::Folder { literal, .. } => literal,
        Witness::Tool { .. } => &|_| true,
    };
    let mut findings = compare::compare_with(results, spec, check, literal);
    if check {
        return findings;
    }
    let after = match &seen.witness {
        Witness::Folder { after, .. } | Witness::Tool { after, .. } => after,
    };
    if let Witness::Tool { last_change, .. } = &seen.witness
        && let Some(lost) =
            compare::lost_on_read(seen.input, seen.reference, result, *last_change, spec)
    {
        // The flag that came with it only restates the loss.
        findings.retain(|d| d.pair != Some(Pair::BackendReference) || d.check != Check::IsError);
        findings.push(of_backend(lost));
    }
    if let Some(sizes) = compare::listing_sizes(seen.input, result, after, spec) {
        findings.push(sizes);
    }
    if let Witness::Folder {
        before,
        differs: Some(paths),
        ..
    } = &seen.witness
    {
        let mut effect = folder_divergence(seen.input, seen.reference, before, paths, spec);
        // What a path outside `/memories` did to the folder is that escape's effect, under its
        // rule: not a create that wrote the wrong place.
        let outside = findings
            .iter()
            .find(|d| d.security && d.pair == Some(Pair::BackendReference))
            .map(|d| d.rule.clone());
        if let Some(rule) = outside {
            effect.level = rules::level(spec, &rule, Level::Must);
            effect.rule = rule;
            effect.security = true;
        }
        findings.push(effect);
    }
    let confined = confinement::findings(seen.breaches, always, None, "after this step");
    let leaked = confined
        .iter()
        .any(|f| matches!(f.check, Check::HostPath | Check::Leak));
    findings.extend(confined.into_iter().map(of_backend));
    // A host path other than the sandbox's (a resolved link, another root).
    if !leaked && let Some(found) = rules::host_leak(seen.input, &result.text) {
        findings.push(compare::leak(Pair::BackendReference, &found, spec));
    }
    findings
}

/// The memory folders differ after the step: graded under the rule of the step's command.
pub fn folder_divergence(
    input: &Value,
    reference: &ReferenceAnswer,
    before: &Tree,
    paths: &[(String, Difference)],
    spec: Option<&Spec>,
) -> Finding {
    let rule = rules::tree_rule(input, reference, Some(before));
    let shown: Vec<String> = paths
        .iter()
        .take(4)
        .map(|(path, how)| {
            let how = match how {
                Difference::OnlyFirst => "only in the backend's",
                Difference::OnlySecond => "missing from the backend's",
                Difference::Content => "content differs",
            };
            format!("/memories/{path} ({how})")
        })
        .collect();
    let more = paths.len().saturating_sub(shown.len());
    // The backend took the other option of a decision the reference refused under (a name the
    // reference's grammar refuses, say): what it made besides is that option's, not a fault.
    // Anything lost or changed is still one.
    let other_option = reference.result.is_error
        && rules::level(spec, &reference.rule, Level::Must) == Level::Info
        && paths
            .iter()
            .all(|(_, how)| matches!(how, Difference::OnlyFirst));
    let (level, rule) = if other_option {
        (Level::Info, reference.rule.clone())
    } else {
        (
            rule.as_ref()
                .map_or(Level::Must, |r| rules::level(spec, r, Level::Must)),
            // A command without a rule of its own for the folder: the rule its answer follows.
            rule.unwrap_or_else(|| reference.rule.clone()),
        )
    };
    Finding::new(
        Check::Effect,
        level,
        rule,
        format!(
            "after this step the memory folders differ: {}{}",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ),
    )
    .between(Pair::BackendReference)
}
