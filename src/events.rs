//! The stream every engine emits as it runs: a stage started with a total, a case or a step
//! done, a note. Engines push events into a [`Sink`] and never render anything; the report
//! layer implements the sinks (a progress bar on a terminal, a line now and then in a CI log)
//! and renders the finished run. A sink is shared by the workers of a run, so it takes `&self`.

use crate::judge::grade::CaseResult;

/// Which part of a run a [`Event::Started`] opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// `check`'s cases.
    Cases,
    /// `check`'s failed cases run again one at a time, to tell a shared store from a fault.
    Recheck,
    /// `replay`'s memory calls.
    Steps,
    /// `fuzz`'s calls, in random sequences; a total of 0 when the budget is a time.
    Fuzz,
}

impl Stage {
    /// What its units are called (`cases`, `steps`).
    pub fn units(self) -> &'static str {
        match self {
            Stage::Cases | Stage::Recheck => "cases",
            Stage::Steps | Stage::Fuzz => "steps",
        }
    }
}

/// One thing that happened in a run.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// A stage started, with the number of units it will run.
    Started {
        /// Which.
        stage: Stage,
        /// How many cases, steps or sequences.
        total: usize,
    },
    /// A case is done, with its outcome and findings.
    Case(&'a CaseResult),
    /// `done` units of the current stage are done; `last` names the last one, when it has a
    /// name.
    Progress {
        /// Units done so far.
        done: usize,
        /// Its last unit's name.
        last: Option<&'a str>,
    },
}

/// Where an engine's events go.
pub trait Sink: Sync {
    /// Takes one event.
    fn event(&self, event: Event<'_>);
}

/// A sink that drops every event: a run nobody watches (a matrix column, a test).
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl Sink for Quiet {
    fn event(&self, _event: Event<'_>) {}
}
