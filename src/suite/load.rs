//! Loading `cases/*.json` and linting them against the spec.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::case::{
    Alternative, Case, Effect, Matcher, SetupCall, Step, TextExpectation, command_rule,
    expand_each, expand_generated,
};
use super::matcher;
use crate::builtin::{self, Source};
use crate::spec::Level;
use crate::spec::{Always, Graded, Spec, known};

/// A case with where it came from, and the rule and level of each of its checks.
#[derive(Debug, Clone)]
pub struct LoadedCase {
    /// File name within the cases folder.
    pub file: String,
    /// Area of the file.
    pub area: String,
    /// The case.
    pub case: Case,
    /// The highest level of its checks: what the case can fail at (used by `--level`).
    pub level: Level,
    /// The case's first rule: of its setup calls, and of any check that names none.
    pub main: Graded,
    /// Per step, the rules of its checks.
    pub steps: Vec<StepRules>,
    /// Per effect, its rule.
    pub effects: Vec<Graded>,
    /// Per setup call, the rule under which it must succeed.
    pub setup: Vec<Graded>,
    /// Per step, the other outcome this revision allows, if any (see [`Alternative`]).
    pub alternatives: Vec<Option<Allowed>>,
    /// The checks every case makes: confinement (canaries, outside changes, canary content in
    /// an output, the sandbox) and host paths in an output.
    pub always: Always,
    /// `create.writes-file-text`: the rule of a file whose text a step's `create` wrote last,
    /// whatever the case checks (a case about overwriting still finds a create that wrote
    /// the text wrong as that fault).
    pub writes: Graded,
}

impl LoadedCase {
    /// A rough measure of how long the case takes on a backend, so that a run starts its long
    /// cases first and no worker is left with one at the end: its calls, and one more per
    /// [`WEIGHT_BYTES`] its inputs send (a 2 MB create weighs as 128 calls).
    pub fn weight(&self) -> usize {
        let inputs = self.case.setup.iter().map(SetupCall::input);
        let steps = self.case.steps.iter().map(|step| &step.input);
        let calls = self.case.setup.len() + self.case.steps.len();
        calls + inputs.chain(steps).map(text_bytes).sum::<usize>() / WEIGHT_BYTES
    }
}

/// The bytes of input that weigh as much as a call in [`LoadedCase::weight`].
pub const WEIGHT_BYTES: usize = 16 * 1024;

/// The bytes of the texts in a tool input.
fn text_bytes(input: &Value) -> usize {
    match input {
        Value::String(text) => text.len(),
        Value::Object(fields) => fields.values().map(text_bytes).sum(),
        Value::Array(items) => items.iter().map(text_bytes).sum(),
        _ => 0,
    }
}

/// Another outcome of a step that the revision being judged allows, with its rules graded.
#[derive(Debug, Clone)]
pub struct Allowed {
    /// The rule that allows it; its effects are graded under it.
    pub rule: Graded,
    /// The choice's name (`overwrites`).
    pub choice: String,
    /// The `is_error` of an answer that takes it.
    pub is_error: bool,
    /// What holds afterwards instead of the case's effects on the same paths.
    pub effects: Vec<Effect>,
}

/// The rules of one step's checks.
#[derive(Debug, Clone)]
pub struct StepRules {
    /// Of the `is_error` check.
    pub is_error: Graded,
    /// Of the text check.
    pub text: Graded,
    /// Of `must_not_contain`: confinement, whatever the case (in a case of many users, each
    /// user's: `users.isolated`).
    pub must_not_contain: Graded,
    /// Of the lines a ranged view shows (see [`lines_rule`]).
    pub lines: Option<Graded>,
}

/// The top of a case file, read before its cases, so that a malformed case is named.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCaseFile {
    #[serde(rename = "$schema", default)]
    #[allow(dead_code)] // read so that it is allowed; editors use it
    schema: Option<String>,
    area: String,
    #[serde(default)]
    #[allow(dead_code)] // read so that it is allowed; for people
    description: String,
    cases: Vec<Value>,
}

/// The whole suite, in file then case order.
#[derive(Debug, Clone, Default)]
pub struct Suite {
    /// All cases.
    pub cases: Vec<LoadedCase>,
}

