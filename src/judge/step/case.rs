//! A check case judged as its runner observes it. The runner makes the case's calls and reads
//! back what it is told to; everything the answers and the store mean is decided here: a
//! refused setup call or large write leaves the rest not checked, a step that takes the other
//! outcome its revision allows swaps in that outcome's effects, a create a later step edits is
//! read back at once (so that a wrong create is its own root cause), and the effects, leaks and
//! tampering are graded. What the judge keeps between calls is the case's [`CaseLedger`].

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::{Judgement, Next};
use crate::exec::{Breach, Fault};
use crate::judge::answers;
use crate::judge::cascade;
use crate::judge::confinement::{self, tampering};
use crate::judge::effects::{self, Before};
use crate::judge::grade::Choice;
use crate::judge::witness::{self, Seen};
use crate::judge::{Cause, Check, Finding};
use crate::protocol::ToolResult;
use crate::spec::{Graded, Level, known};
use crate::suite::case::{Effect, EffectKind};
use crate::suite::load::LoadedCase;

/// What the judge keeps of one case between its calls: what the store held before the steps,
/// the effects the case now expects (an alternative outcome swaps its own in), the choices the
/// backend made, and a step's findings held back until its create is read.
pub struct CaseLedger<'c> {
    loaded: &'c LoadedCase,
    on_folder: bool,
    before: Before,
    effects: Vec<(&'c Effect, &'c Graded)>,
    /// After a step refused beyond a limit: the memories the setup made on the paths it and
    /// the steps after it name, which that refusal must leave as they were.
    kept: Vec<(Effect, Graded)>,
    /// The step that refusal was.
    kept_after: usize,
    choices: Vec<Choice>,
    /// A step's answer findings, held until its create is read back: the create's fault comes
    /// first, as it happened first.
    held: Vec<Finding>,
    /// In a restart case, whether the restarted backend's first answer was a listing with no
    /// entry below `/memories` (an empty store).
    restarted_empty: bool,
    /// In a restart case, the effects as read just before the restart.
    before_restart: Option<Vec<Seen>>,
    /// In a case of many users on a folder, where each user's memories lie below `memories/`
    /// (`""` for the folder itself), learned from the user's first create.
    roots: BTreeMap<String, String>,
}

/// One thing a check case's runner observed, in the order it happened.
pub enum CaseCall<'a> {
    /// The case's time budget ran out before call `made` (0-based over setup and steps).
    OutOfTime {
        /// Calls made.
        made: usize,
        /// The budget.
        limit: Duration,
        /// Time the calls took.
        elapsed: Duration,
    },
    /// Setup call `index` answered.
    Setup {
        /// Its index among the setup calls.
        index: usize,
        /// The input sent (`{{base}}` expanded).
        input: &'a Value,
        /// The answer.
        answer: &'a ToolResult,
        /// What the answer showed of confinement.
        breaches: Vec<Breach>,
        /// In a case of many users on a folder, what the call changed below `memories/`.
        changed: Option<Vec<String>>,
    },
    /// A file setup call `index` made, read back.
    SetupFile {
        /// The setup call.
        index: usize,
        /// The memory path.
        path: &'a str,
        /// What it should hold.
        expect: &'a EffectKind,
        /// What the witness saw.
        seen: Seen,
    },
    /// Step `index` answered.
    Step {
        /// The step (0-based).
        index: usize,
        /// The input sent (`{{base}}` expanded).
        input: &'a Value,
        /// The answer.
        answer: &'a ToolResult,
        /// What the answer showed of confinement.
        breaches: Vec<Breach>,
        /// The sandbox's base folder, for `{{base}}` in what the answer must not contain.
        base: &'a Path,
        /// In a case of many users on a folder, what the call changed below `memories/`.
        changed: Option<Vec<String>>,
    },
    /// The file step `index` created, read back as [`Next::ReadBack`] asked.
    Created {
        /// The step.
        index: usize,
        /// The memory path.
        path: &'a str,
        /// What it should hold.
        expect: &'a EffectKind,
        /// What the witness saw.
        seen: Seen,
    },
    /// In a restart case, the effects read back in the order of [`CaseLedger::effect_reads`]
    /// just before the processes stop, through the same witness as after: the state the
    /// restart is judged against.
    BeforeRestart(Vec<Seen>),
    /// The effects, read back in the order of [`CaseLedger::effect_reads`].
    Effects(Vec<Seen>),
    /// In a case of many users, the backend refused user `user` at start: its process could
    /// not start, or exited before reading a request, `why` (while the first user's was served).
    RefusedUser {
        /// The user id.
        user: &'a str,
        /// How the start failed.
        why: String,
    },
    /// What the backend did to the sandbox (left in the harness's way), seen `when`.
    Tampered {
        /// What was found.
        found: &'a [String],
        /// When, in words.
        when: &'a str,
    },
    /// What the sandbox showed of confinement after the steps.
    Sandbox(Vec<Breach>),
    /// The case is over: `findings` are all it found; `broke` how the backend broke, if it did.
    /// [`Next::Broke`]: the break is the case's outcome; else the findings grade it.
    Ended {
        /// Every finding of the case so far.
        findings: Vec<Finding>,
        /// How the backend broke.
        broke: Option<&'a Fault>,
    },
}

