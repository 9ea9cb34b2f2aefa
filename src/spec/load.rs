//! Loading a [`Spec`]: reading `rules.json` and `decisions.json`, taking each rule as it
//! holds in one revision, and refusing files the code cannot rely on.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::file::{DecisionsFile, RawEntry, RawRule, RulesFile};
use super::{Level, Revision, Rule, RuleId, Spec, known};
use crate::builtin::{self, Source};

/// Why the spec files could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A file is not what the schema describes.
    #[error("{path} is not a valid spec file: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong, with line and column.
        message: String,
    },
    /// Two rules share an id.
    #[error("rule id `{0}` is defined twice in spec/")]
    Duplicate(String),
    /// A decision is graded above INFO: decisions are the reference's choices, never the spec's.
    #[error(
        "decision `{0}` in spec/decisions.json has a level above INFO; a decision only informs"
    )]
    DecisionAboveInfo(String),
    /// A rule the code relies on is missing.
    #[error("spec/ has no rule `{0}` under {1}, which memspec's own checks name")]
    Missing(String, Revision),
    /// A rule's entry for a revision is not one of the three forms.
    #[error("rule `{id}` in spec/rules.json: its entry for {revision} {problem}")]
    BadRevisionEntry {
        /// The rule.
        id: String,
        /// The revision.
        revision: String,
        /// What is wrong.
        problem: String,
    },
    /// `spec/rules.json` does not describe a revision memspec knows.
    #[error("spec/rules.json has no entry for revision {0} in `revisions`")]
    NoRevision(Revision),
}

impl Spec {
    /// Loads `rules.json` and `decisions.json` from `dir`, as they hold in `revision`.
    pub fn load(dir: &Path, revision: Revision) -> Result<Spec, SpecError> {
        let rules = dir.join("rules.json");
        let decisions = dir.join("decisions.json");
        Spec::parse(
            (&rules, &read(&rules)?),
            (&decisions, &read(&decisions)?),
            revision,
        )
    }

    /// The spec compiled into this binary ([`crate::builtin`]), as it holds in `revision`.
    pub fn builtin(revision: Revision) -> Result<Spec, SpecError> {
        Spec::parse(
            (Path::new("built-in spec/rules.json"), builtin::RULES),
            (
                Path::new("built-in spec/decisions.json"),
                builtin::DECISIONS,
            ),
            revision,
        )
    }

    /// Loads the spec from `source`, as it holds in `revision`.
    pub fn load_from(source: &Source, revision: Revision) -> Result<Spec, SpecError> {
        match source {
            Source::Builtin => Spec::builtin(revision),
            Source::Dir(dir) => Spec::load(dir, revision),
        }
    }

    /// Parses the texts of `rules.json` and `decisions.json`, each with the path named in errors.
    fn parse(
        rules: (&Path, &str),
        decisions: (&Path, &str),
        revision: Revision,
    ) -> Result<Spec, SpecError> {
        let rules: RulesFile = parse_json(rules.0, rules.1)?;
        let decisions: DecisionsFile = parse_json(decisions.0, decisions.1)?;
        if !rules.revisions.iter().any(|r| r.id == revision) {
            return Err(SpecError::NoRevision(revision));
        }
        let mut spec = Spec {
            revision,
            revisions: rules.revisions,
            ..Spec::default()
        };
        for raw in rules.rules {
            spec.insert_rule(raw)?;
        }
        for raw in decisions.decisions {
            if raw.level != Level::Info || !raw.id.starts_with("decide.") {
                return Err(SpecError::DecisionAboveInfo(raw.id));
            }
            if !raw.revisions.is_empty() && !raw.revisions.contains(&revision) {
                let only: Vec<&str> = raw.revisions.iter().map(|r| r.id()).collect();
                let why = format!("the reference decides it only under {}", only.join(", "));
                spec.elsewhere.insert(raw.id, why);
                continue;
            }
            if let Some(retired) = raw.retired_in.get(revision.id()) {
                let by = retired.by.join(", ");
                spec.elsewhere.insert(
                    raw.id,
                    format!("{} (see {by})", retired.reason.trim_end_matches('.')),
                );
                continue;
            }
            spec.insert(Rule {
                id: RuleId(Cow::Owned(raw.id)),
                level: raw.level,
                section: "decision of the reference".to_string(),
                text: raw.decision,
                summary: raw.question,
                basis: String::new(),
                note: raw.reason,
                change: raw.change,
            })?;
        }
        for (id, target) in &spec.graded_as {
            if !spec.rules.contains_key(target.as_str()) {
                return Err(SpecError::BadRevisionEntry {
                    id: id.clone(),
                    revision: revision.to_string(),
                    problem: format!(
                        "grades it as `{target}`, which is not a rule or decision here"
                    ),
                });
            }
        }
        // A known id may belong to another revision only (the reference never names it here).
        let missing = known::ALL
            .iter()
            .find(|id| spec.get(id.as_str()).is_none() && spec.elsewhere(id.as_str()).is_none());
        if let Some(missing) = missing {
            return Err(SpecError::Missing(missing.to_string(), revision));
        }
        Ok(spec)
    }

