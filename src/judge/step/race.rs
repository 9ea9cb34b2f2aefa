//! A race judged: what several clients of one store were told, and what the store reads as
//! afterwards. An acknowledged write still there, two creates of one path not both acknowledged
//! (beta-2025), no read showing a state that never existed.
//!
//! The spec says nothing about concurrency, so these rules are SHOULD (`concurrency.*` in
//! `spec/rules.json`); losing an acknowledged write is data loss all the same.

use crate::judge::model::lines_of;
use crate::judge::witness;
use crate::judge::{Check, Fact, Finding};
use crate::protocol::ToolResult;
use crate::spec::{Revision, RuleId, Spec, known};

/// What a race showed: each client's answers (client 0 first, in the order of its calls), and
/// the lines the files read as afterwards (`None`: the view failed or shows no numbered lines).
pub enum Race<'a> {
    /// Every client created `path` with the text `client N\n`.
    CreateCreate {
        /// The path.
        path: &'a str,
        /// Each client's answers.
        answers: &'a [Vec<ToolResult>],
        /// The file afterwards.
        read: Option<Vec<String>>,
    },
    /// Client N replaced line `line NNN` of `path` with `LINE NNN`.
    EditEdit {
        /// The path.
        path: &'a str,
        /// Each client's answers.
        answers: &'a [Vec<ToolResult>],
        /// The file afterwards.
        read: Option<Vec<String>>,
    },
    /// Client 0 renamed `old` (holding `content`) to `new`; the others viewed both paths.
    RenameView {
        /// The file's path before.
        old: &'a str,
        /// Its path after.
        new: &'a str,
        /// What it holds.
        content: &'a str,
        /// Each client's answers.
        answers: &'a [Vec<ToolResult>],
        /// `old` afterwards.
        at_old: Option<Vec<String>>,
        /// `new` afterwards.
        at_new: Option<Vec<String>>,
    },
    /// Client 0 deleted `folder` (holding `old`), client 1 created `new` in it with `new\n`,
    /// the others viewed the folder.
    DeleteCreate {
        /// The folder.
        folder: &'a str,
        /// The file in it before.
        old: &'a str,
        /// The file created in it.
        new: &'a str,
        /// Each client's answers.
        answers: &'a [Vec<ToolResult>],
        /// `old` afterwards.
        at_old: Option<Vec<String>>,
        /// `new` afterwards.
        at_new: Option<Vec<String>>,
    },
}