/// The most files of a setup verified through the tool.
const SETUP_VIEWS: usize = 16;

impl<'c> CaseLedger<'c> {
    /// The ledger of `loaded` on a backend that stores its memories in the folder or not.
    pub fn new(loaded: &'c LoadedCase, on_folder: bool) -> CaseLedger<'c> {
        CaseLedger {
            loaded,
            // Where each user's memories lie is the backend's choice: through its `view` only.
            on_folder: on_folder && loaded.case.users.is_empty(),
            before: Before::of(&loaded.case),
            effects: loaded.case.effects.iter().zip(&loaded.effects).collect(),
            kept: Vec::new(),
            kept_after: 0,
            choices: Vec::new(),
            held: Vec::new(),
            restarted_empty: false,
            before_restart: None,
            roots: BTreeMap::new(),
        }
    }

    /// Why the case cannot run on this backend at all, if it cannot: its fixtures need a
    /// folder the backend does not store its memories in.
    pub fn skipped(&self) -> Option<String> {
        (!self.loaded.case.fixtures.is_empty() && !self.on_folder).then(|| {
            format!(
                "needs {} on disk, which no tool call can make, and the backend does not store its memories in a folder",
                effects::fixture_kinds(&self.loaded.case.fixtures)
            )
        })
    }

    /// The files the setup calls made that are read back, as (setup call, path, what it
    /// should hold). Through the tool, a wide setup is verified by a sample spread over it
    /// (its first and last files among them): one view per file cost a slow backend minutes
    /// on 1,500 files.
    pub fn setup_reads(&self) -> Vec<(usize, String, EffectKind)> {
        if self.loaded.case.restart {
            // The effects are read just before the restart instead, through the witness
            // that reads them after it.
            return Vec::new();
        }
        let files = witness::setup_files(&self.loaded.case.setup);
        let stride = if self.on_folder {
            1
        } else {
            files.len().div_ceil(SETUP_VIEWS).max(1)
        };
        let last = files.len().saturating_sub(1);
        files
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % stride == 0 || *i == last)
            .map(|(_, file)| file)
            .collect()
    }

    /// Whether the effects are read through the backend's own `view` rather than the disk: on a
    /// store that is not a folder, and after a restart on any store, since what a later
    /// conversation sees is what the new process serves.
    pub fn effects_through_view(&self) -> bool {
        !self.on_folder || self.loaded.case.restart
    }

    /// Whether the case's calls are made as several users of one store (`users.*` cases):
    /// where each user's memories lie is the backend's choice, so everything is read back
    /// through each user's own `view`.
    pub fn of_users(&self) -> bool {
        !self.loaded.case.users.is_empty()
    }

    /// The effects to read back after the steps, as (path, what it should hold, the user it is
    /// read as in a case of many users), in order.
    pub fn effect_reads(&self) -> Vec<(String, EffectKind, Option<String>)> {
        self.effects
            .iter()
            .map(|(effect, _)| *effect)
            .chain(self.kept.iter().map(|(effect, _)| effect))
            .map(|effect| {
                (
                    effect.path.clone(),
                    effect.expect.clone(),
                    effect.user.clone(),
                )
            })
            .collect()
    }

