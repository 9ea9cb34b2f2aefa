//! Drift: the memory paths whose state differs between one side (the backend, the recording)
//! and the reference, and which of a replayed step's differences follow from an earlier step.

use crate::exec::tree::Difference;
use crate::judge::cascade::CHANGES_STORE;
use crate::judge::effects;
use crate::judge::model::ROOT;
use crate::judge::{Check, Finding, Harm, Pair};
use crate::spec::Level;

/// One step, as the drift sees it.
pub(super) struct At<'a> {
    /// 1-based.
    pub(super) number: usize,
    pub(super) command: &'a str,
    /// The memory paths it names, relative to the root (`""` the root).
    pub(super) paths: &'a [String],
    pub(super) reference_failed: bool,
}

/// Whether an input naming memory path `a` reads or writes what is at memory path `b` (both
/// relative to the root, `""` the root): the same path, one below the other (a listing of a
/// folder above, a file in a moved folder), as [`effects::related`] tells for full paths.
fn touches(a: &str, b: &str) -> bool {
    let full = |path: &str| match path {
        "" => ROOT.to_string(),
        path => format!("{ROOT}/{path}"),
    };
    effects::related(&full(a), &full(b))
}

/// The memory paths whose state differs between one side (the backend, the recording) and the
/// reference, each with the step (1-based) that first made it differ; and the wording
/// differences that side showed where the stores agreed.
///
/// The rule: a difference (above INFO, not in the security lane) at a later step whose input
/// names a drifted path, a folder above one or a path below one follows from the earliest
/// such path's step, unless it is a text difference under a (command, rule) this side already
/// showed on an equal store: that wording would differ without the drift. A step that only
/// reads starts no drift by what it shows wrong, which may be its own fault (a view that
/// formats lines its own way shows it on every file), unless it shows a memory lost: a fact of
/// the store, which an earlier write left (a rename that moved a file where it cannot be
/// read), so what later steps see of that path follows it.
#[derive(Debug, Default)]
pub(super) struct Drift {
    paths: std::collections::BTreeMap<String, usize>,
    wording: std::collections::HashSet<(String, String)>,
}

impl Drift {
    fn cause(&self, at: &At<'_>) -> Option<usize> {
        self.paths
            .iter()
            .filter(|(drifted, _)| at.paths.iter().any(|p| touches(p, drifted)))
            .map(|(_, step)| *step)
            .filter(|step| *step < at.number)
            .min()
    }

    /// Marks `pair`'s differences at `at` that follow from an earlier step.
    pub(super) fn mark(&mut self, pair: Pair, at: &At<'_>, divergences: &mut [Finding]) {
        let cause = self.cause(at);
        for divergence in divergences
            .iter_mut()
            .filter(|d| d.pair == Some(pair) && d.counts() && !d.security)
        {
            let text = divergence.check == Check::Text;
            let key = (at.command.to_string(), divergence.rule.to_string());
            match cause {
                Some(step) if !(text && self.wording.contains(&key)) => {
                    divergence.cascade_of = Some(step);
                }
                Some(_) => {}
                None if text => {
                    self.wording.insert(key);
                }
                None => {}
            }
        }
    }

    /// After a step of a backend on a folder: the folders' own differences say what drifts.
    pub(super) fn follow_folder(&mut self, at: &At<'_>, differences: &[(String, Difference)]) {
        let cause = self.cause(at).unwrap_or(at.number);
        let mut now = std::collections::BTreeMap::new();
        for (path, _) in differences {
            let step = self.paths.get(path).copied().unwrap_or(cause);
            now.insert(path.clone(), step);
        }
        self.paths = now;
    }