/// What did not hold after the race.
pub(super) fn judge(race: Race<'_>, spec: &Spec) -> Vec<Finding> {
    let found = |rule: RuleId, message: String, actual: Option<String>| {
        // A lost update costs a memory (its rule is a loss rule); the other races show states
        // that never existed.
        let mut finding =
            Finding::new(Check::Effect, spec.level(&rule), rule, message).with_fact(Fact::Race);
        finding.actual = actual;
        finding
    };
    let ok = |answers: &[Vec<ToolResult>], client: usize| {
        answers
            .get(client)
            .and_then(|a| a.first())
            .is_some_and(|r| !r.is_error)
    };
    let mut findings = Vec::new();
    match race {
        Race::CreateCreate {
            path,
            answers,
            read,
        } => {
            let clients = answers.len();
            let acknowledged: Vec<usize> = (0..clients).filter(|&i| ok(answers, i)).collect();
            if acknowledged.len() > 1 && spec.revision() == Revision::Beta2025 {
                findings.push(found(
                    known::CONCURRENCY_ONE_CREATE,
                    format!(
                        "{} clients creating {path} at once were all told it was created (clients {:?}); one of them was overwritten",
                        acknowledged.len(),
                        acknowledged
                    ),
                    None,
                ));
            }
            let real = match &read {
                Some(lines) => acknowledged
                    .iter()
                    .any(|i| *lines == vec![format!("client {i}")]),
                None => acknowledged.is_empty(),
            };
            if !real {
                findings.push(found(
                    known::CONCURRENCY_REAL_STATES,
                    format!(
                        "after {clients} clients created {path} at once (acknowledged: {acknowledged:?}), it reads as {read:?}: no client wrote that"
                    ),
                    read.map(|l| l.join("\n")),
                ));
            }
        }
        Race::EditEdit {
            path,
            answers,
            read,
        } => {
            let clients = answers.len();
            let lines = read.unwrap_or_default();
            let lost: Vec<usize> = (0..clients)
                .filter(|&i| ok(answers, i))
                .filter(|i| !lines.contains(&format!("LINE {i:03}")))
                .collect();
            if !lost.is_empty() {
                findings.push(found(
                    known::CONCURRENCY_NO_LOST_UPDATE,
                    format!(
                        "{clients} clients each replaced a different line of {path} at once and all were told it was done, but the edits of clients {lost:?} are gone"
                    ),
                    Some(lines.join("\n")),
                ));
            }
            // Every line is either its old or its new self: nothing else ever existed.
            let valid = lines.len() == clients
                && lines
                    .iter()
                    .enumerate()
                    .all(|(i, l)| *l == format!("line {i:03}") || *l == format!("LINE {i:03}"));
            if !valid && lost.is_empty() {
                findings.push(found(
                    known::CONCURRENCY_REAL_STATES,
                    format!("after {clients} clients edited {path} at once it reads as lines no sequence of their edits makes"),
                    Some(lines.join("\n")),
                ));
            }
        }
        Race::RenameView {
            old,
            new,
            content,
            answers,
            at_old,
            at_new,
        } => {
            let want: Vec<String> = lines_of(content).into_iter().map(String::from).collect();
            for result in answers.iter().skip(1).flatten().filter(|r| !r.is_error) {
                let lines = witness::file_lines(&result.text).unwrap_or_default();
                if lines != want {
                    findings.push(found(
                        known::CONCURRENCY_REAL_STATES,
                        format!(
                            "a view during the rename of {old} to {new} shows content the file never had"
                        ),
                        Some(result.text.clone()),
                    ));
                    break;
                }
            }
            let renamed = ok(answers, 0);
            let ((gone, at_gone), (kept, at_kept)) = if renamed {
                ((old, at_old), (new, at_new))
            } else {
                ((new, at_new), (old, at_old))
            };
            if at_gone.is_some() || at_kept.as_ref() != Some(&want) {
                findings.push(found(
                    known::CONCURRENCY_REAL_STATES,
                    format!(
                        "after the rename of {old} to {new} (answered {}), {gone} {} and {kept} {}",
                        if renamed { "ok" } else { "with an error" },
                        if at_gone.is_some() {
                            "still exists"
                        } else {
                            "is gone"
                        },
                        if at_kept.as_ref() == Some(&want) {
                            "holds the file"
                        } else {
                            "does not hold the file"
                        }
                    ),
                    None,
                ));
            }
        }
        Race::DeleteCreate {
            folder,
            old,
            new,
            answers,
            at_old,
            at_new,
        } => {
            let (deleted, created) = (ok(answers, 0), ok(answers, 1));
            if deleted && at_old.is_some() {
                findings.push(found(
                    known::CONCURRENCY_NO_LOST_UPDATE,
                    format!("the delete of {folder} was acknowledged, but {old} is still there"),
                    None,
                ));
            }
            if let Some(lines) = &at_new
                && (!created || *lines != vec!["new".to_string()])
            {
                findings.push(found(
                    known::CONCURRENCY_REAL_STATES,
                    format!(
                        "{new} reads as {lines:?}, though its create {}",
                        if created {
                            "wrote `new`"
                        } else {
                            "was refused"
                        }
                    ),
                    None,
                ));
            }
            if created && !deleted && at_new.is_none() {
                findings.push(found(
                    known::CONCURRENCY_NO_LOST_UPDATE,
                    format!("the create of {new} was acknowledged and the delete of {folder} refused, but {new} is gone"),
                    None,
                ));
            }
        }
    }
    findings
}