    /// The steps on which the backend could take another outcome, and whether it did.
    pub fn into_choices(self) -> Vec<Choice> {
        self.choices
    }

    pub(super) fn observe(&mut self, call: CaseCall<'_>) -> Result<Judgement, Fault> {
        Ok(match call {
            CaseCall::OutOfTime {
                made,
                limit,
                elapsed,
            } => stop(vec![self.out_of_time(made, limit, elapsed)]),
            CaseCall::Setup {
                index,
                input,
                answer,
                breaches,
                changed,
            } => {
                let user = self.loaded.case.setup.get(index).and_then(|c| c.user());
                let crossed = self.disk(user, None, input, answer, changed.as_deref());
                let mut judgement = self.setup(index, input, answer, breaches)?;
                judgement.findings.extend(crossed);
                judgement
            }
            CaseCall::SetupFile {
                index,
                path,
                expect,
                seen,
            } => Judgement::go(self.setup_file(index, path, expect, seen)),
            CaseCall::Step {
                index,
                input,
                answer,
                breaches,
                base,
                changed,
            } => {
                let user = self.loaded.case.steps.get(index);
                let user = user.and_then(|s| s.user.as_deref());
                let crossed = self.disk(user, Some(index), input, answer, changed.as_deref());
                let mut judgement = self.step(index, input, answer, breaches, base)?;
                judgement.findings.extend(crossed);
                judgement
            }
            CaseCall::Created {
                index,
                path,
                expect,
                seen,
            } => Judgement::go(self.created(index, path, expect, seen)),
            CaseCall::BeforeRestart(seen) => {
                self.before_restart = Some(seen);
                Judgement::go(Vec::new())
            }
            CaseCall::Effects(seen) => Judgement::go(self.effects(&seen)),
            CaseCall::RefusedUser { user, why } => Judgement::go(vec![effects::not_checked(
                Check::Setup,
                &known::USERS_ISOLATED,
                None,
                format!(
                    "the backend refused user id {} at start (its process exited before reading a request), a fine answer for an id it does not serve",
                    shown_user(user)
                ),
                "a process serving the user, or one refusing the id",
                why,
            )]),
            CaseCall::Tampered { found, when } => {
                Judgement::go(tampering(&self.loaded.always.confinement, found, when))
            }
            CaseCall::Sandbox(breaches) => Judgement::go(confinement::findings(
                breaches,
                &self.loaded.always,
                None,
                "after the case's steps",
            )),
            CaseCall::Ended { findings, broke } => self.ended(findings, broke),
        })
    }

    fn out_of_time(&self, made: usize, limit: Duration, elapsed: Duration) -> Finding {
        let case = &self.loaded.case;
        effects::not_checked(
            Check::Setup,
            &known::TERMINATES,
            None,
            format!(
                "the case ran over its time budget of {} s: {made} of its {} calls took {:.1} s, and the rest was not run (--case-budget)",
                limit.as_secs(),
                case.setup.len() + case.steps.len(),
                elapsed.as_secs_f64()
            ),
            "the case's calls within the budget",
            format!("{made} calls in {:.1} s", elapsed.as_secs_f64()),
        )
    }

