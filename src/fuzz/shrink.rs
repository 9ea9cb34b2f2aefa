//! Shrinking a sequence that diverges to a minimal one that still does: cut what follows the
//! finding, drop steps (halves, then quarters, … then one at a time, as delta debugging does),
//! then simplify what is left (a fill as the few files later steps name, a create and its
//! rename as one create, fewer files in a fill, shorter texts), and drop again. Every
//! candidate is replayed on the backend; it is kept only when it still shows a finding of the
//! same kind under the same rule.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::action::Action;
use super::trial::Located;
use crate::judge::Fact;
use crate::spec::RuleId;

/// What a shrunk sequence must still show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The kind of fact.
    pub kind: Fact,
    /// The rule.
    pub rule: RuleId,
}

impl Target {
    /// The target a finding sets.
    pub fn of(located: &Located) -> Target {
        Target {
            kind: located.found.differs(),
            rule: located.found.rule.clone(),
        }
    }
}

/// Limits of one shrink: candidates tried, and time.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// At most this many replays.
    pub trials: usize,
    /// At most this long.
    pub time: Duration,
}

/// Shrinks `actions` (which show `first`); `trial` replays a candidate and tells what it shows
/// first (`None` for nothing, or a harness fault). Returns the smallest sequence found, with what
/// it shows, and the number of replays made.
pub fn shrink(
    actions: Vec<Action>,
    first: Located,
    limits: Limits,
    trial: &mut dyn FnMut(&[Action]) -> Option<Located>,
) -> (Vec<Action>, Located, usize) {
    let target = Target::of(&first);
    let started = Instant::now();
    let mut tries = 0;
    let mut best = actions;
    best.truncate(first.action + 1);
    let mut shown = first;
    let mut attempt = |candidate: &[Action], tries: &mut usize| -> Option<Located> {
        if *tries >= limits.trials || started.elapsed() >= limits.time {
            return None;
        }
        *tries += 1;
        trial(candidate).filter(|found| Target::of(found) == target)
    };
    for _ in 0..2 {
        drop_steps(&mut best, &mut shown, &mut |c| attempt(c, &mut tries));
        simplify(&mut best, &mut shown, &mut |c| attempt(c, &mut tries));
        rename(&mut best, &mut shown, &mut |c| attempt(c, &mut tries));
    }
    drop_steps(&mut best, &mut shown, &mut |c| attempt(c, &mut tries));
    (best, shown, tries)
}

/// Removes chunks of steps, halving the chunk size down to one.
fn drop_steps(
    best: &mut Vec<Action>,
    shown: &mut Located,
    attempt: &mut dyn FnMut(&[Action]) -> Option<Located>,
) {
    let mut chunk = best.len().div_ceil(2).max(1);
    loop {
        let mut start = 0;
        while start < best.len() && best.len() > 1 {
            let end = (start + chunk).min(best.len());
            let mut candidate = best.clone();
            candidate.drain(start..end);
            if candidate.is_empty() {
                start = end;
                continue;
            }
            match attempt(&candidate) {
                Some(found) => {
                    candidate.truncate(found.action + 1);
                    *best = candidate;
                    *shown = found;
                }
                None => start = end,
            }
        }
        if chunk == 1 {
            break;
        }
        chunk = chunk.div_ceil(2);
    }
}

/// Makes each step simpler where the finding survives it: a fill as creates of the files later
/// steps name, a create and the rename that moves that file as one create of the new path, a
/// fill with fewer files, a text of one short line, an edit with a short replacement.
fn simplify(
    best: &mut Vec<Action>,
    shown: &mut Located,
    attempt: &mut dyn FnMut(&[Action]) -> Option<Located>,
) {
    // A step made simpler is tried again: a fill that became a create can then lose its text.
    let mut index = 0;
    while index < best.len() {
        let replacements: Vec<_> = unfilled(best, index)
            .into_iter()
            .chain(created_moved(best, index))
            .chain(
                simpler(&best[index])
                    .into_iter()
                    .map(|a| (index..index + 1, vec![a])),
            )
            .collect();
        let mut simplified = false;
        for (steps, replacement) in replacements {
            let mut candidate = best.clone();
            candidate.splice(steps, replacement);
            if let Some(found) = attempt(&candidate) {
                candidate.truncate(found.action + 1);
                *best = candidate;
                *shown = found;
                simplified = true;
                break;
            }
        }
        if !simplified {
            index += 1;
        }
    }
}

