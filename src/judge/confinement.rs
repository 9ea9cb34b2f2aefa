//! Confinement breaches the session saw ([`Breach`]), graded: the same findings for `check`,
//! `replay`, `record` and `fuzz`.

use super::{Check, Finding};
use crate::exec::Breach;
use crate::spec::{Always, Graded};

/// The findings of `breaches`, at `step` (a case's step index, if any); a tampering is said to
/// have been seen `when`.
pub fn findings(
    breaches: Vec<Breach>,
    rules: &Always,
    step: Option<usize>,
    when: &str,
) -> Vec<Finding> {
    breaches
        .into_iter()
        .map(|breach| match breach {
            Breach::HostPath(answer) => finding(
                Check::HostPath,
                &rules.host_paths,
                "the output reveals the host path of the memories folder".to_string(),
            )
            .at(step)
            .actually(answer),
            Breach::CanaryShown(answer) => finding(
                Check::Leak,
                &rules.confinement,
                "the output contains the content of a canary file outside the memories folder"
                    .to_string(),
            )
            .at(step)
            .actually(answer),
            Breach::Outside {
                changes,
                before,
                after,
            } => finding(
                Check::Outside,
                &rules.confinement,
                format!(
                    "something outside the memories folder was created, changed or deleted: {changes}"
                ),
            )
            .expecting(before)
            .actually(after),
            Breach::Tampered(what) => tampered(&rules.confinement, &what, when),
        })
        .collect()
}

/// One finding per thing the backend did to the sandbox, seen `when`.
pub fn tampering(rule: &Graded, found: &[String], when: &str) -> Vec<Finding> {
    found
        .iter()
        .map(|what| tampered(rule, what, when))
        .collect()
}

fn tampered(rule: &Graded, what: &str, when: &str) -> Finding {
    finding(
        Check::Sandbox,
        rule,
        format!("the backend tampered with its sandbox ({when}): {what}"),
    )
    .actually(what)
}

fn finding(check: Check, graded: &Graded, message: String) -> Finding {
    Finding::new(check, graded.level, graded.rule.clone(), message)
}
