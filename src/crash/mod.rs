//! The crash lane (`check --crash`): each write of [`scenario::all`] run once to count the calls
//! by which it changes storage ([`crate::exec::trace`]), then once per call with the backend's
//! process group killed on entry to it, and once killed right after its answer; after each kill
//! a new process of the backend is started on the same store and every path is read back (the
//! disk of a folder backend, else the new process's `view`) and compared with the store before the
//! write and after it, as the same backend served them in a run nothing killed. The judge says
//! what did not hold ([`Crash`]).

pub mod scenario;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::backend::{BackendSpec, Timeouts};
use crate::exec::trace::{self, StorageCall, TraceError};
use crate::exec::{Fault, Looked, Session};
use crate::judge::grade::{CaseResult, Outcome};
use crate::judge::{self, Crash, Files, Finding, KillPoint, Observation, ReadAs, witness};
use crate::spec::{Level, Spec, known};
use scenario::Scenario;

/// The most kill points tried per write; a write of more calls has points spread over them,
/// its first and last always among them.
pub const MAX_POINTS: usize = 48;

/// The largest file read back from the disk.
const READ_MAX: u64 = 16 << 20;

/// Why the lane could not run at all, said once in the report.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CrashError {
    /// No ptrace here.
    #[error(transparent)]
    Trace(#[from] TraceError),
}

