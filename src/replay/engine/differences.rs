//! A difference between the memory folders after a step: graded as a divergence under the
//! rule of the step's command, and its first files read from both folders to be shown.

use std::os::fd::AsFd;

use serde_json::Value;

use crate::exec::tree::{Difference, Tree};
use crate::exec::{Sandbox, fs};
use crate::judge::Check;
use crate::judge::rules;
use crate::judge::{Finding, Pair};
use crate::replay::{FILE_CONTENT_LIMIT, FileDifference};
use crate::spec::{Level, Spec};

/// Files shown for a folder difference: the first few, both sides read again.
const FILES_SHOWN: usize = 4;

pub(super) fn file_differences(
    paths: &[(String, Difference)],
    (backend, reference): (&Sandbox, &Sandbox),
) -> Vec<FileDifference> {
    // Never through a link, never more than is shown.
    let read = |root: &Sandbox, path: &str| {
        let memories = root.open_memories()?;
        let parts = fs::components(path).ok()?;
        let (last, parents) = parts.split_last()?;
        let dir = fs::walk(memories.as_fd(), parents, false).ok()?;
        let bytes = fs::read_prefix(
            dir.as_fd(),
            &fs::c_name(last).ok()?,
            FILE_CONTENT_LIMIT as u64,
        )
        .ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    };
    paths
        .iter()
        .map(|(path, _)| FileDifference {
            path: format!("/memories/{path}"),
            backend: read(backend, path),
            reference: read(reference, path),
        })
        .filter(|f| f.backend.is_some() || f.reference.is_some())
        .take(FILES_SHOWN)
        .collect()
}

pub(super) fn tree_divergence(
    input: &Value,
    reference: &crate::reference::Answer,
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
