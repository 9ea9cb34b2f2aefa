//! What a loaded [`Spec`] answers: its revisions, the checked id and the level of a rule,
//! and the rules themselves.

use super::{Level, Revision, RevisionInfo, Rule, RuleId, Spec};

impl Spec {
    /// The revision of the page these rules are.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// What `spec/rules.json` says about each revision, oldest first.
    pub fn revisions(&self) -> &[RevisionInfo] {
        &self.revisions
    }

    /// What `spec/rules.json` says about this spec's revision.
    pub fn revision_info(&self) -> Option<&RevisionInfo> {
        self.revisions.iter().find(|r| r.id == self.revision)
    }

    /// The checked id of the rule spelled `id` as it is graded in this revision: the rule
    /// itself, or the decision a GA rule falls back to under a revision that left it open.
    pub fn id(&self, id: &str) -> Option<RuleId> {
        self.rules
            .get(id)
            .map(|r| r.id.clone())
            .or_else(|| self.graded_as.get(id).cloned())
    }

    /// Why `id` is not a rule of this revision, when it is one of another revision.
    pub fn elsewhere(&self, id: &str) -> Option<&str> {
        self.elsewhere.get(id).map(String::as_str)
    }

    /// The rule `id` is graded as in this revision, when it is not a rule of its own here.
    pub fn graded_as(&self, id: &str) -> Option<&RuleId> {
        self.graded_as.get(id)
    }

    /// The ids graded as `target` in this revision (the GA rules the beta page left to it).
    pub fn graded_as_it<'a>(&'a self, target: &'a str) -> impl Iterator<Item = &'a str> {
        self.graded_as
            .iter()
            .filter(move |(_, t)| t.as_str() == target)
            .map(|(id, _)| id.as_str())
    }

    /// The level of a rule: what a check of it is graded at.
    pub fn level(&self, id: &RuleId) -> Level {
        // Every RuleId comes from this spec or from `known`, checked at load; a decision is
        // INFO whatever happens.
        match self.rules.get(id.as_str()) {
            Some(rule) => rule.level,
            None if id.is_decision() => Level::Info,
            None => Level::Must,
        }
    }

    /// The rule with this id.
    pub fn get(&self, id: &str) -> Option<&Rule> {
        self.rules.get(id)
    }

    /// All rules, by id.
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules.values()
    }
}
