//! Judging one replayed step on facts any correct backend shares with the reference: success or
//! error, the file's lines read back, the set of paths a listing names, file sizes as byte
//! counts, the folder on disk for a folder backend, and the confinement checks. Never the
//! reference's wording, and never a point the spec leaves open: where a correct backend may
//! answer otherwise, the step is [`Judged::Open`] and the sequence is judged no further (the
//! stores may rightly differ from there on).

use std::collections::BTreeSet;

use serde_json::Value;

use super::compare::Answer;
use super::model::{Model, ROOT, normal};
use super::witness::{self, size_holds};
use super::{Check, Fact, Finding, Harm, Pair, worst};
use crate::reference::Answer as ReferenceAnswer;
use crate::spec::Level;
use crate::spec::{Spec, known};

/// The verdict on one step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judged {
    /// The facts agree.
    Same,
    /// The backend answered otherwise where the spec lets it: why.
    Open(String),
    /// A fact differs.
    Found(Box<Finding>),
}

/// The store around one step, as the reference holds it.
#[derive(Debug, Clone, Copy)]
pub struct Stores<'a> {
    /// Before the step.
    pub before: &'a Model,
    /// After it.
    pub after: &'a Model,
}

/// Judges one step: `backend` what the backend gave (`None`: not a memory call), `divergences`
/// the step's differences from the reference as [`super::compare`] graded them, `reference` the
/// reference's answer with its rule, `stores` the store before and after the step as the
/// reference holds it.
pub fn judge(
    input: &Value,
    backend: Option<&Answer>,
    divergences: &[Finding],
    reference: &ReferenceAnswer,
    stores: Stores<'_>,
    spec: &Spec,
) -> Judged {
    let model = stores.after;
    let answer = match backend {
        None => return Judged::Same,
        Some(Answer::Broke(why) | Answer::NotRun(why)) => {
            return Judged::Found(Box::new(Finding::broke(why.clone())));
        }
        Some(Answer::Result(result)) => result,
    };
    let ours: Vec<&Finding> = divergences
        .iter()
        .filter(|d| d.pair == Some(Pair::BackendReference) && d.counts())
        .collect();
    let found = |finding: &Finding, fact| {
        let mut found = finding.clone().with_fact(fact);
        found.expected = Some(reference.result.text.clone());
        found.actual = Some(answer.text.clone());
        found.dialect = None;
        found.expected_shown = None;
        Judged::Found(Box::new(found))
    };
    // The security lane first, its worst finding (content shown from outside before the
    // accepted path that let it out).
    if let Some(finding) = worst(ours.iter().copied().filter(|d| d.security)) {
        return found(finding, Fact::Security);
    }
    // A fault that costs more than a flag (wrong lines, a wrong or lost file, anything outside)
    // stands on its own, whatever the flag did: the same ranking as `check`'s root causes.
    if let Some(worst) = worst(ours.iter().copied()).filter(|f| f.harm() > Harm::Flag) {
        let kind = match worst.check {
            Check::Lines => Fact::Content,
            Check::Leak | Check::HostPath | Check::MustNotContain => Fact::Security,
            _ => Fact::Folder,
        };
        return found(worst, kind);
    }
    // The weightiest rule the flag breaks (a precondition's wording rule can come first, at
    // SHOULD, with the command's MUST rule after it).
    let outcome = ours
        .iter()
        .copied()
        .filter(|f| f.check == Check::IsError)
        .fold(None, |best: Option<&Finding>, f| match best {
            Some(b) if b.level >= f.level => Some(b),
            _ => Some(f),
        })
        .map(|f| found(f, Fact::Outcome));
    if answer.is_error != reference.result.is_error {
        // The replay grades it at INFO when a decision makes either answer right.
        let Some(outcome) = outcome else {
            return Judged::Open(format!(
                "the backend's {} is allowed here ({})",
                if answer.is_error {
                    "refusal"
                } else {
                    "success"
                },
                reference.rule
            ));
        };
        if spec.level(&reference.rule) == Level::Info {
            return Judged::Open(format!("the reference's answer follows {}", reference.rule));
        }
        // Either way: a folder in the way, or one to act on, that a store of key prefixes
        // rightly does not have.
        if names_empty_folder(input, stores.before) {
            return Judged::Open(
                "the backend does not keep a folder that has no file left in it (its folders are key prefixes, which GA allows)"
                    .to_string(),
            );
        }
        // A limit of the store's own, refused with an error (as `check` grades it: the same
        // rule); whether the refusal left the store as it was is `check`'s question.
        if let Some(choice) = super::effects::beyond_limit(input).filter(|_| answer.is_error) {
            return Judged::Open(format!(
                "the backend {choice}, a limit the page lets it set ({})",
                known::LIMITS
            ));
        }
        if answer.is_error && exotic(input) {
            return Judged::Open(
                "the backend refuses a name with pattern characters or a trailing space or dot, which the spec neither allows nor forbids"
                    .to_string(),
            );
        }
        return outcome;
    }
    if answer.is_error || input.get("command").and_then(Value::as_str) != Some("view") {
        return Judged::Same;
    }
    let path = normal(input.get("path").and_then(Value::as_str).unwrap_or(ROOT));
    if reference.rule == known::VIEW_FILE_HEADER {
        let content = model.files.get(&path).map_or("", String::as_str);
        // A ranged view's lines are graded with the answer (`compare::ranged_lines`), above.
        return match input.get("view_range") {
            Some(_) => Judged::Same,
            None => whole(&path, content, &answer.text),
        };
    }
    if reference.rule == known::VIEW_DIR_HEADER {
        return listing(&path, model, &answer.text, spec);
    }
    Judged::Same
}

