//! Baselines: accepted deviations of one backend, each with a reason.
//!
//! A listed case whose outcome is exactly the listed one is accepted. Any other difference
//! fails the run: a listed case that now passes (a fixed bug must leave the list), a changed
//! outcome, an entry naming no case, or a deviation (even a warning) that is not listed. So a
//! baseline can only ever describe the backend exactly as it is.
//!
//! INFO outcomes are the exception: they never fail a run, so a baseline need not list them
//! (and `--write-baseline` does not). An INFO outcome it does not list is no difference, and an
//! INFO that changes (a listed `info` now passing, a listed deviation now only `info`) is a
//! note in the report, not a failure.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::judge::grade::{CaseResult, Outcome};
use crate::spec::Revision;
use crate::suite::load::Suite;

/// A baseline file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// Format version (1).
    pub schema: u32,
    /// Which backend (and version) this describes.
    #[serde(default)]
    pub backend: String,
    /// The revision of the page the outcomes were judged by; a baseline from before revisions
    /// existed was judged by the beta text.
    #[serde(default = "beta")]
    pub revision: Revision,
    /// The accepted deviations.
    pub accepted: Vec<Entry>,
}

fn beta() -> Revision {
    Revision::Beta2025
}

/// One accepted deviation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Case id.
    pub case: String,
    /// The outcome accepted (anything but `pass`).
    pub outcome: Outcome,
    /// Why it is accepted.
    pub reason: String,
}

