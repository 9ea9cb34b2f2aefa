//! Rules with the level a revision grades them at.

use super::{Level, RuleId, Spec, known};

/// The rules of the checks made in every case, whatever it says.
#[derive(Debug, Clone)]
pub struct Always {
    /// Nothing outside the memory folder is touched or shown.
    pub confinement: Graded,
    /// No host path in an output.
    pub host_paths: Graded,
    /// In a store of many users, nothing crosses from one user's memories to another's.
    pub users: Graded,
}

/// A rule with the level it grades at, taken from `spec/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graded {
    /// The rule.
    pub rule: RuleId,
    /// Its level.
    pub level: Level,
}

impl Graded {
    /// The rule, graded as `spec` says.
    pub fn of(rule: RuleId, spec: &Spec) -> Graded {
        Graded {
            level: spec.level(&rule),
            rule,
        }
    }
}

impl Always {
    /// The rules, graded as `spec` says.
    pub fn of(spec: &Spec) -> Always {
        Always {
            confinement: Graded::of(known::CONFINEMENT, spec),
            host_paths: Graded::of(known::NO_HOST_PATHS, spec),
            users: Graded::of(known::USERS_ISOLATED, spec),
        }
    }
}