    fn setup(
        &self,
        index: usize,
        input: &Value,
        answer: &ToolResult,
        breaches: Vec<Breach>,
    ) -> Result<Judgement, Fault> {
        let mut findings =
            confinement::findings(breaches, &self.loaded.always, None, "in an answer");
        // A refusal is read from the answer whatever its flag: a setup call refused in words
        // made nothing, so no memory of it can be lost later; the missing flag is its one fault.
        let path = input
            .get("path")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let in_words = !answer.is_error && answers::reads_as_refusal(&answer.text, path);
        if !answer.is_error && !in_words {
            return Ok(Judgement::go(findings));
        }
        if in_words {
            findings.push(
                Finding::new(
                    Check::IsError,
                    Level::Must,
                    known::IS_ERROR_FLAG,
                    format!(
                        "an error in words, without the flag: setup call {} ({}) was refused, and is_error should be true, the backend said false",
                        index + 1,
                        effects::described(input)
                    ),
                )
                .expecting("true".to_string())
                .actually("false".to_string()),
            );
        }
        // What the setup needs is checked by the cases of its own command; here a refusal (a
        // size limit, a name length the page lets a backend set) only means that this case
        // cannot be checked.
        let Some(graded) = self.loaded.setup.get(index) else {
            return Err(Fault::Harness(format!(
                "case {} has no setup call {}",
                self.loaded.case.id,
                index + 1
            )));
        };
        findings.push(effects::not_checked(
            Check::Setup,
            &graded.rule,
            None,
            format!(
                "the backend refused setup call {} ({})",
                index + 1,
                effects::described(input)
            ),
            "a successful result",
            answer.text.clone(),
        ));
        let user = self
            .loaded
            .case
            .setup
            .get(index)
            .and_then(|call| call.user());
        Ok(stop(self.as_user(findings, user)))
    }

    /// A file the setup made holds what it was given: a backend that writes `create` wrong is
    /// told so once, at the setup, and what follows is marked as following from it.
    fn setup_file(
        &self,
        index: usize,
        path: &str,
        expect: &EffectKind,
        seen: Seen,
    ) -> Vec<Finding> {
        let Some(rule) = self.loaded.setup.get(index) else {
            return Vec::new();
        };
        let seen = match seen {
            // On a folder a setup file not there differs from what setup made, whatever the
            // reason.
            Seen::Missing(found) if self.on_folder => Seen::Differs(found),
            seen => seen,
        };
        let message = format!("setup call {} made {path}, which should then be", index + 1);
        // A setup file cut when stored stays a fault of the setup: what the steps then find
        // follows from it.
        effects::seen_finding(Check::Setup, rule, message, expect, seen)
            .into_iter()
            .collect()
    }

    fn step(
        &mut self,
        index: usize,
        input: &Value,
        answer: &ToolResult,
        breaches: Vec<Breach>,
        base: &Path,
    ) -> Result<Judgement, Fault> {
        let loaded = self.loaded;
        let Some(step) = loaded.case.steps.get(index) else {
            return Err(Fault::Harness(format!(
                "case {} has no step {}",
                loaded.case.id,
                index + 1
            )));
        };
        let leaks = confinement::findings(breaches, &loaded.always, Some(index), "in an answer");
        if loaded.case.restart && index == 0 {
            self.restarted_empty = !answer.is_error
                && !answer
                    .text
                    .lines()
                    .skip(1)
                    .any(|line| line.contains("/memories/"));
        }
        self.before.wrote(input, answer.is_error);
        let read_back = if answer.is_error {
            None
        } else {
            self.read_created(index, input)
        };
        let mut findings = Vec::new();
        // An outcome is chosen by the flag and the words together: a refusal the spec words,
        // flagged as a success, is the expected refusal with its flag missing (one
        // `errors.is-error-flag` finding, the case's effects), never the alternative success.
        let unflagged_refusal = step.is_error == Some(true)
            && !answer.is_error
            && answers::refuses_in_words(step, answer);
        let offered = loaded.alternatives.get(index).and_then(Option::as_ref);
        let allowed = offered.filter(|other| !unflagged_refusal || other.is_error);
        if let Some(other) = offered {
            self.choices.push(Choice {
                rule: other.rule.rule.clone(),
                step: index,
                choice: other.choice.clone(),
                taken: allowed.is_some() && answer.is_error == other.is_error,
            });
        }
        let mut next = Next::Go;
        let limit = effects::beyond_limit(input).filter(|_| step.is_error == Some(false));
        if let (Some(choice), true) = (limit, answer.is_error) {
            // A limit refused cleanly is the backend's choice (decide.limits); what it did accept
            // is still checked: every effect but those the refused step and the steps after it
            // would have made.
            self.choices.push(Choice {
                rule: known::LIMITS,
                step: index,
                choice: choice.to_string(),
                taken: true,
            });
            findings.push(
                Finding::new(
                    Check::IsError,
                    Level::Info,
                    known::LIMITS,
                    format!(
                        "the backend refused {} beyond a limit of its own, which the page lets it set",
                        effects::described(input)
                    ),
                )
                .at(Some(index))
                .expecting("false".to_string())
                .actually(answer.text.clone()),
            );
            let unmade =
                effects::named_paths(loaded.case.steps[index..].iter().map(|step| &step.input));
            self.effects.retain(|(effect, _)| {
                !unmade
                    .iter()
                    .any(|path| effects::related(&effect.path, path))
            });
            self.keep_through_refusal(index, &unmade);
            next = Next::Effects;
        } else {
            match allowed {
                Some(allowed) if answer.is_error == allowed.is_error => {
                    // The backend took the other outcome this revision allows: the expected
                    // flag and words do not apply, and what it leaves behind is the
                    // alternative's.
                    answers::forbidden_content(loaded, base, step, index, answer, &mut findings);
                    self.effects
                        .retain(|(e, _)| !allowed.effects.iter().any(|a| a.path == e.path));
                    self.effects
                        .extend(allowed.effects.iter().map(|e| (e, &allowed.rule)));
                }
                _ => {
                    if step.is_error == Some(false)
                        && answer.is_error
                        && cascade::changes_store(input)
                    {
                        self.before.refused(
                            input,
                            Cause {
                                rule: loaded.steps[index].is_error.rule.clone(),
                                step: Some(index),
                            },
                        );
                    }
                    answers::check_step(loaded, base, step, index, answer, &mut findings)?;
                }
            }
        }
        let user = step.user.as_deref();
        let leaks = self.as_user(leaks, user);
        let findings = self.as_user(findings, user);
        Ok(match read_back {
            Some((path, expect)) => {
                self.held = findings;
                Judgement {
                    findings: leaks,
                    next: Next::ReadBack { path, expect },
                }
            }
            None => {
                let mut all = leaks;
                all.extend(findings);
                Judgement {
                    findings: all,
                    next,
                }
            }
        })
    }