/// Why a baseline could not be used.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    /// Reading or writing failed.
    #[error("cannot access the baseline {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The baseline was recorded under another revision of the page: its outcomes mean nothing
    /// under this one.
    #[error(
        "the baseline {path} was recorded under {recorded} and this run judges by {judged}; pass --revision {recorded}, or record a baseline for {judged} with --write-baseline"
    )]
    Revision {
        /// The file.
        path: PathBuf,
        /// The revision it records.
        recorded: Revision,
        /// The revision of the run.
        judged: Revision,
    },
    /// The file is not a baseline.
    #[error("{path} is not a valid baseline: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl Baseline {
    /// Reads a baseline file for a run judged by `revision`, refusing one recorded under
    /// another revision.
    pub fn read_for(path: &Path, revision: Revision) -> Result<Baseline, BaselineError> {
        let baseline = Baseline::read(path)?;
        if baseline.revision != revision {
            return Err(BaselineError::Revision {
                path: path.to_path_buf(),
                recorded: baseline.revision,
                judged: revision,
            });
        }
        Ok(baseline)
    }

    /// Reads and validates a baseline file.
    pub fn read(path: &Path) -> Result<Baseline, BaselineError> {
        let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let baseline: Baseline =
            serde_json::from_str(&text).map_err(|e| BaselineError::Invalid {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
        let mut seen = BTreeSet::new();
        for entry in &baseline.accepted {
            let problem = if !seen.insert(entry.case.as_str()) {
                Some(format!("case `{}` is listed twice", entry.case))
            } else if entry.outcome == Outcome::Pass {
                Some(format!(
                    "case `{}`: a baseline lists deviations; `pass` is not one",
                    entry.case
                ))
            } else if entry.reason.trim().is_empty() {
                Some(format!("case `{}` has no reason", entry.case))
            } else {
                None
            };
            if let Some(message) = problem {
                return Err(BaselineError::Invalid {
                    path: path.to_path_buf(),
                    message,
                });
            }
        }
        Ok(baseline)
    }

    /// Writes the baseline as pretty JSON.
    pub fn write(&self, path: &Path) -> Result<(), BaselineError> {
        let mut text = serde_json::to_string_pretty(self).map_err(|e| BaselineError::Invalid {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        text.push('\n');
        std::fs::write(path, text).map_err(|source| BaselineError::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// A baseline accepting every warning, failure and error of a run (INFO outcomes never fail
    /// a run and need no entry). Reasons are drawn from the findings; edit them to say why each
    /// deviation is acceptable.
    pub fn from_results(backend: &str, revision: Revision, results: &[CaseResult]) -> Baseline {
        let accepted = results
            .iter()
            .filter(|r| !matches!(r.outcome, Outcome::Pass | Outcome::Skip | Outcome::Info))
            .map(|r| Entry {
                case: r.id.clone(),
                outcome: r.outcome,
                reason: describe(r),
            })
            .collect();
        Baseline {
            schema: 1,
            backend: backend.to_string(),
            revision,
            accepted,
        }
    }

    /// Marks accepted results and returns every difference between the baseline and the run
    /// that fails it. Entries for cases that exist but were not selected are ignored; INFO
    /// changes are left to [`Baseline::notes`].
    pub fn apply(&self, suite: &Suite, results: &mut [CaseResult]) -> Vec<String> {
        let mut problems = Vec::new();
        // The races of `check --clients N` are results too, though no case file holds them.
        let races: Vec<String> = crate::race::RACES
            .iter()
            .map(|race| format!("race.{race}"))
            .collect();
        let known: BTreeSet<&str> = suite
            .cases
            .iter()
            .map(|c| c.case.id.as_str())
            .chain(races.iter().map(String::as_str))
            .collect();
        let mut entries: BTreeMap<&str, &Entry> = BTreeMap::new();
        for entry in &self.accepted {
            if known.contains(entry.case.as_str()) {
                entries.insert(entry.case.as_str(), entry);
            } else {
                problems.push(format!(
                    "entry `{}` names no case in the suite (renamed or removed?)",
                    entry.case
                ));
            }
        }
        for result in results.iter_mut() {
            match entries.get(result.id.as_str()) {
                Some(entry) if entry.outcome == result.outcome => result.baselined = Some(entry.reason.clone()),
                Some(entry) if info_change(entry, result) || race_unseen(entry, result) => {}
                Some(entry) if result.outcome == Outcome::Pass => problems.push(format!(
                    "case `{}` now passes but the baseline accepts `{}`: remove the entry (fixed bugs must not hide)",
                    result.id,
                    entry.outcome.as_str()
                )),
                Some(entry) => problems.push(format!(
                    "case `{}`: the baseline accepts `{}`, the run gave `{}`",
                    result.id,
                    entry.outcome.as_str(),
                    result.outcome.as_str()
                )),
                // With a baseline the run must match it exactly: an unlisted deviation, even a
                // warning, is a difference (so that removing any entry makes the run fail).
                None if !matches!(result.outcome, Outcome::Pass | Outcome::Skip | Outcome::Info) => problems.push(format!(
                    "case `{}` gave `{}` but the baseline does not list it",
                    result.id,
                    result.outcome.as_str()
                )),
                None => {}
            }
        }
        problems
    }

    /// The INFO changes between the baseline and `results` (as marked by [`Baseline::apply`]):
    /// reported, never failed.
    pub fn notes(&self, results: &[CaseResult]) -> Vec<String> {
        let entries: BTreeMap<&str, &Entry> =
            self.accepted.iter().map(|e| (e.case.as_str(), e)).collect();
        results
            .iter()
            .filter_map(|result| {
                let entry = entries.get(result.id.as_str())?;
                if race_unseen(entry, result) {
                    return Some(format!(
                        "baseline: race `{}` is listed as `{}` and did not show this run: a race shows only when the clients' calls meet (not a fix; the entry stays)",
                        result.id,
                        entry.outcome.as_str()
                    ));
                }
                info_change(entry, result).then(|| {
                    format!(
                        "baseline: case `{}` is listed as `{}` and gave `{}` (INFO never fails a run: update or drop the entry)",
                        result.id,
                        entry.outcome.as_str(),
                        result.outcome.as_str()
                    )
                })
            })
            .collect()
    }
}

/// Whether the difference between an entry and a result is only about INFO: a listed `info`
/// that now passes or is skipped, or a listed deviation that is now only `info`. Neither can
/// fail a run, so neither fails it against a baseline.
fn info_change(entry: &Entry, result: &CaseResult) -> bool {
    entry.outcome != result.outcome
        && matches!(
            (entry.outcome, result.outcome),
            (Outcome::Info, Outcome::Pass | Outcome::Skip) | (_, Outcome::Info)
        )
}

/// Whether a listed race passed this run: it shows only when the clients' calls meet, which
/// no run can force, so passing once is no fix (and no problem against the baseline).
fn race_unseen(entry: &Entry, result: &CaseResult) -> bool {
    result.area == "races" && result.outcome == Outcome::Pass && entry.outcome != Outcome::Pass
}

/// A first draft of an entry's reason: what each finding saw, with the backend's own words.
fn describe(result: &CaseResult) -> String {
    if let Some(reason) = &result.reason {
        return reason.clone();
    }
    let mut parts: Vec<String> = result
        .findings
        .iter()
        .map(|f| {
            let said = f.actual.as_deref().map(first_words).unwrap_or_default();
            match &f.dialect {
                Some(d) => format!("{}: answers in the `{d}` dialect: {said}", f.rule),
                None if said.is_empty() => format!("{}: {}", f.rule, f.message),
                None => format!("{}: {}: {said}", f.rule, f.message),
            }
        })
        .collect();
    parts.dedup();
    parts.join("; ")
}

/// The start of a text, on one line, for a reason. What differs from run to run (the
/// sandbox's path, the canaries' secret) is replaced by a placeholder so that the reason is
/// stable.
fn first_words(text: &str) -> String {
    static VOLATILE: std::sync::OnceLock<Option<(regex::Regex, regex::Regex)>> =
        std::sync::OnceLock::new();
    let mut flat = text.replace('\n', "⏎").replace('\t', "→");
    if let Some((sandbox, secret)) = VOLATILE.get_or_init(|| {
        Some((
            regex::Regex::new(r"/[^\s'\x22]*?/memspec-[A-Za-z0-9]{6}").ok()?,
            regex::Regex::new(r"MEMSPEC-CANARY-[0-9a-f]{16}").ok()?,
        ))
    }) {
        flat = sandbox.replace_all(&flat, "{base}").into_owned();
        flat = secret.replace_all(&flat, "<canary secret>").into_owned();
    }
    let mut short: String = flat.chars().take(140).collect();
    if flat.chars().count() > 140 {
        short.push('…');
    }
    format!("{short:?}")
}