/// Gives long or non-ASCII names short plain ones (`n1`, `n2`, …), each everywhere it appears
/// in the sequence at once, so that paths that met still meet; a name the finding needs (a
/// look-alike, a twin) survives, since the candidate without it no longer diverges.
fn rename(
    best: &mut Vec<Action>,
    shown: &mut Located,
    attempt: &mut dyn FnMut(&[Action]) -> Option<Located>,
) {
    let mut names: Vec<String> = Vec::new();
    for action in best.iter() {
        for path in paths(action) {
            for name in path
                .split('/')
                .filter(|n| !n.is_empty() && *n != "memories")
            {
                if (name.len() > 4 || !name.is_ascii()) && !names.iter().any(|n| n == name) {
                    names.push(name.to_string());
                }
            }
        }
    }
    let mut fresh = 0;
    for name in names {
        let short = loop {
            fresh += 1;
            let short = format!("n{fresh}");
            if !best
                .iter()
                .any(|a| paths(a).iter().any(|p| p.contains(&short)))
            {
                break short;
            }
        };
        let candidate: Vec<Action> = best.iter().map(|a| renamed(a, &name, &short)).collect();
        if candidate == *best {
            continue;
        }
        if let Some(found) = attempt(&candidate) {
            let mut candidate = candidate;
            candidate.truncate(found.action + 1);
            *best = candidate;
            *shown = found;
        }
    }
}

/// The steps that replace a fill at `index` with creates of only the files later steps name
/// (`fill w1 with 50 files; insert w1/f4.txt` → `create w1/f4.txt; insert w1/f4.txt`), when
/// they name one to three; `None` when the step is no fill, or they name none or all of it.
fn unfilled(best: &[Action], index: usize) -> Option<(std::ops::Range<usize>, Vec<Action>)> {
    let action = &best[index];
    let Action::Fill { folder, count } = action.inner() else {
        return None;
    };
    let named: Vec<usize> = (1..=*count)
        .filter(|i| {
            let file = format!("{folder}/f{i}.txt");
            best[index + 1..]
                .iter()
                .any(|later| paths(later).contains(&file))
        })
        .collect();
    // None named: dropping the fill is `drop_steps`' to try.
    if named.is_empty() || named.len() > 3 || named.len() == *count {
        return None;
    }
    let creates = named
        .into_iter()
        .map(|i| action.made_as(Action::Call(super::action::fill_call(folder, i))))
        .collect();
    Some((index..index + 1, creates))
}

/// The steps that replace a create at `index` and the next step, when that renames the file it
/// made, with one create of the new path (`create a; rename a → b` → `create b`), so that a
/// finding on `b` is shown without the move; `None` otherwise.
fn created_moved(best: &[Action], index: usize) -> Option<(std::ops::Range<usize>, Vec<Action>)> {
    let (Action::Call(create), Some(Action::Call(rename))) =
        (best[index].inner(), best.get(index + 1).map(Action::inner))
    else {
        return None;
    };
    if best[index].user() != best[index + 1].user()
        || create.get("command").and_then(Value::as_str) != Some("create")
        || rename.get("command").and_then(Value::as_str) != Some("rename")
        || rename.get("old_path") != create.get("path")
    {
        return None;
    }
    let mut moved = create.clone();
    moved["path"] = rename.get("new_path")?.clone();
    Some((
        index..index + 2,
        vec![best[index].made_as(Action::Call(moved))],
    ))
}

/// The paths an action names.
fn paths(action: &Action) -> Vec<String> {
    match action {
        Action::Fill { folder, .. } => vec![folder.clone()],
        Action::As { action, .. } => paths(action),
        Action::Call(input) => ["path", "old_path", "new_path"]
            .iter()
            .filter_map(|f| input.get(*f).and_then(Value::as_str))
            .map(String::from)
            .collect(),
    }
}

/// `action` with every path segment `name` replaced by `short`.
fn renamed(action: &Action, name: &str, short: &str) -> Action {
    let swap = |path: &str| {
        path.split('/')
            .map(|segment| if segment == name { short } else { segment })
            .collect::<Vec<_>>()
            .join("/")
    };
    match action {
        Action::Fill { folder, count } => Action::Fill {
            folder: swap(folder),
            count: *count,
        },
        Action::Call(input) => {
            let mut input = input.clone();
            for field in ["path", "old_path", "new_path"] {
                if let Some(path) = input.get(field).and_then(Value::as_str) {
                    input[field] = Value::String(swap(path));
                }
            }
            Action::Call(input)
        }
        Action::As { .. } => action.made_as(renamed(action.inner(), name, short)),
    }
}

