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
use crate::spec::{Level, Revision, RuleId, Spec, known};

/// What a race showed: each client's answers (client 0 first, in the order of its calls), and
/// the lines the files read as afterwards (`None`: the view failed or shows no numbered lines).
pub enum Race<'a> {
    /// Every client created `path` with the text `client N\n`.
    CreateCreate {
        /// The path.
        path: &'a str,
        /// A file client 0 created alone first, with `client 0\n`: how the store reads a
        /// create made with no race.
        control: &'a str,
        /// `control` read back before the race.
        before: Option<Vec<String>>,
        /// Each client's answers.
        answers: &'a [Vec<ToolResult>],
        /// The file afterwards.
        read: Option<Vec<String>>,
    },
    /// Client N replaced line `line NNN` of `path` with `LINE NNN`.
    EditEdit {
        /// The path.
        path: &'a str,
        /// The text client 0 created it with before the race.
        text: &'a str,
        /// `path` read back before the race.
        before: Option<Vec<String>>,
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
        /// `old` read back before the race.
        before: Option<Vec<String>>,
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
        /// `old` (created with `old\n`) read back before the race.
        before: Option<Vec<String>>,
        /// Each client's answers.
        answers: &'a [Vec<ToolResult>],
        /// `old` afterwards.
        at_old: Option<Vec<String>>,
        /// `new` afterwards.
        at_new: Option<Vec<String>>,
    },
}

impl Race<'_> {
    /// The file made before the race, the text it was made with, and how it read back before
    /// the concurrent calls: the state the race is judged against.
    fn made(&self) -> (&str, &str, Option<&[String]>) {
        match self {
            Race::CreateCreate {
                control, before, ..
            } => (control, "client 0\n", before.as_deref()),
            Race::EditEdit {
                path, text, before, ..
            } => (path, text, before.as_deref()),
            Race::RenameView {
                old,
                content,
                before,
                ..
            } => (old, content, before.as_deref()),
            Race::DeleteCreate { old, before, .. } => (old, "old\n", before.as_deref()),
        }
    }
}

/// What did not hold after the race, judged across it: the file made before the race is read
/// back first, through the view the race's state is read with. Only a store that reads right
/// before the race is judged: a view the witness cannot read, or a file that already reads
/// other than its text, leaves the race unjudged (INFO, saying why). The fault is then before
/// the race, not in it, and one view cannot tell a wrong create from a wrong view: the cases,
/// which read the disk or probe the bytes, find it as its own root.
pub(super) fn judge(race: Race<'_>, spec: &Spec) -> Vec<Finding> {
    let (path, text, before) = race.made();
    let want: Vec<String> = lines_of(text).into_iter().map(String::from).collect();
    let unjudged = |why: String| {
        vec![
            Finding::new(
                Check::Effect,
                Level::Info,
                known::CONCURRENCY_REAL_STATES,
                format!(
                    "unverified: {path}, created before the race, {why}, so the race was not judged"
                ),
            )
            .with_fact(Fact::Race),
        ]
    };
    match before {
        None => unjudged(
            "reads as no lines the witness can read (the view failed or numbers no lines)"
                .to_string(),
        ),
        // What the view showed is the backend's text: quoted bounded.
        Some(before) if before != want.as_slice() => unjudged(format!(
            "reads as {}, not as the {text:?} it was created with (the cases tell whether the create or the view is wrong)",
            witness::excerpt(&before.join("\n"))
        )),
        Some(_) => raced(race, spec),
    }
}

/// What did not hold after the race, on a store that read right before it.
fn raced(race: Race<'_>, spec: &Spec) -> Vec<Finding> {
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
            ..
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
            ..
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
            ..
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
            ..
        } => {
            let (deleted, created) = (ok(answers, 0), ok(answers, 1));
            // The delete undone: no memory is lost, a state no order of the calls makes.
            if deleted && at_old.is_some() {
                findings.push(found(
                    known::CONCURRENCY_REAL_STATES,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> Spec {
        Spec::builtin(Revision::Ga2026).unwrap_or_default()
    }

    fn lines(items: &[&str]) -> Option<Vec<String>> {
        Some(items.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn a_file_wrong_before_the_race_leaves_it_unjudged() {
        let answers = vec![
            vec![ToolResult::ok("created")],
            vec![ToolResult::ok("created")],
        ];
        let race = Race::CreateCreate {
            path: "/memories/r/one.txt",
            control: "/memories/r/alone.txt",
            before: lines(&["client 0", ""]),
            answers: &answers,
            read: lines(&["client 1", ""]),
        };
        let found = judge(race, &spec());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].level, Level::Info);
        assert!(found[0].message.contains("not as the"), "{found:?}");
    }

    #[test]
    fn a_view_the_witness_cannot_read_leaves_the_race_unjudged() {
        let answers = vec![vec![ToolResult::ok("ok")], vec![ToolResult::ok("ok")]];
        let race = Race::EditEdit {
            path: "/memories/r/lines.txt",
            text: "line 000\nline 001\n",
            before: None,
            answers: &answers,
            read: None,
        };
        let found = judge(race, &spec());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].level, Level::Info);
        assert!(found[0].message.starts_with("unverified: "), "{found:?}");
    }

    #[test]
    fn a_lost_edit_on_a_store_right_before_the_race_is_its_own_root() {
        let answers = vec![vec![ToolResult::ok("ok")], vec![ToolResult::ok("ok")]];
        let race = Race::EditEdit {
            path: "/memories/r/lines.txt",
            text: "line 000\nline 001\n",
            before: lines(&["line 000", "line 001"]),
            answers: &answers,
            read: lines(&["LINE 000", "line 001"]),
        };
        let found = judge(race, &spec());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].rule, known::CONCURRENCY_NO_LOST_UPDATE);
        assert!(found[0].follows.is_none());
    }
}