    /// After step `index` refused beyond a limit, the steps stop and the store must be as it
    /// was before that step: each memory the setup made on a path in `unmade` (those the step
    /// and the later ones name), and no earlier step named, is expected unchanged, under the
    /// refused step's rule. A backend that truncates or removes a memory and then refuses has
    /// lost it; a missing one is [`Before`]'s loss, since no rename that ran moved it.
    fn keep_through_refusal(&mut self, index: usize, unmade: &[String]) {
        let case = &self.loaded.case;
        if !case.users.is_empty() {
            return;
        }
        let earlier = effects::named_paths(case.steps[..index].iter().map(|step| &step.input));
        let touched =
            |path: &str, named: &[String]| named.iter().any(|other| effects::related(path, other));
        self.kept_after = index;
        let rule = &self.loaded.steps[index].is_error;
        for (_, path, expect) in witness::setup_files(&case.setup) {
            if touched(&path, unmade) && !touched(&path, &earlier) {
                let effect = Effect {
                    path,
                    user: None,
                    expect,
                    rule: Some(rule.rule.to_string()),
                };
                self.kept.push((effect, rule.clone()));
            }
        }
        self.before.stopped_before(&case.steps[..index]);
    }

    /// A step's successful `create` of a file that a later step edits is read back at once: a
    /// create that wrote the wrong bytes is then that step's fault, under
    /// `create.writes-file-text`, and what the edits leave follows from it (one fault, one root
    /// cause), instead of a wrong file graded under the edit's rule.
    fn read_created(&self, index: usize, input: &Value) -> Option<(String, EffectKind)> {
        let field = |name: &str| input.get(name).and_then(Value::as_str);
        let (Some("create"), Some(path), Some(text)) =
            (field("command"), field("path"), field("file_text"))
        else {
            return None;
        };
        let edited_later = self.loaded.case.steps.iter().skip(index + 1).any(|step| {
            matches!(
                step.input.get("command").and_then(Value::as_str),
                Some("str_replace" | "insert")
            ) && step.input.get("path").and_then(Value::as_str) == Some(path)
        });
        // Through the tool a large file is read in pages; on a folder the disk reads it at once.
        // Steps made together are told after they all ran: a read then would see later edits.
        if !edited_later
            || (!self.on_folder && effects::large_write(input))
            || self.loaded.case.together
        {
            return None;
        }
        Some((path.to_string(), EffectKind::FileText(text.to_string())))
    }

