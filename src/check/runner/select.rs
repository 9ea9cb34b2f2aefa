//! Which cases a run takes: [`Selection`] by id pattern, area, rule, level and attack, and the
//! `*` patterns of [`glob`].

use crate::spec::Level;
use crate::suite::load::{LoadedCase, Suite};

/// Which cases to run. Empty lists select everything.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Id patterns; `*` matches any run of characters.
    pub ids: Vec<String>,
    /// Areas (file areas such as `create`).
    pub areas: Vec<String>,
    /// Rule ids; a case is selected when it names one.
    pub rules: Vec<String>,
    /// Levels.
    pub levels: Vec<Level>,
    /// Only attack cases.
    pub hostile_only: bool,
}

impl Selection {
    /// Whether `case` is selected.
    pub fn selects(&self, case: &LoadedCase) -> bool {
        (self.ids.is_empty() || self.ids.iter().any(|p| glob(p, &case.case.id)))
            && (self.areas.is_empty() || self.areas.contains(&case.area))
            && (self.rules.is_empty() || case.case.rules.iter().any(|r| self.rules.contains(r)))
            && (self.levels.is_empty() || self.levels.contains(&case.level))
            && (!self.hostile_only || case.case.hostile)
    }

    /// Whether the race `race.{name}` of `check --clients N` is selected: it is in area `races`,
    /// checks the `concurrency.*` rules at `level` (the highest of theirs, [`race_level`]), and
    /// is no attack.
    ///
    /// [`race_level`]: crate::race::race_level
    pub fn selects_race(&self, name: &str, level: Level) -> bool {
        self.selects_lane(
            &format!("race.{name}"),
            "races",
            &crate::spec::known::RACE_RULES,
            level,
        )
    }

    /// Whether the crash scenario `id` (`crash.…`) of `check --crash` is selected: it is in
    /// area `crash`, checks the `durability.*` rules at MUST, and is no attack.
    pub fn selects_crash(&self, id: &str) -> bool {
        self.selects_lane(id, "crash", &crate::spec::known::CRASH_RULES, Level::Must)
    }

    /// Whether `--area crash` or a `--case crash.…` asks for the crash lane by itself (the
    /// rerun line of a crash scenario is `--case crash.<id>`).
    pub fn asks_for_crash(&self) -> bool {
        self.areas.iter().any(|a| a == "crash") || self.ids.iter().any(|p| p.starts_with("crash."))
    }

    /// Whether a result of a lane (not a case of the suite) with this id, area, rules and level
    /// is selected.
    fn selects_lane(
        &self,
        id: &str,
        area: &str,
        rules: &[crate::spec::RuleId],
        level: Level,
    ) -> bool {
        (self.ids.is_empty() || self.ids.iter().any(|p| glob(p, id)))
            && (self.areas.is_empty() || self.areas.iter().any(|a| a == area))
            && (self.rules.is_empty()
                || rules
                    .iter()
                    .any(|r| self.rules.iter().any(|s| s == r.as_str())))
            && (self.levels.is_empty() || self.levels.contains(&level))
            && !self.hostile_only
    }

    /// The selected cases, in suite order.
    pub fn apply<'a>(&self, suite: &'a Suite) -> Vec<&'a LoadedCase> {
        suite.cases.iter().filter(|c| self.selects(c)).collect()
    }
}

/// `*` matches any run of characters; everything else is literal.
pub fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn globs() {
        assert!(glob("paths.*", "paths.dotdot.view"));
        assert!(glob("*.view", "paths.dotdot.view"));
        assert!(glob("*dotdot*", "paths.dotdot.view"));
        assert!(!glob("create.*", "paths.dotdot.view"));
        assert!(glob("exact", "exact"));
    }
}