/// Whether the input names a folder that holds no file (see [`Model::is_empty_dir`]).
fn names_empty_folder(input: &Value, model: &Model) -> bool {
    ["path", "old_path", "new_path"]
        .iter()
        .filter_map(|f| input.get(*f).and_then(Value::as_str))
        .any(|p| model.is_empty_dir(&normal(p)))
}

/// Pattern and escape characters: a store may take them as a glob, a `LIKE` or an escape, and a
/// backend may refuse names holding them (the spec neither allows nor forbids them).
pub const PATTERN_CHARACTERS: &str = "*?[]%\\";

/// Whether a path of the input has a name the spec neither allows nor forbids: pattern and
/// escape characters, a trailing space or dot, a control character.
fn exotic(input: &Value) -> bool {
    ["path", "old_path", "new_path"]
        .iter()
        .filter_map(|f| input.get(*f).and_then(Value::as_str))
        .flat_map(|p| p.split('/'))
        .any(|name| {
            name.chars()
                .any(|c| PATTERN_CHARACTERS.contains(c) || c.is_control())
                || name.ends_with(' ')
                || name.ends_with('.')
        })
}

fn whole(path: &str, content: &str, text: &str) -> Judged {
    let expect = crate::suite::case::EffectKind::FileText(content.to_string());
    let actual = crate::protocol::ToolResult::ok(text);
    match witness::judge(path, &expect, &actual) {
        witness::Seen::Holds => Judged::Same,
        witness::Seen::Unverified(why) => Judged::Open(why),
        witness::Seen::Differs(how)
        | witness::Seen::Missing(how)
        | witness::Seen::ViewWrong(how)
        | witness::Seen::Cut(how) => {
            // Line endings are a decision (decide.crlf): a difference only in `\r` is open.
            let plain = content.replace('\r', "");
            let plain_text = text.replace('\r', "");
            let expect = crate::suite::case::EffectKind::FileText(plain);
            if witness::judge(path, &expect, &crate::protocol::ToolResult::ok(plain_text))
                == witness::Seen::Holds
            {
                return Judged::Open("the lines differ only in `\\r` (decide.crlf)".to_string());
            }
            Judged::Found(Box::new(
                Finding::new(
                    Check::Lines,
                    Level::Must,
                    known::VIEW_FILE_CONTENT,
                    format!("the file read back is not what was written: {how}"),
                )
                .with_fact(Fact::Content)
                .expecting(content)
                .actually(text),
            ))
        }
    }
}