/// The lane's results, one per scenario selected by `selects` (given `crash.<id>`), as results
/// of the run (area `crash`). The states a kill may leave are the backend's own: its store before
/// the write and after it, read in a run that nothing kills. Scenarios run on `jobs` threads.
pub fn check_results(
    backend: &BackendSpec,
    selects: &(dyn Fn(&str) -> bool + Sync),
    spec: &Spec,
    timeouts: Timeouts,
    strict: bool,
    jobs: usize,
) -> Vec<CaseResult> {
    let scenarios: Vec<Scenario> = scenario::all()
        .into_iter()
        .filter(|s| selects(&format!("crash.{}", s.id)))
        .collect();
    let jobs = jobs.clamp(1, scenarios.len().max(1));
    let mut results: Vec<Option<CaseResult>> = vec![None; scenarios.len()];
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..jobs)
            .map(|worker| {
                let scenarios = &scenarios;
                // A backend with one database per worker keeps scenarios that run at once apart.
                let backend = backend.for_worker(worker);
                scope.spawn(move || {
                    scenarios
                        .iter()
                        .enumerate()
                        .skip(worker)
                        .step_by(jobs)
                        .map(|(i, s)| (i, run_scenario(s, &backend, spec, timeouts, strict)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for handle in handles {
            if let Ok(done) = handle.join() {
                for (i, result) in done {
                    results[i] = Some(result);
                }
            }
        }
    });
    results.into_iter().flatten().collect()
}

/// One scenario, every point.
fn run_scenario(
    scenario: &Scenario,
    backend: &BackendSpec,
    spec: &Spec,
    timeouts: Timeouts,
    strict: bool,
) -> CaseResult {
    let started = Instant::now();
    let mut result = CaseResult::new(
        format!("crash.{}", scenario.id),
        "crash",
        format!("killed mid-write: {}", scenario.title),
        Level::Must,
        known::CRASH_RULES.iter().map(ToString::to_string).collect(),
    );
    if scenario.large && !backend.runs_on_folder() {
        result.outcome = Outcome::Skip;
        result.reason = Some(
            "large files are read back from the disk, and this backend keeps no folder".to_string(),
        );
        return result;
    }
    match points(scenario, backend, spec, timeouts) {
        Ok(Lane::Ran { findings, notes }) => {
            result.outcome = CaseResult::graded(&findings, strict);
            result.findings = findings;
            result.notes = notes;
        }
        Ok(Lane::Skipped(why)) => {
            result.outcome = Outcome::Skip;
            result.reason = Some(why);
        }
        // memspec's own fault, or a setup the backend refused: no verdict on crashes either
        // way, and never "the backend broke".
        Err(Fault::Harness(why)) => {
            result.outcome = Outcome::Skip;
            result.reason = Some(format!("not run: {why}"));
        }
        Err(Fault::Dirty(dirty)) => {
            result.outcome = Outcome::Skip;
            result.reason = Some(format!("not run: {dirty}"));
        }
        Err(fault) => {
            result.outcome = Outcome::Error;
            result.reason = Some(fault.to_string());
        }
    }
    result.duration = started.elapsed();
    result
}

/// What one scenario showed.
enum Lane {
    Ran {
        findings: Vec<Finding>,
        notes: Vec<String>,
    },
    Skipped(String),
}

/// The scenario's expected states, its count run, then a run per point.
fn points(
    scenario: &Scenario,
    backend: &BackendSpec,
    spec: &Spec,
    timeouts: Timeouts,
) -> Result<Lane, Fault> {
    let watched = scenario::watched(scenario);
    let (old, new, succeeds) = expected(scenario, backend, &watched, timeouts)?;
    let command = described(&scenario.command);
    let mut findings = Vec::new();
    let mut notes = Vec::new();

    // The count run: the calls the command makes, and a kill right after its answer.
    let mut session = prepared(scenario, backend, timeouts)?;
    let Some(group) = session.process_group()? else {
        session.discard();
        return Ok(Lane::Skipped(
            "the backend runs inside memspec's process: nothing to kill (use `--backend 'memspec serve {memories}'`)".to_string(),
        ));
    };
    let forced = std::env::var_os(TIMED_ENV).is_some();
    let tracer = match trace::attach(group, None) {
        Ok(tracer) if !forced => tracer,
        traced => {
            let why = match traced {
                Ok(tracer) => {
                    trace::kill_group(group);
                    session.discard();
                    let _ = tracer.finish();
                    format!("{TIMED_ENV} is set")
                }
                Err(e) => {
                    session.discard();
                    e.to_string()
                }
            };
            return timed(scenario, backend, spec, timeouts, &why);
        }
    };
    let answer = session.call(&scenario.command);
    if answer.is_ok() {
        // Still running (a failed call has stopped it, and its group id may be reused).
        trace::kill_group(group);
    }
    session.stop();
    let traced = match tracer.finish() {
        Ok(traced) => traced,
        Err(e @ TraceError::Refused(_)) => {
            session.discard();
            return timed(scenario, backend, spec, timeouts, &e.to_string());
        }
        Err(e) => return Err(Fault::Harness(e.to_string())),
    };
    let answer = answer?;
    let calls = traced.calls;
    if calls.is_empty() && !answer.is_error && session.sandbox_is_store() {
        // A write to a folder that no system call made: through a mapping or io_uring, which
        // this tracer does not see. A "yes" would claim kills that never happened.
        session.discard();
        return Ok(Lane::Skipped(
            "the write changed the folder through no system call the tracer counts (a memory mapping or io_uring?), so no kill point was found".to_string(),
        ));
    }
    if calls.is_empty() && !session.sandbox_is_store() {
        // A write that changed nothing outside the process has nothing a kill can tear: it was
        // refused, or the store is a dict in the process, which any stop empties by design
        // (decide.process-store).
        session.discard();
        return Ok(Lane::Skipped(if answer.is_error {
            format!(
                "the backend refused the write ({}), and changed nothing a kill could tear",
                first_line(&answer.text)
            )
        } else {
            "the write made no system call that changes storage, so a kill has nothing to tear: the backend keeps its memories in its process (decide.process-store)".to_string()
        }));
    }
    let to_files = calls.iter().filter(|c| c.target != "socket").count();
    let unsynced = (!answer.is_error && to_files > 0 && traced.syncs == 0).then_some(to_files);
    findings.extend(judged(
        &mut session,
        &command,
        (&KillPoint::AfterAnswer, unsynced),
        succeeds && !answer.is_error,
        (&old, &new),
        &watched,
        spec,
    )?);
    session.discard();

    let chosen = spread(calls.len(), MAX_POINTS);
    notes.push(format!(
        "crash points: {} of the {} storage call(s) the command makes (killed on entry to each, by ptrace), and right after its answer",
        chosen.len(),
        calls.len()
    ));
    let planned = chosen.len();
    for (tried, index) in chosen.into_iter().enumerate() {
        let mut session = prepared(scenario, backend, timeouts)?;
        let Some(group) = session.process_group()? else {
            session.discard();
            break;
        };
        let tracer = trace::attach(group, Some(index))
            .map_err(|e| Fault::Harness(format!("tracing stopped working mid-lane: {e}")))?;
        let answer = session.call(&scenario.command);
        if answer.is_ok() {
            // Answered before the point came (this run made fewer calls), or the point comes
            // after the answer: the group is killed either way.
            trace::kill_group(group);
        }
        session.stop();
        let traced = tracer.finish().map_err(|e| Fault::Harness(e.to_string()))?;
        let acknowledged = matches!(&answer, Ok(a) if !a.is_error);
        if !traced.killed {
            notes.push(format!(
                "point {index} was not reached: this run made {} storage call(s)",
                traced.calls.len()
            ));
            session.discard();
            continue;
        }
        // A call after the answer (a backend that writes once it has replied) was killed with
        // the write acknowledged: its state must be there.
        let point = if answer.is_ok() {
            KillPoint::AfterAnswer
        } else {
            KillPoint::Before {
                index,
                of: calls.len(),
                call: traced
                    .calls
                    .last()
                    .map_or_else(|| "?".to_string(), StorageCall::to_string),
            }
        };
        let found = judged(
            &mut session,
            &command,
            (&point, None),
            if answer.is_ok() {
                succeeds && acknowledged
            } else {
                succeeds
            },
            (&old, &new),
            &watched,
            spec,
        )?;
        session.discard();
        if keep(&mut findings, found) {
            // Said, so that the points note above is not read as every point killed.
            let left = planned - tried - 1;
            if left > 0 {
                let points = if left == 1 { "point" } else { "points" };
                notes.push(format!(
                    "{left} later {points} not killed: a memory was already lost at point {index}"
                ));
            }
            break;
        }
    }
    Ok(Lane::Ran { findings, notes })
}

/// Adds a point's findings to the scenario's; `true` when one is a loss, the story the later
/// points would only repeat. A leftover is kept once, and the points go on: a later one may lose.
fn keep(findings: &mut Vec<Finding>, found: Vec<Finding>) -> bool {
    let lost = found.iter().any(|f| f.rule == known::DURABILITY_CRASH);
    for finding in found {
        if !findings.iter().any(|f| f.rule == finding.rule) {
            findings.push(finding);
        }
    }
    lost
}

/// Set, the lane kills at random moments instead of tracing (as it does where ptrace is not
/// allowed): for testing that mode.
pub const TIMED_ENV: &str = "MEMSPEC_CRASH_TIMED";

/// Kills at random moments across the command's time, [`TIMED_KILLS`] times: the fallback where
/// the backend cannot be traced (`why`). A kill that lands after the answer checks the
/// acknowledged state; one before it, the two states.
fn timed(
    scenario: &Scenario,
    backend: &BackendSpec,
    spec: &Spec,
    timeouts: Timeouts,
    why: &str,
) -> Result<Lane, Fault> {
    let watched = scenario::watched(scenario);
    // How long the command takes, untraced: the window the kills are spread over (with the
    // setup and the reads around it, a generous bound).
    let started = Instant::now();
    let (old, new, succeeds) = expected(scenario, backend, &watched, timeouts)?;
    let window = started.elapsed();
    let command = described(&scenario.command);
    let mut rng = crate::rng::Rng::new(7);
    let (mut before, mut findings) = (0, Vec::new());
    for _ in 0..TIMED_KILLS {
        let mut session = prepared(scenario, backend, timeouts)?;
        let Some(group) = session.process_group()? else {
            session.discard();
            break;
        };
        let micros = u64::try_from(window.as_micros()).unwrap_or(u64::MAX).max(1);
        let delay =
            Duration::from_micros(rng.below(usize::try_from(micros).unwrap_or(usize::MAX)) as u64);
        // The kill only while the call is out: once it is back (a failed call has stopped the
        // process), the group id is no longer the backend's to signal.
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let killer = {
            let done = std::sync::Arc::clone(&done);
            std::thread::spawn(move || {
                std::thread::sleep(delay);
                if !done.load(std::sync::atomic::Ordering::SeqCst) {
                    trace::kill_group(group);
                }
            })
        };
        let answer = session.call(&scenario.command);
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = killer.join();
        if answer.is_ok() {
            trace::kill_group(group);
        }
        session.stop();
        let point = match &answer {
            Ok(_) => KillPoint::AfterAnswer,
            Err(_) => {
                before += 1;
                KillPoint::At { after: delay }
            }
        };
        let acknowledged = matches!(&answer, Ok(a) if !a.is_error);
        let found = judged(
            &mut session,
            &command,
            (&point, None),
            if point == KillPoint::AfterAnswer {
                succeeds && acknowledged
            } else {
                succeeds
            },
            (&old, &new),
            &watched,
            spec,
        )?;
        session.discard();
        if keep(&mut findings, found) {
            break;
        }
    }
    Ok(Lane::Ran {
        findings,
        notes: vec![format!(
            "crash points: {TIMED_KILLS} kills at random moments over the command's {} µs ({before} landed before its answer), not at each storage call: {why}",
            window.as_micros()
        )],
    })
}

/// Kills per write in the timed mode.
pub const TIMED_KILLS: usize = 20;

/// A fresh store holding the scenario's setup, with the backend running on it.
fn prepared(
    scenario: &Scenario,
    backend: &BackendSpec,
    timeouts: Timeouts,
) -> Result<Session, Fault> {
    let mut session = Session::start(backend, timeouts)?;
    session.start_clean()?;
    for (path, text) in &scenario.setup {
        let input = json!({"command": "create", "path": path, "file_text": text});
        let answer = session.call(&input)?;
        if answer.is_error {
            let refused = first_line(&answer.text);
            session.discard();
            return Err(Fault::Harness(format!(
                "the setup's create of {path} was refused: {refused}"
            )));
        }
    }
    Ok(session)
}

/// The store before the command and after it, as the backend serves them when nothing kills it,
/// and whether the command succeeds: the two states a kill may leave.
fn expected(
    scenario: &Scenario,
    backend: &BackendSpec,
    watched: &[String],
    timeouts: Timeouts,
) -> Result<(Files, Files, bool), Fault> {
    let mut session = prepared(scenario, backend, timeouts)?;
    let old = snapshot(&mut session, watched)?;
    let answer = session.call(&scenario.command)?;
    let new = snapshot(&mut session, watched)?;
    session.discard();
    Ok((old, new, !answer.is_error))
}

/// What each watched path holds: its bytes on the disk of a folder backend, else its lines as
/// the backend's `view` shows them.
fn snapshot(session: &mut Session, watched: &[String]) -> Result<Files, Fault> {
    let on_folder = session.sandbox_is_store();
    let mut read = Files::new();
    for path in watched {
        let seen = if on_folder {
            match session.sandbox().look(path) {
                Ok(Looked::Entry(entry)) => entry
                    .read(READ_MAX)
                    .map_or_else(|| ReadAs::Lines(Vec::new()), ReadAs::Bytes),
                _ => ReadAs::Absent,
            }
        } else {
            let answer = session.call(&json!({"command": "view", "path": path}))?;
            match witness::file_lines(&answer.text) {
                Some(lines) if !answer.is_error => ReadAs::Lines(lines),
                _ => ReadAs::Absent,
            }
        };
        read.insert(path.clone(), seen);
    }
    Ok(read)
}

/// Reads every watched path back through a new process (or the disk), and judges.
fn judged(
    session: &mut Session,
    command: &str,
    (point, unsynced): (&KillPoint, Option<usize>),
    succeeds: bool,
    (old, new): (&Files, &Files),
    watched: &[String],
    spec: &Spec,
) -> Result<Vec<Finding>, Fault> {
    // The new process starts with this call, whatever the store: it must answer. One that
    // cannot serve the store after a kill has lost every memory in it.
    let served = session
        .call(&json!({"command": "view", "path": "/memories"}))
        .and_then(|listing| Ok((listing, snapshot(session, watched)?)));
    let (listing, read, unserved) = match served {
        Ok((listing, read)) => (Some(listing), read, None),
        Err(Fault::Backend(broke)) => (
            None,
            watched
                .iter()
                .map(|p| (p.clone(), ReadAs::Absent))
                .collect(),
            Some(broke.reason),
        ),
        Err(fault) => return Err(fault),
    };
    let listed = listing.filter(|l| !l.is_error).map(|l| listed(&l.text));
    let crash = Crash {
        command,
        point,
        succeeds,
        old,
        new,
        read: &read,
        listed: listed.as_deref(),
        unsynced,
        unserved: unserved.as_deref(),
    };
    Ok(judge::step(Observation::Crash(crash, spec))?.findings)
}

/// The paths a listing names, below its header, without a trailing `/`.
fn listed(text: &str) -> Vec<String> {
    text.split('\n')
        .skip(1)
        .filter_map(|line| line.split_once('\t'))
        .map(|(_, path)| path.trim_end_matches('/').to_string())
        .filter(|path| path.starts_with("/memories"))
        .collect()
}

/// The first line of a backend's answer, at most 200 characters, control characters as spaces.
fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().chars().take(200);
    line.map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// `count` points spread over `1..=total`, the first and the last among them.
fn spread(total: usize, count: usize) -> Vec<usize> {
    if total <= count {
        return (1..=total).collect();
    }
    let mut points: Vec<usize> = (0..count)
        .map(|i| 1 + i * (total - 1) / (count - 1))
        .collect();
    points.dedup();
    points
}

/// `` `str_replace` of /memories/notes.md `` and the like.
fn described(command: &Value) -> String {
    let field = |name: &str| command.get(name).and_then(Value::as_str).unwrap_or("?");
    match field("command") {
        "rename" => format!("`rename` of {} to {}", field("old_path"), field("new_path")),
        name => format!("`{name}` of {}", field("path")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_spread_with_both_ends() {
        assert_eq!(spread(3, 48), [1, 2, 3]);
        let many = spread(100, 5);
        assert_eq!(many.first(), Some(&1));
        assert_eq!(many.last(), Some(&100));
        assert_eq!(many.len(), 5);
    }

    #[test]
    fn a_listing_names_its_paths() {
        let text =
            "Here're the files …:\n4.0K\t/memories\n12\t/memories/a.md\n4.0K\t/memories/b/\n";
        assert_eq!(listed(text), ["/memories", "/memories/a.md", "/memories/b"]);
    }
}
