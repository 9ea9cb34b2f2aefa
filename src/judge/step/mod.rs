//! The judge's one door. An engine makes a call (or reads something back), says what it
//! observed, and [`step`] answers with the findings, graded by the rules of the revision, and
//! what the engine should do next. `check`'s runner, `replay`, `record` and `fuzz` grade through
//! here and nowhere else: their loops call and observe, the judge grades.
//!
//! - [`Replayed`]: one replayed call (replay, record, fuzz);
//! - [`CaseCall`] on a [`CaseLedger`]: a check case's calls and read-backs, in order;
//! - [`Facts`]: a replayed step judged on the facts any correct backend shares (fuzz);
//! - [`Race`]: what several clients of one store were told, and the store afterwards;
//! - [`Crash`]: a write killed at one point of its work, and the store after a restart;
//! - [`Crossing`]: a user's call beside others, and the same call in that user's calls alone.

mod case;
mod crash;
mod crossing;
mod drift;
mod race;
mod replayed;
mod restart;

pub use case::{CaseCall, CaseLedger, shown_user};
pub use crash::{Crash, Files, KillPoint, ReadAs};
pub use crossing::Crossing;
pub use race::Race;
pub use replayed::{ReplayLedger, Replayed, Witness, folder_divergence};

use super::Finding;
use super::compare::Answer;
use super::facts::{self, Judged, Stores};
use crate::exec::Fault;
use crate::reference::Answer as ReferenceAnswer;
use crate::spec::Spec;
use crate::suite::case::EffectKind;
use serde_json::Value;

/// What an engine observed, for the judge.
pub enum Observation<'a, 'c> {
    /// A replayed call, on the replay's ledger (how it is graded, and what the judge keeps
    /// between its steps).
    Replayed(&'a mut ReplayLedger<'c>, Replayed<'a>),
    /// A check case's call or read-back, on the case's ledger (what the judge keeps of the
    /// case between its calls).
    Case(&'a mut CaseLedger<'c>, CaseCall<'a>),
    /// A replayed step, judged on facts alone.
    Facts(Facts<'a>),
    /// What several clients of one store were told in a race, and what it read as afterwards;
    /// graded by the revision's rules.
    Race(Race<'a>, &'a Spec),
    /// A write killed at one point of its work, and the store a new process serves; graded by
    /// the crash lane's rules.
    Crash(Crash<'a>, &'a Spec),
    /// A user's call beside the other users of a store and the same call in that user's calls
    /// alone: a crossing (`users.isolated`) when they answered otherwise.
    Crossing(Crossing<'a>),
}

/// A replayed step for [`Observation::Facts`].
pub struct Facts<'a> {
    /// The tool input.
    pub input: &'a Value,
    /// What the backend gave (`None`: not a memory call).
    pub backend: Option<&'a Answer>,
    /// The step's differences from the reference, as its replay graded them.
    pub findings: &'a [Finding],
    /// The reference's answer, with its rule.
    pub reference: &'a ReferenceAnswer,
    /// The store before and after the step, as the reference holds it.
    pub stores: Stores<'a>,
    /// The revision's rules.
    pub spec: &'a Spec,
}

/// The judge's answer to one observation.
#[derive(Debug)]
pub struct Judgement {
    /// What did not hold, graded.
    pub findings: Vec<Finding>,
    /// What the engine does next.
    pub next: Next,
}

/// What the engine does after an observation.
#[derive(Debug, Clone)]
pub enum Next {
    /// Go on.
    Go,
    /// Read `path` back now (from the disk on a folder, else with the backend's `view`) and
    /// observe what was seen ([`CaseCall::Created`]) before the next call.
    ReadBack {
        /// The memory path.
        path: String,
        /// What it should hold.
        expect: EffectKind,
    },
    /// Stop the case here: the rest cannot be checked (a refusal the page allows).
    Stop,
    /// Make no further step, but read the effects the judge still expects: a refusal the page
    /// allows, after which what the backend did accept is still checked.
    Effects,
    /// The backend answered otherwise where the spec lets it: judge no further (why).
    Open(String),
    /// The backend's break stands as the case's outcome ([`CaseCall::Ended`]).
    Broke,
}

impl Judgement {
    fn go(findings: Vec<Finding>) -> Judgement {
        Judgement {
            findings,
            next: Next::Go,
        }
    }
}

/// Grades one observation. `Err` only for the harness's fault (a case's matcher that cannot be
/// applied), never the backend's.
pub fn step(seen: Observation<'_, '_>) -> Result<Judgement, Fault> {
    match seen {
        Observation::Replayed(ledger, call) => Ok(Judgement::go(replayed::judge(ledger, call))),
        Observation::Case(ledger, call) => ledger.observe(call),
        Observation::Race(race, spec) => Ok(Judgement::go(race::judge(race, spec))),
        Observation::Crash(crash, spec) => Ok(Judgement::go(crash::judge(crash, spec))),
        Observation::Crossing(crossing) => Ok(Judgement::go(
            crossing::judge(&crossing).into_iter().collect(),
        )),
        Observation::Facts(step) => Ok(
            match facts::judge(
                step.input,
                step.backend,
                step.findings,
                step.reference,
                step.stores,
                step.spec,
            ) {
                Judged::Same => Judgement::go(Vec::new()),
                Judged::Open(why) => Judgement {
                    findings: Vec::new(),
                    next: Next::Open(why),
                },
                Judged::Found(found) => Judgement::go(vec![*found]),
            },
        ),
    }
}
