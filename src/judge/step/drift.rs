//! Drift: the memory paths whose state differs between one side (the backend, the recording)
//! and the reference, and which of a replayed step's differences follow from an earlier step.

use crate::exec::tree::Difference;
use crate::judge::cascade::CHANGES_STORE;
use crate::judge::{Check, Finding, Pair};
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

/// Whether an input naming memory path `a` reads or writes what is at memory path `b`: the
/// same path, one below the other (a listing of a folder above, a file in a moved folder).
fn touches(a: &str, b: &str) -> bool {
    let below =
        |x: &str, y: &str| x.len() > y.len() && x.starts_with(y) && x[y.len()..].starts_with('/');
    a == b || a.is_empty() || b.is_empty() || below(a, b) || below(b, a)
}

/// The memory paths whose state differs between one side (the backend, the recording) and the
/// reference, each with the step (1-based) that first made it differ; and the wording
/// differences that side showed where the stores agreed.
///
/// The rule: a difference (above INFO, not in the security lane) at a later step whose input
/// names a drifted path, a folder above one or a path below one follows from the earliest
/// such path's step, unless it is a text difference under a (command, rule) this side already
/// showed on an equal store: that wording would differ without the drift.
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
    /// names; a MUST difference that follows nothing shows that those paths already differ;
    /// a create, delete or rename that both sides did brings a path back in line, or moves
    /// its drift.
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
        let cause = self.cause(at).unwrap_or(at.number);
        let differs = CHANGES_STORE.contains(&at.command) && failed != at.reference_failed;
        let shows = divergences.iter().any(|d| {
            d.pair == Some(pair) && !d.security && d.cascade_of.is_none() && d.level == Level::Must
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
