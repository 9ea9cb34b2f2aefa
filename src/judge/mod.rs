//! The judge: one layer that grades every answer, whichever command made the call.
//!
//! - [`Finding`]: the one finding type, with its [`Check`], [`Harm`], replayed [`Pair`] and
//!   [`Fact`];
//! - [`step()`]: the one door: what an engine observed in ([`Observation`]: a replayed call, a
//!   check case's call or read-back, a step's facts), findings and what to do next out;
//! - [`grade`]: a case's calls, outcome and choices;
//! - [`witness`]: what the store holds, read through the tool (or "unverified", with why);
//! - [`effects`], [`answers`]: a case's effects and answers graded by the rules of its revision;
//! - [`cascade`]: which finding follows from which, and the root causes ranked by harm;
//! - [`lineage`]: the known lineages (SDK dialects) an answer shows.
//!
//! `check`, `matrix`, `replay`, `record` and `fuzz` all grade through here.

pub mod answers;
pub mod cascade;
pub mod compare;
pub mod confinement;
pub mod dialect;
pub mod disk;
pub mod effects;
pub mod facts;
mod finding;
pub mod grade;
pub mod lineage;
pub mod model;
pub mod rules;
mod step;
pub mod witness;

pub use finding::{Cause, Check, Fact, Finding, Harm, Pair, worst};
pub use step::{
    CaseCall, CaseLedger, Crash, Crossing, Facts, Files, Judgement, KillPoint, Next, Observation,
    Race, ReadAs, ReplayLedger, Replayed, Witness, folder_divergence, shown_user, step,
};