    /// After a step of a side without a folder: its outcomes say what drifts. A command that
    /// changes the store and came out otherwise than the reference's drifts the paths it
    /// names, and so does a MUST difference of such a command that follows nothing; a step
    /// that only reads starts a drift only when it shows a memory lost (what else it shows
    /// wrong may be the reader's own fault); a create, delete or rename that both sides did
    /// brings a path back in line, or moves its drift.
    pub(super) fn follow_outcome(
        &mut self,
        pair: Pair,
        at: &At<'_>,
        failed: Option<bool>,
        divergences: &[Finding],
    ) {
        let Some(failed) = failed else {
            return;
        };
        let writes = CHANGES_STORE.contains(&at.command);
        let cause = self.cause(at).unwrap_or(at.number);
        let differs = writes && failed != at.reference_failed;
        let shows = divergences.iter().any(|d| {
            d.pair == Some(pair)
                && !d.security
                && d.cascade_of.is_none()
                && d.level == Level::Must
                && (writes || d.harm() == Harm::Loss)
        });
        if differs || shows {
            for path in at.paths {
                self.paths.entry(path.clone()).or_insert(cause);
            }
            return;
        }
        if failed || at.reference_failed {
            return;
        }
        match (at.command, at.paths) {
            ("create", [path]) => {
                self.paths.remove(path);
            }
            ("delete", [path]) => self
                .paths
                .retain(|p, _| !touches(path, p) || p.len() < path.len()),
            ("rename", [old, new]) => {
                let moved: Vec<(String, usize)> = self
                    .paths
                    .iter()
                    .filter(|(p, _)| touches(old, p) && p.len() >= old.len())
                    .map(|(p, step)| (format!("{new}{}", &p[old.len()..]), *step))
                    .collect();
                self.paths
                    .retain(|p, _| !(touches(old, p) && p.len() >= old.len()));
                self.paths.extend(moved);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::known;

    const PAIR: Pair = Pair::BackendReference;

    /// Steps of a store that is not a folder, each answered as the reference answered, with
    /// the finding `found` gives each (1-based) step, if any; what each step follows.
    fn follows_with(
        steps: &[(&str, &str)],
        found: impl Fn(usize) -> Option<Finding>,
    ) -> Vec<Option<usize>> {
        let mut drift = Drift::default();
        steps
            .iter()
            .enumerate()
            .map(|(i, (command, path))| {
                let number = i + 1;
                let paths = [path.to_string()];
                let at = At {
                    number,
                    command,
                    paths: &paths,
                    reference_failed: false,
                };
                let mut found: Vec<Finding> =
                    found(number).map(|f| f.between(PAIR)).into_iter().collect();
                drift.mark(PAIR, &at, &mut found);
                drift.follow_outcome(PAIR, &at, Some(false), &found);
                found.first().and_then(|f| f.cascade_of)
            })
            .collect()
    }

    /// As [`follows_with`], with a MUST text difference at the steps listed in `differ`.
    fn follows(steps: &[(&str, &str)], differ: &[usize]) -> Vec<Option<usize>> {
        follows_with(steps, |number| {
            differ
                .contains(&number)
                .then(|| Finding::new(Check::Text, Level::Must, known::VIEW_MISSING, "differs"))
        })
    }

    #[test]
    fn a_read_starts_no_cascade_of_its_own() {
        // The view at 3 shows a difference on a.txt: the later edit of a.txt does not follow
        // it (the view changed nothing), nor does b.txt's.
        let steps = [
            ("create", "a.txt"),
            ("create", "b.txt"),
            ("view", "a.txt"),
            ("str_replace", "a.txt"),
            ("str_replace", "b.txt"),
        ];
        assert_eq!(follows(&steps, &[3, 4, 5]), [None, None, None, None, None]);
        let steps = [("view", "c.txt"), ("view", "c.txt"), ("create", "c.txt")];
        assert_eq!(follows(&steps, &[1, 2, 3]), [None, None, None]);
    }

    #[test]
    fn a_read_that_shows_a_memory_lost_starts_one() {
        // A rename both sides acknowledged; the view of its destination shows the memory gone:
        // the listing after it follows the loss, the unrelated file's view does not.
        let steps = [
            ("rename", "e"),
            ("view", "e/a.txt"),
            ("view", ""),
            ("view", "f.txt"),
        ];
        let shown = follows_with(&steps, |number| match number {
            1 => None,
            2 => Some(Finding::new(
                Check::Lost,
                Level::Must,
                known::RENAME_MOVES,
                "gone",
            )),
            _ => Some(Finding::new(
                Check::Text,
                Level::Must,
                known::VIEW_MISSING,
                "x",
            )),
        });
        assert_eq!(shown, [None, None, Some(2), None]);
    }

    #[test]
    fn a_path_touches_itself_what_is_above_and_below_it_only() {
        assert!(touches("a", "a"));
        assert!(touches("", "a/b"));
        assert!(touches("a", "a/b"));
        assert!(touches("a/b", "a"));
        assert!(!touches("a", "ab"));
        assert!(!touches("a/b", "a/c"));
    }

    #[test]
    fn a_write_that_shows_a_difference_starts_one() {
        let steps = [
            ("create", "a.txt"),
            ("view", "a.txt"),
            ("view", ""),
            ("view", "b.txt"),
        ];
        assert_eq!(
            follows(&steps, &[1, 2, 3, 4]),
            [None, Some(1), Some(1), None]
        );
    }
}
