//! The store after the steps, judged: effects read by the witness, memories lost, what a case
//! that plants objects from outside grades in the hostile-environment tier, and the writes a
//! backend may refuse as too large. What is read (the disk, or the backend's `view`) is the
//! runner's; what it means is decided here.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::Value;

use super::witness::Seen;
use super::{Check, Finding};
use crate::exec::plant::{Fixture, FixtureKind};
use crate::spec::Graded;
use crate::spec::Level;
use crate::spec::{RuleId, known};
use crate::suite::case::{Case, Effect, EffectKind, Step};

/// What the store held before the steps, as far as the case says: the paths its setup created
/// (with their folders) and its fixtures; and the paths its steps renamed away.
#[derive(Default)]
pub struct Before {
    existed: BTreeSet<String>,
    renamed: Vec<String>,
    /// The paths whose last write in the steps is a `create` that answered success, with its
    /// text (filled as the steps run; a successful rename carries them along).
    created: BTreeMap<String, String>,
    /// The paths whose step `create` was read back right after it and held other bytes, with
    /// that step (0-based): what a later edit leaves there follows from it.
    faulty: BTreeMap<String, usize>,
    /// Where each memory of the setup is now, as the backend acknowledged it: its path now,
    /// with the path it had before the steps (a successful rename carries it along, a
    /// successful delete ends it).
    moved: BTreeMap<String, String>,
    /// The steps that changed nothing because the backend refused a call the spec accepts:
    /// the paths each names, with that fault. What an effect on those paths shows follows
    /// from it (a refused folder rename explains both the old and the new path).
    refused: Vec<(Vec<String>, super::Cause)>,
}

