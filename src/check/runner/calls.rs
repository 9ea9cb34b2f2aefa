//! A case's calls on its session: the setup, the steps, and the effects read back (from the
//! disk for a folder backend, else through the backend's own `view`), within the case's time
//! budget; every call recorded in the case's result.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::exec::{Fault, Sandbox, Session};
use crate::judge::answers;
use crate::judge::confinement;
use crate::judge::disk;
use crate::judge::effects::{self, Before};
use crate::judge::grade::{CallRecord, CaseResult, Choice, Phase};
use crate::judge::witness::{self, Seen};
use crate::judge::{Check, Finding};
use crate::protocol::ToolResult;
use crate::spec::Graded;
use crate::spec::known;
use crate::suite::case::{Effect, EffectKind};
use crate::suite::load::LoadedCase;

/// A case's time budget: past it, no further call of the case is made.
pub(super) struct Budget {
    pub(super) limit: Duration,
    pub(super) started: Instant,
    /// The case's setup calls and steps.
    pub(super) calls: usize,
}

impl Budget {
    /// Past the budget before call `made` (0-based over setup and steps): the INFO finding that
    /// says so, with the time.
    fn spent(&self, made: usize) -> Option<Finding> {
        let elapsed = self.started.elapsed();
        (elapsed > self.limit).then(|| {
            effects::not_checked(
                Check::Setup,
                &known::TERMINATES,
                None,
                format!(
                    "the case ran over its time budget of {} s: {made} of its {} calls took {:.1} s, and the rest was not run (--case-budget)",
                    self.limit.as_secs(),
                    self.calls,
                    elapsed.as_secs_f64()
                ),
                "the case's calls within the budget",
                format!("{made} calls in {:.1} s", elapsed.as_secs_f64()),
            )
        })
    }
}

pub(super) fn run_calls(
    loaded: &LoadedCase,
    session: &mut Session,
    on_folder: bool,
    budget: &Budget,
    result: &mut CaseResult,
) -> Result<(), Fault> {
    for (i, (call_input, rule)) in loaded.case.setup.iter().zip(&loaded.setup).enumerate() {
        if on_folder && call_input.planted().is_some() {
            // The harness made it with the fixtures.
            continue;
        }
        if let Some(spent) = budget.spent(i) {
            result.findings.push(spent);
            return Ok(());
        }
        let input = expand_input(call_input.input(), session.sandbox());
        let answer = call(session, Phase::Setup, &input, result)?;
        let leaks = confinement::findings(
            session.check_answer(&input, &answer),
            &loaded.always,
            None,
            "in an answer",
        );
        result.findings.extend(leaks);
        if answer.is_error {
            // What the setup needs is checked by the cases of its own command; here a refusal
            // (a size limit, a name length the page lets a backend set) only means that this
            // case cannot be checked.
            result.findings.push(effects::not_checked(
                Check::Setup,
                &rule.rule,
                None,
                format!(
                    "the backend refused setup call {} ({})",
                    i + 1,
                    effects::described(&input)
                ),
                "a successful result",
                answer.text,
            ));
            return Ok(());
        }
    }
    verify_setup(loaded, session, on_folder, result)?;
    let mut effects: Vec<(&Effect, &Graded)> =
        loaded.case.effects.iter().zip(&loaded.effects).collect();
    let mut before = Before::of(&loaded.case);
    for (i, step) in loaded.case.steps.iter().enumerate() {
        if let Some(spent) = budget.spent(loaded.case.setup.len() + i) {
            result.findings.push(spent);
            return Ok(());
        }
        let input = expand_input(&step.input, session.sandbox());
        let answer = call(session, Phase::Step, &input, result)?;
        let leaks = confinement::findings(
            session.check_answer(&input, &answer),
            &loaded.always,
            Some(i),
            "in an answer",
        );
        result.findings.extend(leaks);
        before.wrote(&input, answer.is_error);
        if !answer.is_error {
            verify_create(loaded, session, on_folder, i, &input, &mut before, result)?;
        }
        let allowed = loaded.alternatives.get(i).and_then(Option::as_ref);
        if let Some(allowed) = allowed {
            result.choices.push(Choice {
                rule: allowed.rule.rule.clone(),
                step: i,
                choice: allowed.choice.clone(),
                taken: answer.is_error == allowed.is_error,
            });
        }
        if step.is_error == Some(false) && answer.is_error && effects::large_write(&input) {
            result.findings.push(effects::not_checked(
                Check::IsError,
                &loaded.steps[i].is_error.rule,
                Some(i),
                format!(
                    "the backend refused a large write ({}), a limit the page lets a backend set",
                    effects::described(&input)
                ),
                "false",
                answer.text,
            ));
            return Ok(());
        }
        match allowed {
            Some(allowed) if answer.is_error == allowed.is_error => {
                // The backend took the other outcome this revision allows: the expected flag and
                // words do not apply, and what it leaves behind is the alternative's.
                answers::forbidden_content(loaded, session.sandbox(), step, i, &answer, result);
                effects.retain(|(e, _)| !allowed.effects.iter().any(|a| a.path == e.path));
                effects.extend(allowed.effects.iter().map(|e| (e, &allowed.rule)));
            }
            _ => answers::check_step(loaded, session.sandbox(), step, i, &answer, result)?,
        }
    }
    check_effects(
        &effects,
        &before,
        &loaded.writes,
        session,
        on_folder,
        result,
    )
}

