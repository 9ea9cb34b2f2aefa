//! The spec's rules and the reference's decisions, loaded from `spec/rules.json` and
//! `spec/decisions.json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::builtin::{self, Source};
use crate::suite::case::Level;

/// A rule: a sentence of the spec (MUST / SHOULD) or a decision of the reference (INFO).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Stable id (`create.no-overwrite`, `decide.final-newline`).
    pub id: String,
    /// Grading level.
    pub level: Level,
    /// Where in the doc it comes from (for decisions: "decision").
    pub section: String,
    /// The quoted sentence (for decisions: the decision).
    pub text: String,
    /// One plain line.
    pub summary: String,
}

/// All rules by id.
#[derive(Debug, Clone, Default)]
pub struct Spec {
    rules: BTreeMap<String, Rule>,
}

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
}

#[derive(Deserialize)]
struct RulesFile {
    rules: Vec<RawRule>,
}

#[derive(Deserialize)]
struct RawRule {
    id: String,
    level: Level,
    #[serde(default)]
    section: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    summary: String,
}

#[derive(Deserialize)]
struct DecisionsFile {
    decisions: Vec<RawDecision>,
}

#[derive(Deserialize)]
struct RawDecision {
    id: String,
    #[serde(default = "info")]
    level: Level,
    #[serde(default)]
    question: String,
    decision: String,
}

fn info() -> Level {
    Level::Info
}

impl Spec {
    /// Loads `rules.json` and `decisions.json` from `dir`.
    pub fn load(dir: &Path) -> Result<Spec, SpecError> {
        let rules = dir.join("rules.json");
        let decisions = dir.join("decisions.json");
        Spec::parse((&rules, &read(&rules)?), (&decisions, &read(&decisions)?))
    }

    /// The spec compiled into this binary ([`crate::builtin`]).
    pub fn builtin() -> Result<Spec, SpecError> {
        Spec::parse(
            (Path::new("built-in spec/rules.json"), builtin::RULES),
            (
                Path::new("built-in spec/decisions.json"),
                builtin::DECISIONS,
            ),
        )
    }

    /// Loads the spec from `source`.
    pub fn load_from(source: &Source) -> Result<Spec, SpecError> {
        match source {
            Source::Builtin => Spec::builtin(),
            Source::Dir(dir) => Spec::load(dir),
        }
    }

    /// Parses the texts of `rules.json` and `decisions.json`, each with the path named in errors.
    fn parse(rules: (&Path, &str), decisions: (&Path, &str)) -> Result<Spec, SpecError> {
        let rules: RulesFile = parse_json(rules.0, rules.1)?;
        let decisions: DecisionsFile = parse_json(decisions.0, decisions.1)?;
        let mut spec = Spec::default();
        for raw in rules.rules {
            spec.insert(Rule {
                id: raw.id,
                level: raw.level,
                section: raw.section,
                text: raw.text,
                summary: raw.summary,
            })?;
        }
        for raw in decisions.decisions {
            spec.insert(Rule {
                id: raw.id,
                level: raw.level,
                section: "decision of the reference".to_string(),
                text: raw.decision,
                summary: raw.question,
            })?;
        }
        Ok(spec)
    }

    fn insert(&mut self, rule: Rule) -> Result<(), SpecError> {
        if self.rules.contains_key(&rule.id) {
            return Err(SpecError::Duplicate(rule.id));
        }
        self.rules.insert(rule.id.clone(), rule);
        Ok(())
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