    /// Adds a rule of `rules.json` as it holds in this spec's revision.
    fn insert_rule(&mut self, mut raw: RawRule) -> Result<(), SpecError> {
        if let Some(unknown) = raw
            .revisions
            .keys()
            .find(|k| k.parse::<Revision>().is_err())
        {
            return Err(SpecError::BadRevisionEntry {
                id: raw.id,
                revision: unknown.clone(),
                problem: "names a revision memspec does not know".to_string(),
            });
        }
        let RawEntry {
            level,
            section,
            text,
            summary,
            basis,
            note,
            change,
            graded_as,
            absent,
        } = raw.revisions.remove(self.revision.id()).unwrap_or_default();
        let changes = level.is_some()
            || section.is_some()
            || text.is_some()
            || summary.is_some()
            || basis.is_some()
            || note.is_some()
            || change.is_some();
        match (graded_as, absent) {
            (Some(target), None) if !changes => {
                self.graded_as
                    .insert(raw.id, RuleId(Cow::Owned(target)));
                Ok(())
            }
            (None, Some(why)) if !changes => {
                self.elsewhere.insert(raw.id, why);
                Ok(())
            }
            (None, None) => self.insert(Rule {
                id: RuleId(Cow::Owned(raw.id)),
                level: level.unwrap_or(raw.level),
                section: section.unwrap_or(raw.section),
                text: text.unwrap_or(raw.text),
                summary: summary.unwrap_or(raw.summary),
                basis: basis.unwrap_or(raw.basis),
                note: note.unwrap_or(raw.note),
                change: change.or(raw.change),
            }),
            _ => Err(SpecError::BadRevisionEntry {
                id: raw.id,
                revision: self.revision.to_string(),
                problem: "mixes `as` or `absent` with other fields; it is either changed, graded as another rule, or absent".to_string(),
            }),
        }
    }

    fn insert(&mut self, rule: Rule) -> Result<(), SpecError> {
        let id = rule.id.as_str().to_string();
        if rule.level != Level::Info && rule.id.is_decision() {
            return Err(SpecError::DecisionAboveInfo(id));
        }
        if self.rules.contains_key(&id) {
            return Err(SpecError::Duplicate(id));
        }
        self.rules.insert(id, rule);
        Ok(())
    }
}

fn read(path: &Path) -> Result<String, SpecError> {
    std::fs::read_to_string(path).map_err(|source| SpecError::Read {
        path: path.to_path_buf(),
        source,
    })
}

fn parse_json<T: serde::de::DeserializeOwned>(path: &Path, text: &str) -> Result<T, SpecError> {
    serde_json::from_str(text).map_err(|e| SpecError::Parse {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-in files, with one rule's entry for ga-2026 replaced by `entry`.
    fn with_entry(entry: serde_json::Value) -> Result<Spec, SpecError> {
        let mut rules: serde_json::Value =
            serde_json::from_str(builtin::RULES).map_err(|e| SpecError::Parse {
                path: PathBuf::from("rules.json"),
                message: e.to_string(),
            })?;
        if let Some(rule) = rules["rules"]
            .as_array_mut()
            .and_then(|r| r.iter_mut().find(|r| r["id"] == "view.view-range.to-end"))
        {
            rule["in"]["ga-2026"] = entry;
        }
        Spec::parse(
            (Path::new("rules.json"), &rules.to_string()),
            (Path::new("decisions.json"), builtin::DECISIONS),
            Revision::Ga2026,
        )
    }

    #[test]
    fn an_entry_is_changed_graded_as_or_absent_never_a_mix() {
        let graded = with_entry(serde_json::json!({"as": "decide.view-range"}))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            graded.id("view.view-range.to-end").map(|r| r.to_string()),
            Some("decide.view-range".to_string())
        );
        let changed =
            with_entry(serde_json::json!({"level": "MUST"})).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            changed.get("view.view-range.to-end").map(|r| r.level),
            Some(Level::Must)
        );
        for mixed in [
            serde_json::json!({"as": "decide.view-range", "section": "x"}),
            serde_json::json!({"absent": "why", "note": "x"}),
            serde_json::json!({"as": "decide.view-range", "absent": "why"}),
        ] {
            assert!(
                matches!(
                    with_entry(mixed.clone()),
                    Err(SpecError::BadRevisionEntry { .. })
                ),
                "{mixed}"
            );
        }
    }

    #[test]
    fn both_revisions_of_the_built_in_spec_load() {
        for revision in Revision::ALL {
            let spec = Spec::builtin(revision).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(spec.revision(), revision);
        }
    }
}
