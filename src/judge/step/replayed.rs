//! One replayed call judged: what the engine observed (the input, the backend's answer or
//! fault, the recording, the reference's answer, what the folders and the sandbox showed) goes
//! in; the findings come out, graded by the rules of the revision.

use serde_json::Value;

use super::drift::{At, Drift};
use crate::exec::Breach;
use crate::exec::tree::{Difference, Tree};
use crate::judge::cascade::changes_store;
use crate::judge::compare::{self, Answer, Results, of_backend};
use crate::judge::{Check, Finding, Pair, confinement, rules};
use crate::protocol::ToolResult;
use crate::reference::Answer as ReferenceAnswer;
use crate::spec::{Always, Graded, Level, Spec, known};

/// What the judge keeps of a replay: how it is graded, and between its steps, for the backend
/// and for the recording, the memory paths whose state drifted from the reference's (so that
/// what follows from an earlier difference is marked as following it), and the last call the
/// backend acknowledged that changed its store.
#[derive(Debug)]
pub struct ReplayLedger<'s> {
    grading: Grading<'s>,
    backend: Drift,
    recorded: Drift,
    last_change: Option<usize>,
}

impl<'s> ReplayLedger<'s> {
    /// The ledger of a replay graded by `spec`'s rules (`None`: the reference's defaults);
    /// `check`: snapshot regression, where only changes from the recorded results count.
    pub fn new(spec: Option<&'s Spec>, check: bool) -> ReplayLedger<'s> {
        ReplayLedger {
            grading: Grading {
                spec,
                always: confinement_rules(spec),
                check,
            },
            backend: Drift::default(),
            recorded: Drift::default(),
            last_change: None,
        }
    }

    /// The last call (0-based) the backend acknowledged that changed its store: what a file
    /// found gone afterwards is blamed on ([`Witness::Tool`]).
    pub fn last_change(&self) -> Option<usize> {
        self.last_change
    }

    /// Marks what follows an earlier difference, and follows the drift past this step.
    fn follow(&mut self, seen: &Replayed<'_>, findings: &mut [Finding]) {
        let command = seen
            .input
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("");
        let paths = rules::memory_paths(seen.input);
        let at = At {
            number: seen.index + 1,
            command,
            paths: &paths,
            reference_failed: seen.reference.result.is_error,
        };
        self.backend.mark(Pair::BackendReference, &at, findings);
        match &seen.witness {
            Witness::Folder { differences, .. } => self.backend.follow_folder(&at, differences),
            Witness::Tool { .. } => self.backend.follow_outcome(
                Pair::BackendReference,
                &at,
                seen.answer.result().map(|r| r.is_error),
                findings,
            ),
        }
        self.recorded.mark(Pair::RecordedReference, &at, findings);
        self.recorded.follow_outcome(
            Pair::RecordedReference,
            &at,
            seen.recorded.map(|r| r.is_error),
            findings,
        );
    }
}

/// What one replayed call showed, as the engine observed it.
pub struct Replayed<'a> {
    /// The call's index in the transcript (0-based).
    pub index: usize,
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
    /// the two folders differ after it and whether this step changed them, and which paths
    /// the backend's folder held as names before or after the step (a path that leaves
    /// `/memories` only once decoded, kept as a literal name there, did not escape).
    Folder {
        /// The reference's folder before the step.
        before: &'a Tree,
        /// The reference's folder after it.
        after: &'a Tree,
        /// Whether the folders' differences changed with this step and they differ: a
        /// divergence of this step.
        changed: bool,
        /// Whether the backend's folder holds a path (relative to the root) as a name.
        literal: &'a dyn Fn(&str) -> bool,
        /// Every path where the folders differ after the step, whenever it began to.
        differences: &'a [(String, Difference)],
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
#[derive(Debug)]
struct Grading<'a> {
    /// The revision's rules; `None` grades by the reference's defaults.
    spec: Option<&'a Spec>,
    /// The rules every step checks (confinement, host paths, tampering).
    always: Always,
    /// Snapshot regression: only changes from the recorded results count.
    check: bool,
}

/// The rules confinement findings are graded under, as `check` grades them: the spec's levels
/// when it is loaded, MUST without it.
fn confinement_rules(spec: Option<&Spec>) -> Always {
    let graded = |rule| Graded {
        level: rules::level(spec, &rule, Level::Must),
        rule,
    };
    Always {
        confinement: graded(known::CONFINEMENT),
        host_paths: graded(known::NO_HOST_PATHS),
        users: graded(known::USERS_ISOLATED),
    }
}

/// Grades one replayed call and, unless the replay only checks changes from the recording,
/// marks what follows from an earlier difference.
pub(super) fn judge(ledger: &mut ReplayLedger<'_>, mut seen: Replayed<'_>) -> Vec<Finding> {
    let breaches = std::mem::take(&mut seen.breaches);
    let mut findings = grade(&seen, breaches, &ledger.grading);
    if !ledger.grading.check {
        ledger.follow(&seen, &mut findings);
    }
    if let Some(result) = seen.answer.result()
        && !result.is_error
        && changes_store(seen.input)
    {
        ledger.last_change = Some(seen.index);
    }
    findings
}

/// A backend that broke gets no finding here (the step's verdict says it broke); the
/// recording is judged whatever the backend did.
fn grade(seen: &Replayed<'_>, breaches: Vec<Breach>, grading: &Grading<'_>) -> Vec<Finding> {
    let Grading {
        spec,
        ref always,
        check,
    } = *grading;
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
        // The flag and the text that came with it only restate the loss.
        findings.retain(|d| {
            d.pair != Some(Pair::BackendReference)
                || !matches!(d.check, Check::IsError | Check::Text)
        });
        findings.push(of_backend(lost));
    }
    if let Some(sizes) = compare::listing_sizes(seen.input, result, after, spec) {
        findings.push(sizes);
    }
    if let Witness::Folder {
        before,
        changed: true,
        differences,
        ..
    } = &seen.witness
    {
        let mut effect = folder_divergence(seen.input, seen.reference, before, differences, spec);
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
    let confined = confinement::findings(breaches, always, None, "after this step");
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