/// Simpler versions of one action, simplest first.
fn simpler(action: &Action) -> Vec<Action> {
    match action {
        Action::Fill { folder, count } => {
            let mut counts = vec![1, 101, 1_001, count / 2];
            counts.retain(|c| *c >= 1 && c < count);
            counts
                .into_iter()
                .map(|count| Action::Fill {
                    folder: folder.clone(),
                    count,
                })
                .collect()
        }
        Action::Call(input) => {
            let mut out = Vec::new();
            for (field, short) in [
                ("file_text", "x\n"),
                ("new_str", "y"),
                ("insert_text", "y\n"),
            ] {
                if let Some(text) = input.get(field).and_then(Value::as_str)
                    && text != short
                {
                    // The first line alone keeps a long text's shape when that is what matters.
                    let first_line = text.split_inclusive('\n').next().unwrap_or(short);
                    for replacement in [short, first_line] {
                        if replacement != text {
                            let mut simpler = input.clone();
                            simpler[field] = Value::String(replacement.to_string());
                            out.push(Action::Call(simpler));
                        }
                    }
                }
            }
            out
        }
        Action::As { .. } => simpler(action.inner())
            .into_iter()
            .map(|simpler| action.made_as(simpler))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::judge::{Check, Finding};
    use crate::spec::Level;

    fn located(action: usize) -> Located {
        Located {
            found: Finding::new(
                Check::Listing,
                Level::Must,
                crate::spec::known::VIEW_DIR_CONTENTS,
                "",
            )
            .with_fact(Fact::Listing),
            action,
            call: action,
        }
    }

    #[test]
    fn shrinks_to_the_steps_that_matter() {
        // A fake backend that fails at the first view after both `a` and `ab` were created.
        let create = |p: &str| {
            Action::Call(json!({"command": "create", "path": p, "file_text": "long text\nmore\n"}))
        };
        let view = Action::Call(json!({"command": "view", "path": "/memories"}));
        let noise =
            |i: usize| Action::Call(json!({"command": "view", "path": format!("/memories/n{i}")}));
        let mut actions: Vec<Action> = (0..10).map(noise).collect();
        actions.insert(3, create("/memories/a"));
        actions.insert(7, create("/memories/ab"));
        actions.push(view.clone());
        actions.push(noise(99));
        let first = located(actions.len() - 2);
        let mut trial = |candidate: &[Action]| {
            let mut seen_a = false;
            let mut seen_ab = false;
            for (i, action) in candidate.iter().enumerate() {
                match action {
                    Action::Call(input) if input["command"] == "create" => {
                        seen_a |= input["path"] == "/memories/a";
                        seen_ab |= input["path"] == "/memories/ab";
                    }
                    a if *a == view && seen_a && seen_ab => return Some(located(i)),
                    _ => {}
                }
            }
            None
        };
        let limits = Limits {
            trials: 500,
            time: Duration::from_secs(10),
        };
        let (shrunk, shown, _) = shrink(actions, first, limits, &mut trial);
        assert_eq!(shrunk.len(), 3, "{shrunk:?}");
        assert_eq!(shown.action, 2);
        // The texts were simplified too.
        assert_eq!(
            shrunk[0],
            Action::Call(json!({"command": "create", "path": "/memories/a", "file_text": "x\n"}))
        );
    }

    /// Diverges at the first `view` of `/memories/b` once it holds a file.
    fn diverges_on_b(candidate: &[Action]) -> Option<Located> {
        let mut holds = std::collections::HashSet::new();
        for (i, action) in candidate.iter().enumerate() {
            for call in action.calls() {
                match call["command"].as_str() {
                    Some("create") => {
                        holds.insert(call["path"].as_str()?.to_string());
                    }
                    Some("rename") if holds.remove(call["old_path"].as_str()?) => {
                        holds.insert(call["new_path"].as_str()?.to_string());
                    }
                    Some("view")
                        if call["path"] == "/memories/b" && holds.contains("/memories/b") =>
                    {
                        return Some(located(i));
                    }
                    _ => {}
                }
            }
        }
        None
    }

    #[test]
    fn a_fill_becomes_the_file_named_and_a_create_moved_one_create() {
        let call = Action::Call;
        let actions = vec![
            Action::Fill {
                folder: "/memories/w1".into(),
                count: 100,
            },
            call(
                json!({"command": "rename", "old_path": "/memories/w1/f62.txt", "new_path": "/memories/b"}),
            ),
            call(json!({"command": "view", "path": "/memories/b"})),
        ];
        let limits = Limits {
            trials: 100,
            time: Duration::from_secs(10),
        };
        let (shrunk, shown, _) = shrink(actions, located(2), limits, &mut diverges_on_b);
        assert_eq!(
            shrunk,
            [
                call(json!({"command": "create", "path": "/memories/b", "file_text": "x\n"})),
                call(json!({"command": "view", "path": "/memories/b"})),
            ]
        );
        assert_eq!(shown.action, 1);
    }

    #[test]
    fn long_names_become_short_everywhere_at_once() {
        let long = "n".repeat(251) + ".txt";
        let path = format!("/memories/d\u{e9}j\u{e0}/{long}");
        let create = Action::Call(json!({"command": "create", "path": path, "file_text": "x\n"}));
        let view = Action::Call(json!({"command": "view", "path": path}));
        // Diverges whenever the view names the file the create made.
        let mut trial = |candidate: &[Action]| match candidate {
            [Action::Call(c), Action::Call(v), ..] if c["path"] == v["path"] => Some(located(1)),
            _ => None,
        };
        let limits = Limits {
            trials: 100,
            time: Duration::from_secs(10),
        };
        let (shrunk, _, _) = shrink(vec![create, view], located(1), limits, &mut trial);
        let Action::Call(view) = &shrunk[1] else {
            panic!("{shrunk:?}");
        };
        assert_eq!(view["path"], "/memories/n1/n2", "{shrunk:?}");
    }
}
