//! A fuzz run as a [`Report`], rendered by the one reporter in every format `check` writes: one
//! result per divergence (its shrunk calls and finding), with what only fuzz knows as the
//! result's notes (how it was shrunk, its steps, where it was kept, whether the kept case shows
//! it through `memspec check --cases`) and the run's as the report's (seed, rate, sequences
//! stopped where the spec leaves the answer open).

use std::fmt::Write;
use std::time::Duration;

use super::{Report, plural};
use crate::fuzz::keep::Confirmed;
use crate::fuzz::{Discovery, FuzzReport};
use crate::judge::Fact;
use crate::judge::grade::{CallRecord, CaseResult, Outcome, Phase};

/// The one-line command that runs the same fuzz again: the backend's flags, the revision, the
/// seed, and a step budget that reaches the sequence the divergence was found in.
pub fn rerun(backend_args: &[String], report: &FuzzReport) -> String {
    let mut command = String::from("memspec fuzz");
    for arg in backend_args {
        command.push(' ');
        command.push_str(&super::shell_quote(arg));
    }
    let _ = write!(
        command,
        " --revision {} --seed {}",
        report.revision, report.seed
    );
    if report.clients > 1 {
        let _ = write!(command, " --clients {}", report.clients);
    }
    if report.users > 1 {
        let _ = write!(command, " --users {}", report.users);
    }
    command
}

/// The run as a report: one result per divergence (its shrunk calls, its finding, its notes), so
/// that every format renders it as `check`'s. `confirmed` is, per divergence, how its kept case
/// ran on the backend and on the reference; `rerun` the command that runs the same fuzz again.
/// A divergence is a fact that differs, so SHOULD ones fail too (the run is strict), as the
/// exit code says.
pub fn as_report(
    report: &FuzzReport,
    confirmed: &[Option<Confirmed>],
    repro_args: Vec<String>,
    rerun: String,
) -> Report {
    let results = report
        .divergences
        .iter()
        .enumerate()
        .map(|(index, divergence)| {
            let found = &divergence.found;
            let id = divergence.kept.as_ref().map_or_else(
                || format!("fuzz.{}-{}", found.differs().slug(), divergence.sequence),
                |k| k.id.clone(),
            );
            let outcome = if found.differs() == Fact::Broke {
                Outcome::Error
            } else {
                Outcome::for_level(found.level, true)
            };
            CaseResult {
                outcome,
                reason: (outcome == Outcome::Error).then(|| found.message.clone()),
                // The finding's step is its call's place among the calls (a fill is many).
                findings: vec![found.clone().at(Some(divergence.at_call))],
                calls: divergence
                    .actions
                    .iter()
                    .flat_map(|action| {
                        let user = divergence.users.get(action.user()).cloned();
                        action
                            .calls()
                            .into_iter()
                            .map(move |input| (user.clone(), input))
                    })
                    .map(|(user, input)| CallRecord {
                        phase: Phase::Step,
                        input,
                        result: None,
                        error: None,
                        backend_time: Duration::ZERO,
                        user,
                    })
                    .collect(),
                notes: notes(divergence, confirmed.get(index).cloned().flatten()),
                ..CaseResult::new(
                    id,
                    "fuzz",
                    format!("{}: {}", found.differs().label(), found.message),
                    found.level,
                    vec![found.rule.to_string()],
                )
            }
        })
        .collect();
    Report {
        backend: report.backend.clone(),
        revision: report.revision,
        repro_args,
        strict: true,
        results,
        baseline_problems: Vec::new(),
        elapsed: report.elapsed,
        workers: 1,
        notes: run_notes(report),
        rerun: Some(rerun),
        run: super::Run::Fuzz,
        fuzzed: Some(Fuzzed::of(report)),
    }
}

/// What a fuzz run did, counted for its closing line: `check`'s `0 passed, 0 failed, …` would
/// count nothing fuzz does (its results are only the divergences it found).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fuzzed {
    /// Whether the run raced clients (its sequences are races).
    pub races: bool,
    /// Sequences (or races) run.
    pub sequences: usize,
    /// Tool calls made on the backend.
    pub steps: usize,
    /// Divergences found, one per kind and rule.
    pub divergences: usize,
    /// Of them, those shrunk to fewer steps by replaying.
    pub shrunk: usize,
    /// Findings seen again after the first of their kind and rule.
    pub repeats: usize,
    /// Sequences stopped early where the spec leaves the answer open.
    pub stopped: usize,
    /// Races not run (a setup the store refused, clients that share no store), counted among
    /// `sequences` too.
    pub races_not_run: usize,
}

impl Fuzzed {
    /// The counts of `report`.
    pub fn of(report: &FuzzReport) -> Fuzzed {
        Fuzzed {
            races: report.clients > 1,
            sequences: report.sequences,
            steps: report.steps,
            divergences: report.divergences.len(),
            shrunk: report
                .divergences
                .iter()
                .filter(|d| d.shrink_trials > 0)
                .count(),
            repeats: report.repeats,
            stopped: report.open.values().sum(),
            races_not_run: report.races_not_run.values().sum(),
        }
    }