    fn created(
        &mut self,
        index: usize,
        path: &str,
        expect: &EffectKind,
        seen: Seen,
    ) -> Vec<Finding> {
        let mut findings = Vec::new();
        if matches!(seen, Seen::Differs(_) | Seen::ViewWrong(_) | Seen::Cut(_)) {
            // Bytes wrong are the create's fault; bytes right but viewed wrong, the view's.
            let wrote_wrong = matches!(seen, Seen::Differs(_) | Seen::Cut(_));
            let message = format!("step {} created {path}, which should then be", index + 1);
            // A copy cut when stored lost the rest of what was acknowledged.
            let check = if matches!(seen, Seen::Cut(_)) {
                Check::Lost
            } else {
                Check::Effect
            };
            if let Some(finding) =
                effects::seen_finding(check, &self.loaded.writes, message, expect, seen)
            {
                findings.push(finding.at(Some(index)));
                if wrote_wrong {
                    self.before.create_fault(path, index);
                }
            }
        }
        findings.append(&mut self.held);
        findings
    }

    /// The rule of the setup call that last named `path`, a folder above it or a path below it
    /// (as its `path`, `old_path` or `new_path`): the write that made what is there.
    fn made_by(&self, path: &str) -> Option<&'c Graded> {
        let path = path.trim_end_matches('/');
        let related = |other: &str| {
            let other = other.trim_end_matches('/');
            [(path, other), (other, path)]
                .iter()
                .any(|(a, b)| a == b || a.strip_prefix(b).is_some_and(|rest| rest.starts_with('/')))
        };
        let loaded = self.loaded;
        loaded
            .case
            .setup
            .iter()
            .zip(&loaded.setup)
            .rev()
            .find(|(call, _)| {
                ["path", "old_path", "new_path"]
                    .iter()
                    .filter_map(|field| call.input().get(*field).and_then(Value::as_str))
                    .any(related)
            })
            .map(|(_, graded)| graded)
    }

    fn effects(&self, seen: &[Seen]) -> Vec<Finding> {
        if let Some(finding) = self.process_store(seen) {
            return vec![finding];
        }
        if let Some(before) = &self.before_restart
            && !self.of_users()
            && self.kept.is_empty()
        {
            let made_by: Vec<&Graded> = self
                .effects
                .iter()
                .map(|(effect, graded)| self.made_by(&effect.path).unwrap_or(graded))
                .collect();
            return super::restart::judge(
                &self.effects,
                &made_by,
                before,
                seen,
                &self.before,
                &self.loaded.writes,
                self.on_folder,
            );
        }
        let how = match (self.loaded.case.restart, self.on_folder) {
            (true, _) => "read back with view after a restart",
            (false, true) => "after the steps",
            (false, false) => "read back with view after the steps",
        };
        if !self.of_users() {
            let (seen, kept_seen) = seen.split_at(self.effects.len().min(seen.len()));
            let mut findings = effects::judge(
                &self.effects,
                seen,
                &self.before,
                &self.loaded.writes,
                self.on_folder,
                how,
            );
            let kept: Vec<_> = self.kept.iter().map(|(e, g)| (e, g)).collect();
            findings.extend(effects::judge(
                &kept,
                kept_seen,
                &self.before,
                &self.loaded.writes,
                self.on_folder,
                &format!(
                    "{how} (step {} was refused beyond a limit, and a refusal leaves the store as it was)",
                    self.kept_after + 1
                ),
            ));
            return findings;
        }
        // Each user's effects are judged among themselves, as that user's view showed them, and
        // under the case's own rule: what the store held is per user, and another user's bytes
        // at a path are a crossing, never a create or a loss of this user's own.
        let unknown = Before::default();
        let mut findings = Vec::new();
        for user in &self.loaded.case.users {
            let (effects, seen): (Vec<_>, Vec<Seen>) = self
                .effects
                .iter()
                .zip(seen)
                .filter(|((effect, _), _)| self.user_of(effect.user.as_deref()) == user)
                .map(|(effect, seen)| (*effect, seen.clone()))
                .unzip();
            // Both users named, as every finding of a crossing does.
            let how = format!(
                "read back with view {}",
                super::crossing::beside_users(user, &self.loaded.case.users)
            );
            findings.extend(effects::judge(
                &effects,
                &seen,
                &unknown,
                &self.loaded.writes,
                false,
                &how,
            ));
        }
        findings
    }

    /// The users lane's disk witness, on a folder: learns where `user`'s memories lie from its
    /// first successful `create` (the file that appeared, less the memory path), and finds a
    /// call of `user` that changed anything inside another user's folder. `changed` is `None`
    /// unless the runner looked at the disk after this call alone.
    fn disk(
        &mut self,
        user: Option<&str>,
        step: Option<usize>,
        input: &Value,
        answer: &ToolResult,
        changed: Option<&[String]>,
    ) -> Vec<Finding> {
        let Some(changed) = changed.filter(|_| self.of_users()) else {
            return Vec::new();
        };
        let user = self.user_of(user).to_string();
        let field = |name: &str| input.get(name).and_then(Value::as_str);
        let created = (field("command") == Some("create") && !answer.is_error)
            .then(|| field("path")?.strip_prefix("/memories/"))
            .flatten();
        if let Some(relative) = created.filter(|_| !self.roots.contains_key(&user)) {
            let others: Vec<&String> = (self.roots.iter())
                .filter(|(other, root)| **other != user && !root.is_empty())
                .map(|(_, root)| root)
                .collect();
            let root = changed
                .iter()
                .filter_map(|path| match path.strip_suffix(relative) {
                    Some("") => Some(String::new()),
                    Some(root) => root.strip_suffix('/').map(str::to_string),
                    None => None,
                })
                .find(|root| !others.iter().any(|theirs| within(root, theirs)));
            if let Some(root) = root {
                self.roots.insert(user.clone(), root);
            }
        }
        let mine = self.roots.get(&user);
        let mut findings = Vec::new();
        for (other, theirs) in &self.roots {
            // A user whose memories are the whole folder is told by the views: everything is
            // inside it.
            if *other == user || theirs.is_empty() {
                continue;
            }
            let touched: Vec<&String> = (changed.iter())
                .filter(|path| within(path, theirs) && !mine.is_some_and(|m| within(path, m)))
                .collect();
            let Some(first) = touched.first() else {
                continue;
            };
            let graded = &self.loaded.always.users;
            findings.push(
                Finding::new(
                    Check::Outside,
                    graded.level,
                    graded.rule.clone(),
                    format!(
                        "the call changed memories/{first} on disk, inside the folder of user {} (memories/{theirs}, where its first create landed)",
                        shown_user(other)
                    ),
                )
                .at(step)
                .actually(touched_list(&touched)),
            );
        }
        self.as_user(findings, Some(&user))
    }

    /// The user a call or effect naming `user` is made as: that one, or the case's first.
    fn user_of<'u>(&'u self, user: Option<&'u str>) -> &'u str {
        user.or_else(|| self.loaded.case.users.first().map(String::as_str))
            .unwrap_or_default()
    }

    /// `findings` of a call made as `user`, saying so in a case of many users, with the
    /// case's other users: a crossing names both sides.
    fn as_user(&self, mut findings: Vec<Finding>, user: Option<&str>) -> Vec<Finding> {
        if self.of_users() {
            let who = super::crossing::beside_users(self.user_of(user), &self.loaded.case.users);
            for finding in &mut findings {
                finding.message = format!("{who}: {}", finding.message);
            }
        }
        findings
    }

    /// A restart after which the store is empty (its listing shows nothing below `/memories`
    /// and none of the files the case expects is there), on a store that is not a folder: the
    /// backend keeps its memories in its process only, its choice (decide.process-store), and
    /// nothing further is checked. A store that still holds anything lost what is missing; on
    /// a folder the folder is the store, and what the new process does not serve is lost.
    fn process_store(&self, seen: &[Seen]) -> Option<Finding> {
        if !self.loaded.case.restart || self.on_folder || !self.restarted_empty {
            return None;
        }
        let files: Vec<&Seen> = self
            .effects
            .iter()
            .zip(seen)
            .filter(|((effect, _), _)| {
                !matches!(effect.expect, EffectKind::Absent(_) | EffectKind::Dir(_))
            })
            .map(|(_, seen)| seen)
            .collect();
        let none = !files.is_empty() && files.iter().all(|s| matches!(s, Seen::Missing(_)));
        none.then(|| {
            Finding::new(
                Check::Effect,
                Level::Info,
                known::PROCESS_STORE,
                format!(
                    "after a restart on the same store, none of the {} the setup made is there: the backend keeps its memories in its process only, so a later conversation starts with none (nothing further checked)",
                    match files.len() {
                        1 => "1 memory".to_string(),
                        n => format!("{n} memories"),
                    }
                ),
            )
        })
    }

    fn ended(&self, mut findings: Vec<Finding>, broke: Option<&Fault>) -> Judgement {
        let planted = effects::planted_from_outside(&self.loaded.case.fixtures);
        let mut judgement = match (broke, planted) {
            (None, Some((rule, what))) => {
                effects::hostile_environment(&mut findings, &rule, &what);
                Judgement::go(findings)
            }
            (None, None) => Judgement::go(findings),
            // Breaking on an object no tool call can make (hanging on a FIFO) is this case's
            // finding in the hostile-environment tier, not the run's headline.
            (Some(fault), Some((rule, what))) => {
                findings.push(
                    Finding::new(
                        Check::Sandbox,
                        Level::Info,
                        rule,
                        format!(
                            "hostile environment: the backend broke on {what} planted from outside"
                        ),
                    )
                    .actually(fault.to_string()),
                );
                Judgement::go(findings)
            }
            (Some(_), None) => Judgement {
                findings,
                next: Next::Broke,
            },
        };
        // One fault, one root cause: what follows from the first fault that changed the store
        // is marked as following it.
        let inputs: Vec<&Value> = self.loaded.case.steps.iter().map(|s| &s.input).collect();
        cascade::mark_follows(&mut judgement.findings, &inputs);
        if self.of_users() {
            follow_crossing(&mut judgement.findings);
        }
        judgement
    }
}

