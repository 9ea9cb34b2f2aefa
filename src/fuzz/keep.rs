//! What a shrunk divergence is kept as: (a) a case in the suite's JSON format, ready for
//! `cases/` or a `--cases` folder, whose checks are the facts the fuzzer compared (each step's
//! error flag, the store's final state read back, the listing's paths); and (b) the transcript of
//! its calls, JSON Lines of tool inputs that `memspec replay` opens.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::FuzzError;
use super::action::{Action, owners};
use super::trial::{Located, reference_run};
use crate::judge::model::{Expected, Model, lines_of};
use crate::judge::{Check, Fact};
use crate::spec::{Spec, known};

/// A kept divergence: the case file's text and the transcript's.
#[derive(Debug, Clone)]
pub struct Kept {
    /// The case id (`fuzz.listing-3f2a…`).
    pub id: String,
    /// The case file (`{"area": "fuzz", "cases": [...]}`), pretty JSON.
    pub case_file: String,
    /// JSON Lines of the tool inputs; none for a store of several users, whose calls a
    /// transcript of bare inputs cannot tell apart (the case says whose each is).
    pub transcript: Option<String>,
}

/// Entries of the final state checked one by one as effects; a bigger store (a fill) is checked
/// through the listing instead.
const EFFECTS_MAX: usize = 24;

/// The case and transcript of `actions`, which show `located` on the backend; with `users`, a
/// case of several users of one store (each step and effect naming its user).
pub fn keep(
    actions: &[Action],
    located: &Located,
    spec: &Spec,
    users: &[String],
) -> Result<Kept, FuzzError> {
    let run = reference_run(actions, spec)?;
    let inputs: Vec<&Value> = run.iter().map(|step| &step.input).collect();
    // Whose each call is (0 in a store of one user).
    let owners: Vec<usize> = owners(actions).into_iter().map(|(_, user)| user).collect();
    let many = users.len() > 1;
    let id = format!(
        "fuzz.{}{}-{:08x}",
        if many { "users-" } else { "" },
        located.found.differs().slug(),
        fingerprint(&inputs)
    );
    let last = run.len().saturating_sub(1);
    let mut steps = Vec::new();
    for (index, expected) in run.iter().enumerate() {
        let crate::judge::model::Expected {
            input,
            answer,
            model,
        } = expected;
        // The rule a disagreement on the flag breaks (the command's semantic rule), as the
        // replay grades it; the finding's own rule at the step that showed it.
        // A crossing seen in the flag is graded as the crossing there; one seen in the text
        // leaves the flag to its command's rule.
        let shows = index == located.call
            && (located.found.differs() == Fact::Outcome
                || (located.found.rule == known::USERS_ISOLATED
                    && located.found.check == Check::IsError));
        let rule = if shows {
            located.found.rule.clone()
        } else {
            expected.flag_rule()
        };
        let mut step = json!({
            "input": input,
            "is_error": answer.result.is_error,
            "is_error_rule": rule.as_str(),
        });
        if index == last && located.found.differs() == Fact::Listing {
            // A text is graded under a wording rule (the suite's lint says so): the entries'
            // presence as the listing's lines; the facts themselves are the effects.
            step["text"] = listing_matcher(input, &answer.result.text, model);
            step["text_rule"] = json!(known::VIEW_DIR_ENTRY_LINE.as_str());
        }
        if index == last && located.found.differs() == Fact::Size {
            // Sizes are compared as the reference spells them: a byte count in another
            // human-readable spelling fails here, so the rule is the format's (SHOULD).
            step["text"] = json!(answer.result.text);
            step["text_rule"] = json!(located.found.rule.as_str());
        }
        if many {
            let user = owners.get(index).copied().unwrap_or(0);
            step["user"] = json!(users.get(user));
            if index == located.call && located.found.rule == known::USERS_ISOLATED {
                let theirs = others_only(&run, &owners, index, input, &answer.result.text);
                if !theirs.is_empty() {
                    step["must_not_contain"] = json!(theirs);
                }
            }
        }
        steps.push(step);
    }
    let mut effects = Vec::new();
    let mut user = 0;
    while user == 0 || user < users.len() {
        // Each user's store at the end, read through that user's own view.
        let own = |i: &usize| owners.get(*i).copied().unwrap_or(0) == user;
        let final_model = (0..run.len())
            .rev()
            .find(own)
            .map(|i| run[i].model.clone())
            .unwrap_or_default();
        let named: Vec<&Value> = (0..run.len()).filter(own).map(|i| inputs[i]).collect();
        for mut effect in self::effects(&final_model, &named) {
            if many {
                effect["user"] = json!(users[user]);
            }
            effects.push(effect);
        }
        user += 1;
    }
    let title = format!(
        "Found by memspec fuzz ({}): {}",
        located.found.differs().label(),
        shorten(&located.found.message, 160)
    );
    let mut rules_named = vec![located.found.rule.as_str().to_string()];
    for step in &steps {
        if let Some(rule) = step["is_error_rule"].as_str()
            && !rules_named.iter().any(|r| r == rule)
        {
            rules_named.push(rule.to_string());
        }
    }
    let mut case = json!({
        "id": id,
        "title": title,
        "rules": rules_named,
        "revisions": [spec.revision()],
        "steps": steps,
        "effects": effects,
    });
    if many {
        case["users"] = json!(users);
    }
    let file = json!({
        "area": "fuzz",
        "description": "Divergences found by `memspec fuzz`, shrunk; the checks are the facts it compared.",
        "cases": [case],
    });
    let case_file = serde_json::to_string_pretty(&file)
        .map_err(|e| FuzzError::Harness(format!("cannot write the case: {e}")))?;
    let transcript = (!many).then(|| {
        let mut transcript = String::new();
        for input in &inputs {
            transcript.push_str(&input.to_string());
            transcript.push('\n');
        }
        transcript
    });
    Ok(Kept {
        id,
        case_file,
        transcript,
    })
}

