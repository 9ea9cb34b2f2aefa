//! A restart judged across its event: the effects are read through the same witness (the
//! backend's own `view`) just before the processes stop and again from the new process, and
//! only what changed across the restart belongs to `persistence.restart`. A difference already
//! there before it is a fault of the writes that made the state, graded under the rule of the
//! setup call that made it (so a create that writes the wrong bytes is one root cause, not a
//! second one "after a restart"); a memory rolled back, rewritten or gone across the restart is
//! a lost memory, as the crash lane calls the same state.

use super::super::effects::{self, Before};
use super::super::witness::Seen;
use super::super::{Cause, Check, Finding};
use crate::spec::Graded;
use crate::suite::case::Effect;

/// How the reads before the event are named in a finding.
const BEFORE: &str = "read back with view before a restart";
/// How the reads after it are.
const AFTER: &str = "read back with view after a restart";

/// The findings of a restart case's effects: `before` and `after` are the same reads (one per
/// effect, in order) before the restart and from the new process. `made_by` is, per effect, the
/// rule of the setup call that last made its path (the effect's own rule when none did).
pub(super) fn judge(
    effects: &[(&Effect, &Graded)],
    made_by: &[&Graded],
    before: &[Seen],
    after: &[Seen],
    history: &Before,
    writes: &Graded,
    on_folder: bool,
) -> Vec<Finding> {
    // The state before the event, graded as the writes that made it: a case's own root. On a
    // folder the disk is the writes' witness (the other cases read it) and no probe tells the
    // view's fault from the writer's, so a view that differs there blames no write.
    let as_made: Vec<(&Effect, &Graded)> = effects
        .iter()
        .zip(made_by)
        .map(|(&(effect, _), &rule)| (effect, rule))
        .collect();
    let mut findings = if on_folder {
        Vec::new()
    } else {
        effects::judge(&as_made, before, history, writes, false, BEFORE)
    };
    for ((&(effect, graded), before), after) in effects.iter().zip(before).zip(after) {
        if !changed(before, after) {
            continue;
        }
        let message = format!("{AFTER}, {} should be", effect.path);
        // Unreadable before: nothing to compare with, so a content difference is graded as it
        // reads; a memory gone is gone either way.
        let check = match (before, after) {
            (Seen::Unverified(_), Seen::Differs(_)) => Check::Effect,
            _ => Check::Lost,
        };
        let Some(mut finding) =
            effects::seen_finding(check, graded, message, &effect.expect, after.clone())
        else {
            continue;
        };
        if check == Check::Lost {
            finding
                .message
                .push_str(", as it was before the restart (memory lost across the restart)");
        }
        // Wrong before the event and otherwise wrong after it: would it differ had the state
        // been right before? That is not known, so it follows the fault already there.
        if !matches!(before, Seen::Holds | Seen::Unverified(_))
            && let Some(cause) = findings.iter().find(|f| {
                f.message
                    .starts_with(&format!("{BEFORE}, {} ", effect.path))
            })
        {
            finding.follows = Some(Cause {
                rule: cause.rule.clone(),
                step: None,
            });
        }
        findings.push(finding);
    }
    findings
}

/// Whether what the new process serves is a change from what the old one served: a read that
/// is wrong now and was not wrong the same way before. A view that is fine now, or one the
/// witness could not read, is no change it can grade; a fault of the view alone (the bytes
/// probed right) is the view's, found by the cases that view.
fn changed(before: &Seen, after: &Seen) -> bool {
    match after {
        Seen::Holds | Seen::Unverified(_) | Seen::ViewWrong(_) => false,
        Seen::Differs(_) | Seen::Missing(_) | Seen::Cut(_) => before != after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{Level, RuleId, known};
    use crate::suite::case::EffectKind;

    fn graded(rule: RuleId) -> Graded {
        Graded {
            rule,
            level: Level::Must,
        }
    }

    fn file(path: &str, text: &str) -> Effect {
        Effect {
            path: path.to_string(),
            expect: EffectKind::FileText(text.to_string()),
            user: None,
            rule: None,
        }
    }

    #[test]
    fn a_state_wrong_before_the_restart_is_the_writes_fault_and_no_loss() {
        let restart = graded(known::PERSISTENCE_RESTART);
        let create = graded(known::CREATE_WRITES_FILE_TEXT);
        let effect = file("/memories/keep.md", "keep me\n");
        let wrong = Seen::Differs("\"keep me\\n\\n\"".to_string());
        let findings = judge(
            &[(&effect, &restart)],
            &[&create],
            std::slice::from_ref(&wrong),
            std::slice::from_ref(&wrong),
            &Before::default(),
            &create,
            false,
        );
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].rule.as_str(), "create.writes-file-text");
        assert!(findings[0].message.starts_with(BEFORE), "{findings:?}");
    }

    #[test]
    fn a_memory_right_before_and_gone_after_is_lost_across_the_restart() {
        let restart = graded(known::PERSISTENCE_RESTART);
        let rename = graded(known::RENAME_MOVES);
        let effect = file("/memories/final.md", "done\n");
        let findings = judge(
            &[(&effect, &restart)],
            &[&rename],
            &[Seen::Holds],
            &[Seen::Missing("Error: not found".to_string())],
            &Before::default(),
            &rename,
            false,
        );
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].rule.as_str(), "persistence.restart");
        assert_eq!(findings[0].check, Check::Lost);
        assert!(findings[0].follows.is_none());
    }

    #[test]
    fn a_view_unreadable_on_both_sides_is_no_change() {
        let restart = graded(known::PERSISTENCE_RESTART);
        let effect = file("/memories/a.md", "a\n");
        let unread = Seen::Unverified("a view in a format the witness does not read".into());
        let findings = judge(
            &[(&effect, &restart)],
            &[&restart],
            std::slice::from_ref(&unread),
            std::slice::from_ref(&unread),
            &Before::default(),
            &restart,
            false,
        );
        assert!(
            findings.iter().all(|f| f.level == Level::Info),
            "{findings:?}"
        );
    }
}