/// Whether `path` is `root` or below it.
fn below(path: &str, root: &str) -> bool {
    path == root
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// A memory lost: how it is graded, and the path it was moved from when an acknowledged rename
/// moved it.
struct Loss {
    graded: Graded,
    from: Option<String>,
}

/// `map`'s entries at `from` or below it moved to `to`, and anything at `to` or below it gone.
fn carry<T: Clone>(map: &mut BTreeMap<String, T>, from: &str, to: &str) {
    let moved: Vec<(String, T)> = map
        .iter()
        .filter(|(path, _)| below(path, from))
        .map(|(path, value)| (format!("{to}{}", &path[from.len()..]), value.clone()))
        .collect();
    map.retain(|path, _| !below(path, from) && !below(path, to));
    map.extend(moved);
}

impl Before {
    /// Notes what a step that answered `is_error` did to what the steps created and to where
    /// the setup's memories are now.
    pub fn wrote(&mut self, input: &Value, is_error: bool) {
        let field = |name: &str| input.get(name).and_then(Value::as_str);
        match (is_error, field("command")) {
            (false, Some("rename")) => {
                if let (Some(from), Some(to)) = (field("old_path"), field("new_path")) {
                    let (from, to) = (from.trim_end_matches('/'), to.trim_end_matches('/'));
                    carry(&mut self.moved, from, to);
                }
            }
            (false, Some("delete")) => {
                if let Some(path) = field("path") {
                    let path = path.trim_end_matches('/');
                    self.moved.retain(|now, _| !below(now, path));
                }
            }
            _ => {}
        }
        match (field("command"), field("path"), field("file_text")) {
            (Some("view"), ..) => {}
            (Some("create"), Some(path), Some(text)) if !is_error => {
                self.created.insert(path.to_string(), text.to_string());
                self.faulty.remove(path);
            }
            // A rename moves what a create wrote (and what it got wrong) along; a refused one
            // moves nothing.
            (Some("rename"), ..) => {
                if let (false, Some(from), Some(to)) =
                    (is_error, field("old_path"), field("new_path"))
                {
                    let (from, to) = (from.trim_end_matches('/'), to.trim_end_matches('/'));
                    carry(&mut self.created, from, to);
                    carry(&mut self.faulty, from, to);
                }
            }
            // An edit changes the text, not what the create got wrong before it.
            (Some("str_replace" | "insert"), Some(path), _) => {
                self.created.remove(path);
            }
            // Any other call may change what a path holds.
            _ => {
                for name in ["path", "old_path", "new_path"] {
                    if let Some(path) = field(name) {
                        self.created.remove(path);
                    }
                }
            }
        }
    }

    /// Notes that only `ran`, the steps before one refused beyond a limit, ran: a rename after
    /// them moved nothing away, so a memory it names that is gone is lost.
    pub fn stopped_before(&mut self, ran: &[Step]) {
        self.renamed = renamed_by(ran);
    }

    pub fn of(case: &Case) -> Before {
        let created = case
            .setup
            .iter()
            .filter(|call| call.input().get("command").and_then(Value::as_str) == Some("create"))
            .filter_map(|call| call.input().get("path").and_then(Value::as_str))
            .map(str::to_string);
        let planted = case
            .fixtures
            .iter()
            .map(|fixture| format!("/memories/{}", fixture.path));
        let mut existed = BTreeSet::new();
        for path in created.chain(planted) {
            let mut path = path.trim_end_matches('/');
            while path.starts_with("/memories/") {
                existed.insert(path.to_string());
                path = path.rsplit_once('/').map_or("", |(parent, _)| parent);
            }
        }
        let renamed = renamed_by(&case.steps);
        Before {
            moved: existed.iter().map(|p| (p.clone(), p.clone())).collect(),
            existed,
            renamed,
            created: BTreeMap::new(),
            faulty: BTreeMap::new(),
            refused: Vec::new(),
        }
    }

    /// Notes that a step refused a call the spec accepts (`cause`, the wrong flag): the
    /// store should have changed at the paths `input` names, and did not.
    pub fn refused(&mut self, input: &Value, cause: super::Cause) {
        self.refused.push((named_paths([input]), cause));
    }

    /// The first refusal (see [`Before::refused`]) of a step that names `path` or a path
    /// above or below it.
    fn refusal_at(&self, path: &str) -> Option<&super::Cause> {
        self.refused
            .iter()
            .find(|(paths, _)| paths.iter().any(|named| related(named, path)))
            .map(|(_, cause)| cause)
    }

    /// Notes that the `create` of step `step` wrote other bytes to `path` than it was given.
    pub fn create_fault(&mut self, path: &str, step: usize) {
        self.faulty.insert(path.to_string(), step);
    }

    /// The text a step's successful `create` wrote last to `path`, if that is its last write.
    pub fn created(&self, path: &str) -> Option<&String> {
        self.created.get(path)
    }

    /// What a file that should be at `path` and is missing means, when it means a memory
    /// lost, graded MUST. A memory is lost when it was there before the steps and no step
    /// moved it (under the case's rule; where that rule is a decision, the step that removed
    /// it may have taken the decision's other reading, deleting `/memories/a.txt/` as
    /// `/memories/a.txt`, so it stays INFO), or when a rename the backend acknowledged moved it
    /// here and its old path is seen empty (`gone`): told it moved, Claude can read it at
    /// neither path, whatever reading the backend took (`rename.moves`).
    fn loss(&self, path: &str, graded: &Graded, gone: impl Fn(&str) -> bool) -> Option<Loss> {
        let path = path.trim_end_matches('/');
        if self.lost(path) {
            let level = if graded.level == Level::Info {
                Level::Info
            } else {
                Level::Must
            };
            return Some(Loss {
                graded: Graded {
                    rule: graded.rule.clone(),
                    level,
                },
                from: None,
            });
        }
        let origin = self.moved.get(path)?;
        (origin != path && gone(origin)).then(|| Loss {
            graded: Graded {
                rule: known::RENAME_MOVES,
                level: Level::Must,
            },
            from: Some(origin.clone()),
        })
    }

    /// Whether a path that should be there and is not is a memory lost: it was there before
    /// the steps, and no step moved it away (a rename that went elsewhere or did not happen
    /// is wrong, not a loss).
    fn lost(&self, path: &str) -> bool {
        let path = path.trim_end_matches('/');
        let moved = self.renamed.iter().any(|from| {
            path == from
                || path
                    .strip_prefix(from.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
        });
        (self.existed.contains(path) || path == "/memories") && !moved
    }
}

/// The paths the renames among `steps` move away (or may: `path` too, which a backend may take
/// for `old_path`, malformed.rename-path-alias), without a trailing slash.
fn renamed_by(steps: &[Step]) -> Vec<String> {
    steps
        .iter()
        .filter(|step| step.input.get("command").and_then(Value::as_str) == Some("rename"))
        .flat_map(|step| ["old_path", "path"].map(|field| step.input.get(field)))
        .filter_map(|path| path.and_then(Value::as_str))
        .map(|path| path.trim_end_matches('/').to_string())
        .collect()
}

/// Grades the effects from what the witness saw of each (`witnessed`, in order): a difference
/// at the effect's rule (at `writes`, `create.writes-file-text`, for a file that holds other
/// bytes than a step's successful `create` last wrote there), a memory that existed before and is gone as `lost`, what could not be
/// read as unverified (INFO), and in a store that is not a folder a folder kept only as a
/// prefix of keys as that store's choice (INFO). `how` says how they were read, for the
/// messages (`after the steps`, `read back with view after a restart`).
pub fn judge(
    effects: &[(&Effect, &Graded)],
    witnessed: &[Seen],
    before: &Before,
    writes: &Graded,
    on_folder: bool,
    how: &str,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (&(effect, graded), seen) in effects.iter().zip(witnessed) {
        // A file that is there with other bytes than a create wrote is that create's fault,
        // whatever the case is about (one that is not there was never written: the case's; and
        // where the case grades a decision, that decision stays).
        let made_by_step = matches!(&effect.expect, EffectKind::FileText(text)
            if graded.level != Level::Info && before.created(&effect.path) == Some(text));
        let graded = if made_by_step && matches!(seen, Seen::Differs(_) | Seen::Cut(_)) {
            writes
        } else {
            graded
        };
        let message = format!("{how}, {} should be", effect.path);
        // A store of keys may keep folders only as prefixes of its keys: a folder gone with
        // its last file, or shown as a file of the same name, is its choice while every file
        // that should be under it is there.
        if !on_folder
            && matches!(effect.expect, EffectKind::Dir(_))
            && let Seen::Missing(what) | Seen::Differs(what) = seen
            && below_holds(effects, witnessed, &effect.path)
        {
            let mut finding =
                fact_finding(Check::Effect, graded, message, &effect.expect, what.clone());
            finding.level = Level::Info;
            finding.rule = known::KEY_VALUE_FOLDERS;
            finding.message = format!(
                "{}: the store shows no folder there while every file that should be in it is, as a store of keys may",
                finding.message
            );
            findings.push(finding);
            continue;
        }
        // A memory lost is graded by what happened, MUST, whatever the case is about (a
        // setup memory under a decision excepted: `Before::loss` says why).
        let gone = |origin: &str| {
            effects.iter().zip(witnessed).any(|((other, _), seen)| {
                matches!(other.expect, EffectKind::Absent(_))
                    && matches!(seen, Seen::Holds)
                    && below(origin, other.path.trim_end_matches('/'))
            })
        };
        let lost = matches!(seen, Seen::Missing(_))
            .then(|| before.loss(&effect.path, graded, gone))
            .flatten();
        let (check, graded) = match &lost {
            Some(loss) => (Check::Lost, &loss.graded),
            // A create of the steps whose copy was cut when stored lost the rest of the memory
            // it acknowledged. A file the setup made is the setup's fault, found by its own
            // read, which what the steps show follows.
            None if made_by_step && matches!(seen, Seen::Cut(_)) => (Check::Lost, graded),
            None => (Check::Effect, graded),
        };
        if let Some(mut finding) =
            seen_finding(check, graded, message, &effect.expect, seen.clone())
        {
            if let Some(from) = lost.as_ref().and_then(|loss| loss.from.as_ref()) {
                let _ = write!(
                    finding.message,
                    ": a rename the backend acknowledged moved {from} here, and {from} is gone (memory lost)"
                );
            }
            // Edits of a file its create already got wrong leave a wrong file: that create's.
            if matches!(seen, Seen::Differs(_) | Seen::Cut(_))
                && let Some(&step) = before.faulty.get(effect.path.trim_end_matches('/'))
            {
                finding.follows = Some(super::Cause {
                    rule: writes.rule.clone(),
                    step: Some(step),
                });
            }
            // What a refused write was to change is unchanged: that refusal's consequence.
            if check == Check::Effect
                && finding.follows.is_none()
                && let Some(cause) = before.refusal_at(&effect.path)
            {
                finding.follows = Some(cause.clone());
            }
            findings.push(finding);
        }
    }
    findings
}

/// Whether every effect below the folder `dir` that expects something there holds (or could
/// not be verified): none of its files is lost.
fn below_holds(effects: &[(&Effect, &Graded)], seen: &[Seen], dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    effects.iter().zip(seen).all(|((effect, _), seen)| {
        let below = effect
            .path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/') && rest.len() > 1);
        !below
            || matches!(effect.expect, EffectKind::Absent(_) | EffectKind::Dir(_))
            || matches!(seen, Seen::Holds | Seen::Unverified(_))
    })
}

/// How the message of an effect the witness could not read begins (INFO, never a failure).
pub const UNVERIFIED: &str = "unverified: ";

/// The finding of a fact the witness saw: none when it holds, the rule's level when it differs,
/// INFO when the witness could not read it (say why; the effect is unverified, not failed).
pub fn seen_finding(
    check: Check,
    graded: &Graded,
    message: String,
    expect: &EffectKind,
    seen: Seen,
) -> Option<Finding> {
    match seen {
        Seen::Holds => None,
        Seen::Differs(found) | Seen::Missing(found) | Seen::Cut(found) => {
            Some(fact_finding(check, graded, message, expect, found))
        }
        // The bytes are right and the view shows them wrong: the reader's fault, whichever
        // step's effect it was read for.
        Seen::ViewWrong(found) => {
            let view = Graded {
                rule: known::VIEW_FILE_CONTENT,
                level: Level::Must,
            };
            let mut finding = fact_finding(check, &view, message, expect, found);
            finding.check = Check::Lines;
            Some(finding)
        }
        Seen::Unverified(why) => {
            let mut finding = fact_finding(check, graded, message, expect, why.clone());
            finding.level = Level::Info;
            finding.message = format!("{UNVERIFIED}{}: {why}", finding.message);
            Some(finding)
        }
    }
}

/// A fact that did not hold: `message` is completed with what was expected.
fn fact_finding(
    check: Check,
    graded: &Graded,
    message: String,
    expect: &EffectKind,
    found: String,
) -> Finding {
    let expected = describe_effect(expect);
    Finding::new(
        check,
        graded.level,
        graded.rule.clone(),
        format!("{message} {expected}"),
    )
    .expecting(expected)
    .actually(found)
}

/// Texts from this many bytes make a large write: the GA page advises "preventing files from
/// growing too large" without a number, and cuts views of files over 16,000 characters.
const LARGE_WRITE: usize = 16_000;

/// The INFO finding of a refusal that leaves the rest of a case not checked (a refused setup
/// call, a refused large write): `what` says which, `actual` is the backend's answer.
pub fn not_checked(
    check: Check,
    rule: &RuleId,
    step: Option<usize>,
    what: String,
    expected: &str,
    actual: String,
) -> Finding {
    Finding::new(
        check,
        Level::Info,
        rule.clone(),
        format!("not checked: {what}"),
    )
    .at(step)
    .expecting(expected.to_string())
    .actually(actual)
}

/// Whether a call writes a text of [`LARGE_WRITE`] bytes or more, which a backend may refuse.
pub fn large_write(input: &Value) -> bool {
    ["file_text", "insert_text", "new_str"]
        .iter()
        .filter_map(|field| input.get(*field).and_then(Value::as_str))
        .any(|text| text.len() >= LARGE_WRITE)
}

/// Paths longer than this many bytes a backend may refuse: a key column of `VARCHAR(255)`, a
/// document id or an object key of a store with such a limit (`decide.limits`). The reference
/// takes paths of up to 4,096 bytes, names of up to 255.
const LONG_PATH: usize = 255;

/// The limit a write goes beyond, which a backend may refuse with an error and an unchanged
/// store (`decide.limits`), as the choice's name: a text of [`LARGE_WRITE`] bytes or more, or a
/// path it makes longer than [`LONG_PATH`] bytes.
pub fn beyond_limit(input: &Value) -> Option<&'static str> {
    if large_write(input) {
        return Some("refuses large writes");
    }
    let field = |name: &str| input.get(name).and_then(Value::as_str);
    let made = match field("command") {
        Some("create" | "str_replace" | "insert") => field("path"),
        Some("rename") => field("new_path"),
        _ => None,
    };
    made.is_some_and(|path| path.len() > LONG_PATH)
        .then_some("refuses long paths")
}

/// The memory paths `steps` name (`path`, `old_path`, `new_path`), each without a trailing
/// slash.
pub fn named_paths<'a>(steps: impl IntoIterator<Item = &'a Value>) -> Vec<String> {
    steps
        .into_iter()
        .flat_map(|input| ["path", "old_path", "new_path"].map(|name| input.get(name)))
        .filter_map(|path| path.and_then(Value::as_str))
        .map(|path| path.trim_end_matches('/').to_string())
        .collect()
}