/// Reads the effects: on a folder the disk is their witness (the backend's `view` is judged as
/// a view by the cases that view, not a second time here); any other store is asked with its
/// own `view`. Then [`effects::judge`] grades what was seen.
fn check_effects(
    effects: &[(&Effect, &Graded)],
    before: &Before,
    writes: &Graded,
    session: &mut Session,
    on_folder: bool,
    result: &mut CaseResult,
) -> Result<(), Fault> {
    let mut witnessed = Vec::with_capacity(effects.len());
    for &(effect, _) in effects {
        witnessed.push(if on_folder {
            disk::see(session.sandbox(), &effect.path, &effect.expect)
        } else {
            read_back(session, &effect.path, &effect.expect, result)?
        });
    }
    let findings = effects::judge(effects, &witnessed, before, writes, on_folder);
    result.findings.extend(findings);
    Ok(())
}

/// A step's successful `create` of a file that a later step edits is read back at once: a
/// create that wrote the wrong bytes is then that step's fault, under `create.writes-file-text`,
/// and what the edits leave follows from it (one fault, one root cause), instead of a wrong
/// file graded under the edit's rule.
fn verify_create(
    loaded: &LoadedCase,
    session: &mut Session,
    on_folder: bool,
    index: usize,
    input: &Value,
    before: &mut Before,
    result: &mut CaseResult,
) -> Result<(), Fault> {
    let field = |name: &str| input.get(name).and_then(Value::as_str);
    let (Some("create"), Some(path), Some(text)) =
        (field("command"), field("path"), field("file_text"))
    else {
        return Ok(());
    };
    let edited_later = loaded.case.steps.iter().skip(index + 1).any(|step| {
        matches!(
            step.input.get("command").and_then(Value::as_str),
            Some("str_replace" | "insert")
        ) && step.input.get("path").and_then(Value::as_str) == Some(path)
    });
    // Through the tool a large file is read in pages; on a folder the disk reads it at once.
    if !edited_later || (!on_folder && effects::large_write(input)) {
        return Ok(());
    }
    let expect = EffectKind::FileText(text.to_string());
    let seen = if on_folder {
        disk::see(session.sandbox(), path, &expect)
    } else {
        read_back(session, path, &expect, result)?
    };
    if matches!(seen, Seen::Differs(_)) {
        let message = format!("step {} created {path}, which should then be", index + 1);
        if let Some(mut finding) =
            effects::seen_finding(Check::Effect, &loaded.writes, message, &expect, seen)
        {
            finding.step = Some(index);
            result.findings.push(finding);
            before.create_fault(path, index);
        }
    }
    Ok(())
}

/// The most files of a setup verified through the tool.
const SETUP_VIEWS: usize = 16;

/// The files the setup calls made hold what they were given: a backend that writes `create`
/// wrong is told so once, at the setup, and what follows is marked as following from it. On a
/// folder the bytes are read; any other store is asked with `view`.
fn verify_setup(
    loaded: &LoadedCase,
    session: &mut Session,
    on_folder: bool,
    result: &mut CaseResult,
) -> Result<(), Fault> {
    let files = witness::setup_files(&loaded.case.setup);
    // Through the tool, a wide setup is verified by a sample spread over it (its first and
    // last files among them): one view per file cost a slow backend minutes on 1,500 files.
    let stride = if on_folder {
        1
    } else {
        files.len().div_ceil(SETUP_VIEWS).max(1)
    };
    let last = files.len().saturating_sub(1);
    let sample = files
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % stride == 0 || *i == last)
        .map(|(_, file)| file);
    for (index, path, expect) in sample {
        let Some(rule) = loaded.setup.get(index) else {
            continue;
        };
        let seen = if on_folder {
            // A setup file not there differs from what setup made, whatever the reason.
            match disk::see(session.sandbox(), &path, &expect) {
                Seen::Missing(found) => Seen::Differs(found),
                seen => seen,
            }
        } else {
            read_back(session, &path, &expect, result)?
        };
        let message = format!("setup call {} made {path}, which should then be", index + 1);
        if let Some(finding) = effects::seen_finding(Check::Setup, rule, message, &expect, seen) {
            result.findings.push(finding);
        }
    }
    Ok(())
}

/// Reads an effect back with the backend's own `view` (several views for a long file whose
/// plain view is cut, see [`witness::read_back`]).
fn read_back(
    session: &mut Session,
    path: &str,
    expect: &EffectKind,
    result: &mut CaseResult,
) -> Result<Seen, Fault> {
    witness::read_back(path, expect, |input| {
        call(session, Phase::Witness, input, result)
    })
}

fn call(
    session: &mut Session,
    phase: Phase,
    input: &Value,
    result: &mut CaseResult,
) -> Result<ToolResult, Fault> {
    let started = Instant::now();
    let answer = session.call(input);
    let backend_time = started.elapsed();
    result.calls.push(CallRecord {
        phase,
        input: input.clone(),
        result: answer.as_ref().ok().cloned(),
        error: answer.as_ref().err().map(|fault| match fault {
            Fault::Backend(broke) => broke.reason.clone(),
            other => other.to_string(),
        }),
        backend_time,
    });
    answer
}

/// Replaces `{{base}}` in the input's strings with the sandbox's absolute path.
fn expand_input(input: &Value, sandbox: &Sandbox) -> Value {
    match input {
        Value::String(s) if s.contains("{{base}}") => {
            Value::String(s.replace("{{base}}", &sandbox.base().to_string_lossy()))
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| expand_input(v, sandbox)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), expand_input(v, sandbox)))
                .collect(),
        ),
        other => other.clone(),
    }
}