/// One problem in the case files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LintProblem {
    /// The file.
    pub file: String,
    /// The case id, when the problem is in one case.
    pub case: Option<String>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for LintProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.case {
            Some(case) => write!(f, "{}: case `{case}`: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// Why the suite could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// The cases folder could not be read.
    #[error(
        "cannot read the cases folder {path}: {source}; pass --cases with a folder of case files, or leave it out for the built-in suite"
    )]
    Read {
        /// The folder or file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The case files have problems (see `memspec cases lint`).
    #[error("the case files have {} problem(s); run `memspec cases lint` to see them all:\n{}", .0.len(), first_problems(.0))]
    Invalid(Vec<LintProblem>),
}

fn first_problems(problems: &[LintProblem]) -> String {
    problems
        .iter()
        .take(10)
        .map(|p| format!("  {p}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Loads every `*.json` in `dir`, refusing the suite if any problem is found.
pub fn load(dir: &Path, spec: &Spec) -> Result<Suite, SuiteError> {
    load_from(&Source::Dir(dir.to_path_buf()), spec)
}

/// Loads what can be loaded and lists every problem.
pub fn lint(dir: &Path, spec: &Spec) -> Result<(Suite, Vec<LintProblem>), SuiteError> {
    let read_err = |source| SuiteError::Read {
        path: dir.to_path_buf(),
        source,
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(read_err)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    let mut files = Vec::with_capacity(paths.len());
    for path in paths {
        let file = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let text = std::fs::read_to_string(&path).map_err(|source| SuiteError::Read {
            path: path.clone(),
            source,
        })?;
        files.push((file, text));
    }
    Ok(lint_files(&files, spec))
}

/// Loads the suite from `source`, refusing it if any problem is found.
pub fn load_from(source: &Source, spec: &Spec) -> Result<Suite, SuiteError> {
    let (suite, problems) = lint_from(source, spec)?;
    if problems.is_empty() {
        Ok(suite)
    } else {
        Err(SuiteError::Invalid(problems))
    }
}

/// Lints the suite from `source` (see [`lint`]).
pub fn lint_from(source: &Source, spec: &Spec) -> Result<(Suite, Vec<LintProblem>), SuiteError> {
    match source {
        Source::Builtin => {
            let files: Vec<(String, String)> = builtin::CASES
                .iter()
                .map(|(name, text)| ((*name).to_string(), (*text).to_string()))
                .collect();
            Ok(lint_files(&files, spec))
        }
        Source::Dir(dir) => lint(dir, spec),
    }
}

/// Lints case files given as (file name, text), in the order given.
pub fn lint_files(files: &[(String, String)], spec: &Spec) -> (Suite, Vec<LintProblem>) {
    let mut suite = Suite::default();
    let mut problems = Vec::new();
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for (file, text) in files {
        let file = file.clone();
        let parsed: RawCaseFile = match serde_json::from_str(text) {
            Ok(parsed) => parsed,
            Err(e) => {
                problems.push(LintProblem {
                    file,
                    case: None,
                    message: format!("not a valid case file: {e}"),
                });
                continue;
            }
        };
        if parsed.cases.is_empty() {
            problems.push(LintProblem {
                file: file.clone(),
                case: None,
                message: "the file has no cases".into(),
            });
        }
        for (index, raw) in parsed.cases.into_iter().enumerate() {
            // Each case is read on its own: an unknown or malformed field names its case.
            let name = raw
                .get("id")
                .and_then(Value::as_str)
                .map_or_else(|| format!("#{} (no id)", index + 1), str::to_string);
            let mut raw = raw;
            let read = expand_each(&mut raw)
                .map_err(serde::de::Error::custom)
                .and_then(|()| serde_json::from_value(raw))
                .and_then(|mut case: Case| {
                    expand_case(&mut case).map_err(serde::de::Error::custom)?;
                    Ok(case)
                });
            let case: Case = match read {
                Ok(case) => case,
                Err(e) => {
                    problems.push(LintProblem {
                        file: file.clone(),
                        case: Some(name),
                        message: format!("not a valid case: {e}"),
                    });
                    continue;
                }
            };
            let mut problem = |message: String| {
                problems.push(LintProblem {
                    file: file.clone(),
                    case: Some(case.id.clone()),
                    message,
                });
            };
            if let Some(other) = seen.insert(case.id.clone(), file.clone()) {
                problem(format!("duplicate id: also defined in {other}"));
            }
            // A case of what only another revision says is not this revision's suite; `cases
            // lint` lints every revision.
            if !case.revisions.is_empty() && !case.revisions.contains(&spec.revision()) {
                continue;
            }
            for message in check_case(&case, &parsed.area, spec) {
                problem(message);
            }
            match resolve(&case, spec) {
                Ok(resolved) => {
                    for message in wording_at_must(&case, &resolved) {
                        problem(message);
                    }
                    suite.cases.push(LoadedCase {
                        file: file.clone(),
                        area: parsed.area.clone(),
                        case,
                        level: resolved.level,
                        main: resolved.main,
                        steps: resolved.steps,
                        effects: resolved.effects,
                        setup: resolved.setup,
                        alternatives: resolved.alternatives,
                        always: Always::of(spec),
                        writes: Graded::of(known::CREATE_WRITES_FILE_TEXT, spec),
                    });
                }
                Err(Some(message)) => problem(message),
                // The case's own `rules` are reported by `check_case`.
                Err(None) => {}
            }
        }
    }
    (suite, problems)
}

/// A text check compares wording (an exact string, a template, a listing), so it may never be
/// graded MUST: a MUST rule is a fact, and a fact is checked as one (an effect, `lines`, the
/// flag), or a backend that words it otherwise fails for nothing.
fn wording_at_must(case: &Case, resolved: &Resolved) -> Vec<String> {
    case.steps
        .iter()
        .zip(&resolved.steps)
        .enumerate()
        .filter(|(_, (step, rules))| step.text.is_some() && rules.text.level == Level::Must)
        .map(|(i, (_, rules))| {
            format!(
                "step {}: the text check is graded MUST through rule `{}`; a text pins a wording: give it a `text_rule` that words it (SHOULD) or a decision (INFO), and check the fact with an effect",
                i + 1,
                rules.text.rule
            )
        })
        .collect()
}

/// The rule of the lines a ranged view shows, which are facts (MUST) whatever the wording of
/// the view: `view.view-range.to-end` for `[start, -1]`, else `view.view-range`. Only for a
/// `view` with `view_range` that the case expects to succeed with an exact text, by a rule
/// above INFO (where the outcome itself is a decision, so are its lines).
fn lines_rule(step: &Step, is_error: &Graded, spec: &Spec) -> Option<Graded> {
    let input = &step.input;
    let range = input.get("view_range")?.as_array()?;
    let exact = matches!(step.text, Some(TextExpectation::Exact(_)));
    if input.get("command").and_then(Value::as_str) != Some("view")
        || step.is_error != Some(false)
        || !exact
        || is_error.level == Level::Info
    {
        return None;
    }
    let rule = known::view_range_rule(range.get(1).and_then(Value::as_i64));
    Some(Graded::of(spec.id(rule.as_str())?, spec))
}

/// Generated texts (`$repeat`) in the case's tool inputs, made once at load.
fn expand_case(case: &mut Case) -> Result<(), String> {
    for call in &mut case.setup {
        expand_generated(call.input_mut())?;
    }
    for step in &mut case.steps {
        expand_generated(&mut step.input)?;
    }
    Ok(())
}

/// The graded rules of a case's checks.
struct Resolved {
    level: Level,
    setup: Vec<Graded>,
    main: Graded,
    steps: Vec<StepRules>,
    effects: Vec<Graded>,
    alternatives: Vec<Option<Allowed>>,
}

/// The rule and level of every check of `case`. An unknown rule id named by a check is an
/// error naming it; a problem with the case's own `rules` is `None` (`check_case` reports it).
fn resolve(case: &Case, spec: &Spec) -> Result<Resolved, Option<String>> {
    let graded = |id: Option<&String>| -> Result<Graded, Option<String>> {
        let Some(named) = id else {
            let first = case.rules.first().ok_or(None)?;
            return spec
                .id(first)
                .map(|rule| Graded::of(rule, spec))
                .ok_or(None);
        };
        spec.id(named)
            .map(|rule| Graded::of(rule, spec))
            .ok_or_else(|| {
                Some(format!(
                    "unknown rule id `{named}` (see spec/rules.json and spec/decisions.json)"
                ))
            })
    };
    let main = graded(None)?;
    let mut setup = Vec::with_capacity(case.setup.len());
    for call in &case.setup {
        let command = call
            .input()
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("");
        let named = call
            .rule()
            .unwrap_or_else(|| command_rule(command))
            .to_string();
        setup.push(graded(Some(&named))?);
    }
    let mut steps = Vec::with_capacity(case.steps.len());
    for step in &case.steps {
        let is_error = graded(step.is_error_rule.as_ref())?;
        steps.push(StepRules {
            lines: lines_rule(step, &is_error, spec),
            is_error,
            text: graded(step.text_rule.as_ref())?,
            // Another user's memories shown is that user's confinement broken.
            must_not_contain: Graded::of(
                if case.users.is_empty() {
                    known::CONFINEMENT
                } else {
                    known::USERS_ISOLATED
                },
                spec,
            ),
        });
    }
    let effects = case
        .effects
        .iter()
        .map(|effect| graded(effect.rule.as_ref()))
        .collect::<Result<Vec<_>, _>>()?;
    let alternatives = case
        .steps
        .iter()
        .map(|step| allowed(step.alternative.as_ref(), spec))
        .collect::<Result<Vec<_>, _>>()?;
    // What the case can fail at: the highest level among the checks it makes.
    let level = case
        .steps
        .iter()
        .zip(&steps)
        .flat_map(|(step, rules)| {
            [
                step.is_error.map(|_| rules.is_error.level),
                step.text.as_ref().map(|_| rules.text.level),
                (!step.must_not_contain.is_empty()).then_some(rules.must_not_contain.level),
            ]
        })
        .flatten()
        .chain(effects.iter().map(|e| e.level))
        .max()
        .unwrap_or(main.level);
    Ok(Resolved {
        level,
        setup,
        main,
        steps,
        effects,
        alternatives,
    })
}

/// A step's alternative as this revision has it: `None` where its rule does not hold here (the
/// beta page allows no overwriting `create`). Its effects are graded under its rule.
fn allowed(
    alternative: Option<&Alternative>,
    spec: &Spec,
) -> Result<Option<Allowed>, Option<String>> {
    let Some(alternative) = alternative else {
        return Ok(None);
    };
    if spec.elsewhere(&alternative.rule).is_some() {
        return Ok(None);
    }
    let rule = spec.get(&alternative.rule).ok_or_else(|| {
        Some(format!(
            "the step's `or` names `{}`, which is not a rule of spec/rules.json",
            alternative.rule
        ))
    })?;
    if let Some(effect) = alternative.effects.iter().find(|e| e.rule.is_some()) {
        return Err(Some(format!(
            "the effect on {} of an `or` names a rule; an alternative's effects are graded under its own rule",
            effect.path
        )));
    }
    Ok(Some(Allowed {
        rule: Graded::of(rule.id.clone(), spec),
        choice: alternative.choice.clone(),
        is_error: alternative.is_error,
        effects: alternative.effects.clone(),
    }))
}

fn check_case(case: &Case, area: &str, spec: &Spec) -> Vec<String> {
    let mut problems = Vec::new();
    let valid_id = case
        .id
        .strip_prefix(area)
        .and_then(|rest| rest.strip_prefix('.'))
        .is_some_and(|slug| {
            !slug.is_empty()
                && slug
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-._".contains(c))
        });
    if !valid_id {
        problems.push(format!(
            "id must be `{area}.` followed by a lowercase slug (a-z, 0-9, `-`, `.`, `_`)"
        ));
    }
    if case.title.trim().is_empty() {
        problems.push("title is empty".into());
    }
    if case.rules.is_empty() {
        problems.push("no rules: name at least one rule id from spec/".into());
    }
    for rule in &case.rules {
        if spec.id(rule).is_some() {
            continue;
        }
        problems.push(match spec.elsewhere(rule) {
            Some(why) => format!(
                "rule `{rule}` does not hold under {} ({why}); give the case `revisions` without it",
                spec.revision()
            ),
            None => format!("unknown rule id `{rule}` (see spec/rules.json and spec/decisions.json)"),
        });
    }
    if case.steps.is_empty() {
        problems.push("no steps".into());
    }
    if case.hostile && !case.steps.iter().any(|s| s.is_error == Some(true)) {
        problems.push("a hostile case must have a step that expects `is_error: true`".into());
    }
    for (i, call) in case.setup.iter().enumerate() {
        if !call.input().is_object() {
            problems.push(format!("setup call {} is not a JSON object", i + 1));
        }
        if matches!(call, SetupCall::Planted { .. }) && call.planted().is_none() {
            problems.push(format!(
                "setup call {} is planted, but only `\"plant\": true` on a `create` of a /memories/... path with a `file_text` can be",
                i + 1
            ));
        }
    }
    problems.extend(users_problems(case));
    problems.extend(folder_view_problems(case));
    for (i, step) in case.steps.iter().enumerate() {
        if step.is_error.is_none() && step.text.is_none() && step.must_not_contain.is_empty() {
            problems.push(format!(
                "step {} expects nothing (give is_error, text or must_not_contain)",
                i + 1
            ));
        }
        let expectations = step
            .text
            .iter()
            .chain(step.dialects.iter().map(|d| &d.text));
        for expected in expectations {
            if let Err(e) = validate(expected) {
                problems.push(format!("step {}: {e}", i + 1));
            }
        }
    }
    for fixture in &case.fixtures {
        let p = Path::new(&fixture.path);
        if p.is_absolute()
            || p.components().any(|c| c == std::path::Component::ParentDir)
            || fixture.path.is_empty()
        {
            problems.push(format!(
                "fixture path {:?} must be relative and stay inside memories/",
                fixture.path
            ));
        }
    }
    for effect in &case.effects {
        if effect.path != "/memories" && !effect.path.starts_with("/memories/")
            || effect.path.contains("/../")
        {
            problems.push(format!(
                "effect path {:?} must be below /memories",
                effect.path
            ));
        }
    }
    problems
}

/// A `view` of a folder (`/memories`, or one the setup's creates made) whose flag is graded
/// under a `view.file.*` rule: a failed listing would be filed as a file's content.
fn folder_view_problems(case: &Case) -> Vec<String> {
    let made: Vec<&str> = case
        .setup
        .iter()
        .filter_map(|call| call.input().get("path").and_then(Value::as_str))
        .collect();
    let is_folder = |path: &str| {
        let path = path.trim_end_matches('/');
        path == "/memories"
            || made.iter().any(|file| {
                file.strip_prefix(path)
                    .is_some_and(|rest| rest.starts_with('/'))
            })
    };
    case.steps
        .iter()
        .enumerate()
        .filter(|(_, step)| step.input.get("command").and_then(Value::as_str) == Some("view"))
        .filter(|(_, step)| {
            step.input
                .get("path")
                .and_then(Value::as_str)
                .is_some_and(is_folder)
        })
        .filter(|(_, step)| {
            step.is_error_rule
                .as_deref()
                .is_some_and(|rule| rule.starts_with("view.file."))
        })
        .map(|(i, _)| {
            format!(
                "step {} views a folder, but grades its flag under a view.file.* rule: use view.dir.contents",
                i + 1
            )
        })
        .collect()
}

/// What is wrong with a case's users: a user named that the case does not list, a case of
/// many users with fixtures or planted calls (whose paths no user's store has) or a restart.
fn users_problems(case: &Case) -> Vec<String> {
    let mut problems = Vec::new();
    let named =
        case.setup
            .iter()
            .enumerate()
            .filter_map(|(i, call)| Some((format!("setup call {}", i + 1), call.user()?)))
            .chain(
                case.steps.iter().enumerate().filter_map(|(i, step)| {
                    Some((format!("step {}", i + 1), step.user.as_deref()?))
                }),
            )
            .chain(case.effects.iter().filter_map(|effect| {
                Some((format!("effect {}", effect.path), effect.user.as_deref()?))
            }));
    for (what, user) in named {
        if !case.users.iter().any(|listed| listed == user) {
            problems.push(format!(
                "{what} is made as user {user:?}, which is not one of the case's `users`"
            ));
        }
    }
    if case.users.is_empty() {
        if case.together {
            problems.push("`together` is for a case of many users (`users`)".into());
        }
        return problems;
    }
    if case.users.len() < 2 {
        problems.push("`users` lists fewer than two users".into());
    }
    if case.users.iter().any(|user| user.contains('\0')) {
        problems
            .push("a user id holds a NUL, which no command line or environment can pass".into());
    }
    if !case.fixtures.is_empty() {
        problems.push(
            "a case of many users has no fixtures: where each user's memories lie on disk is the backend's choice".into(),
        );
    }
    if case.restart {
        problems.push("a case of many users is not a restart case".into());
    }
    for (i, call) in case.setup.iter().enumerate() {
        if call.asks_to_plant() {
            problems.push(format!(
                "setup call {} of a case of many users is planted: where a user's memories lie is the backend's choice, so every setup call is made through the tool (drop `plant`)",
                i + 1
            ));
        }
    }
    problems
}

fn validate(expected: &TextExpectation) -> Result<(), String> {
    match expected {
        TextExpectation::Exact(_) | TextExpectation::Matcher(Matcher::Prefix(_)) => Ok(()),
        TextExpectation::Matcher(Matcher::Template(t)) => matcher::compile(t).map(drop),
        // A listing may have thousands of lines (`$each`): each is parsed, and the regexes are
        // the few shapes they share, compiled when matched.
        TextExpectation::Matcher(Matcher::Listing { lines, .. }) => {
            lines.iter().try_for_each(|l| matcher::parse(l).map(drop))
        }
    }
}
