//! What a fuzz run tells: the human summary (seed, rate, findings by kind, each shrunk sequence,
//! the rerun command, and whether each kept case reproduces the divergence through `memspec
//! check --cases`), and the run as a check [`Report`] so that the JSON, JUnit, TAP, Markdown and
//! HTML formats are the same as `check`'s.

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
    command
}

/// The human report.
pub fn human(report: &FuzzReport, confirmed: &[Option<Confirmed>], rerun: &str) -> String {
    let mut out = String::new();
    let seconds = report.elapsed.as_secs_f64();
    let rate = if seconds > 0.0 {
        report.steps as f64 / seconds
    } else {
        0.0
    };
    let _ = writeln!(
        out,
        "memspec fuzz: {} under {}, seed {}{}",
        report.backend,
        report.revision,
        report.seed,
        if report.clients > 1 {
            format!(", {} clients per store", report.clients)
        } else {
            String::new()
        }
    );
    let unit = if report.clients > 1 {
        ("race", "races")
    } else {
        ("sequence", "sequences")
    };
    let _ = writeln!(
        out,
        "  {}, {} in {seconds:.1} s ({rate:.0} steps/s; the backend's share {:.0}%)",
        plural(report.sequences, unit.0, unit.1),
        plural(report.steps, "step", "steps"),
        if seconds > 0.0 {
            (report.backend_time.as_secs_f64() / seconds * 100.0).min(100.0)
        } else {
            0.0
        }
    );
    let open: usize = report.open.values().sum();
    if open > 0 {
        let _ = writeln!(
            out,
            "  {} stopped early where the spec leaves the answer open (not findings)",
            plural(open, "sequence", "sequences")
        );
    }
    for (index, divergence) in report.divergences.iter().enumerate() {
        out.push('\n');
        divergence_text(
            &mut out,
            index,
            divergence,
            confirmed.get(index).cloned().flatten(),
        );
    }
    out.push('\n');
    if report.divergences.is_empty() {
        let _ = writeln!(out, "no divergence found");
    } else {
        let kinds: Vec<String> = report
            .by_kind()
            .iter()
            .map(|(kind, n)| format!("{} {n}", kind.label()))
            .collect();
        let _ = writeln!(
            out,
            "{} found: {}{}",
            plural(report.divergences.len(), "divergence", "divergences"),
            kinds.join(", "),
            if report.repeats > 0 {
                format!(
                    " (and {} seen again)",
                    plural(report.repeats, "finding", "findings")
                )
            } else {
                String::new()
            }
        );
    }
    let _ = writeln!(out, "rerun: {rerun}");
    out
}

fn divergence_text(
    out: &mut String,
    index: usize,
    divergence: &Discovery,
    confirmed: Option<Confirmed>,
) {
    let found = &divergence.found;
    let _ = writeln!(
        out,
        "{}. {} {} ({}, {}): {}",
        index + 1,
        found.level.as_str(),
        found.differs().label(),
        found.rule,
        if divergence.actions.is_empty() {
            format!("race {}", divergence.sequence)
        } else if divergence.shrink_trials == 0 {
            format!(
                "sequence {}, {} as found, not shrunk",
                divergence.sequence,
                plural(divergence.steps.len(), "step", "steps")
            )
        } else {
            format!(
                "sequence {}, shrunk from {} to {} in {} replays",
                divergence.sequence,
                plural(divergence.found_after, "step", "steps"),
                divergence.steps.len(),
                divergence.shrink_trials
            )
        },
        found.message
    );
    for (n, step) in divergence.steps.iter().enumerate() {
        let mark = if n == divergence.at_step && !divergence.actions.is_empty() {
            "  ← here"
        } else {
            ""
        };
        let _ = writeln!(out, "   {:>2}. {step}{mark}", n + 1);
    }
    for line in divergence.log.iter().take(12) {
        let _ = writeln!(out, "       {line}");
    }
    if let Some((case, transcript)) = &divergence.files {
        let _ = writeln!(
            out,
            "   kept: {} (case; `memspec check --cases {}`), {} (transcript; `memspec replay`)",
            case.display(),
            case.parent()
                .map_or_else(|| ".".to_string(), |p| p.display().to_string()),
            transcript.display()
        );
    }
    if let Some(why) = &divergence.not_kept {
        let _ = writeln!(out, "   not kept: {why}");
    }
    if let Some(confirmed) = confirmed {
        let _ = writeln!(
            out,
            "   as a case: {} on the backend, {} on the reference{}",
            confirmed.backend.as_str(),
            confirmed.reference.as_str(),
            if confirmed.reproduces() {
                ""
            } else {
                " (the case's checks do not show it; the transcript does)"
            }
        );
    }
}

/// The run as a check report: one result per divergence (its shrunk calls, its finding), so that
/// every format of `check` renders it.
pub fn as_report(report: &FuzzReport, repro_args: Vec<String>) -> Report {
    let results = report
        .divergences
        .iter()
        .map(|divergence| {
            let found = &divergence.found;
            let id = divergence.kept.as_ref().map_or_else(
                || format!("fuzz.{}-{}", found.differs().slug(), divergence.sequence),
                |k| k.id.clone(),
            );
            let outcome = if found.differs() == Fact::Broke {
                Outcome::Error
            } else {
                Outcome::for_level(found.level, false)
            };
            CaseResult {
                id,
                area: "fuzz".to_string(),
                title: format!("{}: {}", found.differs().label(), found.message),
                level: found.level,
                hostile: false,
                rules: vec![found.rule.to_string()],
                outcome,
                reason: (outcome == Outcome::Error).then(|| found.message.clone()),
                findings: vec![found.clone().at(Some(divergence.at_step))],
                calls: divergence
                    .actions
                    .iter()
                    .flat_map(crate::fuzz::generate::Action::calls)
                    .map(|input| CallRecord {
                        phase: Phase::Step,
                        input,
                        result: None,
                        error: None,
                        backend_time: Duration::ZERO,
                    })
                    .collect(),
                duration: Duration::ZERO,
                start_time: Duration::ZERO,
                baselined: None,
                choices: Vec::new(),
                timed_out: false,
            }
        })
        .collect();
    Report {
        backend: report.backend.clone(),
        revision: report.revision,
        repro_args,
        strict: false,
        results,
        baseline_problems: Vec::new(),
        elapsed: report.elapsed,
        workers: 1,
        notes: vec![format!(
            "memspec fuzz, seed {}: {}, {}",
            report.seed,
            plural(report.sequences, "sequence", "sequences"),
            plural(report.steps, "step", "steps")
        )],
        rerun: None,
    }
}