/// In a case of many users where one user reached another's memories, every other fault of
/// the case (a wrong flag, a file with the other user's bytes) follows from that crossing: one
/// root cause, the crossing, whatever order the facts were seen in.
fn follow_crossing(findings: &mut [Finding]) {
    let crossing = |f: &Finding| f.rule == known::USERS_ISOLATED && f.level != Level::Info;
    let Some(cause) = findings.iter().find(|f| crossing(f)).map(|f| Cause {
        rule: f.rule.clone(),
        step: f.step,
    }) else {
        return;
    };
    for finding in findings.iter_mut() {
        if !crossing(finding) && finding.level != Level::Info && finding.follows.is_none() {
            finding.follows = Some(cause.clone());
        }
    }
}

/// The paths a call changed in another user's folder, one a line: at most [`TOUCHED_SHOWN`],
/// however many the backend wrote.
fn touched_list(touched: &[&String]) -> String {
    let mut lines: Vec<String> = (touched.iter().take(TOUCHED_SHOWN))
        .map(|path| format!("memories/{path}"))
        .collect();
    if touched.len() > TOUCHED_SHOWN {
        lines.push(format!("and {} more", touched.len() - TOUCHED_SHOWN));
    }
    lines.join("\n")
}

/// Paths of another user's folder a disk finding lists.
const TOUCHED_SHOWN: usize = 20;

/// Whether `path` (relative to `memories/`) is `root` or below it; everything is below `""`.
fn within(path: &str, root: &str) -> bool {
    root.is_empty()
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// A user id as a report shows it: quoted, control characters escaped.
pub fn shown_user(user: &str) -> String {
    format!("\"{}\"", user.escape_debug())
}

fn stop(findings: Vec<Finding>) -> Judgement {
    Judgement {
        findings,
        next: Next::Stop,
    }
}