/// The shortest text worth forbidding in another user's answer: a shorter name or line is found
/// in too many honest answers.
const FORBIDDEN_MIN: usize = 3;

/// The shortest name worth forbidding: a store may list names without their folder's path, and
/// the shrunk names are short (`n1`).
const FORBIDDEN_NAME_MIN: usize = 2;

/// What the other users' stores held when call `index` was made and its user's did not: their
/// paths, names (of at least [`FORBIDDEN_NAME_MIN`] characters) and lines (of at least
/// [`FORBIDDEN_MIN`], not a number) that neither the right answer (`right`), nor the call's own
/// arguments (`input`), nor anything of the user's own contains. Seen in the answer, they are the other users' memories.
fn others_only(
    run: &[Expected],
    owners: &[usize],
    index: usize,
    input: &Value,
    right: &str,
) -> Vec<String> {
    // The call's own arguments: an honest answer may quote any of them, in its own wording.
    let asked: Vec<&str> = ["path", "old_path", "new_path", "old_str", "new_str"]
        .iter()
        .filter_map(|field| input.get(*field).and_then(Value::as_str))
        .collect();
    let user = owners.get(index).copied().unwrap_or(0);
    // Each user's store as of the call (the last call of theirs before it; the user's own after
    // it, since what it wrote is theirs).
    let mut stores: Vec<(usize, &Model)> = Vec::new();
    for (i, step) in run.iter().enumerate().take(index + 1) {
        let owner = owners.get(i).copied().unwrap_or(0);
        match stores.iter_mut().find(|(u, _)| *u == owner) {
            Some(entry) => entry.1 = &step.model,
            None => stores.push((owner, &step.model)),
        }
    }
    let words = |model: &Model| -> Vec<String> {
        let mut words: Vec<String> = Vec::new();
        for path in model.files.keys().chain(model.dirs.iter()) {
            words.push(path.clone());
            words.extend(
                (path.rsplit('/').next())
                    .filter(|name| name.chars().count() >= FORBIDDEN_NAME_MIN)
                    .map(String::from),
            );
        }
        for content in model.files.values() {
            words.extend(
                (lines_of(content).into_iter())
                    .map(|line| line.trim().to_string())
                    .filter(|line| line.chars().count() >= FORBIDDEN_MIN),
            );
        }
        words
    };
    let mine = stores
        .iter()
        .find(|(u, _)| *u == user)
        .map(|(_, model)| words(model))
        .unwrap_or_default();
    let mut theirs: Vec<String> = Vec::new();
    for (_, model) in stores.iter().filter(|(u, _)| *u != user) {
        for word in words(model) {
            if !mine.iter().any(|own| own.contains(&word))
                && !asked.iter().any(|arg| arg.contains(&word))
                // A number (a fill's lines) is in too many honest answers.
                && !word.chars().all(|c| c.is_ascii_digit())
                && !right.contains(&word)
                && !"/memories".contains(&word)
                && !theirs.contains(&word)
            {
                theirs.push(word);
            }
        }
    }
    theirs
}