    /// `fuzzed: 1517 sequences, 184206 steps; 2 divergences (1 shrunk), 4 findings seen again`,
    /// with the sequences stopped early when there are any; with clients, the races run and
    /// those not run (a race not run is counted among the sequences, but raced nothing).
    pub fn line(&self) -> String {
        let ran = if self.races {
            let run = self.sequences.saturating_sub(self.races_not_run);
            let mut ran = format!("{} run", plural(run, "race", "races"));
            if self.races_not_run > 0 {
                let _ = write!(ran, " ({} not run)", self.races_not_run);
            }
            ran
        } else {
            plural(self.sequences, "sequence", "sequences")
        };
        let mut line = format!(
            "fuzzed: {ran}, {}; {}",
            plural(self.steps, "step", "steps"),
            plural(self.divergences, "divergence", "divergences"),
        );
        if self.divergences > 0 {
            let _ = write!(line, " ({} shrunk)", self.shrunk);
        }
        let _ = write!(
            line,
            ", {} seen again",
            plural(self.repeats, "finding", "findings")
        );
        if self.stopped > 0 {
            let _ = write!(
                line,
                "; {} stopped early where the spec leaves the answer open",
                plural(self.stopped, "sequence", "sequences")
            );
        }
        line
    }
}

/// What the run did: its seed and clients, how much it ran and how fast, the sequences that
/// stopped where the spec leaves the answer open, and the findings seen again.
fn run_notes(report: &FuzzReport) -> Vec<String> {
    let seconds = report.elapsed.as_secs_f64();
    let rate = if seconds > 0.0 {
        report.steps as f64 / seconds
    } else {
        0.0
    };
    let share = if seconds > 0.0 {
        (report.backend_time.as_secs_f64() / seconds * 100.0).min(100.0)
    } else {
        0.0
    };
    let unit = if report.clients > 1 {
        ("race", "races")
    } else {
        ("sequence", "sequences")
    };
    let mut notes = vec![format!(
        "memspec fuzz, seed {}{}: {}, {} in {seconds:.1} s ({rate:.0} steps/s; the backend's share {share:.0}%)",
        report.seed,
        if report.clients > 1 {
            format!(", {} clients per store", report.clients)
        } else if report.users > 1 {
            format!(", {} users per store", report.users)
        } else {
            String::new()
        },
        plural(report.sequences, unit.0, unit.1),
        plural(report.steps, "step", "steps"),
    )];
    let open: usize = report.open.values().sum();
    if open > 0 {
        notes.push(format!(
            "{} stopped early where the spec leaves the answer open (not findings)",
            plural(open, "sequence", "sequences")
        ));
    }
    for (why, n) in &report.races_not_run {
        notes.push(format!("{} not run: {why}", plural(*n, "race", "races")));
    }
    if report.repeats > 0 {
        notes.push(format!(
            "{} seen again after the first of their kind and rule",
            plural(report.repeats, "finding", "findings")
        ));
    }
    notes
}

/// What only fuzz knows of one divergence: where it was found and how it was shrunk, its steps
/// (the one that shows it marked), a race's calls, where it was kept or why not, and how the
/// kept case ran.
fn notes(divergence: &Discovery, confirmed: Option<Confirmed>) -> Vec<String> {
    let mut notes = vec![if divergence.actions.is_empty() {
        format!("race {}", divergence.sequence)
    } else if divergence.shrink_trials == 0 {
        format!(
            "sequence {}, {} as found, not shrunk:",
            divergence.sequence,
            plural(divergence.steps.len(), "step", "steps")
        )
    } else {
        format!(
            "sequence {}, shrunk from {} to {} in {} replays:",
            divergence.sequence,
            plural(divergence.found_after, "step", "steps"),
            divergence.steps.len(),
            divergence.shrink_trials
        )
    }];
    for (n, step) in divergence.steps.iter().enumerate() {
        let mark = if n == divergence.at_step && !divergence.actions.is_empty() {
            "  ← here"
        } else {
            ""
        };
        notes.push(format!(" {:>2}. {step}{mark}", n + 1));
    }
    notes.extend(
        divergence
            .log
            .iter()
            .take(12)
            .map(|line| format!("     {line}")),
    );
    if let Some((case, transcript)) = &divergence.files {
        let folder = case
            .parent()
            .map_or_else(|| ".".to_string(), |p| p.display().to_string());
        notes.push(match transcript {
            Some(transcript) => format!(
                "kept: {} (case; `memspec check --cases {folder}`), {} (transcript; `memspec replay`)",
                case.display(),
                transcript.display()
            ),
            None => format!(
                "kept: {} (case of {}; `memspec check --cases {folder}`; no transcript: a replay is one user's)",
                case.display(),
                plural(divergence.users.len(), "user", "users")
            ),
        });
    }
    if let Some(why) = &divergence.not_kept {
        notes.push(format!("not kept: {why}"));
    }
    if let Some(confirmed) = confirmed {
        notes.push(format!(
            "as a case: {} on the backend, {} on the reference{}",
            confirmed.backend.as_str(),
            confirmed.reference.as_str(),
            match (confirmed.reproduces(), divergence.users.is_empty()) {
                (true, _) => "",
                (false, true) => " (the case's checks do not show it; the transcript does)",
                // What differed beside the others may be no text a case can forbid (a listing
                // that lost its `(empty)` line).
                (false, false) => " (the case's checks do not show it; the rerun command does)",
            }
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closing_line_counts_what_fuzz_did() {
        let sequences = Fuzzed {
            sequences: 27,
            steps: 3528,
            divergences: 2,
            shrunk: 1,
            repeats: 4,
            stopped: 3,
            ..Fuzzed::default()
        };
        assert_eq!(
            sequences.line(),
            "fuzzed: 27 sequences, 3528 steps; 2 divergences (1 shrunk), 4 findings seen again; 3 sequences stopped early where the spec leaves the answer open"
        );
        let races = Fuzzed {
            races: true,
            sequences: 5,
            steps: 40,
            races_not_run: 1,
            ..Fuzzed::default()
        };
        assert_eq!(
            races.line(),
            "fuzzed: 4 races run (1 not run), 40 steps; 0 divergences, 0 findings seen again"
        );
    }
}