/// A listing: the set of paths it names against the model's, then each file's size.
fn listing(folder: &str, model: &Model, text: &str, spec: &Spec) -> Judged {
    let mut want = model.listed(folder);
    want.insert(folder.to_string());
    let mut got = BTreeSet::new();
    let mut sizes = Vec::new();
    for line in text.split('\n').skip(1) {
        let (size, path) = match line.split_once('\t') {
            Some((size, path)) => (Some(size.trim()), path),
            None => (None, line.trim()),
        };
        if path.is_empty() {
            continue;
        }
        let path = if path.starts_with(ROOT) {
            normal(path)
        } else {
            normal(&format!("{folder}/{path}"))
        };
        if let (Some(size), Some(content)) = (size, model.files.get(&path)) {
            sizes.push((path.clone(), size.to_string(), content.len()));
        }
        got.insert(path);
    }
    // A folder with no file below it may be gone from a store of key prefixes.
    let missing: Vec<&String> = want
        .difference(&got)
        .filter(|p| !model.is_empty_dir(p))
        .collect();
    let extra: Vec<&String> = got.difference(&want).collect();
    if !missing.is_empty() || !extra.is_empty() {
        // Entries deeper than two levels that do exist break the depth rule only.
        let deeper_only =
            missing.is_empty() && extra.iter().all(|p| model.is_file(p) || model.is_dir(p));
        let rule = if deeper_only {
            known::VIEW_DIR_DEPTH
        } else {
            known::VIEW_DIR_CONTENTS
        };
        let shown = |paths: &[&String]| {
            let mut names: Vec<String> = paths.iter().take(3).map(|p| format!("{p:?}")).collect();
            if paths.len() > 3 {
                names.push(format!("and {} more", paths.len() - 3));
            }
            names.join(", ")
        };
        let mut parts = Vec::new();
        if !missing.is_empty() {
            parts.push(format!(
                "{} entr{} missing: {}",
                missing.len(),
                plural_y(missing.len()),
                shown(&missing)
            ));
        }
        if !extra.is_empty() {
            parts.push(format!(
                "{} entr{} that the store does not hold: {}",
                extra.len(),
                plural_y(extra.len()),
                shown(&extra)
            ));
        }
        return Judged::Found(Box::new(
            Finding::new(
                Check::Listing,
                spec.level(&rule),
                rule,
                format!("the listing of {folder} has {}", parts.join("; ")),
            )
            .with_fact(Fact::Listing)
            .expecting(want.iter().cloned().collect::<Vec<_>>().join("\n"))
            .actually(text),
        ));
    }
    for (path, size, bytes) in sizes {
        if !size_holds(&size, bytes) {
            let rule = known::VIEW_DIR_SIZES;
            return Judged::Found(Box::new(
                Finding::new(
                    Check::Listing,
                    spec.level(&rule),
                    rule,
                    format!(
                        "the listing gives {path:?} the size {size:?}, but it holds {bytes} bytes"
                    ),
                )
                .with_fact(Fact::Size)
                .expecting(format!("{bytes} bytes"))
                .actually(text),
            ));
        }
    }
    Judged::Same
}

fn plural_y(n: usize) -> &'static str {
    if n == 1 { "y" } else { "ies" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_byte_counts_in_any_human_spelling() {
        assert!(size_holds("6B", 6));
        assert!(size_holds("6", 6));
        assert!(!size_holds("5B", 6));
        assert!(size_holds("1.5K", 1536));
        assert!(size_holds("2K", 1536));
        assert!(size_holds("1.6K", 1536));
        assert!(!size_holds("1.2K", 1536));
        assert!(size_holds("4.0K", 4096));
        assert!(size_holds("1.2M", 1_258_291));
        assert!(size_holds("66KiB", 66_000));
        assert!(size_holds("4 KB", 4096));
        assert!(!size_holds("64K", 100_000));
    }

    #[test]
    fn exotic_names_are_pattern_characters_and_trailing_spaces() {
        let input = |p: &str| serde_json::json!({"command": "create", "path": p});
        assert!(exotic(&input("/memories/a*")));
        assert!(exotic(&input("/memories/a /b")));
        assert!(exotic(&input("/memories/a.")));
        assert!(!exotic(&input("/memories/a_b.txt")));
        assert!(!exotic(&input("/memories/e\u{301}")));
    }
}