/// Writes a kept divergence into `dir` as `<id>.json` and `<id>.jsonl` (when it has a
/// transcript); returns the paths.
pub fn write(kept: &Kept, dir: &Path) -> Result<(PathBuf, Option<PathBuf>), FuzzError> {
    let written = |path: PathBuf, text: &str| {
        std::fs::write(&path, text)
            .map(|()| path.clone())
            .map_err(|e| FuzzError::Write {
                path,
                message: e.to_string(),
            })
    };
    let case = written(dir.join(format!("{}.json", kept.id)), &kept.case_file)?;
    let transcript = match &kept.transcript {
        Some(text) => Some(written(dir.join(format!("{}.jsonl", kept.id)), text)?),
        None => None,
    };
    Ok((case, transcript))
}

/// The final state as effects: every file's content, every folder, and every path the calls
/// named that does not exist. Paths are memory paths.
fn effects(model: &Model, inputs: &[&Value]) -> Vec<Value> {
    let mut effects = Vec::new();
    let entries = model.files.len() + model.dirs.len();
    if entries <= EFFECTS_MAX {
        for (path, content) in &model.files {
            // A file that ends without `\n` may rightly view with or without a phantom line
            // (decide.final-newline): its lines are what any backend must show.
            if content.ends_with('\n') || content.is_empty() {
                effects.push(json!({"path": path, "file_text": content}));
            } else {
                effects.push(json!({"path": path, "lines": lines_of(content)}));
            }
        }
        // A folder with no file below it need not exist in a store of key prefixes.
        for dir in model.dirs.iter().filter(|d| !model.is_empty_dir(d)) {
            effects.push(json!({"path": dir, "dir": true}));
        }
    }
    let mut absent: Vec<String> = Vec::new();
    for input in inputs {
        for field in ["path", "old_path", "new_path"] {
            let Some(path) = input.get(field).and_then(Value::as_str) else {
                continue;
            };
            let path = crate::judge::model::normal(path);
            if path != crate::judge::model::ROOT
                && !model.is_file(&path)
                && !model.is_dir(&path)
                && !absent.contains(&path)
                && !crate::judge::model::may_refuse_name(&path)
            {
                absent.push(path);
            }
        }
    }
    effects.extend(
        absent
            .into_iter()
            .map(|p| json!({"path": p, "absent": true})),
    );
    effects
}

/// A listing as the suite's matcher: the reference's header, then one template per entry the
/// store holds there, any size.
fn listing_matcher(input: &Value, text: &str, model: &Model) -> Value {
    let folder = crate::judge::model::normal(
        input
            .get("path")
            .and_then(Value::as_str)
            .unwrap_or("/memories"),
    );
    let header = text.split('\n').next().unwrap_or_default();
    let mut lines = vec![format!("{{size}}\t{}", escape(&folder))];
    lines.extend(
        model
            .listed(&folder)
            .iter()
            .map(|p| format!("{{size}}\t{}", escape(p))),
    );
    json!({"listing": {"header": header, "lines": lines}})
}

/// A literal for a template: braces doubled.
fn escape(text: &str) -> String {
    text.replace('{', "{{").replace('}', "}}")
}

/// A short stable hash of the calls (FNV-1a), so that the same divergence gets the same id.
fn fingerprint(inputs: &[&Value]) -> u32 {
    let mut hash: u32 = 0x811C_9DC5;
    for input in inputs {
        for byte in input.to_string().bytes() {
            hash ^= u32::from(byte);
            hash = hash.wrapping_mul(0x0100_0193);
        }
    }
    hash
}

fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// What running a kept case with the check engine showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirmed {
    /// The case's outcome on the backend under test.
    pub backend: crate::judge::grade::Outcome,
    /// Its outcome on the in-process reference.
    pub reference: crate::judge::grade::Outcome,
}

impl Confirmed {
    /// Whether the case shows the divergence: it fails (or warns, for a SHOULD rule, or breaks)
    /// on the backend and passes on the reference.
    pub fn reproduces(&self) -> bool {
        self.backend > crate::judge::grade::Outcome::Pass
            && self.reference <= crate::judge::grade::Outcome::Info
    }
}