/// Whether `a` and `b` are one path or one is below the other: what is at one can change what
/// is at the other.
pub fn related(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim_end_matches('/'), b.trim_end_matches('/'));
    below(a, b) || below(b, a)
}

/// A call in a few words: its command, path and the size of what it writes.
pub fn described(input: &Value) -> String {
    let field = |name: &str| input.get(name).and_then(Value::as_str);
    // A long path is named by its start and its length: the length is what matters.
    let shown = |path: &str| {
        if path.len() <= 60 {
            return path.to_string();
        }
        let start: String = path.chars().take(40).collect();
        format!("{start}… (a path of {} bytes)", path.len())
    };
    let mut out = format!(
        "{} {}",
        field("command").unwrap_or("?"),
        shown(field("path").or(field("old_path")).unwrap_or(""))
    );
    if let Some(new) = field("new_path") {
        let _ = write!(out, " to {}", shown(new));
    }
    if let Some(text) = field("file_text")
        .or(field("insert_text"))
        .or(field("new_str"))
    {
        let _ = write!(out, " of {} bytes", text.len());
    }
    out
}

/// What a case's fixtures are, for the reason it is skipped: `a symbolic link and a FIFO`.
pub fn fixture_kinds(fixtures: &[Fixture]) -> String {
    let mut kinds: Vec<&str> = Vec::new();
    for fixture in fixtures {
        let kind = match fixture.kind {
            FixtureKind::Symlink(_) => "a symbolic link",
            FixtureKind::Hardlink(_) => "a hard link",
            FixtureKind::Fifo(_) => "a FIFO",
            FixtureKind::BytesHex(_) => "a file that is not UTF-8",
            FixtureKind::Dir(_) => "an empty folder",
            FixtureKind::Text(_) | FixtureKind::Repeat { .. } => {
                "a file planted behind the backend"
            }
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    match kinds.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => "nothing".to_string(),
    }
}

/// The decision that grades a case whose fixtures plant what no tool call can make (a hard
/// link, whose other name may lie outside; a FIFO), with what was planted.
pub fn planted_from_outside(fixtures: &[Fixture]) -> Option<(RuleId, String)> {
    let rule = if fixtures
        .iter()
        .any(|f| matches!(f.kind, FixtureKind::Hardlink(_)))
    {
        known::HARD_LINKS
    } else if fixtures
        .iter()
        .any(|f| matches!(f.kind, FixtureKind::Fifo(_)))
    {
        known::SPECIAL_FILES
    } else {
        return None;
    };
    Some((rule, fixture_kinds(fixtures)))
}

/// Grades in the hostile-environment tier (INFO, under the decision on such objects) what a
/// backend read or wrote outside through an object planted from outside: no path check can see
/// a hard link, so following one is how a backend fares among such objects, not an escape of
/// its own making.
pub fn hostile_environment(findings: &mut [Finding], rule: &RuleId, what: &str) {
    for finding in findings {
        if matches!(finding.check, Check::Outside | Check::Leak) {
            finding.level = Level::Info;
            finding.rule = rule.clone();
            finding.message = format!(
                "hostile environment ({what} planted from outside): {}",
                finding.message
            );
        }
    }
}

/// What an effect expects, in words.
fn describe_effect(expect: &EffectKind) -> String {
    match expect {
        EffectKind::FileText(text) => format!("a file containing {text:?}"),
        EffectKind::FileBytesHex(hex) => format!("a file of bytes {hex}"),
        EffectKind::FileBytesHexOneOf(hexes) => format!("a file of bytes {}", hexes.join(" or ")),
        EffectKind::Lines(lines) => format!("a file of the lines {lines:?}"),
        EffectKind::File(_) => "a file".to_string(),
        EffectKind::Dir(_) => "a folder".to_string(),
        EffectKind::Absent(_) => "nothing".to_string(),
        EffectKind::Symlink(target) => format!("a symbolic link to {target}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn case(value: Value) -> Case {
        serde_json::from_value(value).expect("a valid case")
    }

    fn effect(path: &str, expect: EffectKind) -> Effect {
        Effect {
            path: path.to_string(),
            expect,
            rule: None,
            user: None,
        }
    }

    fn graded() -> Graded {
        Graded {
            rule: known::DELETE_REMOVES,
            level: Level::Must,
        }
    }

    #[test]
    fn a_path_is_lost_only_when_it_was_there_and_no_rename_moved_it() {
        let before = Before::of(&case(json!({
            "id": "c", "title": "t", "rules": ["delete.removes"],
            "setup": [{"command": "create", "path": "/memories/a/b.txt", "file_text": "x"}],
            "steps": [{"input": {"command": "rename", "old_path": "/memories/r", "new_path": "/memories/s"}}]
        })));
        assert!(before.lost("/memories/a/b.txt"));
        assert!(before.lost("/memories/a"));
        assert!(before.lost("/memories"));
        assert!(!before.lost("/memories/new.txt"), "never there");
        assert!(!before.lost("/memories/r/inner"), "renamed away");
    }

    /// A memory moved by an acknowledged rename and found at neither path is lost, MUST, under
    /// the rename's rule, whatever the case's rule (a decision here); a rename that was refused,
    /// or whose old path still holds the memory, moved nothing that is lost.
    #[test]
    fn a_memory_an_acknowledged_rename_moved_to_nowhere_is_lost() {
        let of = |steps: Value| {
            Before::of(&case(json!({
                "id": "c", "title": "t", "rules": ["decide.trailing-slash"],
                "setup": [{"command": "create", "path": "/memories/d/a.txt", "file_text": "a\n"}],
                "steps": steps
            })))
        };
        let rename =
            json!({"command": "rename", "old_path": "/memories/d", "new_path": "/memories/e/"});
        let decision = Graded {
            rule: known::TRAILING_SLASH,
            level: Level::Info,
        };
        let old = effect("/memories/d", EffectKind::Absent(true));
        let new = effect("/memories/e/a.txt", EffectKind::FileText("a\n".to_string()));
        let effects = [(&old, &decision), (&new, &decision)];
        let missing = Seen::Missing("does not exist".to_string());

        let mut acknowledged = of(json!([{"input": rename}]));
        acknowledged.wrote(&rename, false);
        let lost = judge(
            &effects,
            &[Seen::Holds, missing.clone()],
            &acknowledged,
            &graded(),
            false,
            "read back with view after the steps",
        );
        assert_eq!(
            (lost[0].check, lost[0].level, &lost[0].rule),
            (Check::Lost, Level::Must, &known::RENAME_MOVES),
            "{lost:#?}"
        );
        assert!(
            lost[0].message.contains("moved /memories/d/a.txt here"),
            "{lost:#?}"
        );

        // The old path still holds it: a rename that did not happen, graded by the case.
        let stayed = judge(
            &effects,
            &[Seen::Missing("still there".to_string()), missing.clone()],
            &acknowledged,
            &graded(),
            false,
            "read back with view after the steps",
        );
        assert!(
            stayed.iter().all(|f| f.check == Check::Effect),
            "{stayed:#?}"
        );
        assert!(stayed.iter().all(|f| f.level == Level::Info), "{stayed:#?}");

        // Refused: nothing was moved, so nothing moved was lost.
        let mut refused = of(json!([{"input": rename}]));
        refused.wrote(&rename, true);
        let wrong = judge(
            &effects,
            &[Seen::Holds, missing],
            &refused,
            &graded(),
            false,
            "read back with view after the steps",
        );
        assert_eq!(
            (wrong[0].check, wrong[0].level),
            (Check::Effect, Level::Info)
        );
    }

    /// A memory of the setup that is gone is lost at MUST under a case's SHOULD rule; under a
    /// decision it stays INFO (the step may have taken the decision's other reading).
    #[test]
    fn a_loss_is_must_unless_a_decision_allows_the_step_that_removed_it() {
        let delete = json!({"command": "delete", "path": "/memories/x"});
        let mut before = Before::of(&case(json!({
            "id": "c", "title": "t", "rules": ["decide.trailing-slash"],
            "setup": [{"command": "create", "path": "/memories/keep.txt", "file_text": "k"}],
            "steps": [{"input": delete}]
        })));
        before.wrote(&delete, true);
        let decision = Graded {
            rule: known::TRAILING_SLASH,
            level: Level::Info,
        };
        let kept = effect("/memories/keep.txt", EffectKind::FileText("k".to_string()));
        let missing = [Seen::Missing("gone".to_string())];
        let chosen = judge(
            &[(&kept, &decision)],
            &missing,
            &before,
            &graded(),
            false,
            "read back with view after the steps",
        );
        assert_eq!(
            (chosen[0].check, chosen[0].level),
            (Check::Lost, Level::Info)
        );
        let should = Graded {
            rule: known::DELETE_REMOVES,
            level: Level::Should,
        };
        let lost = judge(
            &[(&kept, &should)],
            &missing,
            &before,
            &graded(),
            false,
            "read back with view after the steps",
        );
        assert_eq!((lost[0].check, lost[0].level), (Check::Lost, Level::Must));
    }

    #[test]
    fn a_store_of_keys_may_keep_folders_only_as_prefixes() {
        let before = Before::of(&case(json!({
            "id": "c", "title": "t", "rules": ["delete.removes"],
            "setup": [{"command": "create", "path": "/memories/a/b/c.txt", "file_text": "c"}],
            "steps": []
        })));
        let rule = graded();
        let gone = effect("/memories/a/b/c.txt", EffectKind::Absent(true));
        let parent = effect("/memories/a/b", EffectKind::Dir(true));
        let effects = [(&gone, &rule), (&parent, &rule)];
        let witnessed = [Seen::Holds, Seen::Missing("no such folder".to_string())];
        let keys = judge(
            &effects,
            &witnessed,
            &before,
            &rule,
            false,
            "read back with view after the steps",
        );
        assert_eq!(keys.len(), 1);
        assert_eq!(
            (keys[0].level, &keys[0].rule),
            (Level::Info, &known::KEY_VALUE_FOLDERS)
        );
        // On a folder, the folder was there and is gone: a lost memory, at the rule's level.
        let folder = judge(
            &effects,
            &witnessed,
            &before,
            &rule,
            true,
            "after the steps",
        );
        assert_eq!(
            (folder[0].check, folder[0].level),
            (Check::Lost, Level::Must)
        );
        // A folder whose file is gone too is no choice of a store of keys.
        let file = effect("/memories/a/b/d.txt", EffectKind::FileText("d".to_string()));
        let effects = [(&parent, &rule), (&file, &rule)];
        let witnessed = [
            Seen::Missing("gone".to_string()),
            Seen::Missing("gone".to_string()),
        ];
        let lost = judge(
            &effects,
            &witnessed,
            &before,
            &rule,
            false,
            "read back with view after the steps",
        );
        assert!(lost.iter().all(|f| f.level == Level::Must), "{lost:#?}");
    }
}
